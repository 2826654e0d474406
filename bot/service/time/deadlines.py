"""Deadlines and reminders, the database side: claim, act, hold, shift, clean up.

The service writes a game's deadline rows (`timeout`, `remind_24h`, `remind_1h`,
or `expire` for an open challenge) in the transaction that starts a turn, one
row per game and kind, so a new turn rewrites them. The scheduler calls the
functions here through `GameService`:

- `claim` takes a lease on due rows for one worker in one statement (`UPDATE
  ... RETURNING`; on PostgreSQL the rows are picked `FOR UPDATE SKIP LOCKED`), so
  two processes never hold the same row. A crashed worker's lease runs out and
  the row is claimed again.
- `act` acts on a claimed row in one transaction, only while the row is still
  the one claimed (a new turn rewrites it and clears the claim) and its game is
  still under way: a reminder, a loss on time, an expired challenge. The row is
  marked done in that transaction, which also writes the result's events into
  the outbox (bot/service/core/outbox.py); the caller delivers them after it.
- A reminder is skipped when a later one (or the deadline) is also due: after
  downtime a game gets one message, not a backlog. Quiet hours move a reminder
  to their end (unless that is past the deadline and the reminder is the turn's
  only one, with a day per move: then it is sent in them); they never move a
  deadline.
- Vacation stops the clocks of the player on vacation. Their rows that fall due
  are held (a lease until their vacation days would run out); when the vacation
  ends, `resume_clocks` shifts each of their running turns by the time the turn
  spent in the vacation, and re-arms the reminders already sent that are ahead of
  the new deadline. `end_vacations` ends the vacations whose days ran out.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import cache
from typing import Any, Literal

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

import engine
from bot.service import clocks
from bot.service.clocks import REMINDER_LEADS
from bot.service.core import banks, outbox
from bot.service.core.leases import NOW, claim_rows, lease_statement
from bot.service.core.models import Reminder, Result, TimedOut, Via
from bot.service.core.records import Records
from bot.service.core.rules import forfeit, zone
from bot.service.core.turns import Turns
from bot.store.schema import deadlines, games, players, seats, tournaments

log = logging.getLogger("paperboard.deadlines")

#: What makes a due reminder pointless when it is due too: a later reminder, the deadline.
LATER = {"remind_24h": ("remind_1h", "timeout"), "remind_1h": ("timeout",)}
CLAIM_BATCH = 200
HELD_BY = "vacation"  # claimed_by of a row held while its player is on vacation
MIN_HOLD = timedelta(minutes=1)
ENDED = ("finished", "aborted", "declined", "cancelled", "expired")


@dataclass(frozen=True, slots=True)
class Claim:
    """A due deadline row that one worker holds a lease on."""

    id: int
    game_id: int
    kind: str  # timeout remind_24h remind_1h expire
    ply: int
    due_at: datetime


# == claiming ====================================================================================


@cache
def _claim_statement(dialect_name: str) -> sa.Update:
    """Built once per dialect: lease the earliest due, unleased rows to one worker."""
    c = deadlines.c
    return lease_statement(
        deadlines,
        dialect_name,
        where=(c.done == sa.false(), c.due_at <= NOW),
        order_by=c.due_at,
        returning=(c.id, c.game_id, c.kind, c.ply, c.due_at),
    )


async def claim(
    service: Records, worker: str, lease: timedelta, limit: int = CLAIM_BATCH
) -> list[Claim]:
    rows = await claim_rows(service.db, service.clock(), _claim_statement, worker, lease, limit)
    claims = [Claim(r.id, r.game_id, r.kind, r.ply, r.due_at) for r in rows]
    return sorted(claims, key=lambda c: (c.due_at, c.id))


async def next_due(service: Records) -> datetime | None:
    """When a row next becomes claimable: due and unleased, or its lease (or hold) ends."""
    now = service.clock()
    async with service.db.read() as conn:
        first = await conn.scalar(
            sa.select(deadlines.c.due_at)
            .where(
                deadlines.c.done == sa.false(),
                sa.or_(deadlines.c.claimed_until.is_(None), deadlines.c.claimed_until <= now),
            )
            .order_by(deadlines.c.due_at)
            .limit(1)
        )
        # by the lease index alone (with `done` in the WHERE, SQLite walks every open row)
        leased = (
            await conn.execute(
                sa.select(deadlines.c.due_at, deadlines.c.claimed_until, deadlines.c.done).where(
                    deadlines.c.claimed_until > now
                )
            )
        ).all()
    times = [max(r.due_at, r.claimed_until) for r in leased if not r.done]
    if first is not None:
        times.append(first)
    return min(times, default=None)


# == acting ======================================================================================

_MOVER = sa.select(
    players.c.id,
    players.c.reminders,
    players.c.time_zone,
    players.c.quiet_start,
    players.c.quiet_end,
    players.c.vacation_since,
    players.c.vacation_days_left,
).select_from(seats.join(players, players.c.id == seats.c.player_id))


async def act(service: Records, turns: Turns, claimed: Claim, worker: str) -> Result | None:
    """Act on a claimed row if it is still this worker's and its game's current one.

    Returns what to announce, or None (nothing to say: skipped, postponed, held)."""
    now = service.clock()
    async with service.db.write() as conn:
        # games before deadlines: the order a move locks them in (no deadlock on PostgreSQL)
        game = (
            await conn.execute(
                sa.select(games).where(games.c.id == claimed.game_id).with_for_update()
            )
        ).one_or_none()
        row = (
            await conn.execute(
                sa.select(deadlines).where(deadlines.c.id == claimed.id).with_for_update()
            )
        ).one_or_none()
        if (
            game is None
            or row is None
            or row.done
            or row.claimed_by != worker[:64]
            or row.ply != claimed.ply
            or row.due_at > now
        ):
            return None  # a new turn rewrote it, a vacation moved it, or another worker has it
        if row.kind == "expire":
            if game.status == "open":
                log.info("game=%d challenge expired", game.id)
                return await turns.close_challenge(conn, game.id, "expired", None)
            await _done(conn, row.id)
            return None
        if game.status != "active" or game.to_move is None or game.deadline_at is None:
            await _done(conn, row.id)
            return None
        mover = (
            await conn.execute(
                _MOVER.where(seats.c.game_id == game.id, seats.c.seat == game.to_move)
            )
        ).one()
        if (
            mover.vacation_since is not None
            and mover.vacation_since < row.due_at
            and await _vacations_stop(conn, game)
        ):
            # the clock stopped before this fell due: hold it until the vacation ends
            days = max(0.0, mover.vacation_days_left)
            hold = max(mover.vacation_since + timedelta(days=days), now + MIN_HOLD)
            await conn.execute(
                deadlines.update()
                .where(deadlines.c.id == row.id)
                .values(claimed_by=HELD_BY, claimed_until=hold)
            )
            return None
        if row.kind == "timeout":
            if game.time_control is not None:
                spent = await _spend_vacation(service, conn, game, now)
                if spent is not None:
                    return spent or None
            return await _time_out(service, turns, conn, game, mover.id, row.id)
        if row.kind not in LATER:
            log.warning("game=%d unknown deadline kind %r", game.id, row.kind)
            await _done(conn, row.id)
            return None
        later = await conn.scalar(
            sa.select(sa.func.count())
            .select_from(deadlines)
            .where(
                deadlines.c.game_id == game.id,
                deadlines.c.kind.in_(LATER[row.kind]),
                deadlines.c.done == sa.false(),
                deadlines.c.due_at <= now,
            )
        )
        if later or mover.reminders not in ("dm", "thread", "email"):
            await _done(conn, row.id)  # superseded (one message per game), or reminders off
            return None
        quiet_end = quiet_until(now, mover.time_zone, mover.quiet_start, mover.quiet_end)
        # Quiet hours wait, unless they last past the deadline and this is the turn's
        # only reminder (a day per move: no 24-hour one): one in them beats none.
        only = _reminders_in_turn(game) == [row.kind]
        if quiet_end is not None and not (only and quiet_end >= game.deadline_at):
            await conn.execute(
                deadlines.update()
                .where(deadlines.c.id == row.id)
                .values(due_at=quiet_end, claimed_by=None, claimed_until=None)
            )
            return None
        await _done(conn, row.id)
        summary = await service.summary(conn, game.id, game)
        log.info("game=%d %s player=%d by %s", game.id, row.kind, mover.id, mover.reminders)
        reminder = Reminder(game.id, mover.id, game.deadline_at, mover.reminders)
        return await outbox.write(service, conn, Result(summary, (reminder,)))


async def _time_out(
    service: Records, turns: Turns, conn: AsyncConnection, game: Any, player_id: int, row_id: int
) -> Result:
    """The player to move loses on time; with more players, they rank last."""
    summary = await service.summary(conn, game.id, game)
    state = await service.load_state(conn, game)
    seat = game.to_move
    winners, scores = forfeit(state, seat)
    over = await turns.finish(
        conn, game, summary, winners, str(engine.End.TIME), scores, loser=seat
    )
    await _done(conn, row_id)
    log.info("game=%d player=%d timed out", game.id, player_id)
    events = (TimedOut(game.id, player_id), over)
    return await outbox.write(service, conn, Result(await service.summary(conn, game.id), events))


async def _spend_vacation(
    service: Records, conn: AsyncConnection, game: Any, now: datetime
) -> Result | Literal[False] | None:
    """A bank clock ran out: the vacation days it may spend by itself move its deadline
    (the player is told, by DM or in the thread as their reminders go). None when they do
    not reach (the game is lost on time); False when the deadline had moved already."""
    mover = await banks.mover_clock(conn, game, game.to_move, now, service.settings.vacation_days)
    turn = banks.turn_of(game)
    needed = clocks.vacation_needed(turn, now, mover.pause, mover.spendable)
    if needed is None:
        return None
    turn = dataclasses.replace(turn, grace=turn.grace + needed)
    due = await banks.arm(conn, game.id, game.ply, turn, mover.pause, now)
    if not needed:
        return False  # a stale row: armed again from the turn's clock
    left = await banks.spend_vacation(conn, mover, needed, now)
    # a move read before this re-reads the row (its UPDATE holds only against updated_at)
    await conn.execute(games.update().where(games.c.id == game.id).values(updated_at=now))
    log.info("game=%d player=%d clock spent %s of vacation", game.id, mover.player_id, needed)
    via: Via = "dm" if mover.reminders == "dm" else "thread"
    if mover.reminders == "email":
        via = "email"
    told = Reminder(game.id, mover.player_id, due, via, needed / clocks.DAY, left)
    return await outbox.write(service, conn, Result(await service.summary(conn, game.id), (told,)))


def _reminders_in_turn(game: Any) -> list[str]:
    """The reminders that have a place in the game's running turn."""
    if game.time_control is not None:
        turn = banks.turn_of(game)
        return [k for k, lead in REMINDER_LEADS.items() if lead < turn.bank + turn.grace]
    return [k for k, lead in REMINDER_LEADS.items() if _in_turn(lead, game.days_per_move)]


