"""The bank clock's arithmetic (bot/service/clocks.py) against a plain reference: an hour
by hour simulation of a game's two banks, weekend pauses, vacations and the vacation days
the clock spends by itself."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.service.clocks import (
    DAY,
    NO_PAUSE,
    PRESETS,
    ZERO,
    Fischer,
    Pause,
    Turn,
    amount_text,
    bank_after_move,
    bank_left,
    deadline,
    instant_after,
    late,
    parse_time_control,
    parse_weekend,
    rebase,
    reminder_at,
    resumed,
    running,
    vacation_needed,
)
from bot.service.core.models import Refused

HOUR = timedelta(hours=1)
ZONES = ("UTC", "Europe/Paris", "America/New_York", "Australia/Sydney")
START = datetime(2026, 3, 2, 0, tzinfo=UTC)  # a Monday; the spring's changes ahead

pauses = st.builds(
    Pause,
    st.sampled_from([frozenset(), frozenset({5, 6}), frozenset({4, 5}), frozenset({6})]),
    st.sampled_from(ZONES).map(ZoneInfo),
)
instants = st.integers(0, 24 * 300).map(lambda hours: START + hours * HOUR)
controls = st.builds(
    Fischer,
    st.integers(1, 10 * 24).map(lambda h: h * HOUR),
    st.integers(0, 3 * 24).map(lambda h: h * HOUR),
    st.integers(0, 5 * 24).map(lambda h: h * HOUR),
).map(lambda c: replace(c, cap=c.initial + c.cap))


def runs(hour_start: datetime, pause: Pause) -> bool:
    """The reference's rule: an hour runs unless its local weekday is paused."""
    return hour_start.astimezone(pause.time_zone).weekday() not in pause.weekdays


@given(pauses, instants, st.integers(0, 24 * 40))
def test_running_and_instant_after_agree_with_counting_hours(
    pause: Pause, start: datetime, hours: int
) -> None:
    end = start + hours * HOUR
    counted = sum(runs(start + i * HOUR, pause) for i in range(hours))
    assert running(start, end, pause) == counted * HOUR
    reached = instant_after(start, counted * HOUR, pause)
    assert running(start, reached, pause) == counted * HOUR
    assert reached <= end  # the first instant: never past the one counted to
    if counted:
        assert running(start, reached - timedelta(seconds=1), pause) < counted * HOUR


@given(pauses, instants, st.integers(0, 24 * 20), st.integers(0, 24 * 3), st.integers(0, 999))
def test_late_exactly_from_the_deadline_instant(
    pause: Pause, start: datetime, bank_hours: int, grace_hours: int, minutes: int
) -> None:
    turn = Turn(start, bank_hours * HOUR, grace_hours * HOUR)
    due = deadline(turn, pause)
    assert not late(turn, due - timedelta(microseconds=1), pause)
    assert late(turn, due, pause) or due == start  # at its start a turn is never late
    moment = start + timedelta(minutes=minutes * 37)
    assert late(turn, moment, pause) == (moment >= due and moment > start)


@given(
    pauses, instants, st.integers(0, 24 * 10), st.integers(0, 24 * 3), st.integers(0, 24 * 10),
    st.integers(1, 24 * 10), st.integers(0, 5),
)  # fmt: skip
def test_a_restart_gains_and_loses_nothing(
    pause: Pause, start: datetime, bank: int, grace: int, restart: int, later: int, days: int
) -> None:
    """A clock restarted (a vacation's end, a weekend change) on the same pause decides
    everything after the restart as before it, time already run past the bank included."""
    turn = Turn(start, bank * HOUR, grace * HOUR)
    at = start + restart * HOUR
    again = rebase(turn, at, pause)
    moment = at + later * HOUR
    assert late(again, moment, pause) == late(turn, moment, pause)
    assert vacation_needed(again, moment, pause, days) == vacation_needed(turn, moment, pause, days)
    assert bank_left(again, moment, pause) == bank_left(turn, moment, pause)
    assert deadline(again, pause) == max(at, deadline(turn, pause))


@st.composite
def games(draw: st.DrawFn) -> tuple[Fischer, tuple[Pause, Pause], list[tuple[str, int]], int]:
    control = draw(controls)
    seat_pauses = (draw(pauses), draw(pauses))
    steps = draw(
        st.lists(
            st.tuples(
                st.sampled_from(["move", "move", "move", "vacation"]), st.integers(0, 24 * 6)
            ),
            max_size=30,
        )
    )
    return control, seat_pauses, steps, draw(st.integers(0, 4))


