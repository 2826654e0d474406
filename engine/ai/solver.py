"""Exact solving: minimax with alpha-beta and a transposition table, for any
two-player game through its adapter (games register their own solvers with their
adapters: engine/ai/registry.py).

Values are from seat 0's side: 1 seat 0 wins, -1 seat 1 wins, 0 a draw (or a
shared win). The search stops with `OutOfTime` at the deadline or the node
limit; nothing is proven then.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from engine.ai.adapter import Adapter


@dataclass(frozen=True, slots=True)
class Solution:
    """The exact result with best play from a position.

    `winner` is the seat that wins (None: a draw); `winning_moves` every move
    that keeps the win for the seat to move, in the legal order (empty when
    the mover cannot win).
    """

    winner: int | None
    winning_moves: tuple[str, ...]


class OutOfTime(Exception):
    """The solver's deadline or node limit passed."""


class Budget:
    """A deadline (time.monotonic) or a node limit, checked at every node."""

    def __init__(self, deadline: float, node_limit: int | None = None) -> None:
        self.deadline = deadline
        self.node_limit = node_limit
        self.nodes = 0

    def tick(self) -> None:
        self.nodes += 1
        if self.node_limit is not None:
            if self.nodes > self.node_limit:
                raise OutOfTime
        elif time.monotonic() >= self.deadline:  # a Hex node can take milliseconds
            raise OutOfTime

    def check(self) -> None:
        """Raise OutOfTime past the deadline, within a step that can take long."""
        if self.node_limit is None and time.monotonic() >= self.deadline:
            raise OutOfTime


@dataclass(frozen=True, slots=True)
class Asked:
    """What a caller wants of a solver besides the position and the budget."""

    every: bool = True  # every winning move; False: the value and the first winning move
    first: str | None = None  # a move to try before the others (an analysis: the one played)


Move = TypeVar("Move")


def winning(
    moves: Sequence[Move], text: Callable[[Move], str], wins: Callable[[Move], bool], asked: Asked
) -> set[Move]:
    """The mover's winning moves among `moves` (tried in their order, `asked.first`
    before the rest): every one, or the first found when `asked.every` is False. A
    mover who wins with the move it played is proven so by that move alone."""
    order = sorted(moves, key=lambda move: text(move) != asked.first) if asked.first else moves
    found = set()
    for move in order:
        if wins(move):
            found.add(move)
            if not asked.every:
                break
    return found


_EXACT, _LOWER, _UPPER = 0, 1, 2


def minimax_solve(adapter: Adapter, pos: Any, budget: Budget, asked: Asked) -> Solution:
    """The root moves' exact values by alpha-beta over the adapter (every winning
    move, or what `asked` says); raises OutOfTime."""
    table: dict[Hashable, tuple[int, int]] = {}

    def value(pos: Any, alpha: int, beta: int) -> int:
        budget.tick()
        if adapter.result(pos) is not None:
            return _value_of(adapter.winner(pos))
        key = adapter.key(pos)
        known = table.get(key)
        if known is not None:
            score, flag = known
            if flag == _EXACT:
                return score
            if flag == _LOWER and score >= beta:
                return score
            if flag == _UPPER and score <= alpha:
                return score
        low, high = alpha, beta
        maximising = adapter.mover(pos) == 0
        best = -2 if maximising else 2
        moves = adapter.moves(pos)
        if adapter.cheap_decisive:
            moves = adapter.decisive(pos, moves) or moves  # a win at once is the value
        for move in moves:
            score = value(adapter.play(pos, move), alpha, beta)
            if maximising:
                best = max(best, score)
                alpha = max(alpha, score)
            else:
                best = min(best, score)
                beta = min(beta, score)
            if alpha >= beta:
                break
        flag = _EXACT
        if best <= low:
            flag = _UPPER
        elif best >= high:
            flag = _LOWER
        table[key] = (best, flag)
        return best

    mover = adapter.mover(pos)
    sign = 1 if mover == 0 else -1
    moves = adapter.moves(pos)
    values: dict[Any, int] = {}

    def wins(move: Any) -> bool:
        values[move] = sign * value(adapter.play(pos, move), -2, 2)
        return values[move] == 1

    won = winning(moves, lambda move: adapter.text(pos, move), wins, asked)
    best = max(values.values())
    texts = tuple(adapter.text(pos, move) for move in moves if move in won)
    return Solution(winner=_winner_of(best * sign), winning_moves=texts)


def _value_of(winner: int | None) -> int:
    if winner is None:
        return 0
    return 1 if winner == 0 else -1


def _winner_of(value: int) -> int | None:
    return None if value == 0 else 0 if value > 0 else 1
