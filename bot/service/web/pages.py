"""What the web pages read (bot/web): where a server's pages are, a game's page and its
board at any ply; nothing of a server whose pages are off.

A server's pages exist only when its managers turn them on (`guild_settings(web=...)`):
`public` (anyone, search engines too) or `link` (only through an address holding an
unguessable token). Every lookup here reads outside the write lock.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import re
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from typing import Any, TypeVar, cast

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

import engine
from bot.service.core import jobs as aiqueue
from bot.service.core.caches import SizedCache, web_game_bytes
from bot.service.core.levels import BOT_ID_RANGE
from bot.service.core.models import GameSummary, Refused, ServiceCode, WebPlace
from bot.service.core.records import Records, board_key, board_names, replay
from bot.service.core.rules import check_ids, deadline_caption, seat_names_now
from bot.service.looks.exports import SGF_GAMES, ExportFile, export_file
from bot.store.schema import ai_jobs, games, guild_settings
from engine import GameState

#: The games a page shows: started ones (a challenge never accepted has no board).
SHOWN = ("active", "finished", "aborted")
K = TypeVar("K")
V = TypeVar("V")
T = TypeVar("T")

#: GIF replays kept in memory (a long game's takes seconds to draw).
GIFS_KEPT = 16
#: How long a game's page as read is shown without reading its row again (a change made
#: in this process is seen at once; one made by another process, within this).
FRESH_SECONDS = 2.0
#: How long where a server's pages are is trusted (a change made in this process is seen
#: at once; one made by another process, `paperboard web` beside the bot, within this).
PLACE_SECONDS = 5.0
#: Servers and link tokens remembered, the unknown ones too (the oldest forgotten first).
PLACES_KEPT = 4096

#: What a link-mode token looks like (preferences.new_web_token): anything else is
#: refused before any query.
TOKEN = re.compile(r"[A-Za-z0-9_-]{16,32}")


@dataclass(frozen=True, slots=True)
class WebMove:
    ply: int  # the position after it: 1 for the first move
    seat: int
    who: str  # the player's name
    text: str
    at: datetime


@dataclass(frozen=True, slots=True)
class WebAnalysis:
    """A finished game's stored analysis: its lines, and whether it has a chart."""

    lines: tuple[str, ...]
    chart: bool


@dataclass(frozen=True, slots=True)
class WebGame:
    """A game as its page shows it. Its moves are kept as tuples of plain values (the
    record, who moved, when), which the garbage collector stops tracking: thousands of
    kept games' moves as objects made each full collection take some 90 ms; `moves`
    builds them when a page's move list is drawn."""

    game: GameSummary
    record: tuple[str, ...]
    movers: tuple[int, ...]  # the seat that made each move
    times: tuple[datetime, ...]  # when each move was made
    #: each ply's board version (`board_tags[n]`: after n moves): a picture's address
    #: holds it, so a cached picture is never stale
    board_tags: tuple[str, ...]
    analysis: WebAnalysis | None
    formats: tuple[str, ...]  # the downloads: json, sgf (Hex and Disthex), gif
    #: by seat: whether the player has a page here the seat's name links to
    pages: tuple[bool, ...] = ()

    @property
    def moves(self) -> tuple[WebMove, ...]:
        """The moves with their times and who played them."""
        name = self.game.name_of_seat
        return tuple(
            WebMove(ply, seat, name(seat), text, at)
            for ply, seat, text, at in zip(
                range(1, len(self.record) + 1), self.movers, self.record, self.times, strict=True
            )
        )


@dataclass(frozen=True, slots=True)
class WebBoard:
    """A board picture's version; its PNG unless the asker has that version already."""

    tag: str
    png: bytes | None


@dataclass(slots=True)
class _Kept:
    """A game's page as read (`WebGame`): what it was read from (its row's version, the
    names, the caption), its record, when it was read, and the analysis job it shows."""

    version: tuple[Any, ...]
    found: WebGame
    record: tuple[str, ...]
    row: Any  # as last read (`_WEB_ROW`), and the summary
    summary: GameSummary
    read_at: float  # time.monotonic()
    analysis_job: int | None = None


#: A game's row for its page, with the id of its finished analysis of the last position
#: (None while there is none): whether an analysis came is seen at every read of the
#: row, without a query of its own.
_WEB_ROW = sa.select(
    games,
    sa.select(ai_jobs.c.id)
    .where(
        ai_jobs.c.game_id == games.c.id,
        ai_jobs.c.kind == "analysis",
        ai_jobs.c.ply == games.c.ply,
        ai_jobs.c.done == sa.true(),
    )
    .scalar_subquery()
    .label("analysed"),
).where(games.c.id == sa.bindparam("game_id"))


