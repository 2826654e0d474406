"""Hot Wire: a bitmask adapter for MCTS and the exact misère solver.

A position is the mask of candidate wires still available (engine.hotwiretable's
wire table numbers every candidate and keeps the mask of the candidates each
conflicts with), so Hot Wire is misère Node Kayles on the conflict graph: a
move picks an available wire and removes it with everything it conflicts with;
whoever cannot move wins.

The solver splits the available wires into regions (connected components of
the conflict graph): regions are independent sub-games. A position's value
depends only on the multiset of its regions up to congruence, so the memo is
keyed on the sorted canonical forms (translation, rotation, reflection) of
its regions. Misère sums are not nim sums, so no region is replaced by a
number, with one exact exception: a region that takes exactly one more wire
(all its wires pairwise conflict: the source's "one-wire group") is *1, and
G + *1 + *1 has the outcome of G for every G in misère play (by induction:
if G is a P-position, G + *1 moves to G, so it is an N-position; the rest
follows from the induction hypothesis), so only the parity of their number
is kept.
"""

from __future__ import annotations

import random
import time
from collections.abc import Hashable, Iterator
from typing import Any, Protocol

from engine.ai.adapter import Adapter, Rewards
from engine.ai.registry import register
from engine.ai.solver import Asked, Budget, OutOfTime, Solution, winning
from engine.core import GameState
from engine.hotwire import HotWireState, wires_of

#: A position for MCTS: (available mask, seat to move).
Position = tuple[int, int]

#: The solver is tried first by best_move and analyse below this many available wires.
SMALL = 100

#: Playouts settle their last this many available wires (or fewer) exactly.
EXACT_WIRES = 20
#: Sums of regions a search's playouts remember before they forget them (~8 MB).
TAIL_MEMO_LIMIT = 20_000


class HotWireAdapter(Adapter):
    def __init__(self, state: GameState) -> None:
        super().__init__(state)
        assert isinstance(state, HotWireState)
        self.table = state.wire_table
        self.conflicts = _conflicts(state)
        # Huge tables compute each conflict mask on use: playouts watch the clock.
        self.slow = isinstance(self.conflicts, _ConflictsOnDemand)
        self.tails = TailSolver(self.conflicts)

    def root(self, state: GameState) -> Position:
        assert isinstance(state, HotWireState)
        return (state.available, state.ply % 2)

    def mover(self, pos: Position) -> int:
        return pos[1]

    def moves(self, pos: Position) -> list[int]:
        return wires_of(pos[0])

    def play(self, pos: Position, move: int) -> Position:
        return (pos[0] & ~self.conflicts[move], pos[1] ^ 1)

    def result(self, pos: Position) -> Rewards | None:
        if pos[0]:
            return None
        return (1.0, 0.0) if pos[1] == 0 else (0.0, 1.0)  # the player left without a wire wins

    def winner(self, pos: Position) -> int | None:
        return None if pos[0] else pos[1]

    def key(self, pos: Position) -> Hashable:
        return pos

    def text(self, pos: Position, move: int) -> str:
        return self.table.names[move]

    def small(self, pos: Position) -> bool:
        return pos[0].bit_count() <= SMALL

    def candidates(self, pos: Position, moves: list[int]) -> list[int]:
        """Never connect the hot wire while another wire is left: it loses at once.
        Checked only when few wires are left: where it matters, and cheap."""
        if len(moves) > 64:
            return moves
        available, conflicts = pos[0], self.conflicts
        safe = [m for m in moves if available & ~conflicts[m]]
        return safe or moves

    def decisive(self, pos: Position, moves: list[Any]) -> list[Any]:
        return []  # in misère play no move wins at once

    def playout(self, pos: Position, rng: random.Random) -> tuple[Rewards, list[tuple[int, Any]]]:
        """The policy: of two random available wires, the one that takes away more of
        the wires still available; never the hot wire while another is left; from
        EXACT_WIRES wires on, the exact result. Off (`policy`, or a table too big to
        keep its conflict masks): uniformly random wires, the hot wire last.

        The available wires are shuffled once and walked in that order: the first
        still available is a uniformly random legal wire at each step, and the
        policy holds it to compare with the next.
        """
        available, seat = pos
        conflicts = self.conflicts
        chooses = self.policy and not self.slow
        exact = EXACT_WIRES if chooses else 0
        order = wires_of(available)
        rng.shuffle(order)
        played: list[tuple[int, Any]] = []
        check = self.slow and time.monotonic
        held = -1  # the policy's wire to compare with the next one of the order
        for wire in order:
            if available >> wire & 1:
                if available.bit_count() <= exact:
                    break
                if check and check() > self.deadline:
                    raise OutOfTime
                if chooses:
                    if held < 0 or not available >> held & 1:
                        held = wire
                        continue
                    if (available & conflicts[held]).bit_count() > (
                        available & conflicts[wire]
                    ).bit_count():
                        wire, held = held, wire
                after = available & ~conflicts[wire]
                if not after and available.bit_count() > 1 and _other_safe(available, conflicts):
                    continue  # skip the hot wire; a later wire of the order is safe
                available = after
                played.append((seat, wire))
                seat ^= 1
        # The walk may skip the hot wire and run out of order: finish it.
        while available.bit_count() > exact:
            wire = wires_of(available)[0]
            available &= ~conflicts[wire]
            played.append((seat, wire))
            seat ^= 1
        winner = seat if self.tails.mover_wins(available) else seat ^ 1
        return ((1.0, 0.0) if winner == 0 else (0.0, 1.0)), played

    def random_playout(
        self, pos: Position, rng: random.Random
    ) -> tuple[Rewards, list[tuple[int, Any]]]:
        if self.slow:
            return self.playout(pos, rng)  # the one that watches the clock
        return _random_walk(pos[0], pos[1], self.conflicts, rng)


