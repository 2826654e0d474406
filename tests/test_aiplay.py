"""The bot as an opponent: challenges, whole games of every game at a tiny search budget,
the queue's exactly-once after a restart or a kill -9, and two processes sharing it."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import sys
from collections.abc import AsyncIterator
from typing import Any

import pytest
import sqlalchemy as sa

from bot.schedule.airunner import AiRunner
from bot.service import (
    BotThinking,
    Code,
    GameService,
    GameSummary,
    Place,
    Player,
    Refused,
    Result,
    aiqueue,
    describe,
)
from bot.service.aiplayer import think
from bot.service.levels import BOT_IDS
from bot.settings import Settings
from bot.store import Database
from bot.store.schema import ai_jobs, moves
from tests.conftest import ROOT, Clock, postgres_schema, run_together
from tests.fakediscord import FakeDiscord
from tests.fakediscord.fixtures import fake_discord_fixture  # noqa: F401  (the fixture)
from tests.test_discord import play_typed, settled_game, world_on

GUILD = 1
PLACE = Place(GUILD, 10)
ANN = Player(101, "ann")
BOB = Player(102, "bob")
NODES = 20  # simulations per search: fast and deterministic
LATER = aiqueue.LEASE * 2  # past the lease of a claim whose worker died


class Delivered:
    """The adapter's delivery for the runner: records what it was given."""

    def __init__(self, service: GameService) -> None:
        self.service = service
        self.results: list[Result] = []

    async def __call__(self, result: Result) -> None:
        await self.service.deliver(result, self._keep)

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
    result = await service.challenge(
        PLACE, ANN, game, options=options, bots=[level] * bots, first="challenger"
    )
    return result.game


async def bot_moves(service: GameService) -> list[Any]:
    async with service.db.read() as conn:
        return (
            await conn.execute(
                sa.select(moves.c.game_id, moves.c.ply, moves.c.seat, moves.c.text).order_by(
                    moves.c.game_id, moves.c.ply
                )
            )
        ).all()


async def play_out(service: GameService, runner: AiRunner, game_id: int, seed: int) -> GameSummary:
    """Ann plays random legal moves, the bot answers, until the game ends."""
    rng = random.Random(seed)
    for _ in range(2_000):
        game = await service.game(game_id, GUILD)
        if game.status != "active":
            return game
        assert game.to_move is not None
        if game.seats[game.to_move].bot is None:
            state = await service.state(game_id, GUILD)
            await service.move(game_id, GUILD, ANN, rng.choice(state.legal_moves()))
        else:
            assert await runner.run_once() == 1
    raise AssertionError("the game did not end")


# -- challenging the bot ----------------------------------------------------------------------


async def test_the_bot_takes_its_seat_at_once_and_the_game_is_casual(service: GameService) -> None:
    game = await bot_game(service, "hex", {"size": 5, "swap": "off"}, level="hard")
    assert game.status == "active" and not game.rated
    assert [s.bot for s in game.seats] == [None, "hard"]
    assert game.seats[1].player_id == BOT_IDS["hard"] and game.seats[1].name == "Paperboard (hard)"


async def test_the_bot_refuses_rated_games_and_unknown_levels(service: GameService) -> None:
    with pytest.raises(Refused) as rated:
        await service.challenge(PLACE, ANN, "hex", bots=["easy"], rated=True)
    assert rated.value.code == Code.UNRATED
    with pytest.raises(Refused) as level:
        await service.challenge(PLACE, ANN, "hex", bots=["grandmaster"])
    assert level.value.code == Code.BAD_OPTION and "beginner" in str(level.value)
    assert await service.games(GUILD) == []


GAMES = [
    ("hex", {"size": 4, "swap": "off"}, 1),
    ("hex", {"size": 3}, 1),  # the swap: the bot may take it
    ("disthex", {"size": 4}, 1),
    ("hotwire", {"size": "4x4"}, 1),
    ("shortcircuit", {"size": 3, "max_turns": 16}, 1),
    ("livewire", {"size": "17x14"}, 1),
    ("intersections", {"size": 3}, 2),  # bot seats next to a person
]


@pytest.mark.parametrize(("game", "options", "bots"), GAMES)
async def test_a_whole_game_against_the_bot(
    tmp_path: Any, game: str, options: dict[str, Any], bots: int
) -> None:
    url = f"sqlite:///{tmp_path / 'pb.db'}"
    settings = Settings(database_url=url, render_processes=0, _env_file=None)  # type: ignore[call-arg]
    service = GameService(await Database.open(url), settings, clock=Clock(), rng=random.Random(3))
    delivered = Delivered(service)
    ai = AiRunner(service, delivered, processes=0, nodes=NODES)
    try:
        started = await bot_game(service, game, options, bots=bots)
        over = await play_out(service, ai, started.id, seed=5)
        assert over.status == "finished"
        record = await bot_moves(service)
        bot_seats = {s.seat for s in over.seats if s.bot is not None}
        played = [r for r in record if r.seat in bot_seats and r.text != "pass"]
        assert played, "the bot made moves"
        # each bot turn was announced once, as a move with the board after it
        announced = [
            e for r in delivered.results for e in r.events if type(e).__name__ == "MovePlayed"
        ]
        assert 0 < len(announced) <= len(played)
        async with service.db.read() as conn:
            waiting = await conn.scalar(
                sa.select(sa.func.count()).select_from(ai_jobs).where(ai_jobs.c.done == sa.false())
            )
        assert waiting == 0
    finally:
        await ai.stop()
        await service.close()


