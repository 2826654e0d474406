"""The bot as an opponent: challenges, whole games of every game at a tiny search budget,
the queue's exactly-once after a restart or a kill -9, and two processes sharing it."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import io
import os
import random
import signal
import sys
import threading
from collections.abc import AsyncIterator
from typing import Any

import pytest
import sqlalchemy as sa

from bot.console import Console
from bot.console import session as console_place
from bot.schedule import airunner
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
    ServiceCode,
    UndoAnswered,
    bot_record_lines,
    describe,
    local_time,
    taken_back_text,
)
from bot.service.core import jobs as aiqueue
from bot.service.core import levels
from bot.service.core.levels import LEVELS, Level, bot_name, bot_player
from bot.service.play.aiplayer import AiPlay, think
from bot.service.play.moves import Play
from bot.settings import Settings
from bot.store import Database
from bot.store.schema import ai_jobs, moves
from tests.conftest import (
    ANN,
    BOB,
    PATIENCE_SECONDS,
    ROOT,
    Clock,
    cpu_clock,
    kept_time,
    postgres_schema,
    run_together,
)
from tests.discordkit import World, play_typed, settled_game, world_on
from tests.fakediscord import FakeDiscord
from tests.fakediscord.fixtures import fake_discord_fixture  # noqa: F401  (the fixture)

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


async def play_out(service: GameService, runner: AiRunner, game_id: int, seed: int) -> GameSummary:
    """Ann plays random legal moves, the bot answers, until the game ends."""
    rng = random.Random(seed)
    for _ in range(2_000):
        game = await service.lookups.game(game_id, GUILD)
        if game.status != "active":
            return game
        assert game.to_move is not None
        if game.seats[game.to_move].bot is None:
            state = await service.lookups.state(game_id, GUILD)
            await service.play.move(game_id, GUILD, ANN, rng.choice(state.legal_moves()))
        else:
            assert await runner.run_once() == 1
    raise AssertionError("the game did not end")


# -- challenging the bot ----------------------------------------------------------------------


async def test_the_bot_takes_its_seat_at_once_and_the_game_is_casual(service: GameService) -> None:
    game = await bot_game(service, "hex", {"size": 5, "swap": "off"}, level="hard")
    assert game.status == "active" and not game.rated
    assert [s.bot for s in game.seats] == [None, "hard"]
    assert (
        game.seats[1].player_id == LEVELS["hard"].id and game.seats[1].name == "Paperboard (hard)"
    )


async def test_a_stored_game_keeps_its_level_when_levels_are_reordered_or_added(
    service: GameService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Seats hold the bot's player id: a level's own id, so a new level first and the
    others reversed hand no stored game to another level."""
    stored = {
        level: await bot_game(service, "hex", {"size": 5, "swap": "off"}, level=level)
        for level in LEVELS
    }
    newcomer = Level(6, "novice", 1.0, 10, 0.5, "a few simulations, and many random moves")
    monkeypatch.setattr(levels, "LEVELS", levels.levels_of(newcomer, *reversed(LEVELS.values())))
    for level, game in stored.items():
        seat = (await service.lookups.game(game.id, GUILD)).seats[1]
        assert seat.bot == level, level
        assert bot_name(seat.player_id or 0) == seat.name == f"Paperboard ({level})", level
        assert bot_player(level).id == seat.player_id, level  # new games: the same player
    assert bot_name(bot_player("novice").id) == "Paperboard (novice)"


def test_each_level_has_a_name_and_an_id_of_its_own_in_the_bots_range() -> None:
    easy = LEVELS["easy"]
    for clash in (
        dataclasses.replace(easy, name="easier"),  # easy's id
        dataclasses.replace(easy, id=7),  # easy's name
        dataclasses.replace(easy, id=100, name="far"),  # a person's id
    ):
        with pytest.raises(ValueError):
            levels.levels_of(*LEVELS.values(), clash)


async def test_no_person_takes_an_id_in_the_bots_range(service: GameService) -> None:
    """Discord's and the console's ids are far above it; one there would read as the bot."""
    for person in (Player(LEVELS["easy"].id, "mallory"), Player(50, "mallory")):
        with pytest.raises(Refused) as refused:
            await service.challenges.challenge(PLACE, person, "hex", opponents=[BOB])
        assert refused.value.code == ServiceCode.BAD_ID
        with pytest.raises(Refused):
            await service.preferences.player_settings(person, reminders="dm")


