"""Bank clocks in the service: banks after moves, a late move refused and lost on time
once, vacation days spent by the clock, weekends, undo, restarts. The rules and their
property tests: bot/service/clocks.py, tests/test_clocks.py; docs/CLOCKS.md."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from bot.schedule import Scheduler
from bot.service import GameService, GameSummary, Reminder, ServiceCode, TimedOut, digest_bank
from bot.service.core.rules import deadline_caption
from bot.service.time import digest
from engine import Code
from tests.conftest import ANN, BOB, CAT, Clock
from tests.consolekit import transcript_of
from tests.schedulekit import (  # noqa: F401  (the fixtures)
    Outbox,
    open_service,
    outbox_fixture,
    rows,
    scheduler_fixture,
)
from tests.servicekit import GUILD, PLACE, refused

DAY, HOUR = timedelta(days=1), timedelta(hours=1)


async def start(service: GameService, clock: str = "standard") -> GameSummary:
    issued = await service.challenges.challenge(
        PLACE, ANN, "hex", opponents=[BOB], options={"size": 5}, first="challenger", clock=clock
    )
    return (await service.challenges.accept(issued.game.id, GUILD, BOB)).game


async def test_banks_run_down_and_gain_the_increment_up_to_the_cap(
    service: GameService, clock: Clock
) -> None:
    game = await start(service)
    assert game.time_control == "10d+36h/10d" and game.days_per_move is None
    assert game.banks == (10 * DAY, 10 * DAY)
    assert game.deadline == clock.now + 10 * DAY
    clock.advance(days=3)
    moved = await service.play.move(game.id, GUILD, ANN, "c3")
    assert moved.game.banks == (7 * DAY + 36 * HOUR, 10 * DAY)
    assert moved.game.deadline == clock.now + 10 * DAY
    clock.advance(hours=10)
    moved = await service.play.move(game.id, GUILD, BOB, "b2")
    assert moved.game.banks == (7 * DAY + 36 * HOUR, 10 * DAY)  # capped
    clock.advance(days=1)
    seen = await service.lookups.game(game.id, GUILD)
    assert seen.banks == (7 * DAY + 12 * HOUR, 10 * DAY)  # ann's runs as we look
    caption = deadline_caption(seen)
    assert caption is not None and caption.startswith("due ")
    assert caption.endswith(" · ann 7d 12h · bob 10d 0h")


@pytest.mark.both_backends
async def test_a_late_move_is_refused_and_the_game_lost_on_time_once(
    service: GameService, scheduler: Scheduler, outbox: Outbox, clock: Clock
) -> None:
    await service.preferences.player_settings(ANN, auto_vacation=False)
    game = await start(service, "3d+1d")
    clock.now += 3 * DAY - timedelta(microseconds=1)
    await service.play.move(game.id, GUILD, ANN, "c3")  # in time by a microsecond: 1d + that
    clock.now += 3 * DAY + HOUR  # bob's bank ran out an hour ago; his vacation days are left
    [spent] = await scheduler.tick()
    [told] = spent.events
    assert isinstance(told, Reminder) and told.vacation_days_spent == 1
    assert told.deadline == clock.now + 23 * HOUR and told.vacation_days_left == 13
    clock.advance(hours=1)
    await service.play.move(game.id, GUILD, BOB, "b2")
    ann_due = clock.now + DAY + timedelta(microseconds=1)
    assert (await service.lookups.game(game.id, GUILD)).deadline == ann_due
    clock.now = ann_due + DAY  # well past ann's deadline; the scan has not run yet
    late = await refused(ServiceCode.OUT_OF_TIME, service.play.move(game.id, GUILD, ANN, "a1"))
    assert "too late" in str(late)
    [over] = await scheduler.tick()
    assert TimedOut(game.id, ANN.id) in over.events
    assert await scheduler.tick() == []
    await refused(Code.GAME_OVER, service.play.move(game.id, GUILD, ANN, "a1"))


async def test_vacation_days_spent_by_the_clock_until_there_are_none(
    service: GameService, scheduler: Scheduler, outbox: Outbox, clock: Clock
) -> None:
    game = await start(service, "1d+0m")
    for day in range(1, 15):
        clock.now = game.created_at + day * DAY  # the deadline: a day is spent
        [result] = await scheduler.tick()
        [told] = result.events
        assert isinstance(told, Reminder) and told.vacation_days_left == 14 - day
        assert told.deadline == game.created_at + (day + 1) * DAY
    assert (await service.preferences.player_settings(ANN)).vacation_days_left == 0
    clock.now += DAY
    [over] = await scheduler.tick()
    assert TimedOut(game.id, ANN.id) in over.events


async def test_the_move_spends_the_days_the_scan_would_have(
    service: GameService, clock: Clock
) -> None:
    game = await start(service, "1d+0m")
    clock.advance(days=3, hours=5)  # two days and five hours past the bank
    moved = await service.play.move(game.id, GUILD, ANN, "c3")
    assert moved.game.banks[0] == timedelta(0)
    assert (await service.preferences.player_settings(ANN)).vacation_days_left == 11


async def test_an_undo_gives_back_the_time_of_the_moves_taken_back(
    service: GameService, clock: Clock
) -> None:
    game = await start(service, "blitz-correspondence")
    clock.advance(days=2)
    await service.play.move(game.id, GUILD, ANN, "c3")  # ann 1d + 1d
    clock.advance(days=1)
    await service.play.request_undo(game.id, GUILD, ANN)
    undone = await service.play.answer_undo(game.id, GUILD, BOB, accept=True)
    assert undone.game.banks == (3 * DAY, 3 * DAY)  # as ann's turn started
    assert undone.game.deadline == clock.now + 3 * DAY


async def test_a_weekend_stops_the_clock_and_a_restart_changes_nothing(
    service: GameService, clock: Clock, database_url: str
) -> None:
    clock.now = datetime(2026, 11, 27, 11, tzinfo=UTC)  # a Friday, 12:00 in Paris
    await service.preferences.player_settings(
        ANN, time_zone="Europe/Paris", weekend="sat-sun", auto_vacation=False
    )
    game = await start(service, "2d+1d/3d")
    assert game.deadline == datetime(2026, 12, 1, 11, tzinfo=UTC)  # Tuesday noon in Paris
    clock.now = datetime(2026, 11, 29, 11, tzinfo=UTC)  # Sunday: stopped since Friday night
    again = await open_service(database_url, clock)
    try:
        seen = await again.lookups.game(game.id, GUILD)
        assert seen.banks[0] == 2 * DAY - 12 * HOUR
        await again.preferences.player_settings(
            ANN, weekend="off"
        )  # the rest runs from now, no pause
        clock.advance(hours=36)
        await refused(ServiceCode.OUT_OF_TIME, again.play.move(game.id, GUILD, ANN, "c3"))
    finally:
        await again.close()
    kinds = await rows(service, game.id)
    assert kinds["timeout"][0] == datetime(2026, 11, 30, 23, tzinfo=UTC)


async def test_the_console_plays_a_bank_clock(
    service: GameService, clock: Clock, tmp_path: Path
) -> None:
    lines = [
        "as ann",
        "settings auto_vacation=off weekend=sat-sun",
        "challenge hex @bob clock=10d+36h/10d size=5 first=challenger",
        "as bob",
        "accept",
        "games",
        "as ann",
        "challenge hex @bob fischer=standard size=5",
        "settings weekend=mon",
        "challenge hex @bob clock=10d",
    ]
    said = await transcript_of(service, tmp_path, lines)
    assert "bank clocks: weekend sat-sun, auto-vacation off" in said[2], said
    assert any("#2" in line and "clock 10d+36h/10d" in line for line in said), said
    assert any("; clock 10d+36h/10d: ann 10d 0h · bob 10d 0h" in line for line in said), said
    assert "A weekend pause is sat-sun, fri-sat, sun, or off." in said, said
    assert any(line.startswith("A clock is a bank, an increment and a cap") for line in said)


async def test_the_digest_names_the_bank_left(service: GameService, clock: Clock) -> None:
    game = await start(service, "relaxed")
    clock.advance(days=2, hours=3)
    async with service.records.db.read() as conn:
        [line] = (await digest.on_move(conn, [ANN.id], clock.now))[ANN.id]
    assert line.game_id == game.id and digest_bank(line) == " (bank 18d 21h)"


async def event_games(service: GameService, **settings: Any) -> list[GameSummary]:
    """The games under way of a round robin of ann, bob and cat, just started."""
    created = await service.events.create_tournament(
        PLACE, ANN, "hex", format="roundrobin", options={"size": "5"}, manages=True, **settings
    )
    for person in (ANN, BOB, CAT):
        await service.events.join_tournament(created.tournament.id, GUILD, person)
    started = await service.events.start_tournament(created.tournament.id, GUILD, ANN)
    return [r.game for r in started.results if r.game.status == "active"]


async def test_an_event_gives_its_games_its_clock_and_may_forbid_vacation_days(
    service: GameService, scheduler: Scheduler, clock: Clock
) -> None:
    both = service.events.create_tournament(
        PLACE, ANN, "hex", format="swiss", days_per_move=3, clock="1d"
    )
    await refused(Code.BAD_OPTION, both)
    games = await event_games(service, clock="1d+1h/2d", auto_vacation=False)
    [event] = await service.event_reads.list_tournaments(GUILD)
    assert event.time_control == "1d+1h/2d" and not event.auto_vacation
    assert games and all(g.time_control == "1d+1h/2d" for g in games)
    assert all(g.banks == (DAY, DAY) for g in games)
    clock.advance(days=1)  # the movers' vacation days are left, but the event says no
    timed_out = [e for r in await scheduler.tick() for e in r.events if isinstance(e, TimedOut)]
    assert {e.game_id for e in timed_out} == {g.id for g in games}


class Reference:
    """The plain computation a game's banks are checked against: hour by hour, the mover's
    clock runs unless it is ann's weekend; an empty clock takes a vacation day while one
    is left; an undo puts back the banks its taken-back turn started with."""

    def __init__(self, bank: int, increment: int, cap: int, days: int) -> None:
        self.increment, self.cap = increment, cap
        self.banks = [bank, bank]
        self.mover, self.left, self.grace = 0, bank, 0
        self.days = [days, days]
        self.weekend = False  # ann's: Saturday and Sunday, UTC
        self.started: list[list[int]] = []  # the banks as each move's turn started
        self.lost = False

    def run(self, start: datetime, hours: int) -> None:
        for hour in range(hours):
            paused = self.weekend and self.mover == 0 and (start + hour * HOUR).weekday() >= 5
            if paused or self.lost:
                continue
            if not self.left and not self.grace and not self.spend():
                self.lost = True
            elif self.left:
                self.left -= 1
            else:
                self.grace -= 1

    def spend(self) -> bool:
        if self.days[self.mover] < 1:
            return False
        self.days[self.mover] -= 1
        self.grace += 24
        return True

    def move(self) -> bool:
        """Whether the mover's move now is in time (and if so, it is played)."""
        if self.lost or (not self.left and not self.grace and not self.spend()):
            self.lost = True
            return False
        self.started.append(list(self.banks))
        self.banks[self.mover] = min(self.cap, self.left + self.increment)
        self.mover = 1 - self.mover
        self.left, self.grace = self.banks[self.mover], 0
        return True

    def undo(self) -> None:
        """The last mover takes their move back (the one before the mover's turn)."""
        self.banks = self.started.pop()
        self.mover = 1 - self.mover
        self.left, self.grace = self.banks[self.mover], 0


