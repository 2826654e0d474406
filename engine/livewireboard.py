"""Livewire's board: the grid's points and segments numbered once per size and pair of
lengths, with every line a dot can draw (its end, the points it passes, the unit edges
and square diagonals it covers) worked out in advance. engine/livewire.py's states share
one board (the rules read it, engine/ai's search too).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from engine import notation
from engine.notation import Point

BASE, STRAIGHT, BRANCH, DIAGONAL = 0, 1, 2, 3

#: Move indices: straight up/down/forward, branch up/down/forward, diagonal up/down.
MOVE_KINDS = (STRAIGHT, STRAIGHT, STRAIGHT, BRANCH, BRANCH, BRANCH, DIAGONAL, DIAGONAL)

#: A line from a dot: (target point, interior points, segments, the crossing diagonal).
Entry = tuple[int, tuple[int, ...], tuple[int, ...], int]


@dataclass(frozen=True, slots=True)
class Board:
    """Precomputed geometry for one size and pair of lengths.

    Points are numbered x * rows + y. A segment is a unit edge or one square's
    diagonal, numbered 4 * p + {0: edge right, 1: edge up, 2: "/" diagonal,
    3: "\\" diagonal} from the square's lower-left point p, so two diagonals
    cross exactly when their numbers differ only in the last bit.
    """

    width: int
    height: int
    straight: int
    branch: int
    labels: tuple[str, ...]
    coordinates: tuple[Point, ...]  # each point's (x, y)
    bases: tuple[tuple[int, ...], tuple[int, ...]]
    base_owner: tuple[int, ...]
    forward: tuple[int, int]  # +1 or -1 along x, per seat
    vectors: tuple[dict[Point, int], dict[Point, int]]  # per seat: (dx, dy) -> move index
    moves: tuple[tuple[Entry | None, ...], tuple[Entry | None, ...]]  # [seat][p * 8 + move]
    #: per seat and point, the move indices of the lines from there onto an opponent's base
    landings: tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...]]

    @property
    def points(self) -> int:
        return (self.width + 1) * (self.height + 1)

    def index(self, x: int, y: int) -> int:
        return x * (self.height + 1) + y

    def point(self, p: int) -> Point:
        return self.coordinates[p]


def base_rows(height: int) -> tuple[int, ...]:
    """0-based rows of the four bases: round(H * k / 5) for k = 1..4.

    H * k / 5 is never exactly half-way, so rounding half up in integers equals
    Python's round (banker's rounding never comes into play).
    """
    return tuple((2 * height * k + 5) // 10 for k in range(1, 5))


@lru_cache(maxsize=8)
def board_for(width: int, height: int, straight: int, branch: int) -> Board:
    rows = height + 1

    def index(x: int, y: int) -> int:
        return x * rows + y

    def on_board(x: int, y: int) -> bool:
        return 0 <= x <= width and 0 <= y <= height

    coordinates = tuple((x, y) for x in range(width + 1) for y in range(rows))
    labels = tuple(notation.label(xy) for xy in coordinates)
    bases = (
        tuple(index(0, y) for y in base_rows(height)),
        tuple(index(width, y) for y in base_rows(height)),
    )
    base_owner = [-1] * ((width + 1) * rows)
    for seat, seat_bases in enumerate(bases):
        for p in seat_bases:
            base_owner[p] = seat

    def steps(forward: int) -> list[Point]:
        """The vector of each move index for a player moving `forward` along x."""
        return [
            (0, straight),
            (0, -straight),
            (forward * straight, 0),
            (0, branch),
            (0, -branch),
            (forward * branch, 0),
            (forward, 1),
            (forward, -1),
        ]

    def axis_line(x: int, y: int, dx: int, dy: int, length: int) -> Entry | None:
        if not on_board(x + dx, y + dy):
            return None
        # along one axis the points are evenly spaced numbers; each unit edge is
        # numbered from its lower end: the start's side first
        step = dx // length * rows + dy // length
        start = index(x, y)
        end = start + step * length
        first_low = start + min(step, 0)
        edges = range(first_low, first_low + step * length, step)
        return (
            end,
            tuple(range(start + step, end, step)),
            tuple(4 * low + (dy != 0) for low in edges),
            -1,
        )

    def diagonal(x: int, y: int, dx: int, dy: int) -> Entry | None:
        if not on_board(x + dx, y + dy):
            return None
        corner = index(min(x, x + dx), min(y, y + dy))
        segment = 4 * corner + (2 if dx * dy > 0 else 3)
        return index(x + dx, y + dy), (), (segment,), segment ^ 1

    def landings(
        table: tuple[Entry | None, ...], targets: tuple[int, ...]
    ) -> tuple[tuple[int, ...], ...]:
        found: list[tuple[int, ...]] = [()] * ((width + 1) * rows)
        for number, entry in enumerate(table):
            if entry is not None and entry[0] in targets:
                start, move = divmod(number, 8)
                found[start] += (move,)
        return tuple(found)

    tables: list[tuple[Entry | None, ...]] = []
    for forward in (1, -1):
        table: list[Entry | None] = []
        # each move's kind and length worked out once, not at every point
        kinds = [
            (dx, dy, MOVE_KINDS[move], straight if MOVE_KINDS[move] == STRAIGHT else branch)
            for move, (dx, dy) in enumerate(steps(forward))
        ]
        for x in range(width + 1):
            for y in range(rows):
                for dx, dy, kind, length in kinds:
                    if kind == DIAGONAL:
                        table.append(diagonal(x, y, dx, dy))
                    elif dx == 0 and tables:  # a vertical line is the same for both players
                        table.append(tables[0][len(table)])
                    else:
                        table.append(axis_line(x, y, dx, dy, length))
        tables.append(tuple(table))
    return Board(
        width=width,
        height=height,
        straight=straight,
        branch=branch,
        labels=labels,
        coordinates=coordinates,
        bases=bases,
        base_owner=tuple(base_owner),
        forward=(1, -1),
        vectors=(
            {step: move for move, step in enumerate(steps(1))},
            {step: move for move, step in enumerate(steps(-1))},
        ),
        moves=(tables[0], tables[1]),
        landings=(landings(tables[0], bases[1]), landings(tables[1], bases[0])),
    )
