"""The use cases: from challenge to result. Knows nothing of Discord.

Every use case takes ids and text, runs in one transaction, and returns a
result with the events an adapter announces; a refusal raises `Refused` and
changes nothing. A move commits only against the ply it was checked on
(`UPDATE games ... WHERE id = ? AND ply = ?`); every other use case locks the
game's row as it reads it (`SELECT ... FOR UPDATE`), so double clicks, races and
several processes cannot apply anything twice (docs/ARCHITECTURE.md, "Locks").
"""

from __future__ import annotations

import asyncio
import dataclasses
import gc
import logging
import random
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from functools import cache
from typing import Any, TypeVar
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection

import engine
from bot.render import render_text
from bot.service import deadlines as clocks
from bot.service import outbox, ratings
from bot.service.models import (
    DAYS_PER_MOVE,
    FIRST_CHOICES,
    STATUSES,
    Board,
    ChallengeClosed,
    ChallengeIssued,
    Event,
    First,
    GameOver,
    GameStarted,
    GameSummary,
    GuildSettings,
    MovePlayed,
    MoveResult,
    Place,
    Player,
    PlayerSettings,
    RatingLine,
    Record,
    Refused,
    Result,
    Seat,
    SeatTaken,
    Status,
    TurnStarted,
    UndoAnswered,
    UndoRequested,
)
from bot.service.painter import Painter
from bot.settings import Settings
from bot.store import Database
from bot.store.schema import (
    deadlines,
    games,
    guild_settings,
    moves,
    players,
    seats,
)
from engine import Code, GameState, IllegalMove
from engine.core import shown, whole_number

log = logging.getLogger("paperboard.service")

#: Reminders before a deadline (the mention when the turn starts is the first).
REMINDER_LEADS = {"remind_24h": timedelta(hours=24), "remind_1h": timedelta(hours=1)}
MAX_ID = 2**63 - 1
CONFLICT_RETRIES = 5
STATE_CACHE_SIZE = 2048
#: The most a replay holds the event loop at a time, and its pause between slices.
REPLAY_SLICE_SECONDS = 0.003
REPLAY_PAUSE_SECONDS = 0.001

T = TypeVar("T")
ResultT = TypeVar("ResultT", bound=Result)


def utcnow() -> datetime:
    return datetime.now(UTC)


# The hot path's statements, built once (building a statement costs more than running it).
_GAME_ROW = sa.select(games).where(games.c.id == sa.bindparam("game_id"))
_LOCKED_GAME_ROW = _GAME_ROW.with_for_update()  # SQLite's BEGIN IMMEDIATE needs no row lock
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
_ROSTER = (
    sa.select(
        seats.c.seat, seats.c.player_id, seats.c.accepted, players.c.name, players.c.vacation_since
    )
    .select_from(seats.outerjoin(players, players.c.id == seats.c.player_id))
    .where(seats.c.game_id == sa.bindparam("game_id"))
    .order_by(seats.c.seat)
)
ROSTER_SECONDS = 60.0


class _Conflict(Exception):
    """Another writer moved the game on between our read and our write: retry."""


