"""The outbox: a use case's events are stored in its transaction and delivered after it,
so a process killed between the commit and the send announces nothing twice and loses
nothing (issue 10, item 2). On SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import io
import json
import os
import random
import signal
import sys
import types
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints

import pytest
import sqlalchemy as sa

from bot.console import Console
from bot.schedule import Scheduler
from bot.service import Event, GameService, Player, Reminder, Result, ServiceCode
from bot.service.core import models, outbox
from bot.settings import Settings
from bot.store import Database
from bot.store.schema import outbox as outbox_table
from engine import Code
from tests.conftest import ANN, BOB, PATIENCE_SECONDS, Clock
from tests.discordkit import World, play_slash, play_typed, start, world_on
from tests.fakediscord import FakeDiscord
from tests.fakediscord.fixtures import fake_discord_fixture  # noqa: F401  (the fixture)
from tests.servicekit import GUILD, PLACE, refused
from tests.servicekit import start as start_game

ROOT = Path(__file__).resolve().parents[1]
LATER = outbox.LEASE * 2  # past the lease of a row its writer never marked


class Published:
    """A delivery callback that records what it was given."""

    def __init__(self) -> None:
        self.results: list[Result] = []

    async def __call__(self, result: Result) -> None:
        self.results.append(result)


async def stored(service: GameService) -> list[Any]:
    async with service.records.db.read() as conn:
        return list((await conn.execute(sa.select(outbox_table).order_by("id"))).all())


async def mark_all_delivered(service: GameService) -> None:
    """What an adapter does with each result the tests got straight from the service."""
    for row in await stored(service):
        await outbox.mark_delivered(service.records, row.id)


def events_of(row: Any) -> tuple[Event, ...]:
    return tuple(outbox.event_from_json(data) for data in row.events)


# -- writing -----------------------------------------------------------------------------------


async def test_each_use_case_writes_its_events_in_its_transaction(
    service: GameService, clock: Clock
) -> None:
    issued = await service.challenges.challenge(
        PLACE, ANN, "hex", opponents=[BOB], first="challenger"
    )
    started = await service.challenges.accept(issued.game.id, GUILD, BOB)
    moved = await service.play.move(issued.game.id, GUILD, ANN, "b2")
    asked = await service.play.request_undo(issued.game.id, GUILD, ANN)
    answered = await service.play.answer_undo(issued.game.id, GUILD, BOB, accept=False)
    resigned = await service.play.resign(issued.game.id, GUILD, BOB)
    results = [issued, started, moved, asked, answered, resigned]
    rows = await stored(service)
    assert [r.id for r in rows] == [r.outbox_id for r in results]
    assert [events_of(r) for r in rows] == [r.events for r in results]
    assert all(r.game_id == issued.game.id and r.delivered_at is None for r in rows)
    # leased to the process that wrote them, which delivers them at once
    assert {(r.claimed_by, r.claimed_until) for r in rows} == {
        (service.records.worker_id, clock.now + outbox.LEASE)
    }


async def test_a_refused_or_rolled_back_use_case_writes_nothing(
    service: GameService, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = await start_game(service, "hex", {"size": 5})
    before = await stored(service)
    await refused(ServiceCode.NOT_YOUR_TURN, service.play.move(game.id, GUILD, BOB, "b2"))
    await refused(Code.OFF_BOARD, service.play.move(game.id, GUILD, ANN, "z9"))
    await refused(ServiceCode.NOT_OPEN, service.challenges.accept(game.id, GUILD, ANN))
    await refused(ServiceCode.NOTHING_TO_UNDO, service.play.request_undo(game.id, GUILD, BOB))

    async def announce_then_fail(conn: Any, result: Result) -> Result:
        await outbox.write(service.records, conn, result)
        raise RuntimeError("the transaction fails after the outbox write")

    monkeypatch.setattr(service.records, "announce", announce_then_fail)
    with pytest.raises(RuntimeError):
        await service.play.move(game.id, GUILD, ANN, "b2")
    assert await stored(service) == before
    assert (await service.lookups.game(game.id, GUILD)).ply == 0  # the move went with its events


# -- delivering --------------------------------------------------------------------------------


@pytest.mark.both_backends
async def test_a_failed_mail_is_sent_again_without_posting_the_result_twice(
    service: GameService, clock: Clock
) -> None:
    """A delivery beside the adapter's (mail) fails after the post went out: the outbox
    delivers the row again for the mail alone."""
    game = await start_game(service, "hex", {"size": 5})
    await mark_all_delivered(service)
    mailed: list[Result] = []

    async def mail(result: Result) -> None:
        mailed.append(result)
        if len(mailed) == 1:
            raise ConnectionError("the mail server is away")

    service.records.also_publish.append(mail)
    posted = Published()
    moved = await service.play.move(game.id, GUILD, ANN, "b2")
    with pytest.raises(ConnectionError):
        await service.outbox.deliver(moved, posted)
    clock.now += LATER
    again = Published()
    assert await service.outbox.redeliver(again) == 1
    assert posted.results == [moved] and again.results == []  # posted once
    assert [r.outbox_id for r in mailed] == [moved.outbox_id] * 2  # mailed again
    assert await service.outbox.redeliver(again) == 0


async def test_delivered_rows_are_marked_and_failed_ones_go_again(
    service: GameService, clock: Clock
) -> None:
    game = await start_game(service, "hex", {"size": 5})
    await mark_all_delivered(service)
    published = Published()
    moved = await service.play.move(game.id, GUILD, ANN, "b2")
    await service.outbox.deliver(moved, published)
    assert published.results == [moved]
    [row] = [r for r in await stored(service) if r.id == moved.outbox_id]
    assert row.delivered_at == clock.now

    async def broken(result: Result) -> None:
        raise ConnectionError("Discord is away")

    answer = await service.play.move(game.id, GUILD, BOB, "c3")
    with pytest.raises(ConnectionError):
        await service.outbox.deliver(answer, broken)
    await service.play.move(game.id, GUILD, ANN, "d4")  # the game moves on meanwhile
    assert await service.outbox.redeliver(published) == 0  # the failed row is still leased
    clock.now += LATER
    late = Published()
    assert await service.outbox.redeliver(late) == 2  # the failed one and the undelivered d4
    assert [r.outbox_id for r in late.results] == [answer.outbox_id, answer.outbox_id + 1]
    assert late.results[0].events == answer.events
    assert late.results[0].game.ply == 3  # the game as it is at delivery time
    assert await service.outbox.redeliver(late) == 0  # each once
    delivered = len(await stored(service))
    clock.now += outbox.KEEP + LATER
    fresh = await service.play.move(game.id, GUILD, BOB, "e5")  # not delivered yet: kept
    assert await service.schedule.cleanup_outbox() == delivered
    assert [r.id for r in await stored(service)] == [fresh.outbox_id]


@pytest.mark.both_backends
async def test_a_claimed_row_waits_for_its_lease_to_run_out(
    service: GameService, clock: Clock
) -> None:
    game = await start_game(service, "hex", {"size": 5})
    assert await outbox.claim(service.records, "other") == []  # each leased to its writer
    clock.now += LATER
    first = await outbox.claim(service.records, "one")
    assert [p.game_id for p in first] == [game.id] * 2 and all(p.attempts == 2 for p in first)
    assert await outbox.claim(service.records, "two") == []
    clock.now += LATER
    assert [p.id for p in await outbox.claim(service.records, "two")] == [p.id for p in first]


@pytest.mark.both_backends
async def test_a_slow_delivery_keeps_its_row_from_a_second_posting(
    service: GameService, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Discord takes longer than the lease to take a post (retries, rate limits): the
    delivery under way renews the lease, so the outbox pass does not post it again."""
    monkeypatch.setattr(outbox, "RENEW", timedelta(seconds=0.05), raising=False)
    game = await start_game(service, "hex", {"size": 5})
    await mark_all_delivered(service)
    moved = await service.play.move(game.id, GUILD, ANN, "b2")

    advanced, posted = asyncio.Event(), asyncio.Event()

    async def slow(result: Result) -> None:
        clock.advance(minutes=2)  # past the lease it was written with
        advanced.set()
        await posted.wait()  # still posting

    delivering = asyncio.create_task(service.outbox.deliver(moved, slow))
    await advanced.wait()
    for _ in range(500):  # the renewal's next beat, however busy the machine
        waiting = [row for row in await stored(service) if row.delivered_at is None]
        if all(row.claimed_until > clock() for row in waiting):
            break
        await asyncio.sleep(0.02)
    again = Published()
    assert await service.outbox.redeliver(again, worker="the-minute-pass") == 0
    posted.set()
    await delivering
    assert again.results == [] and all(r.delivered_at for r in await stored(service))


