"""Hex's and Disthex's playouts, compiled (engine/_hexplayout.c) against their Python
reference, side by side in one run: the adapter's playouts/s and the search's
simulations/s from the empty board, each kind in turn (the order alternating), medians
of the repeats.

The last line is the headline: `compiled: <game> <size> simulations/s <ratio>x`, the
largest board of the last game.

Run: .venv/bin/python -m bench.compiled [--games hex disthex] [--sizes 7 11]
"""

from __future__ import annotations

import argparse
import functools
import math
import random
import statistics
import time

import engine
from bench.ai import rate
from engine.ai import hexai
from engine.ai.mcts import Search
from engine.ai.registry import adapter_for

KINDS = ("python", "compiled")


def measure(game: str, size: int, compiled: bool, seed: int, seconds: float) -> tuple[float, float]:
    """Playouts/s for `seconds`, then simulations/s of a search of twice as long."""
    built = hexai._compiled
    hexai._compiled = built if compiled else None
    try:
        state = engine.new(game, size=size, swap=False)
        adapter = adapter_for(state)
    finally:
        hexai._compiled = built
    assert (adapter.compiled_playouts is not None) == compiled, "the module is not built"
    adapter.deadline = math.inf
    root, rng = adapter.root(state), random.Random(seed)
    playouts = rate(functools.partial(adapter.playout, root, rng), seconds)
    search = Search(adapter, root, rng=random.Random(seed))
    start = time.monotonic()
    search.run(deadline=start + 2 * seconds)
    return playouts, search.simulations / (time.monotonic() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", nargs="+", default=["hex", "disthex"])
    parser.add_argument("--sizes", nargs="+", type=int, default=[7, 11])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=1.0)
    args = parser.parse_args()
    figures: dict[tuple[str, int, str], list[tuple[float, float]]] = {}
    for repeat in range(args.repeats):
        for game in args.games:
            for size in args.sizes:
                for kind in KINDS if repeat % 2 == 0 else KINDS[::-1]:
                    figure = measure(game, size, kind == "compiled", repeat, args.seconds)
                    figures.setdefault((game, size, kind), []).append(figure)
    print(f"{'game':<8} {'size':>5} {'measure':<14} {'python':>9} {'compiled':>9} {'ratio':>6}")
    headline = ""
    for game in args.games:
        for size in args.sizes:
            for index, name in enumerate(("playouts/s", "simulations/s")):
                python, compiled = (
                    statistics.median(f[index] for f in figures[(game, size, kind)])
                    for kind in KINDS
                )
                ratio = compiled / python
                print(
                    f"{game:<8} {size:>5} {name:<14} {python:>9,.0f} {compiled:>9,.0f} "
                    f"{ratio:>5.1f}x"
                )
                headline = f"compiled: {game} {size}x{size} {name} {ratio:.1f}x"
    print(headline)


if __name__ == "__main__":
    main()