class TailSolver:
    """The end of a playout settled exactly: the misère search over regions of the
    solver below without its congruence classes (a playout cannot wait for them),
    remembered across a search's playouts. A sum is its regions that take more than
    one wire, as masks, and the parity of its one-wire groups."""

    def __init__(self, conflicts: Conflicts) -> None:
        self.conflicts = conflicts
        self.memo: dict[tuple[tuple[int, ...], int], bool] = {}

    def mover_wins(self, available: int) -> bool:
        """Whether the player to move with `available` left wins (misère)."""
        return self.wins(self.sum_of(_regions(available, self.conflicts), 0))

    def sum_of(self, regions: list[int], odd_one: int) -> tuple[tuple[int, ...], int]:
        """The key of a sum: one-wire groups cancel in pairs (see the module doc)."""
        others = []
        for region in regions:
            if _takes_one(region, self.conflicts):
                odd_one ^= 1
            else:
                others.append(region)
        return tuple(sorted(others)), odd_one

    def wins(self, key: tuple[tuple[int, ...], int]) -> bool:
        known = self.memo.get(key)
        if known is None:
            # Nothing left: the opponent connected the last wire.
            known = key == ((), 0) or any(not self.wins(child) for child in self.children(key))
            if len(self.memo) >= TAIL_MEMO_LIMIT:
                self.memo.clear()
            self.memo[key] = known
        return known

    def children(self, key: tuple[tuple[int, ...], int]) -> Iterator[tuple[tuple[int, ...], int]]:
        """The sums one wire away."""
        others, odd_one = key
        if odd_one:
            yield others, 0
        conflicts = self.conflicts
        for index, region in enumerate(others):
            rest = list(others[:index] + others[index + 1 :])
            for wire in wires_of(region):
                yield self.sum_of(rest + _regions(region & ~conflicts[wire], conflicts), odd_one)


def _random_walk(
    available: int, seat: int, conflicts: Conflicts, rng: random.Random
) -> tuple[Rewards, list[tuple[int, Any]]]:
    """Uniformly random wires to the end (plain UCT's playout)."""
    order = wires_of(available)
    rng.shuffle(order)
    played: list[tuple[int, Any]] = []
    for wire in order:
        if available >> wire & 1:
            available &= ~conflicts[wire]
            played.append((seat, wire))
            seat ^= 1
    return ((1.0, 0.0) if seat == 0 else (0.0, 1.0)), played


def _other_safe(available: int, conflicts: Conflicts) -> bool:
    """Whether some available wire leaves another one available."""
    return any(available & ~conflicts[w] for w in wires_of(available))


def _regions(available: int, conflicts: Conflicts) -> list[int]:
    """The regions of `available` (connected components of the conflict graph), as masks."""
    regions = []
    while available:
        region = frontier = available & -available
        while frontier:
            reach = 0
            for wire in wires_of(frontier):
                reach |= conflicts[wire]
            frontier = reach & available & ~region
            region |= frontier
        available &= ~region
        regions.append(region)
    return regions