@pytest.mark.both_backends
@pytest.mark.parametrize("holder", ["replies", "dies"])
async def test_a_reply_held_past_the_lease_keeps_its_row_from_every_other_pass(
    database_url: str, clock: Clock, monkeypatch: pytest.MonkeyPatch, holder: str
) -> None:
    """The bot answers an interaction before it delivers the result (`/move`'s board):
    however long the answer takes, the row stays its writer's, so no other process's
    pass posts it too; once the writer is gone, another process delivers it once."""
    monkeypatch.setattr(outbox, "RENEW", timedelta(seconds=0.02))
    one, two = await _open(database_url, clock), await _open(database_url, clock)
    try:
        game = await start_game(one, "hex", {"size": 5})
        await mark_all_delivered(one)
        one.records.holds_until_delivered = True  # as the Discord bot's service
        written: asyncio.Future[Result] = asyncio.get_running_loop().create_future()
        answered = asyncio.Event()
        posted, elsewhere = Published(), Published()

        async def interaction() -> None:  # one task, as discord.py runs each
            moved = await one.play.move(game.id, GUILD, ANN, "b2")
            written.set_result(moved)
            await answered.wait()  # the interaction's answer, slower than the lease
            await one.outbox.deliver(moved, posted)

        handling = asyncio.create_task(interaction())
        moved = await written
        for _ in range(3):  # three leases pass while the answer is under way
            clock.now += LATER
            await _renewed(one, moved.outbox_id or 0, clock.now)
            assert await two.outbox.redeliver(elsewhere) == 0
        if holder == "replies":
            answered.set()
            await handling
            assert posted.results == [moved]
        else:
            handling.cancel()  # the holder dies mid-answer: nothing renews its row now
            with pytest.raises(asyncio.CancelledError):
                await handling
            clock.now += LATER
            await asyncio.wait_for(_redelivered(two, elsewhere), PATIENCE_SECONDS)
            assert [r.outbox_id for r in elsewhere.results] == [moved.outbox_id]
            assert posted.results == []
        assert await two.outbox.redeliver(elsewhere) == await one.outbox.redeliver(elsewhere) == 0
        assert len(posted.results) + len(elsewhere.results) == 1
    finally:
        for service in (one, two):
            await service.close()


