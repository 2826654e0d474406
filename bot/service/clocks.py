"""Bank clocks, pure: time controls, a running bank's deadline, the bank after a move,
weekend pauses and the vacation days a clock spends by itself. No I/O, no database:
the service stores what these return (instants and banks) and the rules live here
(docs/CLOCKS.md tells them with examples).

A turn's clock is three values: when it (re)started, the mover's bank then, and the
vacation time spent on it so far (`grace`). Clock time runs except in the mover's
weekend pause (whole local days in their time zone). The deadline is the first instant
at which the clock time run since the start reaches bank + grace: a move then or later
is late.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta, tzinfo

from bot.service.core.models import Refused, ServiceCode
from engine import Code

DAY = timedelta(days=1)
ZERO = timedelta(0)
#: Reminders before a deadline (the mention when the turn starts is the first): on a bank
#: clock, when this much of the clock is left.
REMINDER_LEADS = {"remind_24h": timedelta(hours=24), "remind_1h": timedelta(hours=1)}
#: Limits of a typed time control: a bank is at least an hour and at most a season.
MIN_BANK = timedelta(hours=1)
MAX_BANK = timedelta(days=90)
MAX_INCREMENT = timedelta(days=30)

_UNITS = {"d": timedelta(days=1), "h": timedelta(hours=1), "m": timedelta(minutes=1)}
_AMOUNT = r"(?:\d{1,4}[dhm])+"
_FISCHER = re.compile(rf"({_AMOUNT})\+({_AMOUNT})(?:/({_AMOUNT}))?")
_PART = re.compile(r"(\d{1,4})([dhm])")

#: Weekend pauses a player may choose: local weekdays (Monday is 0) their clocks stop on.
WEEKENDS: dict[str, frozenset[int]] = {
    "sat-sun": frozenset({5, 6}),
    "fri-sat": frozenset({4, 5}),
    "sun": frozenset({6}),
}


@dataclass(frozen=True, slots=True)
class Fischer:
    """An initial bank, added to by `increment` after each move, never above `cap`."""

    initial: timedelta
    increment: timedelta
    cap: timedelta

    def __str__(self) -> str:
        return f"{amount_text(self.initial)}+{amount_text(self.increment)}/{amount_text(self.cap)}"


#: Named time controls (`/rules` lists them): typed by name or in full.
PRESETS: dict[str, Fischer] = {
    "blitz-correspondence": Fischer(timedelta(days=3), timedelta(days=1), timedelta(days=3)),
    "standard": Fischer(timedelta(days=10), timedelta(hours=36), timedelta(days=10)),
    "relaxed": Fischer(timedelta(days=21), timedelta(days=3), timedelta(days=30)),
}


@dataclass(frozen=True, slots=True)
class Pause:
    """Whole local weekdays (Monday is 0) on which a player's clocks stop, in their zone."""

    weekdays: frozenset[int] = frozenset()
    time_zone: tzinfo = UTC


NO_PAUSE = Pause()


@dataclass(frozen=True, slots=True)
class Turn:
    """A running turn's clock: since `started`, `bank` plus `grace` (vacation spent on
    this turn; negative: time run past both before a restart, not yet paid for) of clock
    time; the bank is what a move in time keeps."""

    started: datetime
    bank: timedelta
    grace: timedelta = ZERO


# == time controls ==============================================================================


