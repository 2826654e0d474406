"""Builds Hex's opening book (engine/ai/hexbook_7x7.txt) with the project's prover.

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
4. each position of stages 1-3 still without a move where the mover is known to win
   (an opening the published table, bench.ai.PUBLISHED_WINS, says Black loses; a reply
   to one it says Black wins; a second stone after the book's own reply), --deep-nodes,
   in --workers processes, again until nothing new comes (a lost opening proven here
   brings its second stones). --resume starts here from the shipped table (--resume 5,
   6 or 7: at that stage).
5. after each book move of plies 3-4, the opponent's --answers likeliest answers (a
   seeded search of --search-simulations; `all`: every answer, no search) and
   --answer-nodes for each; the mover is known to win them all.
6. again after each book move of plies 3-4, the opponent's --retry-answers likeliest
   answers still without a move, --retry-nodes each: the strong answers, the ones a
   small limit does not prove and a strong opponent plays (0: no stage 6).
7. with --follow-width W: a move deeper along the likeliest lines: after each book move
   of plies 3-4, the opponent's W likeliest answers, the book's move to each, and the
   opponent's W likeliest answers to that, --follow-nodes each.
A position and its 180-degree turn are proven once. Progress goes to stderr; the last
line is the headline:
`hexbook: 7x7 <entries> winning moves, <n> positions, <s> s`.

Run: .venv/bin/python -m bench.hexbook [--size 7] [--opening-nodes N] [--quick-nodes N]
     [--nodes N] [--search-simulations N] [--deep-nodes N] [--answers N|all]
     [--answer-nodes N] [--retry-answers N] [--retry-nodes N] [--follow-width W]
     [--follow-nodes N] [--workers N] [--resume [4|5|6|7]] [--out engine/ai/hexbook_7x7.txt]
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from itertools import zip_longest
from pathlib import Path

import engine
from bench.ai import PUBLISHED_WINS
from engine import GameState, ai
from engine.ai import hexbook
from engine.hex import HexState, board

HEADER = """\
# Hex {size}x{size}'s opening book, made by `python -m bench.hexbook` (engine/ai/hexbook.py
# reads it): `black,cells:white,cells:winning cell` per position, cells by label, each
# position as the book keeps it (of it and its 180-degree turn, the smaller masks).
# {entries:,} winning moves. Node limits: openings {opening_nodes:,}; others {quick_nodes:,}, then
# {nodes:,} where a search of {simulations:,} simulations favoured the mover; {deep_nodes:,} where
# the mover was known to win and no move was found before; {answer_nodes:,} after each book move
# of plies 3-4 and {answers} of the opponent's answers; then {retry_nodes:,} for the
# {retry_answers} likeliest of those answers still without a move{followed}.
"""


def masks(state: GameState) -> tuple[int, int]:
    assert isinstance(state, HexState)
    colours = state.cell_colours
    black = sum(1 << cell for cell, colour in enumerate(colours) if colour == 0)
    white = sum(1 << cell for cell, colour in enumerate(colours) if colour == 1)
    return black, white


def winning_move(state: GameState, nodes: int) -> str | None:
    """The first winning move the prover finds for the mover, or None (a loss, or no
    proof within `nodes`)."""
    solution = ai.solve(state, seconds=1e9, nodes=nodes, every=False)
    if solution is None or solution.winner != state.to_move:
        return None
    return solution.winning_moves[0]


def winning_move_after(size: int, path: tuple[str, ...], nodes: int) -> str | None:
    """`winning_move` of the position `path` leads to (a worker process's task)."""
    return winning_move(played(engine.new("hex", size=size, swap="off"), path), nodes)


def played(state: GameState, path: tuple[str, ...]) -> GameState:
    for move in path:
        state = state.play(move)
    return state


class Builder:
    def __init__(self, size: int) -> None:
        self.size = size
        self.start = engine.new("hex", size=size, swap="off")
        self.entries: dict[tuple[int, int], str] = {}  # the book's key -> winning label
        self.seen: set[tuple[int, int]] = set()
        self.searched = 0
        self.out: Path | None = None  # where `save` writes the table
        self.limits: dict[str, object] = {}  # HEADER's fields but the count of entries

    @classmethod
    def from_book(cls, size: int) -> Builder:
        """A builder holding the shipped table's entries (engine/ai/hexbook_<n>x<n>.txt)."""
        builder = cls(size)
        labels = board(size).labels
        builder.entries = {key: labels[cell] for key, cell in hexbook.table(size).items()}
        return builder

    def prove(self, state: GameState, nodes: int) -> str | None:
        """`winning_move`, each position and its turn proven once."""
        key = self.key(state)
        if key not in self.seen:
            self.seen.add(key)
            self.searched += 1
            self.record(state, winning_move(state, nodes))
        return self.move(state)

    def record(self, state: GameState, move: str | None) -> None:
        if move is not None:
            cell, key = board(self.size).cell_of[move], self.key(state)
            turned = key != masks(state)
            self.entries[key] = board(self.size).labels[self.size**2 - 1 - cell if turned else cell]

    def move(self, state: GameState) -> str | None:
        """The book's move for `state`, turned back if the book keeps its twin."""
        key = self.key(state)
        kept = self.entries.get(key)
        if kept is None or key == masks(state):
            return kept
        return board(self.size).labels[self.size**2 - 1 - board(self.size).cell_of[kept]]

    def key(self, state: GameState) -> tuple[int, int]:
        return hexbook.key_of(self.size, *masks(state))

    def save(self) -> None:
        if self.out is not None:
            header = HEADER.format(size=self.size, entries=len(self.entries), **self.limits)
            self.out.write_text(header + self.text() + "\n")

    def text(self) -> str:
        labels = board(self.size).labels

        def cells(mask: int) -> str:
            return ",".join(labels[cell] for cell in range(self.size**2) if mask >> cell & 1)

        entries = [f"{cells(b)}:{cells(w)}:{move}" for (b, w), move in sorted(self.entries.items())]
        lines = [" ".join(entries[i : i + 6]) for i in range(0, len(entries), 6)]
        return "\n".join(lines)


def report(builder: Builder, began: float, what: str) -> None:
    print(
        f"  {what}: {len(builder.entries)} entries, {builder.searched} positions,"
        f" {time.monotonic() - began:.0f} s",
        file=sys.stderr,
        flush=True,
    )


def build(size: int, opening_nodes: int, quick_nodes: int, nodes: int, simulations: int) -> Builder:
    """Stages 1-3 of the module's docstring."""
    builder = Builder(size)
    began = time.monotonic()
    openings = builder.start.legal_moves()
    lost: dict[str, str] = {}  # opening -> the book's winning reply
    for opening in openings:
        reply = builder.prove(builder.start.play(opening), opening_nodes)
        if reply is not None:
            lost[opening] = reply
    report(builder, began, f"openings ({len(lost)} lost: {' '.join(lost)})")
    left = []
    for opening in openings:
        after = builder.start.play(opening)
        for reply in after.legal_moves():
            position = after.play(reply)
            if builder.prove(position, quick_nodes) is None and opening not in lost:
                left.append(position)
    report(builder, began, "replies, quickly")
    builder.seen -= {builder.key(position) for position in left}
    for position in left:
        if builder.key(position) in builder.seen:
            continue  # its turned twin was left too
        chances = ai.analyse(position, seconds=1e9, nodes=simulations, seed=0, solver=False)
        if chances.win_chance[0] > 0.5:
            builder.prove(position, nodes)
        builder.seen.add(builder.key(position))
    report(builder, began, f"replies the search favours Black in ({len(left)} left)")
    for opening, reply in lost.items():
        after = builder.start.play(opening).play(reply)
        for second in after.legal_moves():
            builder.prove(after.play(second), nodes)
    report(builder, began, "second stones after a lost opening")
    return builder


def known_wins_left(builder: Builder) -> list[tuple[str, ...]]:
    """The positions of stages 1-3 without a move where the mover is known to win
    (a path from the empty board to each; one of a position and its turn)."""
    published = PUBLISHED_WINS.get(builder.size)
    if not isinstance(published, frozenset):
        return []
    paths: dict[tuple[int, int], tuple[str, ...]] = {}
    for opening in builder.start.legal_moves():
        position = builder.start.play(opening)
        reply = builder.move(position)
        if reply is not None:  # White wins: any second stone after the book's reply
            stage = [(opening, reply, second) for second in position.play(reply).legal_moves()]
        elif opening in published:  # Black wins: any reply
            stage = [(opening, reply) for reply in position.legal_moves()]
        else:  # White wins: the opening itself
            stage = [(opening,)]
        for path in stage:
            key = builder.key(played(builder.start, path))
            if key not in builder.entries:
                paths.setdefault(key, path)
    return list(paths.values())


def deepen(builder: Builder, nodes: int, workers: int) -> None:
    """Stage 4: `nodes` for each of `known_wins_left`, again after each pass (a lost
    opening proven here brings its second stones) until a pass has nothing new."""
    tried: set[tuple[str, ...]] = set()
    while paths := [path for path in known_wins_left(builder) if path not in tried]:
        tried.update(paths)
        prove_all(builder, paths, nodes, workers)


def prove_all(builder: Builder, paths: list[tuple[str, ...]], nodes: int, workers: int) -> None:
    """`nodes` for the position each path leads to, in `workers` processes (each proof
    on its own, so the table does not depend on their number)."""
    began = time.monotonic()
    report(builder, began, f"{len(paths)} positions to prove")
    size = builder.size
    with ProcessPoolExecutor(workers) as pool:
        moves = pool.map(winning_move_after, [size] * len(paths), paths, [nodes] * len(paths))
        for done, (path, move) in enumerate(zip(paths, moves, strict=True), 1):
            builder.searched += 1
            builder.record(played(builder.start, path), move)
            if done % 100 == 0 or done == len(paths):
                report(builder, began, f"proved {done} of {len(paths)}")
            if done % 1_000 == 0:
                builder.save()  # a build stopped here keeps its proofs (--resume goes on)


def likely_answers(
    size: int, path: tuple[str, ...], count: int | None, simulations: int
) -> list[str]:
    """The `count` moves a seeded search of `simulations` visits most after `path`;
    every legal move when `count` is None."""
    position = played(engine.new("hex", size=size, swap="off"), path)
    if count is None:
        return position.legal_moves()
    chances = ai.analyse(position, seconds=1e9, nodes=simulations, seed=0, solver=False)
    return [ranked.move for ranked in chances.best[:count]]


def book_lines(builder: Builder, stones: set[int]) -> list[tuple[str, ...]]:
    """A path to each book position of `stones` stones, then the book's move."""
    labels = board(builder.size).labels
    lines = []
    for (black, white), move in sorted(builder.entries.items()):
        if (black | white).bit_count() in stones:
            blacks = [labels[cell] for cell in range(builder.size**2) if black >> cell & 1]
            whites = [labels[cell] for cell in range(builder.size**2) if white >> cell & 1]
            interleaved = [cell for pair in zip_longest(blacks, whites) for cell in pair if cell]
            lines.append((*interleaved, move))
    return lines


def extend(builder: Builder, count: int | None, simulations: int, nodes: int, workers: int) -> None:
    """Stages 5 and 6: after each book move of the third and fourth plies, the
    opponent's `count` likeliest answers (`likely_answers`; None: all) not yet in the
    book; the mover is known to win each."""
    with ProcessPoolExecutor(workers) as pool:
        paths = unbooked_answers(builder, pool, book_move_lines(builder), count, simulations)
    prove_all(builder, paths, nodes, workers)


def follow(builder: Builder, width: int, simulations: int, nodes: int, workers: int) -> None:
    """Stage 7: the book a move deeper along the likeliest lines: after each book move
    of the third and fourth plies, the opponent's `width` likeliest answers, the book's
    move to each, and the opponent's `width` likeliest answers to that."""
    with ProcessPoolExecutor(workers) as pool:
        lines = book_move_lines(builder)
        replied = []
        for line, answers in zip(
            lines, ranked(builder, pool, lines, width, simulations), strict=True
        ):
            for answer in answers:
                position = played(builder.start, (*line, answer))
                move = builder.move(position)
                if move is not None and position.play(move).outcome is None:
                    replied.append((*line, answer, move))
        paths = unbooked_answers(builder, pool, replied, width, simulations)
    prove_all(builder, paths, nodes, workers)


def book_move_lines(builder: Builder) -> list[tuple[str, ...]]:
    """The lines ending in a book move of the third or fourth ply, Black's first."""
    return [*book_lines(builder, {2}), *book_lines(builder, {3})]


def ranked(
    builder: Builder,
    pool: ProcessPoolExecutor,
    lines: list[tuple[str, ...]],
    count: int | None,
    simulations: int,
) -> list[list[str]]:
    """`likely_answers` after each line, in the pool's processes."""
    n = len(lines)
    return list(pool.map(likely_answers, [builder.size] * n, lines, [count] * n, [simulations] * n))


def unbooked_answers(
    builder: Builder,
    pool: ProcessPoolExecutor,
    lines: list[tuple[str, ...]],
    count: int | None,
    simulations: int,
) -> list[tuple[str, ...]]:
    """A path to each position the opponent's `count` likeliest answers after `lines`
    lead to that the book has no move for (one of a position and its turn)."""
    paths: dict[tuple[int, int], tuple[str, ...]] = {}
    for line, answers in zip(lines, ranked(builder, pool, lines, count, simulations), strict=True):
        for answer in answers:
            key = builder.key(played(builder.start, (*line, answer)))
            if key not in builder.entries:
                paths.setdefault(key, (*line, answer))
    return list(paths.values())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=7)
    parser.add_argument("--opening-nodes", type=int, default=10_000)
    parser.add_argument("--quick-nodes", type=int, default=300)
    parser.add_argument("--nodes", type=int, default=5_000)
    parser.add_argument("--search-simulations", type=int, default=3_000)
    parser.add_argument("--deep-nodes", type=int, default=200_000)
    parser.add_argument(
        "--answers",
        type=lambda text: None if text == "all" else int(text),
        default=4,
        help="how many of the opponent's answers stage 5 follows: a number, or all",
    )
    parser.add_argument("--answer-nodes", type=int, default=1_000)
    parser.add_argument("--retry-answers", type=int, default=8)
    parser.add_argument("--retry-nodes", type=int, default=50_000)
    parser.add_argument("--follow-width", type=int, default=0, help="stage 7 (0: none)")
    parser.add_argument("--follow-nodes", type=int, default=50_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--resume",
        type=int,
        nargs="?",
        const=4,
        choices=(4, 5, 6, 7),
        help="skip stages 1-3 (and more: the stage to start at) from the shipped table",
    )
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    began = time.monotonic()
    if args.resume is not None:
        builder = Builder.from_book(args.size)
    else:
        builder = build(
            args.size, args.opening_nodes, args.quick_nodes, args.nodes, args.search_simulations
        )
    engine_ai = Path(__file__).parent.parent / "engine/ai"
    builder.out = args.out or engine_ai / f"hexbook_{args.size}x{args.size}.txt"
    builder.limits = {
        "opening_nodes": args.opening_nodes,
        "quick_nodes": args.quick_nodes,
        "nodes": args.nodes,
        "simulations": args.search_simulations,
        "deep_nodes": args.deep_nodes,
        "answer_nodes": args.answer_nodes,
        "answers": "every one" if args.answers is None else f"the {args.answers} likeliest",
        "retry_nodes": args.retry_nodes,
        "retry_answers": args.retry_answers,
        "followed": (
            f"; {args.follow_nodes:,} along the {args.follow_width} likeliest lines a move on"
            if args.follow_width
            else ""
        ),
    }
    start, sims = args.resume or 1, args.search_simulations
    if start <= 4:
        deepen(builder, args.deep_nodes, args.workers)
    if start <= 5:
        extend(builder, args.answers, sims, args.answer_nodes, args.workers)
    if start <= 6 and args.retry_nodes:
        extend(builder, args.retry_answers, sims, args.retry_nodes, args.workers)
    if args.follow_width:
        follow(builder, args.follow_width, sims, args.follow_nodes, args.workers)
    builder.save()
    print(
        f"hexbook: {args.size}x{args.size} {len(builder.entries)} winning moves,"
        f" {builder.searched} positions, {time.monotonic() - began:.0f} s"
    )


if __name__ == "__main__":
    main()
