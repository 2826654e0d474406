"""The AI: a move for any position of any game, an exact solver, an analysis.

Computation only: it imports the engine and nothing of the bot, and does no
I/O. The stable API:

- `best_move(state, *, seconds, seed=None, nodes=None) -> str`
- `solve(state, *, seconds, nodes=None, every=True, first=None) -> Solution | None`
- `analyse(state, *, seconds, seed=None, nodes=None) -> Analysis`
- `search_record(game, options, moves, seconds) -> Analysis`: the same from
  plain data, for a worker process.

`seconds` is wall-clock time from the call. `nodes` replaces the clock with a
budget (MCTS simulations; the solver gets `SOLVER_NODES_PER_SIMULATION` times
as many nodes), which makes a search deterministic for a given seed.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import engine
from engine.ai import hexai, hotwireai, intersectionsai, livewireai, shortcircuitai  # noqa: F401  (register)
from engine.ai.adapter import Adapter
from engine.ai.mcts import KeptTree, Search, Settings
from engine.ai.registry import SOLVERS, adapter_for
from engine.ai.solver import Asked, Budget, OutOfTime, Solution, minimax_solve
from engine.core import GameState

__all__ = [
    "Analysis",
    "RankedMove",
    "Settings",
    "Solution",
    "analyse",
    "best_move",
    "search_record",
    "solve",
]

#: With a node budget the solver may search this many nodes per MCTS simulation.
SOLVER_NODES_PER_SIMULATION = 20

#: Time kept back for ranking the root's moves after the search, per move.
READING_SECONDS_PER_MOVE = 3e-6

#: The share of the time best_move and analyse give the solver first, when the
#: position looks small enough to prove.
SOLVER_SHARE = 0.3

#: The last timed search's tree below its best move, for this thread's next search (a
#: worker plays many games: the kept node must hold the very position asked).
_kept_tree = KeptTree()


@dataclass(frozen=True, slots=True)
class RankedMove:
    move: str
    chance: float  # the mover's estimated chance of winning after it


@dataclass(frozen=True, slots=True)
class Analysis:
    """What a search found. `win_chance` has one float per seat (summing to 1);
    `best` ranks the mover's moves; `pv` is the expected line from here;
    `proven` the exact result with every winning move, when it was settled;
    `proven_winner` the seat a proof shows wins, also when the search's tree
    proved a win by one move without settling the mover's other moves (None
    when no win is proven); `from_book` that the proof is an opening book's (theory
    proven ahead of time, not found in this position's own time)."""

    win_chance: tuple[float, ...]
    best: tuple[RankedMove, ...]
    pv: tuple[str, ...]
    proven: Solution | None
    simulations: int = 0
    proven_winner: int | None = None
    from_book: bool = False


def best_move(
    state: GameState,
    *,
    seconds: float,
    seed: int | None = None,
    nodes: int | None = None,
    settings: Settings | None = None,
) -> str:
    """The text of one legal action for the seat to move, within `seconds`.

    Raises ValueError when the game is over. Short Circuit: one action; ask
    again while the same seat keeps the turn.
    """
    _check_seconds(seconds)
    if state.outcome is not None:
        raise ValueError("The game is over: there is no move to choose.")
    start = time.monotonic()
    moves = state.legal_moves()
    if len(moves) == 1:
        return moves[0]
    adapter = adapter_for(state)
    knowledge = settings is None or settings.knowledge
    if knowledge:
        root = adapter.root(state)
        known = adapter.book(root)
        if known is not None and known[1] is not None:
            return adapter.text(root, known[1])
        deadline = start + seconds * SOLVER_SHARE
        proof = _try_solve(state, adapter, root, deadline, nodes, every=False)
        if proof is not None and proof.winning_moves:
            return proof.winning_moves[0]
    search = _search(state, adapter, start + seconds, seed, nodes, settings)
    ranked = search.ranked()
    return search.adapter.text(search.root.pos, search.root.moves[ranked[0][0]])


