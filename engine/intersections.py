"""Making Intersections: segments on an array of dots, scored in rounds.

Source: "Making Intersections", Leroy Quet, 2009. Two to eight players take
turns drawing straight horizontal or vertical segments between dots of an
n x n array; a segment may touch earlier ones but never cross or overlap them.
Each round has an offense player, who draws first. When the round's m-th
segment is drawn, every dot gets a degree (+1 for each segment ending there,
+2 for each segment passing through it) and the offense scores one point per
dot of degree 3 or 4. The array is then wiped for the next round, whose
offense is the next seat. After the last round the highest total wins; equal
highest totals share the win.
"""

from __future__ import annotations

import copy as _copy
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import pairwise
from typing import Self

from engine import notation
from engine.core import (
    BadOptions,
    Code,
    End,
    GameInfo,
    GameState,
    IllegalMove,
    Option,
    OptionValue,
    Outcome,
    View,
    shown,
)
from engine.notation import Point
from engine.options import dims_option, int_option
from engine.registry import register

MIN_SIZE = 3
MAX_SIZE = 12
MAX_ROUNDS = 120
#: A dot of this degree scores for the offense (no dot can go above 4).
SCORING_DEGREES = (3, 4)

INFO = GameInfo(
    name="intersections",
    title="Making Intersections",
    version=1,
    min_players=2,
    max_players=8,
    seat_names=(),  # "Player 1" ... "Player 8" from GameInfo.seat_name
    options={
        "size": Option(
            name="size",
            default=6,
            allowed=f"{MIN_SIZE} to {MAX_SIZE} (a square array of dots)",
            parse=dims_option((MIN_SIZE, MIN_SIZE), (MAX_SIZE, MAX_SIZE), square=True),
            help="The array has size x size dots.",
            choices=(4, 5, 6, 7, 8),
        ),
        "segments": Option(
            name="segments",
            default=None,  # the largest multiple of the players not above 2 x size
            allowed="a multiple of the number of players, fewer than (size - 1)² + 3",
            parse=int_option(1, (MAX_SIZE - 1) ** 2 + 2),
            help="Segments drawn in each round.",
        ),
        "rounds": Option(
            name="rounds",
            default=None,  # one round per player
            allowed=f"a multiple of the number of players, up to {MAX_ROUNDS}",
            parse=int_option(1, MAX_ROUNDS),
            help="Rounds in the game; each player is the offense equally often.",
        ),
    },
    summary=(
        "Take turns drawing a straight segment between two dots of one row or column; "
        "it may touch this round's segments but never cross or overlap them. When the "
        "round's last segment is drawn, the round's offense player scores a point for "
        "each dot of degree 3 or 4 (+1 for each segment ending there, +2 for each "
        "segment passing through). The array is wiped and the next player is the "
        "offense. After the last round the highest total wins."
    ),
    notation=(
        "A move is a segment: its two end dots of one row or column, each a column "
        "letter and a row number, in either order."
    ),
    credit="Leroy Quet (2009)",
    ends=frozenset({End.POINTS}),
)


# -- notation -------------------------------------------------------------------


def segment_text(first: Point, second: Point) -> str:
    """The record of a segment: the lower dot first ("b2-b5", "a3-c3")."""
    low, high = sorted((first, second))
    return f"{notation.label(low)}-{notation.label(high)}"


# -- the view -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DrawnSegment:
    """One segment of a round and the seat that drew it."""

    text: str  # canonical, "b2-b5"
    start: Point  # the lower dot
    end: Point
    seat: int


@dataclass(frozen=True, slots=True)
class RoundResult:
    """A finished round: what was drawn and what its offense scored."""

    round: int  # 1-based
    offense: int
    points: int
    segments: tuple[DrawnSegment, ...]
    degrees: tuple[tuple[Point, int], ...]  # dots of degree > 0, in (column, row) order
    scoring_dots: tuple[Point, ...]


