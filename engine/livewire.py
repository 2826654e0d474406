"""Livewire (reconstructed rules), by Charlie Fish and James Folkard.

Two players grow trees of lines across a grid from four base dots on their
home edge. A move draws one line from a live dot: a straight line or a branch
up, down or forward, or a diagonal forward-up or forward-down. Passing through
a live dot kills it, landing on a live dot kills it and the new dot, and a
dead dot takes all its descendants with it. Lines never go through lines. The
first player to land on an opponent's base wins. The source's illustrations
are lost, so the geometry follows the reconstruction in docs/rules/livewire.md,
whose Decisions this module honours one by one.
"""

from __future__ import annotations

import bisect
import itertools
import random
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple, Self

from engine import notation
from engine.core import (
    BadOptions,
    Code,
    End,
    GameInfo,
    IllegalMove,
    Option,
    OptionValue,
    Outcome,
    View,
    shown,
)
from engine.livewireboard import (
    BASE,
    BRANCH,
    DIAGONAL,
    MOVE_KINDS,
    STRAIGHT,
    Entry,
    board_for,
)
from engine.livewiresearch import LivewireSearch
from engine.notation import Point
from engine.options import dims, dims_option
from engine.registry import register

#: The longest straight line or branch the lengths option allows, in squares.
MAX_LENGTH = 10


def _parse_lengths(raw: object) -> OptionValue:
    """The straight and branch lengths, typed "2,1" or "2 1"; canonical "2,1"."""
    match = re.fullmatch(r"\s*(-?[0-9]{1,3})\s*[,\s]\s*(-?[0-9]{1,3})\s*", str(raw))
    if match is None:
        raise BadOptions(f"must be the straight and branch lengths like 2,1, not {shown(raw)}.")
    straight, branch = int(match[1]), int(match[2])
    if not (1 <= straight <= MAX_LENGTH and 1 <= branch <= MAX_LENGTH):
        raise BadOptions(
            f"each length must be a whole number from 1 to {MAX_LENGTH}, not {straight},{branch}."
        )
    if straight == branch:
        raise BadOptions(
            f"the straight and branch lengths must differ (a branch is not a straight "
            f"line), not {straight},{branch}."
        )
    return f"{straight},{branch}"


INFO = GameInfo(
    name="livewire",
    title="Livewire",
    version=1,
    min_players=2,
    max_players=2,
    seat_names=("Player 1", "Player 2"),
    options={
        "size": Option(
            name="size",
            default="42x34",
            allowed="17x14 to 60x60 squares",
            parse=dims_option((17, 14), (60, 60)),
            help="Width x height of the grid in squares; play is on the grid points.",
        ),
        "lengths": Option(
            name="lengths",
            default="2,1",
            allowed=f"two different whole numbers from 1 to {MAX_LENGTH}, like 2,1",
            parse=_parse_lengths,
            help="Straight-line and branch lengths in squares (they must differ).",
        ),
    },
    summary=(
        "Livewire, with reconstructed rules (the original illustrations are lost). "
        "Each player has four bases on their home edge (Player 1 left, Player 2 right). "
        "On your turn draw one line from one of your live dots: a straight line "
        "(2 squares by default) or a branch (1 square) up, down or forward, or a diagonal "
        "(1 forward and 1 up or down) from a base, branch or diagonal dot. Bases can "
        "be drawn from again and again, other dots once. A line may pass through dots "
        "but never through or along another line, and never through a base. Passing "
        "through a live dot kills it; landing on a live dot kills it and the new dot; "
        "a dot's descendants die with it. Land on an opponent's base to win. "
        "With no legal move you pass; two passes in a row are a draw."
    ),
    notation=(
        "A move is a line: the live dot it starts from, then the dot it ends on, each a "
        "column letter and a row number. Where the lengths make two kinds of line share "
        "a direction, add straight, branch or diagonal."
    ),
    credit="Charlie Fish and James Folkard (rules reconstructed from their text)",
    ends=frozenset({End.BASE_REACHED, End.PASSES}),
)

# -- dots, lines and moves ------------------------------------------------------

KIND_NAMES = ("base", "straight", "branch", "diagonal")
_KIND_WORDS = {"straight": STRAIGHT, "branch": BRANCH, "diagonal": DIAGONAL}
_KIND_PHRASES = ("a base", "a straight line", "a branch", "a diagonal")

