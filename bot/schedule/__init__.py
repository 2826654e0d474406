"""Deadlines and reminders: APScheduler wakes the bot; the database decides."""

from bot.schedule.scheduler import Scheduler

__all__ = ["Scheduler"]
