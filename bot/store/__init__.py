"""Persistence: SQLite by default, PostgreSQL for scale-out; one interface."""

from bot.store.database import Database, UpgradeRefused, async_url, notify

__all__ = ["Database", "UpgradeRefused", "async_url", "notify"]