async def test_the_bot_refuses_rated_games_and_unknown_levels(service: GameService) -> None:
    with pytest.raises(Refused) as rated:
        await service.challenges.challenge(PLACE, ANN, "hex", bots=["easy"], rated=True)
    assert rated.value.code == ServiceCode.UNRATED
    with pytest.raises(Refused) as level:
        await service.challenges.challenge(PLACE, ANN, "hex", bots=["grandmaster"])
    assert level.value.code == Code.BAD_OPTION and "beginner" in str(level.value)
    assert await service.lookups.games(GUILD) == []


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
        async with service.records.db.read() as conn:
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
    result = await service.challenges.challenge(
        PLACE, ANN, "hex", options={"size": 4, "swap": "off"}, bots=["easy"], first="opponent"
    )
    assert result.game.seats[0].bot == "easy" and result.game.to_move == 0
    assert await runner.run_once() == 1
    game = await service.lookups.game(result.game.id, GUILD)
    assert game.ply == 1 and game.to_move == 1


async def test_the_record_keeps_the_bots_name_apart_from_its_move(
    service: GameService, runner: AiRunner
) -> None:
    """ "Paperboard (beginner)" is longer than most names: the moves still stand in a
    column of their own, two spaces after the longest name."""
    game = await bot_game(service, "hex", {"size": 4, "swap": "off"}, level="beginner")
    await service.play.move(game.id, GUILD, ANN, "b2")
    assert await runner.run_once() == 1
    *_, first, second = (await service.lookups.record(game.id, GUILD)).text.splitlines()
    played = [row.text for row in await bot_moves(service)]
    names = [seat.name or "" for seat in game.seats]
    assert names[1] == "Paperboard (beginner)"
    column = first.rindex(played[0])
    for line, name, move in zip((first, second), names, played, strict=True):
        assert line.endswith(move) and line.rindex(move) == column, (first, second)
        assert line[:column].rstrip().endswith(name) and line[:column].endswith("  ")


async def test_undo_against_the_bot_is_granted_at_once(
    service: GameService, runner: AiRunner
) -> None:
    game = await bot_game(service, "hex", {"size": 4, "swap": "off"})
    await service.play.move(game.id, GUILD, ANN, "b2")
    await runner.run_once()
    assert (await service.lookups.game(game.id, GUILD)).ply == 2
    reply = (await service.lookups.state(game.id, GUILD)).moves[1]
    result = await service.play.request_undo(game.id, GUILD, ANN)
    names = [type(e).__name__ for e in result.events]
    assert names[0] == "UndoAnswered" and result.game.ply == 0
    assert result.game.to_move == 0  # Ann's move and the bot's answer are taken back
    undone = result.events[0]
    assert isinstance(undone, UndoAnswered)
    said = describe(undone, result.game, lambda pid: f"@{pid}", local_time)
    assert said == f"@{ANN.id}'s move b2 and the bot's reply {reply} in Hex #1 were taken back."
    assert taken_back_text(undone, result.game, str, you=ANN.id) == (
        f"Your move b2 and the bot's reply {reply} were taken back."
    )
    assert await runner.run_once() == 0  # the old job is stale: nothing for the bot to do


async def test_an_undo_with_people_and_the_bot_waits_for_the_people_only(
    service: GameService, runner: AiRunner
) -> None:
    """The bot agrees in the request itself: the request (with its buttons) is what is
    announced, waiting for Bob alone; his answer takes the move back."""
    issued = await service.challenges.challenge(
        PLACE, ANN, "intersections", opponents=[BOB], options={"size": 4}, bots=["easy"],
        first="challenger",
    )  # fmt: skip
    game = (await service.challenges.accept(issued.game.id, GUILD, BOB)).game
    ann_seat = game.seat_of(ANN.id)
    while (await service.lookups.game(game.id, GUILD)).to_move != ann_seat:  # to Ann's first move
        await take_turn(service, runner, game.id)
    state = await service.lookups.state(game.id, GUILD)
    await service.play.move(game.id, GUILD, ANN, state.legal_moves()[0])
    asked = await service.play.request_undo(game.id, GUILD, ANN)
    [request] = asked.events
    assert type(request).__name__ == "UndoRequested"
    assert request.waiting_for == (BOB.id,)  # type: ignore[attr-defined]
    ply = asked.game.ply
    done = await service.play.answer_undo(game.id, GUILD, BOB, accept=True)
    assert done.events[0].done and done.game.ply < ply  # type: ignore[attr-defined]
    said = describe(done.events[0], done.game, lambda pid: f"@{pid}", local_time)
    assert said.startswith(f"@{ANN.id}'s move ") and said.endswith(" taken back by agreement.")


async def take_turn(service: GameService, runner: AiRunner, game_id: int) -> None:
    """Whoever is to move plays: the bot by its runner, a person their first legal move."""
    game = await service.lookups.game(game_id, GUILD)
    seat = game.seats[game.to_move or 0]
    if seat.bot is not None:
        assert await runner.run_once() == 1
        return
    person = Player(seat.player_id or 0, seat.name or "")
    state = await service.lookups.state(game_id, GUILD)
    await service.play.move(game_id, GUILD, person, state.legal_moves()[0])