class WebPages:
    """The web's reading use cases."""

    def __init__(self, records: Records) -> None:
        self.records = records
        self.db = records.db
        self.painter = records.painter
        # why this process serves no pages though WEB_PORT is set (its port taken: the
        # pages there are another process's), as the web adapter found at its start
        self.pages_unserved: str | None = None
        # the places, by guild id or link token: (when read, place or None)
        self._web_places: OrderedDict[int | str, tuple[float, WebPlace | None]] = OrderedDict()
        # the games' pages as read: a game's record, times and board versions, read again
        # only when its row, names or caption change
        self._web_games: SizedCache[int, Any] = SizedCache(
            records.settings.web_cache_mb * 2**20, web_game_bytes
        )
        records.state_listeners.append(self._game_changed)
        records.changes.listeners.append(self._game_changed)  # another process's change
        # the reads under way, shared by the requests that want the same thing (until a
        # change to what they read is heard: `_current`)
        self._web_reading: dict[Any, asyncio.Future[Any]] = {}
        # the GIF replays: (game id, record, names) -> GIF
        self._gifs: OrderedDict[tuple[int, tuple[str, ...], tuple[str, ...]], bytes] = OrderedDict()

    def forget_places(self) -> None:
        """A server's pages changed (on, off, public, link): read every place again."""
        self._web_places.clear()
        self._drop_readings(lambda key: key[0] == "place")

    def _game_changed(self, game_id: int) -> None:
        """A game changed: its page as kept is forgotten, and so is a reading of it under
        way, which began before the change (asked from now on, it is read again)."""
        self._web_games.forget(game_id)
        self._drop_readings(lambda key: key[0] == "game" and key[-1] == game_id)

    def _drop_readings(self, which: Callable[[Any], bool]) -> None:
        """The readings under way whose key is `which` are shared with no one who asks
        from now on, and what they read is not kept (`_current`)."""
        for key in [key for key in self._web_reading if which(key)]:
            del self._web_reading[key]

    def _current(self, key: Hashable) -> bool:
        """In a reading started by `_read_once`: no change to what it reads was heard
        since it began (what it read may be kept)."""
        return self._web_reading.get(key) is asyncio.current_task()

    async def web_place(self, guild_id: int) -> WebPlace | None:
        """Where a server's pages are; None while they are off (read at most every
        PLACE_SECONDS)."""
        check_ids(guild_id)
        return await self._place_kept(guild_id, partial(self._read_web_place, guild_id))

    async def web_place_of_token(self, token: str) -> WebPlace | None:
        """The server whose link-mode address holds `token` (its pages may since have gone
        public: the place says so); None for an unknown token or pages turned off."""
        if not TOKEN.fullmatch(token):
            return None
        return await self._place_kept(token, partial(self._read_place_of_token, token))

    async def _place_kept(
        self, key: int | str, read: Callable[[], Awaitable[WebPlace | None]]
    ) -> WebPlace | None:
        """Where the pages of a server (its id, or a link token) are: read again when
        older than PLACE_SECONDS."""
        kept = self._web_places.get(key)
        if kept is not None and time.monotonic() - kept[0] < PLACE_SECONDS:
            return kept[1]
        return await self._read_once(("place", key), partial(self._read_place, key, read))

    async def _read_place(
        self, key: int | str, read: Callable[[], Awaitable[WebPlace | None]]
    ) -> WebPlace | None:
        now = time.monotonic()
        place = await read()
        if self._current(("place", key)):
            _keep(self._web_places, key, (now, place), PLACES_KEPT)
        return place

    async def _read_once(self, key: Hashable, read: Callable[[], Awaitable[T]]) -> T:
        """`read()`, or the same read already under way for `key`: many asking for a page
        (or a board) at once read (or draw) it once."""
        reading = self._web_reading.get(key)
        if reading is None:
            reading = asyncio.ensure_future(read())
            self._web_reading[key] = reading
            reading.add_done_callback(partial(self._read_done, key))
        return cast(T, await asyncio.shield(reading))

    def _read_done(self, key: Hashable, reading: asyncio.Future[Any]) -> None:
        if self._web_reading.get(key) is reading:  # not a newer reading of the same
            del self._web_reading[key]

    async def _read_web_place(self, guild_id: int) -> WebPlace | None:
        async with self.db.read() as conn:
            return (await self.records.load_guild_settings(conn, guild_id)).web_place

    async def _read_place_of_token(self, token: str) -> WebPlace | None:
        c = guild_settings.c
        async with self.db.read() as conn:
            guild_id = await conn.scalar(sa.select(c.guild_id).where(c.web_token == token))
            if guild_id is None:
                return None
            found = (await self.records.load_guild_settings(conn, guild_id)).web_place
        if found is None:
            return None
        return found if found.mode == "link" else WebPlace(guild_id, found.mode, token)

    def watching(self, game_id: int) -> AbstractAsyncContextManager[asyncio.Event]:
        """An event set whenever a transaction of any process changes the game, while the
        block runs (a live page's stream waits on it; core/changes.py)."""
        check_ids(game_id)
        return self.records.changes.watching(game_id)

    async def web_game(self, place: WebPlace, game_id: int) -> WebGame:
        """A game of a server whose pages are on, as its page shows it: the record with
        times and who played, each position's board version, the analysis of a finished
        game (none while a game is under way: that would be engine help). Refused (a 404)
        for a game of another server, or a challenge that never started."""
        kept = await self._kept_game(place, game_id)
        # the summary as read (a bank clock runs), its seats named as in this position
        summary = dataclasses.replace(kept.summary, seat_names=kept.found.game.seat_names)
        return dataclasses.replace(kept.found, game=summary)

    async def _kept_game(self, place: WebPlace, game_id: int) -> _Kept:
        """A game's page as read: as kept when read less than FRESH_SECONDS ago (and no
        name or vacation changed since); else its row read again (once for all asking at
        the same time)."""
        check_ids(game_id)
        kept = self._kept_of(place, game_id)
        if (
            kept is not None
            and time.monotonic() - kept.read_at < FRESH_SECONDS
            and kept.read_at > self.records.rosters_changed
        ):
            return kept
        return await self._read_once(
            ("game", place.guild_id, game_id), partial(self._read_game, place, game_id)
        )

    def _kept_of(self, place: WebPlace, game_id: int) -> _Kept | None:
        """A game's page as read and kept, however long ago, when it is this server's."""
        kept: _Kept | None = self._web_games.get(game_id)
        return kept if kept is not None and kept.row.guild_id == place.guild_id else None

    async def _read_game(self, place: WebPlace, game_id: int) -> _Kept:
        """A game's page read: as kept while its row, names and caption are unchanged,
        else its moves with their times read again (and replayed only where a move can
        rename the seats: Hex's swap); a finished game's analysis read when the row says
        one came (one query for the row and that)."""
        now = time.monotonic()
        kept: _Kept | None = self._web_games.get(game_id)
        async with self.db.read() as conn:
            row = (await conn.execute(_WEB_ROW, {"game_id": game_id})).one_or_none()
            if row is None or row.guild_id != place.guild_id or row.status not in SHOWN:
                raise _no_game(game_id)
            summary = await self.records.summary(conn, game_id, row)
            version = (row.updated_at, row.ply, row.status, board_names(summary),
                       deadline_caption(summary), seat_pages(summary))  # fmt: skip
            if kept is None or kept.version != version:
                entries = await self.records.timed_moves(conn, game_id)
                record = tuple(e.text for e in entries)
                named = summary  # the seats' names at the start are theirs throughout
                if engine.GAMES[row.game].renames_seats:
                    state = await self.records.load_state(conn, row, record, keep=False)
                    record, named = state.moves, seat_names_now(summary, state)
                found = _web_game(row, named, record, entries)
                kept = _Kept(version, found, record, row, summary, now)
            kept.row, kept.summary, kept.read_at = row, summary, now
            if row.status == "finished" and row.analysed not in (None, kept.analysis_job):
                kept.analysis_job = row.analysed  # it came since the last read
                job = await aiqueue.job_row(conn, game_id, "analysis", row.ply)
                if job is not None and job.done and job.result:
                    lines = tuple(str(job.result.get("text", "")).splitlines())
                    came = WebAnalysis(lines, bool(job.png))
                    kept.found = dataclasses.replace(kept.found, analysis=came)
        if self._current(("game", place.guild_id, game_id)):  # not changed while read
            self._web_games.keep(game_id, kept)
        return kept

    async def web_board(
        self,
        place: WebPlace,
        game_id: int,
        ply: int,
        *,
        known: str | None = None,
        version: str | None = None,
        scale: int = 1,
    ) -> WebBoard:
        """The board after `ply` moves of a game a page shows (`scale` 2: at twice the
        pixels, for high-DPI screens; the same version); no PNG when `known` is its
        version already (the asker's cached copy: nothing drawn, nothing replayed). Drawn in
        the drawing workers, and cached like every board. Asked by its `version` (the
        address holding it) that a kept reading of the game has, it is answered from that
        reading without a query: a version's picture never changes."""
        check_ids(ply)
        kept = self._kept_of(place, game_id)
        if (
            version is None
            or kept is None
            or not 0 <= ply <= len(kept.record)
            or kept.found.board_tags[ply] != version
        ):
            kept = await self._kept_game(place, game_id)
        row, summary = kept.row, kept.summary
        record = kept.record
        if not 0 <= ply <= len(record):
            raise _no_game(game_id)
        tag = kept.found.board_tags[ply]
        if known == tag:
            return WebBoard(tag, None)
        caption = deadline_caption(summary) if ply == len(record) else None
        key = board_key(game_id, record[:ply], False, caption, board_names(summary), scale)
        png = self.records.drawn_board(key)
        if png is None:  # the pages watching a game all ask for its new board at once

            async def draw() -> bytes:
                then = await replay(row.game, row.options, record[:ply])
                return await self.records.render(game_id, then, summary, groups=False, scale=scale)

            png = await self._read_once(("board", key), draw)
        return WebBoard(tag, png)

    async def analysis_chart(self, place: WebPlace, game_id: int) -> bytes:
        """The chart of a finished game's stored analysis; refused when there is none."""
        check_ids(game_id)
        async with self.db.read() as conn:
            row = await self.records.game_row(conn, game_id, place.guild_id)
            job = (
                await aiqueue.job_row(conn, game_id, "analysis", row.ply)
                if row.status == "finished"
                else None
            )
        if job is None or not job.done or not job.png:
            raise _no_game(game_id)
        return bytes(job.png)

    async def web_download(self, place: WebPlace, game_id: int, fmt: str) -> ExportFile:
        """A game's file for its page: its record (`json`, `sgf`: exports.py) or its GIF
        replay (`gif`, drawn once per record in the slow drawing lane and kept)."""
        async with self.db.read() as conn:
            row, summary, state = await self._shown(conn, place, game_id)
            if fmt != "gif":
                return await export_file(self.records, conn, row, fmt)
        key = (game_id, state.moves, board_names(summary))
        gif = self._gifs.get(key)
        if gif is None:
            gif = await self.painter.gif(state, players=board_names(summary))
            _keep(self._gifs, key, gif, GIFS_KEPT)
        return ExportFile(f"{row.game}-{game_id}.gif", gif)

    async def _shown(
        self, conn: AsyncConnection, place: WebPlace, game_id: int
    ) -> tuple[Any, GameSummary, GameState]:
        """A game a page shows: its row, summary and state; refused (a 404) for another
        server's game or a challenge that never started."""
        row, summary = await self._shown_row(conn, place, game_id)
        return row, summary, await self.records.load_state(conn, row)

    async def _shown_row(
        self, conn: AsyncConnection, place: WebPlace, game_id: int
    ) -> tuple[Any, GameSummary]:
        """A game a page shows: its row and summary (`_shown`)."""
        check_ids(game_id)
        row = await self.records.game_row(conn, game_id, place.guild_id)
        if row.status not in SHOWN:
            raise _no_game(game_id)
        return row, await self.records.summary(conn, game_id, row)


