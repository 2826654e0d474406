"""Persistence: SQLite by default, PostgreSQL for scale-out; one interface."""

from bot.store.database import Database, async_url, notify

__all__ = ["Database", "async_url", "notify"]
