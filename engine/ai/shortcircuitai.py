"""Short Circuit: an adapter over the engine's actions (no move text in the tree), its
playouts on the engine's bare bitboards (`RandomPlayout`: random actions, a loop taken
when one can be closed), with a transposition key for the solver."""

from __future__ import annotations

import random
import time
from collections.abc import Hashable
from typing import Any

from engine.ai.adapter import Adapter, Rewards, rewards_of
from engine.ai.registry import register
from engine.ai.solver import OutOfTime
from engine.notation import sort_key
from engine.shortcircuit import ShortCircuitState
from engine.shortcircuitplayout import RandomPlayout


class ShortCircuitAdapter(Adapter):
    """Moves are the engine's actions (no text to parse in the tree or playouts)."""

    def moves(self, pos: Any) -> list[Any]:
        assert isinstance(pos, ShortCircuitState)
        return sorted(pos.actions(), key=lambda action: sort_key(pos.action_text(action)))

    def play(self, pos: Any, move: Any) -> Any:
        after = pos.copy()
        after.apply(move)
        return after

    def text(self, pos: Any, move: Any) -> str:
        return str(pos.action_text(move))

    def key(self, pos: Any) -> Hashable:
        assert isinstance(pos, ShortCircuitState)
        return pos.position_key()

    def playout(self, pos: Any, rng: random.Random) -> tuple[Rewards, list[tuple[int, Any]]]:
        """Random legal actions to the end, a loop closed whenever the mover can."""
        return self._played_out(RandomPlayout(pos, take_wins=True), rng)

    def random_playout(self, pos: Any, rng: random.Random) -> tuple[Rewards, list[tuple[int, Any]]]:
        """Uniformly random legal actions to the end (plain UCT's)."""
        return self._played_out(RandomPlayout(pos, take_wins=False), rng)

    def _played_out(
        self, board: RandomPlayout, rng: random.Random
    ) -> tuple[Rewards, list[tuple[int, Any]]]:
        # a game of max_turns=9999 plays out for a while: the search's deadline holds
        while not board.run(rng, 256):
            if time.monotonic() > self.deadline:
                raise OutOfTime
        return rewards_of(board.winners, self.players), board.played


register("shortcircuit", ShortCircuitAdapter)