@dataclass(frozen=True, slots=True)
class IntersectionsView(View):
    size: int
    round: int  # 1-based; the last round once the game is over
    rounds: int
    segments_per_round: int
    offense: int | None  # seat of the current round's offense; None when over
    segments: tuple[DrawnSegment, ...]  # the current round, in drawing order
    degrees: tuple[tuple[Point, int], ...]  # current round, dots of degree > 0
    scoring_dots: tuple[Point, ...]  # current round, degree 3 or 4
    scores: tuple[int, ...]  # running totals per seat
    history: tuple[RoundResult, ...]  # every finished round, oldest first
    # The round that just ended while the new one has no segment yet (the
    # array is empty then, so this is the picture of the last segment's move).
    finished_round: RoundResult | None


# -- the state ------------------------------------------------------------------


class IntersectionsState(GameState):
    info = INFO
    _shared_tables = ("_array",)

    def __init__(self, options: Mapping[str, OptionValue]) -> None:
        super().__init__(options)
        self.size = int(self.options["size"])
        self.segments_per_round = _segments_per_round(
            self.size, self.players, _optional_int(self.options.get("segments"))
        )
        self.rounds = _rounds(self.players, _optional_int(self.options.get("rounds")))
        self.options["segments"] = self.segments_per_round
        self.options["rounds"] = self.rounds
        self._array = _array(self.size)
        self._drawn: list[int] = []  # candidates drawn this round, in order
        self._blocked = 0  # bit i: candidate i crosses or overlaps a segment drawn this round
        self._degree = [0] * (self.size * self.size)  # per dot (column * size + row)
        self._totals = [0] * self.players
        self._finished: list[tuple[int, ...]] = []  # the segments of each finished round
        self._round_points: list[int] = []

    # -- round information ----------------------------------------------------

    @property
    def round(self) -> int:
        """The current round, 1-based (the last one once the game is over)."""
        return min(len(self._finished) + 1, self.rounds)

    @property
    def offense(self) -> int | None:
        """The offense seat of the current round; None when the game is over."""
        if self.outcome is not None:
            return None
        return len(self._finished) % self.players

    @property
    def scores(self) -> tuple[int, ...]:
        """Running totals, one per seat."""
        return tuple(self._totals)

    @property
    def round_points(self) -> tuple[int, ...]:
        """What the offense scored in each finished round."""
        return tuple(self._round_points)

    def position_key(self) -> tuple[object, ...]:
        """What the rest of the game depends on: the round, the totals and the set of
        segments drawn this round (their order changes neither degrees, crossings nor
        the mover). Positions with equal keys have the same futures (a search's
        transposition key)."""
        return (len(self._finished), tuple(self._totals), frozenset(self._drawn))

    # -- the API --------------------------------------------------------------

    @property
    def to_move(self) -> int | None:
        if self.outcome is not None:
            return None
        return (len(self._finished) + len(self._drawn)) % self.players

    def legal_moves(self) -> list[str]:
        if self.outcome is not None:
            return []
        texts = self._array.texts
        return [texts[index] for index in self._free()]

    def _play_action(self, text: str) -> None:
        index = self._parse(text)
        self._check(index)
        self.draw_segment(index)

    def view(self) -> IntersectionsView:
        array = self._array
        offense = len(self._finished) % self.players
        current = _round_segments(array, self._drawn, offense, self.players)
        degrees = _degrees(array, self._drawn)
        history = tuple(
            _round_result(array, number, segments, points, self.players)
            for number, (segments, points) in enumerate(
                zip(self._finished, self._round_points, strict=True), start=1
            )
        )
        return IntersectionsView(
            **self._view_fields(),
            size=self.size,
            round=self.round,
            rounds=self.rounds,
            segments_per_round=self.segments_per_round,
            offense=self.offense,
            segments=current,
            degrees=tuple(sorted(degrees.items())),
            scoring_dots=_scoring(degrees),
            scores=self.scores,
            history=history,
            finished_round=history[-1] if history and not self._drawn else None,
        )

    def copy(self) -> Self:
        # The shared precomputed array is immutable: copy only what moves change.
        twin = _copy.copy(self)
        twin.options = dict(self.options)
        self._copy_record(twin)
        twin._drawn = list(self._drawn)
        twin._degree = list(self._degree)
        twin._totals = list(self._totals)
        twin._finished = list(self._finished)
        twin._round_points = list(self._round_points)
        return twin

    def random_playout(self, rng: random.Random) -> Self:
        state = self.copy()
        while state.outcome is None:
            state.draw_segment(state.random_segment(rng))
        return state

    # -- fast internals for search (candidate indices, in sorted text order) -----

    def random_segment(self, rng: random.Random) -> int:
        """A uniformly random legal candidate: a few blind tries, then the full list."""
        count = len(self._array.texts)
        for _ in range(16):
            index = rng.randrange(count)
            if not self._blocked >> index & 1:
                return index
        return rng.choice(self._free())

    def draw_segment(self, index: int) -> None:
        """Draw a legal candidate (unchecked), in place: record it, and score the round
        when it is the m-th."""
        self._record(self._array.texts[index])
        self._drawn.append(index)
        array = self._array
        self._blocked |= array.conflicts[index]
        degree = self._degree
        for dot in array.end_dots[index]:
            degree[dot] += 1
        for dot in array.inner_dot_indices[index]:
            degree[dot] += 2
        if len(self._drawn) == self.segments_per_round:
            self._finish_round()

    def segment_gain(self, index: int) -> int:
        """How many dots drawing the candidate now takes to degree 3 or 4: an end adds
        1 to its dot's degree, a dot passed through gets 2 (degrees never fall within a
        round, so these points are the offense's whatever comes after)."""
        degree = self._degree
        ends, inner = self._array.end_dots[index], self._array.inner_dot_indices[index]
        return sum(degree[dot] == 2 for dot in ends) + sum(0 < degree[dot] < 3 for dot in inner)

    # -- a move ---------------------------------------------------------------

    def _parse(self, text: str) -> int:
        """The candidate index of the typed segment; refuses what is not one."""
        if text == "pass":
            raise IllegalMove(
                "There is no passing in Making Intersections: draw a segment, like "
                f"{self._refusal_example()}.",
                code=Code.NO_PASS,
            )
        try:
            dots = notation.points(text)
        except IllegalMove:
            dots = []
        if len(dots) != 2:
            raise IllegalMove(
                f"I can't read {shown(text)}: type a segment as two dots, like "
                f"{self._refusal_example()}.",
                code=Code.SYNTAX,
            )
        last = self.size - 1
        for column, row in dots:
            if not (0 <= column <= last and 0 <= row <= last):
                raise IllegalMove(
                    f"{notation.label((column, row))} is off the board: the dots run "
                    f"from a1 to {notation.label((last, last))}.",
                    code=Code.OFF_BOARD,
                )
        first, second = sorted(dots)
        if first == second:
            raise IllegalMove(
                f"A segment joins two different dots, not {notation.label(first)} to itself.",
                code=Code.SAME_POINT,
            )
        index = self._array.by_ends.get((first, second))
        if index is None:
            raise IllegalMove(
                f"{segment_text(first, second)} is not along a row or a column.",
                code=Code.BAD_LINE,
            )
        return index

    def _check(self, index: int) -> None:
        """Refuse a segment that crosses or overlaps one drawn earlier this round."""
        if not self._blocked >> index & 1:
            return
        array = self._array
        earlier = next(j for j in self._drawn if array.conflicts[j] >> index & 1)
        text, other = array.texts[index], array.texts[earlier]
        if earlier == index:
            raise IllegalMove(f"{text} is already drawn in this round.", code=Code.OVERLAP)
        if array.horizontal[index] == array.horizontal[earlier]:
            raise IllegalMove(f"{text} overlaps {other}.", code=Code.OVERLAP)
        raise IllegalMove(f"{text} crosses {other}.", code=Code.CROSSING)

    # -- end of a round, end of the game --------------------------------------

    def _finish_round(self) -> None:
        offense = len(self._finished) % self.players
        # The running degrees, dot numbers in (column, row) order as _scoring sorts them.
        scoring = [
            divmod(dot, self.size)
            for dot, degree in enumerate(self._degree)
            if degree in SCORING_DEGREES
        ]
        self._totals[offense] += len(scoring)
        self._round_points.append(len(scoring))
        self._finished.append(tuple(self._drawn))
        self._drawn = []
        self._blocked = 0
        self._degree = [0] * len(self._degree)
        if len(self._finished) == self.rounds:
            best = max(self._totals)
            self.outcome = Outcome(
                winners=tuple(s for s, total in enumerate(self._totals) if total == best),
                reason=End.POINTS,
                scores=tuple(self._totals),
                path=tuple(notation.label(dot) for dot in scoring),
            )

    # -- helpers --------------------------------------------------------------

    def _free(self) -> list[int]:
        """Indices of the legal candidates, ascending (= sorted move text)."""
        free = ~self._blocked & self._array.everything
        indices = []
        while free:
            low = free & -free
            indices.append(low.bit_length() - 1)
            free ^= low
        return indices