@pytest.mark.parametrize("seed", [1, 2, 3])
async def test_random_games_keep_the_reference_banks(
    service: GameService, clock: Clock, database_url: str, seed: int
) -> None:
    """Moves, undos, weekends and restarts at random: after each step the banks are the
    reference's, and a move is refused exactly when the reference says time ran out."""
    rng = random.Random(seed)
    issued = await service.challenges.challenge(
        PLACE, ANN, "hex", opponents=[BOB], options={"size": 7}, first="challenger",
        clock="1d+12h/2d",
    )  # fmt: skip
    game_id = (await service.challenges.accept(issued.game.id, GUILD, BOB)).game.id
    reference = Reference(24, 12, 48, days=service.records.settings.vacation_days)
    players = (ANN, BOB)
    current = service
    try:
        for _ in range(40):
            step = rng.choice(["move", "move", "move", "undo", "restart", "weekend"])
            hours = rng.randrange(0, 60)
            if step == "weekend" and reference.mover == 1:  # ann's clock is not running
                reference.weekend = not reference.weekend
                await current.preferences.player_settings(
                    ANN, weekend="sat-sun" if reference.weekend else "off"
                )
            elif step == "restart":
                if current is not service:
                    await current.close()
                current = await open_service(database_url, clock)
            elif step == "undo" and reference.started:
                reference.run(clock.now, hours)
                clock.advance(hours=hours)
                asker, answering = players[1 - reference.mover], players[reference.mover]
                await current.play.request_undo(game_id, GUILD, asker)
                answer = current.play.answer_undo(game_id, GUILD, answering, accept=True)
                if reference.lost:  # too late: the clock ran out before it
                    await refused(ServiceCode.OUT_OF_TIME, answer)
                    break
                await answer
                reference.undo()
            elif step == "move":
                reference.run(clock.now, hours)
                clock.advance(hours=hours)
                mover = players[reference.mover]
                cell = rng.choice((await current.lookups.state(game_id, GUILD)).legal_moves())
                if not reference.move():
                    await refused(
                        ServiceCode.OUT_OF_TIME, current.play.move(game_id, GUILD, mover, cell)
                    )
                    break
                await current.play.move(game_id, GUILD, mover, cell)
            seen = await current.lookups.game(game_id, GUILD)
            expected = [b * HOUR for b in reference.banks]
            expected[reference.mover] = max(reference.left, 0) * HOUR
            assert list(seen.banks) == expected, (step, seen.banks, expected)
    finally:
        if current is not service:
            await current.close()