def _in_turn(lead: timedelta, days_per_move: int) -> bool:
    """Whether a reminder this long before the deadline falls inside a turn (a day per
    move has no 24-hour reminder: it is written done when the turn starts)."""
    return lead < timedelta(days=days_per_move)


async def _done(conn: AsyncConnection, row_id: int) -> None:
    await conn.execute(
        deadlines.update().where(deadlines.c.id == row_id).values(done=True, claimed_until=None)
    )


def quiet_until(
    now: datetime, time_zone: str, start: int | None, end: int | None
) -> datetime | None:
    """The end of the quiet period `now` falls in (local hours start-end), or None."""
    if start is None or end is None or start == end:
        return None
    local = now.astimezone(zone(time_zone))
    hour = local.hour
    quiet = start <= hour < end if start < end else hour >= start or hour < end
    if not quiet:
        return None
    wake = local.replace(hour=end, minute=0, second=0, microsecond=0)
    if wake <= local:
        wake += timedelta(days=1)  # wall-clock arithmetic: the same local hour tomorrow
    return wake.astimezone(UTC)


# == vacations ===================================================================================


async def lock_games_of(conn: AsyncConnection, player_id: int) -> list[int]:
    """Lock the player's games under way, in id order, before a vacation's end locks the
    player's row and moves their clocks: games before players, the order every use case
    takes its locks in, so it never deadlocks with a move (docs/ARCHITECTURE.md). Their
    ids."""
    seated = sa.select(seats.c.game_id).where(seats.c.player_id == player_id)
    locked = await conn.scalars(
        sa.select(games.c.id)
        .where(games.c.status == "active", games.c.id.in_(seated))
        .order_by(games.c.id)
        .with_for_update()
    )
    return list(locked)