# -- the precomputed array --------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Array:
    """Every candidate segment of an n x n array, indexed in sorted text order.

    Bit i of a mask stands for candidate i, so legality is one AND.
    """

    texts: tuple[str, ...]
    ends: tuple[tuple[Point, Point], ...]  # lower dot first
    inner_dots: tuple[tuple[Point, ...], ...]  # the dots a segment passes through
    # The same two as dot numbers (column * size + row), for the running degrees.
    end_dots: tuple[tuple[int, int], ...]
    inner_dot_indices: tuple[tuple[int, ...], ...]
    horizontal: tuple[bool, ...]
    conflicts: tuple[int, ...]  # candidates crossing or overlapping it (itself included)
    by_ends: Mapping[tuple[Point, Point], int]
    everything: int  # all candidates


@cache
def _array(size: int) -> _Array:
    ends = sorted(
        (
            pair
            for line in range(size)
            for low in range(size)
            for high in range(low + 1, size)
            for pair in (((low, line), (high, line)), ((line, low), (line, high)))
        ),
        key=lambda pair: notation.sort_key(segment_text(*pair)),
    )
    horizontal = tuple(a[1] == b[1] for a, b in ends)
    units = [_unit_edges(a, b) for a, b in ends]
    inner = [_inner_dots(a, b) for a, b in ends]
    # Masks of the candidates covering a unit edge, and of those passing through
    # a dot in each direction: overlap shares a unit edge, crossing an inner dot.
    covering: dict[tuple[Point, Point], int] = {}
    passing: dict[tuple[Point, bool], int] = {}
    for index in range(len(ends)):
        bit = 1 << index
        for edge in units[index]:
            covering[edge] = covering.get(edge, 0) | bit
        for dot in inner[index]:
            key = (dot, horizontal[index])
            passing[key] = passing.get(key, 0) | bit
    conflicts = []
    for index in range(len(ends)):
        mask = 0
        for edge in units[index]:
            mask |= covering[edge]
        for dot in inner[index]:
            mask |= passing.get((dot, not horizontal[index]), 0)
        conflicts.append(mask)
    return _Array(
        texts=tuple(segment_text(a, b) for a, b in ends),
        ends=tuple(ends),
        inner_dots=tuple(inner),
        end_dots=tuple((a[0] * size + a[1], b[0] * size + b[1]) for a, b in ends),
        inner_dot_indices=tuple(tuple(c * size + r for c, r in dots) for dots in inner),
        horizontal=horizontal,
        conflicts=tuple(conflicts),
        by_ends={pair: index for index, pair in enumerate(ends)},
        everything=(1 << len(ends)) - 1,
    )


