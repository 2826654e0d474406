"""The scheduler exactly once across restarts and processes: a restart, catching up after
downtime, two schedulers on one database, a crashed claimer's leases, two OS processes on one
SQLite file, and APScheduler for real. Reminders, timeouts, vacations and expiry:
tests/test_schedule.py."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.schedule import Scheduler
from bot.service import (
    ChallengeIssued,
    GameOver,
    GameService,
    GameStarted,
    Place,
    Player,
    Reminder,
    Result,
    SeatTaken,
    TimedOut,
    TurnStarted,
)
from tests.conftest import ANN, BOB, PATIENCE_SECONDS, Clock, run_together
from tests.schedulekit import (
    DAY,
    HOUR,
    Outbox,
    open_service,
    outbox_fixture,  # noqa: F401  (the fixture)
    scheduler_fixture,  # noqa: F401  (the fixture)
)
from tests.servicekit import GUILD, PLACE, start

# -- restarts, several processes, leases --------------------------------------------------------


@pytest.mark.both_backends
async def test_a_restart_sends_nothing_twice(
    database_url: str, service: GameService, clock: Clock
) -> None:
    game = await start(service, "hex", {"size": 5}, days=3)
    first = Outbox()
    clock.advance(days=2)
    assert len(await Scheduler(service, first).tick()) == 1

    again = await open_service(database_url, clock)  # the bot after a restart
    second = Outbox()
    try:
        assert await Scheduler(again, second).tick() == []
        clock.advance(hours=23)
        await Scheduler(again, second).tick()
    finally:
        await again.close()
    assert [r.deadline for r in first.reminders() + second.reminders()] == [
        (await service.lookups.game(game.id, GUILD)).deadline
    ] * 2


@pytest.mark.both_backends
async def test_catch_up_after_downtime_sends_one_reminder_per_game(
    service: GameService, outbox: Outbox, clock: Clock
) -> None:
    games = [await start(service, "hex", {"size": 5}, days=3) for _ in range(3)]
    gone = await start(service, "hex", {"size": 5}, days=2)  # its deadline passes too
    clock.advance(days=2, hours=23, minutes=30)  # both reminders of the others are overdue
    scheduler = Scheduler(service, outbox)
    await scheduler.start()
    try:
        assert scheduler.running
        reminders = outbox.reminders()
        assert sorted(r.game_id for r in reminders) == [g.id for g in games]
        # the use cases' results (no adapter delivered them here) go out first, then the loss
        assert [type(e) for e in outbox.events() if e.game_id == gone.id] == [
            ChallengeIssued, SeatTaken, GameStarted, TurnStarted, TimedOut, GameOver,
        ]  # fmt: skip
        assert await scheduler.tick() == []
    finally:
        await scheduler.stop()
    assert not scheduler.running


@pytest.mark.both_backends
async def test_two_schedulers_on_one_database_send_each_reminder_once(
    database_url: str, service: GameService, clock: Clock
) -> None:
    players = [Player(500 + i, f"p{i}") for i in range(40)]
    ids = []
    for i in range(20):
        issued = await service.challenges.challenge(
            PLACE, players[2 * i], "hex", opponents=[players[2 * i + 1]], days_per_move=2
        )
        await service.challenges.accept(issued.game.id, GUILD, players[2 * i + 1])
        ids.append(issued.game.id)
    other = await open_service(database_url, clock)
    left, right = Outbox(), Outbox()
    one = Scheduler(service, left, worker_id="one", batch=3)
    two = Scheduler(other, right, worker_id="two", batch=3)
    try:
        for step in (DAY, 23 * HOUR, HOUR):  # 24-hour reminders, 1-hour reminders, deadlines
            clock.now += step
            await asyncio.gather(one.tick(), two.tick(), one.tick(), two.tick())
    finally:
        await other.close()
    assert left.results and right.results  # both did some of the work
    sent = Outbox()
    sent.results = left.results + right.results
    reminders = Counter(r.game_id for r in sent.reminders())
    assert reminders == Counter({gid: 2 for gid in ids})  # each game: 24 h and 1 h, once each
    timeouts = Counter(e.game_id for e in sent.events(TimedOut))
    assert timeouts == Counter(ids)


@pytest.mark.both_backends
async def test_a_crashed_claimers_rows_are_claimed_again(
    service: GameService, scheduler: Scheduler, clock: Clock
) -> None:
    game = await start(service, "hex", {"size": 5}, days=3)
    clock.advance(days=2)
    [claim] = await service.schedule.claim_deadlines("crashed", timedelta(minutes=5))
    assert claim.game_id == game.id and claim.kind == "remind_24h"
    assert await scheduler.tick() == []  # leased to the crashed worker
    assert await service.schedule.next_deadline() == clock.now + timedelta(minutes=5)
    clock.advance(minutes=5)
    [result] = await scheduler.tick()
    assert isinstance(result.events[0], Reminder)
    assert await service.schedule.act_on_deadline(claim, "crashed") is None  # too late: it is done


CHILD = """
import asyncio, json, sys
from datetime import datetime
from bot.schedule import Scheduler
from bot.service import GameService, Reminder
from bot.settings import Settings
from bot.store import Database