async def _turns_of(
    conn: AsyncConnection, player_id: int, *conditions: sa.ColumnElement[bool]
) -> Sequence[sa.Row[Any]]:
    """The games under way in which it is the player's move, meeting `conditions`."""
    on_move = sa.and_(seats.c.game_id == games.c.id, seats.c.seat == games.c.to_move)
    return (
        await conn.execute(
            sa.select(games)
            .select_from(games.join(seats, on_move))
            .where(seats.c.player_id == player_id, games.c.status == "active", *conditions)
        )
    ).all()


async def resume_clocks(
    conn: AsyncConnection, player_id: int, since: datetime, end: datetime, now: datetime
) -> list[int]:
    """A vacation [since, end) is over: shift the player's running turns by the time each
    turn spent in it (their deadline rows and the game's deadline). Returns the games."""
    turns = await _turns_of(
        conn, player_id, games.c.deadline_at.is_not(None), banks.STOPPED_BY_VACATIONS
    )
    shifted = []
    for turn in turns:
        if turn.time_control is not None:
            await _restart_bank(
                conn, turn, now, lambda old, mover: clocks.resumed(old, since, end, mover.pause)
            )
            shifted.append(turn.id)
            continue
        # when the turn's clock started, as the deadline tells it; a turn shifted by an
        # earlier vacation looks as if it started later, but never after that vacation's
        # end, so never after `since`: max() below gives the right start either way
        started = turn.deadline_at - timedelta(days=turn.days_per_move)
        shift = end - max(since, started)
        if shift <= timedelta(0):
            continue
        await conn.execute(
            games.update()
            .where(games.c.id == turn.id)
            .values(deadline_at=turn.deadline_at + shift, updated_at=now)  # moves re-check
        )
        rows = (
            await conn.execute(
                sa.select(deadlines.c.id, deadlines.c.due_at).where(
                    deadlines.c.game_id == turn.id, deadlines.c.done == sa.false()
                )
            )
        ).all()
        for row in rows:
            await conn.execute(
                deadlines.update()
                .where(deadlines.c.id == row.id)
                .values(due_at=row.due_at + shift, claimed_by=None, claimed_until=None)
            )
        # The reminders already sent named the old deadline and came days ago: they come
        # again for the new one (one now, when the time left is already under their lead;
        # a vacation taken in the last hour had left none before the loss).
        for kind, lead in REMINDER_LEADS.items():
            if not _in_turn(lead, turn.days_per_move):
                continue
            await conn.execute(
                deadlines.update()
                .where(
                    deadlines.c.game_id == turn.id,
                    deadlines.c.kind == kind,
                    deadlines.c.done == sa.true(),
                )
                .values(
                    done=False,
                    due_at=max(now, turn.deadline_at + shift - lead),
                    claimed_by=None,
                    claimed_until=None,
                )
            )
        log.info("game=%d clock resumed player=%d shift=%s", turn.id, player_id, shift)
        shifted.append(turn.id)
    return shifted