def _inner_dots(low: Point, high: Point) -> tuple[Point, ...]:
    if low[1] == high[1]:
        return tuple((column, low[1]) for column in range(low[0] + 1, high[0]))
    return tuple((low[0], row) for row in range(low[1] + 1, high[1]))


def _unit_edges(low: Point, high: Point) -> tuple[tuple[Point, Point], ...]:
    dots = (low, *_inner_dots(low, high), high)
    return tuple(pairwise(dots))


# -- scoring ----------------------------------------------------------------------


def _degrees(array: _Array, drawn: Sequence[int]) -> Counter[Point]:
    """+1 at each end of a segment, +2 at each dot it passes through."""
    degree: Counter[Point] = Counter()
    for index in drawn:
        low, high = array.ends[index]
        degree[low] += 1
        degree[high] += 1
        for dot in array.inner_dots[index]:
            degree[dot] += 2
    return degree


def _scoring(degrees: Mapping[Point, int]) -> tuple[Point, ...]:
    return tuple(sorted(dot for dot, value in degrees.items() if value in SCORING_DEGREES))


def _round_segments(
    array: _Array, drawn: Sequence[int], offense: int, players: int
) -> tuple[DrawnSegment, ...]:
    return tuple(
        DrawnSegment(
            text=array.texts[index],
            start=array.ends[index][0],
            end=array.ends[index][1],
            seat=(offense + turn) % players,
        )
        for turn, index in enumerate(drawn)
    )