async def test_the_bot_moves_first_when_it_has_the_first_seat(
    service: GameService, runner: AiRunner
) -> None:
    result = await service.challenge(
        PLACE, ANN, "hex", options={"size": 4, "swap": "off"}, bots=["easy"], first="opponent"
    )
    assert result.game.seats[0].bot == "easy" and result.game.to_move == 0
    assert await runner.run_once() == 1
    game = await service.game(result.game.id, GUILD)
    assert game.ply == 1 and game.to_move == 1


async def test_undo_against_the_bot_is_granted_at_once(
    service: GameService, runner: AiRunner
) -> None:
    game = await bot_game(service, "hex", {"size": 4, "swap": "off"})
    await service.move(game.id, GUILD, ANN, "b2")
    await runner.run_once()
    assert (await service.game(game.id, GUILD)).ply == 2
    result = await service.request_undo(game.id, GUILD, ANN)
    names = [type(e).__name__ for e in result.events]
    assert names[:2] == ["UndoRequested", "UndoAnswered"] and result.game.ply == 0
    assert result.game.to_move == 0  # Ann's move and the bot's answer are taken back
    assert await runner.run_once() == 0  # the old job is stale: nothing for the bot to do


async def test_the_bot_resigns_only_a_proven_loss() -> None:
    # Hex 3x3 with Black in the centre is a proven win for Black
    lost = think("hex", {"size": 3, "swap": "off"}, ["b2"], "medium", nodes=50, seed=1)
    assert lost.resign and lost.texts == ()
    fine = think("hex", {"size": 5, "swap": "off"}, ["c3"], "medium", nodes=50, seed=1)
    assert not fine.resign and len(fine.texts) == 1


async def test_each_level_keeps_its_own_record(service: GameService, runner: AiRunner) -> None:
    game = await bot_game(service, "hex", {"size": 3, "swap": "off"}, level="easy")
    await service.move(game.id, GUILD, ANN, "b2")
    await runner.run_once()  # proven lost: the bot resigns
    over = await service.game(game.id, GUILD)
    assert over.status == "finished" and over.reason == "resignation"
    assert await service.bot_records(GUILD) == [("easy", "hex", 0, 1, 0)]
    assert await service.leaderboard(GUILD, "hex") == []  # casual: no ratings


# -- exactly once ----------------------------------------------------------------------------------


async def test_a_claim_overtaken_by_another_worker_commits_nothing(
    service: GameService, clock: Clock
) -> None:
    game = await bot_game(service, "hex", {"size": 4, "swap": "off"})
    await service.move(game.id, GUILD, ANN, "b2")
    [first] = await aiqueue.claim(service.db, clock(), "worker-a", 1)
    clock.advance(seconds=LATER.total_seconds())  # worker a stalls past its lease
    [second] = await aiqueue.claim(service.db, clock(), "worker-b", 1)
    assert second.id == first.id and second.attempts == first.attempts + 1
    decision = think("hex", {"size": 4, "swap": "off"}, ["b2"], "easy", nodes=NODES, seed=0)
    assert await service.play_for_bot(first, "worker-a", decision) is None
    assert await service.play_for_bot(second, "worker-b", decision) is not None
    assert await service.play_for_bot(second, "worker-b", decision) is None  # done already
    assert (await service.game(game.id, GUILD)).ply == 2


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