async def _redelivered(service: GameService, publish: Published) -> None:
    """Redeliver until a row goes: a renewal cut short by its holder's end may keep the
    row locked a moment (PostgreSQL's claim skips a locked row)."""
    while not await service.outbox.redeliver(publish):
        await asyncio.sleep(0.01)


async def _renewed(service: GameService, outbox_id: int, now: datetime) -> None:
    """Wait for the row's lease to be renewed past `now` (its holder renews it often)."""
    deadline = asyncio.get_running_loop().time() + PATIENCE_SECONDS
    while True:
        [row] = [r for r in await stored(service) if r.id == outbox_id]
        if row.claimed_until is not None and row.claimed_until > now:
            return
        assert asyncio.get_running_loop().time() < deadline, "the row's lease ran out"
        await asyncio.sleep(0.01)


@pytest.mark.both_backends
async def test_two_processes_never_claim_the_same_row(database_url: str, clock: Clock) -> None:
    services = [await _open(database_url, clock) for _ in range(2)]
    try:
        for i in range(20):
            await services[0].challenges.challenge(
                PLACE, Player(500 + i, f"p{i}"), "hex", open_seats=1
            )
        clock.now += LATER
        claims = await asyncio.gather(
            *(outbox.claim(services[i % 2].records, f"w{i}", limit=3) for i in range(10))
        )
    finally:
        for service in services:
            await service.close()
    ids = [p.id for found in claims for p in found]
    assert len(ids) == len(set(ids)) == 20


def test_every_event_class_round_trips_through_json() -> None:
    """Every Event subclass of the service (a new one included) survives the outbox."""
    declared = {
        cls
        for _, cls in inspect.getmembers(models, inspect.isclass)
        if issubclass(cls, Event) and cls is not Event
    }
    assert set(outbox.event_types().values()) == declared
    for cls in declared:
        for variant in (0, 1):
            event = _sample(cls, variant)
            text = json.dumps(outbox.event_to_json(event))
            assert outbox.event_from_json(json.loads(text)) == event, cls.__name__


