"""The steps of an event: its first round, the rounds after, a knockout's matches, a
league's seasons, the end, a withdrawal.
"""

from __future__ import annotations

import asyncio
import logging
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.events import (
    LIMITS,
    Format,
    GameResult,
    KnockoutRound,
    Match,
    MatchRules,
    draw_lots,
    first_round,
    first_season,
    match_state,
    next_round,
    next_season,
    pair_swiss,
    round_robin,
    seeded,
    swiss_rounds,
)
from bot.service.core.models import (
    Result,
    TournamentNews,
)
from bot.service.core.records import Records
from bot.service.core.turns import Turns
from bot.service.events.store import EventStore
from bot.service.events.words import (
    as_entrants,
    game_result,
    standing,
    standings_text,
)
from bot.store.schema import (
    entrants,
    games,
    pairings,
    tournament_rounds,
    tournaments,
)
from engine.core import End

log = logging.getLogger("paperboard.tournaments")


class EventRounds:
    """The steps of an event, each in the transaction of what caused it."""

    def __init__(self, records: Records, turns: Turns, store: EventStore) -> None:
        self.records = records
        self.turns = turns
        self.store = store
        self.clock = records.clock

    # == the steps of an event ==============================================================

    async def begin(self, conn: AsyncConnection, row: Any) -> list[Result]:
        """The first round of a started event (`row.round` is 1)."""
        kind = Format(row.format)
        listed = standing(await self.store.entrants(conn, row.id))
        if kind is Format.LADDER:
            for place, entry in enumerate(listed, 1):
                await self.store.set_entrant(conn, row.id, entry.player_id, place=place)
            return []
        if kind is Format.ROUND_ROBIN:
            return await self._round_robin(conn, row, [e.player_id for e in listed], 0)
        if kind is Format.LEAGUE:
            return await self._season(conn, row, first_season(as_entrants(listed)), {})
        if kind is Format.SWISS:
            count = len(listed)
            rounds = min(row.rounds or swiss_rounds(count), count - 1)
            await conn.execute(
                tournaments.update().where(tournaments.c.id == row.id).values(rounds=rounds)
            )
            return await self._swiss_round(conn, await self.store.fresh(conn, row.id), 1)
        knockout = first_round(as_entrants(listed))
        return await self._knockout_round(conn, row, knockout)

    async def advance(self, conn: AsyncConnection, tournament_id: int) -> list[Result]:
        """What follows from the games ended so far: the next games of knockout matches,
        the next round or season, the end. Each step is taken by one transaction only."""
        results: list[Result] = []
        while True:
            row = await self.store.fresh(conn, tournament_id)
            if row.status != "active":
                return results
            kind = Format(row.format)
            if kind is Format.LADDER:
                return results
            if kind is Format.KNOCKOUT:
                step = await self._knockout_step(conn, row)
                if step is None:
                    return results
                results += step
                continue
            every_round = kind is Format.ROUND_ROBIN  # all its games started at once
            if await self.store.pending(conn, row.id, None if every_round else row.round):
                return results
            active = [e for e in await self.store.entrants(conn, row.id) if not e.withdrawn]
            if kind is Format.SWISS and row.round < (row.rounds or 0) and len(active) >= 2:
                if not await self._next_round_number(conn, row):
                    return results
                results += await self._swiss_round(conn, row, row.round + 1)
                continue
            if kind is Format.LEAGUE and len(active) >= LIMITS[Format.ROUND_ROBIN].least:
                if not await self._next_round_number(conn, row):
                    return results
                results += await self._next_season(conn, row)
                continue
            results += await self._conclude(conn, row)
            return results

    async def _next_round_number(self, conn: AsyncConnection, row: Any) -> bool:
        """Move the event on from `row.round`: True for the one transaction that does."""
        touched = await conn.execute(
            tournaments.update()
            .where(
                tournaments.c.id == row.id,
                tournaments.c.round == row.round,
                tournaments.c.status == "active",
            )
            .values(round=row.round + 1)
        )
        return touched.rowcount == 1

    async def _round_robin(
        self, conn: AsyncConnection, row: Any, players: Sequence[int], division: int
    ) -> list[Result]:
        """Every game of a round robin among `players` at once, in table order drawn by
        lot; for a league, a division of season `row.round`."""
        order = draw_lots(players, row.seed + 7919 * row.round + division)
        for number, player in enumerate(order, 1):
            await self.store.set_entrant(conn, row.id, player, place=number)
        results: list[Result] = []
        round_number = row.round if Format(row.format) is Format.LEAGUE else None
        await self.store.insert_round(conn, row.id, row.round, division=division)
        for scheduled in round_robin(order, double=row.double):
            for pairing in scheduled.games:
                results.append(
                    await self.store.open_game(
                        conn, row, round_number or scheduled.number, pairing, division=division
                    )
                )
        title = await self.store.title(conn, row)
        names = await self.store.names(conn, row.id)
        where = f" (division {division + 1})" if Format(row.format) is Format.LEAGUE else ""
        table = ", ".join(f"{n}. {names.get(p, '?')}" for n, p in enumerate(order, 1))
        text = f"{title}{where}: all {len(results)} games start now. Table order: {table}."
        if results:
            news = TournamentNews(results[0].game.id, row.id, "round", text)
            results.append(await self.store.result(conn, news))
        return results

    async def _swiss_round(self, conn: AsyncConnection, row: Any, number: int) -> list[Result]:
        listed = await self.store.entrants(conn, row.id)
        results_so_far = await self.store.results(conn, row.id)
        byes = await self.store.event_byes(conn, row.id)
        paired = await asyncio.to_thread(  # a round of 1,000 takes 0.2 s: off the loop
            pair_swiss, as_entrants(listed), results_so_far, byes=byes, number=number
        )
        await self.store.insert_round(conn, row.id, number, bye=paired.bye)
        results = [await self.store.open_game(conn, row, number, p) for p in paired.games]
        names = await self.store.names(conn, row.id)
        title = await self.store.title(conn, row)
        games_text = "; ".join(
            f"{names.get(p.first, '?')} v {names.get(p.second, '?')}" for p in paired.games
        )
        text = f"{title} · round {number} of {row.rounds or number}: {games_text}."
        if paired.bye is not None:
            text += f" {names.get(paired.bye, '?')} has the bye (1 point)."
        if results:
            news = TournamentNews(results[0].game.id, row.id, "round", text)
            results.append(await self.store.result(conn, news))
        return results

    async def _knockout_round(
        self, conn: AsyncConnection, row: Any, knockout: KnockoutRound
    ) -> list[Result]:
        """Store a knockout round's matches and open their first games."""
        await self.store.insert_round(
            conn,
            row.id,
            knockout.number,
            matches=[[m.high, m.low] for m in knockout.matches],
        )
        fresh = await self.store.fresh(conn, row.id)
        step = await self._knockout_step(conn, fresh, announce=True)
        return step or []

    async def _knockout_step(
        self, conn: AsyncConnection, row: Any, *, announce: bool = False
    ) -> list[Result] | None:
        """Open the next game of each undecided match that has none under way; when every
        match is decided, the next round (or the end). None when nothing changed."""
        knockout, states = await self._knockout_states(conn, row)
        results: list[Result] = []
        pending = await self.store.pending_matches(conn, row.id, knockout.number)
        for index, state in enumerate(states):
            if state.next_game is not None and index not in pending:
                results.append(
                    await self.store.open_game(
                        conn, row, knockout.number, state.next_game, match=index
                    )
                )
        names = await self.store.names(conn, row.id)
        title = await self.store.title(conn, row)
        if announce:
            parts = []
            for match in knockout.matches:
                high = names.get(match.high, "?")
                parts.append(
                    f"{high} has a bye"
                    if match.low is None
                    else f"{high} v {names.get(match.low, '?')}"
                )
            text = f"{title} · round {knockout.number}: {'; '.join(parts)}."
            if results:
                news = TournamentNews(results[0].game.id, row.id, "round", text)
                results.append(await self.store.result(conn, news))
        if results:
            return results
        if any(state.winner is None for state in states):
            return None
        winners = [state.winner for state in states if state.winner is not None]
        if knockout.final:
            return await self._conclude(conn, row)
        if not await self._next_round_number(conn, row):
            return None
        return await self._knockout_round(conn, row, next_round(knockout, winners))

    async def _knockout_states(
        self, conn: AsyncConnection, row: Any
    ) -> tuple[KnockoutRound, list[Any]]:
        listed = await self.store.entrants(conn, row.id)
        left = {e.player_id for e in listed if e.withdrawn}
        seeds = seeded(as_entrants(standing(listed)))
        stored = await conn.scalar(
            sa.select(tournament_rounds.c.matches).where(
                tournament_rounds.c.tournament_id == row.id,
                tournament_rounds.c.number == row.round,
            )
        )
        knockout = KnockoutRound(
            row.round, tuple(Match(high, low) for high, low in stored or ()), seeds
        )
        played = (
            await conn.execute(
                sa.select(pairings)
                .where(
                    pairings.c.tournament_id == row.id,
                    pairings.c.round == row.round,
                    pairings.c.done.is_(True),
                )
                .order_by(pairings.c.id)
            )
        ).all()
        by_match: dict[int, list[GameResult]] = defaultdict(list)
        for p in played:
            by_match[p.match].append(game_result(p))
        rules = MatchRules(games=row.match_games or 1)
        states = [
            match_state(match, by_match[index], rules, left=left)
            for index, match in enumerate(knockout.matches)
        ]
        return knockout, states

    async def _season(
        self,
        conn: AsyncConnection,
        row: Any,
        divisions: Sequence[Sequence[int]],
        before: Mapping[int, int],
    ) -> list[Result]:
        """Season `row.round` of a league: each division a round robin; `before`: each
        player's division last season (the moves are announced)."""
        await conn.execute(
            entrants.update().where(entrants.c.tournament_id == row.id).values(division=None)
        )
        for index, division in enumerate(divisions):
            for player in division:
                await self.store.set_entrant(conn, row.id, player, division=index)
        results: list[Result] = []
        for index, division in enumerate(divisions):
            results += await self._round_robin(conn, row, division, index)
        if before and results:
            names = await self.store.names(conn, row.id)
            moves = []
            for index, division in enumerate(divisions):
                for player in division:
                    was = before.get(player)
                    if was is not None and was != index:
                        way = "up" if index < was else "down"
                        moves.append(f"{names.get(player, '?')} {way} to division {index + 1}")
            title = await self.store.title(conn, row)
            text = f"{title} · season {row.round}: " + ("; ".join(moves) or "no moves") + "."
            news = TournamentNews(results[0].game.id, row.id, "season", text)
            results.append(await self.store.result(conn, news))
        return results

    async def _next_season(self, conn: AsyncConnection, row: Any) -> list[Result]:
        listed = await self.store.entrants(conn, row.id)
        before = {e.player_id: e.division for e in listed if e.division is not None}
        tables, _, _ = await self.store.event_tables(conn, row, ids=True)
        finals = [[int(r.name) for r in table.rows if r.note != "annulled"] for table in tables]
        leavers = {e.player_id for e in listed if e.withdrawn}
        newcomers = [e for e in as_entrants(standing(listed)) if e.id not in before]
        divisions = next_season(finals, leavers=leavers, newcomers=newcomers)
        fresh = await self.store.fresh(conn, row.id)
        return await self._season(conn, fresh, divisions, before)

    async def _conclude(self, conn: AsyncConnection, row: Any) -> list[Result]:
        """The event is over: its final standings are announced."""
        touched = await conn.execute(
            tournaments.update()
            .where(tournaments.c.id == row.id, tournaments.c.status == "active")
            .values(status="finished", finished_at=self.clock())
        )
        if touched.rowcount != 1:
            return []
        tables, _, _ = await self.store.event_tables(conn, row)
        title = await self.store.title(conn, row)
        text = f"{title} is over. Final standings:\n" + "\n\n".join(
            standings_text(t) for t in tables
        )
        anchor = await self.store.anchor(conn, row.id)
        if anchor is None:
            return []
        log.info("tournament=%d finished", row.id)
        return [await self.store.result(conn, TournamentNews(anchor, row.id, "final", text))]

    async def withdraw(
        self, conn: AsyncConnection, row: Any, player_id: int, why: str
    ) -> list[Result]:
        """`player_id` is out of a started event: never paired again, their games under
        way forfeited (each ends as a loss, unrated). In a round robin (a league's
        division), results of one who played fewer than half of their games are annulled."""
        touched = await conn.execute(
            entrants.update()
            .where(
                entrants.c.tournament_id == row.id,
                entrants.c.player_id == player_id,
                entrants.c.withdrawn.is_(False),
            )
            .values(withdrawn=True)
        )
        if touched.rowcount != 1:
            return []
        results: list[Result] = []
        under_way = (
            await conn.scalars(
                sa.select(pairings.c.game_id)
                .select_from(pairings.join(games, games.c.id == pairings.c.game_id))
                .where(
                    pairings.c.tournament_id == row.id,
                    pairings.c.done.is_(False),
                    sa.or_(pairings.c.first_id == player_id, pairings.c.second_id == player_id),
                    games.c.status == "active",
                )
                .order_by(pairings.c.game_id)
            )
        ).all()
        for game_id in under_way:
            await conn.execute(games.update().where(games.c.id == game_id).values(rated=False))
            game = await self.records.game_row(conn, game_id, row.guild_id, lock=True)
            summary = await self.records.summary(conn, game_id, game)
            seat = summary.seat_of(player_id)
            assert seat is not None
            over = await self.turns.finish(
                conn, game, summary, (1 - seat,), End.FORFEIT, None, loser=seat
            )
            results.append(Result(await self.records.summary(conn, game_id), (over,)))
        names = await self.store.names(conn, row.id)
        title = await self.store.title(conn, row)
        name = names.get(player_id, "?")
        text = f"{name} {why} and is out of {title}"
        text += (
            f"; {len(under_way)} game{'s' * (len(under_way) != 1)} forfeited." if under_way else "."
        )
        kind = Format(row.format)
        if kind in (Format.ROUND_ROBIN, Format.LEAGUE):
            tables, _, _ = await self.store.event_tables(conn, row, ids=True)
            if any(
                r.name == str(player_id) and r.note == "annulled" for t in tables for r in t.rows
            ):
                text += (
                    f" {name} played fewer than half of their games: their results are "
                    "annulled, for them and their opponents."
                )
        anchor = under_way[0] if under_way else await self.store.anchor(conn, row.id, player_id)
        if anchor is not None:
            results.append(
                await self.store.result(conn, TournamentNews(anchor, row.id, "withdrawn", text))
            )
        log.info("tournament=%d player=%d withdrawn (%s)", row.id, player_id, why)
        return results