_ALL_MOVES = tuple(range(8))
_NO_DIAGONAL = tuple(range(6))  # a straight dot cannot start a diagonal


class Dot(NamedTuple):
    """One dot as a renderer sees it. `parent` is the dot it was drawn from.
    (A NamedTuple: a finished board's view builds hundreds of them per picture.)"""

    point: Point
    owner: int
    kind: str  # "base", "straight", "branch" or "diagonal"
    live: bool
    used: bool  # a non-base dot a line has been drawn from; bases are never used up
    parent: Point | None


class Line(NamedTuple):
    """One drawn line, from the dot it was drawn from to the point it reached."""

    start: Point
    end: Point
    owner: int
    kind: str  # "straight", "branch" or "diagonal"


@dataclass(frozen=True, slots=True)
class LivewireView(View):
    """Everything a renderer draws: grid, dots, lines, bases and the highlights."""

    width: int  # squares; points run 0..width
    height: int  # squares; points run 0..height
    dots: tuple[Dot, ...]  # in the order they were made; a landed-on point holds two
    lines: tuple[Line, ...]  # in the order they were drawn
    bases: tuple[tuple[Point, ...], ...]  # per seat
    last_points: tuple[Point, ...]  # start and end of the last line drawn
    winning_path: tuple[Point, ...]  # the winner's dots from base to the landing point