@pytest.mark.parametrize("crash", ["searching", "after-commit"])
async def test_a_bot_move_killed_midway_is_made_once_after_the_restart(
    service: GameService, runner: AiRunner, clock: Clock, database_url: str, crash: str
) -> None:
    game = await bot_game(service, "hex", {"size": 4, "swap": "off"})
    await service.move(game.id, GUILD, ANN, "b2")
    child = await asyncio.create_subprocess_exec(
        sys.executable, "-c", KILLED_CHILD, database_url, clock.now.isoformat(), crash,
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert await asyncio.wait_for(child.wait(), timeout=60) == -signal.SIGKILL
    committed = (await service.game(game.id, GUILD)).ply
    assert committed == (1 if crash == "searching" else 2)
    assert await runner.run_once() == 0  # the dead worker's lease still holds
    clock.advance(seconds=LATER.total_seconds())
    taken = await runner.run_once()
    assert taken == (1 if crash == "searching" else 0)
    assert (await service.game(game.id, GUILD)).ply == 2  # one bot move, whatever happened
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
                await service.move(game.id, GUILD, ANN, "c3")
                ids.append(game.id)
            outputs = await run_together(TWO_WORKERS, [[url, "w1"], [url, "w2"]])
            moved = [int(word) for out in outputs for word in out.split()]
            assert sorted(moved) == sorted(ids)  # every game once, by one of them
            assert all(out.split() for out in outputs), "both took work"
            for game_id in ids:
                assert (await service.game(game_id, GUILD)).ply == 2
        finally:
            await service.close()


# -- through the fake Discord --------------------------------------------------------------------


async def test_challenging_the_bot_on_discord_gets_its_moves_in_the_thread(
    fake_discord: FakeDiscord, tmp_path: Any, clock: Clock
) -> None:
    async with world_on(fake_discord, f"sqlite:///{tmp_path / 'bot.db'}", clock) as world:
        world.settings = world.settings.model_copy(update={"ai_processes": 0, "ai_nodes": NODES})
        async with world.running():
            ann = world.users["ann"]
            options = {"game": "hex", "size": "5", "options": "swap=off", "first": "challenger"}
            handle = await world.fake.slash(
                ann, "challenge", {**options, "opponent": world.fake.bot}, channel=world.channel
            )
            message = await handle.reply()
            assert "Paperboard (medium)" in message.content and not message.custom_ids
            [game] = await world.service.games(world.guild.id, status="active")
            assert game.seats[1].bot == "medium"
            game = await settled_game(world, game.id, lambda g: g.thread_id is not None, "a thread")
            await play_typed(world, game, "c3")
            thread = world.thread(game)
            await world.fake.wait_for(
                lambda: any("Paperboard (medium)** played" in m.content for m in thread.messages),
                what="the bot's move",
            )
            answer = next(m for m in thread.messages if "** played" in m.content)
            assert answer.files and f"<@{ann.id}>" in answer.content  # the board, Ann's turn
            assert (await world.game(game.id)).ply == 2
            # a level without a mention is a game against the bot too
            handle = await world.fake.slash(
                ann, "challenge", {**options, "level": "beginner"}, channel=world.channel
            )
            assert "Paperboard (beginner)" in (await handle.reply()).content
            # other bots still cannot play
            other = world.fake.create_user("otherbot", bot=True)
            handle = await world.fake.slash(
                ann, "challenge", {**options, "opponent": other}, channel=world.channel
            )
            assert "Other bots can't play" in (await handle.reply()).content


async def test_paperboard_worker_makes_the_bots_moves_and_hands_them_over() -> None:
    async with postgres_schema() as url:
        settings = Settings(database_url=url, render_processes=0, _env_file=None)  # type: ignore[call-arg]
        service = GameService(await Database.open(url), settings)
        worker = None
        try:
            game = await bot_game(service, "hex", {"size": 5, "swap": "off"})
            await service.move(game.id, GUILD, ANN, "c3")
            env = {**os.environ, "PYTHONPATH": str(ROOT), "DATABASE_URL": url}
            env.update(AI_PROCESSES="1", AI_NODES="20", LOG_LEVEL="WARNING")
            worker = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "bot.cli", "worker", cwd=ROOT, env=env
            )
            for _ in range(600):
                if (await service.game(game.id, GUILD)).ply == 2:
                    break
                await asyncio.sleep(0.05)
            assert (await service.game(game.id, GUILD)).ply == 2
            # the bot's process announces it: its outbox pass finds it at once
            published: list[Result] = []

            async def publish(result: Result) -> None:
                published.append(result)

            for _ in range(100):
                if await service.redeliver(publish):
                    break
                await asyncio.sleep(0.05)
            assert [type(e).__name__ for r in published for e in r.events][:1] == ["MovePlayed"]
        finally:
            if worker is not None and worker.returncode is None:
                worker.send_signal(signal.SIGTERM)
                assert await asyncio.wait_for(worker.wait(), timeout=30) == 0
            await service.close()


async def test_a_player_hears_when_to_expect_the_move_when_the_queue_is_long(
    service: GameService, clock: Clock
) -> None:
    told = []
    for _ in range(3):
        game = await bot_game(service, "hex", {"size": 5, "swap": "off"}, level="hard")
        clock.advance(seconds=1)
        result = await service.move(game.id, GUILD, ANN, "c3")
        told.append([e for e in result.events if isinstance(e, BotThinking)])
    assert told[0] == []  # a worker is free (AI_PROCESSES=1): nothing to say
    [notice] = told[2]
    assert notice.ahead == 2 and notice.seconds == 30  # two 10 s searches first, then its own
    line = describe(notice, result.game, str, str)
    assert "2 searches" in line and "30 seconds" in line
