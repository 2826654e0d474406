"""Paperboard: the application around the engine (service, store, render, adapters)."""
