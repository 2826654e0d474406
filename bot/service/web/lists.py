"""What the web's other pages read (bot/web): a server's games under way and finished
(paged, of one game, of one player), its leaderboards and events; an event's tables,
rounds and bracket; a player's page; the rules pages' pictures.

Each list is one query on an index with a LIMIT (migration 0014: a server's games by
status, or by game and status, newest first; a player's games newest first) and pages
by key: `before` is the id the next page starts below, so the thousandth page costs what
the first does. Names come from one more query for the page's games. Every value is
bound, never written into SQL.

Privacy: only the games of the server asked, started (a challenge never accepted has no
page); a player's page only while their profile is on (`players.web_profile`), and a
hidden player is named as text, never linked, and left off the web's leaderboards.
Nothing here reads analyses, hints or conditional moves.
"""

from __future__ import annotations

import time
from collections import OrderedDict, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

import engine
from bot.events import FORMAT_TITLES, Format
from bot.render.tables import Bracket, Crosstable, StandingsTable
from bot.service.core import ratings
from bot.service.core.messages import bot_record_lines, game_info, rating_text
from bot.service.core.models import Refused, ServiceCode, WebPlace
from bot.service.core.records import Records
from bot.service.core.rules import check_ids, outcome_words
from bot.service.events.store import EventStore
from bot.service.events.words import points_text, result_words
from bot.service.play.aiplayer import bot_records
from bot.service.web.models import (
    WebBracketMatch,
    WebCrosstable,
    WebEvent,
    WebEventLine,
    WebGameLine,
    WebGameList,
    WebLeader,
    WebLeaderboard,
    WebName,
    WebPairing,
    WebPlayer,
    WebRound,
    WebStanding,
    WebTable,
)
from bot.service.web.pages import SHOWN, has_page
from bot.store.schema import entrants, games, pairings, players, seats, tournament_rounds
from bot.store.schema import tournaments as events

#: Games a page of a list shows.
PAGE = 20
#: A player's recent games on their page.
RECENT = 10
#: Players on each game's leaderboard.
LEADERS = 10
#: How long a server's leaderboards are kept for its page, and for how many servers.
LEADERBOARD_SECONDS = 30.0
LEADERBOARDS_KEPT = 1_000
#: Events listed on the server's page, the newest first.
EVENTS_LISTED = 30
#: A ladder's challenges shown, the newest first.
CHALLENGES_SHOWN = 50
#: The lists' statuses: games under way, games finished (and, in it, those called off).
ListStatus = Literal["active", "finished"]
LISTED = {"active": ("active",), "finished": ("finished", "aborted")}
#: The gallery's pictures of each game, in the order a rules page shows them.
STAGES = ("opening", "middle", "finished")