async def main(url, when, name):
    at = datetime.fromisoformat(when)
    settings = Settings(database_url=url, render_processes=0, _env_file=None)
    service = GameService(await Database.open(url), settings, clock=lambda: at)
    async def publish(result):
        for event in result.events:
            if isinstance(event, Reminder):
                print(json.dumps([name, event.game_id]), flush=True)
    scheduler = Scheduler(service, publish, worker_id=name, batch=2)
    print("ready", flush=True)
    sys.stdin.readline()
    for _ in range(3):
        await scheduler.tick()
    await service.close()

asyncio.run(main(*sys.argv[1:]))
"""


async def test_two_os_processes_on_one_sqlite_file_send_each_reminder_once(
    tmp_path: Path, clock: Clock
) -> None:
    url = f"sqlite:///{tmp_path / 'shared.db'}"
    service = await open_service(url, clock)
    ids = []
    try:
        for i in range(30):
            a, b = Player(700 + 2 * i, f"a{i}"), Player(701 + 2 * i, f"b{i}")
            issued = await service.challenges.challenge(
                PLACE, a, "hex", opponents=[b], days_per_move=2
            )
            await service.challenges.accept(issued.game.id, GUILD, b)
            ids.append(issued.game.id)
    finally:
        await service.close()
    when = (clock.now + DAY).isoformat()
    outputs = await run_together(CHILD, [(url, when, name) for name in ("left", "right")])
    sent = [json.loads(line) for out in outputs for line in out.splitlines()]
    assert sorted(gid for _, gid in sent) == sorted(ids)  # every game once, none twice
    assert {name for name, _ in sent} <= {"left", "right"}


async def test_apscheduler_wakes_the_bot_in_time(tmp_path: Path) -> None:
    """The real jobs: a wake-up armed for the next row, re-armed by poke."""
    url = f"sqlite:///{tmp_path / 'live.db'}"
    real_start = datetime.now(UTC)
    base = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)
    offset = [timedelta(0)]

    def clock() -> datetime:
        return base + offset[0] + (datetime.now(UTC) - real_start)

    service = await open_service(url, clock)
    arrived = asyncio.Event()
    outbox = Outbox()

    async def publish(result: Result) -> None:
        await outbox(result)
        arrived.set()

    scheduler = Scheduler(service, publish)
    try:
        await scheduler.start()
        issued = await service.challenges.challenge(
            Place(GUILD, 10), ANN, "hex", opponents=[BOB], days_per_move=1, first="challenger"
        )
        started = await service.challenges.accept(issued.game.id, GUILD, BOB)
        deadline = started.game.deadline
        assert deadline is not None
        offset[0] = timedelta(hours=23) - timedelta(seconds=0.3)  # 1-hour reminder in 0.3 s
        scheduler.poke(deadline)
        await asyncio.wait_for(arrived.wait(), PATIENCE_SECONDS)
        assert outbox.reminders() == [Reminder(issued.game.id, ANN.id, deadline, "thread")]
        await scheduler.stop()
        await scheduler.start()  # stopped and started again in the same process
        assert scheduler.running
    finally:
        await scheduler.stop()
        await service.close()
