"""Hex's opening book: winning moves of the first plies of small boards, proven by
the project's own prover ahead of time (hexsolve.HexProver; `python -m bench.hexbook`
makes the tables, such as engine/ai/hexbook_7x7.txt).

The prover settles most 7x7 positions from the fifth move in a fraction of a second,
but not the first few: a move there takes it seconds to a minute. The book holds, for
each position it covers where the mover wins, one winning move. A position and its
180-degree turn are the same game and share an entry. No entry: the mover loses, or
the position is not covered (a move the book's builder did not follow, or a proof it
did not find within its node limit).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from importlib.resources import files
from importlib.resources.abc import Traversable

from engine.ai.hexsolve import turn
from engine.hex import board

#: Tables by board size: entries `black,cells:white,cells:winning cell` (cells by
#: label) separated by spaces and lines; lines starting with # are comments.
BOOKS: dict[int, Traversable] = {7: files("engine.ai") / "hexbook_7x7.txt"}

Position = tuple[int, int]  # Black's stones and White's, as masks of cells


def _masks(size: int, text: str) -> int:
    cell_of = board(size).cell_of
    return sum(1 << cell_of[label] for label in text.split(",") if label)


@cache
def table(size: int) -> dict[Position, int]:
    moves: dict[Position, int] = {}
    book = BOOKS.get(size)
    for line in (book.read_text() if book is not None else "").splitlines():
        if line.startswith("#"):
            continue
        for entry in line.split():
            black, white, move = entry.split(":")
            moves[_masks(size, black), _masks(size, white)] = board(size).cell_of[move]
    return moves


def winning_cell(size: int, black: int, white: int, colour: int) -> int | None:
    """A proven winning cell for `colour` to move, or None when the book has none.
    The book's positions come from play with Black first: the colour to move has as
    many stones as the other (Black) or one fewer (White)."""
    moves = table(size)
    if not moves or black.bit_count() - white.bit_count() != colour:
        return None
    cell = moves.get((black, white))
    if cell is not None:
        return cell
    cells = size * size
    cell = moves.get((turn(black, cells), turn(white, cells)))
    return None if cell is None else cells - 1 - cell


def settled(size: int, black: int, white: int, colour: int) -> tuple[int, int | None] | None:
    """What the book proves of the position with `colour` to move: (colour, a winning
    cell) when it holds one; (the other colour, None) when it holds a winning answer to
    every stone `colour` may place; None when it settles neither."""
    cell = winning_cell(size, black, white, colour)
    if cell is not None:
        return colour, cell
    empty = [c for c in range(size * size) if not (black | white) >> c & 1]
    if colour == 0:
        answered = (winning_cell(size, black | 1 << c, white, 1) for c in empty)
    else:
        answered = (winning_cell(size, black, white | 1 << c, 0) for c in empty)
    if empty and all(answer is not None for answer in answered):
        return colour ^ 1, None
    return None


def key_of(size: int, black: int, white: int) -> Position:
    """The stones as the book keeps them: of a position and its turn, the smaller."""
    cells = size * size
    return min((black, white), (turn(black, cells), turn(white, cells)))


@contextmanager
def set_aside(size: int) -> Iterator[None]:
    """No book for `size` boards while inside: the search alone, as measured."""
    kept = BOOKS.pop(size, None)
    table.cache_clear()
    try:
        yield
    finally:
        if kept is not None:
            BOOKS[size] = kept
        table.cache_clear()