class WebReads:
    """The web's lists, tables and player pages."""

    def __init__(self, records: Records, store: EventStore) -> None:
        self.records = records
        self.store = store
        self.db = records.db
        self.painter = records.painter
        # the leaderboards: guild id -> (when read, boards)
        self._leaderboards: OrderedDict[int, tuple[float, tuple[Any, ...]]] = OrderedDict()

    # -- a server's games ------------------------------------------------------------------

    async def web_games(
        self,
        place: WebPlace,
        status: ListStatus | None,
        *,
        game: str | None = None,
        player_id: int | None = None,
        before: int | None = None,
        limit: int | None = None,
    ) -> WebGameList:
        """A page of a server's games of `status` (None: every game shown; `finished`: those
        called off too), newest first: of one `game`, of one player (refused for a player
        without a page here), below the id `before`. A query per status (each reads its
        index in order; `status IN` sorts every row)."""
        if game is not None:
            game_info(game)
        check_ids(*(x for x in (player_id, before) if x is not None))
        limit = max(1, min(PAGE if limit is None else limit, 100))
        key = games.c.id
        query = sa.select(
            games.c.id,
            games.c.game,
            games.c.status,
            games.c.ply,
            games.c.to_move,
            games.c.winners,
            games.c.reason,
            games.c.rated,
            games.c.tournament_id,
            games.c.tournament_round,
            games.c.updated_at,
        ).where(games.c.guild_id == place.guild_id)
        if player_id is not None:
            key = seats.c.game_id
            query = query.select_from(seats.join(games, games.c.id == seats.c.game_id)).where(
                seats.c.player_id == player_id
            )
        if game is not None:
            query = query.where(games.c.game == game)
        if before is not None:
            query = query.where(key < before)
        query = query.order_by(key.desc()).limit(limit + 1)
        listed = LISTED[status] if status is not None else ()
        wheres = [games.c.status == s for s in listed] or [games.c.status.in_(SHOWN)]
        async with self.db.read() as conn:
            if player_id is not None:
                await self._web_person(conn, place, player_id)
            rows = [r for where in wheres for r in (await conn.execute(query.where(where))).all()]
            rows.sort(key=lambda r: r.id, reverse=True)
            shown = rows[:limit]
            names = await self._seat_names(conn, [r.id for r in shown])
            lines = [await self._game_line(conn, r, names.get(r.id, ())) for r in shown]
        more = shown[-1].id if len(rows) > limit else None
        return WebGameList(tuple(lines), more)

    async def web_player_name(self, place: WebPlace, player_id: int) -> WebName:
        """A player who has a page here (a filter's heading); refused for anyone else."""
        check_ids(player_id)
        async with self.db.read() as conn:
            return await self._web_person(conn, place, player_id)

    async def web_leaderboards(self, place: WebPlace) -> tuple[WebLeaderboard, ...]:
        """Each game's leaderboard on the server (the games with rated players), without
        the players whose profile is hidden; kept `LEADERBOARD_SECONDS` (each sorts the
        server's rated players)."""
        kept = self._leaderboards.get(place.guild_id)
        now = time.monotonic()
        if kept is not None and now - kept[0] < LEADERBOARD_SECONDS:
            return kept[1]
        boards = []
        async with self.db.read() as conn:
            for name, info in engine.GAMES.items():
                lines = await ratings.leaderboard(
                    conn, place.guild_id, name, LEADERS, profiles_only=True
                )
                if lines:
                    leaders = tuple(
                        WebLeader(
                            i, WebName(r.player_id, r.name, True), rating_text(r), r.games, r.wins
                        )
                        for i, r in enumerate(lines, 1)
                    )
                    boards.append(WebLeaderboard(name, info.title, leaders))
        self._leaderboards[place.guild_id] = (now, tuple(boards))
        while len(self._leaderboards) > LEADERBOARDS_KEPT:
            self._leaderboards.popitem(last=False)
        return tuple(boards)

    async def web_events(self, place: WebPlace) -> tuple[WebEventLine, ...]:
        """The server's events, the newest first."""
        query = (
            sa.select(events.c.id, events.c.format, events.c.status, events.c.round)
            .where(events.c.guild_id == place.guild_id)
            .order_by(events.c.id.desc())
            .limit(EVENTS_LISTED)
        )
        async with self.db.read() as conn:
            rows = (await conn.execute(query)).all()
            return tuple(
                [
                    WebEventLine(
                        r.id,
                        await self.records.event_title(conn, r.id),
                        FORMAT_TITLES[Format(r.format)],
                        r.status,
                        r.round,
                    )
                    for r in rows
                ]
            )

    # -- a player --------------------------------------------------------------------------

    async def web_player(self, place: WebPlace, player_id: int) -> WebPlayer:
        """A player's page: their ratings here, their record against the bot's levels,
        their latest games. Refused (a 404) for a hidden profile, the bot, or someone who
        never played or entered an event here."""
        check_ids(player_id)
        async with self.db.read() as conn:
            who = await self._web_person(conn, place, player_id)
            rated = await ratings.of_player(conn, place.guild_id, player_id, None)
            casual = await bot_records(conn, place.guild_id, player_id)
        recent = await self.web_games(place, None, player_id=player_id, limit=RECENT)
        return WebPlayer(who, tuple(rated), tuple(bot_record_lines(casual, against=True)), recent)

    # -- an event --------------------------------------------------------------------------

    async def web_event(self, place: WebPlace, event_id: int, round_asked: int | None) -> WebEvent:
        """An event's page: its tables (standings with tiebreaks, a ladder's order), its
        crosstables, a knockout's bracket, and the games of one round (`round_asked`, else
        the current one; a round robin's every round, a ladder's latest challenges).
        Refused for another server's event, or a round it never had."""
        check_ids(event_id, *(() if round_asked is None else (round_asked,)))
        async with self.db.read() as conn:
            row = await self.store.event_row(conn, event_id, place.guild_id, lock=False)
            summary = await self.store.event_summary(conn, row.id)
            kind = Format(row.format)
            numbers = await self._round_numbers(conn, row, kind)
            if round_asked is not None and round_asked not in numbers:
                raise Refused(f"There is no round {round_asked} here.", code=ServiceCode.NO_EVENT)
            shown = round_asked
            if shown is None and kind is not Format.ROUND_ROBIN and numbers:
                shown = numbers[-1]
            people = await self._event_people(conn, row.id)
            tables, crosses, bracket = await self.store.event_tables(conn, row, ids=True)
            listed = await self._pairings_shown(conn, row, kind, shown)
            matches = (
                await self._pairings_shown(conn, row, kind, None)
                if kind is Format.KNOCKOUT
                else listed
            )
            byes = await self.store.event_byes(conn, row.id)

        names = {i: isolated(person.name) for i, person in people.items()}
        rounds: dict[int, list[WebPairing]] = defaultdict(list)
        for p in listed:
            rounds[p.round].append(_pairing(p, people, names))
        bye_of = {b.round: b.player for b in byes}
        for number in bye_of:
            if (shown is None or number == shown) and kind is not Format.LADDER:
                rounds.setdefault(number, [])
        return WebEvent(
            event=summary,
            tables=tuple(_web_table(t, people, kind, row.status) for t in tables),
            crosstables=tuple(_web_crosstable(c, people) for c in crosses),
            bracket=None if bracket is None else _web_bracket(bracket, people, matches),
            rounds=tuple(
                WebRound(
                    n,
                    tuple(rounds[n]),
                    _person(people, bye_of[n]) if n in bye_of else None,
                )
                for n in sorted(rounds, reverse=kind is Format.LADDER)
            ),
            shown=shown,
            numbers=numbers,
        )

    async def _round_numbers(
        self, conn: AsyncConnection, row: Any, kind: Format
    ) -> tuple[int, ...]:
        """The rounds an event's page may show (a ladder's challenges are round 0)."""
        if kind is Format.LADDER:
            return (0,) if row.status != "open" else ()
        found = await conn.scalars(
            sa.select(tournament_rounds.c.number)
            .where(tournament_rounds.c.tournament_id == row.id)
            .order_by(tournament_rounds.c.number)
        )
        numbers = tuple(found)
        if kind is Format.ROUND_ROBIN:  # every round was paired at the start
            rounds = await conn.scalars(
                sa.select(pairings.c.round).distinct().where(pairings.c.tournament_id == row.id)
            )
            numbers = tuple(sorted(set(numbers) | set(rounds)))
        return numbers

    async def _pairings_shown(
        self, conn: AsyncConnection, row: Any, kind: Format, number: int | None
    ) -> Sequence[Any]:
        """The games of round `number` (None: every round), with each game's status."""
        query = (
            sa.select(pairings, games.c.status)
            .select_from(pairings.outerjoin(games, games.c.id == pairings.c.game_id))
            .where(pairings.c.tournament_id == row.id)
        )
        if number is not None:
            query = query.where(pairings.c.round == number)
        if kind is Format.LADDER:
            return (
                await conn.execute(query.order_by(pairings.c.id.desc()).limit(CHALLENGES_SHOWN))
            ).all()
        order = (pairings.c.round, pairings.c.division, pairings.c.match, pairings.c.id)
        return (await conn.execute(query.order_by(*order))).all()

    async def _event_people(self, conn: AsyncConnection, event_id: int) -> dict[int, WebName]:
        """An event's entrants as its page names them."""
        rows = await conn.execute(
            sa.select(players.c.id, players.c.name, players.c.web_profile, entrants.c.bot_level)
            .select_from(entrants.join(players, players.c.id == entrants.c.player_id))
            .where(entrants.c.tournament_id == event_id)
        )
        return {
            r.id: WebName(r.id, r.name, has_page(r.id, r.web_profile, r.bot_level)) for r in rows
        }

    # -- the rules pages' pictures ---------------------------------------------------------

    async def rules_picture(self, game: str, stage: str) -> bytes:
        """The gallery's picture of `game` at `stage` (opening, middle, finished): drawn
        once in the slow drawing lane, then kept (it never changes while the process
        runs). Refused for an unknown game or stage."""
        game_info(game)
        if stage not in STAGES:
            raise Refused(f"There is no picture {stage[:20]!r}.", code=ServiceCode.NO_GAME)
        return await self.painter.gallery(game, stage)

    # -- helpers ---------------------------------------------------------------------------

    async def _web_person(self, conn: AsyncConnection, place: WebPlace, player_id: int) -> WebName:
        """A player with a page here: a person (not the bot) whose profile is on and who
        played a game or entered an event on this server; refused for anyone else."""
        row = (
            await conn.execute(
                sa.select(players.c.name, players.c.web_profile).where(players.c.id == player_id)
            )
        ).one_or_none()
        if row is not None and has_page(player_id, row.web_profile, None):
            played = await conn.scalar(
                sa.select(games.c.id)
                .select_from(seats.join(games, games.c.id == seats.c.game_id))
                .where(
                    seats.c.player_id == player_id,
                    games.c.guild_id == place.guild_id,
                    games.c.status.in_(SHOWN),
                )
                .limit(1)
            )
            entered = played is not None or await conn.scalar(
                sa.select(entrants.c.tournament_id)
                .select_from(entrants.join(events, events.c.id == entrants.c.tournament_id))
                .where(entrants.c.player_id == player_id, events.c.guild_id == place.guild_id)
                .limit(1)
            )
            if entered:
                return WebName(player_id, row.name, True)
        raise Refused("There is no such player here.", code=ServiceCode.NO_GAME)

    async def _seat_names(
        self, conn: AsyncConnection, game_ids: Sequence[int]
    ) -> dict[int, tuple[WebName, ...]]:
        """The players of these games by seat."""
        if not game_ids:
            return {}
        rows = await conn.execute(
            sa.select(
                seats.c.game_id,
                seats.c.player_id,
                seats.c.bot_level,
                players.c.name,
                players.c.web_profile,
            )
            .select_from(seats.outerjoin(players, players.c.id == seats.c.player_id))
            .where(seats.c.game_id.in_(game_ids))
            .order_by(seats.c.game_id, seats.c.seat)
        )
        found: dict[int, list[WebName]] = defaultdict(list)
        for r in rows:
            found[r.game_id].append(
                WebName(
                    r.player_id,
                    r.name or "open seat",
                    r.player_id is not None and has_page(r.player_id, r.web_profile, r.bot_level),
                )
            )
        return {game_id: tuple(names) for game_id, names in found.items()}

    async def _game_line(
        self, conn: AsyncConnection, row: Any, names: tuple[WebName, ...]
    ) -> WebGameLine:
        event = None
        if row.tournament_id is not None:
            step = f"round {row.tournament_round}" if row.tournament_round else "challenge"
            event = f"{await self.records.event_title(conn, row.tournament_id)} · {step}"

        def name_of_seat(seat: int) -> str:
            return isolated(names[seat].name if seat < len(names) else "?")

        finished = row.status == "finished"
        return WebGameLine(
            id=row.id,
            game=row.game,
            title=engine.GAMES[row.game].title,
            status=row.status,
            ply=row.ply,
            players=names,
            to_move=row.to_move if row.status == "active" else None,
            result=outcome_words(row.winners or (), row.reason, name_of_seat) if finished else None,
            event=event,
            event_id=row.tournament_id,
            rated=row.rated,
            at=row.updated_at,
        )