def _round_result(
    array: _Array, number: int, drawn: Sequence[int], points: int, players: int
) -> RoundResult:
    offense = (number - 1) % players
    degrees = _degrees(array, drawn)
    return RoundResult(
        round=number,
        offense=offense,
        points=points,
        segments=_round_segments(array, drawn, offense, players),
        degrees=tuple(sorted(degrees.items())),
        scoring_dots=_scoring(degrees),
    )


# -- options ----------------------------------------------------------------------


def _optional_int(value: OptionValue | None) -> int | None:
    return None if value is None else int(value)


def _segments_per_round(size: int, players: int, requested: int | None) -> int:
    """m: a multiple of the players, fewer than (n-1)² + 3 (the fewest segments
    covering every unit edge, so a round can never get stuck)."""
    limit = (size - 1) ** 2 + 3
    largest = (limit - 1) // players * players
    if largest == 0:
        raise BadOptions(
            f"A {size}x{size} array is too small for {players} players: the segments of a "
            f"round must be a multiple of {players} and fewer than {limit}. Play with at "
            f"most {limit - 1} players or on a {size + 1}x{size + 1} array or larger."
        )
    if requested is None:
        return min(2 * size, limit - 1) // players * players
    if requested >= limit:
        raise BadOptions(
            f"Segments must be fewer than (size - 1)² + 3 = {limit} on a {size}x{size} "
            f"array: at most {largest} for {players} players, not {requested}."
        )
    if requested % players:
        raise BadOptions(_multiple_wanted("segments", requested, players, largest))
    return requested


def _rounds(players: int, requested: int | None) -> int:
    if requested is None:
        return players
    if requested % players:
        largest = MAX_ROUNDS // players * players
        raise BadOptions(_multiple_wanted("rounds", requested, players, largest))
    return requested


def _multiple_wanted(name: str, requested: int, players: int, largest: int) -> str:
    """The refusal of a value that is not a multiple of the players, with the nearest ones."""
    lower = requested // players * players
    nearest = [str(value) for value in (lower, lower + players) if players <= value <= largest]
    return (
        f"{name.capitalize()} must be a multiple of {players} players: "
        f"{' or '.join(nearest)}, not {requested}."
    )


register(IntersectionsState)
