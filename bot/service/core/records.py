"""What every use case stands on: a game's row, its summary and state, the caches, the
turn's deadline rows, the end of a game, the board pictures, the outbox write.

`Records` holds the service's shared context (the database, settings, clock, caches,
painter); each use-case class (bot/service/challenges.py, play.py, lookups.py,
preferences.py) builds on it, and `GameService` (bot/service/service.py) is all of
them. The scheduler's side (bot/service/deadlines.py) and the outbox use the same
helpers. A game is `engine.replay` of its stored moves; the latest state of each game
is kept in memory, valid while the game row's `updated_at` is the one it was built from.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol, TypeVar

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

import engine
from bot.service import clocks
from bot.service.ai import jobs as aiqueue
from bot.service.clocks import REMINDER_LEADS, banks
from bot.service.core import outbox, ratings
from bot.service.core.models import (
    ChallengeClosed,
    Event,
    GameOver,
    GameStarted,
    GameSummary,
    GuildSettings,
    Player,
    Refused,
    Result,
    Seat,
    ServiceCode,
    Status,
    TurnStarted,
)
from bot.service.core.painter import Painter
from bot.service.core.rules import (
    check_ids,
    check_people,
    deadline_caption,
    finishing_ranks,
    require_active,
)
from bot.settings import Settings
from bot.store import Database
from bot.store.schema import (
    conditionals,
    deadlines,
    games,
    guild_settings,
    moves,
    players,
    seats,
    tournaments,
)
from bot.store.upserts import upsert
from engine import GameState

log = logging.getLogger("paperboard.service")

STATE_CACHE_SIZE = 2048
ROSTER_SECONDS = 60.0
#: The most a replay holds the event loop at a time, and its pause between slices.
REPLAY_SLICE_SECONDS = 0.003
REPLAY_PAUSE_SECONDS = 0.001

ResultT = TypeVar("ResultT", bound=Result)
#: A cached picture: game, record, groups shown, caption, the seats' names.
BoardKey = tuple[int, tuple[str, ...], bool, str | None, tuple[str, ...]]


def utcnow() -> datetime:
    return datetime.now(UTC)


# The hot path's statements, built once (building a statement costs more than running it).
_GAME_ROW = sa.select(games).where(games.c.id == sa.bindparam("game_id"))
_LOCKED_GAME_ROW = _GAME_ROW.with_for_update()  # SQLite's BEGIN IMMEDIATE needs no row lock
_ROSTER = (
    sa.select(
        seats.c.seat,
        seats.c.player_id,
        seats.c.accepted,
        seats.c.bot_level,
        players.c.name,
        players.c.vacation_since,
        players.c.time_zone,
        players.c.weekend,
        players.c.web_profile,
    )
    .select_from(seats.outerjoin(players, players.c.id == seats.c.player_id))
    .where(seats.c.game_id == sa.bindparam("game_id"))
    .order_by(seats.c.seat)
)


class EventHooks(Protocol):
    """What the end of a game or of a challenge does to its event (the events family),
    in the transaction that ends it."""

    async def game_over(self, conn: AsyncConnection, row: Any, over: GameOver) -> None:
        """A game of an event ended (the event's row is locked): it records it and goes on."""

    async def challenge_closed(self, conn: AsyncConnection, game_id: int, status: Status) -> None:
        """An open challenge closed; a ladder's declined or expired one is a forfeit."""


class Records:
    """The shared context of the use cases and the helpers they have in common."""

    def __init__(
        self,
        database: Database,
        settings: Settings,
        *,
        clock: Callable[[], datetime] = utcnow,
        rng: random.Random | None = None,
        worker_id: str | None = None,
        announces: bool = True,
    ) -> None:
        self.db = database
        # who holds the outbox rows this process writes (it delivers them itself)
        self.worker_id = (worker_id or outbox.default_worker_id())[:64]
        # False in a process that cannot announce (`paperboard worker`): its outbox rows
        # are left to the processes that can
        self.announces = announces
        # True where the adapter answers before it delivers (the Discord bot's interaction
        # replies): each row written stays held while its writing task lives
        self.holds_until_delivered = False
        self.holds = outbox.Holds(self)
        self.settings = settings
        self.clock = clock
        self.rng = rng or random.Random()
        # game id -> (the row's updated_at, the state): valid while the row is unchanged
        self._states: OrderedDict[int, tuple[datetime, GameState]] = OrderedDict()
        self._boards: OrderedDict[BoardKey, bytes] = OrderedDict()
        self.rosters_changed = time.monotonic()  # when a name or a vacation last changed
        # game id -> (when read, seats, players on vacation)
        self._rosters: OrderedDict[int, tuple[float, tuple[Seat, ...], tuple[int, ...]]] = (
            OrderedDict()
        )
        self.painter = Painter(settings.render_processes)
        # deliveries beside the adapter's: every result delivered goes through these too,
        # before its row is marked (the mail adapter's, whatever adapter runs beside it)
        self.also_publish: list[outbox.Publish] = []
        # tournament id -> ("Spring Hex", whether a vacation stops its clocks) (fixed)
        self._events: dict[int, tuple[str, bool]] = {}
        #: what a game's end and a challenge's close do to its event (the events family)
        self.event_hooks: EventHooks | None = None
        #: called with a game's id when its state changes (the web pages read it again)
        self.state_listeners: list[Callable[[int], None]] = []
        # a roster read in a transaction that rolled back may be one never committed (a
        # start's drawn seat order)
        database.rolled_back.append(self.forget_rosters)

    # == reading a game ================================================================

    async def game_row(
        self, conn: AsyncConnection, game_id: int, guild_id: int, *, lock: bool = False
    ) -> Any:
        """The game's row; `lock` (in a write transaction): held until it commits, so
        what the use case checks stays true (the lock order: docs/ARCHITECTURE.md)."""
        row = await self.find_game_row(conn, game_id, lock=lock)
        if row is None or row.guild_id != guild_id:  # another guild's game does not exist here
            raise Refused(f"There is no game #{game_id} here.", code=ServiceCode.NO_GAME)
        return row

    async def find_game_row(
        self, conn: AsyncConnection, game_id: int, *, lock: bool = False
    ) -> Any:
        """The game's row whatever its server (`lock` as `game_row`'s), None when there is
        no such game."""
        check_ids(game_id)  # within the column's range (and short enough to quote)
        statement = _LOCKED_GAME_ROW if lock else _GAME_ROW
        return (await conn.execute(statement, {"game_id": game_id})).one_or_none()

    async def seated(
        self,
        conn: AsyncConnection,
        game_id: int,
        guild_id: int,
        player: Player,
        *,
        lock: bool = True,
        active: bool = True,
    ) -> tuple[Any, GameSummary, int]:
        """The game's row (`lock`: held until the commit), its summary and `player`'s seat;
        refused when they do not play in it or, with `active`, when it is not under way."""
        row = await self.game_row(conn, game_id, guild_id, lock=lock)
        summary = await self.summary(conn, game_id, row)
        seat = summary.seat_of(player.id)
        if seat is None:
            raise Refused("You are not playing in this game.", code=ServiceCode.NOT_SEATED)
        if active:
            require_active(row)
        return row, summary, seat

    def overdue(self, row: Any) -> bool:
        """An open challenge past its expiry counts as expired, whether or not it was closed yet."""
        return bool(
            row.status == "open" and row.expires_at is not None and row.expires_at <= self.clock()
        )

    async def summary(
        self, conn: AsyncConnection, game_id: int, row: Any | None = None
    ) -> GameSummary:
        if row is None:
            row = (await conn.execute(sa.select(games).where(games.c.id == game_id))).one()
        roster, away = await self.roster(conn, game_id, row.status)
        info = engine.GAMES[row.game]
        event, vacations_stop = None, True
        if row.tournament_id is not None:
            title, vacations_stop = await self._event_facts(conn, row.tournament_id)
            # a ladder's games are challenges (round 0), the other events' games rounds
            step = f"round {row.tournament_round}" if row.tournament_round else "challenge"
            event = f"{title} · {step}"
        return GameSummary(
            id=row.id,
            game=row.game,
            title=info.title,
            options=dict(row.options),
            status="expired" if self.overdue(row) else row.status,
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
            event=event,
            event_id=row.tournament_id,
            time_control=row.time_control,
            banks=self._banks_now(row, roster, vacations_stop) if row.banks is not None else (),
        )

    def _banks_now(
        self, row: Any, roster: tuple[Seat, ...], vacations_stop: bool
    ) -> tuple[timedelta, ...]:
        """A bank clock's banks by seat as they stand now: the mover's runs down (but not
        while they are on a vacation that stops it: their clock stopped when it began)."""
        stored = banks.as_banks(row.banks)
        if row.status != "active" or row.to_move is None or row.clock_started_at is None:
            return stored
        mover = roster[row.to_move]
        away = mover.vacation_since if vacations_stop else None
        left = banks.mover_bank_now(row, mover.weekend, mover.time_zone, away, self.clock())
        return (*stored[: row.to_move], left, *stored[row.to_move + 1 :])

    async def event_title(self, conn: AsyncConnection, tournament_id: int) -> str:
        """An event's title, its name and game: "Spring Hex"."""
        return (await self._event_facts(conn, tournament_id))[0]

    async def _event_facts(self, conn: AsyncConnection, tournament_id: int) -> tuple[str, bool]:
        """An event's title and whether a vacation stops its clocks (kept: neither changes)."""
        known = self._events.get(tournament_id)
        if known is None:
            found = (
                await conn.execute(
                    sa.select(
                        tournaments.c.name, tournaments.c.game, tournaments.c.vacations
                    ).where(tournaments.c.id == tournament_id)
                )
            ).one()
            known = (f"{found.name} {engine.GAMES[found.game].title}", bool(found.vacations))
            self._events[tournament_id] = known
        return known

    async def roster(
        self, conn: AsyncConnection, game_id: int, status: str
    ) -> tuple[tuple[Seat, ...], tuple[int, ...]]:
        """The seats with the players' names and time zones, and who of them is on
        vacation. Seats are fixed once a game has started, so kept for a while; a rename
        or a settings change here clears them, one in another process shows within
        ROSTER_SECONDS."""
        cached = self._rosters.get(game_id)
        if cached is not None and time.monotonic() - cached[0] < ROSTER_SECONDS:
            return cached[1], cached[2]
        rows = (await conn.execute(_ROSTER, {"game_id": game_id})).all()
        roster = tuple(
            Seat(
                r.seat,
                r.player_id,
                r.name,
                r.accepted,
                r.bot_level,
                r.time_zone or "UTC",
                r.weekend,
                r.vacation_since,
                r.web_profile is not False,
            )
            for r in rows
        )
        away = tuple(r.player_id for r in rows if r.vacation_since is not None)
        if status != "open":
            self._rosters[game_id] = (time.monotonic(), roster, away)
            _trim(self._rosters, STATE_CACHE_SIZE)
        return roster, away

    async def load_state(
        self,
        conn: AsyncConnection,
        row: Any,
        record: Sequence[str] | None = None,
        *,
        keep: bool = True,
    ) -> GameState:
        """The engine state of a game row: cached, or replayed from its record (read,
        unless the caller has read it already), and cached with `keep` (the web pages do
        not: the thousands of games they show would push the games being played out)."""
        cached = self._states.get(row.id)
        if cached is not None and cached[0] == row.updated_at and cached[1].ply == row.ply:
            self._states.move_to_end(row.id)
            return cached[1]
        if record is None:
            record = (
                await conn.scalars(
                    sa.select(moves.c.text).where(moves.c.game_id == row.id).order_by(moves.c.ply)
                )
            ).all()
        state = await replay(row.game, row.options, record)
        if keep:
            self.cache_state(row.id, row.updated_at, state)
        return state

    def cache_state(self, game_id: int, updated_at: datetime, state: GameState) -> None:
        self._states[game_id] = (updated_at, state)
        for listener in self.state_listeners:  # its page is read again (an undo: same ply)
            listener(game_id)
        _trim(self._states, STATE_CACHE_SIZE)

    # == players and servers ===========================================================

    async def remember(self, conn: AsyncConnection, *people: Player) -> None:
        """Create or rename the players' rows (cached rosters may hold the old names),
        locking them in id order: two challenges crossing each other never deadlock."""
        check_people(*people)
        self.forget_rosters()
        now = self.clock()
        await upsert(
            conn,
            players,
            [
                {"id": p.id, "name": p.name[:100] or "?", "created_at": now}
                for p in sorted(people, key=lambda p: p.id)
            ],
            keys=("id",),
            update=("name",),
        )

    async def time_zone_of(self, conn: AsyncConnection, player_id: int | None) -> str | None:
        """A player's time zone (their settings); None for nobody or someone unknown."""
        if player_id is None:
            return None
        return await conn.scalar(sa.select(players.c.time_zone).where(players.c.id == player_id))

    def forget_rosters(self) -> None:
        """Cached rosters are stale: a name or a vacation changed."""
        self._rosters.clear()
        self.rosters_changed = time.monotonic()  # the web pages' games read before too

    async def load_guild_settings(self, conn: AsyncConnection, guild_id: int) -> GuildSettings:
        row = (
            await conn.execute(
                sa.select(guild_settings).where(guild_settings.c.guild_id == guild_id)
            )
        ).one_or_none()
        if row is None:
            return GuildSettings(guild_id)
        return GuildSettings(
            guild_id,
            tuple(row.channels),
            row.days_per_move,
            row.rated,
            row.tournaments,
            row.email,
            row.email_channel,
            row.web,
            row.web_token,
        )

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
        row = (await conn.execute(_GAME_ROW, {"game_id": game_id})).one()
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
        mover = await banks.mover_clock(conn, row, seat, now, self.settings.vacation_days)
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
        self.cache_state(row.id, now, state)
        summary = await self.summary(conn, row.id)
        events: list[Event] = [GameStarted(row.id, tuple(pid for pid, _ in order))]
        log.info("game=%d started players=%s", row.id, order)
        if state.outcome is not None:  # a variant with no first move ends at once
            fresh = await self.game_row(conn, row.id, row.guild_id)
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
        result = await self.announce(conn, Result(await self.summary(conn, game_id), (closed,)))
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

    # == pictures and announcements ====================================================

    async def render(
        self,
        game_id: int,
        state: GameState,
        summary: GameSummary,
        *,
        groups: bool,
        after_move: bool = False,
        zone_name: str | None = None,
    ) -> bytes:
        """The board's picture (cached); its deadline in `zone_name`, the zone of the one
        person it is drawn for, else in the zone of the player whose deadline it is."""
        caption = deadline_caption(summary, zone_name) if state.ply == summary.ply else None
        names = board_names(summary)
        key = board_key(game_id, state.moves, groups, caption, names)
        png = self._boards.get(key)
        if png is None:
            png = await self.painter.png(
                state,
                players=names,
                groups=groups,
                caption=caption,
                slow=not after_move,  # a move's board never waits behind a slow picture
            )
            self._boards[key] = png
            _trim(self._boards, self.settings.board_cache_size)
        else:
            self._boards.move_to_end(key)
        return png

    async def timed_moves(self, conn: AsyncConnection, game_id: int) -> Sequence[Any]:
        """A game's move rows in order: ply, seat, text, created_at."""
        c = moves.c
        query = sa.select(c.ply, c.seat, c.text, c.created_at).where(c.game_id == game_id)
        return (await conn.execute(query.order_by(c.ply))).all()

    def drawn_board(self, key: BoardKey) -> bytes | None:
        """A board already drawn (`board_key`), without drawing it."""
        return self._boards.get(key)

    async def announce(self, conn: AsyncConnection, result: ResultT) -> ResultT:
        """Every use case ends here, in its transaction: its events go into the outbox.
        (Underscored: the use cases' last step, which tests replace to fail a commit.)"""
        return await outbox.write(self, conn, result)


async def _close_deadlines(conn: AsyncConnection, game_id: int) -> None:
    """The game's open deadline rows are done (no turn runs, or the game is over)."""
    await conn.execute(
        deadlines.update()
        .where(deadlines.c.game_id == game_id, deadlines.c.done.is_(False))
        .values(done=True)
    )


def board_key(
    game_id: int, record: tuple[str, ...], groups: bool, caption: str | None, names: tuple[str, ...]
) -> BoardKey:
    """The record, not the ply: after an undo the same ply can be another position. (A
    vacation changes the caption; a seat taken, the names.)"""
    return (game_id, record, groups, caption, names)


def board_names(summary: GameSummary) -> tuple[str, ...]:
    """The names a board is drawn with."""
    return tuple(s.name or "open seat" for s in summary.seats)


def _trim(cache: OrderedDict[Any, Any], size: int) -> None:
    while len(cache) > size:
        cache.popitem(last=False)


async def first_position(game: str, options: Mapping[str, Any], seats: int) -> GameState:
    """A new game's first position, refused when the options are bad or the game would be
    over before its first move (building it builds the game's tables: check it last)."""
    try:
        start = await new_state(game, options, seats)
    except engine.BadOptions as exc:
        raise Refused(str(exc), code=exc.code) from None
    if start.outcome is not None:
        raise Refused(
            f"With these options {engine.GAMES[game].title} is over before the first move; "
            "choose other options.",
            code=ServiceCode.OVER_AT_START,
        )
    return start


async def new_state(name: str, options: Mapping[str, Any], players: int | None = None) -> GameState:
    """`engine.new` in a thread. Building a big board's tables (Livewire 60x60: ~50 ms,
    once per process and size) is one call that cannot be sliced; in a thread the loop
    still gets the GIL back every few milliseconds (the interpreter's switch interval)."""
    if players is None:
        return await asyncio.to_thread(engine.new, name, **options)
    return await asyncio.to_thread(engine.new, name, players, **options)


async def replay(name: str, options: Mapping[str, Any], moves: Sequence[str]) -> GameState:
    """`engine.replay` in slices of about REPLAY_SLICE_SECONDS with a short pause between
    them: a long record never holds the event loop, and the pause lets the loop's other
    work through (the database threads need the GIL too; with no pause other players'
    moves crawled). Not a thread: a replay is pure Python, which holds the GIL and would
    stall the loop almost as much."""
    state = await asyncio.to_thread(engine.replay, name, options, ())  # its tables: new_state
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
