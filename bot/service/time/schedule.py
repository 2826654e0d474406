"""The scheduler's door: the deadline rows and digests it claims and acts on, the vacations
whose days ran out, and the cleanups of what is over."""

from __future__ import annotations

from datetime import datetime, timedelta

from bot.service.core import jobs, outbox
from bot.service.core.models import Result
from bot.service.core.records import Records
from bot.service.core.turns import Turns
from bot.service.time import deadlines, digest


class Schedule:
    """What the scheduler (bot/schedule) calls, each in its own transaction."""

    def __init__(self, records: Records, turns: Turns) -> None:
        self.records = records
        self.turns = turns

    async def claim_deadlines(
        self, worker: str, lease: timedelta, *, limit: int = deadlines.CLAIM_BATCH
    ) -> list[deadlines.Claim]:
        """Lease up to `limit` due deadline rows to `worker`, the earliest first: no other
        worker claims them until the lease runs out."""
        return await deadlines.claim(self.records, worker, lease, limit)

    async def act_on_deadline(self, claim: deadlines.Claim, worker: str) -> Result | None:
        """Act on a claimed row while it is still its game's current one: a Reminder, a
        loss on time (TimedOut, GameOver), an expired challenge (ChallengeClosed). None
        when there is nothing to announce (superseded, postponed, held, reminders off)."""
        return await deadlines.act(self.records, self.turns, claim, worker)

    async def next_deadline(self) -> datetime | None:
        """When a deadline row next becomes claimable (due, or its lease runs out)."""
        return await deadlines.next_due(self.records)

    async def end_vacations(self) -> int:
        """End the vacations whose days ran out; their clocks run again."""
        ended = await deadlines.end_vacations(self.records)
        if ended:
            self.records.forget_rosters()  # they are no longer away
        return ended

    async def claim_digests(
        self, worker: str, lease: timedelta, *, limit: int = deadlines.CLAIM_BATCH
    ) -> list[digest.DigestClaim]:
        """Lease up to `limit` due daily digests to `worker`."""
        return await digest.claim(self.records, worker, lease, limit)

    async def send_digests(self, claims: list[digest.DigestClaim], worker: str) -> list[Result]:
        """Act on claimed digests: each moves to the player's next day; those with games
        where it is the player's move are written to the outbox and returned."""
        return await digest.send(self.records, claims, worker)

    async def cleanup_deadlines(self) -> int:
        """Delete the deadline rows of games that are over; returns how many."""
        return await deadlines.cleanup(self.records)

    async def cleanup_ai_jobs(self) -> int:
        """Delete the bot's move and hint jobs finished more than a day ago; returns how many."""
        return await jobs.cleanup(self.records.db, self.records.clock())

    async def cleanup_outbox(self) -> int:
        """Delete the outbox rows delivered more than a day ago; returns how many."""
        return await outbox.cleanup(self.records)
