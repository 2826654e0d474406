"""What the tests of events share: people, services on one database (as separate
processes would be), games ended the quickest way (resignation, or a loss on time), and
the rows and announcements an event left behind."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from datetime import timedelta
from typing import Any

import sqlalchemy as sa

from bot.service import GameService, Place, Player
from bot.service.core.models import TournamentNews
from bot.service.core.outbox import event_from_json
from bot.settings import Settings
from bot.store import Database
from bot.store.schema import games, outbox, pairings
from tests.conftest import Clock

GUILD = 1
PLACE = Place(GUILD, 10)
#: People (ids above the bot's): PEOPLE[0] organizes.
PEOPLE = tuple(Player(9001 + i, f"p{i + 1}") for i in range(16))
BY_ID = {p.id: p for p in PEOPLE}
ORGANIZER = PEOPLE[0]


@asynccontextmanager
async def services(database_url: str, clock: Clock, count: int) -> AsyncIterator[list[GameService]]:
    """`count` services, each with a pool of its own on one database: as many bot
    processes."""
    made: list[GameService] = []
    try:
        for seed in range(count):
            settings = Settings(database_url=database_url, render_processes=0, _env_file=None)  # type: ignore[call-arg]
            database = await Database.open(database_url)
            made.append(GameService(database, settings, clock=clock, rng=random.Random(seed)))
        yield made
    finally:
        for service in made:
            await service.close()


async def open_event(
    service: GameService, fmt: str, people: Sequence[Player], **kwargs: object
) -> int:
    """A new event of `fmt` (5x5 Hex, one day a move) that `people` joined, in order."""
    kwargs.setdefault("days_per_move", 1)
    created = await service.events.create_tournament(
        PLACE, ORGANIZER, "hex", format=fmt, options={"size": "5"}, manages=True, **kwargs
    )
    for person in people:
        await service.events.join_tournament(created.tournament.id, GUILD, person)
    return created.tournament.id


async def count(service: GameService, table: sa.Table, *where: sa.ColumnElement[bool]) -> int:
    async with service.records.db.read() as conn:
        statement = sa.select(sa.func.count()).select_from(table)
        return int(await conn.scalar(statement.where(*where) if where else statement) or 0)


async def under_way(service: GameService, tournament_id: int) -> list[tuple[int, int, int]]:
    """(game, first seat's player, second seat's player) of each game of the event under
    way, by game id."""
    async with service.records.db.read() as conn:
        rows = await conn.execute(
            sa.select(pairings.c.game_id, pairings.c.first_id, pairings.c.second_id)
            .select_from(pairings.join(games, games.c.id == pairings.c.game_id))
            .where(pairings.c.tournament_id == tournament_id, games.c.status == "active")
            .order_by(pairings.c.game_id)
        )
        return [(r.game_id, r.first_id, r.second_id) for r in rows]


async def all_pairings(service: GameService, tournament_id: int) -> list[Any]:
    async with service.records.db.read() as conn:
        return list(
            (
                await conn.execute(
                    sa.select(pairings)
                    .where(pairings.c.tournament_id == tournament_id)
                    .order_by(pairings.c.id)
                )
            ).all()
        )


async def news(service: GameService, kind: str | None = None) -> list[TournamentNews]:
    """The events' announcements in the outbox, oldest first (of `kind` only if given)."""
    async with service.records.db.read() as conn:
        rows = (await conn.scalars(sa.select(outbox.c.events).order_by(outbox.c.id))).all()
    found = [event_from_json(e) for events in rows for e in events]
    return [e for e in found if isinstance(e, TournamentNews) and kind in (None, e.kind)]


async def lose(service: GameService, game_id: int, loser: int) -> None:
    """`loser` resigns game `game_id`: the quickest end of a game."""
    await service.play.resign(game_id, GUILD, BY_ID[loser])


async def lose_on_time(service: GameService, clock: Clock, game_id: int) -> int:
    """Game `game_id` is lost on time by the player to move (its first seat: nobody has
    moved), through the scheduler's use cases; returns the loser. Only this game's
    timeout is acted on (other games' rows due meanwhile are leased for a second and left)."""
    game = await service.lookups.game(game_id, GUILD)
    loser = game.seats[0].player_id
    assert loser is not None and game.days_per_move is not None
    clock.advance(days=game.days_per_move, hours=1)
    claims = await service.schedule.claim_deadlines("tests", timedelta(seconds=1), limit=10_000)
    mine = [c for c in claims if c.game_id == game_id and c.kind == "timeout"]
    assert len(mine) == 1
    result = await service.schedule.act_on_deadline(mine[0], "tests")
    assert result is not None
    assert (await service.lookups.game(game_id, GUILD)).status == "finished"
    return loser