class GameService:
    """The application core every adapter calls."""

    def __init__(
        self,
        database: Database,
        settings: Settings,
        *,
        clock: Callable[[], datetime] = utcnow,
        rng: random.Random | None = None,
        worker_id: str | None = None,
    ) -> None:
        self.db = database
        # who holds the outbox rows this process writes (it delivers them itself)
        self.worker_id = (worker_id or outbox.default_worker_id())[:64]
        self.settings = settings
        self.clock = clock
        self.rng = rng or random.Random()
        # game id -> (the row's updated_at, the state): valid while the row is unchanged
        self._states: OrderedDict[int, tuple[datetime, GameState]] = OrderedDict()
        self._boards: OrderedDict[tuple[int, int, bool, str | None], bytes] = OrderedDict()
        # game id -> (when read, seats, players on vacation)
        self._rosters: OrderedDict[int, tuple[float, tuple[Seat, ...], tuple[int, ...]]] = (
            OrderedDict()
        )
        self.painter = Painter(settings.render_processes)

    @classmethod
    async def open(cls, settings: Settings, **kwargs: Any) -> GameService:
        service = cls(await Database.open(settings.database_url), settings, **kwargs)
        # Everything loaded by now (modules, metadata: ~100k objects) leaves the collector's
        # generations; a full collection scanning them held the event loop 100-300 ms.
        gc.freeze()
        return service

    async def close(self) -> None:
        self.painter.close()
        await self.db.close()

    # == challenges ======================================================================

    async def challenge(
        self,
        place: Place,
        challenger: Player,
        game: str,
        *,
        opponents: Sequence[Player] = (),
        open_seats: int = 0,
        options: Mapping[str, object] | None = None,
        days_per_move: int | str | None = "default",
        first: str = "random",
        rated: bool | None = None,
    ) -> Result:
        """A direct challenge (named opponents), an open one (seats anyone may take), or both."""
        _check_ids(place.guild_id, place.channel_id, challenger.id, *(p.id for p in opponents))
        info = engine.GAMES.get(game)
        if info is None:
            raise Refused(
                f"There is no game called {shown(game)}; the games are {', '.join(engine.GAMES)}.",
                code=Code.UNKNOWN_GAME,
            )
        if not isinstance(first, str) or first not in FIRST_CHOICES:  # narrows to First
            raise Refused(
                f"Who moves first must be one of {', '.join(FIRST_CHOICES)}.", code=Code.BAD_OPTION
            )
        if rated is not None and not isinstance(rated, bool):
            raise Refused("Rated is yes or no.", code=Code.BAD_OPTION)
        settings = dict(options or {})
        if not all(isinstance(key, str) for key in settings):
            raise Refused("Options are named, like size=7.", code=Code.BAD_OPTION)
        if "players" in settings:
            raise Refused(
                "The players are the challenger, the opponents and the open seats, not an option.",
                code=Code.BAD_OPTION,
            )
        if not _whole(open_seats) or not 0 <= open_seats <= info.max_players:
            raise Refused(
                f"Open seats are a number from 0 to {info.max_players - 1}.", code=Code.BAD_OPTION
            )
        if any(p.id == challenger.id for p in opponents):
            raise Refused("You cannot challenge yourself.", code=Code.SELF_CHALLENGE)
        if len({p.id for p in opponents}) != len(opponents):
            raise Refused("Each opponent can take only one seat.", code=Code.DUPLICATE_OPPONENT)
        if not opponents and open_seats == 0:
            open_seats = info.min_players - 1
        seat_count = 1 + len(opponents) + open_seats
        if not info.min_players <= seat_count <= info.max_players:
            allowed = (
                f"exactly {info.min_players}"
                if info.min_players == info.max_players
                else f"{info.min_players} to {info.max_players}"
            )
            raise Refused(
                f"{info.title} is played by {allowed} players, not {seat_count}.",
                code=Code.PLAYER_COUNT,
            )
        now = self.clock()
        async with self.db.write() as conn:
            guild = await self._guild_settings(conn, place.guild_id)
            if guild.channels and place.channel_id not in guild.channels:
                raise Refused("Games cannot be started in this channel.", code=Code.CHANNEL)
            days = guild.days_per_move if days_per_move == "default" else days_per_move
            if days is not None and (not _whole(days) or days not in DAYS_PER_MOVE):
                allowed = ", ".join(str(d) for d in DAYS_PER_MOVE)
                raise Refused(
                    f"Days per move must be one of {allowed}, or none.", code=Code.BAD_OPTION
                )
            if rated and not guild.rated:
                raise Refused("Rated games are switched off on this server.", code=Code.UNRATED)
            await self._check_limits(conn, challenger.id)
            await self._remember(conn, challenger, *opponents)
            # the options last: checking them builds the game's tables, after every cheap check
            try:
                start = engine.new(game, seat_count, **settings)
            except engine.BadOptions as exc:
                raise Refused(str(exc), code=exc.code) from None
            if start.outcome is not None:
                raise Refused(
                    f"With these options {info.title} is over before the first move; "
                    "choose other options.",
                    code=Code.OVER_AT_START,
                )
            game_id = await self._insert_game(
                conn,
                place=place,
                game=game,
                options=start.options,
                challenger=challenger.id,
                days=days if isinstance(days, int) else None,
                first=first,
                rated=guild.rated if rated is None else rated,
                now=now,
            )
            roster: list[int | None] = [challenger.id, *(p.id for p in opponents)]
            roster += [None] * open_seats
            await conn.execute(
                seats.insert(),
                [
                    {"game_id": game_id, "seat": i, "player_id": pid, "accepted": i == 0}
                    for i, pid in enumerate(roster)
                ],
            )
            summary = await self._summary(conn, game_id)
            event = ChallengeIssued(
                game_id,
                challenger=challenger,
                invited=tuple(p.id for p in opponents),
                open_seats=open_seats,
            )
            result = await self._announce(conn, Result(summary, (event,)))
        log.info(
            "game=%d challenge %s by player=%d seats=%d", game_id, game, challenger.id, seat_count
        )
        return result

    async def accept(self, game_id: int, guild_id: int, player: Player) -> Result:
        """A named opponent accepts; the game starts when every seat is filled."""
        async with self.db.write() as conn:
            row = await self._open_challenge(conn, game_id, guild_id)
            seat = await self._invited_seat(conn, game_id, player.id)
            if seat is None:
                raise Refused("This challenge is not waiting for you.", code=Code.NOT_INVITED)
            return await self._take_seat(conn, row, seat, player)

    async def join(self, game_id: int, guild_id: int, player: Player) -> Result:
        """Take an open seat of an open challenge."""
        async with self.db.write() as conn:
            row = await self._open_challenge(conn, game_id, guild_id)
            taken = await conn.execute(
                sa.select(seats.c.seat, seats.c.player_id).where(seats.c.game_id == game_id)
            )
            rows = taken.all()
            if any(r.player_id == player.id for r in rows):
                raise Refused("You already have a seat in this game.", code=Code.ALREADY_SEATED)
            free = [r.seat for r in rows if r.player_id is None]
            if not free:
                raise Refused("This challenge has no open seat.", code=Code.NO_OPEN_SEAT)
            return await self._take_seat(conn, row, min(free), player)

    async def _take_seat(
        self, conn: AsyncConnection, row: Any, seat: int, player: Player
    ) -> Result:
        """`player` sits at `seat`, accepted; the game starts if that was the last seat."""
        await self._check_limits(conn, player.id, challenges=False)
        await self._remember(conn, player)
        await conn.execute(
            seats.update()
            .where(seats.c.game_id == row.id, seats.c.seat == seat)
            .values(player_id=player.id, accepted=True)
        )
        events: list[Event] = [SeatTaken(row.id, player)]
        events += await self._start_if_full(conn, row)
        return await self._announce(conn, Result(await self._summary(conn, row.id), tuple(events)))

    async def _invited_seat(
        self, conn: AsyncConnection, game_id: int, player_id: int
    ) -> int | None:
        """The seat a challenge holds for `player_id`, not yet accepted."""
        seat: int | None = await conn.scalar(
            sa.select(seats.c.seat).where(
                seats.c.game_id == game_id,
                seats.c.player_id == player_id,
                seats.c.accepted.is_(False),
            )
        )
        return seat

    async def decline(self, game_id: int, guild_id: int, player: Player) -> Result:
        """A named opponent declines: the challenge is off."""
        async with self.db.write() as conn:
            await self._open_challenge(conn, game_id, guild_id)
            if await self._invited_seat(conn, game_id, player.id) is None:
                raise Refused(
                    "Only an invited player can decline this challenge.", code=Code.NOT_INVITED
                )
            return await self._close_challenge(conn, game_id, "declined", player.id)

    async def cancel(self, game_id: int, guild_id: int, player: Player) -> Result:
        """The challenger withdraws an open challenge."""
        async with self.db.write() as conn:
            row = await self._open_challenge(conn, game_id, guild_id)
            if row.challenger_id != player.id:
                raise Refused(
                    "Only the challenger can cancel this challenge.", code=Code.NOT_CHALLENGER
                )
            return await self._close_challenge(conn, game_id, "cancelled", player.id)

    # == moves ===========================================================================

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
        _check_ids(game_id, guild_id, player.id)
        result, after = await self._retry(
            lambda: self._move_once(game_id, guild_id, player, text, expected_ply)
        )
        try:
            png = await self._render(game_id, after, result.game, groups=False, after_move=True)
        except Exception:  # the move is made and kept; only its picture is missing
            log.exception("game=%d the board after ply %d could not be drawn", game_id, after.ply)
            png = b""
        return MoveResult(result.game, result.events, outbox_id=result.outbox_id, png=png)

    async def _move_once(
        self, game_id: int, guild_id: int, player: Player, text: str, expected_ply: int | None
    ) -> tuple[Result, GameState]:
        # Read and check outside the write lock (SQLite has one writer; WAL readers never
        # wait): the commit then holds only if the game row is still the one we read.
        async with self.db.read() as conn:
            row = await self._game_row(conn, game_id, guild_id)
            summary = await self._summary(conn, game_id, row)
            seat = summary.seat_of(player.id)
            if seat is None:
                raise Refused("You are not playing in this game.", code=Code.NOT_SEATED)
            _require_active(row)
            if expected_ply is not None and expected_ply != row.ply:
                raise Refused(
                    f"This board is out of date: the game is at move {row.ply} now.",
                    code=Code.STALE,
                )
            state = await self._state(conn, row)
            if state.to_move != seat:
                to_move = (
                    summary.name_of_seat(state.to_move) if state.to_move is not None else "nobody"
                )
                raise Refused(
                    f"It is not your turn: {to_move} is to move.", code=Code.NOT_YOUR_TURN
                )
            try:
                after = state.play(text)
            except IllegalMove as illegal:
                raise Refused(str(illegal), code=illegal.code) from None
        async with self.db.write() as conn:
            events, now_summary = await self._commit_moves(conn, row, summary, state, after, seat)
            result = await self._announce(
                conn, Result(_seat_names_now(now_summary, after), tuple(events))
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
        now = self.clock()
        new_turn = after.outcome is None and not after.mid_turn
        due = self._due(summary, now) if new_turn else row.deadline_at
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
                }
                for i, (text, actor) in enumerate(zip(new_texts, new_seats, strict=True))
            ],
        )
        self._cache_state(row.id, now, after)
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
                await self._finish(
                    conn, row, summary, outcome.winners, str(outcome.reason), outcome.scores
                )
            )
            return events, await self._summary(conn, row.id)
        if new_turn:
            await self._write_deadlines(conn, row.id, after.ply, due)
            player_id = summary.seats[after.to_move or 0].player_id or 0
            events.append(TurnStarted(row.id, player_id, due))
        current = dataclasses.replace(summary, ply=after.ply, to_move=after.to_move, deadline=due)
        return events, current

    async def resign(self, game_id: int, guild_id: int, player: Player) -> Result:
        """Give up. Two players: the other wins; with more, the resigner ranks last."""
        _check_ids(game_id, guild_id, player.id)
        async with self.db.write() as conn:
            row = await self._game_row(conn, game_id, guild_id, lock=True)
            summary = await self._summary(conn, game_id, row)
            seat = summary.seat_of(player.id)
            if seat is None:
                raise Refused("You are not playing in this game.", code=Code.NOT_SEATED)
            _require_active(row)
            state = await self._state(conn, row)
            winners, scores = forfeit(state, seat)
            event = await self._finish(
                conn, row, summary, winners, str(engine.End.RESIGNATION), scores, loser=seat
            )
            return await self._announce(conn, Result(await self._summary(conn, game_id), (event,)))

    async def abort(self, game_id: int, guild_id: int, player: Player) -> Result:
        """Call a game off, only before every player has moved once. No rating changes."""
        async with self.db.write() as conn:
            row = await self._game_row(conn, game_id, guild_id, lock=True)
            summary = await self._summary(conn, game_id, row)
            if summary.seat_of(player.id) is None:
                raise Refused("You are not playing in this game.", code=Code.NOT_SEATED)
            _require_active(row)
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
                    code=Code.TOO_LATE,
                )
            await self._set_status(conn, game_id, "aborted")
            return await self._announce(
                conn,
                Result(
                    await self._summary(conn, game_id),
                    (ChallengeClosed(game_id, "aborted", player.id),),
                ),
            )

    # == undo by consent ===================================================================

    async def request_undo(self, game_id: int, guild_id: int, player: Player) -> Result:
        """Ask the opponents to take back your last move."""
        async with self.db.write() as conn:
            row = await self._game_row(conn, game_id, guild_id, lock=True)
            summary = await self._summary(conn, game_id, row)
            seat = summary.seat_of(player.id)
            if seat is None:
                raise Refused("You are not playing in this game.", code=Code.NOT_SEATED)
            _require_active(row)
            await self._undo_cut(conn, row, seat)  # refuses when there is nothing to take back
            if row.undo_seat is not None and row.undo_ply == row.ply:
                raise Refused(
                    "An undo request is already waiting for an answer.", code=Code.UNDO_PENDING
                )
            await conn.execute(
                games.update()
                .where(games.c.id == game_id)
                .values(undo_seat=seat, undo_ply=row.ply, undo_approvals=[])
            )
            waiting = tuple(pid for pid in summary.player_ids() if pid != player.id)
            event = UndoRequested(game_id, requester=player.id, waiting_for=waiting, ply=row.ply)
            return await self._announce(conn, Result(summary, (event,)))

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
        async with self.db.write() as conn:
            row = await self._game_row(conn, game_id, guild_id, lock=True)
            summary = await self._summary(conn, game_id, row)
            seat = summary.seat_of(player.id)
            if seat is None:
                raise Refused("You are not playing in this game.", code=Code.NOT_SEATED)
            # a move since the request (or the game's end) leaves it stale: nothing to answer
            pending = row.undo_seat is not None and row.undo_ply == row.ply
            if not pending or row.status != "active" or expected_ply not in (None, row.undo_ply):
                raise Refused("There is no undo request waiting for an answer.", code=Code.NO_UNDO)
            if seat == row.undo_seat:
                raise Refused(
                    "You asked for this undo; your opponents answer it.", code=Code.OWN_UNDO
                )
            if not accept:
                await self._clear_undo(conn, game_id)
                answer = UndoAnswered(game_id, player.id, False, False, row.ply)
                return await self._announce(conn, Result(summary, (answer,)))
            approvals = sorted({*(row.undo_approvals or ()), seat})
            others = {s.seat for s in summary.seats} - {row.undo_seat}
            if not others <= set(approvals):
                await conn.execute(
                    games.update().where(games.c.id == game_id).values(undo_approvals=approvals)
                )
                answer = UndoAnswered(game_id, player.id, True, False, row.ply)
                return await self._announce(conn, Result(summary, (answer,)))
            cut = await self._undo_cut(conn, row, row.undo_seat)
            state = await self._state(conn, row)
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
            await conn.execute(
                moves.delete().where(moves.c.game_id == game_id, moves.c.ply >= rolled_back.ply)
            )
            self._cache_state(game_id, now, rolled_back)
            log.info("game=%d undo to ply=%d", game_id, rolled_back.ply)
            events: list[Event] = [UndoAnswered(game_id, player.id, True, True, rolled_back.ply)]
            events.append(await self._start_turn(conn, game_id, summary, rolled_back))
            now_summary = await self._summary(conn, game_id)
            return await self._announce(conn, Result(now_summary, tuple(events)))

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
            raise Refused("You have no move to take back yet.", code=Code.NOTHING_TO_UNDO)
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

    # == rematch =============================================================================

    async def rematch(self, game_id: int, guild_id: int, player: Player) -> Result:
        """The same game and options with the seats rotated, as a challenge to the same players."""
        async with self.db.write() as conn:
            row = await self._game_row(conn, game_id, guild_id, lock=True)
            summary = await self._summary(conn, game_id, row)
            if summary.seat_of(player.id) is None:
                raise Refused(
                    "Only a player of that game can ask for a rematch.", code=Code.NOT_SEATED
                )
            if row.status not in ("finished", "aborted"):
                raise Refused("A rematch can follow only a finished game.", code=Code.NOT_FINISHED)
            offered = await conn.execute(
                sa.select(games).where(
                    games.c.rematch_of == game_id,
                    games.c.status.in_(("open", "active", "finished", "aborted")),
                )
            )
            for earlier in offered:
                if not self._overdue(earlier):
                    raise Refused(
                        f"A rematch of #{game_id} is already offered (#{earlier.id}).",
                        code=Code.REMATCH_OFFERED,
                    )
            await self._check_limits(conn, player.id)
            now = self.clock()
            rotated = summary.seats[1:] + summary.seats[:1]
            new_id = await self._insert_game(
                conn,
                place=Place(row.guild_id, row.channel_id),
                game=row.game,
                options=row.options,
                challenger=player.id,
                days=row.days_per_move,
                first="rematch",
                rated=row.rated,
                now=now,
                rematch_of=game_id,
            )
            await conn.execute(
                seats.insert(),
                [
                    {
                        "game_id": new_id,
                        "seat": i,
                        "player_id": s.player_id,
                        "accepted": s.player_id == player.id,
                    }
                    for i, s in enumerate(rotated)
                ],
            )
            new = await self._summary(conn, new_id)
            invited = tuple(pid for pid in new.player_ids() if pid != player.id)
            event = ChallengeIssued(new_id, challenger=player, invited=invited, open_seats=0)
            return await self._announce(conn, Result(new, (event,)))

    # == looking at games =====================================================================

    async def game(self, game_id: int, guild_id: int) -> GameSummary:
        _check_ids(game_id, guild_id)
        async with self.db.read() as conn:
            row = await self._game_row(conn, game_id, guild_id)
            return await self._summary(conn, game_id, row)

    async def board(
        self, game_id: int, guild_id: int, *, ply: int | None = None, groups: bool = False
    ) -> Board:
        """The picture of the game now, or after any ply; any game of this guild."""
        summary, state = await self._position(game_id, guild_id, ply)
        png = await self._render(game_id, state, summary, groups=groups)
        return Board(summary, state.ply, png, len(state.legal_moves()))

    async def board_text(self, game_id: int, guild_id: int, *, ply: int | None = None) -> str:
        """The board in characters with its status line, for terminals."""
        _, state = await self._position(game_id, guild_id, ply)
        return render_text(state)

    async def state(self, game_id: int, guild_id: int) -> GameState:
        """The engine state of a game (adapters read its legal moves for autocomplete)."""
        return (await self._position(game_id, guild_id, None))[1]

    async def _position(
        self, game_id: int, guild_id: int, ply: int | None
    ) -> tuple[GameSummary, GameState]:
        """A game and its position now, or after `ply` moves."""
        _check_ids(game_id, guild_id)
        async with self.db.read() as conn:
            row = await self._game_row(conn, game_id, guild_id)
            summary = await self._summary(conn, game_id, row)
            state = await self._state(conn, row)
        if ply is None or ply == state.ply:
            return _seat_names_now(summary, state), state
        if not 0 <= ply <= state.ply:
            raise Refused(
                f"Game #{game_id} has moves 0 to {state.ply}; there is no move {ply}.",
                code=Code.BAD_PLY,
            )
        then = await replay(row.game, row.options, state.moves[:ply])
        return _seat_names_now(summary, then), then

    async def games(
        self,
        guild_id: int,
        *,
        player_id: int | None = None,
        channel_id: int | None = None,
        status: str | None = None,
        viewer_id: int | None = None,
        limit: int = 100,
    ) -> list[GameSummary]:
        """Games of a guild: a player's, a channel's; the viewer's turn first."""
        if status is not None and status not in STATUSES:
            raise Refused(f"A game's status is one of {', '.join(STATUSES)}.", code=Code.BAD_STATUS)
        _check_ids(guild_id, *(x for x in (player_id, channel_id, viewer_id) if x is not None))
        query = sa.select(games.c.id).where(games.c.guild_id == guild_id)
        if player_id is not None:
            query = query.where(
                games.c.id.in_(sa.select(seats.c.game_id).where(seats.c.player_id == player_id))
            )
        if channel_id is not None:
            query = query.where(
                sa.or_(games.c.channel_id == channel_id, games.c.thread_id == channel_id)
            )
        if status is not None:
            query = query.where(games.c.status == status)
        query = query.order_by(games.c.updated_at.desc()).limit(max(1, min(limit, 500)))
        async with self.db.read() as conn:
            ids = (await conn.scalars(query)).all()
            found = [await self._summary(conn, gid) for gid in ids]
        rank = {"active": 1, "open": 2}
        return sorted(
            found,
            key=lambda g: (
                0
                if viewer_id is not None and g.player_to_move == viewer_id
                else rank.get(g.status, 3),
            ),
        )

    async def game_in_thread(self, thread_id: int) -> GameSummary | None:
        async with self.db.read() as conn:
            game_id = await conn.scalar(sa.select(games.c.id).where(games.c.thread_id == thread_id))
            return None if game_id is None else await self._summary(conn, game_id)

    async def default_game(
        self, guild_id: int, player_id: int, thread_id: int | None, *, my_turn: bool = True
    ) -> GameSummary:
        """The game a command means when none is named: the thread's; else your only game
        on move (for a move), or your only game under way (resign, undo, board...),
        narrowed to the one on move when there are several."""
        if thread_id is not None:
            found = await self.game_in_thread(thread_id)
            if found is not None and found.guild_id == guild_id:
                return found
        active = await self.games(guild_id, player_id=player_id, status="active")
        on_move = [g for g in active if g.player_to_move == player_id]
        candidates = on_move if my_turn or len(active) > 1 else active
        if len(candidates) == 1:
            return candidates[0]
        if not candidates:
            where = "waiting for your move" if my_turn else "under way"
            raise Refused(f"You have no game {where} here; name the game.", code=Code.NO_GAME)
        listed = ", ".join(f"#{g.id}" for g in candidates[:10])
        raise Refused(f"Name the game: you have several ({listed}).", code=Code.AMBIGUOUS_GAME)

    async def attach(
        self, game_id: int, *, thread_id: int | None = None, message_id: int | None = None
    ) -> None:
        """Remember where an adapter shows a game (its thread, its status message)."""
        values = {
            k: v for k, v in (("thread_id", thread_id), ("message_id", message_id)) if v is not None
        }
        if values:
            async with self.db.write() as conn:
                await conn.execute(games.update().where(games.c.id == game_id).values(**values))

    async def record(self, game_id: int, guild_id: int) -> Record:
        """The moves with their times, one line per move, in the game's notation."""
        async with self.db.read() as conn:
            row = await self._game_row(conn, game_id, guild_id)
            summary = _seat_names_now(
                await self._summary(conn, game_id, row), await self._state(conn, row)
            )
            entries = (
                await conn.execute(
                    sa.select(moves.c.ply, moves.c.seat, moves.c.text, moves.c.created_at)
                    .where(moves.c.game_id == game_id)
                    .order_by(moves.c.ply)
                )
            ).all()
        info = engine.GAMES[row.game]
        lines = [f"{info.title} #{game_id} — {_options_text(row.options)}"]
        for seat in summary.seats:
            lines.append(f"  {summary.seat_names[seat.seat]}: {seat.name or 'open seat'}")
        for entry in entries:
            when = entry.created_at.strftime("%Y-%m-%d %H:%M")
            who = summary.name_of_seat(entry.seat)
            lines.append(f"{entry.ply + 1:>4}. {when} UTC  {who:<18} {entry.text}")
        if summary.status == "finished":
            lines.append(_result_text(summary))
        return Record(summary, "\n".join(lines))

    async def replay_gif(self, game_id: int, guild_id: int) -> bytes:
        async with self.db.read() as conn:
            row = await self._game_row(conn, game_id, guild_id)
            summary = await self._summary(conn, game_id, row)
            state = await self._state(conn, row)
        return await self.painter.gif(state, players=[s.name or "?" for s in summary.seats])

    # == ratings ===============================================================================

    async def leaderboard(self, guild_id: int, game: str, *, limit: int = 10) -> list[RatingLine]:
        if game not in engine.GAMES:
            raise Refused(f"There is no game called {shown(game)}.", code=Code.UNKNOWN_GAME)
        async with self.db.read() as conn:
            return await ratings.leaderboard(conn, guild_id, game, limit)

    async def ratings(
        self, guild_id: int, player_id: int, game: str | None = None
    ) -> list[RatingLine]:
        async with self.db.read() as conn:
            return await ratings.of_player(conn, guild_id, player_id, game)

    # == settings =============================================================================

    async def player_settings(
        self,
        player: Player,
        *,
        reminders: str | None = None,
        time_zone: str | None = None,
        quiet_hours: str | None = None,
        vacation: bool | None = None,
    ) -> PlayerSettings:
        """Read or change a player's settings. Quiet hours are "22-7" (local hours) or "off"."""
        values: dict[str, Any] = {}
        if reminders is not None:
            if reminders not in ("dm", "thread", "off"):
                raise Refused(
                    "Reminders go by dm, in the game's thread, or off.", code=Code.BAD_SETTING
                )
            values["reminders"] = reminders
        if time_zone is not None:
            values["time_zone"] = _time_zone(time_zone)
        if quiet_hours is not None:
            values["quiet_start"], values["quiet_end"] = _quiet_hours(quiet_hours)
        now = self.clock()
        async with self.db.write() as conn:
            if vacation is False:  # its end moves clocks: their games first (the lock order)
                await clocks.lock_games_of(conn, player.id)
            await self._remember(conn, player)  # locks the row: settings calls queue here
            row = (await conn.execute(sa.select(players).where(players.c.id == player.id))).one()
            days_left = row.vacation_days_left
            if row.vacation_year != now.year:  # a new year's allowance
                days_left = float(self.settings.vacation_days)
                values.update(vacation_days_left=days_left, vacation_year=now.year)
            if vacation is True and row.vacation_since is None:
                if days_left <= 0:
                    raise Refused(
                        "You have no vacation days left this year.", code=Code.NO_VACATION
                    )
                values["vacation_since"] = now
            elif vacation is False and row.vacation_since is not None:
                used = (now - row.vacation_since).total_seconds() / 86400
                end = min(now, row.vacation_since + timedelta(days=max(0.0, days_left)))
                await clocks.resume_clocks(conn, player.id, row.vacation_since, end, now)
                values.update(vacation_since=None, vacation_days_left=max(0.0, days_left - used))
            if values:
                await conn.execute(
                    players.update().where(players.c.id == player.id).values(**values)
                )
            row = (await conn.execute(sa.select(players).where(players.c.id == player.id))).one()
        quiet = None if row.quiet_start is None else (row.quiet_start, row.quiet_end)
        return PlayerSettings(
            player.id,
            row.reminders,
            row.time_zone,
            quiet,
            row.vacation_days_left,
            row.vacation_since,
        )

    async def guild_settings(
        self,
        guild_id: int,
        *,
        channels: Sequence[int] | None = None,
        days_per_move: int | str | None = "keep",
        rated: bool | None = None,
    ) -> GuildSettings:
        """Read or change a server's settings (adapters check the admin permission).
        Only what the call names is written: two calls at once keep both changes."""
        if (
            days_per_move != "keep"
            and days_per_move is not None
            and days_per_move not in DAYS_PER_MOVE
        ):
            allowed = ", ".join(str(d) for d in DAYS_PER_MOVE)
            raise Refused(
                f"Days per move must be one of {allowed}, or none.", code=Code.BAD_SETTING
            )
        changes: dict[str, Any] = {}
        if channels is not None:
            changes["channels"] = list(channels)
        if days_per_move != "keep":
            changes["days_per_move"] = days_per_move
        if rated is not None:
            changes["rated"] = rated
        async with self.db.write() as conn:
            if changes:  # a new row starts from the defaults
                default = GuildSettings(guild_id)
                new_row = {
                    "guild_id": guild_id,
                    "channels": list(default.channels),
                    "days_per_move": default.days_per_move,
                    "rated": default.rated,
                } | changes
                await _upsert(
                    conn, guild_settings, new_row, keys=("guild_id",), update=tuple(changes)
                )
            return await self._guild_settings(conn, guild_id)

    # == the machinery ===========================================================================

    async def _announce(self, conn: AsyncConnection, result: ResultT) -> ResultT:
        """Every use case ends here, in its transaction: its events go into the outbox."""
        return await outbox.write(self, conn, result)

    async def _retry(self, attempt: Callable[[], Awaitable[T]]) -> T:
        """Run a check-then-commit attempt again when another writer got there first."""
        for _ in range(CONFLICT_RETRIES):
            try:
                return await attempt()
            except _Conflict:
                continue
        raise Refused("The game is busy; try that again in a moment.", code=Code.BUSY)

    async def _game_row(
        self, conn: AsyncConnection, game_id: int, guild_id: int, *, lock: bool = False
    ) -> Any:
        """The game's row; `lock` (in a write transaction): held until it commits, so
        what the use case checks stays true (the lock order: docs/ARCHITECTURE.md)."""
        _check_ids(game_id)  # within the column's range (and short enough to quote)
        statement = _LOCKED_GAME_ROW if lock else _GAME_ROW
        row = (await conn.execute(statement, {"game_id": game_id})).one_or_none()
        if row is None or row.guild_id != guild_id:  # another guild's game does not exist here
            raise Refused(f"There is no game #{game_id} here.", code=Code.NO_GAME)
        return row

    async def _open_challenge(self, conn: AsyncConnection, game_id: int, guild_id: int) -> Any:
        row = await self._game_row(conn, game_id, guild_id, lock=True)
        if self._overdue(row):  # the scheduler closes it; until then it is refused
            raise Refused("This challenge has expired.", code=Code.EXPIRED)
        if row.status == "active":
            raise Refused(
                "This challenge was already accepted: the game is under way.", code=Code.NOT_OPEN
            )
        if row.status != "open":
            raise Refused(f"This challenge is {_status_words(row.status)}.", code=Code.NOT_OPEN)
        return row

    def _overdue(self, row: Any) -> bool:
        """An open challenge past its expiry counts as expired, whether or not it was closed yet."""
        return bool(
            row.status == "open" and row.expires_at is not None and row.expires_at <= self.clock()
        )

    async def _close_challenge(
        self, conn: AsyncConnection, game_id: int, status: Status, by: int | None
    ) -> Result:
        await self._set_status(conn, game_id, status)
        closed = ChallengeClosed(game_id, status, by)
        return await self._announce(conn, Result(await self._summary(conn, game_id), (closed,)))

    async def _set_status(self, conn: AsyncConnection, game_id: int, status: Status) -> None:
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
        await conn.execute(
            deadlines.update()
            .where(deadlines.c.game_id == game_id, deadlines.c.done.is_(False))
            .values(done=True)
        )

    async def _insert_game(
        self,
        conn: AsyncConnection,
        *,
        place: Place,
        game: str,
        options: Mapping[str, Any],
        challenger: int,
        days: int | None,
        first: First,
        rated: bool,
        now: datetime,
        rematch_of: int | None = None,
    ) -> int:
        expires = now + timedelta(hours=self.settings.challenge_hours)
        inserted = await conn.execute(
            games.insert()
            .values(
                guild_id=place.guild_id,
                channel_id=place.channel_id,
                game=game,
                options=dict(options),
                rules_version=engine.GAMES[game].version,
                status="open",
                ply=0,
                challenger_id=challenger,
                days_per_move=days,
                first=first,
                rated=rated,
                expires_at=expires,
                created_at=now,
                updated_at=now,
                rematch_of=rematch_of,
            )
            .returning(games.c.id)
        )
        game_id = int(inserted.scalar_one())
        await conn.execute(
            deadlines.insert().values(game_id=game_id, kind="expire", ply=0, due_at=expires)
        )
        return game_id

    async def _start_if_full(self, conn: AsyncConnection, row: Any) -> list[Event]:
        roster = (
            await conn.execute(
                sa.select(seats).where(seats.c.game_id == row.id).order_by(seats.c.seat)
            )
        ).all()
        if any(s.player_id is None or not s.accepted for s in roster):
            return []
        order = [s.player_id for s in roster]
        if row.first == "random":
            self.rng.shuffle(order)
        elif row.first == "opponent":
            order = order[1:] + order[:1]
        await conn.execute(seats.delete().where(seats.c.game_id == row.id))
        await conn.execute(
            seats.insert(),
            [
                {"game_id": row.id, "seat": i, "player_id": pid, "accepted": True}
                for i, pid in enumerate(order)
            ],
        )
        state = engine.new(row.game, **row.options)
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
        self._cache_state(row.id, now, state)
        summary = await self._summary(conn, row.id)
        events: list[Event] = [GameStarted(row.id, tuple(order))]
        log.info("game=%d started players=%s", row.id, order)
        if state.outcome is not None:  # a variant with no first move ends at once
            fresh = await self._game_row(conn, row.id, row.guild_id)
            events.append(
                await self._finish(
                    conn,
                    fresh,
                    summary,
                    state.outcome.winners,
                    str(state.outcome.reason),
                    state.outcome.scores,
                )
            )
        else:
            events.append(await self._start_turn(conn, row.id, summary, state))
        return events

    async def _start_turn(
        self, conn: AsyncConnection, game_id: int, summary: GameSummary, state: GameState
    ) -> TurnStarted:
        """A turn starts (outside a move: at the start, after an undo): its deadline."""
        assert state.to_move is not None
        due = self._due(summary, self.clock())
        await conn.execute(games.update().where(games.c.id == game_id).values(deadline_at=due))
        await self._write_deadlines(conn, game_id, state.ply, due)
        return TurnStarted(game_id, summary.seats[state.to_move].player_id or 0, due)

    @staticmethod
    def _due(summary: GameSummary, now: datetime) -> datetime | None:
        if summary.days_per_move is None:
            return None
        return now + timedelta(days=summary.days_per_move)

    async def _write_deadlines(
        self, conn: AsyncConnection, game_id: int, ply: int, due: datetime | None
    ) -> None:
        """The turn's deadline rows (the timeout and its reminders), rewritten in the
        move's transaction: one row per game and kind, unclaimed and due again."""
        if due is None:
            await conn.execute(
                deadlines.update()
                .where(deadlines.c.game_id == game_id, deadlines.c.done.is_(False))
                .values(done=True)
            )
            return
        now = self.clock()
        leads = {"timeout": timedelta(0), **REMINDER_LEADS}
        rows = [
            {
                "game_id": game_id,
                "kind": kind,
                "ply": ply,
                "due_at": due - lead,
                "done": due - lead <= now,  # a reminder too close to the deadline is skipped
                "claimed_by": None,
                "claimed_until": None,
            }
            for kind, lead in leads.items()
        ]
        await conn.execute(_deadline_upsert(conn.dialect.name), rows)

    async def _finish(
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
        await conn.execute(
            deadlines.update()
            .where(deadlines.c.game_id == row.id, deadlines.c.done.is_(False))
            .values(done=True)
        )
        ids = tuple(s.player_id or 0 for s in summary.seats)
        log.info("game=%d over reason=%s winners=%s", row.id, reason, list(winners))
        if row.rated:
            ranks = finishing_ranks(len(ids), winners, scores, loser)
            await ratings.update(conn, row.guild_id, row.game, ids, ranks)
        return GameOver(row.id, tuple(ids[s] for s in winners), reason, scores, ids)

    def _cache_state(self, game_id: int, updated_at: datetime, state: GameState) -> None:
        self._states[game_id] = (updated_at, state)
        self._trim(self._states, STATE_CACHE_SIZE)

    async def _state(self, conn: AsyncConnection, row: Any) -> GameState:
        """The engine state of a game row: cached, or replayed from its record."""
        cached = self._states.get(row.id)
        if cached is not None and cached[0] == row.updated_at and cached[1].ply == row.ply:
            self._states.move_to_end(row.id)
            return cached[1]
        record = (
            await conn.scalars(
                sa.select(moves.c.text).where(moves.c.game_id == row.id).order_by(moves.c.ply)
            )
        ).all()
        state = await replay(row.game, row.options, record)
        self._cache_state(row.id, row.updated_at, state)
        return state

    async def _summary(
        self, conn: AsyncConnection, game_id: int, row: Any | None = None
    ) -> GameSummary:
        if row is None:
            row = (await conn.execute(sa.select(games).where(games.c.id == game_id))).one()
        roster, away = await self._roster(conn, game_id, row.status)
        info = engine.GAMES[row.game]
        return GameSummary(
            id=row.id,
            game=row.game,
            title=info.title,
            options=dict(row.options),
            status="expired" if self._overdue(row) else row.status,
            guild_id=row.guild_id,
            channel_id=row.channel_id,
            thread_id=row.thread_id,
            message_id=row.message_id,
            seats=roster,
            ply=row.ply,
            to_move=row.to_move,
            days_per_move=row.days_per_move,
            rated=row.rated,
            first=row.first,
            challenger_id=row.challenger_id,
            created_at=row.created_at,
            expires_at=row.expires_at,
            deadline=row.deadline_at if row.status == "active" else None,
            winners=tuple(row.winners or ()),
            reason=row.reason,
            scores=tuple(row.scores) if row.scores is not None else None,
            seat_names=tuple(info.seat_name(i) for i in range(len(roster))),
            away=away if row.status == "active" else (),
        )

    async def _roster(
        self, conn: AsyncConnection, game_id: int, status: str
    ) -> tuple[tuple[Seat, ...], tuple[int, ...]]:
        """The seats with the players' names, and who of them is on vacation. Seats are
        fixed once a game has started, so kept for a while; a rename or a vacation
        here clears them, one in another process shows within ROSTER_SECONDS."""
        cached = self._rosters.get(game_id)
        if cached is not None and time.monotonic() - cached[0] < ROSTER_SECONDS:
            return cached[1], cached[2]
        rows = (await conn.execute(_ROSTER, {"game_id": game_id})).all()
        roster = tuple(Seat(r.seat, r.player_id, r.name, r.accepted) for r in rows)
        away = tuple(r.player_id for r in rows if r.vacation_since is not None)
        if status != "open":
            self._rosters[game_id] = (time.monotonic(), roster, away)
            self._trim(self._rosters, STATE_CACHE_SIZE)
        return roster, away

    async def _remember(self, conn: AsyncConnection, *people: Player) -> None:
        """Create or rename the players' rows (cached rosters may hold the old names),
        locking them in id order: two challenges crossing each other never deadlock."""
        self._rosters.clear()
        now = self.clock()
        await _upsert(
            conn,
            players,
            [
                {"id": p.id, "name": p.name[:100] or "?", "created_at": now}
                for p in sorted(people, key=lambda p: p.id)
            ],
            keys=("id",),
            update=("name",),
        )

    async def _check_limits(
        self, conn: AsyncConnection, player_id: int, *, challenges: bool = True
    ) -> None:
        if challenges:
            open_count = await conn.scalar(
                sa.select(sa.func.count())
                .select_from(games)
                .where(games.c.challenger_id == player_id, games.c.status == "open")
            )
            if (open_count or 0) >= self.settings.max_open_challenges:
                raise Refused(
                    f"You have {open_count} open challenges, the most allowed; cancel one first.",
                    code=Code.LIMIT,
                )
        active = await conn.scalar(
            sa.select(sa.func.count())
            .select_from(seats.join(games, games.c.id == seats.c.game_id))
            .where(seats.c.player_id == player_id, games.c.status == "active")
        )
        if (active or 0) >= self.settings.max_active_games:
            raise Refused(
                f"You are playing {active} games, the most allowed; finish one first.",
                code=Code.LIMIT,
            )

    async def _guild_settings(self, conn: AsyncConnection, guild_id: int) -> GuildSettings:
        row = (
            await conn.execute(
                sa.select(guild_settings).where(guild_settings.c.guild_id == guild_id)
            )
        ).one_or_none()
        if row is None:
            return GuildSettings(guild_id)
        return GuildSettings(guild_id, tuple(row.channels), row.days_per_move, row.rated)

    async def _render(
        self,
        game_id: int,
        state: GameState,
        summary: GameSummary,
        *,
        groups: bool,
        after_move: bool = False,
    ) -> bytes:
        caption = _deadline_caption(summary) if state.ply == summary.ply else None
        key = (game_id, state.ply, groups, caption)  # a vacation changes the caption
        png = self._boards.get(key)
        if png is None:
            names = [s.name or "open seat" for s in summary.seats]
            png = await self.painter.png(
                state,
                players=names,
                groups=groups,
                caption=caption,
                slow=not after_move,  # a move's board never waits behind a slow picture
            )
            self._boards[key] = png
            self._trim(self._boards, self.settings.board_cache_size)
        else:
            self._boards.move_to_end(key)
        return png

    @staticmethod
    def _trim(cache: OrderedDict[Any, Any], size: int) -> None:
        while len(cache) > size:
            cache.popitem(last=False)

    # == deadlines and reminders (the scheduler calls these) ==================================

    async def claim_deadlines(
        self, worker: str, lease: timedelta, *, limit: int = clocks.CLAIM_BATCH
    ) -> list[clocks.Claim]:
        """Lease up to `limit` due deadline rows to `worker`, the earliest first: no other
        worker claims them until the lease runs out (bot/service/deadlines.py)."""
        return await clocks.claim(self, worker, lease, limit)

    async def act_on_deadline(self, claim: clocks.Claim, worker: str) -> Result | None:
        """Act on a claimed row while it is still its game's current one: a Reminder, a
        loss on time (TimedOut, GameOver), an expired challenge (ChallengeClosed). None
        when there is nothing to announce (superseded, postponed, held, reminders off)."""
        return await clocks.act(self, claim, worker)

    async def next_deadline(self) -> datetime | None:
        """When a deadline row next becomes claimable (due, or its lease runs out)."""
        return await clocks.next_due(self)

    async def end_vacations(self) -> int:
        """End the vacations whose days ran out; their clocks run again."""
        ended = await clocks.end_vacations(self)
        if ended:
            self._rosters.clear()  # they are no longer away
        return ended

    async def cleanup_deadlines(self) -> int:
        """Delete the deadline rows of games that are over; returns how many."""
        return await clocks.cleanup(self)

    # == the outbox: announcements after the commit (bot/service/outbox.py) ======================

    async def deliver(self, result: Result, publish: outbox.Publish) -> None:
        """Announce a use case's result through the adapter's `publish`, then mark it
        delivered. If `publish` raises, `redeliver` sends it again later."""
        await outbox.deliver(self, result, publish)

    async def redeliver(self, publish: outbox.Publish, worker: str | None = None) -> int:
        """Deliver the results a crashed process (or a failed delivery) left undelivered,
        once their lease has run out, with the game as it is now; returns how many."""
        return await outbox.redeliver(self, publish, worker or self.worker_id)

    async def cleanup_outbox(self) -> int:
        """Delete the outbox rows delivered more than a day ago; returns how many."""
        return await outbox.cleanup(self)

    async def move_hints(
        self, game_id: int, guild_id: int, player_id: int, prefix: str, *, limit: int = 25
    ) -> list[str]:
        """Legal moves starting like `prefix` (case, dashes and spaces aside), for
        autocomplete; none when it is not `player_id`'s turn."""
        summary, state = await self._position(game_id, guild_id, None)
        if summary.player_to_move != player_id:
            return []
        typed = " ".join(prefix.lower().replace("-", " ").split())
        legal = [move for move in state.legal_moves() if move.replace("-", " ").startswith(typed)]
        return legal[: max(0, limit)]


async def replay(name: str, options: Mapping[str, Any], moves: Sequence[str]) -> GameState:
    """`engine.replay` in slices of about REPLAY_SLICE_SECONDS with a short pause between
    them: a long record never holds the event loop, and the pause lets the loop's other
    work through (the database threads need the GIL too; with no pause other players'
    moves crawled). Not a thread: a replay is pure Python, which holds the GIL and would
    stall the loop almost as much."""
    state = engine.replay(name, options, ())
    step = 1
    while state.ply < len(moves):
        started = time.perf_counter()
        state = engine.replay_onto(state, moves[: state.ply + step])
        if time.perf_counter() - started < REPLAY_SLICE_SECONDS / 2:
            step *= 2
        else:
            step = max(1, step // 2)
        await asyncio.sleep(REPLAY_PAUSE_SECONDS)
    return state


# == rules of the service (pure functions) ====================================================


def forfeit(state: GameState, loser: int) -> tuple[tuple[int, ...], tuple[int, ...] | None]:
    """Winners when `loser` resigns or runs out of time: the best-scoring of the others."""
    others = [seat for seat in range(state.players) if seat != loser]
    scores = getattr(state, "scores", None)
    if scores is None or len(others) == 1:
        return tuple(others), scores
    best = max(scores[seat] for seat in others)
    return tuple(seat for seat in others if scores[seat] == best), tuple(scores)


def finishing_ranks(
    players: int, winners: tuple[int, ...], scores: tuple[int, ...] | None, loser: int | None = None
) -> list[int]:
    """Ranks by seat for the rating update (1 is best; equal ranks tie).

    Winners first; then by score where the game keeps one; a player who resigned
    or timed out last. A draw ranks everyone equal.
    """
    if not winners:
        return [1] * players
    keys = []
    for seat in range(players):
        score = scores[seat] if scores is not None else 0
        keys.append((seat == loser, seat not in winners, -score))
    ordered = sorted(set(keys))
    return [ordered.index(key) + 1 for key in keys]


def _require_active(row: Any) -> None:
    if row.status == "active":
        return
    if row.status == "open":
        raise Refused(
            "This game has not started yet: it is waiting for players.", code=Code.NOT_STARTED
        )
    raise Refused(f"This game is {_status_words(row.status)}.", code=Code.GAME_OVER)


def _status_words(status: str) -> str:
    return {
        "open": "still waiting for players",
        "active": "under way",
        "finished": "over",
        "aborted": "aborted",
        "declined": "declined",
        "cancelled": "cancelled",
        "expired": "expired",
    }.get(status, status)


def _whole(value: object) -> bool:
    """A whole number given as one (not a bool, not a float that looks like one)."""
    return isinstance(value, int) and not isinstance(value, bool)


def _check_ids(*ids: int) -> None:
    for value in ids:
        if not _whole(value) or not 0 <= value <= MAX_ID:
            raise Refused("That id is not one I know.", code=Code.BAD_ID)


def _options_text(options: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in options.items() if k != "players") or "default options"


def _seat_names_now(summary: GameSummary, state: GameState) -> GameSummary:
    """The summary with the seats' names in this position (a swap exchanges colours)."""
    names = tuple(state.seat_name(seat.seat) for seat in summary.seats)
    return (
        summary if names == summary.seat_names else dataclasses.replace(summary, seat_names=names)
    )


def _result_text(summary: GameSummary) -> str:
    if not summary.winners:
        return f"Result: draw ({summary.reason})."
    names = " & ".join(summary.name_of_seat(s) for s in summary.winners)
    verb = "wins" if len(summary.winners) == 1 else "share the win"
    return f"Result: {names} {verb} ({summary.reason})."


def _deadline_caption(summary: GameSummary) -> str | None:
    if summary.deadline is None:
        return None
    if summary.player_to_move in summary.away:
        return "clock stopped: on vacation"
    return f"due {summary.deadline:%d %b %H:%M} UTC"


def _time_zone(name: str) -> str:
    """The zone's canonical name, whatever the case it was typed in."""
    canonical = _zones_by_lower_name().get(name.strip().lower(), name.strip())
    try:
        ZoneInfo(canonical)
    except (ZoneInfoNotFoundError, ValueError):
        raise Refused(
            f"I don't know the time zone {shown(name)}; try one like Europe/Paris.",
            code=Code.BAD_SETTING,
        ) from None
    return canonical


@cache
def _zones_by_lower_name() -> dict[str, str]:
    return {zone.lower(): zone for zone in available_timezones()}


def _quiet_hours(text: str) -> tuple[int | None, int | None]:
    cleaned = text.strip().lower()
    if cleaned in ("off", "none", ""):
        return None, None
    hours = [whole_number(part, 2) for part in cleaned.replace(" ", "").split("-")]
    match hours:
        case [int(start), int(end)] if start != end and start < 24 and end < 24:
            return start, end
    raise Refused("Quiet hours are two local hours like 22-7, or off.", code=Code.BAD_SETTING)


@cache
def _deadline_upsert(dialect_name: str) -> sa.Insert:
    """Built once: a deadline row per game and kind, replaced when a new turn starts."""
    dialect = postgresql if dialect_name == "postgresql" else sqlite
    statement = dialect.insert(deadlines)
    changed = ("ply", "due_at", "done", "claimed_by", "claimed_until")
    upsert: sa.Insert = statement.on_conflict_do_update(
        index_elements=["game_id", "kind"], set_={k: statement.excluded[k] for k in changed}
    )
    return upsert


async def _upsert(
    conn: AsyncConnection,
    table: sa.Table,
    rows: dict[str, Any] | list[dict[str, Any]],
    *,
    keys: tuple[str, ...],
    update: tuple[str, ...] | None = None,
) -> None:
    """INSERT ... ON CONFLICT DO UPDATE on both backends, for one row or several."""
    many = rows if isinstance(rows, list) else [rows]
    dialect = postgresql if conn.dialect.name == "postgresql" else sqlite
    statement = dialect.insert(table).values(many)
    changed = update if update is not None else tuple(k for k in many[0] if k not in keys)
    statement = statement.on_conflict_do_update(
        index_elements=list(keys), set_={k: statement.excluded[k] for k in changed}
    )
    await conn.execute(statement)
