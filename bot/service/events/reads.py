"""What is read of an event: the list, one event, its pairings, its standings, its export;
and a player's events on every server (their home page on the web)."""

from __future__ import annotations

import dataclasses
import json
import logging
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa

from bot.events import FORMAT_TITLES, Format
from bot.render.tables import Bracket, Crosstable, StandingsTable
from bot.service.core.models import (
    TournamentSummary,
    TournamentTables,
)
from bot.service.core.records import Records
from bot.service.core.rules import check_ids
from bot.service.events.store import EventStore
from bot.service.events.words import (
    bracket_text,
    crosstable_text,
    iso,
    result_words,
    standings_text,
    start_words,
)
from bot.service.looks.exports import ExportFile, stored_record
from bot.store.schema import (
    entrants,
    games,
    pairings,
    tournament_rounds,
    tournaments,
)

log = logging.getLogger("paperboard.tournaments")

#: The most events a player's home page lists.
EVENTS_OF_PLAYER = 50


@dataclass(frozen=True, slots=True)
class PlayerEvent:
    """An event a player has entered, open or under way: where it stands and what comes
    next, and their games of it under way."""

    id: int
    guild_id: int
    title: str
    format_title: str
    status: str  # open active
    next: str  # "Round 2 of 5 under way; round 3 is paired when its games end."
    games: tuple[int, ...]


