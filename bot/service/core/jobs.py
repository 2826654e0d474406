"""The AI's work queue, in the database: the moves the bot owes, analyses, hints.

One `ai_jobs` row per game, kind and position (`move`, `analysis`, `hint`; a
position is a ply, and an undo voids the jobs of the plies it takes back). A move
job is written in the transaction that hands the turn to a bot seat (a move, the
start, an undo), so a committed turn always has its job; a new turn at the same
position (after an undo) rewrites it, clearing any claim. Workers claim jobs as
deadlines are claimed (bot/service/core/leases.py: `UPDATE ... RETURNING`, the inner
SELECT `FOR UPDATE SKIP LOCKED` on PostgreSQL), first come first served, and renew
the lease while a search runs; a crashed worker's lease runs out and the job is
claimed again. Every claim adds one to `attempts`, which never goes back: the
claim's token. The bot's move commits only if the job is still done by nobody,
held by the same claim, and the game still at the job's position (aiplayer.py), in
the transaction that marks the job done: each turn gets its move exactly once. A
transaction that queues work notifies `NEWS` (PostgreSQL's NOTIFY, sent at its
commit): every worker process listening hears of it at once.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from datetime import datetime, timedelta
from functools import cache, partial
from typing import Any, Literal

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.service.core.leases import claim_rows, lease_statement
from bot.service.core.leases import release as release_rows
from bot.service.core.models import Seat
from bot.store import Database, notify
from bot.store.schema import ai_jobs
from bot.store.upserts import insert_or_nothing, upsert
from engine import GameState

Kind = Literal["move", "analysis", "hint"]

#: What a transaction that queues a job tells the workers (bot/store/presence.py).
NEWS = "ai"

#: A claim lasts this long unless renewed; a worker renews it every RENEW while it works,
#: so a killed worker's job is taken by another within LEASE.
LEASE = timedelta(seconds=15)
RENEW = timedelta(seconds=5)
#: Finished move and hint jobs are kept this long, then deleted (analyses are kept: they
#: are the stored report).
KEEP = timedelta(days=1)
#: What a new turn at a position resets of its move job (a claim from before is void).
_REWRITTEN = ("requested_at", "done", "claimed_by", "claimed_until", "finished_at")


@dataclasses.dataclass(frozen=True, slots=True)
class Job:
    """A queued job that one worker holds a lease on; `attempts` is the claim's token."""

    id: int
    game_id: int
    kind: Kind
    ply: int
    attempts: int
    requested_at: datetime


async def queue_turn(
    conn: AsyncConnection, game_id: int, roster: Sequence[Seat], state: GameState, now: datetime
) -> None:
    """In the transaction that starts a turn: a move job when the seat to move is a bot."""
    seat = state.to_move
    if state.outcome is not None or seat is None or roster[seat].bot is None:
        return
    row = {
        "game_id": game_id,
        "kind": "move",
        "ply": state.ply,
        "requested_at": now,
        "done": False,
        "claimed_by": None,
        "claimed_until": None,
        "finished_at": None,
    }
    await upsert(conn, ai_jobs, row, keys=("game_id", "kind", "ply"), update=_REWRITTEN)
    await notify(conn, NEWS)


async def request(conn: AsyncConnection, game_id: int, kind: Kind, ply: int, now: datetime) -> Any:
    """The job for this game, kind and position: queued now unless it exists (an
    analysis or a hint is stored once and read again). Returns its row."""
    inserted = await conn.execute(
        insert_or_nothing(ai_jobs, conn.dialect.name),
        {"game_id": game_id, "kind": kind, "ply": ply, "requested_at": now},
    )
    if inserted.rowcount:  # asked again while it waits (a hint polls): no news
        await notify(conn, NEWS)
    return await job_row(conn, game_id, kind, ply)


async def forget_after(conn: AsyncConnection, game_id: int, ply: int, now: datetime) -> None:
    """In the transaction that takes a game back to `ply`: the jobs of the positions
    taken back are voided (a hint or an analysis there would be of moves no longer
    played, and the game may come back to that ply another way): done with nothing
    found, so asking again queues them afresh, and claimed no more. Kept, not deleted:
    `attempts` goes on, so a worker still searching a voided job holds a token no
    later claim repeats (SQLite gives a deleted row's id to the next one)."""
    await conn.execute(
        ai_jobs.update()
        .where(ai_jobs.c.game_id == game_id, ai_jobs.c.ply > ply)
        .values(
            done=True,
            result=None,
            png=None,
            claimed_by=None,
            claimed_until=None,
            attempts=ai_jobs.c.attempts + 1,
            finished_at=now,
        )
    )


async def requeue(conn: AsyncConnection, job_id: int, now: datetime) -> None:
    """Queue a finished job again, as if asked for now (its result is stale)."""
    await conn.execute(
        ai_jobs.update()
        .where(ai_jobs.c.id == job_id)
        .values(done=False, requested_at=now, claimed_by=None, claimed_until=None, result=None)
    )
    await notify(conn, NEWS)


