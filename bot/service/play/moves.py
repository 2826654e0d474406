"""Play: a move, resigning, calling a game off, and taking a move back by consent.

A move is read and checked outside the write lock, then committed with an UPDATE
that holds only against the ply (and `updated_at`) it was checked on; when another
writer got there first the move is checked again against the new position. Every
other use case here locks the game's row as it reads it (`Records.game_row`).
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from typing import Any, TypeVar

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

import engine
from bot.service import clocks
from bot.service.core import banks
from bot.service.core import jobs as aiqueue
from bot.service.core.models import (
    ChallengeClosed,
    ConditionalPlayed,
    Event,
    GameSummary,
    MovePlayed,
    MovePreview,
    MoveResult,
    Player,
    Refused,
    Result,
    ServiceCode,
    TurnStarted,
    UndoAnswered,
    UndoRequested,
)
from bot.service.core.records import Records, replay
from bot.service.core.rules import bot_to_move, check_ids, forfeit, local_time, seat_names_now
from bot.service.core.turns import Turns
from bot.service.play import conditionals
from bot.service.play.previews import Previews
from bot.store.schema import games, moves, players
from engine import GameState

log = logging.getLogger("paperboard.service")

CONFLICT_RETRIES = 5

T = TypeVar("T")

# The hot path's statements, built once (building a statement costs more than running it).
_ADVANCE = (
    games.update()
    .where(
        games.c.id == sa.bindparam("game_id"),
        games.c.ply == sa.bindparam("read_ply"),
        games.c.updated_at == sa.bindparam("read_at"),  # no undo, resign or move since the read
        games.c.status == "active",
    )
    .values(
        ply=sa.bindparam("ply"),
        to_move=sa.bindparam("to_move"),
        updated_at=sa.bindparam("updated_at"),
        deadline_at=sa.bindparam("deadline_at"),
        undo_seat=None,  # a move makes a pending undo request stale
        undo_ply=None,
        undo_approvals=None,
    )
)
_RECORD = moves.insert()
_GUARDED = sa.select(players.c.confirm_moves).where(players.c.id == sa.bindparam("player_id"))


class _Conflict(Exception):
    """Another writer moved the game on between our read and our write: retry."""


class Play(Previews):
    """The use cases of a game under way (its previews: `Previews`)."""

    def __init__(self, records: Records, turns: Turns) -> None:
        self.records = records
        self.turns = turns
        self.db = records.db
        self.clock = records.clock

    #: The hook a person's move calls once it is committed, when a bot is to move next,
    #: before the player's board is drawn: the AI runner sets its poke here, so the bot's
    #: search starts while the board is drawn (without it, the runner's next poll).
    on_bot_turn: Callable[[], None] | None = None

    async def move(
        self,
        game_id: int,
        guild_id: int,
        player: Player,
        text: str,
        *,
        expected_ply: int | None = None,
    ) -> MoveResult:
        """Play `text` for `player`. Refused: not seated, not their turn, game over,
        a stale board (expected_ply), or an illegal move (the engine's sentence)."""
        check_ids(game_id, guild_id, player.id)
        result, after = await self._retry(
            lambda: self._move_once(game_id, guild_id, player, text, expected_ply)
        )
        if self.on_bot_turn is not None and bot_to_move(result.game) is not None:
            self.on_bot_turn()
        try:
            png = await self.records.render(
                game_id, after, result.game, groups=False, after_move=True
            )
        except Exception:  # the move is made and kept; only its picture is missing
            log.exception("game=%d the board after ply %d could not be drawn", game_id, after.ply)
            png = b""
        return MoveResult(result.game, result.events, outbox_id=result.outbox_id, png=png)

    async def propose_move(
        self, game_id: int, guild_id: int, player: Player, text: str
    ) -> MoveResult | MovePreview:
        """A typed move: played at once, or, for a player whose misclick guard is on
        (`confirm_moves`), checked and drawn but not played (`preview`)."""
        check_ids(game_id, guild_id, player.id)
        async with self.db.read() as conn:
            guarded = await conn.scalar(_GUARDED, {"player_id": player.id})
        if not guarded:
            return await self.move(game_id, guild_id, player, text)
        return await self.preview(game_id, guild_id, player, text)

    async def _move_once(
        self, game_id: int, guild_id: int, player: Player, text: str, expected_ply: int | None
    ) -> tuple[Result, GameState]:
        row, summary, seat, state, after = await self._checked_move(
            game_id, guild_id, player, text, expected_ply
        )
        async with self.db.write() as conn:
            events, now_summary = await self._commit_moves(conn, row, summary, state, after, seat)
            if after.outcome is None and len(summary.seats) == 2:
                reply, dropped = await conditionals.answer(
                    conn, row.id, summary, after, self.clock()
                )
                events.extend(dropped)
                if reply is not None:  # the reply is committed with the move it answers
                    events, now_summary = await self._conditional_reply(
                        conn, guild_id, summary, events, after, reply
                    )
                    after = reply.state
            result = await self.records.announce(
                conn, Result(seat_names_now(now_summary, after), tuple(events))
            )
        return result, after

    async def _commit_moves(
        self,
        conn: AsyncConnection,
        row: Any,
        summary: GameSummary,
        before: GameState,
        after: GameState,
        seat: int,
    ) -> tuple[list[Event], GameSummary]:
        """Write the new record entries and the game row, against the ply we read.

        A move clears a pending undo request and, when it starts a new turn,
        sets that turn's deadline, all in the one conditional UPDATE.
        """
        now = self.clock()  # the move's instant: read in its transaction, it decides lateness
        new_turn = after.outcome is None and not after.mid_turn
        due = self.turns.due(summary, now) if new_turn else row.deadline_at
        changed = await conn.execute(
            _ADVANCE,
            {
                "game_id": row.id,
                "read_ply": row.ply,
                "read_at": row.updated_at,
                "ply": after.ply,
                "to_move": after.to_move,
                "updated_at": now,
                "deadline_at": due,
            },
        )
        if changed.rowcount != 1:
            raise _Conflict
        bank_micros = None
        if row.time_control is not None:  # after the UPDATE: the game's row is ours (lock order)
            settle = after.outcome is not None or new_turn
            bank_micros, due = await self._bank_move(conn, row, seat, after.ply, now, settle)
        new_texts = after.moves[before.ply :]
        new_seats = after.actors[before.ply :]  # the mover's actions, then forced passes
        await conn.execute(
            _RECORD,
            [
                {
                    "game_id": row.id,
                    "ply": before.ply + i,
                    "seat": actor,
                    "text": text,
                    "created_at": now,
                    "banks": row.banks,  # as this turn's clock started: an undo gives them back
                }
                for i, (text, actor) in enumerate(zip(new_texts, new_seats, strict=True))
            ],
        )
        self.records.cache_state(row.id, now, after)
        log.info("game=%d move ply=%d seat=%d %s", row.id, after.ply, seat, " ".join(new_texts))
        own = next((i for i, actor in enumerate(new_seats) if actor != seat), len(new_seats))
        events: list[Event] = [
            MovePlayed(
                row.id,
                summary.seats[seat].player_id or 0,
                after.ply,
                new_texts[:own],
                passes=len(new_texts) - own,
            )
        ]
        if after.outcome is not None:
            outcome = after.outcome
            events.append(
                await self.turns.finish(
                    conn, row, summary, outcome.winners, str(outcome.reason), outcome.scores
                )
            )
            return events, await self.records.summary(conn, row.id)
        if new_turn:
            if bank_micros is None:
                await self.turns.write_deadlines(conn, row.id, after.ply, due)
            else:
                assert after.to_move is not None
                due = await self.turns.start_bank(
                    conn, row, after.ply, after.to_move, bank_micros, now
                )
            await aiqueue.queue_turn(conn, row.id, summary.seats, after, now)  # a bot's turn
            player_id = summary.seats[after.to_move or 0].player_id or 0
            events.append(TurnStarted(row.id, player_id, due))
        current = dataclasses.replace(summary, ply=after.ply, to_move=after.to_move, deadline=due)
        if bank_micros is not None:  # the next mover's bank is whole as their turn starts
            current = dataclasses.replace(current, banks=banks.as_banks(bank_micros))
        return events, current

    async def _bank_move(
        self, conn: AsyncConnection, row: Any, seat: int, ply: int, now: datetime, settle: bool
    ) -> tuple[list[int], datetime | None]:
        """A move on a bank clock at `now`: refused when it comes at or after the deadline
        (the scan then ends the game on time), unless the vacation days the clock may spend
        by itself reach; with `settle` (the turn ends) the mover's bank after it. Returns
        the seats' banks in microseconds, stored on the game's row, and the turn's deadline
        (mid-turn: moved by the vacation days spent)."""
        control = banks.control_of(row)
        assert control is not None
        turn, mover, needed = await self._clock_in_time(
            conn, row, now, "Your time ran out at {due}: this move came too late"
        )
        stored = list(row.banks)
        due = row.deadline_at
        if settle:
            stored[seat] = banks.micros(clocks.bank_after_move(control, turn, now, mover.pause))
        elif needed or mover.stopped is not None:  # mid-turn: the clock runs on as is
            stored[seat] = banks.micros(turn.bank)
            due = await banks.arm(conn, row.id, ply, turn, mover.pause, now)
        await conn.execute(games.update().where(games.c.id == row.id).values(banks=stored))
        return stored, due

    async def _clock_in_time(
        self, conn: AsyncConnection, row: Any, now: datetime, refusal: str
    ) -> tuple[clocks.Turn, banks.MoverClock, timedelta]:
        """The running bank clock of a game row at `now` (its mover's vacation, if any,
        stopped it), with the vacation days spent that the scan would have spent by now,
        had it come first. Refused (`refusal`, naming the deadline as {due}) when they do
        not reach: the scan ends the game on time."""
        mover = await banks.mover_clock(
            conn, row, row.to_move, now, self.records.settings.vacation_days
        )
        turn = banks.turn_of(row)
        if mover.stopped is not None:  # on vacation: the clock stood still (till its days ran out)
            since, until = mover.stopped
            turn = clocks.resumed(turn, since, min(now, until), mover.pause)
        needed = clocks.vacation_needed(turn, now, mover.pause, mover.spendable)
        if needed is None:
            due = local_time(clocks.deadline(turn, mover.pause), mover.time_zone)
            raise Refused(
                refusal.format(due=due) + ", and the game is lost on time.",
                code=ServiceCode.OUT_OF_TIME,
            )
        if needed:
            await banks.spend_vacation(conn, mover, needed, now)
            turn = dataclasses.replace(turn, grace=turn.grace + needed)
            log.info("game=%d player=%d spent %s of vacation", row.id, mover.player_id, needed)
        return turn, mover, needed

    async def _conditional_reply(
        self,
        conn: AsyncConnection,
        guild_id: int,
        summary: GameSummary,
        events: list[Event],
        before: GameState,
        reply: conditionals.Answer,
    ) -> tuple[list[Event], GameSummary]:
        """Commit a conditional line's reply after the move it answers, in its transaction
        (the game row is ours until the commit). The owner's turn never started: its
        TurnStarted gives way to the reply's events and the owner's private note."""
        row = await self.records.game_row(conn, summary.id, guild_id)  # as the move just wrote it
        more, now_summary = await self._commit_moves(
            conn, row, summary, before, reply.state, reply.seat
        )
        told = ConditionalPlayed(
            summary.id, reply.player_id, reply.answered, reply.texts, reply.lines_left
        )
        kept = [e for e in events if not isinstance(e, TurnStarted)]
        return [*kept, *more, told], now_summary

    async def may_resign(self, game_id: int, guild_id: int, player: Player) -> GameSummary:
        """The game, when `player` could resign it now; refused as `resign` would refuse
        (not seated, not under way). Adapters ask for confirmation only after this."""
        check_ids(game_id, guild_id, player.id)
        async with self.db.read() as conn:
            return (await self.records.seated(conn, game_id, guild_id, player, lock=False))[1]

    async def resign(self, game_id: int, guild_id: int, player: Player) -> Result:
        """Give up. Two players: the other wins; with more, the resigner ranks last."""
        check_ids(game_id, guild_id, player.id)
        async with self.db.write() as conn:
            row, summary, seat = await self.records.seated(conn, game_id, guild_id, player)
            state = await self.records.load_state(conn, row)
            winners, scores = forfeit(state, seat)
            event = await self.turns.finish(
                conn, row, summary, winners, str(engine.End.RESIGNATION), scores, loser=seat
            )
            return await self.records.announce(
                conn, Result(await self.records.summary(conn, game_id), (event,))
            )

    async def abort(self, game_id: int, guild_id: int, player: Player) -> Result:
        """Call a game off, only before every player has moved once. No rating changes."""
        async with self.db.write() as conn:
            row, summary, _ = await self.records.seated(conn, game_id, guild_id, player)
            if row.tournament_id is not None:
                raise Refused(
                    f"{summary.title} #{game_id} is a game of an event and cannot be aborted: "
                    "resign it, or leave the event.",
                    code=ServiceCode.EVENT_GAME,
                )
            movers = set(
                (
                    await conn.scalars(
                        sa.select(moves.c.seat).where(
                            moves.c.game_id == game_id, moves.c.text != "pass"
                        )
                    )
                ).all()
            )
            if len(movers) >= len(summary.seats):
                raise Refused(
                    "Every player has moved already: resign instead, or ask for an undo.",
                    code=ServiceCode.TOO_LATE,
                )
            await self.turns.set_status(conn, game_id, "aborted")
            return await self.records.announce(
                conn,
                Result(
                    await self.records.summary(conn, game_id),
                    (ChallengeClosed(game_id, "aborted", player.id),),
                ),
            )

    # == undo by consent ===================================================================

    async def request_undo(self, game_id: int, guild_id: int, player: Player) -> Result:
        """Ask the opponents to take back your last move."""
        async with self.db.write() as conn:
            row, summary, seat = await self.records.seated(conn, game_id, guild_id, player)
            await self._undo_cut(conn, row, seat)  # refuses when there is nothing to take back
            if row.undo_seat is not None and row.undo_ply == row.ply:
                raise Refused(
                    "An undo request is already waiting for an answer.",
                    code=ServiceCode.UNDO_PENDING,
                )
            agreeing = self.agreeing_at_once(summary, seat)
            await conn.execute(
                games.update()
                .where(games.c.id == game_id)
                .values(undo_seat=seat, undo_ply=row.ply, undo_approvals=sorted(agreeing))
            )
            waiting = tuple(
                s.player_id
                for s in summary.seats
                if s.seat != seat and s.seat not in agreeing and s.player_id is not None
            )
            event = UndoRequested(game_id, requester=player.id, waiting_for=waiting, ply=row.ply)
            return await self.records.announce(conn, Result(summary, (event,)))

    def agreeing_at_once(self, summary: GameSummary, seat: int) -> set[int]:
        """The seats that accept an undo `seat` asks for without being asked (none here)."""
        return set()

    async def answer_undo(
        self,
        game_id: int,
        guild_id: int,
        player: Player,
        *,
        accept: bool,
        expected_ply: int | None = None,
    ) -> Result:
        """An opponent accepts or declines; when every opponent accepted, the move is taken back."""
        prepared = await self._undo_position(game_id, guild_id) if accept else None
        async with self.db.write() as conn:
            row, summary, seat = await self.records.seated(
                conn, game_id, guild_id, player, active=False
            )
            # a move since the request (or the game's end) leaves it stale: nothing to answer
            pending = row.undo_seat is not None and row.undo_ply == row.ply
            if not pending or row.status != "active" or expected_ply not in (None, row.undo_ply):
                raise Refused(
                    "There is no undo request waiting for an answer.", code=ServiceCode.NO_UNDO
                )
            if seat == row.undo_seat:
                raise Refused(
                    "You asked for this undo; your opponents answer it.", code=ServiceCode.OWN_UNDO
                )
            if not accept:
                await self._clear_undo(conn, game_id)
                answer = UndoAnswered(game_id, player.id, False, False, row.ply)
                return await self.records.announce(conn, Result(summary, (answer,)))
            approvals = sorted({*(row.undo_approvals or ()), seat})
            others = {s.seat for s in summary.seats} - {row.undo_seat}
            if not others <= set(approvals):
                await conn.execute(
                    games.update().where(games.c.id == game_id).values(undo_approvals=approvals)
                )
                answer = UndoAnswered(game_id, player.id, True, False, row.ply)
                return await self.records.announce(conn, Result(summary, (answer,)))
            if row.time_control is not None:  # an undo comes too late once the clock ran out
                await self._clock_in_time(
                    conn, row, self.clock(), "The clock ran out at {due} before this undo"
                )
            if prepared is not None and prepared[0] == (row.ply, row.updated_at, row.undo_seat):
                rolled_back = prepared[1]
            else:  # the game changed since: replay under the lock after all
                cut = await self._undo_cut(conn, row, row.undo_seat)
                state = await self.records.load_state(conn, row)
                rolled_back = await replay(row.game, row.options, state.moves[:cut])
            now = self.clock()
            await conn.execute(
                games.update()
                .where(games.c.id == game_id)
                .values(
                    ply=rolled_back.ply,
                    to_move=rolled_back.to_move,
                    updated_at=now,
                    undo_seat=None,
                    undo_ply=None,
                    undo_approvals=None,
                )
            )
            gone = (
                await conn.execute(
                    sa.select(moves.c.seat, moves.c.text)
                    .where(
                        moves.c.game_id == game_id,
                        moves.c.ply >= rolled_back.ply,
                        moves.c.text != "pass",
                    )
                    .order_by(moves.c.ply)
                )
            ).all()
            # a bank clock's banks as the first turn taken back started: its time comes back
            restored = await conn.scalar(
                sa.select(moves.c.banks).where(
                    moves.c.game_id == game_id, moves.c.ply == rolled_back.ply
                )
            )
            await conn.execute(
                moves.delete().where(moves.c.game_id == game_id, moves.c.ply >= rolled_back.ply)
            )
            await aiqueue.forget_after(conn, game_id, rolled_back.ply, now)
            self.records.cache_state(game_id, now, rolled_back)
            await self.turns.clear_conditionals(conn, game_id)
            log.info("game=%d undo to ply=%d", game_id, rolled_back.ply)
            done = UndoAnswered(
                game_id,
                player.id,
                True,
                True,
                rolled_back.ply,
                taken_back=tuple(entry.text for entry in gone),
                taken_from=tuple(summary.seats[entry.seat].player_id or 0 for entry in gone),
            )
            events: list[Event] = [done]
            events.append(
                await self.turns.start_turn(conn, game_id, summary, rolled_back, restored)
            )
            now_summary = await self.records.summary(conn, game_id)
            return await self.records.announce(conn, Result(now_summary, tuple(events)))

    async def _undo_position(
        self, game_id: int, guild_id: int
    ) -> tuple[tuple[int, datetime, int], GameState] | None:
        """The position a pending undo goes back to, replayed before the write lock is
        taken (a long game's replay takes a second, which every other write would wait
        for), with the (ply, updated_at, requester) it holds for; None when none is due."""
        async with self.db.read() as conn:
            row = await self.records.game_row(conn, game_id, guild_id)
            if row.status != "active" or row.undo_seat is None or row.undo_ply != row.ply:
                return None
            try:
                cut = await self._undo_cut(conn, row, row.undo_seat)
            except Refused:
                return None
            state = await self.records.load_state(conn, row)
        rolled_back = await replay(row.game, row.options, state.moves[:cut])
        return (row.ply, row.updated_at, row.undo_seat), rolled_back

    async def _clear_undo(self, conn: AsyncConnection, game_id: int) -> None:
        await conn.execute(
            games.update()
            .where(games.c.id == game_id)
            .values(undo_seat=None, undo_ply=None, undo_approvals=None)
        )

    async def _undo_cut(self, conn: AsyncConnection, row: Any, seat: int) -> int:
        """Where the record is cut to take back `seat`'s last move (a whole turn)."""
        record = (
            await conn.execute(
                sa.select(moves.c.seat, moves.c.text)
                .where(moves.c.game_id == row.id)
                .order_by(moves.c.ply)
            )
        ).all()
        own = [i for i, entry in enumerate(record) if entry.seat == seat and entry.text != "pass"]
        if not own:
            raise Refused("You have no move to take back yet.", code=ServiceCode.NOTHING_TO_UNDO)
        cut = own[-1]
        texts = [entry.text for entry in record]
        # a turn of several actions (Short Circuit's pops) is taken back whole: step back
        # over the seat's entries before the cut while the position there is mid-turn
        run = cut
        while run > 0 and record[run - 1].seat == seat:
            run -= 1
        if run == cut:
            return cut
        state = await replay(row.game, row.options, texts[:run])
        mid_turn = []
        for end in range(run + 1, cut + 1):
            state = engine.replay_onto(state, texts[:end])
            mid_turn.append(state.mid_turn)
        while cut > run and mid_turn[cut - run - 1]:
            cut -= 1
        return cut

    async def _retry(self, attempt: Callable[[], Awaitable[T]]) -> T:
        """Run a check-then-commit attempt again when another writer got there first."""
        for _ in range(CONFLICT_RETRIES):
            try:
                return await attempt()
            except _Conflict:
                continue
        raise Refused("The game is busy; try that again in a moment.", code=ServiceCode.BUSY)