class EventReads:
    """The use cases that read events."""

    def __init__(self, records: Records, store: EventStore) -> None:
        self.records = records
        self.store = store
        self.db = records.db
        self.painter = records.painter

    # == reading ===========================================================================

    async def list_tournaments(self, guild_id: int) -> tuple[TournamentSummary, ...]:
        """The server's events, the newest first (finished and cancelled ones too)."""
        check_ids(guild_id)
        async with self.db.read() as conn:
            ids = (
                await conn.scalars(
                    sa.select(tournaments.c.id)
                    .where(tournaments.c.guild_id == guild_id)
                    .order_by(tournaments.c.id.desc())
                    .limit(50)
                )
            ).all()
            return tuple([await self.store.event_summary(conn, i) for i in ids])

    async def tournament(self, tournament_id: int, guild_id: int) -> TournamentSummary:
        async with self.db.read() as conn:
            row = await self.store.event_row(conn, tournament_id, guild_id, lock=False)
            return await self.store.event_summary(conn, row.id)

    async def tournament_pairings(self, tournament_id: int, guild_id: int) -> str:
        """The current round's games (every game of a round robin, a league's season, a
        ladder's challenges not played out), as text: "Round 2: ann v bob (#14, under way) ..."."""
        async with self.db.read() as conn:
            row = await self.store.event_row(conn, tournament_id, guild_id, lock=False)
            title = await self.store.title(conn, row)
            if row.status == "open":
                return f"{title} has not started yet."
            names = await self.store.names(conn, row.id)
            kind = Format(row.format)
            statement = (
                sa.select(pairings, games.c.status)
                .select_from(pairings.outerjoin(games, games.c.id == pairings.c.game_id))
                .where(pairings.c.tournament_id == row.id)
                .order_by(pairings.c.division, pairings.c.id)
            )
            if kind is Format.LADDER:  # its challenges not played out, whenever issued
                statement = statement.where(pairings.c.done.is_(False))
            elif kind is not Format.ROUND_ROBIN:  # a round robin: every game
                statement = statement.where(pairings.c.round == row.round)
            listed = (await conn.execute(statement)).all()
            bye = await conn.scalar(
                sa.select(tournament_rounds.c.bye_id).where(
                    tournament_rounds.c.tournament_id == row.id,
                    tournament_rounds.c.number == row.round,
                )
            )
        lines = [f"{title} · {'season' if kind is Format.LEAGUE else 'round'} {row.round}:"]
        if kind is Format.ROUND_ROBIN:
            lines = [f"{title}, every game:"]
        if kind is Format.LADDER:
            lines = [f"{title}, challenges:"]
        for p in listed:
            state = "under way" if not p.done else result_words(p, names)
            if p.status == "open":  # a ladder's challenge not accepted yet
                state = f"waiting for {names.get(p.second_id, '?')} to accept"
            where = f" division {p.division + 1}" if kind is Format.LEAGUE else ""
            where += f" round {p.round}" if kind is Format.ROUND_ROBIN else ""
            lines.append(
                f"  {names.get(p.first_id, '?')} v {names.get(p.second_id, '?')} "
                f"(#{p.game_id}{where}, {state})"
            )
        if bye is not None:
            lines.append(f"  {names.get(bye, '?')} has the bye")
        if len(lines) == 1:
            lines.append("  no games")
        return "\n".join(lines)

    async def tournament_standings(self, tournament_id: int, guild_id: int) -> TournamentTables:
        """The event's table (one per division of a league), crosstable, bracket, as text
        and as a picture."""
        async with self.db.read() as conn:
            row = await self.store.event_row(conn, tournament_id, guild_id, lock=False)
            summary = await self.store.event_summary(conn, row.id)
            tables, crosses, bracket = await self.store.event_tables(conn, row)
        text = "\n\n".join(
            [standings_text(t) for t in tables]
            + [crosstable_text(c) for c in crosses]
            + ([bracket_text(bracket)] if bracket is not None else [])
        )
        drawn: list[StandingsTable | Crosstable | Bracket] = [*tables, *crosses]
        if bracket is not None:
            drawn.append(bracket)
        pictures = tuple([await self.painter.table(t) for t in drawn])
        png = b""
        shown = bracket if bracket is not None else tables[0] if tables else None
        if shown is not None:
            png = pictures[drawn.index(shown)]
        return TournamentTables(summary, tables, crosses, bracket, text, png, pictures)

    async def export_tournament(self, tournament_id: int, guild_id: int) -> ExportFile:
        """The event as JSON, for anyone in the server (the record's rule, as `export`):
        what it is, its entrants, its rounds, each game's pairing and result with the
        game's record, and its standings (tables, crosstables, bracket)."""
        async with self.db.read() as conn:
            row = await self.store.event_row(conn, tournament_id, guild_id, lock=False)
            summary = await self.store.event_summary(conn, row.id)
            listed = await self.store.entrants(conn, row.id)
            stored = await self.store.rounds(conn, row.id)
            paired = (
                await conn.execute(
                    sa.select(pairings)
                    .where(pairings.c.tournament_id == row.id)
                    .order_by(pairings.c.round, pairings.c.division, pairings.c.id)
                )
            ).all()
            game_rows = {
                g.id: g
                for g in await conn.execute(sa.select(games).where(games.c.tournament_id == row.id))
            }
            records = {i: await stored_record(self.records, conn, g) for i, g in game_rows.items()}
            tables, crosses, bracket = await self.store.event_tables(conn, row)
        names = {e.player_id: e.name for e in summary.entrants}
        data = {
            "id": row.id,
            "name": row.name,
            "title": summary.title,
            "game": row.game,
            "options": dict(row.options),
            "format": row.format,
            "status": row.status,
            "round": row.round,
            "rounds": row.rounds,
            "match_games": row.match_games,
            "double": row.double,
            "days_per_move": row.days_per_move,
            "clock": row.time_control,
            "auto_vacation": row.auto_vacation,
            "rated": row.rated,
            "organizer_id": row.organizer_id,
            "created_at": iso(row.created_at),
            "entrants": [
                {
                    "id": e.player_id,
                    "name": names.get(e.player_id, "?"),
                    "bot": e.bot_level,
                    "withdrawn": e.withdrawn,
                    "division": e.division,
                    "place": e.place,
                }
                for e in listed
            ],
            "rounds_played": [
                {"number": r.number, "bye_id": r.bye_id, "matches": r.matches} for r in stored
            ],
            "games": [
                {
                    "round": p.round,
                    "division": p.division,
                    "match": p.match,
                    "first_id": p.first_id,
                    "second_id": p.second_id,
                    "done": p.done,
                    "winner_id": p.winner_id,
                    "finish": p.finish,
                    "record": records.get(p.game_id),
                }
                for p in paired
            ],
            "standings": [dataclasses.asdict(t) for t in tables],
            "crosstables": [dataclasses.asdict(c) for c in crosses],
            "bracket": dataclasses.asdict(bracket) if bracket is not None else None,
        }
        text = json.dumps(data, indent=1, ensure_ascii=False) + "\n"
        return ExportFile(f"event-{row.id}.json", text.encode())

    async def events_of(self, player_id: int) -> tuple[PlayerEvent, ...]:
        """The events `player_id` has entered (and not left) on every server, open or under
        way, the newest first: where each stands and their games of it under way."""
        check_ids(player_id)
        t, e = tournaments.c, entrants.c
        query = (
            sa.select(tournaments)
            .select_from(entrants.join(tournaments, t.id == e.tournament_id))
            .where(
                e.player_id == player_id,
                e.withdrawn.is_(False),
                t.status.in_(("open", "active")),
            )
            .order_by(t.id.desc())
            .limit(EVENTS_OF_PLAYER)
        )
        found = []
        async with self.db.read() as conn:
            for row in (await conn.execute(query)).all():
                p = pairings.c
                mine = await conn.scalars(
                    sa.select(p.game_id)
                    .select_from(pairings.join(games, games.c.id == p.game_id))
                    .where(
                        p.tournament_id == row.id,
                        p.done.is_(False),
                        sa.or_(p.first_id == player_id, p.second_id == player_id),
                        games.c.status.in_(("open", "active")),
                    )
                    .order_by(p.game_id)
                )
                summary = await self.store.event_summary(conn, row.id)
                found.append(
                    PlayerEvent(
                        row.id,
                        row.guild_id,
                        summary.title,
                        FORMAT_TITLES[Format(row.format)],
                        row.status,
                        next_words(row, summary),
                        tuple(mine),
                    )
                )
        return tuple(found)


def next_words(row: Any, summary: TournamentSummary) -> str:
    """Where an open or running event stands and what comes next, in a sentence."""
    if row.status == "open":
        return start_words(summary) or "Not started: its organiser starts it."
    kind = Format(row.format)
    if kind is Format.SWISS and row.rounds is not None:
        if row.round >= row.rounds:
            return f"Round {row.round} of {row.rounds} under way: the last."
        return (
            f"Round {row.round} of {row.rounds} under way; round {row.round + 1} is paired "
            "when its games end."
        )
    if kind in (Format.SWISS, Format.KNOCKOUT):
        return f"Round {row.round} under way; the next is paired when its games end."
    if kind is Format.LEAGUE:
        return f"Season {row.round} under way; the next starts when its games end."
    if kind is Format.ROUND_ROBIN:
        return "Every game is under way; it ends with the last of them."
    return "Under way: challenge the players above you."