def parse_time_control(text: str) -> Fischer:
    """A typed time control: a preset's name or "10d+36h/10d" (no cap: the initial bank).

    >>> str(parse_time_control("standard"))
    '10d+36h/10d'
    >>> str(parse_time_control(" 3D + 1d "))
    '3d+1d/3d'
    """
    cleaned = "".join(text.lower().split())
    if cleaned.startswith("fischer="):
        cleaned = cleaned.removeprefix("fischer=")
    preset = PRESETS.get(cleaned)
    if preset is not None:
        return preset
    found = _FISCHER.fullmatch(cleaned)
    if found is None:
        names = ", ".join(PRESETS)
        raise Refused(
            f"A clock is a bank, an increment and a cap like 10d+36h/10d, or one of {names}.",
            code=Code.BAD_OPTION,
        )
    initial, increment = _amount(found[1]), _amount(found[2])
    cap = _amount(found[3]) if found[3] else initial
    if not MIN_BANK <= initial <= MAX_BANK or not initial <= cap <= MAX_BANK:
        raise Refused(
            "A clock's bank is 1 hour to 90 days, and its cap at least the bank and at most "
            "90 days.",
            code=Code.BAD_OPTION,
        )
    if increment > MAX_INCREMENT:
        raise Refused(
            "A clock's increment is at most 30 days.",
            code=Code.BAD_OPTION,
        )
    return Fischer(initial, increment, cap)


def chosen_clock(clock: str | None, days_per_move_chosen: bool) -> str | None:
    """A new game's (or event's) bank clock as stored, "10d+36h/10d", or None for none;
    refused when days per move were chosen too."""
    if clock is None:
        return None
    if days_per_move_chosen:
        raise Refused("A game has days per move or a bank clock, not both.", code=Code.BAD_OPTION)
    return str(parse_time_control(clock))


def amount_text(amount: timedelta) -> str:
    """A span as typed, in the largest unit it is a whole number of: "10d", "36h", "90m"."""
    for unit, size in _UNITS.items():
        count, rest = divmod(amount, size)
        if not rest:
            return f"{count}{unit}"
    return f"{amount // _UNITS['m']}m"


def bank_text(bank: timedelta) -> str:
    """A bank as players read it: "6d 4h", "5h 12m", "40m"."""
    minutes = max(0, int(bank.total_seconds())) // 60
    days, rest = divmod(minutes, 24 * 60)
    hours, minutes = divmod(rest, 60)
    if days:
        return f"{days}d {hours}h"
    if hours:
        return f"{hours}h {minutes}m"
    return f"{minutes}m"


def _amount(text: str) -> timedelta:
    return sum((int(n) * _UNITS[unit] for n, unit in _PART.findall(text)), ZERO)


def parse_weekend(text: str) -> frozenset[int]:
    """A weekend pause by name ("sat-sun", "fri-sat", "sun") or "off" (none)."""
    cleaned = text.strip().lower()
    if cleaned in ("off", "none", ""):
        return frozenset()
    found = WEEKENDS.get(cleaned)
    if found is None:
        raise Refused(
            f"A weekend pause is {', '.join(WEEKENDS)}, or off.", code=ServiceCode.BAD_SETTING
        )
    return found


def weekend_name(weekdays: frozenset[int]) -> str:
    return next((name for name, days in WEEKENDS.items() if days == weekdays), "off")


# == running time ===============================================================================


def pauses_from(moment: datetime, pause: Pause) -> Iterator[tuple[datetime, datetime]]:
    """The paused spans [start, end) in time order, from the one `moment` falls in (or
    the next): consecutive paused days are one span. Endless; none without weekdays."""
    if not pause.weekdays:
        return
    tz = pause.time_zone
    day = moment.astimezone(tz).date()
    span_start: datetime | None = None
    while True:
        paused = day.weekday() in pause.weekdays
        if paused and span_start is None:
            span_start = _midnight(day, tz)
        elif not paused and span_start is not None:
            end = _midnight(day, tz)
            if end > moment:
                yield span_start, end
            span_start = None
        day += DAY


def _midnight(day: date, tz: tzinfo) -> datetime:
    """The instant a local day starts (wall-clock midnight in the zone)."""
    return datetime.combine(day, time(0), tzinfo=tz).astimezone(UTC)


def running(start: datetime, end: datetime, pause: Pause) -> timedelta:
    """Clock time run from `start` to `end`: the time outside the pause."""
    if end <= start:
        return ZERO
    total = ZERO
    at = start
    for paused_from, paused_to in pauses_from(start, pause):
        if paused_from >= end:
            break
        if paused_from > at:
            total += paused_from - at
        at = max(at, paused_to)
        if at >= end:
            return total
    return total + (end - at)


