"""Disthex's exact solver: a depth-first search over bitboards.

Hex's connection rules do not hold in Disthex (the reply that saves a bridge
is next to the intrusion, hence forbidden), so this search uses only what the
rules give directly, all exact:
1. a mover with a legal cell that joins their two edges wins;
2. the opponent's joining cells must all be closed by the move: a stone on a
   joining cell takes it, a stone next to it forbids it for the opponent's
   next move; a move that leaves one open loses at once, so only moves that
   close them all are searched, and none left loses;
3. a mover with no legal cell passes, and the opponent moves unrestricted.
Positions are stones as bit masks (hexsolve's geometry), the colour to move
and the cells it may not take; a table keeps each settled position's value,
a position and its 180-degree turn sharing one entry (the turn keeps each
colour's edges and the adjacency), and is emptied when it outgrows its limit.
Moves are tried centre first, after the last move that won at the same number
of stones (a killer move: on 4x4 it halves the nodes).
"""

from __future__ import annotations

from engine.ai.hexsolve import flood, geometry, turn
from engine.ai.solver import SOLVERS, Budget, Solution
from engine.core import GameState
from engine.hex import DisthexState, board

#: The table is emptied past this many positions: ~150 bytes each (1.5 million held
#: 240 MB at the peak on 5x5, the process included; the limit for a search is 300 MB).
TABLE_LIMIT = 1_000_000


class DisthexSolver:
    """Settles Disthex positions; one solver keeps its table across calls."""

    def __init__(self, size: int, budget: Budget) -> None:
        self.geo = geometry(size)
        self.budget = budget
        self.table: dict[int, bool] = {}
        self.killers = [-1] * (self.geo.cells + 1)  # per number of stones

    def joining(self, own: int, colour: int, empty: int) -> int:
        """The empty cells where a stone of `colour` would join its two edges."""
        geo = self.geo
        first, second = geo.edges[colour]
        return self._touching(own, first, empty) & self._touching(own, second, empty)

    def _touching(self, own: int, edge: int, empty: int) -> int:
        """Empty cells on the edge or next to a chain of `own` that reaches it."""
        geo = self.geo
        return (geo.dilate(flood(geo, own & edge, own)) | edge) & empty

    def mover_wins(self, own: int, other: int, colour: int, forbidden: int) -> bool:
        """Whether the mover (stones `own`, of `colour`, barred from `forbidden`)
        wins against `other`; neither has joined their edges yet."""
        self.budget.tick()
        geo = self.geo
        empty = geo.full & ~(own | other)
        legal = empty & ~forbidden
        if not legal:
            return not self.mover_wins(other, own, colour ^ 1, 0)  # a forced pass
        if self.joining(own, colour, empty) & legal:
            return True
        key = self.key(own, other, colour, forbidden & empty)
        known = self.table.get(key)
        if known is not None:
            return known
        closing = legal
        threats = self.joining(other, colour ^ 1, empty)
        neighbours = geo.neighbours
        while threats and closing:
            cell = threats & -threats
            threats ^= cell
            closing &= cell | neighbours[cell.bit_length() - 1]
        wins = False
        stones = (own | other).bit_count()
        killer = self.killers[stones]
        order = (killer, *geo.order) if killer >= 0 and closing >> killer & 1 else geo.order
        for cell in order:
            if closing >> cell & 1:
                closing ^= 1 << cell  # the killer is not tried twice
                if not self.mover_wins(other, own | 1 << cell, colour ^ 1, neighbours[cell]):
                    wins = True
                    self.killers[stones] = cell
                    break
        if len(self.table) >= TABLE_LIMIT:
            self.table.clear()
        self.table[key] = wins
        return wins

    def key(self, own: int, other: int, colour: int, forbidden: int) -> int:
        """One integer for the position, the same for its 180-degree turn."""
        black, white = (own, other) if colour == 0 else (other, own)
        cells = self.geo.cells
        plain = ((black << cells | white) << cells | forbidden) << 1 | colour
        turned = (
            (turn(black, cells) << cells | turn(white, cells)) << cells | turn(forbidden, cells)
        ) << 1 | colour
        return min(plain, turned)


def solve_disthex(state: GameState, budget: Budget) -> Solution | None:
    """Every winning cell of the mover, for Disthex without a pending swap (the
    generic solver takes the swap); raises OutOfTime."""
    if not isinstance(state, DisthexState):
        return None
    if state.options["swap"] and state.ply <= 1:
        return None
    solver = DisthexSolver(state.size, budget)
    geo = solver.geo
    colour = state.colour_to_move
    colours = state.cell_colours
    own = sum(1 << c for c, s in enumerate(colours) if s == colour)
    other = sum(1 << c for c, s in enumerate(colours) if s == colour ^ 1)
    joining = solver.joining(own, colour, geo.full & ~(own | other))
    cell_of = board(state.size).cell_of
    winning = tuple(
        move
        for move in state.legal_moves()
        if joining >> cell_of[move] & 1
        or not solver.mover_wins(
            other, own | 1 << cell_of[move], colour ^ 1, geo.neighbours[cell_of[move]]
        )
    )
    mover = state.colour_of(colour)
    return Solution(winner=mover if winning else 1 - mover, winning_moves=winning)


SOLVERS["disthex"] = solve_disthex
