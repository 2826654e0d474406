"""Hex and Disthex: a fast adapter for MCTS, and Hex's exact solver (Disthex's is
engine/ai/disthexsolve.py; both games are registered here).

Knowledge (Hex): decisive moves (a cell that completes the mover's chain),
anti-decisive moves (when the opponent threatens to complete a chain at one
cell the mover must take it; with two such cells the mover has lost), and
bridge-saving playouts: when a playout stone intrudes into one carrier cell of
an opponent's bridge (two stones, or a stone and its edge, with two common
empty neighbours), the opponent answers in the other.

Disthex gets the decisive moves, and its own anti-decisive rule: every cell
where the opponent would join their edges must be taken or closed by a stone
next to it (the opponent may not play there next). No bridges: the carriers
are adjacent cells, so after an intrusion the saving reply is forbidden (the
mover may not play next to the opponent's last stone).

Playouts fill the board to the end and read the winner from the full board:
a full Hex board has exactly one chain, the first one made, so the result is
the same as stopping at the first connection.

Positions with a swap still to decide are searched through the generic
adapter (the engine's own rules), which knows the swap.
"""

from __future__ import annotations

import random
from collections.abc import Hashable, Sequence
from functools import cache, partial
from types import ModuleType
from typing import Any

from engine.ai import hexbook, hexsolve
from engine.ai.adapter import Adapter, Rewards
from engine.ai.disthexsolve import solve_disthex
from engine.ai.hexconnections import connected
from engine.ai.hexsolve import HexProver, turns_into_itself
from engine.ai.registry import register
from engine.ai.solver import Asked, Budget, Solution, winning
from engine.core import GameState
from engine.hex import BOTH_EDGES, EMPTY, DisthexState, HexState, board

_compiled: ModuleType | None
try:  # Hex's playouts compiled, where the install step had a C compiler
    import engine._hexplayout as _compiled
except ImportError:
    _compiled = None

#: The solver is tried first by best_move and analyse at or below this many empty cells,
#: or this many where the prover is compiled (7x7 from move 10, 9x9 from move 42).
SMALL = 16
SMALL_COMPILED = 40
#: The simulations through a node before its connections are computed (Adapter.refine):
#: 8 on boards of up to 64 cells (an evaluation on one machine word, 0.03-3 ms on 7x7;
#: against MoHex on 7x7, 23% of 66 games against 11% of 70 at 32), else 64: a 9x9
#: evaluation costs 5-30 ms at load 3, the dearest in the opening, where it keeps ~90% of
#: the moves (at 128, against MoHex on 9x9: 23% of 104 games beside 24%, side by side).
REFINE_VISITS = 8
REFINE_VISITS_WIDE = 64
#: On boards above 64 cells, the simulations through a move before its position becomes a
#: node (Adapter.expand_visits; MoHex waits for 10): a node's Python objects cost more than
#: a compiled playout (~17 us on 9x9). Against MoHex on 9x9 at equal time, side by side on
#: the same openings: both 26% of 130 games, this alone 14%, neither (32, 0) 15%; at 5
#: (a node from the sixth visit), 22% of 104 beside 20%.
EXPAND_VISITS_WIDE = 2
#: UCT's exploration on boards above 64 cells: none, RAVE alone (as MoHex searches):
#: against MoHex on 9x9 at equal time, 17% of 78 games against 8% at 0.2, side by side.
EXPLORATION_WIDE = 0.0


class HexPosition:
    """A position for the search: stones by cell and as a mask per colour, the colour
    to move, the last stone."""

    __slots__ = ("colour", "empty", "last", "masks", "stones", "winner")

    def __init__(
        self,
        stones: list[int],
        masks: tuple[int, int],
        colour: int,
        last: int,
        empty: int,
        winner: int | None,
    ) -> None:
        self.stones = stones
        self.masks = masks  # Black's stones, White's (bit i: cell i)
        self.colour = colour  # the colour to move
        self.last = last  # the last stone, -1 at the start or after a pass
        self.empty = empty
        self.winner = winner  # the colour that connected, once over


