"""What the tests of the bot as an opponent share: the guild of their games, the search budget,
an AI runner on the test service (fixture `runner`) delivering what it publishes, games against
the bot and its moves, the fake Discord's world with the bot playing, and the console playing
the bot."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import pytest
import sqlalchemy as sa

from bot.console import Console
from bot.schedule.airunner import AiRunner
from bot.service import GameService, GameSummary, Place, Result
from bot.service.core import jobs as aiqueue
from bot.store.schema import moves
from tests.conftest import ANN, Clock
from tests.discordkit import World, world_on
from tests.fakediscord import FakeDiscord

GUILD = 1
PLACE = Place(GUILD, 10)
NODES = 20  # simulations per search: fast and deterministic
LATER = aiqueue.LEASE * 2  # past the lease of a claim whose worker died


class Delivered:
    """The adapter's delivery for the runner: records what it was given."""

    def __init__(self, service: GameService) -> None:
        self.service = service
        self.results: list[Result] = []

    async def __call__(self, result: Result) -> None:
        await self.service.outbox.deliver(result, self._keep)

    async def _keep(self, result: Result) -> None:
        self.results.append(result)


@pytest.fixture
async def runner(service: GameService) -> AsyncIterator[AiRunner]:
    ai = AiRunner(service, Delivered(service), processes=0, nodes=NODES)
    try:
        yield ai
    finally:
        await ai.stop()


async def bot_game(
    service: GameService, game: str, options: dict[str, Any], *, bots: int = 1, level: str = "easy"
) -> GameSummary:
    result = await service.challenges.challenge(
        PLACE, ANN, game, options=options, bots=[level] * bots, first="challenger"
    )
    return result.game


async def bot_moves(service: GameService) -> list[Any]:
    async with service.records.db.read() as conn:
        return (
            await conn.execute(
                sa.select(moves.c.game_id, moves.c.ply, moves.c.seat, moves.c.text).order_by(
                    moves.c.game_id, moves.c.ply
                )
            )
        ).all()


@contextlib.asynccontextmanager
async def ai_world(fake_discord: FakeDiscord, url: str, clock: Clock) -> AsyncIterator[World]:
    """tests/discordkit.py's world on `url` (the bot's searches in a thread), with the
    searches at a tiny budget."""
    async with world_on(fake_discord, url, clock) as world:
        world.settings = world.settings.model_copy(update={"ai_nodes": NODES})
        yield world


@contextlib.asynccontextmanager
async def playing_the_bot(console: Console) -> AsyncIterator[Console]:
    """The console with an AI runner that plays the bot in its own process (NODES a search)."""
    runner = AiRunner(console.service, console.bot_moved, processes=0, nodes=NODES)
    console.runner = runner
    try:
        yield console
    finally:
        await runner.stop()