class LivewireState(LivewireSearch):
    info = INFO
    _shared_tables = ("_board",)

    def __init__(self, options: Mapping[str, OptionValue]) -> None:
        super().__init__(options)
        width, height = dims(self.options["size"])
        straight, branch = (int(n) for n in str(self.options["lengths"]).split(","))
        board = board_for(width, height, straight, branch)
        self._board = board
        # Dots are parallel lists indexed by dot number, in the order they were made.
        self._dot_point: list[int] = []
        self._dot_owner: list[int] = []
        self._dot_kind: list[int] = []
        self._dot_parent: list[int] = []  # -1 for a base
        self._dot_children: list[tuple[int, ...]] = []
        self._dot_live: list[bool] = []
        self._dot_used: list[bool] = []
        self._dot_at = [-1] * board.points  # the first dot made at each point
        self._through = [-1] * board.points  # a line passing through the point (not ending)
        self._segment_line: dict[int, int] = {}  # unit edge or square diagonal -> line
        self._lines: list[tuple[int, int, int, int]] = []  # start, end, owner, kind
        self._usable: tuple[set[int], set[int]] = (set(), set())  # dots a line may start from
        self._winning_path: tuple[int, ...] = ()
        for seat in (0, 1):
            for p in board.bases[seat]:
                self._add_dot(p, seat, BASE, -1)
        # Per seat, a legal (dot, move) found last, or None when the seat has none. While
        # a seat does not move its lines only close (lines are added, dots die), so the one
        # found is checked first, and a seat left with none keeps none.
        self._open_line = [next(self._legal(0), None), next(self._legal(1), None)]

    # -- the API -------------------------------------------------------------------

    @property
    def to_move(self) -> int | None:
        return None if self.outcome is not None else self.ply % 2

    def legal_moves(self) -> list[str]:
        seat = self.to_move
        if seat is None:
            return []
        board = self._board
        texts = []
        for dot, move in self._legal(seat):
            source = self._dot_point[dot]
            entry = board.moves[seat][source * 8 + move]
            assert entry is not None
            texts.append(f"{board.labels[source]}-{board.labels[entry[0]]}")
        return sorted(texts, key=notation.sort_key)

    def _play_action(self, text: str) -> None:
        seat = self.ply % 2
        dot, move = self._parse(text, seat)
        self._draw(seat, dot, move)

    def random_playout(self, rng: random.Random) -> Self:
        """Uniform over legal moves (`_random_line`)."""
        state = self.copy()
        while state.outcome is None:
            seat = state.ply % 2
            state._draw(seat, *state._random_line(seat, rng, None))
        return state

    def view(self) -> LivewireView:
        board = self._board
        at = board.point
        dots = tuple(
            Dot(
                point=at(self._dot_point[d]),
                owner=self._dot_owner[d],
                kind=KIND_NAMES[self._dot_kind[d]],
                live=self._dot_live[d],
                used=self._dot_used[d],
                parent=None
                if self._dot_parent[d] < 0
                else at(self._dot_point[self._dot_parent[d]]),
            )
            for d in range(len(self._dot_point))
        )
        lines = tuple(
            Line(at(start), at(end), owner, KIND_NAMES[kind])
            for start, end, owner, kind in self._lines
        )
        last = self._lines[-1] if self._lines else None
        return LivewireView(
            **self._view_fields(),
            width=board.width,
            height=board.height,
            dots=dots,
            lines=lines,
            bases=tuple(tuple(at(p) for p in seat_bases) for seat_bases in board.bases),
            last_points=() if last is None else (at(last[0]), at(last[1])),
            winning_path=tuple(at(p) for p in self._winning_path),
        )

    def copy(self) -> Self:
        other = object.__new__(type(self))
        other.options = dict(self.options)
        self._copy_record(other)
        other.outcome = self.outcome
        other._board = self._board  # immutable geometry, shared
        other._dot_point = list(self._dot_point)
        other._dot_owner = list(self._dot_owner)
        other._dot_kind = list(self._dot_kind)
        other._dot_parent = list(self._dot_parent)
        other._dot_children = list(self._dot_children)
        other._dot_live = list(self._dot_live)
        other._dot_used = list(self._dot_used)
        other._dot_at = list(self._dot_at)
        other._through = list(self._through)
        other._segment_line = dict(self._segment_line)
        other._lines = list(self._lines)
        other._usable = (set(self._usable[0]), set(self._usable[1]))
        other._winning_path = self._winning_path
        other._open_line = list(self._open_line)
        return other

    # -- notation ------------------------------------------------------------------

    def _parse(self, text: str, seat: int) -> tuple[int, int]:
        """The (source dot, move index) that `text` names, fully checked."""
        if text == "pass":
            raise IllegalMove(
                "You cannot pass: passes are automatic when you have no legal move.",
                code=Code.NO_PASS,
            )
        words = text.split(" ")
        kind_word = _KIND_WORDS.get(words[-1]) if len(words) > 1 else None
        coordinates = " ".join(words[:-1]) if kind_word is not None else text
        try:
            found = notation.points(coordinates)
        except IllegalMove:
            found = []
        if len(found) != 2:
            raise IllegalMove(
                f"I can't read {shown(text)}: a move is two dots, like {self._refusal_example()}.",
                code=Code.SYNTAX,
            )
        board = self._board
        (sx, sy), (tx, ty) = found
        for x, y in found:
            if not (0 <= x <= board.width and 0 <= y <= board.height):
                raise IllegalMove(
                    f"{notation.label((x, y))} is off the board, which runs from a1 to "
                    f"{board.labels[-1]}.",
                    code=Code.OFF_BOARD,
                )
        source = board.index(sx, sy)
        target = board.index(tx, ty)
        move_text = f"{board.labels[source]}-{board.labels[target]}"
        dot = self._source_dot(source, seat)
        move = board.vectors[seat].get((tx - sx, ty - sy))
        if move is None:
            if (tx - sx) * board.forward[seat] < 0:
                edge = "right" if seat == 0 else "left"
                raise IllegalMove(
                    f"{move_text} goes backward; your lines go up, down or forward "
                    f"(toward the {edge} edge).",
                    code=Code.BACKWARD,
                )
            raise IllegalMove(
                f"{move_text} is not a move: a straight line goes {board.straight} and a "
                f"branch {board.branch} up, down or forward, and a diagonal 1 forward "
                f"and 1 up or down.",
                code=Code.BAD_LINE,
            )
        kind = MOVE_KINDS[move]
        if kind_word is not None and kind_word != kind:
            raise IllegalMove(
                f"{move_text} is {_KIND_PHRASES[kind]}, not {_KIND_PHRASES[kind_word]}.",
                code=Code.WRONG_KIND,
            )
        if kind == DIAGONAL and self._dot_kind[dot] == STRAIGHT:
            raise IllegalMove(
                f"{board.labels[source]} is a straight dot; diagonals start only from a "
                f"base, a branch dot or a diagonal dot.",
                code=Code.DIAGONAL_FROM_STRAIGHT,
            )
        entry = board.moves[seat][source * 8 + move]
        assert entry is not None  # both ends are on the board
        obstacle = self._obstacle(seat, entry)
        if obstacle is not None:
            raise self._refusal(move_text, *obstacle)
        return dot, move

    def _source_dot(self, source: int, seat: int) -> int:
        """The mover's dot at `source`, refused unless a line may start from it."""
        labels = self._board.labels
        here = [d for d in range(len(self._dot_point)) if self._dot_point[d] == source]
        mine = [d for d in here if self._dot_owner[d] == seat]
        if not mine:
            if here:
                owner = self.info.seat_name(self._dot_owner[here[0]])
                raise IllegalMove(
                    f"{labels[source]} is {owner}'s dot, not yours.", code=Code.NOT_YOURS
                )
            raise IllegalMove(f"There is no dot at {labels[source]}.", code=Code.NO_DOT)
        dot = mine[0]
        if not self._dot_live[dot]:
            raise IllegalMove(f"Your dot {labels[source]} is dead.", code=Code.DEAD_DOT)
        if self._dot_used[dot]:
            raise IllegalMove(
                f"Your dot {labels[source]} has been used already; only bases can start "
                f"more than one line.",
                code=Code.USED_DOT,
            )
        return dot

    def _refusal(self, move_text: str, code: Code, point: int, line: int) -> IllegalMove:
        label = self._board.labels[point]
        line_text = self._line_text(line) if line >= 0 else ""
        sentences = {
            Code.LANDS_ON_LINE: f"{move_text} lands on the line {line_text} at {label}.",
            Code.THROUGH_LINE: f"{move_text} goes through the line {line_text} at {label}.",
            Code.OVERLAP: f"{move_text} runs along the line {line_text}.",
            Code.CROSSING: f"{move_text} crosses the diagonal {line_text}.",
            Code.LANDS_ON_DEAD: f"{move_text} lands on the dead dot {label}.",
            Code.OWN_BASE: f"{move_text} lands on your own base {label}.",
            Code.THROUGH_BASE: f"{move_text} passes through the base {label}.",
        }
        return IllegalMove(sentences[code], code=code)

    def _line_text(self, line: int) -> str:
        start, end, _, _ = self._lines[line]
        return f"{self._board.labels[start]}-{self._board.labels[end]}"

    # -- the rules -----------------------------------------------------------------

    def _legal(self, seat: int) -> Iterator[tuple[int, int]]:
        """Every legal (source dot, move index) for `seat`."""
        moves = self._board.moves[seat]
        for dot in self._usable[seat]:
            base = self._dot_point[dot] * 8
            for move in _NO_DIAGONAL if self._dot_kind[dot] == STRAIGHT else _ALL_MOVES:
                entry = moves[base + move]
                if entry is not None and self._obstacle(seat, entry) is None:
                    yield dot, move

    def _random_line(
        self, seat: int, rng: random.Random, weights: Sequence[float] | None
    ) -> tuple[int, int]:
        """A legal (source dot, move index) for `seat`, uniformly (`weights` None) or with
        a chance proportional to its move's weight: a usable dot drawn uniformly and a
        move index by its weight, drawn again while the line is illegal (so each legal
        line keeps its chance), and after 48 failures one drawn from the full list."""
        dots = list(self._usable[seat])
        moves = self._board.moves[seat]
        if weights is not None:
            bounds = list(itertools.accumulate(weights))
        for _ in range(48):
            dot = rng.choice(dots)
            move = (
                rng.randrange(8)
                if weights is None
                else bisect.bisect(bounds, rng.random() * bounds[-1])
            )
            if move >= 6 and self._dot_kind[dot] == STRAIGHT:
                continue
            entry = moves[self._dot_point[dot] * 8 + move]
            if entry is not None and self._obstacle(seat, entry) is None:
                return dot, move
        lines = list(self._legal(seat))
        if weights is None:
            return rng.choice(lines)
        return rng.choices(lines, [weights[move] for _, move in lines])[0]

    def _has_move(self, seat: int) -> bool:
        """Whether `seat` has a legal line (the one found last, else any: `_open_line`)."""
        known = self._open_line[seat]
        if known is None:
            return False
        dot, move = known
        entry = self._board.moves[seat][self._dot_point[dot] * 8 + move]
        assert entry is not None
        if dot in self._usable[seat] and self._obstacle(seat, entry) is None:
            return True
        self._open_line[seat] = found = next(self._legal(seat), None)
        return found is not None

    def _obstacle(self, seat: int, entry: Entry) -> tuple[Code, int, int] | None:
        """Why the line `entry` is illegal for `seat` as (code, point, line), or None.

        Rule 1 (on the board) is settled by the table; the checks follow rules 2-5.
        Every end of a line holds a dot, so "a point where a dot stands that no line
        passes through" is exactly a point no line passes through. Sharing a unit
        edge or a square's diagonal with a line (running along it, even from dot to
        dot) goes through that line.
        """
        target, interior, segments, crossing = entry
        through = self._through
        if through[target] >= 0:
            return Code.LANDS_ON_LINE, target, through[target]
        for p in interior:
            if through[p] >= 0:
                return Code.THROUGH_LINE, p, through[p]
        segment_line = self._segment_line
        for segment in segments:
            if segment in segment_line:
                return Code.OVERLAP, target, segment_line[segment]
        if crossing >= 0 and crossing in segment_line:
            return Code.CROSSING, target, segment_line[crossing]
        dot = self._dot_at[target]
        if dot >= 0:
            if not self._dot_live[dot]:
                return Code.LANDS_ON_DEAD, target, -1
            if self._dot_kind[dot] == BASE and self._dot_owner[dot] == seat:
                return Code.OWN_BASE, target, -1
        base_owner = self._board.base_owner
        for p in interior:
            if base_owner[p] >= 0:
                return Code.THROUGH_BASE, p, -1
        return None

    def _draw(self, seat: int, dot: int, move: int) -> None:
        """Draw a legal line and apply everything it does, passes and the end included."""
        board = self._board
        entry = board.moves[seat][self._dot_point[dot] * 8 + move]
        assert entry is not None
        target, interior, segments, _ = entry
        source = self._dot_point[dot]
        kind = MOVE_KINDS[move]
        line = len(self._lines)
        self._lines.append((source, target, seat, kind))
        for p in interior:
            self._through[p] = line
        for segment in segments:
            self._segment_line[segment] = line
        if self._dot_kind[dot] != BASE:
            self._dot_used[dot] = True
            self._usable[seat].discard(dot)
        for p in interior:
            passed = self._dot_at[p]
            if passed >= 0 and self._dot_live[passed]:
                self._kill(passed)
        landed_on = self._dot_at[target]
        new_dot = self._add_dot(target, seat, kind, dot)
        self._record(f"{board.labels[source]}-{board.labels[target]}")
        if landed_on >= 0:
            # Both deaths are judged on the position before the move: a dot stood here.
            self._kill(new_dot)
            if self._dot_kind[landed_on] == BASE:
                self._win(seat, new_dot)
                return
            self._kill(landed_on)
        self._pass_if_stuck(seat)

    def _kill(self, dot: int) -> None:
        """A dot dies and all its descendants with it; bases never die."""
        stack = [dot]
        while stack:
            d = stack.pop()
            if not self._dot_live[d] or self._dot_kind[d] == BASE:
                continue  # a dead dot's descendants are already dead
            self._dot_live[d] = False
            self._usable[self._dot_owner[d]].discard(d)
            stack.extend(self._dot_children[d])

    def _add_dot(self, point: int, owner: int, kind: int, parent: int) -> int:
        dot = len(self._dot_point)
        self._dot_point.append(point)
        self._dot_owner.append(owner)
        self._dot_kind.append(kind)
        self._dot_parent.append(parent)
        self._dot_children.append(())
        self._dot_live.append(True)
        self._dot_used.append(False)
        self._usable[owner].add(dot)
        if parent >= 0:
            self._dot_children[parent] += (dot,)
        if self._dot_at[point] < 0:
            self._dot_at[point] = dot
        return dot

    # -- the end -------------------------------------------------------------------

    def _win(self, seat: int, landing_dot: int) -> None:
        path = []
        dot = landing_dot
        while dot >= 0:
            path.append(self._dot_point[dot])
            dot = self._dot_parent[dot]
        self._winning_path = tuple(reversed(path))
        labels = self._board.labels
        self.outcome = Outcome(
            (seat,), End.BASE_REACHED, path=tuple(labels[p] for p in self._winning_path)
        )

    def _pass_if_stuck(self, mover: int) -> None:
        """A player with no legal move passes; two passes in a row draw."""
        if self._has_move(1 - mover):
            return
        self._record("pass")
        if self._has_move(mover):
            return
        self._record("pass")
        self.outcome = Outcome((), End.PASSES)


register(LivewireState)