class HexAdapter(Adapter):
    """Moves are cell indices; seats map to colours through the game's swap."""

    disthex = False
    cheap_decisive = True  # two flood fills
    # On 9x9 against MoHex at equal time, 26% of 104 games beside 20% afresh, on the same
    # openings (the reply's node carries a median 31% of the root's simulations).
    keeps_trees = True

    def __init__(self, state: GameState) -> None:
        super().__init__(state)
        assert isinstance(state, HexState)
        self.board = board(state.size)
        self.swapped = int(state.swapped)
        self.bridges = _bridges(state.size)
        self.size = state.size
        # Compiled where the module was built and holds the board: Hex's playouts, and
        # the cells that complete a chain (both games').
        compiled = _compiled_playouts(state.size)
        self.compiled_playouts = None if self.disthex else compiled
        self.completing = compiled[0].completing if compiled else partial(_completing, self.board)
        self.played_moves = _played_moves(state.size, self.swapped)
        # Connections where they are cheap enough: the compiled prover's board sizes.
        self.connections = not self.disthex and hexsolve.compiled_for(state.size) is not None
        wide = state.size * state.size > 64
        refine = REFINE_VISITS_WIDE if wide else REFINE_VISITS
        self.refine_visits = refine if self.connections else None
        if wide and not self.disthex:
            self.exploration = EXPLORATION_WIDE
            self.expand_visits = EXPAND_VISITS_WIDE

    def root(self, state: GameState) -> HexPosition:
        assert isinstance(state, HexState)
        winner = None
        if state.outcome is not None:
            winner = state.colour_of(state.outcome.winners[0])
        colours = state.cell_colours
        masks = tuple(sum(1 << c for c, s in enumerate(colours) if s == k) for k in (0, 1))
        return HexPosition(
            list(colours),
            (masks[0], masks[1]),
            state.colour_to_move,
            state.last_stone,
            state.empty_count,
            winner,
        )

    def mover(self, pos: HexPosition) -> int:
        return pos.colour ^ self.swapped

    def moves(self, pos: HexPosition) -> list[int]:
        stones = pos.stones
        forbidden = self.forbidden(pos)
        return [
            cell
            for cell in self.board.sorted_cells
            if stones[cell] == EMPTY and cell not in forbidden
        ]

    def forbidden(self, pos: HexPosition) -> tuple[int, ...]:
        if not self.disthex or pos.last < 0:
            return ()
        return self.board.neighbours[pos.last]

    def play(self, pos: HexPosition, move: int) -> HexPosition:
        stones = pos.stones.copy()
        colour = pos.colour
        stones[move] = colour
        black, white = pos.masks
        masks = (black | 1 << move, white) if colour == 0 else (black, white | 1 << move)
        after = HexPosition(stones, masks, colour ^ 1, move, pos.empty - 1, None)
        if _connects(self.board, stones, move, colour):
            after.winner = colour
        elif self.disthex and after.empty <= 6:
            neighbours = self.board.neighbours[move]
            if all(stones[c] != EMPTY or c in neighbours for c in range(len(stones))):
                after.colour, after.last = colour, -1  # the opponent is stuck: a pass
        return after

    def result(self, pos: HexPosition) -> Rewards | None:
        if pos.winner is None:
            return None
        seat = pos.winner ^ self.swapped
        return (1.0, 0.0) if seat == 0 else (0.0, 1.0)

    def winner(self, pos: HexPosition) -> int | None:
        return None if pos.winner is None else pos.winner ^ self.swapped

    def key(self, pos: HexPosition) -> Hashable:
        return (tuple(pos.stones), pos.colour, pos.last if self.disthex else 0)

    def text(self, pos: HexPosition, move: int) -> str:
        return self.board.labels[move]

    def small(self, pos: HexPosition) -> bool:
        return pos.empty <= (SMALL_COMPILED if self.connections else SMALL)

    def book(self, pos: HexPosition) -> tuple[int, int | None] | None:
        if self.disthex:
            return None  # Disthex's book would be a game of its own
        known = hexbook.settled(self.size, *pos.masks, pos.colour)
        return None if known is None else (known[0] ^ self.swapped, known[1])

    # -- knowledge ------------------------------------------------------------------

    def decisive(self, pos: HexPosition, moves: list[Any]) -> list[Any]:
        winning = self.completing(pos.stones, pos.colour)
        return [m for m in moves if m in winning]

    def candidates(self, pos: HexPosition, moves: list[int]) -> list[int]:
        winning = self.decisive(pos, moves)
        if winning:
            return winning
        threats = self.completing(pos.stones, pos.colour ^ 1)
        if not threats:
            return moves
        if self.disthex:
            # A stone next to a joining cell closes it too: the opponent may not play there next.
            neighbours = self.board.neighbours
            closing = [m for m in moves if all(t == m or t in neighbours[m] for t in threats)]
            return closing or moves
        return [m for m in moves if m in threats] or moves

    def refine(self, pos: HexPosition, moves: list[int]) -> tuple[int | None, list[int]]:
        """Connections: the seat they prove wins, or the moves in the must-play region
        (any other loses) less the filled-in cells (a stone there is no better than
        a pass). Asked only where `connections` (refine_visits is None elsewhere)."""
        own, other = pos.masks if pos.colour == 0 else pos.masks[::-1]
        value, must_play, own_filled, other_filled = hexsolve.evaluate(
            self.size, own, other, pos.colour, self.deadline
        )
        if value is not None:
            mover = pos.colour ^ self.swapped
            return (mover if value else mover ^ 1), moves
        worth = must_play & ~(own_filled | other_filled)
        return None, [m for m in moves if worth >> m & 1] or moves

    def playout(
        self, pos: HexPosition, rng: random.Random
    ) -> tuple[Rewards, list[tuple[int, Any]]]:
        return self._fill(pos, rng, bridged=True)

    def random_playout(
        self, pos: HexPosition, rng: random.Random
    ) -> tuple[Rewards, list[tuple[int, Any]]]:
        return self._fill(pos, rng, bridged=False)

    def _fill(
        self, pos: HexPosition, rng: random.Random, *, bridged: bool
    ) -> tuple[Rewards, list[tuple[int, Any]]]:
        """Fill the board (saving bridges where `bridged`); the rewards and who played
        each filled cell, by cell."""
        compiled = self.compiled_playouts
        if compiled is not None:
            seed = rng.getrandbits(64)
            black_won, played = compiled[bridged].run(
                pos.stones, pos.colour, seed, self.played_moves
            )
        else:
            stones = pos.stones.copy()
            if self.disthex:
                _fill_disthex(self.board, stones, pos.colour, pos.last, rng)
            else:
                bridges = self.bridges if bridged else _no_bridges(self.size)
                _fill_hex(stones, pos.colour, bridges, rng)
            black_won = _full_board_black_wins(self.board, stones)
            by_colour = self.played_moves
            played = [
                by_colour[stones[cell]][cell]
                for cell, stone in enumerate(pos.stones)
                if stone == EMPTY
            ]
        winner_seat = self.swapped ^ (not black_won)
        return ((1.0, 0.0) if winner_seat == 0 else (0.0, 1.0)), played


