"""Livewire: a race to the opponent's bases, searched with short playouts and an
evaluation of the race.

Random Livewire playouts wander: a game between random players rarely ends (a
random player closes its own bases by drawing from them, lines soon block each
other, and games end in passes after hundreds of plies), so their results say
almost nothing. Here a playout plays a few plies by a policy that lands on a
base when it can and otherwise prefers lines that go forward, then scores the
position by the race: for each player, the fewest lines its best growing point
(by where it is and what kind of dot it is) needs to land on an open base of
the opponent (the engine's `lines_to_goal`, over the board of the search's
root), the player to move half a line ahead. Landings on a base are decisive
moves. At the root, a line that threatens a landing is played whenever one
exists and nothing is pending (`root_candidates`): every threat can be
answered, so only threats can win.
"""

from __future__ import annotations

import math
import random
from typing import Any

from engine.ai.adapter import Adapter, Rewards
from engine.ai.registry import register
from engine.core import GameState
from engine.livewire import LivewireState

#: Plies a playout plays by its policy before the race is scored.
PLAYOUT_PLIES = 4

#: Moves of race difference that make a 73% (1 / (1 + e^-1)) favourite.
RACE_SCALE = 3.0

#: Policy weights per move index (straight up/down/forward, branch up/down/forward,
#: diagonal up/down): forward lines first, sideways ones still possible.
FORWARD_WEIGHTS = (1.0, 1.0, 6.0, 1.0, 1.0, 3.0, 3.0, 3.0)

#: The moves needed when every base of the opponent is closed: never.
CLOSED = 99

Line = tuple[int, int]


class LivewireAdapter(Adapter):
    cheap_decisive = True

    def __init__(self, state: GameState) -> None:
        super().__init__(state)
        assert isinstance(state, LivewireState)
        # Per seat: lines needed from each point, over the board of the search's root.
        self.distances = (state.lines_to_goal(0), state.lines_to_goal(1))

    def moves(self, pos: Any) -> list[Line]:
        assert isinstance(pos, LivewireState)
        return pos.legal_lines()

    def play(self, pos: Any, move: Line) -> Any:
        after = pos.copy()
        after.draw_line(move)
        return after

    def text(self, pos: Any, move: Line) -> str:
        return str(pos.move_text(move))

    def root_candidates(self, pos: Any, moves: list[Line]) -> list[Line]:
        """When neither side can land now, the lines that make a threat, if any.

        Every threat can be answered (`can_land`), so a defender who answers them
        all never loses and a tip parked near a base is worth nothing against it;
        a threat costs its tip, which is then worth no less. Against a defender
        who may miss the answer only threats win, and a search that sees every
        answer would otherwise park its tip for good. Threats are made only
        when no threat of the opponent's is pending (the search answers those)."""
        seat = pos.ply % 2
        if pos.can_land(seat) or pos.can_land(1 - seat):
            return moves
        threats = [line for line in moves if self.play(pos, line).can_land(seat)]
        return threats or moves

    def decisive(self, pos: Any, moves: list[Any]) -> list[Any]:
        return list(pos.base_landings(moves))

    def playout(self, pos: Any, rng: random.Random) -> tuple[Rewards, list[tuple[int, Any]]]:
        state = pos.copy()
        played: list[tuple[int, Any]] = []
        for _ in range(PLAYOUT_PLIES):
            if state.outcome is not None:
                break
            line = state.landing_line() or state.random_line(rng, FORWARD_WEIGHTS)
            played.append((state.ply % 2, line))
            state.draw_line(line)
        result = self.result(state)
        return (result if result is not None else self.race(state)), played

    def race(self, state: LivewireState) -> Rewards:
        """Each seat's chance by the race to the far edge (see the module doc)."""
        tempo = 0.5 if state.ply % 2 == 0 else -0.5  # the mover is half a move ahead
        ahead = self.moves_needed(state, 1) - self.moves_needed(state, 0) + tempo
        first = 1.0 / (1.0 + math.exp(-ahead / RACE_SCALE))
        return (first, 1.0 - first)

    def moves_needed(self, state: LivewireState, seat: int) -> int:
        """About how many moves `seat`'s best growing point needs to land on a base,
        by the distances over the root's board (lines drawn since are not seen)."""
        distances = self.distances[seat]
        return min(
            (distances.get(dot, CLOSED) for dot in state.growing_points(seat)), default=CLOSED
        )


register("livewire", LivewireAdapter)
