"""Every event use case that announces (a start by command, by join or by the clock, a
round paired when the last game ends, a withdrawal, a season, a knockout's next round, a
ladder's challenges, a call-off, an event's end) is delivered once: the results it returns
carry their outbox rows, so the adapter that prints them marks them, and neither the
outbox's next pass nor another process's prints them again. On SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import timedelta

import pytest
import sqlalchemy as sa

from bot.schedule import Scheduler
from bot.service import GameService, Result, TournamentResult
from bot.store.schema import outbox
from tests.conftest import Clock
from tests.eventkit import BY_ID, GUILD, ORGANIZER, PEOPLE, open_event, services, under_way

LATER = timedelta(minutes=1)  # past every lease a process took on a row it wrote


class Adapter:
    """One process's delivery, as the console's: each result a use case returned, then
    the outbox's pass for what followed from it (an event's next round)."""

    def __init__(self, service: GameService) -> None:
        self.service = service
        self.delivered: list[int | None] = []  # the outbox row of each result printed

    async def publish(self, result: Result) -> None:
        self.delivered.append(result.outbox_id)

    async def said(self, answer: TournamentResult | Result | None) -> None:
        if isinstance(answer, TournamentResult):
            for result in answer.results:
                await self.service.outbox.deliver(result, self.publish)
        elif answer is not None:
            await self.service.outbox.deliver(answer, self.publish)
        await self.service.outbox.redeliver(self.publish)


Scenario = Callable[[GameService, Clock, Adapter], Awaitable[None]]


async def _play_out(service: GameService, adapter: Adapter, tid: int, rounds: int = 1) -> None:
    """Each game under way is lost by its second seat, `rounds` times over."""
    for _ in range(rounds):
        for game_id, _first, second in await under_way(service, tid):
            await adapter.said(await service.play.resign(game_id, GUILD, BY_ID[second]))


async def swiss(service: GameService, clock: Clock, adapter: Adapter) -> None:
    tid = await open_event(service, "swiss", PEOPLE[:5], rounds=2)
    await adapter.said(await service.events.start_tournament(tid, GUILD, ORGANIZER))
    await _play_out(service, adapter, tid)  # round 2 is paired
    playing = await under_way(service, tid)
    leaver = BY_ID[playing[0][1]]
    await adapter.said(  # a forfeit and its news
        await service.events.withdraw_from_tournament(tid, GUILD, ORGANIZER, leaver, manages=True)
    )
    await _play_out(service, adapter, tid)  # the final standings
    assert (await service.event_reads.tournament(tid, GUILD)).status == "finished"


async def round_robin_started_by_a_join(
    service: GameService, clock: Clock, adapter: Adapter
) -> None:
    tid = await open_event(service, "roundrobin", PEOPLE[:3], start_players=4)
    await adapter.said(await service.events.join_tournament(tid, GUILD, PEOPLE[3]))
    await adapter.said(await service.events.leave_tournament(tid, GUILD, PEOPLE[3]))  # annulled
    await adapter.said(await service.events.cancel_tournament(tid, GUILD, ORGANIZER))


async def started_by_the_clock(service: GameService, clock: Clock, adapter: Adapter) -> None:
    await open_event(service, "swiss", PEOPLE[:4], starts_at="in 2 hours")
    clock.advance(hours=2)
    started = await Scheduler(service, adapter.publish).tick()  # delivers as it goes
    assert started


async def knockout(service: GameService, clock: Clock, adapter: Adapter) -> None:
    tid = await open_event(service, "knockout", PEOPLE[:4])
    await adapter.said(await service.events.start_tournament(tid, GUILD, ORGANIZER))
    await _play_out(service, adapter, tid, rounds=2)  # the final, then the end
    assert (await service.event_reads.tournament(tid, GUILD)).status == "finished"


async def league(service: GameService, clock: Clock, adapter: Adapter) -> None:
    tid = await open_event(service, "league", PEOPLE[:6])
    await adapter.said(await service.events.start_tournament(tid, GUILD, ORGANIZER))


async def ladder(service: GameService, clock: Clock, adapter: Adapter) -> None:
    p1, p2, p3, p4 = PEOPLE[:4]
    tid = await open_event(service, "ladder", PEOPLE[:4])
    await adapter.said(await service.events.start_tournament(tid, GUILD, ORGANIZER))
    await adapter.said(await service.ladders.ladder_challenge(tid, GUILD, p2, p1))
    await adapter.said(await service.ladders.accept_ladder_challenge(tid, GUILD, p1))
    await _play_out(service, adapter, tid)  # the challenger wins: the ladder's news
    await adapter.said(await service.ladders.ladder_challenge(tid, GUILD, p3, p1))
    await adapter.said(await service.ladders.decline_ladder_challenge(tid, GUILD, p1))
    await adapter.said(await service.ladders.ladder_challenge(tid, GUILD, p4, p2))
    clock.advance(days=8)  # unaccepted: it expires, a forfeit
    for claim in await service.schedule.claim_deadlines("tests", timedelta(seconds=1)):
        await adapter.said(await service.schedule.act_on_deadline(claim, "tests"))
    await adapter.said(await service.ladders.ladder_challenge(tid, GUILD, p1, p2))
    await adapter.said(await service.events.leave_tournament(tid, GUILD, p2))  # called off


SCENARIOS: dict[str, Scenario] = {
    scenario.__name__: scenario
    for scenario in (
        swiss,
        round_robin_started_by_a_join,
        started_by_the_clock,
        knockout,
        league,
        ladder,
    )
}


@pytest.mark.both_backends
@pytest.mark.parametrize("scenario", SCENARIOS)
async def test_each_announcement_of_an_event_is_delivered_once(
    database_url: str, clock: Clock, scenario: str
) -> None:
    async with services(database_url, clock, 2) as (one, other):
        adapter = Adapter(one)
        await SCENARIOS[scenario](one, clock, adapter)
        async with one.records.db.read() as conn:
            rows = (await conn.scalars(sa.select(outbox.c.id).order_by(outbox.c.id))).all()
        # each result printed names its row, and each row was printed once
        assert sorted(adapter.delivered, key=lambda i: i or 0) == rows
        clock.now += LATER  # another process, and this one's next pass: nothing again
        again = Adapter(other)
        assert await other.outbox.redeliver(again.publish) == 0
        assert await one.outbox.redeliver(again.publish) == 0
        assert again.delivered == []
