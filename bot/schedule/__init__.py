"""Deadlines and reminders: APScheduler wakes the bot; the database decides."""

from bot.schedule.scheduler import Scheduler, default_worker_id

__all__ = ["Scheduler", "default_worker_id"]
