"""The daily digest: one message a day at the player's local hour, listing every game
where it is their move; none when the list is empty; once a day across restarts and
processes (claimed like a deadline); per-turn reminders stop for digest players."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest

from bot.schedule import Scheduler
from bot.service import Digest, GameService, Reminder, ServiceCode, describe, local_time
from bot.service.time.digest import next_digest
from tests.conftest import ANN, BOB, CAT, Clock
from tests.schedulekit import Outbox
from tests.servicekit import GUILD, refused, start

PARIS_NINE = datetime(2026, 11, 22, 8, 0, tzinfo=UTC)  # 09:00 in Paris (UTC+1 in November)


def test_the_next_digest_is_the_next_local_hour() -> None:
    now = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)  # 13:00 in Paris
    assert next_digest(now, "Europe/Paris", 9) == PARIS_NINE
    assert next_digest(now, "Europe/Paris", 14) == datetime(2026, 11, 21, 13, 0, tzinfo=UTC)
    spring = datetime(2026, 3, 28, 12, 0, tzinfo=UTC)  # the clocks go forward that night
    assert next_digest(spring, "Europe/Paris", 9) == datetime(2026, 3, 29, 7, 0, tzinfo=UTC)
    assert next_digest(now, "Nowhere/Land", 9) == datetime(2026, 11, 22, 9, 0, tzinfo=UTC)


async def test_one_digest_a_day_lists_the_games_on_move_and_none_when_empty(
    service: GameService, clock: Clock
) -> None:
    slow = await start(service, "hex", {"size": "3"}, days=7)
    fast = await start(service, "hex", {"size": "3"}, days=2)
    theirs = await start(service, "hex", {"size": "3"}, days=2)
    await service.play.move(theirs.id, GUILD, ANN, "a1")  # bob's move there
    found = await service.preferences.player_settings(
        ANN, reminders="digest", digest_hour=9, time_zone="Europe/Paris"
    )
    assert found.reminders == "digest" and found.digest_hour == 9
    await service.preferences.player_settings(CAT, reminders="digest")  # no games: never a message
    outbox = Outbox()
    scheduler = Scheduler(service, outbox)
    await scheduler.tick()
    assert outbox.events(Digest) == []
    clock.now = PARIS_NINE
    await scheduler.tick()
    (digest,) = outbox.events(Digest)
    assert isinstance(digest, Digest) and digest.player_id == ANN.id
    assert [line.game_id for line in digest.games] == [fast.id, slow.id]  # least time first
    assert digest.games[0].title == f"Hex #{fast.id}"
    text = describe(digest, outbox.results[-1].game, lambda p: f"@{p}", lambda t, zone: "soon")
    assert text.startswith(f"@{ANN.id}, your move in 2 games:\n· Hex #{fast.id}: due soon")
    in_her_zone = describe(digest, outbox.results[-1].game, str, local_time)
    assert in_her_zone.endswith(f"· Hex #{slow.id}: due 28 Nov 13:00 CET"), in_her_zone
    clock.advance(minutes=30)
    await scheduler.tick()
    assert len(outbox.events(Digest)) == 1  # once a day
    clock.advance(days=1)
    await scheduler.tick()
    assert len(outbox.events(Digest)) == 2  # the next day's
    # a digest player gets no reminder per turn (fast's 24-hour reminder fell due)
    assert not [
        e for e in outbox.events(Reminder) if isinstance(e, Reminder) and e.player_id == ANN.id
    ]
    await refused(ServiceCode.BAD_SETTING, service.preferences.player_settings(ANN, digest_hour=24))


@pytest.mark.both_backends
async def test_a_digest_goes_out_once_across_processes_and_after_a_crash(
    service: GameService, clock: Clock
) -> None:
    await start(service, "hex", {"size": "3"}, days=3)
    await service.preferences.player_settings(
        ANN, reminders="digest", digest_hour=9, time_zone="Europe/Paris"
    )
    clock.now = PARIS_NINE
    crashed = await service.schedule.claim_digests("crashed", timedelta(minutes=5))
    assert [c.player_id for c in crashed] == [ANN.id]  # claimed, then the process died
    one, two = Outbox(), Outbox()
    first, second = Scheduler(service, one, worker_id="a"), Scheduler(service, two, worker_id="b")
    await asyncio.gather(first.tick(), second.tick())
    assert one.events(Digest) == two.events(Digest) == []  # the lease still holds
    clock.advance(minutes=6)
    await asyncio.gather(first.tick(), second.tick())
    assert len(one.events(Digest)) + len(two.events(Digest)) == 1
    assert await service.schedule.send_digests(crashed, "crashed") == []  # the late worker: nothing
    await service.preferences.player_settings(ANN, reminders="dm")  # no more digests
    clock.advance(days=1)
    await asyncio.gather(first.tick(), second.tick())
    assert len(one.events(Digest)) + len(two.events(Digest)) == 1
    assert BOB.id not in {e.player_id for e in one.events(Digest) + two.events(Digest)}  # type: ignore[attr-defined]
