"""Hex's exact solver: proof-number search over bitboards with virtual connections.

A position is two bitmasks (the mover's stones, the opponent's) and the
mover's colour; cell i is bit i (row * size + column). At each position the
solver
1. fills in what cannot matter: dead cells (no chain of either colour needs
   them) and captured pairs (two cells a player can keep for themselves
   whatever the opponent does), which leaves the value unchanged;
2. looks for virtual connections with H-search (Anshelevich's AND and OR
   rules over full connections, which hold with the opponent to move, and
   semi connections, which need one more stone): a semi or full connection
   between the mover's edges wins; a full one of the opponent's loses;
3. otherwise the mover must play in the intersection of the carriers of the
   opponent's semi connections (the must-play region): any other stone leaves
   one of them intact, and the opponent completes it. Of those cells, one whose
   stone would capture another's cell (fill it for the mover) makes that move
   needless: the capturing move is at least as good.
Proof-number search then grows a tree of such positions, always expanding the
one that is cheapest to settle the root (a node's disproof number counts only its
likeliest winning moves: widening), with a table of settled positions (keyed on
the stones and the mover; a board and its 180-degree turn are the same game and
share an entry). H-search and the board's geometry are in hexconnections.

Every rule here is exact: a proof never rests on a guess. Disthex breaks the
connection rules (the saving reply to an intrusion is adjacent to it, hence
forbidden), so Disthex has a solver of its own (disthexsolve).

Where the install compiled it, engine/_hexsolve.c runs the same search step for
step (the same answers, 128-bit masks: boards up to 11x11); this code is the
reference, and the fallback for larger boards or where no C compiler was found.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import cache
from types import ModuleType

from engine.ai.hexconnections import Connections, Geometry, bits, connected, geometry
from engine.ai.solver import Budget, OutOfTime

_compiled: ModuleType | None
try:
    import engine._hexsolve as _compiled
except ImportError:  # no C compiler at install: the Python search below
    _compiled = None

#: Unreachable proof and disproof numbers.
INFINITE = 10**9
#: A node's disproof number sums the proof numbers of 1 + this share (%) of its
#: open children, the likeliest wins: every child must still fail to disprove it.
WIDTH_PERCENT = 25

# What lies at a neighbour position of a cell, for the dead-cell patterns: a stone, an
# empty cell, or nothing (beyond an acute corner, between the two colours' edges).
_BLACK, _WHITE, _EMPTY, _NOTHING = 0, 1, 2, 3


# -- dead cells ---------------------------------------------------------------------------


def _useless_for(ring: tuple[int, ...], colour: int) -> bool:
    """Whether a cell with this ring of neighbours can never help `colour`: any two
    of its neighbours a chain of `colour` could pass it through are adjacent or
    joined around the ring by `colour`'s own stones, so the chain can bypass it."""
    usable = [i for i in range(6) if ring[i] in (colour, _EMPTY)]
    for index, a in enumerate(usable):
        for b in usable[index + 1 :]:
            forward = all(ring[i % 6] == colour for i in range(a + 1, b))
            backward = all(ring[i % 6] == colour for i in range(b + 1, a + 6))
            if not (forward or backward):
                return False
    return True