def _sample(hint: Any, variant: int) -> Any:
    """A value of the type `hint`: variant 0 fills optional values, 1 leaves them None."""
    origin = get_origin(hint)
    if origin in (Union, types.UnionType):
        options = [a for a in get_args(hint) if a is not type(None)]
        return None if variant else _sample(options[0], variant)
    if origin is tuple:
        return (_sample(get_args(hint)[0], variant), _sample(get_args(hint)[0], variant))
    if origin is Literal:
        return get_args(hint)[variant % len(get_args(hint))]
    if dataclasses.is_dataclass(hint):
        hints = get_type_hints(hint)
        fields = dataclasses.fields(hint)
        return hint(**{f.name: _sample(hints[f.name], variant) for f in fields})
    samples: dict[Any, Any] = {
        int: 7 + variant,
        float: 1.5 + variant,
        str: f"text {variant}",
        bool: bool(variant),
        datetime: datetime(2026, 11, 21, 12, 30, tzinfo=UTC),
    }
    if hint not in samples:
        raise AssertionError(f"the outbox test has no sample of {hint!r}: teach it, and the outbox")
    return samples[hint]


async def test_the_console_prints_each_result_and_marks_it(
    service: GameService, clock: Clock, tmp_path: Path
) -> None:
    out = io.StringIO()
    console = Console(service, out, tmp_path)
    lines = ["as ann", "challenge hex @bob size=5 first=challenger", "as bob", "accept", "as ann"]
    await console.run([*lines, "b2"])
    rows = await stored(service)
    assert len(rows) == 3 and all(r.delivered_at is not None for r in rows)
    game = (await service.lookups.games(0))[0]
    bob = Player(game.seats[1].player_id or 0, "bob")
    await service.play.move(game.id, 0, bob, "c3")  # a console that died before printing it
    clock.now += LATER
    assert await Scheduler(service, console.print_result).redeliver() == 1
    assert out.getvalue().count("c3") == 1


# -- kill -9 between the commit and the send -----------------------------------------------------

REMINDER_CHILD = """
import asyncio, os, signal, sys
from datetime import datetime
from bot.console import Console
from bot.schedule import Scheduler
from bot.service import GameService
from bot.settings import Settings
from bot.store import Database

async def main(url, when):
    at = datetime.fromisoformat(when)
    settings = Settings(database_url=url, render_processes=0, _env_file=None)
    service = GameService(await Database.open(url), settings, clock=lambda: at)
    async def die(result):  # the delivery: the process dies right after the commit
        os.kill(os.getpid(), signal.SIGKILL)
    await Scheduler(service, die).tick()

asyncio.run(main(*sys.argv[1:]))
"""


@pytest.mark.both_backends
async def test_a_reminder_lost_to_a_kill_is_delivered_after_the_restart_once(
    database_url: str, clock: Clock
) -> None:
    service = await _open(database_url, clock)
    try:
        game = await start_game(service, "hex", {"size": 5}, days=1)
        await mark_all_delivered(service)
        assert game.deadline is not None
        clock.now = game.deadline - timedelta(minutes=30)  # the 1-hour reminder is due
        child = await asyncio.create_subprocess_exec(
            sys.executable, "-c", REMINDER_CHILD, database_url, clock.now.isoformat(),
            cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
        )  # fmt: skip
        assert await asyncio.wait_for(child.wait(), PATIENCE_SECONDS) == -signal.SIGKILL
        clock.now += LATER
        published = Published()
        scheduler = Scheduler(service, published)
        assert await scheduler.tick() == []  # the reminder's row is done: not sent again
        assert await scheduler.redeliver() == 1
        assert await scheduler.redeliver() == 0
        [result] = published.results
        assert result.events == (Reminder(game.id, ANN.id, game.deadline, "thread"),)
    finally:
        await service.close()


BOT_CHILD = """
import asyncio, os, signal, sys
from datetime import datetime
from bot.discordbot import PaperboardBot
from bot.discordbot.client import point_at_settings
from bot.service import GameService
from bot.service.play.aiplayer import AiPlay
from bot.service.core import outbox
from bot.settings import Settings
from bot.store import Database

def die(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGKILL)

async def main(when, crash):
    at = datetime.fromisoformat(when)
    settings = Settings(_env_file=None)
    point_at_settings(settings)
    service = GameService(await Database.open(settings.database_url), settings, clock=lambda: at)
    if crash == "after-commit":  # the move is stored; nothing is sent
        move = AiPlay.move
        async def move_then_die(self, *args, **kwargs):
            await move(self, *args, **kwargs)
            die()
        AiPlay.move = move_then_die
    else:  # after the send: the thread has the board, the row is not marked delivered
        outbox.mark_delivered = die
    bot = PaperboardBot(service, settings)
    bot._connection.guild_ready_timeout = 0.05
    await bot.login(settings.discord_token.get_secret_value())
    asyncio.create_task(bot.connect())
    await bot.wait_until_ready()
    print("ready", flush=True)
    await asyncio.Event().wait()

asyncio.run(main(*sys.argv[1:]))
"""


