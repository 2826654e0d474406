"""An event's rows: reading and writing its entrants, rounds, pairings and games, its
summary and its tables.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import Sequence
from datetime import datetime
from functools import partial
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

import engine
from bot.events import (
    FORMAT_TITLES,
    Bye,
    Format,
    GameResult,
    Match,
    MatchRules,
    Pairing,
    match_state,
)
from bot.render.tables import Bracket, BracketMatch, Crosstable, StandingRow, StandingsTable
from bot.service.core import banks
from bot.service.core.models import (
    ChallengeIssued,
    EntrantLine,
    GameStarted,
    Player,
    Refused,
    Result,
    ServiceCode,
    TournamentNews,
    TournamentSummary,
)
from bot.service.core.records import Records, new_state
from bot.service.core.rules import check_ids
from bot.service.core.turns import Turns
from bot.service.events.words import (
    by_place,
    game_result,
    points_text,
    scored_tables,
    standing,
)
from bot.store.schema import (
    deadlines,
    entrants,
    games,
    pairings,
    players,
    ratings,
    seats,
    tournament_rounds,
    tournaments,
)

log = logging.getLogger("paperboard.tournaments")

#: An event with more games than this has its tables scored off the event loop (a
#: 1,000-player Swiss after six rounds: ~50 ms of scoring).
BIG_EVENT = 400


class EventStore:
    """An event's rows, read and written in the caller's transaction."""

    def __init__(self, records: Records, turns: Turns) -> None:
        self.records = records
        self.turns = turns
        self.clock = records.clock

    # == storage helpers =====================================================================

    async def open_game(
        self,
        conn: AsyncConnection,
        row: Any,
        number: int,
        pairing: Pairing,
        *,
        division: int = 0,
        match: int | None = None,
        until: datetime | None = None,
        by: Player | None = None,
    ) -> Result:
        """A game of the event starts at once, as any game does (its first turn, its
        deadline, the bot's move if it is to play); its result announces it. A ladder's
        challenge (`until`, issued `by` its challenger) waits instead, open, for the second
        player to accept it until then (the `expire` deadline); the bot accepts at once."""
        now = self.clock()
        bots = dict(
            (
                await conn.execute(
                    sa.select(entrants.c.player_id, entrants.c.bot_level).where(
                        entrants.c.tournament_id == row.id, entrants.c.bot_level.is_not(None)
                    )
                )
            ).all()
        )
        state = await new_state(row.game, row.options)
        with_bot = pairing.first in bots or pairing.second in bots
        inserted = await conn.execute(
            games.insert()
            .values(
                guild_id=row.guild_id,
                channel_id=row.channel_id,
                game=row.game,
                options=dict(row.options),
                rules_version=engine.GAMES[row.game].version,
                status="active" if until is None else "open",
                ply=0,
                to_move=state.to_move if until is None else None,
                challenger_id=row.organizer_id if by is None else by.id,
                days_per_move=row.days_per_move,
                time_control=row.time_control,
                first="challenger",
                rated=row.rated and not with_bot,  # games against the bot are casual
                created_at=now,
                updated_at=now,
                started_at=now if until is None else None,
                expires_at=until,
                tournament_id=row.id,
                tournament_round=number,
            )
            .returning(games.c.id)
        )
        game_id = int(inserted.scalar_one())
        await conn.execute(
            seats.insert(),
            [
                {
                    "game_id": game_id,
                    "seat": seat,
                    "player_id": player,
                    "accepted": until is None or seat == 0 or player in bots,
                    "bot_level": bots.get(player),
                }
                for seat, player in enumerate(pairing.players)
            ],
        )
        await conn.execute(
            pairings.insert().values(
                tournament_id=row.id,
                round=number,
                division=division,
                match=match,
                first_id=pairing.first,
                second_id=pairing.second,
                game_id=game_id,
            )
        )
        if until is not None and by is not None:
            await conn.execute(
                deadlines.insert().values(game_id=game_id, kind="expire", ply=0, due_at=until)
            )
            issued = ChallengeIssued(
                game_id, challenger=by, invited=(pairing.second,), open_seats=0
            )
            # the bot accepts at once
            started = await self.turns.start_if_full(
                conn, await self.records.game_row(conn, game_id, row.guild_id)
            )
            return Result(await self.records.summary(conn, game_id), (issued, *started))
        self.records.cache_state(game_id, now, state)
        summary = await self.records.summary(conn, game_id)
        control = banks.control_of(row)
        start_banks = None if control is None else [banks.micros(control.initial)] * 2
        turn = await self.turns.start_turn(conn, game_id, summary, state, start_banks)
        summary = await self.records.summary(conn, game_id)
        return Result(summary, (GameStarted(game_id, pairing.players), turn))

    async def insert_round(
        self,
        conn: AsyncConnection,
        tournament_id: int,
        number: int,
        *,
        bye: int | None = None,
        matches: list[list[int | None]] | None = None,
        division: int = 0,
    ) -> None:
        """A round's row; its primary key makes a second pairing of it fail."""
        if division:  # a league's divisions share their season's row
            return
        await conn.execute(
            tournament_rounds.insert().values(
                tournament_id=tournament_id,
                number=number,
                bye_id=bye,
                matches=matches,
                started_at=self.clock(),
            )
        )

    async def result(self, conn: AsyncConnection, news: TournamentNews) -> Result:
        return Result(await self.records.summary(conn, news.game_id), (news,))

    async def event_row(
        self, conn: AsyncConnection, tournament_id: int, guild_id: int, *, lock: bool = True
    ) -> Any:
        check_ids(tournament_id)
        statement = sa.select(tournaments).where(tournaments.c.id == tournament_id)
        if lock:
            statement = statement.with_for_update()
        row = (await conn.execute(statement)).one_or_none()
        if row is None or row.guild_id != guild_id:
            raise Refused(f"There is no event #{tournament_id} here.", code=ServiceCode.NO_EVENT)
        return row

    async def fresh(self, conn: AsyncConnection, tournament_id: int) -> Any:
        """The event's row as this transaction now sees it."""
        return (
            await conn.execute(sa.select(tournaments).where(tournaments.c.id == tournament_id))
        ).one()

    async def may_run(self, conn: AsyncConnection, row: Any, by: Player, manages: bool) -> None:
        """The organizer runs their event; a manager runs any (an organizer who left the
        server leaves their event to the managers)."""
        if by.id != row.organizer_id and not manages:
            title = await self.title(conn, row)
            raise Refused(
                f"Only the organizer of {title} or a member who can manage the server runs it.",
                code=ServiceCode.NOT_ADMIN,
            )

    async def title(self, conn: AsyncConnection, row: Any) -> str:
        return await self.records.event_title(conn, row.id)

    async def rounds(self, conn: AsyncConnection, tournament_id: int) -> list[Any]:
        """The event's stored rounds, in order."""
        return list(
            (
                await conn.execute(
                    sa.select(tournament_rounds)
                    .where(tournament_rounds.c.tournament_id == tournament_id)
                    .order_by(tournament_rounds.c.number)
                )
            ).all()
        )

    async def entrants(self, conn: AsyncConnection, tournament_id: int) -> list[Any]:
        return list(
            (
                await conn.execute(
                    sa.select(entrants)
                    .where(entrants.c.tournament_id == tournament_id)
                    .order_by(entrants.c.seq)
                )
            ).all()
        )

    async def names(self, conn: AsyncConnection, tournament_id: int) -> dict[int, str]:
        rows = await conn.execute(
            sa.select(players.c.id, players.c.name)
            .select_from(entrants.join(players, players.c.id == entrants.c.player_id))
            .where(entrants.c.tournament_id == tournament_id)
        )
        return {r.id: r.name for r in rows}

    async def set_entrant(
        self, conn: AsyncConnection, tournament_id: int, player: int, **values: Any
    ) -> None:
        await conn.execute(
            entrants.update()
            .where(entrants.c.tournament_id == tournament_id, entrants.c.player_id == player)
            .values(**values)
        )

    async def seed(self, conn: AsyncConnection, row: Any, listed: Sequence[Any]) -> None:
        """Each entrant's rating in the event's game on this server, kept for seeding."""
        found = dict(
            (
                await conn.execute(
                    sa.select(ratings.c.player_id, ratings.c.mu).where(
                        ratings.c.guild_id == row.guild_id,
                        ratings.c.game == row.game,
                        ratings.c.player_id.in_([e.player_id for e in listed]),
                    )
                )
            ).all()
        )
        for entry in listed:
            mu = found.get(entry.player_id)
            if mu is not None:
                await self.set_entrant(conn, row.id, entry.player_id, rating=float(mu))

    async def results(self, conn: AsyncConnection, tournament_id: int) -> list[GameResult]:
        """The event's finished games in the order they ended."""
        rows = (
            await conn.execute(
                sa.select(pairings)
                .where(pairings.c.tournament_id == tournament_id, pairings.c.done.is_(True))
                .order_by(pairings.c.ended_at, pairings.c.id)
            )
        ).all()
        return [game_result(p) for p in rows]

    async def event_byes(self, conn: AsyncConnection, tournament_id: int) -> list[Bye]:
        rows = await conn.execute(
            sa.select(tournament_rounds.c.number, tournament_rounds.c.bye_id).where(
                tournament_rounds.c.tournament_id == tournament_id,
                tournament_rounds.c.bye_id.is_not(None),
            )
        )
        return [Bye(r.number, r.bye_id) for r in rows]

    async def pending(self, conn: AsyncConnection, tournament_id: int, number: int | None) -> bool:
        """Whether a game of round `number` (None: of any round) is still under way."""
        statement = (
            sa.select(sa.func.count())
            .select_from(pairings)
            .where(pairings.c.tournament_id == tournament_id, pairings.c.done.is_(False))
        )
        if number is not None:
            statement = statement.where(pairings.c.round == number)
        return bool(await conn.scalar(statement))

    async def pending_matches(
        self, conn: AsyncConnection, tournament_id: int, number: int
    ) -> set[int]:
        rows = await conn.scalars(
            sa.select(pairings.c.match).where(
                pairings.c.tournament_id == tournament_id,
                pairings.c.round == number,
                pairings.c.done.is_(False),
            )
        )
        return {m for m in rows if m is not None}

    async def anchor(
        self, conn: AsyncConnection, tournament_id: int, player_id: int | None = None
    ) -> int | None:
        """The latest game of the event (of `player_id` if they have one): what an
        announcement goes with."""
        statement = sa.select(sa.func.max(pairings.c.game_id)).where(
            pairings.c.tournament_id == tournament_id
        )
        if player_id is not None:
            mine = await conn.scalar(
                statement.where(
                    sa.or_(pairings.c.first_id == player_id, pairings.c.second_id == player_id)
                )
            )
            if mine is not None:
                return int(mine)
        found = await conn.scalar(statement)
        return int(found) if found is not None else None

    async def lock_games_of(
        self, conn: AsyncConnection, tournament_id: int, player_id: int
    ) -> None:
        """Lock a player's games under way in an event, in id order (before the event's
        row, as a game's end does)."""
        ids = (
            await conn.scalars(
                sa.select(pairings.c.game_id).where(
                    pairings.c.tournament_id == tournament_id,
                    pairings.c.done.is_(False),
                    sa.or_(pairings.c.first_id == player_id, pairings.c.second_id == player_id),
                )
            )
        ).all()
        for game_id in sorted(i for i in ids if i is not None):
            await conn.execute(sa.select(games.c.id).where(games.c.id == game_id).with_for_update())

    async def renumber_ladder(self, conn: AsyncConnection, tournament_id: int) -> None:
        """Places 1, 2, ... again after a player left: those below moved up."""
        listed = [e for e in await self.entrants(conn, tournament_id) if e.place is not None]
        for place, player in enumerate((e.player_id for e in sorted(listed, key=by_place)), 1):
            await self.set_entrant(conn, tournament_id, player, place=place)

    async def event_summary(self, conn: AsyncConnection, tournament_id: int) -> TournamentSummary:
        row = await self.fresh(conn, tournament_id)
        names = await self.names(conn, tournament_id)
        listed = await self.entrants(conn, tournament_id)
        return TournamentSummary(
            id=row.id,
            guild_id=row.guild_id,
            channel_id=row.channel_id,
            name=row.name,
            title=await self.records.event_title(conn, row.id),
            game=row.game,
            format=row.format,
            format_title=FORMAT_TITLES[Format(row.format)],
            options=dict(row.options),
            status=row.status,
            round=row.round,
            rounds=row.rounds,
            match_games=row.match_games,
            double=row.double,
            days_per_move=row.days_per_move,
            rated=row.rated,
            vacations=row.vacations,
            time_control=row.time_control,
            auto_vacation=row.auto_vacation,
            organizer_id=row.organizer_id,
            max_players=row.max_players,
            start_players=row.start_players,
            starts_at=row.starts_at,
            entrants=tuple(
                EntrantLine(e.player_id, names.get(e.player_id, "?"), e.bot_level, e.withdrawn)
                for e in listed
            ),
        )

    # == standings ===========================================================================

    async def event_tables(
        self, conn: AsyncConnection, row: Any, *, ids: bool = False
    ) -> tuple[tuple[StandingsTable, ...], tuple[Crosstable, ...], Bracket | None]:
        """The event's tables; `ids`: rows named by player id (for the service's own use)."""
        kind = Format(row.format)
        listed = await self.entrants(conn, row.id)
        names = await self.names(conn, row.id)

        def name(player: int) -> str:
            return str(player) if ids else names.get(player, "?")

        title = await self.title(conn, row)
        finished = (
            await conn.execute(
                sa.select(pairings)
                .where(pairings.c.tournament_id == row.id)
                .order_by(pairings.c.ended_at, pairings.c.id)
            )
        ).all()
        if kind is Format.LADDER or row.status == "open":
            order = sorted(standing(listed), key=by_place) if kind is Format.LADDER else listed
            rows = tuple(
                StandingRow(str(e.place or i), name(e.player_id), 0.0, (), 0, "")
                for i, e in enumerate(order, 1)
            )
            return (StandingsTable(title, (), rows),), (), None
        if kind is Format.KNOCKOUT:
            return await self._knockout_tables(conn, row, title, name, listed, finished)
        byes = await self.event_byes(conn, row.id) if kind is Format.SWISS else ()
        scored = partial(scored_tables, row, title, name, listed, finished, byes)
        if len(finished) > BIG_EVENT:
            return await asyncio.to_thread(scored)
        return scored()

    async def _knockout_tables(
        self,
        conn: AsyncConnection,
        row: Any,
        title: str,
        name: Any,
        listed: Sequence[Any],
        every: Sequence[Any],
    ) -> tuple[tuple[StandingsTable, ...], tuple[Crosstable, ...], Bracket | None]:
        """The knockout's table and bracket from its entrants and `every` pairing: a match
        decided stands as played (`match_state`), whoever left since."""
        stored = await self.rounds(conn, row.id)
        played = [p for p in every if p.done]
        games_left = Counter(p for r in every if not r.done for p in (r.first_id, r.second_id))
        left = {e.player_id for e in listed if e.withdrawn}
        rules = MatchRules(games=row.match_games or 1)
        reached: dict[int, int] = {}  # player -> the last round they won through
        champion: int | None = None
        rounds: list[tuple[BracketMatch, ...]] = []
        for stored_round in stored:
            line: list[BracketMatch] = []
            for index, (high, low) in enumerate(stored_round.matches or ()):
                match = Match(high, low)
                results = [
                    game_result(p)
                    for p in played
                    if p.round == stored_round.number and p.match == index
                ]
                state = match_state(match, results, rules, left=left)
                for player in (high, low):
                    if player is not None:
                        reached.setdefault(player, 0)
                if state.winner is not None:
                    reached[state.winner] = stored_round.number
                    if len(stored_round.matches) == 1:
                        champion = state.winner
                score = (
                    "bye"
                    if low is None
                    else f"{points_text(state.points[0])}-{points_text(state.points[1])}"
                )
                winner = None if state.winner is None else (0 if state.winner == high else 1)
                line.append(
                    BracketMatch(name(high), None if low is None else name(low), score, winner)
                )
            rounds.append(tuple(line))
        depth = {p: won + (p == champion) for p, won in reached.items()}
        entry = {e.player_id: seq for seq, e in enumerate(listed)}  # a tie: in entry order
        order = sorted(depth, key=lambda p: (-depth[p], entry.get(p, len(entry))))
        rows = []
        for player in order:
            same = sum(1 for p in order if depth[p] == depth[player])
            first = 1 + sum(1 for p in order if depth[p] > depth[player])
            place = f"={first}" if same > 1 else str(first)
            note = "withdrawn" if player in left else ""
            rows.append(
                StandingRow(place, name(player), float(depth[player]), (), games_left[player], note)
            )
        table = StandingsTable(title, (), tuple(rows))
        return (table,), (), Bracket(title, tuple(rounds))