async def job_row(conn: AsyncConnection, game_id: int, kind: Kind, ply: int) -> Any:
    return (
        await conn.execute(
            sa.select(ai_jobs).where(
                ai_jobs.c.game_id == game_id, ai_jobs.c.kind == kind, ai_jobs.c.ply == ply
            )
        )
    ).one_or_none()


def _lane(analyses: bool) -> sa.ColumnElement[bool]:
    """Analyses (a whole game, minutes) are claimed apart from moves and hints (seconds,
    a player waits): a worker's share each, so no move waits behind an analysis."""
    return ai_jobs.c.kind == "analysis" if analyses else ai_jobs.c.kind != "analysis"


async def ahead_of(conn: AsyncConnection, job: Any, now: datetime) -> int:
    """How many other jobs of its lane come before `job` (a row): under way, or asked
    for earlier."""
    c = ai_jobs.c
    count = await conn.scalar(
        sa.select(sa.func.count())
        .select_from(ai_jobs)
        .where(
            c.done == sa.false(),
            c.id != job.id,  # a worker may have claimed it already: it is not its own queue
            _lane(job.kind == "analysis"),
            sa.or_(c.claimed_until > now, c.requested_at < job.requested_at),
        )
    )
    return int(count or 0)


@cache
def _claim_statement(dialect_name: str, analyses: bool) -> sa.Update:
    """Built once per dialect and lane: lease the oldest waiting jobs nobody holds."""
    c = ai_jobs.c
    return lease_statement(
        ai_jobs,
        dialect_name,
        where=(c.done == sa.false(), _lane(analyses)),
        order_by=c.requested_at,
        returning=(c.id, c.game_id, c.kind, c.ply, c.attempts, c.requested_at),
        attempts=c.attempts + 1,
    )


async def claim(
    db: Database, now: datetime, worker: str, limit: int, *, analyses: bool
) -> list[Job]:
    """Lease up to `limit` waiting jobs of one lane (analyses, or moves and hints) to
    `worker`, the oldest request first."""
    rows = await claim_rows(
        db, now, partial(_claim_statement, analyses=analyses), worker, LEASE, limit
    )
    jobs = [Job(r.id, r.game_id, r.kind, r.ply, r.attempts, r.requested_at) for r in rows]
    return sorted(jobs, key=lambda job: (job.requested_at, job.id))


async def release(conn: AsyncConnection, worker: str) -> int:
    """In a write transaction: the jobs `worker`'s name held before this process started
    (a crash mid-search) are claimable at once, and the workers are told."""
    released = await release_rows(conn, ai_jobs, worker, ai_jobs.c.done == sa.false())
    if released:
        await notify(conn, NEWS)
    return released


def _held(job: Job, worker: str) -> sa.ColumnElement[bool]:
    return sa.and_(
        ai_jobs.c.id == job.id,
        ai_jobs.c.claimed_by == worker[:64],
        ai_jobs.c.attempts == job.attempts,
        ai_jobs.c.done == sa.false(),
    )


async def renew(db: Database, job: Job, worker: str, now: datetime) -> bool:
    """Extend the lease while the work goes on; False when the claim is gone."""
    async with db.write() as conn:
        changed = await conn.execute(
            ai_jobs.update().where(_held(job, worker)).values(claimed_until=now + LEASE)
        )
    return changed.rowcount == 1


async def progress(
    db: Database, job: Job, worker: str, now: datetime, done: int, total: int
) -> None:
    """Positions analysed so far (read by whoever waits for the analysis); renews the lease."""
    async with db.write() as conn:
        await conn.execute(
            ai_jobs.update()
            .where(_held(job, worker))
            .values(progress=done, total=total, claimed_until=now + LEASE)
        )


async def lock_held(conn: AsyncConnection, job: Job, worker: str) -> Any:
    """In a write transaction: the job's row locked, if this claim still holds it."""
    return (
        await conn.execute(sa.select(ai_jobs).where(_held(job, worker)).with_for_update())
    ).one_or_none()


async def finish(
    conn: AsyncConnection,
    job_id: int,
    now: datetime,
    result: dict[str, Any] | None = None,
    png: bytes | None = None,
) -> None:
    await conn.execute(
        ai_jobs.update()
        .where(ai_jobs.c.id == job_id)
        .values(done=True, claimed_until=None, finished_at=now, result=result, png=png)
    )


async def cleanup(db: Database, now: datetime) -> int:
    """Delete the move and hint jobs finished more than KEEP ago; returns how many."""
    c = ai_jobs.c
    old = sa.and_(c.done == sa.true(), c.kind != "analysis", c.finished_at < now - KEEP)
    return await db.delete_in_batches(ai_jobs, old)
