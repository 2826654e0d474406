"""Adapters for the games searched through the generic state API: what each
needs beyond it is who played each move of a playout (for AMAF) and a
transposition key for the solver."""

from __future__ import annotations

import random
from collections.abc import Hashable, Sequence
from typing import Any

from engine.ai.adapter import Adapter, Rewards, register
from engine.intersections import IntersectionsState
from engine.notation import sort_key
from engine.shortcircuit import ShortCircuitState


@register("intersections")
class IntersectionsAdapter(Adapter):
    """Seat of ply k: the round's offense rotates, so it is (round + drawn) mod players."""

    def seats_of_record(self, pos: Any, record: Sequence[str]) -> list[tuple[int, Any]]:
        per_round, players = pos.segments_per_round, self.players
        start = pos.ply
        return [
            ((ply // per_round + ply % per_round) % players, move)
            for ply, move in enumerate(record, start=start)
        ]

    def key(self, pos: Any) -> Hashable:
        assert isinstance(pos, IntersectionsState)
        # Within a round only the set drawn matters (degrees, crossings, the mover).
        return (len(pos._finished), tuple(pos._totals), frozenset(pos._drawn))


@register("shortcircuit")
class ShortCircuitAdapter(Adapter):
    """Moves are the engine's action tuples (no text to parse in the tree or playouts)."""

    def moves(self, pos: Any) -> list[Any]:
        assert isinstance(pos, ShortCircuitState)
        return sorted(pos._actions(), key=lambda action: sort_key(pos._action_text(action)))

    def play(self, pos: Any, move: Any) -> Any:
        after = pos.copy()
        after._apply(move)
        return after

    def text(self, pos: Any, move: Any) -> str:
        return str(pos._action_text(move))

    def key(self, pos: Any) -> Hashable:
        assert isinstance(pos, ShortCircuitState)
        return (
            tuple(pos._colours),
            pos._caps,
            tuple(pos._caps_left),
            pos._mover,
            pos._turns,
            pos._passes,
            pos._popped,
        )

    def playout(self, pos: Any, rng: random.Random) -> tuple[Rewards, list[tuple[int, Any]]]:
        state = pos.copy()
        played: list[tuple[int, Any]] = []
        while state.outcome is None:
            action = rng.choice(state._actions())
            played.append((state._mover, action))
            state._apply(action)
        result = self.result(state)
        assert result is not None
        return result, played
