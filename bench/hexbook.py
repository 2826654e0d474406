"""Builds Hex's opening book (engine/ai/hexbook_7x7.py) with the project's prover.

Black opens anywhere (swap off). The book keeps, for each position below where the
mover wins, the first winning move the prover finds (`ai.solve`, the value alone,
under node limits: the same book on every machine):
1. every opening (White to move), --opening-nodes;
2. every opening and any reply of White's (Black to move): first --quick-nodes each;
   then --nodes for those left whose opening the prover did not show lost and where
   a short search (--search-simulations, seeded) favours Black. A proof that fails
   costs its whole limit, and most positions Black loses are not proven within it;
3. every opening the prover showed lost, the book's reply, and any second stone of
   Black's (White to move), --nodes.
A position and its 180-degree turn are proven once. Progress goes to stderr; the last
line is the headline: `hexbook: 7x7 <entries> winning moves, <n> positions, <s> s`.

Run: .venv/bin/python -m bench.hexbook [--size 7] [--opening-nodes N] [--quick-nodes N]
     [--nodes N] [--search-simulations N] [--out engine/ai/hexbook_7x7.py]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import engine
from engine import GameState, ai
from engine.ai import hexbook
from engine.hex import HexState, board

HEADER = '''"""Hex {size}x{size}'s opening book, made by `python -m bench.hexbook`
(engine/ai/hexbook.py reads it): `black,cells:white,cells:winning cell` per position,
cells by label, each position as the book keeps it (of it and its 180-degree turn, the
smaller masks). {entries} winning moves. Node limits: openings {opening_nodes:,}; others
{quick_nodes:,}, then {nodes:,} where a search of {simulations:,} simulations favoured the mover."""

ENTRIES = """
{body}
"""
'''


def masks(state: GameState) -> tuple[int, int]:
    assert isinstance(state, HexState)
    colours = state.cell_colours
    black = sum(1 << cell for cell, colour in enumerate(colours) if colour == 0)
    white = sum(1 << cell for cell, colour in enumerate(colours) if colour == 1)
    return black, white


class Builder:
    def __init__(self, size: int) -> None:
        self.size = size
        self.start = engine.new("hex", size=size, swap="off")
        self.entries: dict[tuple[int, int], str] = {}  # the book's key -> winning label
        self.seen: set[tuple[int, int]] = set()
        self.searched = 0

    def prove(self, state: GameState, nodes: int) -> str | None:
        """The first winning move found for the mover, or None (a loss, or not
        proven within `nodes`); each position and its turn once."""
        black, white = masks(state)
        key = self.key(state)
        labels, last = board(self.size).labels, self.size * self.size - 1
        if key in self.seen:
            kept = self.entries.get(key)
            if kept is None or key == (black, white):
                return kept
            return labels[last - board(self.size).cell_of[kept]]
        self.seen.add(key)
        self.searched += 1
        solution = ai.solve(state, seconds=1e9, nodes=nodes, every=False)
        if solution is None or solution.winner != state.to_move:
            return None
        move = solution.winning_moves[0]
        cell = board(self.size).cell_of[move]
        self.entries[key] = labels[cell if key == (black, white) else last - cell]
        return move

    def key(self, state: GameState) -> tuple[int, int]:
        return hexbook.key_of(self.size, *masks(state))

    def text(self) -> str:
        labels = board(self.size).labels

        def cells(mask: int) -> str:
            return ",".join(labels[cell] for cell in range(self.size**2) if mask >> cell & 1)

        entries = [f"{cells(b)}:{cells(w)}:{move}" for (b, w), move in sorted(self.entries.items())]
        lines = [" ".join(entries[i : i + 6]) for i in range(0, len(entries), 6)]
        return "\n".join(lines)


def build(size: int, opening_nodes: int, quick_nodes: int, nodes: int, simulations: int) -> Builder:
    builder = Builder(size)
    began = time.monotonic()

    def report(what: str) -> None:
        print(
            f"  {what}: {len(builder.entries)} entries, {builder.searched} positions,"
            f" {time.monotonic() - began:.0f} s",
            file=sys.stderr,
            flush=True,
        )

    openings = builder.start.legal_moves()
    lost: dict[str, str] = {}  # opening -> the book's winning reply
    for opening in openings:
        reply = builder.prove(builder.start.play(opening), opening_nodes)
        if reply is not None:
            lost[opening] = reply
    report(f"openings ({len(lost)} lost: {' '.join(lost)})")
    left = []
    for opening in openings:
        after = builder.start.play(opening)
        for reply in after.legal_moves():
            position = after.play(reply)
            if builder.prove(position, quick_nodes) is None and opening not in lost:
                left.append(position)
    report("replies, quickly")
    builder.seen -= {builder.key(position) for position in left}
    for position in left:
        if builder.key(position) in builder.seen:
            continue  # its turned twin was left too
        chances = ai.analyse(position, seconds=1e9, nodes=simulations, seed=0, solver=False)
        if chances.win_chance[0] > 0.5:
            builder.prove(position, nodes)
        builder.seen.add(builder.key(position))
    report(f"replies the search favours Black in ({len(left)} left)")
    for opening, reply in lost.items():
        after = builder.start.play(opening).play(reply)
        for second in after.legal_moves():
            builder.prove(after.play(second), nodes)
    report("second stones after a lost opening")
    return builder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=7)
    parser.add_argument("--opening-nodes", type=int, default=10_000)
    parser.add_argument("--quick-nodes", type=int, default=300)
    parser.add_argument("--nodes", type=int, default=5_000)
    parser.add_argument("--search-simulations", type=int, default=3_000)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    began = time.monotonic()
    builder = build(
        args.size, args.opening_nodes, args.quick_nodes, args.nodes, args.search_simulations
    )
    out = args.out or Path(__file__).parent.parent / f"engine/ai/hexbook_{args.size}x{args.size}.py"
    out.write_text(
        HEADER.format(
            size=args.size,
            opening_nodes=args.opening_nodes,
            quick_nodes=args.quick_nodes,
            nodes=args.nodes,
            simulations=args.search_simulations,
            entries=len(builder.entries),
            body=builder.text(),
        )
    )
    print(
        f"hexbook: {args.size}x{args.size} {len(builder.entries)} winning moves,"
        f" {builder.searched} positions, {time.monotonic() - began:.0f} s"
    )


if __name__ == "__main__":
    main()