def instant_after(start: datetime, amount: timedelta, pause: Pause) -> datetime:
    """The first instant at which `amount` of clock time has run since `start`."""
    at, left = start, max(ZERO, amount)
    if not left:
        return start
    for paused_from, paused_to in pauses_from(start, pause):
        if paused_from > at:
            if paused_from - at >= left:
                break
            left -= paused_from - at
        at = max(at, paused_to)
    return at + left


# == a turn =====================================================================================


def deadline(turn: Turn, pause: Pause) -> datetime:
    """The first instant at which a move is late: bank and grace have run out."""
    return instant_after(turn.started, turn.bank + turn.grace, pause)


def reminder_at(turn: Turn, lead: timedelta, pause: Pause) -> datetime | None:
    """When only `lead` of the clock (bank and grace) is left; None when the turn started
    with no more than that left (the reminder has no place in it)."""
    total = turn.bank + turn.grace
    if total <= lead:
        return None
    return instant_after(turn.started, total - lead, pause)


def reminders_at(turn: Turn, pause: Pause) -> dict[str, datetime | None]:
    """Each reminder's instant on this turn's clock (None: none in this turn)."""
    return {kind: reminder_at(turn, lead, pause) for kind, lead in REMINDER_LEADS.items()}


def bank_left(turn: Turn, at: datetime, pause: Pause) -> timedelta:
    """The bank left at `at` (vacation time spent on the turn is not bank)."""
    return max(ZERO, turn.bank - running(turn.started, at, pause))


def late(turn: Turn, at: datetime, pause: Pause) -> bool:
    """From the deadline on, but never at the instant a turn started (a conditional reply,
    played in the transaction that starts its turn, is in time even on no bank) unless
    it was restarted already past its deadline (a negative grace)."""
    total = turn.bank + turn.grace
    return (at > turn.started or total < ZERO) and running(turn.started, at, pause) >= total


def bank_after_move(control: Fischer, turn: Turn, at: datetime, pause: Pause) -> timedelta:
    """The mover's bank after a move in time at `at`: what was left, plus the increment,
    no more than the cap."""
    return min(control.cap, bank_left(turn, at, pause) + control.increment)


def rebase(turn: Turn, at: datetime, pause: Pause) -> Turn:
    """The same turn with its clock restarted at `at` (a vacation ends, the weekend
    setting changes): what is left of bank and grace is kept, nothing else changes. Time
    already run past both stays owed as a negative grace: the vacation days it calls for
    are spent as if the clock had never restarted."""
    used = running(turn.started, at, pause)
    bank = max(ZERO, turn.bank - used)
    return Turn(at, bank, turn.grace - max(ZERO, used - turn.bank))


def vacation_needed(turn: Turn, at: datetime, pause: Pause, days_left: float) -> timedelta | None:
    """The vacation time the clock takes by itself so that `at` is in time: whole days from
    the player's vacation bank (the last piece what is left of it), as few as needed.
    ZERO when `at` is in time already; None when the days left do not reach."""
    if not late(turn, at, pause):
        return ZERO
    over = running(turn.started, at, pause) - (turn.bank + turn.grace)
    available = vacation_time(days_left)
    needed = (over // DAY + 1) * DAY  # `at` itself is late: strictly past it
    if needed <= available:
        return needed
    if over < available:  # the last, partial day reaches
        return available
    return None


def vacation_time(days_left: float) -> timedelta:
    """A vacation bank in whole seconds (it is kept in days as a float)."""
    return timedelta(seconds=round(max(0.0, days_left) * 86400))


def resumed(turn: Turn, since: datetime, end: datetime, pause: Pause) -> Turn:
    """The turn after a vacation [since, end) of its mover: the clock stood still in it
    (from the turn's start, when the vacation began before the turn did)."""
    stopped = rebase(turn, max(since, turn.started), pause)
    return Turn(max(end, turn.started), stopped.bank, stopped.grace)
