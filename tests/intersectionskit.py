"""What the tests of Making Intersections share: new games, their view, and an independent
geometric model of the rules (segments, clashes, covers)."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations

from engine.intersections import IntersectionsState, IntersectionsView
from engine.notation import Point, label
from tests.conftest import game as new_game

Segment = tuple[Point, Point]


def game(players: int = 2, **options: object) -> IntersectionsState:
    return new_game(IntersectionsState, players=players, **options)


def view(state: IntersectionsState) -> IntersectionsView:
    picture = state.view()
    assert isinstance(picture, IntersectionsView)
    return picture


def largest_segments(size: int, players: int) -> int:
    return ((size - 1) ** 2 + 2) // players * players


def all_segments(columns: int, rows: int) -> Iterator[Segment]:
    """Every pair of dots of one row or column, lower dot first."""
    dots = [(c, r) for c in range(columns) for r in range(rows)]
    for a, b in combinations(sorted(dots), 2):
        if a[0] == b[0] or a[1] == b[1]:
            yield a, b


def clash(s: Segment, t: Segment) -> bool:
    """Rules 1 and 2: a crossing (a point inside both) or a collinear overlap."""
    (a, b), (c, d) = s, t
    s_flat, t_flat = a[1] == b[1], c[1] == d[1]
    if s_flat == t_flat:
        axis = 0 if s_flat else 1
        if a[1 - axis] != c[1 - axis]:
            return False  # parallel lines
        return max(a[axis], c[axis]) < min(b[axis], d[axis])
    (x1, y), (x2, _) = s if s_flat else t
    (x, y1), (_, y2) = t if s_flat else s
    return x1 < x < x2 and y1 < y < y2


def unit_edges(columns: int, rows: int) -> list[Segment]:
    return [
        s
        for s in all_segments(columns, rows)
        if abs(s[0][0] - s[1][0]) + abs(s[0][1] - s[1][1]) == 1
    ]


def covers(s: Segment, edge: Segment) -> bool:
    return clash(s, edge)  # a unit edge can only be overlapped, never crossed


def segment_text(s: Segment) -> str:
    return f"{label(s[0])}-{label(s[1])}"


def current_segments(state: IntersectionsState) -> list[Segment]:
    return [(seg.start, seg.end) for seg in view(state).segments]
