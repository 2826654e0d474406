"""What starts and ends a turn, a game and a challenge: the turn's clock and deadline rows,
the seats filled, the status set, the end of a game (its result and ratings) and what its
event makes of it, in the caller's transaction."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any, Protocol

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.service import clocks
from bot.service.clocks import REMINDER_LEADS
from bot.service.core import banks, ratings
from bot.service.core import jobs as aiqueue
from bot.service.core.models import (
    ChallengeClosed,
    Event,
    GameOver,
    GameStarted,
    GameSummary,
    Result,
    Status,
    TurnStarted,
)
from bot.service.core.records import Records, new_state
from bot.service.core.rules import (
    finishing_ranks,
)
from bot.store.schema import (
    conditionals,
    deadlines,
    games,
    seats,
    tournaments,
)
from engine import GameState

log = logging.getLogger("paperboard.service")


class EventHooks(Protocol):
    """What the end of a game or of a challenge does to its event (the events family),
    in the transaction that ends it."""

    async def game_over(self, conn: AsyncConnection, row: Any, over: GameOver) -> None:
        """A game of an event ended (the event's row is locked): it records it and goes on."""

    async def challenge_closed(self, conn: AsyncConnection, game_id: int, status: Status) -> None:
        """An open challenge closed; a ladder's declined or expired one is a forfeit."""


class Turns:
    """The writes that begin and end turns, games and challenges, each in the caller's
    transaction; the game records read and announce for them."""

    def __init__(self, records: Records) -> None:
        self.records = records
        self.clock = records.clock
        self.rng = records.rng
        #: what a game's end and a challenge's close do to its event (the events family)
        self.event_hooks: EventHooks | None = None

    # == turns and ends ================================================================

    async def start_turn(
        self,
        conn: AsyncConnection,
        game_id: int,
        summary: GameSummary,
        state: GameState,
        bank_micros: Sequence[int] | None = None,
    ) -> TurnStarted:
        """A turn starts (outside a move: at the start, after an undo): its deadline. A bank
        clock's banks become `bank_micros` (the start's, an undo's), else stay."""
        assert state.to_move is not None
        now = self.clock()
        row = await self.records.find_game_row(conn, game_id)
        if row.time_control is None:
            due = self.due(summary, now)
            await conn.execute(games.update().where(games.c.id == game_id).values(deadline_at=due))
            await self.write_deadlines(conn, game_id, state.ply, due)
        else:
            stored = list(bank_micros if bank_micros is not None else row.banks)
            await conn.execute(games.update().where(games.c.id == game_id).values(banks=stored))
            due = await self.start_bank(conn, row, state.ply, state.to_move, stored, now)
        await aiqueue.queue_turn(conn, game_id, summary.seats, state, self.clock())  # a bot's turn
        return TurnStarted(game_id, summary.seats[state.to_move].player_id or 0, due)

    @staticmethod
    def due(summary: GameSummary, now: datetime) -> datetime | None:
        if summary.days_per_move is None:
            return None
        return now + timedelta(days=summary.days_per_move)

    async def start_bank(
        self,
        conn: AsyncConnection,
        row: Any,
        ply: int,
        seat: int,
        bank_micros: Sequence[int],
        now: datetime,
    ) -> datetime:
        """A bank clock's turn starts now for `seat` with its bank: its deadline, armed."""
        mover = await banks.mover_clock(conn, row, seat, now, self.records.settings.vacation_days)
        turn = clocks.Turn(now, timedelta(microseconds=bank_micros[seat]))
        return await banks.arm(conn, row.id, ply, turn, mover.pause, now)

    async def write_deadlines(
        self, conn: AsyncConnection, game_id: int, ply: int, due: datetime | None
    ) -> None:
        """A days-per-move turn's deadline rows (the timeout and its reminders), rewritten
        in the move's transaction: one row per game and kind, unclaimed and due again."""
        if due is None:
            await _close_deadlines(conn, game_id)
            return
        reminders = {kind: due - lead for kind, lead in REMINDER_LEADS.items()}
        await banks.write_deadline_rows(conn, game_id, ply, due, reminders, self.clock())

    async def clear_conditionals(self, conn: AsyncConnection, game_id: int) -> None:
        """Every player's conditional lines in the game are gone (an undo, the end)."""
        await conn.execute(conditionals.delete().where(conditionals.c.game_id == game_id))

    async def set_status(self, conn: AsyncConnection, game_id: int, status: Status) -> None:
        log.info("game=%d %s", game_id, status)
        now = self.clock()
        await conn.execute(
            games.update()
            .where(games.c.id == game_id)
            .values(
                status=status,
                to_move=None,
                updated_at=now,
                finished_at=now,
                deadline_at=None,
                undo_seat=None,
            )
        )
        await _close_deadlines(conn, game_id)
        await self.clear_conditionals(conn, game_id)

    async def start_if_full(self, conn: AsyncConnection, row: Any) -> list[Event]:
        """Start an open challenge whose every seat is taken and accepted (else nothing)."""
        roster = (
            await conn.execute(
                sa.select(seats).where(seats.c.game_id == row.id).order_by(seats.c.seat)
            )
        ).all()
        if any(s.player_id is None or not s.accepted for s in roster):
            return []
        order = [(s.player_id, s.bot_level) for s in roster]
        if row.first == "random":
            self.rng.shuffle(order)
        elif row.first == "opponent":
            order = order[1:] + order[:1]
        await conn.execute(seats.delete().where(seats.c.game_id == row.id))
        await conn.execute(
            seats.insert(),
            [
                {"game_id": row.id, "seat": i, "player_id": pid, "accepted": True, "bot_level": bot}
                for i, (pid, bot) in enumerate(order)
            ],
        )
        state = await new_state(row.game, row.options)
        now = self.clock()
        await conn.execute(
            games.update()
            .where(games.c.id == row.id)
            .values(
                status="active",
                to_move=state.to_move,
                started_at=now,
                updated_at=now,
                expires_at=None,
            )
        )
        await conn.execute(
            deadlines.update()
            .where(deadlines.c.game_id == row.id, deadlines.c.kind == "expire")
            .values(done=True)
        )
        self.records.cache_state(row.id, now, state)
        summary = await self.records.summary(conn, row.id)
        events: list[Event] = [GameStarted(row.id, tuple(pid for pid, _ in order))]
        log.info("game=%d started players=%s", row.id, order)
        if state.outcome is not None:  # a variant with no first move ends at once
            fresh = await self.records.game_row(conn, row.id, row.guild_id)
            events.append(
                await self.finish(
                    conn,
                    fresh,
                    summary,
                    state.outcome.winners,
                    str(state.outcome.reason),
                    state.outcome.scores,
                )
            )
        else:
            control = banks.control_of(row)
            start_banks = None if control is None else [banks.micros(control.initial)] * len(order)
            events.append(await self.start_turn(conn, row.id, summary, state, start_banks))
        return events

    async def close_challenge(
        self, conn: AsyncConnection, game_id: int, status: Status, by: int | None
    ) -> Result:
        """An open challenge closes (declined, withdrawn, expired, called off); its event,
        if any, hears of it in the same transaction."""
        await self.set_status(conn, game_id, status)
        closed = ChallengeClosed(game_id, status, by)
        result = await self.records.announce(
            conn, Result(await self.records.summary(conn, game_id), (closed,))
        )
        if self.event_hooks is not None:
            await self.event_hooks.challenge_closed(conn, game_id, status)
        return result

    async def finish(
        self,
        conn: AsyncConnection,
        row: Any,
        summary: GameSummary,
        winners: tuple[int, ...],
        reason: str,
        scores: tuple[int, ...] | None,
        *,
        loser: int | None = None,
    ) -> GameOver:
        now = self.clock()
        await conn.execute(
            games.update()
            .where(games.c.id == row.id)
            .values(
                status="finished",
                to_move=None,
                winners=list(winners),
                reason=reason,
                scores=list(scores) if scores is not None else None,
                finished_at=now,
                updated_at=now,
            )
        )
        await _close_deadlines(conn, row.id)
        await self.clear_conditionals(conn, row.id)
        ids = tuple(s.player_id or 0 for s in summary.seats)
        log.info("game=%d over reason=%s winners=%s", row.id, reason, list(winners))
        if row.tournament_id is not None:  # the event's row before the ratings (lock order)
            await self.lock_event(conn, row.tournament_id)
        if row.rated:
            ranks = finishing_ranks(len(ids), winners, scores, loser)
            await ratings.update(conn, row.guild_id, row.game, ids, ranks)
        over = GameOver(row.id, tuple(ids[s] for s in winners), reason, scores, ids)
        if row.tournament_id is not None and self.event_hooks is not None:
            await self.event_hooks.game_over(conn, row, over)
        return over

    async def lock_event(self, conn: AsyncConnection, tournament_id: int) -> Any:
        """An event's row, locked until the commit: whoever ends a game of it, starts,
        joins or leaves it waits for the others (the lock order: docs/ARCHITECTURE.md)."""
        return (
            await conn.execute(
                sa.select(tournaments).where(tournaments.c.id == tournament_id).with_for_update()
            )
        ).one()


async def _close_deadlines(conn: AsyncConnection, game_id: int) -> None:
    """The game's open deadline rows are done (no turn runs, or the game is over)."""
    await conn.execute(
        deadlines.update()
        .where(deadlines.c.game_id == game_id, deadlines.c.done.is_(False))
        .values(done=True)
    )
