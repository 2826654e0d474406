"""Reminders, timeouts, vacations and expiry, each sent once.

The clock is the tests' own (tests/conftest.py): `Scheduler.tick()` is one pass at the service's
clock, so nothing sleeps. Across restarts and processes: tests/test_schedule_processes.py."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from bot.schedule import Scheduler
from bot.service import (
    ChallengeClosed,
    Event,
    GameOver,
    GameService,
    GameSummary,
    Reminder,
    Result,
    ServiceCode,
    TimedOut,
    away_note,
    describe,
    local_time,
)
from bot.service.core.rules import deadline_caption
from engine import Code
from tests.conftest import ANN, BOB, CAT, Clock
from tests.schedulekit import (
    DAY,
    HOUR,
    Outbox,
    outbox_fixture,  # noqa: F401  (the fixture)
    rows,
    scheduler_fixture,  # noqa: F401  (the fixture)
)
from tests.servicekit import GUILD, PLACE, refused, start


def sentence(event: Event, game: GameSummary) -> str:
    return describe(event, game, lambda pid: f"@{pid}", lambda t, zone: f"{t:%d %b %H:%M}")


# -- reminders and timeouts ------------------------------------------------------------------


async def test_two_reminders_then_a_loss_on_time(
    service: GameService, scheduler: Scheduler, outbox: Outbox, clock: Clock
) -> None:
    game = await start(service, "hex", {"size": 5}, days=3)
    deadline = clock.now + 3 * DAY
    assert game.deadline == deadline and game.player_to_move == ANN.id
    assert await scheduler.tick() == []
    assert await service.schedule.next_deadline() == deadline - 24 * HOUR

    clock.now = deadline - 24 * HOUR
    [first] = await scheduler.tick()
    [reminder] = first.events
    assert reminder == Reminder(game.id, ANN.id, deadline, "thread")
    assert sentence(reminder, first.game) == f"@{ANN.id}, your move in Hex #{game.id} is due " + (
        f"{deadline:%d %b %H:%M}."
    )
    assert await scheduler.tick() == []  # sent once

    clock.now = deadline - HOUR + timedelta(seconds=1)
    [second] = await scheduler.tick()
    assert second.events == (Reminder(game.id, ANN.id, deadline, "thread"),)
    clock.now = deadline - timedelta(seconds=1)
    assert await scheduler.tick() == []

    clock.now = deadline
    [over] = await scheduler.tick()
    timed_out, game_over = over.events
    assert timed_out == TimedOut(game.id, ANN.id)
    assert isinstance(game_over, GameOver)
    assert game_over.winners == (BOB.id,) and game_over.reason == "time"
    assert over.game.status == "finished" and over.game.deadline is None
    assert sentence(timed_out, over.game) == f"@{ANN.id} ran out of time in Hex #{game.id}."
    assert sentence(game_over, over.game).endswith(f"@{BOB.id} wins on time. @{ANN.id} loses.")
    assert len(outbox.results) == 3
    await refused(Code.GAME_OVER, service.play.move(game.id, GUILD, ANN, "a1"))
    [bob] = await service.lookups.ratings(GUILD, BOB.id, "hex")
    assert bob.wins == 1


async def test_a_game_that_moved_on_gets_no_reminder(
    service: GameService, scheduler: Scheduler, clock: Clock
) -> None:
    game = await start(service, "hex", {"size": 5}, days=3)
    clock.advance(days=2, seconds=-60)
    await service.play.move(game.id, GUILD, ANN, "c3")
    clock.advance(seconds=120)  # ANN's 24-hour reminder would be due now
    assert await scheduler.tick() == []
    # a row claimed just before the move is not acted on after it
    clock.now += 2 * DAY
    [claim] = await service.schedule.claim_deadlines("racer", timedelta(minutes=5))
    await service.play.move(game.id, GUILD, BOB, "b2")
    assert await service.schedule.act_on_deadline(claim, "racer") is None
    assert await scheduler.tick() == []
    clock.advance(days=2)
    [result] = await scheduler.tick()
    assert result.events == (Reminder(game.id, ANN.id, clock.now + DAY, "thread"),)


async def test_a_multiplayer_game_ends_on_time_with_the_loser_last(
    service: GameService, scheduler: Scheduler, clock: Clock
) -> None:
    game = await start(service, "intersections", opponents=(BOB, CAT), days=1)
    assert game.player_to_move == ANN.id
    clock.advance(days=1)
    [over] = await scheduler.tick()
    timed_out, game_over = over.events
    assert timed_out == TimedOut(game.id, ANN.id)
    assert isinstance(game_over, GameOver) and game_over.reason == "time"
    assert set(game_over.winners) == {BOB.id, CAT.id}  # level on points: they share it
    ann, bob = (
        await service.lookups.ratings(GUILD, ANN.id),
        await service.lookups.ratings(GUILD, BOB.id),
    )
    assert ann[0].rating < bob[0].rating and bob[0].wins == 1 and ann[0].wins == 0


async def test_reminders_go_by_dm_or_not_at_all(
    service: GameService, scheduler: Scheduler, clock: Clock
) -> None:
    await service.preferences.player_settings(ANN, reminders="dm")
    first = await start(service, "hex", {"size": 5}, days=2)
    clock.advance(days=1)
    [result] = await scheduler.tick()
    assert result.events == (Reminder(first.id, ANN.id, clock.now + DAY, "dm"),)
    await service.play.resign(first.id, GUILD, ANN)

    await service.preferences.player_settings(ANN, reminders="off")
    second = await start(service, "hex", {"size": 5}, days=2)
    clock.advance(days=1, hours=23)
    assert await scheduler.tick() == []  # neither reminder
    clock.advance(hours=1)
    [over] = await scheduler.tick()  # the deadline holds all the same
    assert over.game.id == second.id and isinstance(over.events[0], TimedOut)


async def test_quiet_hours_delay_a_reminder_but_never_a_deadline(
    service: GameService, scheduler: Scheduler, clock: Clock
) -> None:
    await service.preferences.player_settings(ANN, time_zone="Europe/Paris", quiet_hours="22-7")
    clock.now = datetime(2026, 11, 21, 2, 0, tzinfo=UTC)  # 03:00 in Paris
    game = await start(service, "hex", {"size": 5}, days=2)
    deadline = datetime(2026, 11, 23, 2, 0, tzinfo=UTC)
    clock.now = deadline - DAY  # the 24-hour reminder, at 03:00 in Paris
    assert await scheduler.tick() == []
    assert await service.schedule.next_deadline() == datetime(2026, 11, 22, 6, 0, tzinfo=UTC)
    clock.now = datetime(2026, 11, 22, 5, 59, tzinfo=UTC)
    assert await scheduler.tick() == []
    clock.now = datetime(2026, 11, 22, 6, 0, tzinfo=UTC)  # 07:00 in Paris: quiet is over
    [reminder] = await scheduler.tick()
    assert reminder.events == (Reminder(game.id, ANN.id, deadline, "thread"),)
    assert describe(reminder.events[0], reminder.game, str, local_time) == (
        f"{ANN.id}, your move in Hex #{game.id} is due 23 Nov 03:00 CET."  # in her zone
    )
    clock.now = deadline - HOUR  # 02:00 in Paris: the 1-hour reminder waits for 07:00...
    assert await scheduler.tick() == []
    clock.now = deadline  # ...but the deadline does not wait
    [over] = await scheduler.tick()
    assert [type(e) for e in over.events] == [TimedOut, GameOver]


async def test_with_a_day_per_move_the_only_reminder_is_sent_in_quiet_hours(
    service: GameService, scheduler: Scheduler, outbox: Outbox, clock: Clock
) -> None:
    """A day per move has no 24-hour reminder; when the 1-hour one falls in quiet hours
    that last past the deadline, it is sent in them rather than not at all."""
    await service.preferences.player_settings(ANN, time_zone="Europe/Paris", quiet_hours="22-7")
    clock.now = datetime(2026, 11, 21, 22, 30, tzinfo=UTC)  # 23:30 in Paris
    game = await start(service, "hex", {"size": 5}, days=1)
    deadline = clock.now + DAY
    clock.now = deadline - HOUR  # 22:30 in Paris: quiet until 07:00, after the deadline
    [reminder] = await scheduler.tick()
    assert reminder.events == (Reminder(game.id, ANN.id, deadline, "thread"),)
    clock.now = deadline
    [over] = await scheduler.tick()
    assert [type(e) for e in over.events] == [TimedOut, GameOver]


async def test_a_reminder_redelivered_after_its_deadline_is_not_sent(
    service: GameService, outbox: Outbox, clock: Clock
) -> None:
    """The 24-hour reminder committed, its send died with the process; the bot came back
    three days later: "your move is due two days ago" is not posted, the loss is."""
    started = clock.now
    await start(service, "hex", {"size": 5}, days=2)

    async def killed(result: Result) -> None:
        raise RuntimeError("killed before the send")

    clock.now = started + DAY
    crashed = Scheduler(service, killed, worker_id="crashed")
    await crashed.tick()
    clock.now = started + 4 * DAY
    restarted = Scheduler(service, outbox, worker_id="restarted")
    await restarted.start()
    await restarted.stop()
    assert outbox.reminders() == [] and len(outbox.events(TimedOut)) == 1


# -- vacation ---------------------------------------------------------------------------------


async def test_a_vacation_brings_no_24_hour_reminder_to_a_day_per_move_turn(
    service: GameService, scheduler: Scheduler, outbox: Outbox, clock: Clock
) -> None:
    """A day per move has only the 1-hour reminder; coming back from a vacation arms
    no 24-hour one it never had."""
    game = await start(service, "hex", {"size": 5}, days=1)
    clock.advance(hours=2)
    await service.preferences.player_settings(ANN, vacation=True)
    clock.advance(hours=8)
    await service.preferences.player_settings(ANN, vacation=False)
    assert await scheduler.tick() == []
    deadline = (await service.lookups.game(game.id, GUILD)).deadline
    clock.now = deadline - HOUR
    [reminder] = await scheduler.tick()
    assert reminder.events == (Reminder(game.id, ANN.id, deadline, "thread"),)


async def test_a_vacation_in_the_last_hour_gives_the_new_deadline_its_reminders(
    service: GameService, scheduler: Scheduler, outbox: Outbox, clock: Clock
) -> None:
    """Both reminders were sent for the old deadline; half an hour before it the player
    went away for five days. Back, with the same half hour left, they are reminded at
    once of the new deadline, before the loss."""
    started = clock.now
    game = await start(service, "hex", {"size": 5}, days=3)
    for moment in (started + 2 * DAY, started + 3 * DAY - HOUR):
        clock.now = moment
        await scheduler.tick()
    assert len(outbox.reminders()) == 2
    clock.now = started + 3 * DAY - HOUR / 2
    await service.preferences.player_settings(ANN, vacation=True)
    clock.advance(days=5)
    await service.preferences.player_settings(ANN, vacation=False)
    deadline = (await service.lookups.game(game.id, GUILD)).deadline
    assert deadline == clock.now + HOUR / 2
    await scheduler.tick()
    assert [r.deadline for r in outbox.reminders()[2:]] == [deadline]  # one, not two
    clock.now = deadline
    await scheduler.tick()
    assert len(outbox.events(TimedOut)) == 1


async def test_vacation_stops_the_clock_and_shifts_the_deadline(
    service: GameService, scheduler: Scheduler, clock: Clock
) -> None:
    started = clock.now
    game = await start(service, "hex", {"size": 5}, days=3)
    clock.advance(days=1)
    await service.preferences.player_settings(ANN, vacation=True)
    away = await service.lookups.game(game.id, GUILD)
    assert away.away == (ANN.id,) and away.deadline == started + 3 * DAY
    assert deadline_caption(away) == "clock stopped: on vacation"
    assert away_note(away, lambda pid: f"@{pid}") == (
        f"@{ANN.id} is on vacation: clocks stop on their turns."
    )
    await service.lookups.board(game.id, GUILD)  # drawn with that caption
    clock.advance(days=4)  # past the old deadline: nothing fires while she is away
    assert await scheduler.tick() == []
    assert (await service.lookups.game(game.id, GUILD)).status == "active"

    clock.advance(days=1)  # back after 5 days
    back = await service.preferences.player_settings(ANN, vacation=False)
    assert back.vacation_days_left == pytest.approx(9)
    shifted = await service.lookups.game(game.id, GUILD)
    assert shifted.away == () and shifted.deadline == started + 8 * DAY
    [listed] = await service.lookups.games(GUILD, player_id=ANN.id)
    assert listed.deadline == started + 8 * DAY
    assert (await rows(service, game.id))["timeout"] == (started + 8 * DAY, False)

    clock.now = started + 7 * DAY  # the 24-hour reminder of the shifted deadline
    [reminder] = await scheduler.tick()
    assert reminder.events == (Reminder(game.id, ANN.id, started + 8 * DAY, "thread"),)
    clock.now = started + 8 * DAY
    [over] = await scheduler.tick()
    assert isinstance(over.events[0], TimedOut)


async def test_a_turn_that_starts_during_a_vacation_waits_for_its_end(
    service: GameService, scheduler: Scheduler, outbox: Outbox, clock: Clock
) -> None:
    game = await start(service, "hex", {"size": 5}, days=2)
    await service.preferences.player_settings(BOB, vacation=True)
    clock.advance(days=1)
    result = await service.play.move(game.id, GUILD, ANN, "c3")
    assert result.game.away == (BOB.id,)
    turn = result.events[-1]
    assert sentence(turn, result.game).endswith("Your clock is stopped while you are on vacation.")
    clock.advance(days=3)  # BOB's reminder and deadline pass while he is away
    assert await scheduler.tick() == []
    await service.preferences.player_settings(BOB, vacation=False)
    summary = await service.lookups.game(game.id, GUILD)
    assert summary.deadline == clock.now + 2 * DAY  # his whole turn is still ahead
    clock.advance(days=1)
    [reminder] = await scheduler.tick()
    assert reminder.events == (Reminder(game.id, BOB.id, clock.now + DAY, "thread"),)
    assert outbox.reminders() == list(reminder.events)


async def test_vacation_days_run_out(
    service: GameService, scheduler: Scheduler, clock: Clock
) -> None:
    started = clock.now
    game = await start(service, "hex", {"size": 5}, days=3)
    clock.advance(days=1)
    await service.preferences.player_settings(ANN, vacation=True)
    clock.now = started + 15 * DAY + 12 * HOUR  # 14.5 days away, with 14 days allowed
    assert await scheduler.tick() == []  # the vacation ended at day 15; 2 days remain
    mine = await service.preferences.player_settings(ANN)
    assert mine.on_vacation_since is None and mine.vacation_days_left == 0
    assert (await service.lookups.game(game.id, GUILD)).deadline == started + 17 * DAY
    await refused(ServiceCode.NO_VACATION, service.preferences.player_settings(ANN, vacation=True))
    clock.now = started + 17 * DAY
    [over] = await scheduler.tick()
    assert isinstance(over.events[0], TimedOut)


async def test_a_vacation_after_the_deadline_does_not_save_the_game(
    service: GameService, scheduler: Scheduler, clock: Clock
) -> None:
    game = await start(service, "hex", {"size": 5}, days=1)
    clock.advance(days=1, hours=2)  # the bot was down when the deadline passed
    await service.preferences.player_settings(ANN, vacation=True)
    [over] = await scheduler.tick()
    assert over.game.id == game.id and isinstance(over.events[0], TimedOut)


# -- challenges and cleanup --------------------------------------------------------------------


async def test_an_unanswered_challenge_expires_and_says_so(
    service: GameService, scheduler: Scheduler, clock: Clock
) -> None:
    issued = await service.challenges.challenge(PLACE, ANN, "hex", opponents=[BOB])
    answered = await service.challenges.challenge(PLACE, ANN, "hotwire", opponents=[BOB])
    await service.challenges.decline(answered.game.id, GUILD, BOB)
    clock.advance(hours=24)
    [expired] = await scheduler.tick()
    assert expired.events == (ChallengeClosed(issued.game.id, "expired", None),)
    assert expired.game.status == "expired"
    assert sentence(expired.events[0], expired.game).endswith("expired unanswered.")
    assert await scheduler.tick() == []


async def test_finished_games_leave_no_deadline_rows(
    service: GameService, scheduler: Scheduler, clock: Clock
) -> None:
    over = await start(service, "hex", {"size": 5})
    await service.play.resign(over.id, GUILD, ANN)
    declined = await service.challenges.challenge(PLACE, ANN, "hex", opponents=[BOB])
    await service.challenges.decline(declined.game.id, GUILD, BOB)
    playing = await start(service, "hex", {"size": 5})
    assert await service.schedule.cleanup_deadlines() == 5  # expiry + 3 turn rows, + 1 declined
    assert await rows(service, over.id) == {} and await rows(service, declined.game.id) == {}
    assert set(await rows(service, playing.id)) == {"expire", "timeout", "remind_24h", "remind_1h"}
    assert await service.schedule.cleanup_deadlines() == 0
