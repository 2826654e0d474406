"""The gallery: an opening, a middle game and a finished game of every game, drawn
from fixed random games so the pictures only change when the drawing does; each
game is drawn with the options its render module registered (board.py's GALLERY).
And the tournament pictures (standings, crosstable, bracket) of a fixed 8-player event.

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
from bot.render.bracket import bracket_png
from bot.render.tables import (
    Bracket,
    BracketMatch,
    Crosstable,
    StandingRow,
    StandingsTable,
    crosstable_png,
    standings_png,
)
from engine import GameState

#: Display names for the seats.
NAMES = ("ann", "bob", "cat")
#: The players of the tournament pictures.
ENTRANTS = ("ann", "bob", "cat", "dan", "eve", "fay", "gus", "hal")


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


def picture(name: str, stage: str) -> bytes:
    """The gallery's picture of game `name` at `stage` (opening, middle, finished), as
    `main` writes it (the rules pages show these)."""
    state = stages(name, GALLERY[name])[stage]
    return render_png(state, players=NAMES[: state.players])


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
    (target / "standings.png").write_bytes(standings_png(sample_standings()))
    (target / "crosstable.png").write_bytes(crosstable_png(sample_crosstable()))
    (target / "bracket.png").write_bytes(bracket_png(sample_bracket()))
    print(f"wrote the gallery to {target}")


def _results(seed: int = 2026) -> list[list[float]]:
    """A random round robin of ENTRANTS: points[i][j] of player i against player j, the
    stronger (earlier) player more often the winner, one game in six drawn."""
    rng = random.Random(seed)
    count = len(ENTRANTS)
    points = [[0.0] * count for _ in range(count)]
    for i in range(count):
        for j in range(i + 1, count):
            x = rng.random()
            won = 0.5 if x < 1 / 6 else 1.0 if x < 1 / 6 + 0.5 + (j - i) / 20 else 0.0
            points[i][j], points[j][i] = won, 1 - won
    return points


def sample_crosstable() -> Crosstable:
    """The round robin's crosstable, the last round still to play (its games unplayed)."""
    points = _results()
    count = len(ENTRANTS)
    unplayed = {(i, count - 1 - i) for i in range(count)}
    shown = {1.0: "1", 0.5: "½", 0.0: "0"}
    cells = tuple(
        tuple(
            "×" if i == j else "" if (i, j) in unplayed else shown[points[i][j]]
            for j in range(count)
        )
        for i in range(count)
    )
    return Crosstable("Hex round robin · round 6 of 7", ENTRANTS, cells)


def sample_standings() -> StandingsTable:
    """The round robin's standings: points, Sonneborn-Berger and wins, one player withdrawn."""
    cells = sample_crosstable().cells
    points = [[{"1": 1.0, "½": 0.5}.get(cell, 0.0) for cell in row] for row in cells]
    score = [sum(row) for row in points]
    lines = sorted(
        (
            (-score[i], -sum(p * score[j] for j, p in enumerate(points[i])), -row.count("1"), i)
            for i, row in enumerate(cells)
        )
    )
    rows = []
    for place, (_, sonneborn, wins, i) in enumerate(lines, 1):
        gone = ENTRANTS[i] == "gus"
        rows.append(
            StandingRow(
                str(place),
                ENTRANTS[i],
                score[i],
                (-sonneborn, float(-wins)),
                0 if gone else 1,
                "withdrawn" if gone else "",
            )
        )
    tiebreaks = ("Sonneborn-Berger", "wins")
    return StandingsTable("Hex round robin · standings", tiebreaks, tuple(rows))


def sample_bracket() -> Bracket:
    """A knockout of 7 (the top seed has a bye) after its semi-finals, matches of 3 games."""
    first = (
        BracketMatch("ann", None, "", 0),
        BracketMatch("dan", "eve", "2–1", 0),
        BracketMatch("bob", "gus", "2–0", 0),
        BracketMatch("cat", "fay", "1½–2½", 1),
    )
    semis = (BracketMatch("ann", "dan", "2–0", 0), BracketMatch("bob", "fay", "½–2", 1))
    final = (BracketMatch("ann", "fay", "1–0", None),)
    return Bracket("Hex knockout · the final", (first, semis, final))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "docs/img")
