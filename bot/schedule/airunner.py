"""The AI worker: takes jobs from the database queue and searches in worker processes.

`AiRunner` claims jobs (bot/service/core/jobs.py) for as many searches as it has
worker processes (`AI_PROCESSES`), first come first served, one search per game
at a time (a game has one move job per position). Each search runs in a worker
process at a lower priority (`Lane`, bot/workers.py), never on the event
loop; while it runs the runner renews the job's lease. The bot's move is committed
through the service (`AiPlay.play_for_bot`), which checks that the claim still
holds, and is then announced by the adapter's `deliver`, like any move. Nothing
lives in memory: after a restart (or a kill -9, once the lease has run out) the
jobs are claimed again, and a job whose game moved on is settled without a move.

The runner wakes when the service says a bot's turn began in this process
(`poke`), when another process queued work (on PostgreSQL: LISTEN/NOTIFY, heard at
the commit that queued it), and polls every `poll` seconds, the safety net: a job
whose worker died is claimable again once its lease has run out.

A runner without a `deliver` (`paperboard worker`, a process with no Discord
connection) leaves its results in the outbox: the service wrote them there for the
processes that announce, who hear of them at the commit (bot/service/core/outbox.py).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from functools import partial

from bot.service import GameService, Result
from bot.service.core import jobs as aiqueue
from bot.service.core.jobs import Job
from bot.service.looks.analysis import PROOF_MISSES, SECONDS_PER_POSITION, Judgement, judge, report
from bot.service.play.aiplayer import think
from bot.tasks import wait_set
from bot.workers import Lane

log = logging.getLogger("paperboard.ai")

POLL_SECONDS = 1.0
#: Searches yield the CPU to everything else, the drawing of boards included (nice 10).
AI_NICENESS = 19
HINT_SECONDS = 2.0  # a hint is the move a 2 s search would play
#: An analysis or a hint that failed this many claims is put aside (done, with nothing
#: found) instead of taking a worker again and again; asking again queues it afresh.
GIVE_UP_ATTEMPTS = 3

#: The adapter's announcement of a result (and the mark that it was delivered).
Deliver = Callable[[Result], Awaitable[object]]


class AiRunner:
    """Claims AI jobs and runs their searches in `processes` worker processes
    (0: one thread of this process, for tests)."""

    def __init__(
        self,
        service: GameService,
        deliver: Deliver | None,
        *,
        processes: int,
        worker_id: str | None = None,
        nodes: int | None = None,
        poll: float = POLL_SECONDS,
    ) -> None:
        self.service = service
        self.deliver = deliver
        self.worker_id = (worker_id or service.records.worker_id)[:64]
        self.nodes = nodes  # a simulation budget for every level (tests, benches)
        self.poll = poll
        self.slots = max(1, processes)  # jobs at a time in each of the queue's two lanes
        self.lane = Lane("ai", processes, AI_NICENESS)
        self._wake = asyncio.Event()
        # by lane (True: analyses): an analysis is many 0.5 s searches in the worker
        # processes, so a move claimed beside it waits for one of them at most
        self._running: dict[bool, set[asyncio.Task[None]]] = {False: set(), True: set()}
        self._loop_task: asyncio.Task[None] | None = None
        #: game id -> seconds the last search for it took (logs, benches)
        self.searched: dict[int, float] = {}

    async def start(self) -> None:
        if self._loop_task is None:
            self.service.play.on_bot_turn = self.poke
            await self.service.records.db.listen(aiqueue.NEWS, self.poke)
            self._loop_task = asyncio.create_task(self._loop(), name="paperboard-ai")
            log.info("AI runner %s started with %d searches at a time", self.worker_id, self.slots)

    def poke(self, _detail: str = "") -> None:
        """Work was queued: look for it now rather than at the next poll."""
        self._wake.set()

    async def stop(self) -> None:
        """Stop claiming; searches under way are abandoned (their leases run out)."""
        if self.service.play.on_bot_turn == self.poke:
            self.service.play.on_bot_turn = None
        self.service.records.db.unlisten(aiqueue.NEWS, self.poke)
        if self._loop_task is not None:
            self._loop_task.cancel()
        running = [*self._running[False], *self._running[True]]
        for task in running:
            task.cancel()
        await asyncio.gather(
            *(t for t in (self._loop_task, *running) if t is not None), return_exceptions=True
        )
        self._loop_task = None
        self.lane.executor.shutdown(wait=False, cancel_futures=True)
        log.info("AI runner %s stopped", self.worker_id)

    async def run_once(self) -> int:
        """Claim what is waiting (up to the free slots) and finish it; returns how many
        jobs were taken. Tests call this instead of starting the loop."""
        tasks = await self._claim()
        await asyncio.gather(*tasks)
        return len(tasks)

    # -- the loop ---------------------------------------------------------------------------

    async def _loop(self) -> None:
        while True:
            self._wake.clear()
            await self._claim()
            await wait_set(self._wake, self.poll)  # the poll: work from other processes

    async def _claim(self) -> list[asyncio.Task[None]]:
        tasks: list[asyncio.Task[None]] = []
        for analyses, running in self._running.items():
            free = self.slots - len(running)
            if free <= 0:
                continue
            try:
                jobs = await aiqueue.claim(
                    self.service.records.db,
                    self.service.records.clock(),
                    self.worker_id,
                    free,
                    analyses=analyses,
                )
            except Exception:  # the database is away: the next poll tries again
                log.exception("claiming AI jobs failed")
                return tasks
            for job in jobs:
                task = asyncio.create_task(self._run(job), name=f"paperboard-ai-{job.id}")
                running.add(task)
                task.add_done_callback(running.discard)
                task.add_done_callback(lambda _: self._wake.set())  # a slot is free
                tasks.append(task)
        return tasks

    async def _run(self, job: Job) -> None:
        renewing = asyncio.create_task(self._renew(job))
        try:
            if job.kind == "move":
                await self._move(job)
            elif job.kind == "analysis":
                await self._analyse(job)
            elif job.kind == "hint":
                await self._hint(job)
            else:
                log.warning("AI job %d of unknown kind %r left alone", job.id, job.kind)
        except asyncio.CancelledError:
            raise
        except Exception:  # the lease runs out and the job is tried again
            log.exception("game=%d AI job %d (%s) failed", job.game_id, job.id, job.kind)
            if job.kind != "move" and job.attempts >= GIVE_UP_ATTEMPTS:
                log.error(
                    "game=%d AI job %d put aside after %d tries", job.game_id, job.id, job.attempts
                )
                await self.service.analysis.store_work(job, self.worker_id, None)
        finally:
            renewing.cancel()

    async def _renew(self, job: Job) -> None:
        while True:
            await asyncio.sleep(aiqueue.RENEW.total_seconds())
            held = await aiqueue.renew(
                self.service.records.db, job, self.worker_id, self.service.records.clock()
            )
            if not held:
                return

    async def _move(self, job: Job) -> None:
        turn = await self.service.play.bot_turn(job)
        if turn is None:
            await self.service.play.settle_job(job, self.worker_id)
            return
        seed = job.ply if self.nodes is not None else None
        started = time.perf_counter()
        decision = await self.lane.run(
            partial(think, turn.game, turn.options, turn.record, turn.level, self.nodes, seed)
        )
        searched = time.perf_counter()
        self.searched[job.game_id] = decision.search_seconds
        result = await self.service.play.play_for_bot(
            job, self.worker_id, decision, draw=self.deliver is not None
        )
        if result is None:
            log.info("game=%d the bot's move at ply %d was no longer wanted", job.game_id, job.ply)
            return
        committed = time.perf_counter()
        try:
            if self.deliver is not None:
                await self.deliver(result)
        except Exception:  # its outbox row stays undelivered: the outbox sends it again
            log.exception("game=%d the bot's move could not be announced", job.game_id)
        log.info(
            "game=%d bot move ply=%d: search %.0f ms (in the worker %.0f ms), "
            "commit and board %.0f ms, announced in %.0f ms",
            job.game_id,
            job.ply,
            1000 * (searched - started),
            1000 * decision.search_seconds,
            1000 * (committed - searched),
            1000 * (time.perf_counter() - committed),
        )

    async def _analyse(self, job: Job) -> None:
        work = await self.service.analysis.work_on(job)
        if work is None:
            await self.service.analysis.store_work(job, self.worker_id, None)
            return
        game, options, record, title = work
        total = len(record) + 1
        verdicts: list[Judgement] = []
        # From the last position backwards: the solver tries the move played first, and
        # a mover who kept a win kept it by that move, proven just before. Each step is
        # short, so a move claimed beside the analysis waits for one step at most.
        misses = 0
        for ply in range(total - 1, -1, -1):
            prove = misses < PROOF_MISSES
            verdict = await self.lane.run(
                partial(
                    judge,
                    game,
                    options,
                    record[:ply],
                    SECONDS_PER_POSITION,
                    self.nodes,
                    prove=prove,
                    next_move=record[ply] if ply < len(record) else None,
                )
            )
            if prove:
                misses = 0 if verdict.proven else misses + 1
            verdicts.insert(0, verdict)
            await aiqueue.progress(
                self.service.records.db,
                job,
                self.worker_id,
                self.service.records.clock(),
                total - ply,
                total,
            )
        players = await self.service.analysis.players_of(job.game_id)
        result, png = await self.lane.run(
            partial(report, game, options, record, verdicts, players, title)
        )
        await self.service.analysis.store_work(job, self.worker_id, result, png)
        log.info("game=%d analysed: %d positions, chart %d bytes", job.game_id, total, len(png))

    async def _hint(self, job: Job) -> None:
        work = await self.service.analysis.work_on(job)
        if work is None:
            await self.service.analysis.store_work(job, self.worker_id, None)
            return
        game, options, record, _ = work
        verdict = await self.lane.run(
            partial(judge, game, options, record, HINT_SECONDS, self.nodes)
        )
        await self.service.analysis.store_work(job, self.worker_id, {"move": verdict.best})