@cache
def _dead_patterns() -> frozenset[tuple[int, ...]]:
    """Every ring (Black, White, empty or nothing at each of the six positions) that
    makes its cell dead: useless to both colours."""
    dead = set()
    for code in range(4**6):
        ring = tuple(code // 4**i % 4 for i in range(6))
        if _useless_for(ring, _BLACK) and _useless_for(ring, _WHITE):
            dead.add(ring)
    return frozenset(dead)


class FillIn:
    """Dead cells and captured pairs of one board size."""

    def __init__(self, geo: Geometry) -> None:
        self.geo = geo
        self.dead = _dead_patterns()

    def ring(self, cell: int, black: int, white: int) -> tuple[int, ...]:
        values = []
        for other in self.geo.rings[cell]:
            if other >= 0:
                values.append(
                    _BLACK if black >> other & 1 else _WHITE if white >> other & 1 else _EMPTY
                )
            elif other == -3:
                values.append(_NOTHING)
            else:
                values.append(-1 - other)
        return tuple(values)

    def is_dead(self, cell: int, black: int, white: int) -> bool:
        return self.ring(cell, black, white) in self.dead

    def fill(self, black: int, white: int, *, only: int | None = None) -> tuple[int, int]:
        """The stones with dead cells and captured pairs filled in, until none is
        left: dead cells with White (either colour would do), a pair captured by a
        colour with that colour. With `only` a colour, only that colour's captured
        pairs, and dead cells with that colour: every stone added is that colour's,
        so the position is no worse for it than with any of those stones alone."""
        geo = self.geo
        dead_colour = _WHITE if only is None else only
        owners = (_BLACK, _WHITE) if only is None else (only,)
        changed = True
        while changed:
            changed = False
            empty = geo.full & ~(black | white)
            for cell in bits(empty):
                around = geo.neighbours[cell]
                # A dead or captured cell has at least two coloured neighbours
                # (stones or edges): a cheap filter before the patterns.
                if (around & (black | white)).bit_count() + 6 - around.bit_count() < 2:
                    continue
                if self.is_dead(cell, black, white):
                    if dead_colour == _BLACK:
                        black |= 1 << cell
                    else:
                        white |= 1 << cell
                    changed = True
                    continue
                for partner in bits(around & empty & ~(black | white)):
                    owner = self.captured_pair(cell, partner, black, white, owners)
                    if owner is not None:
                        pair = 1 << cell | 1 << partner
                        if owner == _BLACK:
                            black |= pair
                        else:
                            white |= pair
                        changed = True
                        break
                if changed:
                    break  # the board changed under the loop: start over
        return black, white

    def captured_pair(
        self, a: int, b: int, black: int, white: int, colours: tuple[int, ...] = (_BLACK, _WHITE)
    ) -> int | None:
        """The colour (of `colours`) that captures the adjacent empty cells a and b,
        if one does: whichever of them the opponent takes, its stone on the other
        makes the opponent's stone dead."""
        for colour in colours:
            stones = (black, white)
            own, other = stones[colour], stones[colour ^ 1]
            held = True
            for taken, kept in ((a, b), (b, a)):
                after_own = own | 1 << kept
                after_other = other | 1 << taken
                board = (after_own, after_other) if colour == _BLACK else (after_other, after_own)
                if not self.is_dead(taken, *board):
                    held = False
                    break
            if held:
                return colour
        return None


def _settle(
    geo: Geometry, own: int, other: int, colour: int, deadline: float
) -> tuple[bool | None, int]:
    """On filled-in stones: True or False when connections settle the position
    (the must-play region 0), else None and the must-play region."""
    if connected(geo, own, colour):
        return True, 0
    if connected(geo, other, colour ^ 1):
        return False, 0
    mine = Connections(geo, own, other, colour, stop_on_semi=True, deadline=deadline)
    if mine.done:
        return True, 0
    theirs = Connections(geo, other, own, colour ^ 1, stop_on_semi=False, deadline=deadline)
    if theirs.done:
        return False, 0  # a full connection, or no cell in every semi connection
    return None, theirs.must_play


@cache
def _fill_in(size: int) -> FillIn:
    return FillIn(geometry(size))


def compiled_for(size: int) -> ModuleType | None:
    """The compiled search, where there is one and its masks hold this board."""
    return _compiled if _compiled is not None and size <= _compiled.MAX_SIZE else None


def evaluate(
    size: int, own: int, other: int, colour: int, deadline: float = math.inf
) -> tuple[bool | None, int, int, int]:
    """One position read without search: the fill-in, then connections. Returns
    (True or False when settled, else None; the must-play region, 0 when settled;
    the mover's and the opponent's stones filled in). Raises OutOfTime past the
    deadline (time.monotonic())."""
    compiled = compiled_for(size)
    if compiled is not None:
        found: tuple[bool | None, int, int, int] | None
        found = compiled.evaluate(size, own, other, colour, deadline)
        if found is None:
            raise OutOfTime
        return found
    black, white = (own, other) if colour == 0 else (other, own)
    black, white = _fill_in(size).fill(black, white)
    own, other = (black, white) if colour == 0 else (white, black)
    value, moves = _settle(geometry(size), own, other, colour, deadline)
    return value, moves, own, other


# -- proof-number search ----------------------------------------------------------------------


class _Node:
    __slots__ = ("children", "colour", "dn", "key", "moves", "other", "own", "pn")

    def __init__(self, own: int, other: int, colour: int, key: int) -> None:
        self.own = own
        self.other = other
        self.colour = colour
        self.key = key
        self.pn = 1  # the cost of proving the mover wins
        self.dn = 1  # the cost of proving the mover loses
        self.moves = 0  # the must-play region, once evaluated
        self.children: list[_Node] | None = None


class HexProver:
    """Settles Hex positions (no swap pending) by proof-number search. One prover
    keeps its table of settled positions across calls."""

    def __init__(self, size: int, budget: Budget) -> None:
        self.geo = geometry(size)
        self.fill = _fill_in(size)
        self.budget = budget
        self.settled: dict[int, bool] = {}  # key -> the mover wins
        # The compiled search keeps its own table (engine/_hexsolve.c).
        compiled = compiled_for(size)
        self.compiled = compiled.Prover(size) if compiled is not None else None

    def key(self, own: int, other: int, colour: int) -> int:
        """The same for a position and its 180-degree turn (the same game)."""
        black, white = (own, other) if colour == 0 else (other, own)
        cells = self.geo.cells
        # Turning the stones laid out the other way round turns each and restores the order.
        plain = black << cells | white
        turned = turn(white << cells | black, 2 * cells)
        return min(plain, turned) << 1 | colour

    def mover_wins(self, own: int, other: int, colour: int) -> bool:
        """Whether the mover (stones `own`, of `colour`) wins against `other`."""
        if self.compiled is not None:
            budget = self.budget
            if budget.node_limit is None:
                nodes_left = -1
            else:
                nodes_left = max(0, budget.node_limit - budget.nodes)
            wins: bool | None
            wins, nodes = self.compiled.mover_wins(own, other, colour, budget.deadline, nodes_left)
            budget.nodes += nodes
            if wins is None:
                raise OutOfTime
            return wins
        root = self._node(own, other, colour)
        while root.pn and root.dn:
            path = [root]
            node = root
            while node.children is not None:
                node = min(node.children, key=_disproof)
                path.append(node)
            self._expand(node)
            for ancestor in reversed(path):
                self._update(ancestor)
        return root.pn == 0

    def known(self, own: int, other: int, colour: int) -> bool | None:
        """Whether the mover wins, when the table has the position settled (no search)."""
        if self.compiled is not None:
            value: bool | None = self.compiled.known(own, other, colour)
            return value
        black, white = (own, other) if colour == 0 else (other, own)
        black, white = self.fill.fill(black, white)
        own, other = (black, white) if colour == 0 else (white, black)
        return self.settled.get(self.key(own, other, colour))

    def _node(self, own: int, other: int, colour: int) -> _Node:
        """A new leaf, evaluated: settled at once, or its must-play region found."""
        self.budget.tick()
        black, white = (own, other) if colour == 0 else (other, own)
        black, white = self.fill.fill(black, white)
        own, other = (black, white) if colour == 0 else (white, black)
        key = self.key(own, other, colour)
        node = _Node(own, other, colour, key)
        known = self.settled.get(key)
        if known is None:
            known = self._evaluate(node)
        if known is not None:
            self.settled[key] = known
            node.pn, node.dn = (0, INFINITE) if known else (INFINITE, 0)
            node.children = []
        else:
            node.dn = node.moves.bit_count()
        return node

    def _evaluate(self, node: _Node) -> bool | None:
        """True or False when connections settle the position, else None with
        `node.moves` set to the must-play region."""
        budget = self.budget
        deadline = budget.deadline if budget.node_limit is None else math.inf
        value, node.moves = _settle(self.geo, node.own, node.other, node.colour, deadline)
        return value

    def _expand(self, node: _Node) -> None:
        children = []
        for cell in self._undominated(node):
            child = self._node(node.other, node.own | 1 << cell, node.colour ^ 1)
            children.append(child)
            if child.dn == 0:
                break  # a winning move: the node is proven
        node.children = children

    def _undominated(self, node: _Node) -> list[int]:
        """The must-play cells, in the order of trial, less those another kept cell
        dominates (capture-domination): y dominates x when, after the mover's stone
        on y, the fill-in for the mover alone (its captured pairs, and dead cells as
        its own) takes x. The position after y is then the position after x with
        more of the mover's stones, and a stone never hurts in Hex. The first pass
        lets a kept cell prune only later ones, so no cycle of dominations loses
        all its cells; the second drops kept cells a later kept cell dominates."""
        own, colour, moves = node.own, node.colour, node.moves
        other = node.other
        dominated: dict[int, int] = {}
        for cell in bits(moves):
            self.budget.check()  # a fill each: ~0.5 ms on 19x19, for up to 361 cells
            after = own | 1 << cell
            black, white = (after, other) if colour == _BLACK else (other, after)
            black, white = self.fill.fill(black, white, only=colour)
            dominated[cell] = ((black, white)[colour] & ~after) & moves
        kept: list[int] = []
        pruned = 0
        for cell in self.geo.order:
            if moves >> cell & 1 and not pruned >> cell & 1:
                kept.append(cell)
                pruned |= dominated[cell]
        later = 0
        for cell in kept:
            later |= dominated[cell]
        return [cell for cell in kept if not later >> cell & 1]

    def _update(self, node: _Node) -> None:
        children = node.children
        if not children:
            return
        node.pn = min(child.dn for child in children)
        if node.pn == 0:
            node.dn = INFINITE  # a winning move (a child at proof number INFINITE)
        else:
            # Only the open children (not yet lost) most likely to win count, the
            # smallest disproof numbers first (sorted() keeps the order of trial).
            open_children = sorted((child for child in children if child.pn), key=_disproof)
            width = 1 + len(open_children) * WIDTH_PERCENT // 100
            node.dn = min(INFINITE, sum(child.pn for child in open_children[:width]))
        if node.pn == 0 or node.dn == 0:
            self.settled[node.key] = node.pn == 0
            node.children = []  # settled: the subtree is no longer needed


def _disproof(node: _Node) -> int:
    return node.dn


def turns_into_itself(colours: Sequence[int]) -> bool:
    """Whether a board's cells (colours by cell index) look the same turned by 180
    degrees: then an opening and its turned twin are the same game."""
    last = len(colours) - 1
    return all(colours[cell] == colours[last - cell] for cell in range(len(colours)))


#: Each byte with its bits in reverse order.
_REVERSED_BYTES = bytes(int(format(b, "08b")[::-1], 2) for b in range(256))


def turn(mask: int, cells: int) -> int:
    """The mask turned by 180 degrees: cell i becomes cell cells - 1 - i (its
    `cells` bits in reverse order, reversed a byte at a time)."""
    length = (cells + 7) // 8
    reversed_bytes = mask.to_bytes(length, "little").translate(_REVERSED_BYTES)
    return int.from_bytes(reversed_bytes, "big") >> (8 * length - cells)