def _takes_one(region: int, conflicts: Conflicts) -> bool:
    """Whether a region takes exactly one more wire: all its wires pairwise conflict."""
    return all(conflicts[wire] & region == region for wire in wires_of(region))


# -- the exact solver ----------------------------------------------------------------

#: Entries a solver cache may hold before it is emptied (5x5 with the default
#: lengths peaks near 300,000 splits and 230 MB).
CACHE_LIMIT = 200_000

#: The canonical form of a region that takes exactly one more wire.
ONE = -1


class MisereSolver:
    """Memoised misère search over multisets of canonical regions (see the module doc)."""

    def __init__(self, state: HotWireState, budget: Budget) -> None:
        self.budget = budget
        self.conflicts = _conflicts(state, budget)
        self.symmetries = _symmetric_codes(state, budget)
        self.region_id: dict[int, int] = {}  # region mask -> canonical id (or ONE)
        self.splits: dict[int, list[tuple[int, int]]] = {}  # available mask -> its regions
        self.shape_id: dict[tuple[int, ...], int] = {}  # canonical shape -> id
        self.next_id = 0
        self.wins: dict[tuple[tuple[int, ...], int], bool] = {}

    # -- regions --------------------------------------------------------------------

    def split(self, available: int) -> list[tuple[int, int]]:
        """The regions of `available` as (canonical id, mask)."""
        known = self.splits.get(available)
        if known is not None:
            return known
        if len(self.splits) > CACHE_LIMIT:
            self.trim()
        regions = [
            (self.canonical(region), region) for region in _regions(available, self.conflicts)
        ]
        self.splits[available] = regions
        return regions

    def trim(self) -> None:
        """Empty the caches that grew too big (a search stays under ~300 MB). The memo
        goes with the shape ids it is keyed on; new ids never repeat old ones, so a
        shape may get a second id (a lost transposition), never two shapes one id."""
        self.splits.clear()
        if len(self.region_id) > CACHE_LIMIT:
            self.region_id.clear()
        if len(self.shape_id) > CACHE_LIMIT:
            self.shape_id.clear()
            self.region_id.clear()
            self.wins.clear()

    def canonical(self, region: int) -> int:
        known = self.region_id.get(region)
        if known is not None:
            return known
        if _takes_one(region, self.conflicts):
            self.region_id[region] = ONE
            return ONE
        wires = wires_of(region)
        shape = tuple(min(_shape(symmetric, wires) for symmetric in self.symmetries))
        ident = self.shape_id.get(shape)
        if ident is None:
            # Never reused, even after a trim: regions on the search's stack keep theirs.
            ident = self.shape_id[shape] = self.next_id
            self.next_id += 1
        self.region_id[region] = ident
        return ident

    # -- search ---------------------------------------------------------------------

    def mover_wins(self, regions: list[tuple[int, int]]) -> bool:
        """Whether the player to move wins the sum of `regions` (misère)."""
        self.budget.tick()
        ones = 0
        others = []
        for ident, mask in regions:
            if ident == ONE:
                ones += 1
            else:
                others.append((ident, mask))
        others.sort()
        key = (tuple(ident for ident, _ in others), ones & 1)
        known = self.wins.get(key)
        if known is not None:
            return known
        if not others:
            result = not ones & 1  # nothing left wins; a lone *1 loses
            self.wins[key] = result
            return result
        wins = self.wins
        result = False
        for child_key, child in self.children(others, ones & 1):
            known = wins.get(child_key)
            if known is False or (known is None and not self.mover_wins(child)):
                result = True
                break
        self.wins[key] = result
        return result

    def children(
        self, others: list[tuple[int, int]], odd_one: int
    ) -> Iterator[tuple[tuple[tuple[int, ...], int], list[tuple[int, int]]]]:
        """The distinct positions one move away, with their memo keys."""
        seen: set[tuple[tuple[int, ...], int]] = set()
        if odd_one:
            key = (tuple(ident for ident, _ in others), 0)
            seen.add(key)
            yield key, list(others)
        done_shapes: set[int] = set()
        conflicts = self.conflicts
        for index, (ident, mask) in enumerate(others):
            if ident in done_shapes:
                continue  # a congruent region gives the same children
            done_shapes.add(ident)
            rest = others[:index] + others[index + 1 :]
            for wire in sorted(wires_of(mask), key=lambda w: -(conflicts[w] & mask).bit_count()):
                child = rest + self.split(mask & ~conflicts[wire])
                if odd_one:
                    child.append((ONE, 0))
                key = _key_of(child)
                if key not in seen:
                    seen.add(key)
                    yield key, child