def isolated(name: str) -> str:
    """A name inside a sentence, isolated (U+2068 ... U+2069): a right-to-left mark in it
    turns the name around, never the words after it."""
    return f"\u2068{name}\u2069"


def _person(people: Mapping[int, WebName], player_id: int) -> WebName:
    return people.get(player_id) or WebName(player_id, "?", False)


def _named(people: Mapping[int, WebName], text: str | None) -> WebName | None:
    """The entrant a table row names by id (`EventStore.event_tables(ids=True)`); None for
    nobody (a bye, a player not yet known)."""
    if text is None or not text.lstrip("-").isdecimal():
        return None
    return _person(people, int(text))


def _web_table(
    table: StandingsTable, people: Mapping[int, WebName], kind: Format, status: str
) -> WebTable:
    # a ladder's order, a knockout's places: no points to show
    scored = kind not in (Format.LADDER, Format.KNOCKOUT) and status != "open"
    rows = tuple(
        WebStanding(
            row.place,
            _named(people, row.name) or WebName(None, row.name, False),
            points_text(row.score) if scored else "",
            tuple(f"{value:g}" for value in row.tiebreaks),
            row.games_left,
            row.note,
        )
        for row in table.rows
    )
    return WebTable(table.title, table.tiebreak_names, rows, scored)