async def _restart_bank(
    conn: AsyncConnection,
    game: Any,
    now: datetime,
    restart: Callable[[clocks.Turn, banks.MoverClock], clocks.Turn],
    pause: clocks.Pause | None = None,
) -> None:
    """A running bank clock restarted (what is left kept): after a vacation, or when its
    mover's weekend or zone changes (`pause`: the new one). Its rows are armed again:
    reminders still ahead on the bank come; none is sent at once."""
    mover = await banks.mover_clock(conn, game, game.to_move, now, 0)
    turn = restart(banks.turn_of(game), mover)
    stored = list(game.banks)
    stored[game.to_move] = banks.micros(turn.bank)
    await conn.execute(
        games.update()
        .where(games.c.id == game.id)
        .values(banks=stored, updated_at=now)  # a move read before this reads it again
    )
    await banks.arm(conn, game.id, game.ply, turn, pause or mover.pause, now)
    log.info("game=%d bank clock restarted player=%d", game.id, mover.player_id)


async def repause(
    conn: AsyncConnection, player_id: int, old: clocks.Pause, new: clocks.Pause, now: datetime
) -> None:
    """A player's weekend or zone changed: their running bank clocks restart now, what
    they had used measured with the old pause and what is left run with the new one (a
    clock their vacation stopped restarts where it stopped: its end resumes it)."""
    running = await _turns_of(conn, player_id, games.c.time_control.is_not(None))

    def restart(turn: clocks.Turn, mover: banks.MoverClock) -> clocks.Turn:
        at = now if mover.stopped is None else min(now, max(turn.started, mover.stopped[0]))
        return clocks.rebase(turn, at, old)

    for game in running:
        await _restart_bank(conn, game, now, restart, new)


