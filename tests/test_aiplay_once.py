"""The bot's moves exactly once: a claim another worker overtook commits nothing, a move killed
midway (kill -9) is made once after the restart, and two worker processes on PostgreSQL make no
move twice. Challenges and whole games: tests/test_aiplay.py."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import sys

import pytest

from bot.schedule.airunner import AiRunner
from bot.service import GameService
from bot.service.core import jobs as aiqueue
from bot.service.play.aiplayer import think
from bot.settings import Settings
from bot.store import Database
from tests.aiplaykit import GUILD, LATER, NODES, bot_game, bot_moves
from tests.aiplaykit import runner as runner
from tests.conftest import ANN, PATIENCE_SECONDS, ROOT, Clock, postgres_schema, run_together
from tests.fakediscord.fixtures import fake_discord_fixture  # noqa: F401  (the fixture)

# -- exactly once ----------------------------------------------------------------------------------


@pytest.mark.both_backends
async def test_a_claim_overtaken_by_another_worker_commits_nothing(
    service: GameService, clock: Clock
) -> None:
    game = await bot_game(service, "hex", {"size": 4, "swap": "off"})
    await service.play.move(game.id, GUILD, ANN, "b2")
    [first] = await aiqueue.claim(service.records.db, clock(), "worker-a", 1, analyses=False)
    clock.advance(seconds=LATER.total_seconds())  # worker a stalls past its lease
    [second] = await aiqueue.claim(service.records.db, clock(), "worker-b", 1, analyses=False)
    assert second.id == first.id and second.attempts == first.attempts + 1
    decision = think("hex", {"size": 4, "swap": "off"}, ["b2"], "easy", nodes=NODES, seed=0)
    assert await service.play.play_for_bot(first, "worker-a", decision) is None
    assert await service.play.play_for_bot(second, "worker-b", decision) is not None
    assert await service.play.play_for_bot(second, "worker-b", decision) is None  # done already
    assert (await service.lookups.game(game.id, GUILD)).ply == 2


KILLED_CHILD = """
import asyncio, os, signal, sys
from datetime import datetime
import bot.schedule.airunner as airunner
from bot.service import GameService
from bot.settings import Settings
from bot.store import Database

def die(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGKILL)

async def main(url, when, crash):
    at = datetime.fromisoformat(when)
    settings = Settings(database_url=url, render_processes=0, _env_file=None)
    service = GameService(await Database.open(url), settings, clock=lambda: at)
    if crash == "searching":  # killed while the search runs: nothing is committed
        airunner.think = die
    async def deliver(result):  # killed after the commit, before the announcement
        die()
    await airunner.AiRunner(service, deliver, processes=0, nodes=20).run_once()

asyncio.run(main(*sys.argv[1:]))
"""


@pytest.mark.both_backends
@pytest.mark.parametrize("crash", ["searching", "after-commit"])
async def test_a_bot_move_killed_midway_is_made_once_after_the_restart(
    service: GameService, runner: AiRunner, clock: Clock, database_url: str, crash: str
) -> None:
    game = await bot_game(service, "hex", {"size": 4, "swap": "off"})
    await service.play.move(game.id, GUILD, ANN, "b2")
    child = await asyncio.create_subprocess_exec(
        sys.executable, "-c", KILLED_CHILD, database_url, clock.now.isoformat(), crash,
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert await asyncio.wait_for(child.wait(), PATIENCE_SECONDS) == -signal.SIGKILL
    committed = (await service.lookups.game(game.id, GUILD)).ply
    assert committed == (1 if crash == "searching" else 2)
    assert await runner.run_once() == 0  # the dead worker's lease still holds
    clock.advance(seconds=LATER.total_seconds())
    taken = await runner.run_once()
    assert taken == (1 if crash == "searching" else 0)
    assert (await service.lookups.game(game.id, GUILD)).ply == 2  # one bot move, whatever happened
    assert await runner.run_once() == 0
    bot_rows = [r for r in await bot_moves(service) if r.seat == 1]
    assert len(bot_rows) == 1


TWO_WORKERS = """
import asyncio, sys
from bot.schedule.airunner import AiRunner
from bot.service import GameService
from bot.settings import Settings
from bot.store import Database

async def main(url, name):
    settings = Settings(database_url=url, render_processes=0, _env_file=None)
    service = GameService(await Database.open(url), settings, worker_id=name)
    moved = []
    async def deliver(result):
        moved.append(result.game.id)
    runner = AiRunner(service, deliver, processes=0, nodes=20, worker_id=name)
    print("ready", flush=True)
    sys.stdin.readline()
    while await runner.run_once():
        pass
    print(" ".join(map(str, moved)), flush=True)
    await service.close()

asyncio.run(main(*sys.argv[1:]))
"""


async def test_two_worker_processes_on_postgresql_make_no_move_twice() -> None:
    async with postgres_schema() as url:
        settings = Settings(database_url=url, render_processes=0, _env_file=None)  # type: ignore[call-arg]
        service = GameService(await Database.open(url), settings, rng=random.Random(1))
        try:
            ids = []
            for _ in range(12):
                game = await bot_game(service, "hex", {"size": 5, "swap": "off"})
                await service.play.move(game.id, GUILD, ANN, "a1")
                ids.append(game.id)
            outputs = await run_together(TWO_WORKERS, [[url, "w1"], [url, "w2"]])
            moved = [int(word) for out in outputs for word in out.split()]
            assert sorted(moved) == sorted(ids)  # every game once, by one of them
            assert all(out.split() for out in outputs), "both took work"
            for game_id in ids:
                assert (await service.lookups.game(game_id, GUILD)).ply == 2
        finally:
            await service.close()
