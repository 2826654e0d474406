"""Making Intersections: an adapter whose playouts finish the round by a greedy offense
and score it by the standings, and which knows whose segment each ply of a round is."""

from __future__ import annotations

import functools
import math
import random
import statistics
from collections.abc import Hashable, Sequence
from typing import Any

from engine.ai.adapter import Adapter, Rewards
from engine.ai.registry import register
from engine.core import GameState, OptionValue
from engine.intersections import IntersectionsState

#: Segments drawn in all when sampling the points a playout round scores on average:
#: 64 rounds of 12 on 6x6 (about 6 points with 3 players), fewer but longer rounds on
#: big arrays, so the sample costs ~15 ms however large the options (it is kept per
#: options for the process).
SAMPLE_SEGMENTS = 768

#: Points of lead that make a seat e (2.7) times as likely to win as another.
STANDINGS_SCALE = 2.0

#: With three or more players, the part of a finished game's reward that goes by
#: the final totals (their softmax, as `standings`) rather than by the win alone:
#: a seat whose chances look slim still plays for points, and a defender who
#: cannot win on its own still holds the offense down (in a last round where the AI
#: needed the offense held to 6, plain UCT's offense scored 7.6 points against it on
#: the win alone and 5.0 with this; 16 games each).
MARGIN_WEIGHT = 0.3

#: Random legal segments the offense looks at in a playout before drawing the one
#: that scores most now (the AI's points a round as offense against plain UCT, 20
#: rounds each: 6.8 with 4 or 8, 6.35 with 16).
PLAYOUT_TRIES = 4


class IntersectionsAdapter(Adapter):
    """Seat of ply k: the round's offense rotates, so it is (round + drawn) mod players."""

    def seats_of_record(self, pos: Any, record: Sequence[str]) -> list[tuple[int, Any]]:
        per_round, players = pos.segments_per_round, self.players
        start = pos.ply
        return [
            ((ply // per_round + ply % per_round) % players, move)
            for ply, move in enumerate(record, start=start)
        ]

    def __init__(self, state: GameState) -> None:
        super().__init__(state)
        assert isinstance(state, IntersectionsState)
        self.round_points = round_average(tuple(sorted(state.options.items())))

    def key(self, pos: Any) -> Hashable:
        assert isinstance(pos, IntersectionsState)
        return pos.position_key()

    def result(self, pos: Any) -> Rewards | None:
        """The win shares, blended with the final totals' standings (MARGIN_WEIGHT)
        when three or more play; two-player games keep exact rewards (the tree proves
        wins and losses there)."""
        shares = super().result(pos)
        if shares is None or self.players < 3:
            return shares
        margins = self.standings(pos)
        return tuple(
            (1 - MARGIN_WEIGHT) * share + MARGIN_WEIGHT * margin
            for share, margin in zip(shares, margins, strict=True)
        )

    def playout(self, pos: Any, rng: random.Random) -> tuple[Rewards, list[tuple[int, Any]]]:
        """The policy's segments to the end of the round only, scored by the standings it
        leaves (see `standings`): later rounds are independent of this one, so
        playing them out at random would only add noise."""
        start = pos.ply
        final = policy_round(pos, rng)
        rewards = self.result(final) or self.standings(final)
        return rewards, self.seats_of_record(pos, final.moves[start:])

    def random_playout(self, pos: Any, rng: random.Random) -> tuple[Rewards, list[tuple[int, Any]]]:
        return super().playout(pos, rng)

    def standings(self, state: IntersectionsState) -> Rewards:
        """Each seat's share of the win between rounds: a softmax of its points so far
        plus the points a playout round scores on average for each of its offense
        rounds still to come (the offense goes round the table in seat order)."""
        players, done = self.players, len(state.round_points)
        projected = [float(total) for total in state.scores]
        for later in range(done, state.rounds):
            projected[later % players] += self.round_points
        top = max(projected)
        weights = [math.exp((value - top) / STANDINGS_SCALE) for value in projected]
        whole = sum(weights)
        return tuple(weight / whole for weight in weights[:players])


def policy_round(pos: IntersectionsState, rng: random.Random) -> IntersectionsState:
    """A copy with the round finished by the playout policy: the offense looks at
    PLAYOUT_TRIES random legal candidates and draws the one that takes most dots to
    degree 3 or 4 now; the defenders draw at random."""
    state = pos.copy()
    offense, current = state.offense, state.round
    while state.outcome is None and state.round == current:
        if state.to_move == offense:
            tries = [state.random_segment(rng) for _ in range(PLAYOUT_TRIES)]
            state.draw_segment(max(tries, key=state.segment_gain))
        else:
            state.draw_segment(state.random_segment(rng))
    return state


@functools.cache
def round_average(options: tuple[tuple[str, OptionValue], ...]) -> float:
    """The points the offense scores in a playout round on an empty array, on average
    over SAMPLE_SEGMENTS segments' worth of rounds (a fixed seed: the same each time)."""
    empty = IntersectionsState(dict(options))
    rng = random.Random(0)
    rounds = max(4, SAMPLE_SEGMENTS // empty.segments_per_round)
    return statistics.fmean(policy_round(empty, rng).scores[0] for _ in range(rounds))


register("intersections", IntersectionsAdapter)
