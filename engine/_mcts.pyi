"""The search's inner loops compiled: engine/ai/mcts.py's selection, and of its back-up
the sets of moves a playout played and the AMAF update."""

from collections.abc import Hashable, Set
from typing import Any

def select(
    children: list[Any],
    visits: list[int],
    wins: list[float],
    rave_visits: list[int],
    rave_wins: list[float],
    mover: int,
    log_total: float,
    exploration: float,
    equivalence: float,
) -> int: ...
def amaf(
    index: dict[Any, int],
    played: Set[Hashable],
    rave_visits: list[int],
    rave_wins: list[float],
    reward: float,
) -> None: ...
def later(tail: list[tuple[int, Any]], players: int) -> list[set[Any]]: ...
