"""What the search needs from a game.

The search (MCTS and the exact solvers) never touches a game's rules itself: it
asks an `Adapter`. `Adapter` itself works for any game through the public
state API (`legal_moves`, a copy plus one action, `random_playout`); a game's
module of engine/ai registers it or a faster adapter built on the fast internals
its engine module exposes, with knowledge: a playout policy, decisive moves,
move pruning, an evaluation (engine/ai/registry.py).

Positions and moves are whatever the adapter chooses (a state, a bitboard, a
wire index); the search only compares moves for equality, hashes `key(pos)`
and asks for `text(pos, move)` at the end.
"""

from __future__ import annotations

import math
import random
from collections.abc import Hashable, Sequence
from typing import Any

from engine.core import GameState

#: Per-seat rewards of a finished game: 1 to the winner, shared on a shared win or draw.
Rewards = tuple[float, ...]


def rewards_of(winners: Sequence[int], players: int) -> Rewards:
    """1 split among the winners; a draw (no winner) splits it among everyone."""
    sharing = winners or range(players)
    share = 1.0 / len(sharing)
    return tuple(share if seat in sharing else 0.0 for seat in range(players))


class Adapter:
    """The generic adapter: positions are GameStates, moves are their action texts.

    Subclasses override what their game does faster or knows better. Every
    method must give the same answers as the engine's rules.
    """

    #: Whether `decisive` costs less than playing the moves (the solver then asks it
    #: at every node).
    cheap_decisive = False

    #: The search's deadline (time.monotonic), for playouts slow enough to check it
    #: themselves (they raise solver.OutOfTime); infinite under a node budget.
    deadline = math.inf

    #: After how many simulations through a node `refine` is asked of it (None: never):
    #: knowledge too dear to compute at every new node.
    refine_visits: int | None = None

    #: Simulations through a move before its position joins the tree as a node; until
    #: then they play out from the position itself (a node per simulation costs more
    #: than the playout in games whose playouts are compiled).
    expand_visits = 0

    #: UCT's exploration constant for this game, unless the search's Settings give one.
    exploration = 0.2

    #: Whether timed searches grow the last one's subtree (mcts.KeptTree) instead of
    #: starting afresh: only where the root's moves are `candidates`' and the gain was
    #: measured (Hex).
    keeps_trees = False

    #: Whether `playout` follows its game's policy (the search's Settings.policy; off
    #: for the benchmark's match against the AI before a policy, where a game has one).
    policy = True

    def __init__(self, state: GameState) -> None:
        self.players = state.players

    # -- the position ---------------------------------------------------------

    def root(self, state: GameState) -> Any:
        return state.copy()

    def mover(self, pos: Any) -> int:
        """The seat to act; only called while the game is on."""
        seat = pos.to_move
        assert seat is not None
        return int(seat)

    def moves(self, pos: Any) -> list[Any]:
        """The legal moves, in the engine's legal order."""
        return list(pos.legal_moves())

    def play(self, pos: Any, move: Any) -> Any:
        """A new position after `move` (already legal); `pos` is unchanged."""
        after = pos.copy()
        after._play_action(move)
        return after

    def result(self, pos: Any) -> Rewards | None:
        """Per-seat rewards when the game is over, else None."""
        outcome = pos.outcome
        if outcome is None:
            return None
        return rewards_of(outcome.winners, self.players)

    def winner(self, pos: Any) -> int | None:
        """The single winning seat of a finished position, or None (draw, shared win)."""
        outcome = pos.outcome
        return outcome.winners[0] if outcome is not None and len(outcome.winners) == 1 else None

    def key(self, pos: Any) -> Hashable:
        """A transposition key: equal keys mean equal futures. The record is always safe."""
        return tuple(pos.moves)

    def text(self, pos: Any, move: Any) -> str:
        return str(move)

    # -- knowledge --------------------------------------------------------------

    def small(self, pos: Any) -> bool:
        """Whether the position looks small enough for the exact solver to try first."""
        return len(self.moves(pos)) <= 8

    def book(self, pos: Any) -> tuple[int, Any | None] | None:
        """What an opening book proves of `pos`: the seat that wins and, when that is
        the mover, a winning move; None when no book settles it."""
        return None

    def candidates(self, pos: Any, moves: list[Any]) -> list[Any]:
        """The moves worth searching: a subset of `moves` (all by default).

        Pruning here must never drop every good move: only provably inferior
        ones (losing at once, or dominated).
        """
        return moves

    def root_candidates(self, pos: Any, moves: list[Any]) -> list[Any]:
        """The moves worth searching at the root: `candidates` unless a game knows a
        move choice no worse in value and better against a fallible opponent."""
        return self.candidates(pos, moves)

    def refine(self, pos: Any, moves: list[Any]) -> tuple[int | None, list[Any]]:
        """Knowledge dearer than `candidates`, asked once of a node after
        `refine_visits` simulations (of the root before the first): the seat it
        proves wins `pos` (or None), and the moves of `moves` still worth
        searching (the same provable pruning only)."""
        return None, moves

    def decisive(self, pos: Any, moves: list[Any]) -> list[Any]:
        """The moves of `moves` that win at once for the mover (checked by playing them,
        when the list is short enough to afford it)."""
        if len(moves) > 64:
            return []
        seat = self.mover(pos)
        return [m for m in moves if self.winner(self.play(pos, m)) == seat]

    def playout(self, pos: Any, rng: random.Random) -> tuple[Rewards, list[tuple[int, Any]]]:
        """Play to the end by the playout policy: the rewards and the (seat, move)
        sequence played, for AMAF. The generic one is the engine's random playout."""
        start = pos.ply
        final = pos.random_playout(rng)
        result = self.result(final)
        assert result is not None
        return result, self.seats_of_record(pos, final.moves[start:])

    def random_playout(self, pos: Any, rng: random.Random) -> tuple[Rewards, list[tuple[int, Any]]]:
        """A playout of uniformly random moves (plain UCT's), in `playout`'s form.
        Adapters whose `playout` has a policy override this."""
        return self.playout(pos, rng)

    def seats_of_record(self, pos: Any, record: Sequence[str]) -> list[tuple[int, Any]]:
        """Who played each move of a playout's record. By default turns alternate
        from the mover (true for Hot Wire and Livewire, passes included)."""
        seat, players = self.mover(pos), self.players
        return [((seat + index) % players, move) for index, move in enumerate(record)]