def solve(
    state: GameState,
    *,
    seconds: float,
    nodes: int | None = None,
    every: bool = True,
    first: str | None = None,
) -> Solution | None:
    """The exact result with best play, or None when not proven within `seconds`
    (or the game has more than two players). A finished game is its own result.
    `every=False` asks for the value alone, with the first winning move found
    instead of every one; `first` is a move to try before the others (an analysis:
    the move played next, which keeps the win when the mover had one)."""
    _check_seconds(seconds)
    if state.outcome is not None:
        winners = state.outcome.winners
        return Solution(winner=winners[0] if len(winners) == 1 else None, winning_moves=())
    if state.players != 2:
        return None
    budget = Budget(time.monotonic() + seconds, nodes)
    adapter = adapter_for(state)
    booked = _book_proof(adapter, state)
    if booked is not None and (
        not booked.winning_moves  # the mover loses: no winning move to list
        or (not every and first in (None, booked.winning_moves[0]))
    ):
        return booked
    asked = Asked(every, first)
    try:
        own = SOLVERS.get(state.name)
        solution = own(state, budget, asked) if own is not None else None
        if solution is None:
            solution = minimax_solve(adapter, adapter.root(state), budget, asked)
    except OutOfTime:
        return None
    except RecursionError:
        return None  # too deep for this interpreter's stack: not proven
    return solution


def analyse(
    state: GameState,
    *,
    seconds: float,
    seed: int | None = None,
    nodes: int | None = None,
    capped: bool = False,
    solver: bool = True,
) -> Analysis:
    """Chances per seat, the mover's moves ranked, the expected line and any proof.
    `nodes` (simulations) replaces the time unless `capped`: then the search stops at
    whichever comes first (a level calibrated by simulations that must still answer
    in time on the largest boards). `solver=False`: the search alone, for a caller
    that gave the solver its time already (the tree and an opening book still prove
    what they can)."""
    _check_seconds(seconds)
    players = state.players
    if state.outcome is not None:
        winners = state.outcome.winners or tuple(range(players))
        chance = tuple(1.0 / len(winners) if s in winners else 0.0 for s in range(players))
        result = solve(state, seconds=0.0)
        winner = result.winner if result is not None else None
        return Analysis(chance, (), (), result, proven_winner=winner)
    start = time.monotonic()
    adapter = adapter_for(state)
    proof = _book_proof(adapter, state)
    from_book = proof is not None
    complete = proof is None or not proof.winning_moves  # the book holds one winning move
    if proof is None and solver:
        deadline = start + seconds * SOLVER_SHARE
        limit = None if capped else nodes
        proof, complete = _proof_for_analysis(state, adapter, deadline, limit)
    search = _search(state, adapter, start + seconds, seed, nodes, None, capped=capped)
    adapter, root = search.adapter, search.root
    ranked = [
        RankedMove(adapter.text(root.pos, root.moves[i]), chance) for i, chance in search.ranked()
    ]
    pv = tuple(adapter.text(pos, move) for pos, move in search.principal_variation())
    if proof is not None:
        chances = tuple(
            (1.0 if seat == proof.winner else 0.0) if proof.winner is not None else 1.0 / players
            for seat in range(players)
        )
        winning = set(proof.winning_moves)
        ranked = [RankedMove(m.move, 1.0) for m in ranked if m.move in winning] + [
            m for m in ranked if m.move not in winning
        ]
        if winning and (not pv or pv[0] not in winning):
            pv = (proof.winning_moves[0],)
    elif root.proven is not None:
        chances = tuple(1.0 if seat == root.proven else 0.0 for seat in range(players))
        if root.proven != root.mover:
            # Every move searched loses, and the moves not searched are no
            # better (the adapters' pruning contract): the whole answer.
            proof = Solution(winner=root.proven, winning_moves=())
    elif root.total:
        chances = tuple(total / root.total for total in root.reward_sum)
    else:
        chances = tuple(1.0 / players for _ in range(players))
    return Analysis(
        win_chance=chances,
        best=tuple(ranked),
        pv=pv,
        proven=proof if complete else None,
        simulations=search.simulations,
        proven_winner=proof.winner if proof is not None else root.proven,
        from_book=from_book,
    )


