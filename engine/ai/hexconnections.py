"""Virtual connections in Hex: H-search over bitboards, and the board's geometry.

A position is two bitmasks; cell i is bit i (row * size + column). H-search
(Anshelevich's AND and OR rules) finds full connections, which hold with the
opponent to move, and semi connections, which need one more stone, between a
colour's groups, its two edges and the empty cells. The prover
(engine/ai/hexsolve.py) reads a position with it; engine/_hexsolve_connections.h
runs the same search compiled.
"""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

from engine.ai.solver import OutOfTime

#: H-search keeps at most this many full and semi connections per pair of nodes
#: (the smallest carriers found first); more cost time and rarely prove more.
FULL_LIMIT = 6
SEMI_LIMIT = 12
#: The OR rule combines at most this many semi connections.
OR_DEPTH = 4

#: The six neighbour offsets (column, row) in turn around a cell.
_RING = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))


@dataclass(frozen=True, slots=True)
class Geometry:
    """The fixed bitboard tables of one board size."""

    size: int
    cells: int
    full: int  # every cell
    neighbours: tuple[int, ...]  # per cell, the mask of its neighbours
    edges: tuple[tuple[int, int], tuple[int, int]]  # per colour: first and second edge rows
    # Per cell, its ring: for each of the six positions around it, a cell index
    # (>= 0), or -1 - k for colour k's edge, or -3 for a corner beyond two edges.
    rings: tuple[tuple[int, ...], ...]
    order: tuple[int, ...]  # cells, centre first (the order moves are tried in)
    inner_left: int  # every cell but column a's (the mask a shift to the left may move)
    inner_right: int  # every cell but the last column's

    def dilate(self, mask: int) -> int:
        """`mask` and every neighbour of its cells, by shifting the whole mask one
        step in each of the six directions (a row is `size` bits)."""
        size, left, right = self.size, self.inner_left, self.inner_right
        return (
            mask
            | mask >> size
            | (mask & right) >> (size - 1)
            | (mask & left) >> 1
            | (mask & right) << 1
            | (mask & left) << (size - 1)
            | mask << size
        ) & self.full


@cache
def geometry(size: int) -> Geometry:
    cells = size * size
    neighbours = []
    rings = []
    for cell in range(cells):
        row, column = divmod(cell, size)
        mask = 0
        ring = []
        for dc, dr in _RING:
            c, r = column + dc, row + dr
            row_inside, column_inside = 0 <= r < size, 0 <= c < size
            if row_inside and column_inside:
                mask |= 1 << (r * size + c)
                ring.append(r * size + c)
            elif column_inside:
                ring.append(-1)  # beyond row 1 or row n: Black's edge
            elif row_inside:
                ring.append(-2)  # beyond column a or the last column: White's edge
            else:
                ring.append(-3)
        neighbours.append(mask)
        rings.append(tuple(ring))
    row_first = (1 << size) - 1
    row_last = row_first << (size * (size - 1))
    column_first = sum(1 << (r * size) for r in range(size))
    column_last = column_first << (size - 1)
    centre = (size - 1) / 2

    def distance(cell: int) -> float:
        dy, dx = cell // size - centre, cell % size - centre
        return max(abs(dx), abs(dy), abs(dx + dy))

    return Geometry(
        size=size,
        cells=cells,
        full=(1 << cells) - 1,
        neighbours=tuple(neighbours),
        edges=((row_first, row_last), (column_first, column_last)),
        rings=tuple(rings),
        order=tuple(sorted(range(cells), key=distance)),
        inner_left=((1 << cells) - 1) & ~column_first,
        inner_right=((1 << cells) - 1) & ~column_last,
    )


