"""Short Circuit's board as bitboards, and the rules' questions asked of bare masks.

A hex-hex board (engine/hexgrid.py's cells) as integers, one bit a cell; on them:
where a colour may go, which pops are legal, whether a connector can still be placed
after pops, and the loop a new connector closes. The state (engine/shortcircuit.py)
and its random playouts (engine/shortcircuitplayout.py) ask them.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from engine.hexgrid import HEXHEX_DIRECTIONS, hexhex_cells
from engine.notation import Point, label


@dataclass(frozen=True, slots=True)
class Board:
    """A hex-hex board as bitboards: cell (q, r) is bit r*W + q, W = 2s.

    The padding column q = 2s-1 lets a shift find all six neighbours at once
    without wrapping into the next row (the directions are ±1, ±W and ±(W+1));
    shifts off the bottom fall away and the mask drops those off the top. Side 5
    fits 89 bits: three of CPython's 30-bit digits, which the playouts' many
    bitboard operations are paid by.
    """

    side: int
    cells: tuple[Point, ...]  # hexhex_cells order
    order: tuple[int, ...]  # the bit of each cell, in `cells` order
    points: dict[int, Point]
    bit_at: dict[Point, int]
    labels: dict[int, str]
    neighbours: tuple[int, ...]  # bit -> mask of its neighbours (0 off the board)
    closed: tuple[int, ...]  # bit -> mask of the cell and its neighbours (0 off the board)
    shifts: tuple[int, int, int]  # the three positive direction shifts (the others negate)
    mask: int
    centre: int

    def adjacent(self, cells: int) -> int:
        """Every board cell next to some cell of `cells`."""
        one, two, three = self.shifts
        return (
            (cells << one)
            | (cells >> one)
            | (cells << two)
            | (cells >> two)
            | (cells << three)
            | (cells >> three)
        ) & self.mask

    def label(self, cell: int) -> str:
        return self.labels[cell]


@functools.cache
def board_for(side: int) -> Board:
    width = 2 * side
    cells = hexhex_cells(side)
    bit_at = {(q, r): r * width + q for q, r in cells}
    neighbours = [0] * (width * width)
    closed = [0] * (width * width)
    for (q, r), bit in bit_at.items():
        neighbours[bit] = sum(
            1 << bit_at[(q + dq, r + dr)]
            for dq, dr in HEXHEX_DIRECTIONS
            if (q + dq, r + dr) in bit_at
        )
        closed[bit] = neighbours[bit] | 1 << bit
    one, two, three = sorted({abs(dq + dr * width) for dq, dr in HEXHEX_DIRECTIONS})
    return Board(
        side=side,
        cells=cells,
        order=tuple(bit_at[cell] for cell in cells),
        points={bit: cell for cell, bit in bit_at.items()},
        bit_at=bit_at,
        labels={bit: label(cell) for cell, bit in bit_at.items()},
        neighbours=tuple(neighbours),
        closed=tuple(closed),
        shifts=(one, two, three),
        mask=sum(1 << bit for bit in bit_at.values()),
        centre=bit_at[(side - 1, side - 1)],
    )


def bits(mask: int) -> list[int]:
    """The set bits of `mask`, lowest first."""
    bits = []
    while mask:
        low = mask & -mask
        bits.append(low.bit_length() - 1)
        mask ^= low
    return bits


def lowest(mask: int) -> int:
    return (mask & -mask).bit_length() - 1


def placeable_cells(board: Board, colours: list[int], colour: int, empty: int) -> int:
    """Cells where `colour` may go now: empty, touching its partner colour, not itself."""
    return empty & board.adjacent(colours[colour ^ 1]) & ~board.adjacent(colours[colour])


def pop_links(board: Board, own: int, capacitor: int, target: int) -> bool:
    """Some own connector X on or next to the capacitor has the target as a neighbour."""
    near = own & ((1 << capacitor) | board.neighbours[capacitor])
    return bool(near & board.neighbours[target])


def legal_pops(board: Board, mover: int, colours: list[int], caps: int) -> list[tuple[int, int]]:
    """Every pop (capacitor, connector) whose shape is right and after which a
    connector can still be placed."""
    own = colours[2 * mover] | colours[2 * mover + 1]
    occupied = colours[0] | colours[1] | colours[2] | colours[3]
    shaped: dict[int, int] = {}  # target -> capacitors that may pop it
    for linker in bits(own):
        near_caps = caps & ((1 << linker) | board.neighbours[linker])
        if near_caps:
            for target in bits(board.neighbours[linker] & occupied):
                shaped[target] = shaped.get(target, 0) | near_caps
    empty = board.mask & ~occupied
    open_a = placeable_cells(board, colours, 2 * mover, empty)
    open_b = placeable_cells(board, colours, 2 * mover + 1, empty)
    pops: list[tuple[int, int]] = []
    for target, capacitors in shaped.items():
        # Usually a placement is open at once, whichever capacitor goes.
        if placement_kept(colours, mover, 1 << target, open_a, open_b):
            pops.extend([(capacitor, target) for capacitor in bits(capacitors)])
            continue
        keep = ~(1 << target)
        after = [mask & keep for mask in colours]
        if _direct_placement(board, mover, after):
            pops.extend([(capacitor, target) for capacitor in bits(capacitors)])
            continue
        pops.extend(
            (capacitor, target)
            for capacitor in bits(capacitors)
            if connector_reachable(board, mover, after, caps & ~(1 << capacitor))
        )
    return pops


def placement_kept(colours: list[int], mover: int, removed: int, open_a: int, open_b: int) -> bool:
    """Whether the mover, whose colours can go on `open_a` and `open_b` now, keeps a
    placement once the piece on `removed` is gone: a removal takes away no placement
    of a colour the piece is not (an opponent's piece: of either colour)."""
    if colours[2 * mover] & removed:
        return bool(open_a)
    if colours[2 * mover + 1] & removed:
        return bool(open_b)
    return bool(open_a or open_b)


def _direct_placement(board: Board, mover: int, colours: list[int]) -> bool:
    empty = board.mask & ~(colours[0] | colours[1] | colours[2] | colours[3])
    return any(
        placeable_cells(board, colours, colour, empty) for colour in (2 * mover, 2 * mover + 1)
    )


def connector_reachable(board: Board, mover: int, colours: list[int], caps: int) -> bool:
    """Whether the mover can place a connector now or after some further pops.

    Pops only remove pieces, and removing a piece never makes another pop
    possible. So a placement of colour a on cell e is reachable exactly when
    the minimal set it needs removed, e's occupant and the mover's a-connectors
    next to e, can be popped in some order: any longer pop sequence reaching e
    contains one for that set. That keeps the search to a handful of pieces
    per candidate cell.
    """
    if _direct_placement(board, mover, colours):
        return True
    if not caps:
        return False
    own = colours[2 * mover] | colours[2 * mover + 1]
    occupied = colours[0] | colours[1] | colours[2] | colours[3]
    for colour in (2 * mover, 2 * mover + 1):
        for cell in bits(board.adjacent(colours[colour ^ 1])):
            needed = (occupied & (1 << cell)) | (board.neighbours[cell] & colours[colour])
            if _can_pop_all(board, own, caps, needed):
                return True
    return False


def _can_pop_all(board: Board, own: int, caps: int, needed: int) -> bool:
    """Whether the connectors in `needed` can all be popped, one after another,
    with distinct capacitors, each pop linked by an own connector still present."""
    if needed.bit_count() > caps.bit_count():
        return False
    seen: dict[tuple[int, int], bool] = {}

    def search(remaining: int, caps_left: int) -> bool:
        if not remaining:
            return True
        key = (remaining, caps_left)
        if key not in seen:
            present = own & ~(needed & ~remaining)
            seen[key] = any(
                search(remaining & ~(1 << target), caps_left & ~(1 << capacitor))
                for target in bits(remaining)
                for capacitor in bits(_linked_caps(board, present, caps_left, target))
            )
        return seen[key]

    return search(needed, caps)


def _linked_caps(board: Board, present: int, caps: int, target: int) -> int:
    """The capacitors that could pop `target`: on or next to an own connector beside it."""
    linkers = board.neighbours[target] & present
    return caps & (linkers | board.adjacent(linkers))


def loop_through(board: Board, own: int, placed: int) -> tuple[int, ...] | None:
    """A shortest cycle of own connectors through `placed`, or None.

    The rest of the graph is a forest (no loop before this piece), so a cycle
    exists when two of the piece's own neighbours are joined without it.
    """
    rest = own & ~(1 << placed)
    ends = board.neighbours[placed] & rest
    if ends.bit_count() < 2:
        return None
    best: list[int] | None = None
    for start in bits(ends):
        parents = {start: start}
        frontier = [start]
        found: int | None = None
        while frontier and found is None:
            following: list[int] = []
            for cell in frontier:
                for step in bits(board.neighbours[cell] & rest):
                    if step in parents:
                        continue
                    parents[step] = cell
                    if ends >> step & 1:
                        found = step
                        break
                    following.append(step)
                if found is not None:
                    break
            frontier = following
        if found is None:
            continue
        chain = [found]
        while chain[-1] != start:
            chain.append(parents[chain[-1]])
        if best is None or len(chain) < len(best):
            best = chain[::-1]
    return None if best is None else (placed, *best)
