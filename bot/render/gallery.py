"""The gallery: an opening, a middle game and a finished game of every game, drawn
from fixed random games so the pictures only change when the drawing does. Each
game is drawn with the options its render module registered (board.py's GALLERY).

Run: .venv/bin/python -m bot.render.gallery docs/img   (or: make gallery)
"""

from __future__ import annotations

import random
import sys
from collections.abc import Mapping
from pathlib import Path

import engine
from bot.render import render_png
from bot.render.board import GALLERY
from engine import GameState

#: Display names for the seats.
NAMES = ("ann", "bob", "cat")


def stages(name: str, options: Mapping[str, object], seed: int = 2026) -> dict[str, GameState]:
    """Opening, middle and end of one random game (the longest of a few)."""
    rng = random.Random(seed)
    start = engine.replay(name, options, ())
    final = max((start.random_playout(rng) for _ in range(5)), key=lambda s: s.ply)
    at = {"opening": min(4, final.ply), "middle": final.ply // 2}
    shown = {
        label: engine.replay(name, final.options, final.moves[:ply]) for label, ply in at.items()
    }
    shown["finished"] = final
    return shown


def main(folder: str) -> None:
    target = Path(folder)
    target.mkdir(parents=True, exist_ok=True)
    for name, options in GALLERY.items():
        for label, state in stages(name, options).items():
            players = NAMES[: state.players]
            (target / f"{name}-{label}.png").write_bytes(render_png(state, players=players))
            if name == "hotwire" and label == "middle":
                groups = render_png(state, players=players, groups=True)
                (target / f"{name}-{label}-groups.png").write_bytes(groups)
    print(f"wrote the gallery to {target}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "docs/img")
