"""What every use case stands on: a game's row, its summary, roster and state, a server's
settings, the board pictures and the outbox write.

`Records` is the core every family is built with: the database, the settings, the clock,
the painter and the caches of games read (the turn's writes are core/turns.py's). A
game is `engine.replay` of its stored moves; the latest state of each game is kept in
memory, valid while the game row's `updated_at` is the one it was built from; whoever
caches a new state tells the `state_listeners` (the web pages read that game again).
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

import engine
from bot.service.core import banks, outbox
from bot.service.core.changes import GameChanges
from bot.service.core.models import (
    GameSummary,
    GuildSettings,
    Player,
    Refused,
    Result,
    Seat,
    ServiceCode,
)
from bot.service.core.painter import Painter
from bot.service.core.rules import (
    check_ids,
    check_people,
    deadline_caption,
    require_active,
)
from bot.settings import Settings
from bot.store import Database
from bot.store.schema import (
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
#: A cached picture: game, record, groups shown, caption, the seats' names, scale (1, 2).
BoardKey = tuple[int, tuple[str, ...], bool, str | None, tuple[str, ...], int]


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
        #: called with a game's id when its state changes (the web pages read it again)
        self.state_listeners: list[Callable[[int], None]] = []
        #: who hears that a transaction changed a game (the live pages), in every process
        self.changes = GameChanges(database)
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
        scale: int = 1,
    ) -> bytes:
        """The board's picture (cached); its deadline in `zone_name`, the zone of the one
        person it is drawn for, else in the zone of the player whose deadline it is;
        `scale` 2 for twice the pixels (a high-DPI screen's)."""
        caption = deadline_caption(summary, zone_name) if state.ply == summary.ply else None
        names = board_names(summary)
        key = board_key(game_id, state.moves, groups, caption, names, scale)
        png = self._boards.get(key)
        if png is None:
            png = await self.painter.png(
                state,
                players=names,
                groups=groups,
                caption=caption,
                slow=not after_move,  # a move's board never waits behind a slow picture
                scale=scale,
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
        """Every use case ends here, in its transaction: its events go into the outbox
        (the one step tests replace to fail a commit after everything else is written).
        The game's page is read again (a resignation, an undo asked: seen at once here)."""
        for listener in self.state_listeners:
            listener(result.game.id)
        return await outbox.write(self, conn, result)


def board_key(
    game_id: int,
    record: tuple[str, ...],
    groups: bool,
    caption: str | None,
    names: tuple[str, ...],
    scale: int = 1,
) -> BoardKey:
    """The record, not the ply: after an undo the same ply can be another position. (A
    vacation changes the caption; a seat taken, the names; the 2x picture is another.)"""
    return (game_id, record, groups, caption, names, scale)


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
