"""bench.ai's speed and memory sections: MCTS simulations, adapter playouts and random playouts
a second per game; the peak RSS of one best_move at the largest options of every game, each in a
fresh process."""

from __future__ import annotations

import functools
import json
import math
import random
import subprocess
import sys
import time
from collections.abc import Callable

import engine
from engine.ai.mcts import Search
from engine.ai.registry import adapter_for

#: (label, game, options, players)
SPEED_CASES: list[tuple[str, str, dict[str, object], int | None]] = [
    ("hex 7x7", "hex", {"size": 7, "swap": "off"}, None),
    ("hex 9x9", "hex", {"size": 9, "swap": "off"}, None),  # the board played against MoHex
    ("hex 11x11", "hex", {"size": 11, "swap": "off"}, None),
    ("disthex 7x7", "disthex", {}, None),
    ("hotwire 7x7", "hotwire", {}, None),
    ("shortcircuit s3", "shortcircuit", {"size": 3}, None),
    ("shortcircuit s5", "shortcircuit", {}, None),
    ("livewire 17x14", "livewire", {"size": "17x14"}, None),
    ("livewire 42x34", "livewire", {}, None),
    ("intersections 6x6 2p", "intersections", {}, None),
    ("intersections 6x6 3p", "intersections", {}, 3),
]


# -- speed ---------------------------------------------------------------------------


def speed(seconds: float = 1.0) -> None:
    """Per game: the search's simulations/s, its playouts/s (the adapter's policy) and
    the engine's uniformly random playouts to the end (`random_playout`) per second."""
    print(f"{'game':<22} {'simulations/s':>14} {'playouts/s':>11} {'random/s':>9}")
    for label, name, options, players in SPEED_CASES:
        state = engine.new(name, players, **options)
        adapter = adapter_for(state)
        search = Search(adapter, adapter.root(state), rng=random.Random(1))
        start = time.monotonic()
        search.run(deadline=start + seconds)
        simulations = search.simulations / (time.monotonic() - start)
        adapter.deadline = math.inf  # the search's deadline has passed; playouts watch it
        root = adapter.root(state)
        rng = random.Random(2)
        playouts = rate(functools.partial(adapter.playout, root, rng), seconds / 2)
        randoms = rate(functools.partial(state.random_playout, rng), seconds / 2)
        print(f"{label:<22} {simulations:>14.0f} {playouts:>11.0f} {randoms:>9.0f}")


def rate(action: Callable[[], object], seconds: float) -> float:
    """Calls of `action` per second, calling it for `seconds` (at least once)."""
    count, start = 0, time.monotonic()
    while not count or time.monotonic() - start < seconds:
        action()
        count += 1
    return count / (time.monotonic() - start)


# -- memory ---------------------------------------------------------------------------------

#: (label, game, options): the largest options of every game, and Hex 7x7.
MEMORY_CASES: list[tuple[str, str, dict[str, object]]] = [
    ("hex 7x7", "hex", {"size": 7, "swap": "off"}),
    ("hex 19x19", "hex", {"size": 19, "swap": "off"}),
    ("disthex 19x19", "disthex", {"size": 19}),
    ("hotwire 19x19", "hotwire", {"size": "19x19"}),
    ("shortcircuit 10", "shortcircuit", {"size": 10}),
    ("livewire 60x60", "livewire", {"size": "60x60"}),
    ("intersections 12x12 2p", "intersections", {"size": 12, "segments": 122}),
    ("intersections 12x12 8p", "intersections", {"players": 8, "size": 12, "segments": 120}),
]

#: Run in a fresh process: one best_move from the start, then the process's peak RSS.
_PEAK_SCRIPT = """
import json, resource, sys, time
import engine
from engine import ai
game, options, seconds = json.loads(sys.argv[1])
state = engine.new(game, **options)
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
start = time.monotonic()
ai.best_move(state, seconds=seconds, seed=1)
took = time.monotonic() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps([before / 1024, peak / 1024, took]))
"""


def memory(seconds: float) -> str:
    """Each case's peak RSS (MB) over one best_move of `seconds`, in a fresh process."""
    print(f"{'game':<26} {'before':>8} {'peak':>8} {'took':>7}")
    peaks = []
    for label, name, options in MEMORY_CASES:
        data = json.dumps([name, options, seconds])
        output = subprocess.run(
            [sys.executable, "-c", _PEAK_SCRIPT, data], capture_output=True, text=True, check=True
        ).stdout
        before, peak, took = json.loads(output)
        peaks.append((peak, label))
        print(f"{label:<26} {before:>6.0f} MB {peak:>5.0f} MB {took:>6.1f} s", flush=True)
    peak, label = max(peaks)
    cases = len(peaks)
    return f"peak RSS of a {seconds:g} s best_move, largest of {cases}: {peak:.0f} MB ({label})"
