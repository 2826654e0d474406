"""Time on the database side: the deadline rows the scheduler claims and acts on (reminders,
losses on time, expired challenges, vacations), the daily digests, and the scheduler's
door to them. The clock arithmetic is bot/service/clocks.py's, pure."""
