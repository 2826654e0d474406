"""Hex's move priors (engine/ai/hexpriors.py): MoHex 2.0's self-play games, and the model
learned from them.

`play`: games of MoHex against itself (bench/mohex.py builds it), swap off, on --size
boards: two random stones first (a seeded choice, so the games differ), then MoHex's
moves at max_time --max-time, until the board is won or --minutes pass; one JSON line
per game ({"moves": [...], "winner": seat}) appended to --out. Runs side by side with
other --seed values on other cores.

`train`: every position of the recorded games after the two random stones, with the move
MoHex chose; a conditional-logit model over hexpriors.features (Adam, L2 1e-4), fitted on
four games in five and measured on the fifth (the move predicted first, and within the
first five); then fitted on all and written to engine/ai/hexpriors.txt (--write).

The last line is the headline: `hexpriors: <top-1>% of held-out moves first, <top-5>% in
the first five (<positions> positions of <games> games)`.

Run: .venv/bin/python -m bench.hexpriors play --seed 1 --minutes 30 --out games.jsonl
     .venv/bin/python -m bench.hexpriors train games*.jsonl [--write]
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

import engine
from bench.ai_openspiel import Resigned
from bench.mohex import COMMIT, SOURCE, MoHex, build
from engine.ai import hexpriors
from engine.hex import board

WEIGHTS = Path(hexpriors.__file__).with_name("hexpriors.txt")
L2 = 1e-4
STEPS = 400

Example = tuple[list[hexpriors.Features], int]  # the moves' features, the chosen one's index


def play(size: int, seed: int, minutes: float, max_time: float, out: Path) -> None:
    binary = build(Path.home() / ".cache/paperboard/mohex", SOURCE, COMMIT)
    mohex = MoHex([str(binary), "--use-logfile=0"], size, max_time)
    rng = random.Random(seed)
    end = time.monotonic() + 60 * minutes
    played = 0
    with out.open("a") as records:
        while time.monotonic() < end:
            state = engine.new("hex", size=size, swap="off")
            for _ in range(2):
                state = state.play(rng.choice(state.legal_moves()))
            agent = mohex.new_game(played)
            try:
                while state.outcome is None:
                    state = state.play(agent(state))
                winner = state.outcome.winners[0]
            except Resigned:
                assert state.to_move is not None
                winner = 1 - state.to_move
            records.write(json.dumps({"moves": list(state.moves), "winner": winner}) + "\n")
            records.flush()
            played += 1
    mohex.gtp.close()
    print(f"hexpriors: {played} games of MoHex at max_time {max_time} s written to {out}")


def examples(games: Sequence[dict[str, object]], size: int) -> list[Example]:
    cell_of = board(size).cell_of
    found: list[Example] = []
    for game in games:
        moves = game["moves"]
        assert isinstance(moves, list)
        stones = [-1] * (size * size)
        for ply, label in enumerate(moves):
            cell = cell_of[label]
            if ply >= 2:
                colour = ply % 2
                around = hexpriors.features(size, stones, colour, cell_of[moves[ply - 1]])
                cells = sorted(around)
                found.append(([around[c] for c in cells], cells.index(cell)))
            stones[cell] = ply % 2
    return found


class Design:
    """The examples as arrays: each move's feature columns, where each position's moves
    start, the chosen moves' rows."""

    def __init__(self, data: list[Example], columns: dict[tuple[str, str], int]) -> None:
        rows: list[list[int]] = []
        starts: list[int] = []
        chosen: list[int] = []
        for moves, index in data:
            starts.append(len(rows))
            chosen.append(len(rows) + index)
            for features in moves:
                keys = zip(hexpriors.SLOTS, map(str, features), strict=True)
                rows.append([columns.setdefault(key, len(columns)) for key in keys])
        self.rows = np.array(rows, dtype=np.int64)
        self.starts = np.array(starts)
        self.chosen = np.array(chosen)
        self.counts = np.diff(np.append(self.starts, len(rows)))

    def chances(self, weights: np.ndarray) -> np.ndarray:
        scores = weights[self.rows].sum(axis=1)
        scores -= np.repeat(np.maximum.reduceat(scores, self.starts), self.counts)
        exps = np.exp(scores)
        return exps / np.repeat(np.add.reduceat(exps, self.starts), self.counts)

    def ranks(self, weights: np.ndarray) -> np.ndarray:
        """How many moves scored above the chosen one, per position."""
        scores = weights[self.rows].sum(axis=1)
        above = (scores > np.repeat(scores[self.chosen], self.counts)).astype(np.int64)
        return np.add.reduceat(above, self.starts)


def fit(design: Design, width: int) -> np.ndarray:
    weights = np.zeros(width)
    mean = np.zeros(width)
    square = np.zeros(width)
    for step in range(1, STEPS + 1):
        gradient_rows = design.chances(weights)
        gradient_rows[design.chosen] -= 1.0
        gradient = np.zeros(width)
        np.add.at(gradient, design.rows.ravel(), np.repeat(gradient_rows, design.rows.shape[1]))
        gradient = gradient / len(design.starts) + L2 * weights
        mean = 0.9 * mean + 0.1 * gradient
        square = 0.999 * square + 0.001 * gradient**2
        weights -= 0.05 * (mean / (1 - 0.9**step)) / (np.sqrt(square / (1 - 0.999**step)) + 1e-8)
    return weights


def train(paths: Sequence[Path], size: int, write: bool) -> str:
    games = [json.loads(line) for path in paths for line in path.read_text().splitlines()]
    random.Random(0).shuffle(games)
    cut = len(games) * 4 // 5
    columns: dict[tuple[str, str], int] = {}
    learn = Design(examples(games[:cut], size), columns)
    held = Design(examples(games[cut:], size), columns)
    ranks = held.ranks(fit(learn, len(columns)))
    first, five = float(np.mean(ranks == 0)), float(np.mean(ranks < 5))
    moves = float(np.mean(held.counts))
    print(f"held out: {len(ranks)} positions, {moves:.0f} moves each on average")
    if write:
        everything = Design(examples(games, size), columns)
        weights = fit(everything, len(columns))
        lines = [
            "# Hex's move priors (engine/ai/hexpriors.py), made by `python -m bench.hexpriors",
            f"# train --write` from {len(games)} games of MoHex 2.0's self-play on {size}x{size}",
            f"# ({len(everything.starts)} positions): `slot value weight` per line.",
        ]
        for (slot, value), column in sorted(columns.items()):
            if slot == "pattern" or abs(weights[column]) > 1e-6:
                lines.append(f"{slot} {value} {weights[column]:.4f}")
        WEIGHTS.write_text("\n".join(lines) + "\n")
        print(f"{WEIGHTS}: {len(lines) - 3} weights")
    return (
        f"{first:.0%} of held-out moves first, {five:.0%} in the first five"
        f" ({len(ranks)} positions of {len(games) - cut} games)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=("play", "train"))
    parser.add_argument("records", nargs="*", type=Path, help="train: the games' files")
    parser.add_argument("--size", type=int, default=9)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--minutes", type=float, default=30.0)
    parser.add_argument("--max-time", type=float, default=0.1, help="MoHex's time a move")
    parser.add_argument("--out", type=Path, default=Path("hexpriors-games.jsonl"))
    parser.add_argument("--write", action="store_true", help="write engine/ai/hexpriors.txt")
    args = parser.parse_args()
    if args.action == "play":
        play(args.size, args.seed, args.minutes, args.max_time, args.out)
    else:
        print(f"hexpriors: {train(args.records, args.size, args.write)}")


if __name__ == "__main__":
    main()
