"""An event's limit on entries and its automatic start: when N have joined (once, even
with two joins racing on two services), or at a time the scheduler keeps (too few then:
it starts when the format's least have joined)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import sqlalchemy as sa

from bot.console.session import GUILD as CONSOLE_GUILD
from bot.schedule import Scheduler
from bot.service import GameService, Refused, ServiceCode
from bot.service.core.models import GameStarted
from bot.service.core.rules import local_time
from bot.service.events.words import start_time, start_words
from bot.store.schema import games, tournament_rounds, tournaments
from engine import Code
from tests.conftest import Clock
from tests.consolekit import transcript_of
from tests.eventkit import GUILD, ORGANIZER, PEOPLE, PLACE, count, news, open_event, services
from tests.schedulekit import Outbox


async def _status(service: GameService, tournament_id: int) -> str:
    async with service.records.db.read() as conn:
        return str(
            await conn.scalar(
                sa.select(tournaments.c.status).where(tournaments.c.id == tournament_id)
            )
        )


async def test_joins_beyond_the_limit_are_refused(service: GameService) -> None:
    event = await open_event(service, "swiss", PEOPLE[:4], max_players=4)
    with pytest.raises(Refused) as refused:
        await service.events.join_tournament(event, GUILD, PEOPLE[4])
    assert str(refused.value) == "Swiss Hex is full: 4 players."
    assert refused.value.code is ServiceCode.EVENT_SIZE
    summary = await service.event_reads.tournament(event, GUILD)
    assert len(summary.entrants) == 4 and summary.status == "open"
    assert start_words(summary) == "At most 4 players."


@pytest.mark.parametrize(
    ("fmt", "options", "sentence"),
    [
        ("roundrobin", {"max_players": 21}, "A round robin takes 3 to 20 players."),
        ("swiss", {"max_players": 3}, "A Swiss tournament takes 4 to 1,000 players."),
        (
            "swiss",
            {"max_players": 8, "start_players": 9},
            "A start when enough have joined takes 4 to 8 players.",
        ),
        ("ladder", {"start_players": 4}, "A ladder starts when its organizer starts it."),
        (
            "swiss",
            {"starts_at": "soon"},
            "“soon” is not a start time; try 2026-12-01T18:00 or in 3 days.",
        ),
        ("swiss", {"starts_at": "2026-11-20T18:00"}, "The start time has passed."),
    ],
)
async def test_bad_limits_and_starts_are_refused(
    service: GameService, fmt: str, options: dict[str, object], sentence: str
) -> None:
    with pytest.raises(Refused) as refused:
        await service.events.create_tournament(
            PLACE, ORGANIZER, "hex", format=fmt, manages=True, **options
        )  # type: ignore[arg-type]
    assert str(refused.value) == sentence
    assert refused.value.code is Code.BAD_OPTION
    assert await count(service, tournaments) == 0


async def test_the_join_that_makes_n_starts_the_event(service: GameService) -> None:
    event = await open_event(service, "roundrobin", PEOPLE[:3], start_players=4)
    assert await _status(service, event) == "open"
    joined = await service.events.join_tournament(event, GUILD, PEOPLE[3])
    assert joined.tournament.status == "active"
    assert joined.note == "p4 joined Round robin Hex (4 players). Round robin Hex has started."
    started = [e for r in joined.results for e in r.events if isinstance(e, GameStarted)]
    assert len(started) == 6  # every game of a 4-player round robin
    assert await count(service, games) == 6


@pytest.mark.both_backends
async def test_two_joins_racing_to_n_start_the_event_once(database_url: str, clock: Clock) -> None:
    async with services(database_url, clock, 2) as (one, two):
        event = await open_event(one, "swiss", PEOPLE[:3], start_players=4, max_players=4)
        outcomes = await asyncio.gather(
            one.events.join_tournament(event, GUILD, PEOPLE[3]),
            two.events.join_tournament(event, GUILD, PEOPLE[4]),
            return_exceptions=True,
        )
        joined = [o for o in outcomes if not isinstance(o, BaseException)]
        refused = [o for o in outcomes if isinstance(o, Refused)]
        assert len(joined) == 1 and len(refused) == 1, outcomes
        assert str(refused[0]) == "Swiss Hex is under way."  # entries close at the start
        assert joined[0].tournament.status == "active"
        assert await count(one, tournament_rounds) == 1
        assert await count(one, games) == 2
        assert len(await news(one, "round")) == 1


async def test_the_scheduler_starts_an_event_at_its_time(
    service: GameService, clock: Clock
) -> None:
    await service.preferences.player_settings(ORGANIZER, time_zone="Europe/Paris")
    event = await open_event(service, "swiss", PEOPLE[:5], starts_at="2026-11-22T18:00")
    summary = await service.event_reads.tournament(event, GUILD)
    assert summary.starts_at == datetime(2026, 11, 22, 17, 0, tzinfo=UTC)  # 18:00 in Paris
    assert (
        start_words(summary, lambda t: local_time(t, "Europe/Paris"))
        == "Starts at 22 Nov 18:00 CET."
    )
    assert await service.events.next_tournament_start() == summary.starts_at  # the wake-up
    outbox = Outbox()
    scheduler = Scheduler(service, outbox)
    await scheduler.tick()
    assert await _status(service, event) == "open"
    clock.now = datetime(2026, 11, 22, 17, 0, tzinfo=UTC)
    await scheduler.tick()
    assert await _status(service, event) == "active"
    assert len(outbox.events(GameStarted)) == 2  # 5 players: 2 games and a bye
    await scheduler.tick()  # once
    assert await service.events.next_tournament_start() is None
    assert await count(service, games) == 2 and await count(service, tournament_rounds) == 1


@pytest.mark.both_backends
async def test_two_schedulers_start_an_event_once(database_url: str, clock: Clock) -> None:
    async with services(database_url, clock, 2) as (one, two):
        event = await open_event(one, "swiss", PEOPLE[:4], starts_at="in 3 days")
        clock.advance(days=3)
        first, second = (
            Scheduler(one, Outbox(), worker_id="a"),
            Scheduler(two, Outbox(), worker_id="b"),
        )
        await asyncio.gather(first.tick(), second.tick())
        assert await _status(one, event) == "active"
        assert await count(one, games) == 2 and await count(one, tournament_rounds) == 1


async def test_too_few_at_the_time_starts_when_the_least_have_joined(
    service: GameService, clock: Clock
) -> None:
    event = await open_event(service, "swiss", PEOPLE[:2], starts_at="in 2 hours", start_players=8)
    clock.advance(hours=2)
    scheduler = Scheduler(service, Outbox())
    await scheduler.tick()
    assert await _status(service, event) == "open"
    await service.events.join_tournament(event, GUILD, PEOPLE[2])
    assert await _status(service, event) == "open"
    joined = await service.events.join_tournament(event, GUILD, PEOPLE[3])  # the least of a Swiss
    assert joined.tournament.status == "active"


def test_start_times_as_typed() -> None:
    now = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)
    assert start_time("in 3 days", None, now) == now + timedelta(days=3)
    assert start_time("in 1 week", None, now) == now + timedelta(weeks=1)
    assert start_time("2026-12-01 18:00", "America/New_York", now) == datetime(
        2026, 12, 1, 23, 0, tzinfo=UTC
    )


async def test_the_console_creates_with_a_limit_and_a_start(
    service: GameService, tmp_path: Path
) -> None:
    lines = [
        "tournament create hex format=swiss max=5 start_players=4 starts=2026-12-01T18:00",
        'tournament create hex format=swiss starts="in 3 days"',
        "tournament create hex format=roundrobin max=30",
    ]
    said = "\n".join(await transcript_of(service, tmp_path, lines))
    assert (
        "Swiss Hex (#1), a Swiss tournament, is open for entries: tournament join 1. "
        "At most 5 players; starts when 4 have joined, or at 01 Dec 18:00 UTC."
    ) in said
    assert "Starts at 24 Nov 12:00 UTC." in said
    assert "A round robin takes 3 to 20 players." in said
    first = await service.event_reads.tournament(1, CONSOLE_GUILD)
    assert (first.max_players, first.start_players) == (5, 4)