class DisthexAdapter(HexAdapter):
    disthex = True
    keeps_trees = False  # measured on Hex only


def hex_adapter(state: GameState) -> Adapter:
    assert isinstance(state, HexState)
    if state.options["swap"] and state.ply <= 1 and state.outcome is None:
        return Adapter(state)  # the swap decision: the engine's own rules
    return DisthexAdapter(state) if isinstance(state, DisthexState) else HexAdapter(state)


# -- board knowledge -------------------------------------------------------------------


def _connects(geometry: Any, stones: list[int], cell: int, colour: int) -> bool:
    """Whether the group of the stone just placed on `cell` joins its colour's edges."""
    edge_bits, neighbours = geometry.edge_bits[colour], geometry.neighbours
    seen = {cell}
    stack = [cell]
    bits = 0
    while stack:
        current = stack.pop()
        bits |= edge_bits[current]
        if bits == BOTH_EDGES:
            return True
        for other in neighbours[current]:
            if other not in seen and stones[other] == colour:
                seen.add(other)
                stack.append(other)
    return False


def _completing(geometry: Any, stones: list[int], colour: int) -> set[int]:
    """The empty cells where a stone of `colour` would join its two edges."""
    neighbours = geometry.neighbours
    reach = []
    for edge_cells in _edge_cells(geometry.size)[colour]:
        # Empty cells touching the edge, or touching a group that touches it.
        touching = {c for c in edge_cells if stones[c] == EMPTY}
        seen = {c for c in edge_cells if stones[c] == colour}
        stack = list(seen)
        while stack:
            current = stack.pop()
            for other in neighbours[current]:
                state = stones[other]
                if state == colour and other not in seen:
                    seen.add(other)
                    stack.append(other)
                elif state == EMPTY:
                    touching.add(other)
        reach.append(touching)
    return reach[0] & reach[1]


