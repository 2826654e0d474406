"""Golden replays: complete games whose outcome, scores and final picture are pinned.

tests/golden/<game>.json holds a few complete games of each game (two- and
more-player Intersections among them): the options, the moves, the outcome
(winners, reason), the scores and the SHA-256 of the final picture. The games
come from seeded random playouts to the end and from the test suite's own
play (`GOLDENS` below says which). tests/test_render_golden.py replays every
stored game and compares: a change to the rules or to the drawing that alters
any of it fails there until the goldens are regenerated knowingly:

    .venv/bin/python -m tests.golden --write    # then read the diff of tests/golden/

The picture is drawn in the default theme at the game's own size, with the
players named ann, bob, cat..., and hashed as its decoded pixels (RGB), not
as the PNG file: Pillow is not pinned and its zlib may compress the same
pixels to other bytes. The pixels still follow Pillow's drawing and its
bundled FreeType (the fonts themselves are in assets/fonts): a Pillow upgrade
that changes them fails here too; look at `make gallery`'s pictures, then
regenerate.
"""

from __future__ import annotations

import hashlib
import io
import json
import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PIL import Image

import engine
from bot.render import render_png
from engine import GameState
from tests.test_render_livewire import race

FOLDER = Path(__file__).resolve().parent
NAMES = ("ann", "bob", "cat", "dan", "eve")

Record = dict[str, Any]


@dataclass(frozen=True)
class Golden:
    """How one stored game is played: from the start with these options to the end."""

    game: str
    options: dict[str, object]
    source: str  # where the moves come from, in words
    play: Callable[[GameState], GameState]


def seeded(game: str, seed: int, **options: object) -> Golden:
    """A random playout to the end with `random.Random(seed)`."""
    return Golden(
        game,
        options,
        f"random playout, seed {seed}",
        lambda s: s.random_playout(random.Random(seed)),
    )


def raced(runner: int, size: str) -> Golden:
    """Livewire's race from tests/test_render_livewire.py: `runner` reaches a base."""
    return Golden(
        "livewire",
        {"size": size},
        f"tests/test_render_livewire.py race({runner}, size={size!r})",
        lambda _: race(runner, size=size),
    )


#: The stored games, chosen to end in every way each game ends (seeds picked by the end
#: they reach with today's rules: a swap, a loop, passes, a shared win...).
GOLDENS: tuple[Golden, ...] = (
    seeded("hotwire", 0),
    seeded("hotwire", 1),
    seeded("hotwire", 2, size="5x4", lengths="any"),
    seeded("hex", 0, size=5),  # White wins after a swap
    seeded("hex", 0, size=9),
    seeded("hex", 7, size=9, swap=False),
    seeded("disthex", 0, size=5),
    seeded("disthex", 1),
    seeded("disthex", 37, size=6, swap=True),  # a swap
    seeded("shortcircuit", 4, size=3),  # a loop
    seeded("shortcircuit", 3, size=3),  # no connectors left
    seeded("shortcircuit", 0, size=4, capacitors=3, max_turns=60),  # passes
    seeded("shortcircuit", 0, size=3, max_turns=40),  # the turn limit
    seeded("livewire", 0, size="17x14"),  # passes
    raced(0, "17x14"),  # a base reached
    raced(1, "20x16"),
    seeded("intersections", 0, players=2),
    seeded("intersections", 8, players=2),  # a shared win
    seeded("intersections", 0, players=3),
    seeded("intersections", 19, players=3),  # a shared win
    seeded("intersections", 5, players=5, size=8),  # three share the win
)


def results(state: GameState) -> Record:
    """What a golden pins about a finished game: its outcome, scores and picture."""
    outcome = state.outcome
    names = NAMES[: state.players]
    png = render_png(state, players=names)
    image = Image.open(io.BytesIO(png)).convert("RGB")
    return {
        "winners": list(outcome.winners) if outcome else None,
        "reason": str(outcome.reason) if outcome else None,
        "scores": list(outcome.scores) if outcome and outcome.scores is not None else None,
        "picture": {
            "players": list(names),
            "size": list(image.size),
            "pixels_sha256": hashlib.sha256(image.tobytes()).hexdigest(),
        },
    }


def record(golden: Golden) -> Record:
    """The golden's game played to the end, as stored."""
    final = golden.play(engine.new(golden.game, **golden.options))
    if final.outcome is None:
        raise AssertionError(f"{golden.source} of {golden.game} did not finish")
    return as_stored(final, golden.source)


def replayed(stored: Record) -> Record:
    """A stored game replayed with today's rules and drawing, in the stored form."""
    return as_stored(
        engine.replay(stored["game"], stored["options"], stored["moves"]), stored["source"]
    )


def as_stored(final: GameState, source: str) -> Record:
    return {
        "game": final.name,
        "options": final.options,
        "source": source,
        "moves": list(final.moves),
        **results(final),
    }


def stored() -> dict[str, list[Record]]:
    """Every golden file's games, by game name."""
    return {path.stem: json.loads(path.read_text()) for path in sorted(FOLDER.glob("*.json"))}


def write() -> None:
    """Play every golden again and store them, one file per game."""
    by_game: dict[str, list[Record]] = {}
    for golden in GOLDENS:
        by_game.setdefault(golden.game, []).append(record(golden))
    for path in FOLDER.glob("*.json"):
        path.unlink()
    for game, records in by_game.items():
        (FOLDER / f"{game}.json").write_text(_dumped(records))


def _dumped(records: list[Record]) -> str:
    """JSON a diff reads well: a move a line, lists of numbers on one."""
    text = json.dumps(records, indent=1)
    numbers = re.compile(r"\[\s*(-?\d+(?:,\s*-?\d+)*)\s*\]")
    return numbers.sub(lambda m: "[" + ", ".join(m[1].replace(",", " ").split()) + "]", text) + "\n"