def _web_crosstable(table: Crosstable, people: Mapping[int, WebName]) -> WebCrosstable:
    return WebCrosstable(
        table.title,
        tuple(_named(people, name) or WebName(None, name, False) for name in table.names),
        table.cells,
    )


def _web_bracket(
    bracket: Bracket, people: Mapping[int, WebName], played: Iterable[Any]
) -> tuple[tuple[WebBracketMatch, ...], ...]:
    """The bracket's rounds, each match with its games (round numbers count from 1)."""
    games_of: dict[tuple[int, int], list[int]] = defaultdict(list)
    for p in played:
        if p.game_id is not None and p.match is not None and p.status in SHOWN:
            games_of[p.round, p.match].append(p.game_id)
    return tuple(
        tuple(
            WebBracketMatch(
                _named(people, m.top),
                _named(people, m.bottom),
                m.score,
                m.winner,
                tuple(games_of[number, index]),
            )
            for index, m in enumerate(matches)
        )
        for number, matches in enumerate(bracket.rounds, 1)
    )


def _pairing(p: Any, people: Mapping[int, WebName], names: Mapping[int, str]) -> WebPairing:
    if p.done:
        state = result_words(p, names)
    else:
        state = "under way" if p.status == "active" else "not accepted yet"
    return WebPairing(
        _person(people, p.first_id),
        _person(people, p.second_id),
        p.game_id if p.status in SHOWN else None,
        state,
        p.round,
        p.division,
        p.match,
    )