def _web_game(row: Any, summary: GameSummary, record: tuple[str, ...], entries: Any) -> WebGame:
    """A game's page from its row, summary (its seats named as now), record and timed
    moves (no analysis yet)."""
    formats = ("json", "sgf", "gif") if row.game in SGF_GAMES else ("json", "gif")
    tags = tuple(board_tags(summary, record, len(record)))
    movers = tuple(e.seat for e in entries)
    times = tuple(e.created_at for e in entries)
    return WebGame(summary, record, movers, times, tags, None, formats, seat_pages(summary))


def has_page(player_id: int, profile: bool | None, bot_level: str | None) -> bool:
    """Whether a player has a page on the web: a person (not the bot) whose profile is
    on."""
    return bool(profile) and bot_level is None and player_id not in BOT_ID_RANGE


def seat_pages(summary: GameSummary) -> tuple[bool, ...]:
    """By seat: whether its player has a page (`has_page`); an open seat has none."""
    return tuple(
        s.player_id is not None and has_page(s.player_id, s.web_profile, s.bot)
        for s in summary.seats
    )


def board_tags(summary: GameSummary, record: tuple[str, ...], last: int) -> list[str]:
    """The versions of the boards after 0 to `last` moves of `record`: what each is drawn
    from (the names, the record so far; the caption under the last position), hashed as a
    chain, so a whole game's versions cost one pass over its record."""
    chain = hashlib.blake2b(repr((summary.id, board_names(summary))).encode(), digest_size=9)
    tags = []
    for ply in range(last + 1):
        if ply:
            chain.update(b"\x00" + record[ply - 1].encode())
        if ply == len(record):  # the position now: its caption (the deadline) too
            final = chain.copy()
            final.update(repr(deadline_caption(summary)).encode())
            tags.append(final.hexdigest())
        else:
            tags.append(chain.hexdigest())
    return tags


def _keep(cache: OrderedDict[K, V], key: K, value: V, size: int) -> None:
    """`value` the newest in `cache`, which keeps the `size` newest."""
    cache[key] = value
    cache.move_to_end(key)
    while len(cache) > size:
        cache.popitem(last=False)


def _no_game(game_id: int) -> Refused:
    return Refused(f"There is no game #{game_id} here.", code=ServiceCode.NO_GAME)