@cache
def _edge_cells(size: int) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """Per colour, the cells on its first edge and those on its second."""
    edge_bits = board(size).edge_bits
    return tuple(
        tuple(
            tuple(c for c in range(size * size) if edge_bits[colour][c] & edge) for edge in (1, 2)
        )
        for colour in (0, 1)
    )


@cache
def _played_moves(size: int, swapped: int) -> tuple[tuple[tuple[int, int], ...], ...]:
    """Per colour, per cell: (seat, cell), a playout's record of a stone there."""
    return tuple(
        tuple((colour ^ swapped, cell) for cell in range(size * size)) for colour in (0, 1)
    )


def _compiled_playouts(size: int) -> tuple[Any, Any] | None:
    """The compiled playouts of this board (random, bridge-saving), where the module
    was built and holds the size."""
    if _compiled is None or size > _compiled.MAX_SIZE:
        return None
    return _playouts(_compiled, size)


@cache
def _playouts(module: ModuleType, size: int) -> tuple[Any, Any]:
    neighbours = board(size).neighbours
    return (
        module.Playout(size, neighbours, _no_bridges(size)),
        module.Playout(size, neighbours, _bridges(size)),
    )


#: Per cell, the bridges it is a carrier of: (other carrier, stone, stone or edge).
Bridges = tuple[tuple[tuple[int, int, int], ...], ...]


@cache
def _no_bridges(size: int) -> Bridges:
    return tuple(() for _ in range(size * size))


@cache
def _bridges(size: int) -> Bridges:
    """Per cell c: (d, p, q) where c and d are the two carriers of a bridge between
    stones p and q; q = -1 - k stands for colour k's edge (p one row or column away)."""
    geometry = board(size)
    neighbours = [set(n) for n in geometry.neighbours]
    found: list[list[tuple[int, int, int]]] = [[] for _ in range(size * size)]
    cells = range(size * size)
    for p in cells:
        for q in cells:
            if q <= p or q in neighbours[p]:
                continue
            common = sorted(neighbours[p] & neighbours[q])
            if len(common) == 2:
                a, b = common
                found[a].append((b, p, q))
                found[b].append((a, p, q))
    for colour in (0, 1):
        edge_bits = geometry.edge_bits[colour]
        for p in cells:
            if edge_bits[p]:
                continue
            for edge in (1, 2):
                carriers = sorted(c for c in neighbours[p] if edge_bits[c] & edge)
                if len(carriers) == 2:
                    a, b = carriers
                    found[a].append((b, p, -1 - colour))
                    found[b].append((a, p, -1 - colour))
    return tuple(tuple(entries) for entries in found)


def _fill_hex(stones: list[int], colour: int, bridges: Bridges, rng: random.Random) -> None:
    """Fill the empty cells in a random order (_fill_hex_in_order)."""
    order = [cell for cell, stone in enumerate(stones) if stone == EMPTY]
    rng.shuffle(order)
    _fill_hex_in_order(stones, colour, bridges, order)


