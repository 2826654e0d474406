"""Engine benchmark: random playouts per second and legal-move-list time per game.

For Hex 7x7 it also drives OpenSpiel's C++ Hex through pyspiel the same way
(random legal action until terminal) in the same run, interleaving rounds so
both see the same machine load, and prints the ratio of medians last:

    hex7 playouts vs openspiel: <ratio>x

Run: .venv/bin/python -m bench.engine [--rounds N]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

import engine
from engine import GameState

#: (label, game, options, playouts per round)
CASES: list[tuple[str, str, dict[str, object], int]] = [
    ("hotwire 7x7", "hotwire", {}, 200),
    ("hex 7x7", "hex", {"size": 7, "swap": "off"}, 500),
    ("hex 11x11", "hex", {}, 200),
    ("disthex 7x7", "disthex", {}, 300),
    ("shortcircuit s5", "shortcircuit", {}, 5),
    ("livewire 42x34", "livewire", {}, 5),
    ("intersections 6x6 2p", "intersections", {}, 100),
]


def time_per_call(action: Callable[[], object], calls: int) -> float:
    """Seconds per call of `action`, over `calls` calls."""
    start = time.perf_counter()
    for _ in range(calls):
        action()
    return (time.perf_counter() - start) / calls


def sample_positions(start: GameState, rng: random.Random, count: int) -> list[GameState]:
    """Positions met along random games, for timing legal_moves()."""
    positions: list[GameState] = []
    while len(positions) < count:
        final = start.random_playout(rng)
        plies = sorted(rng.sample(range(final.ply), min(final.ply, 5)))
        positions.extend(engine.replay(final.name, final.options, final.moves[:p]) for p in plies)
    return positions[:count]


def openspiel_playout(game: object, rng: random.Random) -> None:
    state = game.new_initial_state()  # type: ignore[attr-defined]
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7, help="timing rounds (median taken)")
    args = parser.parse_args()
    rng = random.Random(2026)

    print(f"{'game':<22} {'playouts/s':>11} {'ms/playout':>11} {'legal_moves µs':>15}")
    for label, name, options, per_round in CASES:
        start = engine.new(name, **options)
        seconds = [
            time_per_call(lambda s=start: s.random_playout(rng), per_round)  # type: ignore[misc]
            for _ in range(args.rounds)
        ]
        per_playout = statistics.median(seconds)
        positions = sample_positions(start, rng, 40)
        legal = statistics.median(time_per_call(position.legal_moves, 20) for position in positions)
        print(
            f"{label:<22} {1 / per_playout:>11.0f} {per_playout * 1e3:>11.3f} {legal * 1e6:>15.1f}"
        )

    import pyspiel  # a dev dependency; imported late so the table above needs nothing

    spiel_hex = pyspiel.load_game("hex(board_size=7)")
    ours_hex = engine.new("hex", size=7, swap="off")
    ours, theirs = [], []
    for _ in range(args.rounds):
        ours.append(time_per_call(lambda: ours_hex.random_playout(rng), 1000))
        theirs.append(time_per_call(lambda: openspiel_playout(spiel_hex, rng), 1000))
    ours_median, theirs_median = statistics.median(ours), statistics.median(theirs)
    print(
        f"hex 7x7 random playout: paperboard {ours_median * 1e6:.1f} µs, "
        f"openspiel (pyspiel) {theirs_median * 1e6:.1f} µs (medians of {args.rounds} rounds)"
    )
    print(f"hex7 playouts vs openspiel: {theirs_median / ours_median:.2f}x")


if __name__ == "__main__":
    main()
