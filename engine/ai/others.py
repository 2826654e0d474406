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
        return pos.position_key()


@register("shortcircuit")
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
        state = pos.copy()
        played: list[tuple[int, Any]] = []
        while state.outcome is None:
            action = rng.choice(state.actions())
            played.append((state.to_move, action))
            state.apply(action)
        result = self.result(state)
        assert result is not None
        return result, played
