"""Disthex's exact solver: depth-first proof-number search over bitboards.

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
and the cells it may not take. The search is df-pn (Nagai): proof-number
search, which always works on the position cheapest to settle the root, run
depth first with thresholds, so that only a table of proof and disproof
numbers is kept, not a tree; a position and its 180-degree turn (the turn
keeps each colour's edges and the adjacency) share one entry. A new position
starts with the disproof number of its moves (to refute a position, every
move must be refuted). Past its limit the table keeps only settled positions.
On 5x5 this settles positions with four stones in seconds where a plain
depth-first search with a table did not in a minute (docs/PERFORMANCE.md).
"""

from __future__ import annotations

from engine.ai.hexconnections import flood, geometry
from engine.ai.hexsolve import INFINITE, turn, turns_into_itself
from engine.ai.solver import Asked, Budget, Solution, winning
from engine.core import GameState
from engine.hex import DisthexState, board

#: The table keeps only settled positions past this many: ~200 bytes each (a 5x5
#: opening searched with the table full peaked at 215 MB, the process included;
#: the limit for a search is 300 MB).
TABLE_LIMIT = 1_000_000

#: The 1 + epsilon trick (Pawlewicz and Lew): a child is searched until its
#: disproof number passes the runner-up's by this fraction, not by one.
EPSILON = 0.25

#: The numbers of a position whose first numbers were dropped with the table.
UNKNOWN = (1, 1)

#: Stones of the mover and of the opponent, the mover's colour, the cells it may not take.
Position = tuple[int, int, int, int]


class DisthexSolver:
    """Settles Disthex positions; one solver keeps its table across calls."""

    def __init__(self, size: int, budget: Budget, table_limit: int) -> None:
        self.geo = geometry(size)
        self.budget = budget
        self.table: dict[int, tuple[int, int]] = {}  # key -> (proof, disproof) numbers
        self.table_limit = table_limit

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
        position = (own, other, colour, forbidden)
        proof, _ = self._search(position, self.key(*position), INFINITE, INFINITE)
        return proof == 0

    def _moves(self, own: int, other: int, colour: int, forbidden: int) -> list[Position] | bool:
        """The positions after the moves worth searching, or the value when the
        rules settle it: True, the mover joins at once; False, a threat stays open."""
        geo = self.geo
        empty = geo.full & ~(own | other)
        legal = empty & ~forbidden
        if not legal:
            return [(other, own, colour ^ 1, 0)]  # a forced pass
        if self.joining(own, colour, empty) & legal:
            return True
        closing = legal
        threats = self.joining(other, colour ^ 1, empty)
        neighbours = geo.neighbours
        while threats and closing:
            cell = threats & -threats
            threats ^= cell
            closing &= cell | neighbours[cell.bit_length() - 1]
        if not closing:
            return False
        return [
            (other, own | 1 << cell, colour ^ 1, neighbours[cell])
            for cell in geo.order
            if closing >> cell & 1
        ]

    def _search(
        self, position: Position, key: int, proof_limit: int, disproof_limit: int
    ) -> tuple[int, int]:
        """Depth-first proof-number search below `position` until its proof number
        reaches `proof_limit` or its disproof number `disproof_limit` (0 proves the
        mover wins or loses); returns the two numbers, also kept in the table."""
        self.budget.tick()
        children = self._moves(*position)
        if isinstance(children, bool):
            numbers = _first_numbers(children)
            self._keep(key, numbers)
            return numbers
        keys = [self.key(*child) for child in children]
        table = self.table
        for child, child_key in zip(children, keys, strict=True):
            if child_key not in table:
                self.budget.check()  # 361 children of ~0.1 ms each on 19x19
                self._keep(child_key, _first_numbers(self._moves(*child)))
        while True:
            # The mover wins if some child's mover loses: proof = the least child
            # disproof, disproof = the sum of the children's proofs.
            disproof = 0
            best = second = INFINITE
            chosen = 0
            chosen_proof = 1
            for index, child_key in enumerate(keys):
                child_proof, child_disproof = table.get(child_key, UNKNOWN)
                disproof += child_proof
                if child_disproof < best:
                    second, best = best, child_disproof
                    chosen, chosen_proof = index, child_proof
                elif child_disproof < second:
                    second = child_disproof
            proof = best
            disproof = min(disproof, INFINITE)
            if proof >= proof_limit or disproof >= disproof_limit:
                self._keep(key, (proof, disproof))
                return proof, disproof
            # The 1 + epsilon trick: stay longer in the chosen child before switching.
            self._search(
                children[chosen],
                keys[chosen],
                disproof_limit - disproof + chosen_proof,
                min(proof_limit, int(second * (1 + EPSILON)) + 1),
            )

    def _keep(self, key: int, numbers: tuple[int, int]) -> None:
        table = self.table
        if len(table) >= self.table_limit:
            # Keep what is settled; the numbers of unsettled positions are only guides.
            for unsettled in [k for k, v in table.items() if 0 not in v]:
                del table[unsettled]
            if len(table) >= self.table_limit // 2:
                table.clear()
        table[key] = numbers

    def key(self, own: int, other: int, colour: int, forbidden: int) -> int:
        """One integer for the position, the same for its 180-degree turn."""
        black, white = (own, other) if colour == 0 else (other, own)
        cells = self.geo.cells
        forbidden &= self.geo.full & ~(own | other)
        # Turning the masks laid out the other way round turns each and restores the order.
        plain = (black << cells | white) << cells | forbidden
        turned = turn((forbidden << cells | white) << cells | black, 3 * cells)
        return min(plain, turned) << 1 | colour


def _first_numbers(moves: list[Position] | bool) -> tuple[int, int]:
    """The proof and disproof numbers of a position seen for the first time: settled
    when the rules settle it, else one move may prove it and every move must be refuted."""
    if isinstance(moves, bool):
        return (0, INFINITE) if moves else (INFINITE, 0)
    return 1, len(moves)


def solve_disthex(state: GameState, budget: Budget, asked: Asked) -> Solution | None:
    """The mover's winning cells (every one, or what `asked` says), for Disthex without
    a pending swap (the generic solver takes the swap); raises OutOfTime. On a board
    that is its own 180-degree turn a legal cell and its turned twin, when legal too,
    share the answer: the positions after them are turns of each other, forbidden
    cells included (whatever the mover may not take now does not matter after the
    move)."""
    if not isinstance(state, DisthexState):
        return None
    if state.options["swap"] and state.ply <= 1:
        return None
    solver = DisthexSolver(state.size, budget, TABLE_LIMIT)
    geo = solver.geo
    colour = state.colour_to_move
    colours = state.cell_colours
    own = sum(1 << c for c, s in enumerate(colours) if s == colour)
    other = sum(1 << c for c, s in enumerate(colours) if s == colour ^ 1)
    joining = solver.joining(own, colour, geo.full & ~(own | other))
    last = len(colours) - 1
    symmetric = turns_into_itself(colours)
    cell_of = board(state.size).cell_of
    settled: dict[int, bool] = {}

    def wins(move: str) -> bool:
        cell = cell_of[move]
        if symmetric and last - cell in settled:
            return settled[last - cell]
        settled[cell] = bool(joining >> cell & 1) or not solver.mover_wins(
            other, own | 1 << cell, colour ^ 1, geo.neighbours[cell]
        )
        return settled[cell]

    legal = state.legal_moves()
    won = winning(legal, str, wins, asked)
    mover = state.colour_of(colour)
    return Solution(
        winner=mover if won else 1 - mover,
        winning_moves=tuple(move for move in legal if move in won),
    )