def _fill_hex_in_order(
    stones: list[int], colour: int, bridges: Bridges, order: Sequence[int]
) -> None:
    """Fill the empty cells in `order` (each once), alternating colours from `colour`,
    answering each intrusion into a bridge carrier in the other carrier (a cell taken
    by a reply is passed over when its turn in `order` comes)."""
    reply = -1
    position = 0
    remaining = len(order)
    while remaining:
        if reply >= 0:
            cell, reply = reply, -1
        else:
            cell = order[position]
            position += 1
            if stones[cell] != EMPTY:
                continue
        stones[cell] = colour
        remaining -= 1
        colour ^= 1
        for other, p, q in bridges[cell]:
            if (
                stones[other] == EMPTY
                and stones[p] == colour
                and (stones[q] == colour if q >= 0 else q == -1 - colour)
            ):
                reply = other
                break


def _fill_disthex(
    geometry: Any, stones: list[int], colour: int, last: int, rng: random.Random
) -> None:
    """Random legal Disthex moves until the board is full (passes when stuck)."""
    empties = [cell for cell, stone in enumerate(stones) if stone == EMPTY]
    neighbours = geometry.neighbours
    while empties:
        around = neighbours[last] if last >= 0 else ()
        allowed = [i for i, cell in enumerate(empties) if cell not in around]
        if not allowed:
            colour ^= 1  # a forced pass
            last = -1
            continue
        index = allowed[rng.randrange(len(allowed))]
        cell = empties[index]
        empties[index] = empties[-1]
        empties.pop()
        stones[cell] = colour
        colour ^= 1
        last = cell


def _full_board_black_wins(geometry: Any, stones: list[int]) -> bool:
    size = geometry.size
    neighbours = geometry.neighbours
    last_row = size * (size - 1)
    stack = [cell for cell in range(size) if stones[cell] == 0]
    seen = set(stack)
    while stack:
        cell = stack.pop()
        if cell >= last_row:
            return True
        for other in neighbours[cell]:
            if other not in seen and stones[other] == 0:
                seen.add(other)
                stack.append(other)
    return False


# -- the exact solver (Hex) --------------------------------------------------------------


def solve_hex(state: GameState, budget: Budget, asked: Asked) -> Solution | None:
    """The mover's winning cells (every one, or what `asked` says), for Hex without a
    pending swap; raises OutOfTime.

    Each cell is settled on its own (hexsolve.HexProver, one table for all), so the
    list is complete; on a board that is its own 180-degree turn a cell and its
    turned twin share the answer. The value alone with no move to try first is one
    search of the whole position, whose winning move the table then holds.
    """
    if not isinstance(state, HexState) or isinstance(state, DisthexState):
        return None
    if state.options["swap"] and state.ply <= 1:
        return None
    geo = board(state.size)
    prover = HexProver(state.size, budget)
    colour = state.colour_to_move
    mover = state.colour_of(colour)
    colours = state.cell_colours
    own = sum(1 << c for c, s in enumerate(colours) if s == colour)
    other = sum(1 << c for c, s in enumerate(colours) if s == colour ^ 1)
    last = len(colours) - 1
    symmetric = turns_into_itself(colours)
    settled: dict[int, bool] = {}

    def wins(cell: int) -> bool:
        if symmetric and last - cell in settled:
            return settled[last - cell]
        after = own | 1 << cell
        settled[cell] = connected(prover.geo, after, colour) or not prover.mover_wins(
            other, after, colour ^ 1
        )
        return settled[cell]

    empty = [cell for cell in prover.geo.order if colours[cell] == EMPTY]
    if not asked.every and asked.first is None:
        # The value alone: one search of the whole position prunes the root's moves
        # too (must-play, domination); a win leaves its move settled in the table.
        if not prover.mover_wins(own, other, colour):
            return Solution(winner=1 - mover, winning_moves=())
        empty.sort(key=lambda cell: prover.known(other, own | 1 << cell, colour ^ 1) is not False)
    won = winning(empty, geo.labels.__getitem__, wins, asked)
    return Solution(
        winner=mover if won else 1 - mover,
        winning_moves=tuple(geo.labels[cell] for cell in geo.sorted_cells if cell in won),
    )


register("hex", hex_adapter, solve_hex)
register("disthex", hex_adapter, solve_disthex)
