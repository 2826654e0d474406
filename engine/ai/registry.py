"""The registry of each game's AI: the adapter the search reads its positions through,
and the game's own exact solver when it has one. Each game's module of engine/ai calls
`register` last, as engine modules call `engine.registry.register`.
"""

from __future__ import annotations

from collections.abc import Callable

from engine.ai.adapter import Adapter
from engine.ai.solver import Asked, Budget, Solution
from engine.core import GameState

#: Makes the adapter for a position: an Adapter class, or a function choosing one.
AdapterFactory = Callable[[GameState], Adapter]
#: A game's own exact solver: a state, a budget and what is asked -> the solution, or
#: None when it does not take the position (engine/ai/solver.py).
Solver = Callable[[GameState, Budget, Asked], Solution | None]

#: Game name -> the adapter for its positions; every game registers one.
ADAPTERS: dict[str, AdapterFactory] = {}
#: Game name -> its own solver, for the games that have one; the others are solved by
#: `minimax_solve` over their adapter.
SOLVERS: dict[str, Solver] = {}


def register(game: str, adapter: AdapterFactory, solver: Solver | None = None) -> None:
    """Add a game's AI: its adapter (`Adapter` itself for a game searched through the
    public state API alone) and its own solver, if it has one. Each game's module of
    engine/ai calls this last, as engine modules call `engine.registry.register`. A
    duplicate name raises."""
    if game in ADAPTERS:
        raise ValueError(f"the AI of a game named {game!r} is already registered")
    ADAPTERS[game] = adapter
    if solver is not None:
        SOLVERS[game] = solver


def adapter_for(state: GameState) -> Adapter:
    """The adapter for this position: its game's registered one."""
    return ADAPTERS[state.name](state)
