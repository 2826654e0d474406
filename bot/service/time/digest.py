"""The daily digest: one message a day listing every game where it is a player's move.

A player whose reminders are `digest` has one `digests` row: when their next digest is
due (their `digest_hour`, local time). The scheduler claims due rows as it claims
deadlines (bot/service/core/leases.py: a lease in one worker's name, `FOR UPDATE SKIP LOCKED`
on PostgreSQL), and `send` acts on a batch in one transaction: it moves each row to the
next day and writes the digests into the outbox, which delivers them after the commit.
So a digest is sent once a day across restarts and processes: a crash before the commit
leaves the row due (claimed again once the lease runs out), one after it leaves the
digest in the outbox. An empty digest is not sent; the row moves on all the same.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import cache

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

import engine
from bot.service.core import banks, outbox
from bot.service.core.leases import NOW, claim_rows, lease_statement
from bot.service.core.models import Digest, DigestLine, Result
from bot.service.core.records import Records
from bot.service.core.rules import zone
from bot.store.schema import digests, games, players, seats
from bot.store.upserts import upsert


@dataclass(frozen=True, slots=True)
class DigestClaim:
    player_id: int
    due_at: datetime


@cache
def _claim_statement(dialect_name: str) -> sa.Update:
    return lease_statement(
        digests,
        dialect_name,
        where=(digests.c.due_at <= NOW,),
        order_by=digests.c.due_at,
        returning=(digests.c.id, digests.c.due_at),
    )


#: The games where each of some players is to move, least time left first.
_ON_MOVE = (
    sa.select(
        seats.c.player_id,
        games.c.id,
        games.c.guild_id,
        games.c.game,
        games.c.thread_id,
        games.c.deadline_at,
        games.c.to_move,
        games.c.time_control,
        games.c.banks,
        games.c.clock_started_at,
        games.c.grace_microseconds,
        players.c.weekend,
        players.c.time_zone,
        players.c.vacation_since,
        banks.STOPPED_BY_VACATIONS.label("vacations_stop"),
    )
    .select_from(
        games.join(
            seats, sa.and_(seats.c.game_id == games.c.id, seats.c.seat == games.c.to_move)
        ).join(players, players.c.id == seats.c.player_id)
    )
    .where(games.c.status == "active")
    .order_by(seats.c.player_id, games.c.deadline_at.is_(None), games.c.deadline_at, games.c.id)
)


def next_digest(now: datetime, time_zone: str, hour: int) -> datetime:
    """The next time it is `hour` o'clock in the player's time zone, after `now`."""
    local = now.astimezone(zone(time_zone))
    due = local.replace(hour=hour, minute=0, second=0, microsecond=0)
    if due <= local:
        due += timedelta(days=1)  # wall-clock arithmetic: the same local hour tomorrow
    return due.astimezone(UTC)


async def schedule(
    conn: AsyncConnection, player_id: int, reminders: str, time_zone: str, hour: int, now: datetime
) -> None:
    """After a settings change: the player's next digest, or none when they want none."""
    if reminders != "digest":
        await conn.execute(digests.delete().where(digests.c.id == player_id))
        return
    row = {
        "id": player_id,
        "due_at": next_digest(now, time_zone, hour),
        "claimed_by": None,
        "claimed_until": None,
    }
    await upsert(conn, digests, row, keys=("id",), update=("due_at", "claimed_by", "claimed_until"))


async def claim(service: Records, worker: str, lease: timedelta, limit: int) -> list[DigestClaim]:
    rows = await claim_rows(service.db, service.clock(), _claim_statement, worker, lease, limit)
    return [DigestClaim(r.id, r.due_at) for r in rows]


async def on_move(
    conn: AsyncConnection, player_ids: Sequence[int], now: datetime
) -> dict[int, list[DigestLine]]:
    """The games where each player is to move, least time left first (one query), with
    their bank left on a bank clock."""
    found: dict[int, list[DigestLine]] = {pid: [] for pid in player_ids}
    rows = (await conn.execute(_ON_MOVE.where(seats.c.player_id.in_(player_ids)))).all()
    for row in rows:
        title = f"{engine.GAMES[row.game].title} #{row.id}"
        bank = None
        if row.time_control is not None:
            away = row.vacation_since if row.vacations_stop else None
            left = banks.mover_bank_now(row, row.weekend, row.time_zone, away, now)
            bank = int(left.total_seconds())
        found[row.player_id].append(
            DigestLine(row.id, row.guild_id, title, row.thread_id, row.deadline_at, bank)
        )
    return found


#: Digests sent per transaction: each holds the writer (SQLite has one) for a few
#: milliseconds per digest, so a batch stays short next to the players' moves.
SEND_BATCH = 10


async def send(service: Records, claims: Sequence[DigestClaim], worker: str) -> list[Result]:
    """Act on claimed digests, SEND_BATCH to a transaction: each row still this worker's
    moves to the player's next day, and each digest with games in it goes into the outbox."""
    results: list[Result] = []
    for start in range(0, len(claims), SEND_BATCH):
        results += await _send_batch(service, claims[start : start + SEND_BATCH], worker)
    return results


async def _send_batch(service: Records, claims: Sequence[DigestClaim], worker: str) -> list[Result]:
    now = service.clock()
    ids = [c.player_id for c in claims]
    results = []
    async with service.db.write() as conn:
        held = (
            await conn.execute(
                sa.select(
                    digests.c.id, players.c.reminders, players.c.time_zone, players.c.digest_hour
                )
                .select_from(digests.join(players, players.c.id == digests.c.id))
                .where(
                    digests.c.id.in_(ids),
                    digests.c.claimed_by == worker[:64],
                    digests.c.due_at <= now,
                )
                .order_by(digests.c.id)
                .with_for_update(of=digests)
            )
        ).all()
        lines = await on_move(conn, [row.id for row in held], now)
        for row in held:
            await schedule(conn, row.id, row.reminders, row.time_zone, row.digest_hour, now)
            listed = tuple(lines[row.id])
            if row.reminders != "digest" or not listed:
                continue
            summary = await service.summary(conn, listed[0].game_id)
            digest = Digest(listed[0].game_id, row.id, listed)
            results.append(await outbox.write(service, conn, Result(summary, (digest,))))
    return results