async def _vacations_stop(conn: AsyncConnection, game: Any) -> bool:
    """Whether a vacation stops this game's clock (an event may say it does not)."""
    if game.tournament_id is None:
        return True
    stops = await conn.scalar(
        sa.select(tournaments.c.vacations).where(tournaments.c.id == game.tournament_id)
    )
    return bool(stops)


async def end_vacations(service: Records) -> int:
    """End the vacations whose days have run out, at the moment they ran out."""
    now = service.clock()
    async with service.db.read() as conn:
        away = (
            await conn.execute(
                sa.select(
                    players.c.id, players.c.vacation_since, players.c.vacation_days_left
                ).where(players.c.vacation_since.is_not(None))
            )
        ).all()
    ended = 0
    for player in away:
        if _vacation_end(player) > now:
            continue
        async with service.db.write() as conn:
            locked = await lock_games_of(conn, player.id)
            fresh = (
                await conn.execute(
                    sa.select(players.c.vacation_since, players.c.vacation_days_left)
                    .where(players.c.id == player.id)
                    .with_for_update(key_share=True)  # NO KEY: seats, ratings still refer to it
                )
            ).one()
            if fresh.vacation_since is None or _vacation_end(fresh) > now:
                continue  # another process ended it, or the player did
            end = _vacation_end(fresh)
            await conn.execute(
                players.update()
                .where(players.c.id == player.id)
                .values(vacation_since=None, vacation_days_left=0.0)
            )
            await resume_clocks(conn, player.id, fresh.vacation_since, end, now)
            for game_id in locked:  # their pages say the clock runs again
                await service.changes.changed(conn, game_id)
            log.info("player=%d vacation days used up", player.id)
            ended += 1
    return ended


def _vacation_end(row: Any) -> datetime:
    """When a vacation's days run out."""
    since: datetime = row.vacation_since
    return since + timedelta(days=max(0.0, row.vacation_days_left))


# == cleanup =====================================================================================


async def cleanup(service: Records) -> int:
    """Delete the deadline rows of games that are over, in batches. Returns how many."""
    ended_games = sa.select(games.c.id).where(games.c.status.in_(ENDED))
    total = await service.db.delete_in_batches(deadlines, deadlines.c.game_id.in_(ended_games))
    if total:
        log.info("deleted %d deadline rows of finished games", total)
    return total
