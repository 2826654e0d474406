"""Bank clocks, the database side: a turn read from its game's row, the mover's pause and
vacation days, a turn's deadline rows armed. The arithmetic is bot/service/clocks.py's;
this module only reads and stores what it returns (instants and banks, never a countdown).

A game with a bank clock keeps its time control (`games.time_control`), each seat's bank
in microseconds (`games.banks`; the mover's as it was when its clock started), when the
running turn's clock started (`clock_started_at`), the vacation time the clock spent on
that turn by itself (`grace_microseconds`), and the deadline those make (`deadline_at`), which
the deadline rows follow. Each move row keeps the banks its turn started with, for an undo.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.service import clocks
from bot.service.clocks import DAY, WEEKENDS, Fischer, Pause, Turn
from bot.service.core.rules import zone
from bot.store.schema import deadlines, games, players, seats, tournaments
from bot.store.upserts import upsert

#: A new turn rewrites its deadline rows: one per game and kind, unclaimed, due again.
_DEADLINE_KEYS = ("game_id", "kind")
_DEADLINE_CHANGES = ("ply", "due_at", "done", "claimed_by", "claimed_until")


#: A game whose clock a vacation stops: any but an event's that says vacations do not.
STOPPED_BY_VACATIONS = sa.or_(
    games.c.tournament_id.is_(None),
    games.c.tournament_id.in_(sa.select(tournaments.c.id).where(tournaments.c.vacations.is_(True))),
)


@dataclass(frozen=True, slots=True)
class MoverClock:
    """What the clock of the player to move needs of them."""

    player_id: int
    time_zone: str
    pause: Pause
    reminders: str
    days_left: float  # their vacation days left this year
    spendable: float  # what the clock may spend by itself: 0 when they or the event say no
    # on a vacation that stops this game's clock: since when, and when its days run out
    stopped: tuple[datetime, datetime] | None


def control_of(row: Any) -> Fischer | None:
    """A game row's (or an event's) bank clock; None for days per move or none."""
    return clocks.parse_time_control(row.time_control) if row.time_control else None


def turn_of(row: Any) -> Turn:
    """The running turn's clock, from its game's row (a bank clock's, a turn under way)."""
    return Turn(
        row.clock_started_at,
        timedelta(microseconds=row.banks[row.to_move]),
        timedelta(microseconds=row.grace_microseconds),
    )


def mover_bank_now(
    row: Any, weekend: str | None, time_zone: str | None, away_since: datetime | None, now: datetime
) -> timedelta:
    """The bank the player to move has left now (a game row's running turn; their
    weekend, zone, and vacation start: the clock stopped then)."""
    turn = turn_of(row)
    at = now if away_since is None else max(turn.started, min(now, away_since))
    return clocks.bank_left(turn, at, pause_of(weekend, time_zone))


def pause_of(weekend: str | None, time_zone: str | None) -> Pause:
    return Pause(WEEKENDS.get(weekend or "", frozenset()), zone(time_zone))


def micros(amount: timedelta) -> int:
    """A span as stored: whole microseconds, as instants are (a bank loses nothing)."""
    return amount // timedelta(microseconds=1)


def as_banks(stored: Sequence[int]) -> tuple[timedelta, ...]:
    return tuple(timedelta(microseconds=s) for s in stored)


def vacation_days_left(row: Any, now: datetime, yearly: int) -> float:
    """A player's vacation days left: a new year brings the year's allowance."""
    return float(row.vacation_days_left) if row.vacation_year == now.year else float(yearly)


async def mover_clock(
    conn: AsyncConnection, game: Any, seat: int, now: datetime, yearly: int
) -> MoverClock:
    """The clock-related settings of the player in `seat` of `game` (a game row)."""
    player = (
        await conn.execute(
            sa.select(
                players.c.id,
                players.c.weekend,
                players.c.time_zone,
                players.c.reminders,
                players.c.auto_vacation,
                players.c.vacation_days_left,
                players.c.vacation_year,
                players.c.vacation_since,
            )
            .select_from(seats.join(players, players.c.id == seats.c.player_id))
            .where(seats.c.game_id == game.id, seats.c.seat == seat)
        )
    ).one()
    days_left = vacation_days_left(player, now, yearly)
    since = player.vacation_since
    allowed, stops = player.auto_vacation, True
    if game.tournament_id is not None:  # an event may forbid either
        event = (
            await conn.execute(
                sa.select(tournaments.c.auto_vacation, tournaments.c.vacations).where(
                    tournaments.c.id == game.tournament_id
                )
            )
        ).one()
        allowed, stops = allowed and event.auto_vacation, event.vacations
    return MoverClock(
        player.id,
        player.time_zone,
        pause_of(player.weekend, player.time_zone),
        player.reminders,
        days_left,
        days_left if allowed else 0.0,
        None if since is None or not stops else (since, since + clocks.vacation_time(days_left)),
    )


async def spend_vacation(
    conn: AsyncConnection, mover: MoverClock, spent: timedelta, now: datetime
) -> float:
    """Take `spent` from the mover's vacation days; returns the days left."""
    left = max(0.0, mover.days_left - spent / DAY)
    await conn.execute(
        players.update()
        .where(players.c.id == mover.player_id)
        .values(vacation_days_left=left, vacation_year=now.year)
    )
    return left


async def arm(
    conn: AsyncConnection, game_id: int, ply: int, turn: Turn, pause: Pause, now: datetime
) -> datetime:
    """Store a running turn's clock (its start, grace and deadline) and rewrite its
    deadline rows to follow it: the timeout at the deadline, each reminder when only its
    lead is left. Returns the deadline."""
    due = clocks.deadline(turn, pause)
    await conn.execute(
        games.update()
        .where(games.c.id == game_id)
        .values(
            deadline_at=due, clock_started_at=turn.started, grace_microseconds=micros(turn.grace)
        )
    )
    await write_deadline_rows(conn, game_id, ply, due, clocks.reminders_at(turn, pause), now)
    return due


async def write_deadline_rows(
    conn: AsyncConnection,
    game_id: int,
    ply: int,
    due: datetime,
    reminders: Mapping[str, datetime | None],
    now: datetime,
) -> None:
    """A turn's deadline rows, one per game and kind, unclaimed and due again; a reminder
    with no place in the turn, or whose time has passed, is written done (skipped)."""
    instants = {"timeout": due, **reminders}
    rows = [
        {
            "game_id": game_id,
            "kind": kind,
            "ply": ply,
            "due_at": due if at is None else at,
            "done": at is None or (kind != "timeout" and at <= now),
            "claimed_by": None,
            "claimed_until": None,
        }
        for kind, at in instants.items()
    ]
    await upsert(conn, deadlines, rows, keys=_DEADLINE_KEYS, update=_DEADLINE_CHANGES)