async def test_a_vacation_stops_the_bank_and_rearms_its_rows(
    service: GameService, clock: Clock
) -> None:
    game = await start(service, "3d+1d/3d")
    clock.advance(days=1)
    await service.preferences.player_settings(ANN, vacation=True)
    clock.advance(days=2)
    await service.preferences.player_settings(ANN, vacation=False)  # the clock stood still 2 days
    seen = await service.lookups.game(game.id, GUILD)
    assert seen.banks[0] == 2 * DAY and seen.deadline == clock.now + 2 * DAY
    kinds = await rows(service, game.id)
    assert kinds["timeout"] == (clock.now + 2 * DAY, False)
    assert kinds["remind_24h"] == (clock.now + DAY, False)
    clock.advance(hours=12)
    await service.preferences.player_settings(ANN, vacation=True)
    clock.advance(days=1)  # a move on vacation: the clock stood still since it began
    moved = await service.play.move(game.id, GUILD, ANN, "c3")
    assert moved.game.banks[0] == 2 * DAY + 12 * HOUR  # 1d 12h left + 1d
    assert (await service.preferences.player_settings(ANN)).vacation_days_left == 12


async def test_the_commit_instant_decides_not_the_check(
    service: GameService, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A move checked a second before the deadline but committed a second after it is
    late: the clock is read in the move's transaction."""
    await service.preferences.player_settings(ANN, auto_vacation=False)
    game = await start(service, "1d+0m")
    clock.advance(days=1, seconds=-1)
    checked = service.play._checked_move

    async def slow_check(*args: Any) -> Any:
        found = await checked(*args)
        clock.advance(seconds=2)  # the write lock came late
        return found

    monkeypatch.setattr(service.play, "_checked_move", slow_check)
    await refused(ServiceCode.OUT_OF_TIME, service.play.move(game.id, GUILD, ANN, "c3"))


@pytest.mark.parametrize("then", ["scan", "move"])
async def test_a_weekend_change_keeps_the_time_run_past_the_bank(
    service: GameService, scheduler: Scheduler, outbox: Outbox, clock: Clock, then: str
) -> None:
    """The bank ran out 2d 12h before the change (downtime: no scan): the change neither
    gains nor loses that, so the vacation days spent are those spent without it."""
    game = await start(service, "1d+0m")
    clock.advance(days=3, hours=12)  # a Wednesday, 00:00 UTC: no pause of either setting
    await service.preferences.player_settings(ANN, weekend="sun")
    clock.advance(minutes=1)
    if then == "scan":
        [spent] = await scheduler.tick()
        [told] = spent.events
        assert isinstance(told, Reminder) and told.vacation_days_spent == 3
        assert told.deadline == game.created_at + 4 * DAY  # as without the change
    else:
        moved = await service.play.move(game.id, GUILD, ANN, "c3")
        assert moved.game.banks[0] == timedelta(0)
    assert (await service.preferences.player_settings(ANN)).vacation_days_left == 11


async def test_an_event_whose_clocks_run_through_vacations_shows_its_bank_running(
    service: GameService, clock: Clock
) -> None:
    [game, *_] = await event_games(service, clock="3d+1d/3d", vacations=False)
    seat = game.to_move
    assert seat is not None and game.deadline is not None
    mover = next(p for p in (ANN, BOB, CAT) if p.id == game.seats[seat].player_id)
    clock.advance(days=1)
    await service.preferences.player_settings(mover, vacation=True)
    clock.advance(days=1)  # two days into the turn: the clock ran on through the vacation
    seen = await service.lookups.game(game.id, GUILD)
    assert seen.banks[seat] == DAY and seen.deadline == game.deadline
    async with service.records.db.read() as conn:
        lines = (await digest.on_move(conn, [mover.id], clock.now))[mover.id]
    assert [digest_bank(line) for line in lines if line.game_id == game.id] == [" (bank 1d 0h)"]