async def test_an_undo_the_bots_move_overtook_is_refused_and_never_posted(
    service: GameService, runner: AiRunner, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = await bot_game(service, "hex", {"size": 6, "swap": "off"})
    await service.play.move(game.id, GUILD, ANN, "b2")

    async def overtaken(*args: Any, **kwargs: Any) -> Result:
        assert await runner.run_once() == 1  # the bot's move lands between the two
        raise Refused("There is no undo request waiting for an answer.", code=ServiceCode.NO_UNDO)

    monkeypatch.setattr(service.play, "answer_undo", overtaken)
    with pytest.raises(Refused) as refused:
        await service.play.request_undo(game.id, GUILD, ANN)
    assert str(refused.value) == "The bot moved while you asked; ask for the undo again."
    clock.advance(minutes=5)
    posted: list[Result] = []

    async def keep(result: Result) -> None:
        posted.append(result)

    await service.outbox.redeliver(keep)
    assert not any(type(e).__name__ == "UndoRequested" for r in posted for e in r.events)


def test_the_levels_counted_in_simulations_answer_in_their_time_on_any_board() -> None:
    """easy's 1,000 simulations took minutes on Hot Wire 19x19 with any lengths (0.4 s a
    simulation): the level's second stops it there; a lone legal move is not searched."""
    for level in ("beginner", "easy"):
        with cpu_clock() as clock:
            began = clock()
            decision = think("hotwire", {"size": "19x19", "lengths": "any"}, [], level, seed=1)
            took = clock() - began
        assert kept_time(took, LEVELS[level].seconds)  # not 1,000 simulations' 400 s
        assert len(decision.texts) == 1 and not decision.resign


async def test_a_rematch_against_the_bot_starts_at_once(
    service: GameService, runner: AiRunner
) -> None:
    game = await bot_game(service, "hex", {"size": 3, "swap": "off"}, level="easy")
    await service.play.move(game.id, GUILD, ANN, "b2")
    await runner.run_once()  # the bot resigns a proven loss
    again = await service.challenges.rematch(game.id, GUILD, ANN)
    assert again.game.status == "active" and [s.bot for s in again.game.seats] == ["easy", None]
    assert await runner.run_once() == 1  # the seats rotated: the bot moves first now
    assert (await service.lookups.game(again.game.id, GUILD)).ply == 1


async def test_the_bot_resigns_only_a_proven_loss() -> None:
    # Hex 3x3 with Black in the centre is a proven win for Black
    lost = think("hex", {"size": 3, "swap": "off"}, ["b2"], "medium", nodes=50, seed=1)
    assert lost.resign and lost.texts == ()
    fine = think("hex", {"size": 5, "swap": "off"}, ["a1"], "medium", nodes=50, seed=1)
    assert not fine.resign and len(fine.texts) == 1
    # 9x9, far too big for the solver: Black's chain down column a lacks a5 and
    # holds b4, so a5 and b5 each complete it; the search's tree proves the loss.
    record = [move for row in (1, 2, 3, 4, 6, 7, 8, 9) for move in (f"a{row}", f"c{row}")]
    doubled = think("hex", {"size": 9, "swap": "off"}, [*record, "b4"], "medium", nodes=50, seed=1)
    assert doubled.resign and doubled.texts == ()


async def test_each_level_keeps_its_own_record(service: GameService, runner: AiRunner) -> None:
    game = await bot_game(service, "hex", {"size": 3, "swap": "off"}, level="easy")
    await service.play.move(game.id, GUILD, ANN, "b2")
    await runner.run_once()  # proven lost: the bot resigns
    over = await service.lookups.game(game.id, GUILD)
    assert over.status == "finished" and over.reason == "resignation"
    assert await service.play.bot_records(GUILD) == [("easy", "hex", 0, 1, 0)]
    assert bot_record_lines(await service.play.bot_records(GUILD)) == ["Hex: easy 0 won 1 lost"]
    assert await service.lookups.leaderboard(GUILD, "hex") == []  # casual: no ratings


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


# -- through the fake Discord --------------------------------------------------------------------


@contextlib.asynccontextmanager
async def ai_world(fake_discord: FakeDiscord, url: str, clock: Clock) -> AsyncIterator[World]:
    """tests/discordkit.py's world on `url` (the bot's searches in a thread), with the
    searches at a tiny budget."""
    async with world_on(fake_discord, url, clock) as world:
        world.settings = world.settings.model_copy(update={"ai_nodes": NODES})
        yield world


async def test_challenging_the_bot_on_discord_gets_its_moves_in_the_thread(
    fake_discord: FakeDiscord, tmp_path: Any, clock: Clock
) -> None:
    async with (
        ai_world(fake_discord, f"sqlite:///{tmp_path / 'bot.db'}", clock) as world,
        world.running(),
    ):
        ann = world.users["ann"]
        options = {"game": "hex", "size": "5", "options": "swap=off", "first": "challenger"}
        handle = await world.fake.slash(
            ann, "challenge", {**options, "opponent": world.fake.bot}, channel=world.channel
        )
        message = await handle.reply()
        assert "Paperboard (medium)" in message.content and not message.custom_ids
        [game] = await world.service.lookups.games(world.guild.id, status="active")
        assert game.seats[1].bot == "medium"
        game = await settled_game(world, game.id, lambda g: g.thread_id is not None, "a thread")
        await play_typed(world, game, "a1")
        thread = world.thread(game)
        await world.fake.wait_for(
            lambda: any("Paperboard (medium)** played" in m.content for m in thread.messages),
            timeout=PATIENCE_SECONDS,
            what="the bot's move",
        )
        answer = next(m for m in thread.messages if "** played" in m.content)
        assert answer.files and f"<@{ann.id}>" in answer.content  # the board, Ann's turn
        assert (await world.game(game.id)).ply == 2
        undo = await (await world.fake.slash(ann, "undo", {}, channel=thread)).reply()
        assert undo.content.startswith("Your move a1 and the bot's reply ")  # granted at once
        assert undo.content.endswith(" were taken back.")
        assert (await world.game(game.id)).ply == 0
        await play_typed(world, game, "a1")
        handle = await world.fake.slash(ann, "rating", {"player": world.fake.bot})
        assert "Nobody here has finished a game against me yet." in (await handle.reply()).content
        await world.service.play.resign(game.id, world.guild.id, Player(ann.id, ann.username))
        handle = await world.fake.slash(ann, "rating", {"player": world.fake.bot, "game": "hex"})
        assert "Hex: medium 1 won 0 lost" in (await handle.reply()).content
        mine = (await (await world.fake.slash(ann, "rating", {})).reply()).content
        assert "No rated games here yet.\nHex against the bot: medium 0 won 1 lost" in mine
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


async def test_a_player_hears_when_to_expect_the_move_when_the_queue_is_long(
    service: GameService, clock: Clock
) -> None:
    told = []
    for _ in range(3):
        game = await bot_game(service, "hex", {"size": 5, "swap": "off"}, level="hard")
        clock.advance(seconds=1)
        result = await service.play.move(game.id, GUILD, ANN, "a1")
        told.append([e for e in result.events if isinstance(e, BotThinking)])
    assert told[0] == []  # a worker is free (AI_PROCESSES=1): nothing to say
    [notice] = told[2]
    assert notice.ahead == 2 and notice.seconds == 30  # two 10 s searches first, then its own
    line = describe(notice, result.game, str, str)
    assert "2 searches" in line and "30 seconds" in line


# -- analysis and hints ----------------------------------------------------------------------------


async def human_game(
    service: GameService, moves: list[str], *, size: int = 4, **extra: Any
) -> GameSummary:
    issued = await service.challenges.challenge(
        PLACE, ANN, "hex", opponents=[BOB], options={"size": size, "swap": "off"},
        first="challenger", **extra,
    )  # fmt: skip
    game = (await service.challenges.accept(issued.game.id, GUILD, BOB)).game
    for i, move in enumerate(moves):
        game = (await service.play.move(game.id, GUILD, (ANN, BOB)[i % 2], move)).game
    return game


async def test_analysis_is_refused_for_a_game_under_way_between_people(
    service: GameService,
) -> None:
    game = await human_game(service, ["b2", "c3"])
    with pytest.raises(Refused) as refused:
        await service.analysis.analysis(game.id, GUILD)
    assert refused.value.code == ServiceCode.ENGINE_HELP and "cheating" in str(refused.value)
    async with service.records.db.read() as conn:
        assert await conn.scalar(sa.select(sa.func.count()).select_from(ai_jobs)) == 0


async def test_a_finished_games_analysis_is_stored_and_instant_the_second_time(
    service: GameService, runner: AiRunner, database_url: str, clock: Clock
) -> None:
    game = await human_game(service, ["a1", "b1", "a2", "b2", "a3", "b3", "a4"])
    assert game.status == "finished"
    first = await service.analysis.analysis(game.id, GUILD)
    assert not first.done and first.total == 8
    assert await runner.run_once() == 1
    done = await service.analysis.analysis(game.id, GUILD)
    assert done.done and done.progress == done.total == 8
    assert done.png.startswith(b"\x89PNG") and len(done.png) <= 200_000
    assert "move " in done.text and "forced win" in done.text
    # a restart: another service on the same database answers at once, with no worker
    settings = Settings(database_url=database_url, render_processes=0, _env_file=None)  # type: ignore[call-arg]
    again = GameService(await Database.open(database_url), settings, clock=clock)
    try:
        stored = await again.analysis.analysis(game.id, GUILD)
        assert stored.done and stored.text == done.text and stored.png == done.png
    finally:
        await again.close()


async def test_an_analysis_proves_what_the_solver_proves_and_calls_the_rest_estimates(
    service: GameService, runner: AiRunner
) -> None:
    """Hex 5x5 after c3: `paperboard ai hex --option size=5 --option swap=off --moves c3
    --solve` proves Black wins, but the analysis said "move 2 d2: White 33% -> 27%;
    better was b5" and "from move 4 Black had a forced win". It proves the positions
    from the last backwards now (the played move tried first, the solver's table kept),
    so the win is proven from the start and White's moves in a lost game are no swings."""
    record = ["c3", "d2", "a2", "c2", "b3", "c4", "a5", "b2", "a3", "e1", "a1", "a4", "b4"]
    game = await human_game(service, record, size=5)
    assert game.status == "finished"
    await service.analysis.analysis(game.id, GUILD)
    await runner.run_once()
    done = await service.analysis.analysis(game.id, GUILD)
    assert done.done
    assert done.text.splitlines() == [
        "no move changed the chances much",
        "Black had a forced win from the start (proven)",
    ]


async def test_the_bots_moves_never_wait_behind_an_analysis(
    service: GameService, runner: AiRunner, clock: Clock
) -> None:
    """An analysis takes a whole game's positions (minutes for a long one); a bot's move
    is seconds and a player waits for it: the two lanes are claimed apart, so the move
    is taken beside an analysis asked for earlier, and its player is told of no wait."""
    finished = await human_game(service, ["a1", "b1", "a2", "b2", "a3", "b3", "a4"])
    assert not (await service.analysis.analysis(finished.id, GUILD)).done
    clock.advance(seconds=1)
    game = await bot_game(service, "hex", {"size": 5, "swap": "off"})
    result = await service.play.move(game.id, GUILD, ANN, "a1")
    assert not [e for e in result.events if isinstance(e, BotThinking)]  # none ahead of it
    assert await runner.run_once() == 2  # one slot in each lane
    assert (await service.lookups.game(game.id, GUILD)).ply == 2  # the bot answered
    assert (await service.analysis.analysis(finished.id, GUILD)).done


@pytest.mark.both_backends
async def test_a_search_of_a_position_an_undo_took_back_is_never_committed(
    service: GameService,
) -> None:
    """A worker is still searching the bot's answer to b2 when Ann takes b2 back and
    plays e5; the same worker claims the new job. The old search must not be played
    (on SQLite a deleted job's id came back with attempts 1: the same claim token)."""
    game = await bot_game(service, "hex", {"size": 5, "swap": "off"})
    await service.play.move(game.id, GUILD, ANN, "b2")
    [old] = await aiqueue.claim(
        service.records.db, service.records.clock(), "worker", 2, analyses=False
    )
    stale = think("hex", {"size": 5, "swap": "off"}, ["b2"], "easy", nodes=NODES, seed=0)
    assert (await service.play.request_undo(game.id, GUILD, ANN)).game.ply == 0
    await service.play.move(game.id, GUILD, ANN, "e5")
    [new] = await aiqueue.claim(
        service.records.db, service.records.clock(), "worker", 2, analyses=False
    )
    assert (new.id, new.attempts) != (old.id, old.attempts)
    assert await service.play.play_for_bot(old, "worker", stale) is None
    assert (await service.lookups.state(game.id, GUILD)).moves == ("e5",)


async def test_a_move_job_a_worker_took_at_once_is_no_queue_for_its_player(
    service: GameService, clock: Clock
) -> None:
    """The runner is woken at the commit and often claims the bot's move before its
    player's answer is made: that job is not a queue ahead of itself."""
    game = await bot_game(service, "hex", {"size": 5, "swap": "off"})
    await service.play.move(game.id, GUILD, ANN, "a1")
    [claimed] = await aiqueue.claim(service.records.db, clock(), "worker-a", 1, analyses=False)
    async with service.records.db.read() as conn:
        row = await aiqueue.job_row(conn, game.id, "move", 1)
        assert row.id == claimed.id and await aiqueue.ahead_of(conn, row, clock()) == 0


async def test_an_analysis_that_keeps_failing_is_put_aside_until_asked_again(
    service: GameService, runner: AiRunner, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    finished = await human_game(service, ["a1", "b1", "a2", "b2", "a3", "b3", "a4"])
    await service.analysis.analysis(finished.id, GUILD)
    work_on = service.analysis.work_on

    async def broken(job: Any) -> Any:
        raise RuntimeError("a bug in the analysis")

    monkeypatch.setattr(service.analysis, "work_on", broken)
    claims = 0
    while await runner.run_once():  # each failed claim's lease runs out, then it is retried
        claims += 1
        clock.advance(seconds=LATER.total_seconds())
    assert claims == airunner.GIVE_UP_ATTEMPTS  # then put aside: no worker spent on it
    monkeypatch.setattr(service.analysis, "work_on", work_on)
    assert not (await service.analysis.analysis(finished.id, GUILD)).done  # asked again: queued
    assert await runner.run_once() == 1
    assert (await service.analysis.analysis(finished.id, GUILD)).done


async def test_hints_only_in_a_casual_game_against_the_bot(
    service: GameService, runner: AiRunner
) -> None:
    rated = await human_game(service, ["b2"], rated=True)
    with pytest.raises(Refused) as refused:
        await service.analysis.hint(rated.id, GUILD, BOB.id)
    assert refused.value.code == ServiceCode.NOT_AGAINST_BOT
    game = await bot_game(service, "hex", {"size": 4, "swap": "off"})
    asked = await service.analysis.hint(game.id, GUILD, ANN.id)
    assert asked.move is None
    assert await runner.run_once() == 1
    hint = await service.analysis.hint(game.id, GUILD, ANN.id)
    state = await service.lookups.state(game.id, GUILD)
    assert hint.move in state.legal_moves() and hint.png.startswith(b"\x89PNG")
    # the game against the bot may be analysed while it runs, by its player
    assert not (await service.analysis.analysis(game.id, GUILD, ANN.id)).done
    for someone in (BOB.id, None):  # anyone else: help for the player against the bot
        with pytest.raises(Refused) as refused:
            await service.analysis.analysis(game.id, GUILD, someone)
        assert refused.value.code == ServiceCode.ENGINE_HELP


async def test_no_help_where_another_person_shares_the_game_with_the_bot(
    service: GameService,
) -> None:
    """Making Intersections with Ann, Bob and the bot: neither hint nor analysis while it
    runs, for either of them or anyone else, and nothing is queued."""
    issued = await service.challenges.challenge(
        PLACE, ANN, "intersections", opponents=[BOB], options={"size": 4}, bots=["easy"],
        first="challenger",
    )  # fmt: skip
    game = (await service.challenges.accept(issued.game.id, GUILD, BOB)).game
    assert game.status == "active" and game.player_to_move == ANN.id
    for asker in (ANN, BOB):
        with pytest.raises(Refused) as refused:
            await service.analysis.hint(game.id, GUILD, asker.id)
        assert refused.value.code == ServiceCode.NOT_AGAINST_BOT
    for someone in (ANN.id, BOB.id, 999, None):
        with pytest.raises(Refused) as refused:
            await service.analysis.analysis(game.id, GUILD, someone)
        assert refused.value.code == ServiceCode.ENGINE_HELP and "cheating" in str(refused.value)
    async with service.records.db.read() as conn:
        kinds = (await conn.scalars(sa.select(ai_jobs.c.kind))).all()
    assert "hint" not in kinds and "analysis" not in kinds


async def test_a_hint_the_worker_gave_up_on_is_asked_again(
    service: GameService, runner: AiRunner
) -> None:
    """A hint job finished with nothing (the game had moved on, then came back to this
    position by an undo) is queued again, not waited on forever."""
    game = await bot_game(service, "hex", {"size": 4, "swap": "off"})
    assert (await service.analysis.hint(game.id, GUILD, ANN.id)).move is None
    async with service.records.db.write() as conn:
        job = await aiqueue.job_row(conn, game.id, "hint", 0)
        await aiqueue.finish(conn, job.id, service.records.clock())  # no result
    assert (await service.analysis.hint(game.id, GUILD, ANN.id)).move is None  # queued again
    assert await runner.run_once() == 1
    assert (await service.analysis.hint(game.id, GUILD, ANN.id)).move is not None


async def test_after_an_undo_hints_and_analyses_are_of_the_moves_played_now(
    service: GameService,
) -> None:
    """An undo takes the hints and analyses of the positions taken back with them: the
    game comes back to the same ply another way, and the old hint's cell is taken.
    (6x6: on a smaller board the bot may resign a lost game at once. Few simulations: an
    analysis gives the solver a budget in proportion, and a 6x6 proof attempt of 100
    nodes takes seconds per position.)"""
    runner = AiRunner(service, Delivered(service), processes=0, nodes=2)
    try:
        game = await bot_game(service, "hex", {"size": 6, "swap": "off"})
        await service.play.move(game.id, GUILD, ANN, "a1")
        assert await runner.run_once() == 1  # the bot's answer
        await service.analysis.hint(game.id, GUILD, ANN.id)
        await service.analysis.analysis(game.id, GUILD, ANN.id)
        assert await runner.run_once() + await runner.run_once() == 2
        old_hint = (await service.analysis.hint(game.id, GUILD, ANN.id)).move
        old_analysis = await service.analysis.analysis(game.id, GUILD, ANN.id)
        assert old_hint is not None and old_analysis.done
        assert (
            await service.play.request_undo(game.id, GUILD, ANN)
        ).game.ply == 0  # granted at once
        await service.play.move(game.id, GUILD, ANN, old_hint)
        assert await runner.run_once() == 1  # ply 2 again, in another position
        assert (
            await service.analysis.hint(game.id, GUILD, ANN.id)
        ).move is None  # thought about afresh
        assert not (await service.analysis.analysis(game.id, GUILD, ANN.id)).done
        assert await runner.run_once() + await runner.run_once() == 2
        state = await service.lookups.state(game.id, GUILD)
        assert (await service.analysis.hint(game.id, GUILD, ANN.id)).move in state.legal_moves()
        analysis = await service.analysis.analysis(game.id, GUILD, ANN.id)
        assert analysis.done and "move 1 a1" not in analysis.text  # a1 was taken back
    finally:
        await runner.stop()


@pytest.mark.both_backends
async def test_finished_move_and_hint_jobs_are_cleaned_up_after_a_day(
    service: GameService, runner: AiRunner, clock: Clock
) -> None:
    game = await bot_game(service, "hex", {"size": 4, "swap": "off"})
    await service.play.move(game.id, GUILD, ANN, "b2")
    assert await runner.run_once() == 1  # the bot's move
    await service.analysis.hint(game.id, GUILD, ANN.id)
    assert await runner.run_once() == 1
    waiting = await bot_game(service, "hex", {"size": 4, "swap": "off"})
    await service.play.move(waiting.id, GUILD, ANN, "b2")  # its move job stays queued
    assert await service.schedule.cleanup_ai_jobs() == 0  # finished, but not a day ago
    clock.advance(days=1, seconds=1)
    assert await service.schedule.cleanup_ai_jobs() == 2  # the bot's move and the hint
    async with service.records.db.read() as conn:
        left = (await conn.execute(sa.select(ai_jobs.c.game_id, ai_jobs.c.done))).all()
    assert left == [(waiting.id, False)]


@contextlib.asynccontextmanager
async def playing_the_bot(console: Console) -> AsyncIterator[Console]:
    """The console with an AI runner that plays the bot in its own process (NODES a search)."""
    runner = AiRunner(console.service, console.bot_moved, processes=0, nodes=NODES)
    console.runner = runner
    try:
        yield console
    finally:
        await runner.stop()


@contextlib.asynccontextmanager
async def console_with_the_bot(
    tmp_path: Any,
) -> AsyncIterator[tuple[GameService, Console, io.StringIO]]:
    """A console on its own SQLite file whose AI runner plays the bot (NODES a search)."""
    url = f"sqlite:///{tmp_path / 'pb.db'}"
    settings = Settings(database_url=url, render_processes=0, _env_file=None)  # type: ignore[call-arg]
    service = GameService(await Database.open(url), settings, rng=random.Random(3))
    out = io.StringIO()
    try:
        async with playing_the_bot(Console(service, out, tmp_path / "boards")) as console:
            yield service, console, out
    finally:
        await service.close()


async def test_the_console_plays_the_bot_and_analyses_the_game(tmp_path: Any) -> None:
    async with console_with_the_bot(tmp_path) as (_, console, out):
        lines = ["challenge hex @ai level=easy size=3 swap=off first=challenger", "b2"]
        await console.run(lines)
        text = out.getvalue()
        assert "@Paperboard (easy)" in text and "resign" in text  # proven lost: it resigns
        await console.run(["hint", "analysis 1", "rating @ai", "rating @Paperboard", "rating"])
        text = out.getvalue()
        assert text.count("Hex: easy 0 won 1 lost") == 2  # @ai and @Paperboard: the bot
        # the player's own casual games against the bot, which no rating counts
        assert "player has no rated games yet.\nHex against the bot: easy 1 won 0 lost" in text
        assert "Hints are for your casual games" not in text
        assert "Analysis of Hex #1" in text and "Chart:" in text
        assert (tmp_path / "boards" / "game-1-analysis.png").exists()


async def test_the_console_lets_the_bot_move_whenever_its_turn_comes(tmp_path: Any) -> None:
    """Not only after a move: a rematch that seats the bot first, and a session started
    while the bot owed a move (the last one ended during its search)."""
    async with console_with_the_bot(tmp_path) as (service, console, _):
        lines = ["challenge hex @ai level=easy size=6 swap=off first=challenger", "c3"]
        await console.run([*lines, "resign", "y", "rematch"])
        rematch = await service.lookups.game(2, console_place.GUILD)
        assert rematch.status == "active" and rematch.ply == 1  # the bot opened it
        place = Place(console_place.GUILD, console_place.CHANNEL)
        owed = await service.challenges.challenge(
            place, console.me, "hex", options={"size": 6, "swap": "off"}, bots=["easy"],
            first="opponent",
        )  # fmt: skip
        assert owed.game.status == "active" and owed.game.ply == 0
        await console.run([])
        assert (await service.lookups.game(owed.game.id, console_place.GUILD)).ply == 1


async def test_at_a_terminal_the_console_answers_while_the_bot_thinks(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A search of a minute (level max) holds nothing: the player types on, and the bot's
    move is printed when it comes."""
    released = threading.Event()

    def held_search(*args: Any) -> Any:
        released.wait(timeout=60)  # the search "takes" until the test lets it finish
        return think(*args)

    monkeypatch.setattr(airunner, "think", held_search)
    async with console_with_the_bot(tmp_path) as (service, console, out):
        lines = ["challenge hex @ai level=easy size=5 swap=off first=challenger", "a1"]
        await console.run([*lines, "rules hex", "games"], interactive=True)
        said = out.getvalue()
        assert "@Paperboard (easy) is thinking about its move in Hex #1." in said
        assert "Hex (2 players)" in said  # the rules card, while the bot thinks
        assert "#1 Hex active: player vs Paperboard (easy), move 1, " in said, said
        assert "@Paperboard (easy) played" not in said
        released.set()
        for _ in range(600):  # the bot's move comes in its own time
            if "@Paperboard (easy) played" in out.getvalue():
                break
            await asyncio.sleep(0.05)
        assert out.getvalue().count("@Paperboard (easy) played") == 1
        assert (await service.lookups.game(1, console_place.GUILD)).ply == 2


async def test_a_piped_script_sees_the_bots_reply_before_its_next_line(tmp_path: Any) -> None:
    async with console_with_the_bot(tmp_path) as (_, console, out):
        lines = ["challenge hex @ai level=easy size=5 swap=off first=challenger", "a1", "games"]
        await console.run(lines)
        said = out.getvalue().splitlines()
        played = next(i for i, line in enumerate(said) if "@Paperboard (easy) played" in line)
        listed = next(i for i, line in enumerate(said) if line.startswith("#1 Hex active"))
        assert played < listed and ", move 2, " in said[listed], said


async def test_analysis_on_discord_edits_one_message_into_the_chart(
    fake_discord: FakeDiscord, tmp_path: Any, clock: Clock
) -> None:
    async with ai_world(fake_discord, f"sqlite:///{tmp_path / 'bot.db'}", clock) as world:
        ann, bob = (Player(world.users[n].id, n) for n in ("ann", "bob"))
        place = Place(world.guild.id, world.channel.id)
        issued = await world.service.challenges.challenge(
            place, ann, "hex", opponents=[bob], options={"size": 4, "swap": "off"},
            first="challenger",
        )  # fmt: skip
        game = (await world.service.challenges.accept(issued.game.id, world.guild.id, bob)).game
        async with world.running():
            user = world.users["ann"]
            handle = await world.fake.slash(
                user, "analysis", {"game": game.id}, channel=world.channel
            )
            refused = await handle.reply()
            assert refused.ephemeral and "cheating" in refused.content
            for i, move in enumerate(["a1", "b1", "a2", "b2", "a3", "b3", "a4"]):
                await world.service.play.move(game.id, world.guild.id, (ann, bob)[i % 2], move)
            handle = await world.fake.slash(
                user, "analysis", {"game": game.id}, channel=world.channel
            )
            message = await handle.reply()
            assert not message.ephemeral
            await world.fake.wait_for(
                lambda: bool(message.files), PATIENCE_SECONDS, what="the chart"
            )
            assert f"Analysis of Hex #{game.id}" in message.content
            (png,) = message.files.values()
            assert png.startswith(b"\x89PNG") and len(png) <= 200_000


async def test_a_move_that_leaves_the_bot_to_move_calls_the_hook_before_the_board(
    service: GameService,
) -> None:
    """`Play.on_bot_turn` is the one hook (no method a subclass overrides): a person's move
    that leaves the bot to move calls it once, before the player's board is drawn; a move
    after which a person moves does not."""
    assert "on_bot_turn" in vars(Play) and not hasattr(Play, "committed")
    assert not {"on_bot_turn", "committed"} & set(vars(AiPlay))
    heard: list[str] = []
    drawing = service.records.render

    async def render(*args: Any, **kwargs: Any) -> bytes:
        heard.append("board")
        return await drawing(*args, **kwargs)

    service.records.render = render  # type: ignore[method-assign]
    service.play.on_bot_turn = lambda: heard.append("bot")
    game = await bot_game(service, "hex", {"size": 4, "swap": "off"})
    await service.play.move(game.id, GUILD, ANN, "b2")
    assert heard == ["bot", "board"]
    people = await service.challenges.challenge(
        PLACE, ANN, "hex", opponents=[BOB], first="challenger"
    )
    await service.challenges.accept(people.game.id, GUILD, BOB)
    heard.clear()
    await service.play.move(people.game.id, GUILD, ANN, "b2")
    assert heard == ["board"]