def bits(mask: int) -> Iterator[int]:
    """The indices of the set bits of `mask`, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


# -- virtual connections --------------------------------------------------------------------


class Connections:
    """H-search for one colour on one position: full and semi connections between
    its groups, its two edges and the empty cells. Node ids: empty cells are their
    cell index; the first edge is `cells`, the second `cells + 1`, other groups
    follow. Carriers are masks of empty cells and never contain their ends."""

    def __init__(
        self,
        geo: Geometry,
        own: int,
        other: int,
        colour: int,
        *,
        stop_on_semi: bool,
        deadline: float = math.inf,
    ) -> None:
        self.geo = geo
        self.deadline = deadline  # time.monotonic(); past it the search raises OutOfTime
        self.first = geo.cells
        self.second = geo.cells + 1
        self.stop_on_semi = stop_on_semi
        self.empty = geo.full & ~(own | other)
        self.full: list[dict[int, list[int]]] = []
        self.semi: list[dict[int, list[int]]] = []
        self.queue: deque[tuple[bool, int, int, int]] = deque()  # (full?, x, y, carrier)
        self.done = False  # an edge-to-edge connection settles the question asked
        # The cells common to every edge-to-edge semi connection found: where the
        # opponent must play; none left settles the question too.
        self.must_play = self.empty
        self._build(own, colour)
        if not self.done:
            self._search()

    # -- results --

    def edge_fulls(self) -> list[int]:
        return self.full[self.first].get(self.second, [])

    def edge_semis(self) -> list[int]:
        return self.semi[self.first].get(self.second, [])

    # -- building --

    def _build(self, own: int, colour: int) -> None:
        geo = self.geo
        cells = geo.cells
        empty = self.empty
        first_row, second_row = geo.edges[colour]
        # Own groups, each as (stones, empty cells next to it); the edges first,
        # holding the own stones that touch them.
        groups: list[int] = [
            flood(geo, own & first_row, own),
            flood(geo, own & second_row, own),
        ]
        adjacent = [
            (first_row & empty) | _dilate_cells(geo, groups[0]) & empty,
            (second_row & empty) | _dilate_cells(geo, groups[1]) & empty,
        ]
        rest = own & ~(groups[0] | groups[1])
        while rest:
            group = flood(geo, rest & -rest, own)
            rest &= ~group
            groups.append(group)
            adjacent.append(_dilate_cells(geo, group) & empty)
        count = cells + len(groups)
        self.full = [{} for _ in range(count)]
        self.semi = [{} for _ in range(count)]
        for index, around in enumerate(adjacent):
            node = cells + index
            for cell in bits(around):
                self.add_full(node, cell, 0)
        for cell in bits(empty):
            for neighbour in bits(geo.neighbours[cell] & empty):
                if neighbour > cell:
                    self.add_full(cell, neighbour, 0)

    # -- the rules --

    def add_full(self, x: int, y: int, carrier: int) -> None:
        known = self.full[x].get(y)
        if known is None:
            known = []
            self.full[x][y] = known
            self.full[y][x] = known
        elif len(known) >= FULL_LIMIT:
            return  # (checked first: most calls end here, and cheaply)
        for other in known:
            if other & ~carrier == 0:
                return  # a carrier inside this one is known
        known[:] = [other for other in known if carrier & ~other]
        known.append(carrier)
        self.queue.append((True, x, y, carrier))
        if {x, y} == {self.first, self.second}:
            self.done = True

    def add_semi(self, x: int, y: int, carrier: int) -> None:
        first = self.first
        # The two edges are ids first and first + 1, other groups come after them.
        edges = x >= first and y >= first and x + y == first + first + 1
        known = self.semi[x].get(y)
        if known is None:
            known = []
            self.semi[x][y] = known
            self.semi[y][x] = known
        elif len(known) >= SEMI_LIMIT and not edges:
            return  # (checked first: most calls end here, and cheaply)
        fulls = self.full[x].get(y)
        if fulls is not None:
            for other in fulls:
                if other & ~carrier == 0:
                    return  # the pair is already joined with fewer cells
        for other in known:
            if other & ~carrier == 0:
                return
        if edges:
            # Every edge-to-edge semi connection counts here, kept or not: a
            # stone outside its carrier leaves it to be completed.
            self.must_play &= carrier
            if self.stop_on_semi or not self.must_play:
                known.append(carrier)
                self.done = True
                return
        if len(known) >= SEMI_LIMIT:
            return
        known[:] = [other for other in known if carrier & ~other]
        # rest[i]: the cells common to known[i:] (-1: all); while `common & rest[i]`
        # is not empty no choice among known[i:] can empty the intersection.
        rest = [-1] * (len(known) + 1)
        for index in range(len(known) - 1, -1, -1):
            rest[index] = rest[index + 1] & known[index]
        if not carrier & rest[0]:
            self._or(x, y, known, rest, carrier, carrier, 0, 1)
        known.append(carrier)
        if x >= self.first or y >= self.first:
            self.queue.append((False, x, y, carrier))  # a group end extends it

    def _or(
        self,
        x: int,
        y: int,
        known: list[int],
        rest: list[int],
        common: int,
        union: int,
        start: int,
        depth: int,
    ) -> None:
        """The OR rule: semi connections whose carriers share no cell make a full
        one (whichever cell the opponent takes, a semi connection is left)."""
        for index in range(start, len(known)):
            if common & rest[index]:
                return
            carrier = known[index]
            narrower = common & carrier
            if narrower == common:
                continue
            if narrower == 0:
                self.add_full(x, y, union | carrier)
                if self.done:
                    return
            elif depth + 1 < OR_DEPTH and not narrower & rest[index + 1]:
                self._or(x, y, known, rest, narrower, union | carrier, index + 1, depth + 1)

    def _search(self) -> None:
        """The AND rule on every new connection until nothing new is found. Two full
        connections meeting at a node, with disjoint carriers, make a full one
        through a group or a semi one through an empty cell (its key); a full and a
        semi connection meeting at a group make a semi one."""
        cells = self.geo.cells
        queue = self.queue
        full, semi = self.full, self.semi
        add_full, add_semi = self.add_full, self.add_semi
        steps = 0
        while queue and not self.done:
            steps += 1
            if not steps & 63 and time.monotonic() >= self.deadline:
                raise OutOfTime  # a big board's search can outlast a short budget
            is_full, x, y, carrier = queue.popleft()  # oldest first: small carriers early
            for middle, end in ((x, y), (y, x)):
                through_cell = middle < cells
                if through_cell and not is_full:
                    continue
                # A carrier to combine with must avoid this one and the far end.
                clash = carrier | (1 << end if end < cells else 0)
                middle_bit = 1 << middle if through_cell else 0
                # The tables at `middle` do not change below: additions are at `end`.
                if is_full and not through_cell:
                    for far, carriers in full[middle].items():
                        if far != end and not (far < cells and carrier >> far & 1):
                            for second in carriers:
                                if not second & clash:
                                    add_full(end, far, carrier | second)
                                    if self.done:
                                        return
                    joins = semi[middle]
                else:
                    joins = full[middle]
                for far, carriers in joins.items():
                    if far != end and not (far < cells and carrier >> far & 1):
                        for second in carriers:
                            if not second & clash:
                                add_semi(end, far, carrier | second | middle_bit)
                                if self.done:
                                    return


def _dilate_cells(geo: Geometry, mask: int) -> int:
    return geo.dilate(mask) & ~mask


def flood(geo: Geometry, seed: int, within: int) -> int:
    """The cells of `within` connected to `seed` (itself inside `within`)."""
    grown = seed
    frontier = seed
    while frontier:
        wider = _dilate_cells(geo, frontier) & within & ~grown
        grown |= wider
        frontier = wider
    return grown


def connected(geo: Geometry, own: int, colour: int) -> bool:
    """Whether `own` stones of `colour` join its two edges."""
    first, second = geo.edges[colour]
    return bool(flood(geo, own & first, own) & second)
