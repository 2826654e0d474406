"""The scheduler: APScheduler wakes the bot; the database decides.

APScheduler (3.x, AsyncIOScheduler, the in-memory job store only) holds the
jobs: `wake`, a one-off at the next time a deadline row becomes claimable,
re-armed after every tick and by `poke`; `sweep`, every minute, the safety
net; `outbox`, every 5 seconds, which delivers the announcements a crashed process
left undelivered (bot/service/core/outbox.py), also at once when another process left
one (`paperboard worker`'s moves: NOTIFY on PostgreSQL); and an hourly `cleanup`. Nothing that
matters lives in the job store: each tick asks the database what is due, claims
it with a lease in this worker's name and acts on it (bot/service/time/deadlines.py),
so a restart loses nothing and several processes can share one database.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime, timedelta

from apscheduler.schedulers.asyncio import AsyncIOScheduler  # type: ignore[import-untyped]

from bot.service import GameService, Result
from bot.service.clocks import REMINDER_LEADS
from bot.service.core import outbox
from bot.service.core.outbox import Publish

log = logging.getLogger("paperboard.schedule")

LEASE = timedelta(minutes=5)
SWEEP = timedelta(minutes=1)
#: How often the outbox is read for what a dead process left: with its lease
#: (outbox.LEASE) a crash's announcement goes out within half a minute.
OUTBOX_PASS = timedelta(seconds=5)
CLEANUP = timedelta(hours=1)
BATCH = 200
MAX_BATCHES = 1000  # per tick: the rest waits for the next one
MIN_DELAY = timedelta(seconds=1)  # a wake-up never fires sooner: no busy loop
#: Every job: run however late (a missed wake-up still has work), once, one at a time.
JOB_DEFAULTS = {"coalesce": True, "max_instances": 1, "misfire_grace_time": None}


class Scheduler:
    """Sends reminders, applies timeouts, expires challenges and starts events when they
    fall due, and delivers what a crashed process left in the outbox.

    `tick()` is one scan-claim-act pass at the service's clock and `redeliver()` one
    outbox pass; `start()` runs both at once (the catch-up after downtime) and lets
    APScheduler run the rest. `publish` is the adapter's delivery of one result.
    """

    def __init__(
        self,
        service: GameService,
        publish: Publish,
        *,
        worker_id: str | None = None,
        lease: timedelta = LEASE,
        sweep: timedelta = SWEEP,
        outbox_pass: timedelta = OUTBOX_PASS,
        batch: int = BATCH,
    ) -> None:
        self.service = service
        self.publish = publish
        self.worker_id = (worker_id or service.records.worker_id)[:64]
        self.lease = lease
        self.sweep = sweep
        self.outbox_pass = outbox_pass
        self.batch = batch
        self._jobs = AsyncIOScheduler(timezone=UTC, job_defaults=JOB_DEFAULTS)
        self._lock = asyncio.Lock()  # one tick at a time in this process
        self._cleaning = asyncio.Lock()
        self._delivering = asyncio.Lock()  # one outbox pass at a time in this process
        self._again = False  # news came during a pass: it goes round once more
        self._heard: set[asyncio.Task[int]] = set()  # passes started by news
        self._armed: datetime | None = None  # the wake-up, on the service's clock
        self._stopping = False

    @property
    def running(self) -> bool:
        return bool(self._jobs.running)

    async def start(self) -> None:
        """Start the jobs and catch up at once: what fell due while the bot was down."""
        if self.running:
            return
        self._stopping = False
        self._jobs.start()
        every = {"trigger": "interval", "replace_existing": True}
        self._jobs.add_job(self._wake, seconds=self.sweep.total_seconds(), id="sweep", **every)
        self._jobs.add_job(self._cleanup, seconds=CLEANUP.total_seconds(), id="cleanup", **every)
        self._jobs.add_job(
            self.redeliver, seconds=self.outbox_pass.total_seconds(), id="outbox", **every
        )
        await self.service.records.db.listen(outbox.NEWS, self._news)
        log.info("scheduler %s started", self.worker_id)
        await self.redeliver()  # what a crash left undelivered, oldest first
        await self._wake()
        await self._cleanup()

    async def stop(self) -> None:
        """Stop the jobs, after the tick under way (if any) has finished."""
        if not self.running:
            return
        self._stopping = True  # no new tick from the jobs
        self.service.records.db.unlisten(outbox.NEWS, self._news)
        async with self._lock, self._cleaning, self._delivering:  # the work under way ends
            self._jobs.shutdown(wait=False)
            self._armed = None
        await asyncio.sleep(0)  # APScheduler shuts down on the loop's next turn
        log.info("scheduler %s stopped", self.worker_id)

    async def tick(self) -> list[Result]:
        """Claim every due row (batch by batch) and act on it; deliver and return what
        there is to announce. Tests call this instead of sleeping."""
        results: list[Result] = []
        async with self._lock:
            await self.service.schedule.end_vacations()
            for _ in range(MAX_BATCHES):
                claims = await self.service.schedule.claim_deadlines(
                    self.worker_id, self.lease, limit=self.batch
                )
                for claim in claims:
                    try:
                        result = await self.service.schedule.act_on_deadline(claim, self.worker_id)
                    except Exception:  # the lease runs out and the row is tried again
                        log.exception("game=%d %s failed", claim.game_id, claim.kind)
                        continue
                    if result is not None:
                        results.append(result)
                        await self._deliver(result)
                if len(claims) < self.batch:
                    break
            results += await self._digests()
            results += await self._event_starts()
            await self._rearm()
        return results

    async def _digests(self) -> list[Result]:
        """Send the daily digests that fell due (the sweep runs within a minute of them)."""
        results: list[Result] = []
        for _ in range(MAX_BATCHES):
            claims = await self.service.schedule.claim_digests(
                self.worker_id, self.lease, limit=self.batch
            )
            try:
                sent = await self.service.schedule.send_digests(claims, self.worker_id)
            except Exception:  # the leases run out and the rows are tried again
                log.exception("%d digests failed", len(claims))
                sent = []
            for result in sent:
                results.append(result)
                await self._deliver(result)
            if len(claims) < self.batch:
                break
        return results

    async def _event_starts(self) -> list[Result]:
        """Start the events whose start time has come (the sweep runs within a minute)."""
        try:
            started = await self.service.events.start_due_tournaments()
        except Exception:  # each start is its own transaction: the next tick goes on
            log.exception("event starts failed")
            return []
        for result in started:
            await self._deliver(result)
        return started

    def poke(self, when: datetime) -> None:
        """A turn with deadline `when` started: wake up in time for its first reminder
        (the adapter calls this after publishing a TurnStarted with a deadline)."""
        if not self.running:
            return
        now = self.service.records.clock()
        steps = [when - lead for lead in REMINDER_LEADS.values()] + [when]
        soonest = min((t for t in steps if t > now), default=now)
        if self._armed is None or soonest < self._armed:
            self._arm(soonest)

    # -- the jobs ---------------------------------------------------------------------------

    async def _wake(self) -> None:
        if self._stopping or self._lock.locked():
            return  # a tick is under way; it claims what is due and re-arms after
        try:
            await self.tick()
        except Exception:  # the database is away: the sweep tries again
            log.exception("deadline tick failed")

    async def redeliver(self) -> int:
        """Deliver what is undelivered in the outbox and claimable (left by a crashed
        process, or by one that does not announce); returns how many results went out.
        Called while a pass is under way, it makes that pass go round once more."""
        self._again = True
        if self._stopping or self._delivering.locked():
            return 0
        delivered = 0
        async with self._delivering:
            while self._again and not self._stopping:
                self._again = False
                try:
                    delivered += await self.service.outbox.redeliver(self.publish, self.worker_id)
                except Exception:  # the database is away: the next pass tries again
                    log.exception("outbox pass failed")
        return delivered

    def _news(self, _detail: str = "") -> None:
        """Another process left a result in the outbox: deliver it now."""
        task = asyncio.create_task(self.redeliver(), name="paperboard-outbox-news")
        self._heard.add(task)
        task.add_done_callback(self._heard.discard)

    async def _cleanup(self) -> None:
        if self._stopping or self._cleaning.locked():
            return
        async with self._cleaning:
            try:
                await self.service.schedule.cleanup_deadlines()
                await self.service.schedule.cleanup_outbox()
                await self.service.schedule.cleanup_ai_jobs()
                await self.service.sessions.cleanup()
            except Exception:
                log.exception("cleanup failed")

    async def _rearm(self) -> None:
        if not self.running:
            return
        try:
            due = [
                await self.service.schedule.next_deadline(),
                await self.service.events.next_tournament_start(),
            ]
            when = min((t for t in due if t is not None), default=None)
        except Exception:
            log.exception("cannot read the next deadline; the sweep will retry")
            return
        if when is None:
            if self._jobs.get_job("wake") is not None:
                self._jobs.remove_job("wake")
            self._armed = None
        else:
            self._arm(when)

    def _arm(self, when: datetime) -> None:
        """One wake-up at `when` (the service's clock), replacing the one before."""
        delay = max(when - self.service.records.clock(), MIN_DELAY)
        self._jobs.add_job(
            self._wake,
            "date",
            run_date=datetime.now(UTC) + delay,
            id="wake",
            replace_existing=True,
        )
        self._armed = when

    async def _deliver(self, result: Result) -> None:
        try:
            await self.service.outbox.deliver(result, self.publish)
        except Exception:  # its outbox row stays undelivered: `redeliver` sends it again
            log.exception("game=%d announcement failed", result.game.id)