def _key_of(regions: list[tuple[int, int]]) -> tuple[tuple[int, ...], int]:
    ones = sum(1 for ident, _ in regions if ident == ONE)
    return (tuple(sorted(ident for ident, _ in regions if ident != ONE)), ones & 1)


def solve_hotwire(state: GameState, budget: Budget, asked: Asked) -> Solution | None:
    """The mover's winning wires (every one, or what `asked` says), by the misère
    solver; raises OutOfTime."""
    assert isinstance(state, HotWireState)
    solver = MisereSolver(state, budget)
    available, mover = state.available, state.ply % 2
    names = state.wire_table.names

    def wins(wire: int) -> bool:
        return not solver.mover_wins(solver.split(available & ~solver.conflicts[wire]))

    wires = wires_of(available)
    won = winning(wires, names.__getitem__, wins, asked)
    return Solution(
        winner=mover if won else 1 - mover,
        winning_moves=tuple(names[wire] for wire in wires if wire in won),
    )


register("hotwire", HotWireAdapter, solve_hotwire)


# -- helpers -----------------------------------------------------------------------------


class Conflicts(Protocol):
    """Per wire, the mask of the candidates it conflicts with."""

    def __getitem__(self, wire: int, /) -> int: ...


class _ConflictsOnDemand:
    """A huge table's conflict masks, asked of the table each time (it keeps none).
    Each costs milliseconds, so a solver's budget is checked at every one."""

    def __init__(self, state: HotWireState, budget: Budget | None) -> None:
        self._conflict = state.wire_table.conflict
        self._budget = budget

    def __getitem__(self, wire: int, /) -> int:
        if self._budget is not None:
            self._budget.check()
        return self._conflict(wire)


#: Tables with more candidates than this keep no conflict list (engine.hotwiretable's
#: memo limit: beyond it a full list of masks would take gigabytes).
_LISTED = 16_384


def _conflicts(state: HotWireState, budget: Budget | None = None) -> Conflicts:
    table = state.wire_table
    if table.count > _LISTED:
        return _ConflictsOnDemand(state, budget)
    return [table.conflict(w) for w in range(table.count)]


#: Coordinates are below this in codes (boards are at most 26 pins a side).
_SCALE = 32


def _symmetric_codes(
    state: HotWireState, budget: Budget
) -> list[tuple[dict[int, int], dict[int, int], dict[int, int]]]:
    """Per symmetry of the square lattice (8), per wire available now: its code after
    the symmetry (the two pins, sorted, as one integer) and its lowest x and y. On
    the largest table that is 8 x 39,724 wires (~1 s), so the budget is checked at
    each wire."""
    table = state.wire_table
    side = max(table.width, table.height)
    available = wires_of(state.available)
    found = []
    for symmetry in range(8):
        swap, flip_x, flip_y = symmetry & 1, symmetry >> 1 & 1, symmetry >> 2 & 1
        codes, low_xs, low_ys = {}, {}, {}
        for wire in available:
            budget.check()
            pins = []
            for pin in (table.first[wire], table.second[wire]):
                x, y = table.point(pin)
                if swap:
                    x, y = y, x
                pins.append((side - 1 - x if flip_x else x, side - 1 - y if flip_y else y))
            (x1, y1), (x2, y2) = sorted(pins)
            codes[wire] = ((x1 * _SCALE + y1) * _SCALE + x2) * _SCALE + y2
            low_xs[wire] = min(x1, x2)
            low_ys[wire] = min(y1, y2)
        found.append((codes, low_xs, low_ys))
    return found


def _shape(
    symmetric: tuple[dict[int, int], dict[int, int], dict[int, int]], wires: list[int]
) -> list[int]:
    """The region under one symmetry, moved to the origin, as its sorted wire codes:
    congruent regions have equal minimal shapes. Moving both pins by (-dx, -dy)
    lowers a code by dx * (S^3 + S) + dy * (S^2 + 1), and keeps the pins' order."""
    codes, low_xs, low_ys = symmetric
    shift = min(map(low_xs.__getitem__, wires)) * (_SCALE**3 + _SCALE) + min(
        map(low_ys.__getitem__, wires)
    ) * (_SCALE**2 + 1)
    ordered = sorted(map(codes.__getitem__, wires))
    return [code - shift for code in ordered]