@pytest.fixture
async def world(fake_discord: FakeDiscord, database_url: str, clock: Clock) -> AsyncIterator[World]:
    async with world_on(fake_discord, database_url, clock) as world:
        yield world


async def _killed_bot(world: World, clock: Clock, crash: str) -> asyncio.subprocess.Process:
    """The real bot in another process on the same database, set to die at `crash`."""
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "DATABASE_URL": world.settings.database_url,
        "DISCORD_TOKEN": world.fake.token,
        "DISCORD_API_BASE": world.fake.api_base,
        "DISCORD_GATEWAY_URL": world.fake.gateway_url,
        "DEV_GUILD_ID": str(world.guild.id),
        "DISCORD_MESSAGE_CONTENT": "true",
        "RENDER_PROCESSES": "0",
        "AI_PROCESSES": "0",  # no bot plays here: a spawned worker would only cost its start
    }
    child = await asyncio.create_subprocess_exec(
        sys.executable, "-c", BOT_CHILD, clock.now.isoformat(), crash,
        cwd=ROOT, env=env, stdout=asyncio.subprocess.PIPE,
    )  # fmt: skip
    assert child.stdout is not None
    assert await asyncio.wait_for(child.stdout.readline(), PATIENCE_SECONDS) == b"ready\n"
    await world.fake.wait_ready()
    return child


@pytest.mark.both_backends
@pytest.mark.parametrize("crash", ["after-commit", "after-send"])
async def test_a_move_killed_before_its_announcement_is_announced_once_after_restart(
    world: World, clock: Clock, crash: str
) -> None:
    async with world.running():
        game = await start(world, "hex", size="5", options="swap=off")
    thread = world.thread(game)
    before = len(thread.messages)
    bob = world.user_of(game, 1)
    child = await _killed_bot(world, clock, crash)
    try:
        if crash == "after-commit":  # /move in the thread: its answer would be the board
            await world.fake.slash(world.user_of(game, 0), "move", {"move": "c3"}, channel=thread)
        else:  # a move typed in the thread: the bot posts the board, then dies
            await world.fake.say(world.user_of(game, 0), thread, "c3")
        assert await asyncio.wait_for(child.wait(), PATIENCE_SECONDS) == -signal.SIGKILL
    finally:
        if child.returncode is None:
            child.kill()
    assert (await world.game(game.id)).ply == 1  # committed
    clock.now += LATER
    async with world.running() as bot:  # the restart delivers what the crash left
        assert bot.scheduler is not None

        def boards() -> list[Any]:
            return [m for m in thread.messages[before:] if m.author.bot and m.files]

        await world.fake.wait_for(lambda: boards(), what="the board of the move")
        assert await bot.scheduler.redeliver() == 0
        [board] = boards()
        assert "c3" in board.content and f"<@{bob.id}>" in board.content  # the ping
        assert bob in board.mentions
        reply = await play_slash(world, await world.game(game.id), "b2")  # bob's turn, as said
        assert "b2" in reply.content


async def test_a_normal_move_is_delivered_by_its_own_process_at_once(world: World) -> None:
    async with world.running() as bot:
        assert world.service.records.holds_until_delivered  # it answers before it delivers
        game = await start(world, "hex", size="5", options="swap=off")
        await play_typed(world, game, "c3")
        await play_slash(world, game, "b2")
        for _ in range(500):  # the bot marks a result after answering with it
            rows = await stored(world.service)
            if all(r.delivered_at is not None for r in rows):
                break
            await asyncio.sleep(0.01)
        assert rows and all(r.delivered_at is not None for r in rows)
        assert bot.scheduler is not None and await bot.scheduler.redeliver() == 0
        moves = [m for m in world.thread(game).messages if m.author.bot and m.files]
        assert len(moves) == 3  # the first board, c3, b2: each once


async def _open(url: str, clock: Clock) -> GameService:
    settings = Settings(database_url=url, render_processes=0, _env_file=None)  # type: ignore[call-arg]
    return GameService(await Database.open(url), settings, clock=clock, rng=random.Random(7))