def search_record(
    game: str, options: Mapping[str, object], moves: Sequence[str], seconds: float
) -> Analysis:
    """Replay `moves` of `game` with `options` and analyse the position: all a
    worker process needs (plain data in, a picklable dataclass out)."""
    _check_seconds(seconds)
    start = time.monotonic()
    state = engine.replay(game, options, moves)
    left = max(0.0, seconds - (time.monotonic() - start))
    return analyse(state, seconds=left)


# -- helpers -----------------------------------------------------------------------


def _check_seconds(seconds: float) -> None:
    """Refuse a time no clock reaches (NaN, infinity) or a negative one."""
    if not math.isfinite(seconds) or seconds < 0:
        raise ValueError(
            f"The time to think must be a number of seconds, 0 or more, not {seconds}."
        )


def _book_proof(adapter: Adapter, state: GameState) -> Solution | None:
    """What an opening book proves of the position: the winner and, when that is the
    mover, the book's winning move (one, not every one)."""
    root = adapter.root(state)
    known = adapter.book(root)
    if known is None:
        return None
    winner, move = known
    return Solution(winner, () if move is None else (adapter.text(root, move),))


def _try_solve(
    state: GameState,
    adapter: Adapter,
    root: Any,
    deadline: float,
    nodes: int | None,
    *,
    every: bool = True,
) -> Solution | None:
    """A proof within the deadline when the position (`root`, the adapter's view of
    `state`) looks small enough to prove (`every` winning move, or the first found:
    all a move needs)."""
    if state.players != 2:
        return None
    if not adapter.small(root):
        return None
    limit = None if nodes is None else nodes * SOLVER_NODES_PER_SIMULATION
    # A move that wins at once is the one to find first.
    decisive = adapter.decisive(root, adapter.moves(root)) if adapter.cheap_decisive else []
    first = adapter.text(root, decisive[0]) if decisive else None
    seconds = max(0.0, deadline - time.monotonic())
    return solve(state, seconds=seconds, nodes=limit, every=every, first=first)


def _proof_for_analysis(
    state: GameState, adapter: Adapter, deadline: float, nodes: int | None
) -> tuple[Solution | None, bool]:
    """The value first, then in the time left every winning move, and whether the proof
    lists them all. The value alone can take a fraction of the time (Hex's prover: one
    search of the position, not one per move), and who wins is what an analysis tells."""
    root = adapter.root(state)
    value = _try_solve(state, adapter, root, deadline, nodes, every=False)
    if value is None or value.winner != state.to_move or not value.winning_moves:
        return value, True  # a loss or a draw for the mover: no winning move left out
    whole = _try_solve(state, adapter, root, deadline, nodes)
    return (value, False) if whole is None else (whole, True)


def _search(
    state: GameState,
    adapter: Adapter,
    deadline: float,
    seed: int | None,
    nodes: int | None,
    settings: Settings | None,
    *,
    capped: bool = False,
) -> Search:
    """A timed search (no `nodes`) of a game whose adapter keeps trees grows the kept
    subtree when it holds this position, and keeps the subtree of its best move; every
    other search lets the kept tree go (no search holds another's tree beside its own)."""
    rng = random.Random(seed if seed is not None or nodes is None else 0)
    root = adapter.root(state)
    keep = adapter.keeps_trees and nodes is None
    kept = _kept_tree.take(adapter, root, settings)  # the last tree let go either way
    search = Search(adapter, root, rng=rng, settings=settings, kept=kept if keep else None)
    # Reading the tree afterwards costs about a microsecond per root move.
    search.run(
        deadline=deadline - READING_SECONDS_PER_MOVE * len(search.root.moves),
        nodes=nodes,
        capped=capped,
    )
    if keep and search.root.moves:
        _kept_tree.keep(search, search.ranked()[0][0])
    return search
