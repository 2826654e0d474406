"""Render benchmark: ms per board for every game, and (draw + encode) against the bare
encode of the same finished image, measured side by side in one run.

The bare encode is what posting any picture costs anyway: the finished image
turned into a PNG by the same encoder (palette + zlib). The ratio says how much
the drawing adds on top; the target is <= 2.0 (drawing costs at most as much
as the encode). Boards are finished games (the most to draw); medians of
interleaved repetitions, timed in this thread's CPU time: on a shared machine
the wall clock also counts the time other processes hold the cores, and a
longer render is cut off by them more often than the encode it is compared
with (wall-clock ratios of 3 and more on a loaded machine). The ratio of each
game is printed; the last line is the worst game's:

    render vs bare encode: <ratio>x

Run: .venv/bin/python -m bench.render [--repeats N]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import engine
from bot.render import render_image, render_png
from bot.render.encode import encode_png
from bot.render.theme import DEFAULT_THEME

CASES: list[tuple[str, str, dict[str, object]]] = [
    ("hotwire 7x7", "hotwire", {}),
    ("hex 11x11", "hex", {}),
    ("disthex 7x7", "disthex", {}),
    ("shortcircuit s5", "shortcircuit", {}),
    ("livewire 42x34", "livewire", {}),
    ("intersections 6x6", "intersections", {}),
]


def finished_game(name: str, options: dict[str, object], seed: int) -> engine.GameState:
    """The longest of a few random games: a full board draws the most."""
    rng = random.Random(seed)
    games = [engine.new(name, **options).random_playout(rng) for _ in range(5)]
    return max(games, key=lambda state: state.ply)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=60)
    args = parser.parse_args()
    names = ["ann", "bob"]
    print(f"{'game':<20} {'plies':>5} {'render ms':>9} {'encode ms':>9} {'ratio':>6} {'KB':>5}")
    worst = 0.0
    for label, name, options in CASES:
        state = finished_game(name, options, 2026)
        image = render_image(state, players=names)
        render_png(state, players=names)  # the static board and sprites are cached, as in a bot
        full, bare = [], []
        for _ in range(args.repeats):
            start = time.thread_time()
            png = render_png(state, players=names)
            full.append(time.thread_time() - start)
            start = time.thread_time()
            encode_png(image, DEFAULT_THEME)
            bare.append(time.thread_time() - start)
        ratio = statistics.median(full) / statistics.median(bare)
        worst = max(worst, ratio)
        print(
            f"{label:<20} {state.ply:>5} {statistics.median(full) * 1e3:>9.2f} "
            f"{statistics.median(bare) * 1e3:>9.2f} {ratio:>6.2f} {len(png) // 1024:>5}"
        )
    print(f"render vs bare encode: {worst:.2f}x")


if __name__ == "__main__":
    main()