def reference(
    control: Fischer,
    seat_pauses: tuple[Pause, Pause],
    steps: list[tuple[str, int]],
    days: int,
    auto: bool,
) -> tuple[list[tuple[int, int]], int | None]:
    """Hour by hour: the (seat, bank in hours) after each move, and the hour a seat lost.
    A move at the instant its turn started (or a vacation ended) is in time on any bank."""
    banks = [control.initial // HOUR] * 2
    days_left = [days, days]
    mover, hour = 0, 0
    left, grace = banks[0], 0
    at_start = True  # no hour has passed since the turn started or a vacation ended
    after: list[tuple[int, int]] = []

    def spend_a_day() -> bool:
        nonlocal grace
        if not auto or days_left[mover] < 1:
            return False
        days_left[mover] -= 1
        grace += 24
        return True

    for kind, hours in steps:
        if kind == "vacation":
            hour += hours
            at_start = True
            continue
        for _ in range(hours):
            at_start = False
            if not runs(START + hour * HOUR, seat_pauses[mover]):
                hour += 1
                continue
            if left == 0 and grace == 0 and not spend_a_day():
                return after, hour
            if left:
                left -= 1
            else:
                grace -= 1
            hour += 1
        if left == 0 and grace == 0 and not at_start and not spend_a_day():
            return after, hour
        banks[mover] = min(control.cap // HOUR, left + control.increment // HOUR)
        after.append((mover, banks[mover]))
        mover = 1 - mover
        left, grace = banks[mover], 0
        at_start = True
    return after, None


@given(games(), st.booleans())
def test_banks_after_each_move_match_the_reference(
    game: tuple[Fischer, tuple[Pause, Pause], list[tuple[str, int]], int], auto: bool
) -> None:
    control, seat_pauses, steps, days = game
    expected, lost_at = reference(control, seat_pauses, steps, days, auto)
    banks = [control.initial, control.initial]
    days_left = [float(days)] * 2
    mover, now = 0, START
    turn = Turn(now, banks[0])
    after: list[tuple[int, int]] = []
    lost = None
    for kind, hours in steps:
        pause = seat_pauses[mover]
        if kind == "vacation":
            since, now = now, now + hours * HOUR
            turn = resumed(turn, since, now, pause)
            continue
        now += hours * HOUR
        needed = vacation_needed(turn, now, pause, days_left[mover] if auto else 0.0)
        if needed is None:  # lost on time: at the deadline once every day left is spent
            spent = replace(turn, grace=turn.grace + days_left[mover] * DAY * auto)
            lost = deadline(spent, pause)
            assert late(spent, now, pause) and lost <= now  # only once every day is spent
            break
        days_left[mover] -= needed / DAY
        turn = replace(turn, grace=turn.grace + needed)
        assert not late(turn, now, pause)  # a move accepted is a move in time
        banks[mover] = bank_after_move(control, turn, now, pause)
        after.append((mover, banks[mover] // HOUR))
        mover = 1 - mover
        turn = Turn(now, banks[mover])
    assert after == expected
    assert (lost is None) == (lost_at is None)
    if lost is not None and lost_at is not None:
        # the reference notices a loss at the first hour that cannot run, or at the move
        assert lost <= START + lost_at * HOUR


def test_parsing_presets_and_typed_controls() -> None:
    assert parse_time_control("standard") == Fischer(10 * DAY, 36 * HOUR, 10 * DAY)
    assert str(parse_time_control("fischer=10d+36h/10d")) == "10d+36h/10d"
    assert str(PRESETS["blitz-correspondence"]) == "3d+1d/3d"
    assert str(PRESETS["relaxed"]) == "21d+3d/30d"
    assert str(parse_time_control("2d+12h")) == "2d+12h/2d"  # no cap: the initial bank
    assert amount_text(90 * timedelta(minutes=1)) == "90m"
    for bad in ("10d", "10x+1d", "100d+1d", "5d+1d/2d", "1d+40d/2d", ""):
        with pytest.raises(Refused):
            parse_time_control(bad)
    assert parse_weekend("Sat-Sun") == frozenset({5, 6})
    assert parse_weekend("off") == frozenset()
    with pytest.raises(Refused):
        parse_weekend("mon")


def test_a_worked_example_standard_over_a_weekend() -> None:
    """docs/CLOCKS.md: ann moves on a Friday noon with 10d+36h/10d and a Paris weekend."""
    paris = Pause(frozenset({5, 6}), ZoneInfo("Europe/Paris"))
    friday = datetime(2026, 11, 27, 11, tzinfo=UTC)  # 12:00 in Paris
    turn = Turn(friday, timedelta(days=2))
    # Friday 12:00-24:00 runs (12 h), the weekend stops, Monday runs from 00:00 Paris
    assert deadline(turn, paris) == datetime(2026, 12, 1, 11, tzinfo=UTC)  # Tue 12:00 Paris
    monday_noon = datetime(2026, 11, 30, 11, tzinfo=UTC)
    assert bank_left(turn, monday_noon, paris) == timedelta(hours=24)
    control = PRESETS["standard"]
    assert bank_after_move(control, turn, monday_noon, paris) == timedelta(hours=60)
    assert reminder_at(turn, timedelta(hours=24), paris) == monday_noon
    assert reminder_at(Turn(friday, timedelta(hours=20)), timedelta(hours=24), paris) is None


def test_vacation_days_spent_one_at_a_time_the_last_in_part() -> None:
    turn = Turn(START, DAY)
    assert vacation_needed(turn, START + 12 * HOUR, NO_PAUSE, 3.0) == ZERO
    assert vacation_needed(turn, START + DAY, NO_PAUSE, 3.0) == DAY  # the deadline itself
    assert vacation_needed(turn, START + 2 * DAY + HOUR, NO_PAUSE, 3.0) == 2 * DAY
    assert vacation_needed(turn, START + DAY + HOUR, NO_PAUSE, 0.5) == DAY / 2
    assert vacation_needed(turn, START + DAY + 13 * HOUR, NO_PAUSE, 0.5) is None
    assert vacation_needed(turn, START + DAY, NO_PAUSE, 0.0) is None
