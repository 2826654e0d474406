"""Algebraic coordinates shared by every game.

Columns run a..z, then aa, ab, ... (spreadsheet style); rows are numbered
from 1. A point is kept as 0-based (column, row). Separators between
coordinates may be spaces, a hyphen or nothing: "d5 g3", "d5-g3", "d5g3".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from engine.core import Code, IllegalMove, shown
from engine.registry import GAMES, new

Point = tuple[int, int]

_CELL = re.compile(r"([a-z]{1,3})(\d{1,4})")
_CELLS_ONLY = re.compile(r"(?:[a-z]{1,3}\d{1,4})(?:[\s-]*[a-z]{1,3}\d{1,4})*")
#: A word shaped like one or more coordinates ("d5", "e44", "a1-b2", "d5g3"), in any game
_CELLS_WORD = re.compile(r"[a-z]{1,2}\d{1,3}(?:-?[a-z]{1,2}\d{1,3})*")
#: What may trail a word in chat ("d5!", "swap?") and still leave the word meant
_TRAILING = ".,;:!?"


def column_label(column: int) -> str:
    """0 -> "a", 25 -> "z", 26 -> "aa"."""
    label = ""
    column += 1
    while column:
        column, rest = divmod(column - 1, 26)
        label = chr(ord("a") + rest) + label
    return label


def column_index(label: str) -> int:
    """ "a" -> 0, "aa" -> 26."""
    index = 0
    for ch in label:
        index = index * 26 + (ord(ch) - ord("a") + 1)
    return index - 1


def label(point: Point) -> str:
    """(3, 4) -> "d5"."""
    return f"{column_label(point[0])}{point[1] + 1}"


def point(text: str) -> Point:
    """ "d5" -> (3, 4). The text must be one well-formed coordinate: a game that reads
    a player's move refuses anything else in its own words, with a legal example."""
    match = _CELL.fullmatch(text)
    if match is None:
        raise IllegalMove(f"{shown(text)} is not a coordinate.", code=Code.SYNTAX)
    return column_index(match[1]), int(match[2]) - 1


def points(text: str) -> list[Point]:
    """Every coordinate in `text` ("d5 g3", "d5-g3", "d5g3"), in order.

    Refuses text that holds anything but coordinates and separators (a game that reads
    a player's move refuses it in its own words, with a legal example).
    """
    compact = text.strip()
    if not _CELLS_ONLY.fullmatch(compact):
        raise IllegalMove(f"{shown(text)} is not a list of coordinates.", code=Code.SYNTAX)
    return [(column_index(m[1]), int(m[2]) - 1) for m in _CELL.finditer(compact)]


def sort_key(text: str) -> tuple[object, ...]:
    """Natural order for move text: a2 before a10, columns before rows."""
    key: list[object] = []
    for word in re.findall(r"[a-z]+\d+|[a-z]+|\d+|[^a-z\d]+", text):
        cell = _CELL.fullmatch(word)
        if cell:
            key.append((0, column_index(cell[1]), int(cell[2]), ""))
        else:
            key.append((1, 0, 0, word))
    return tuple(key)


def reads_as_move(text: str) -> bool:
    """Whether a chat line reads as an attempt at a move in any of the games: it starts
    with a word shaped like coordinates ("d5 g3", "e44", "a1-b2", "D5"), or with a
    game's move word and a coordinate ("pop e5", "r d4"), or is a word that is a whole
    move ("swap"). Other chat ("gg", "I think e5 was a mistake", a link) is not."""
    words = text.strip().lower().split()
    if not words:
        return False
    first = words[0].rstrip(_TRAILING)
    if _CELLS_WORD.fullmatch(first):
        return True
    if len(words) == 1:
        return any(first in info.word_moves for info in GAMES.values())
    opens_a_move = any(first in info.move_words for info in GAMES.values())
    return opens_a_move and _CELLS_WORD.match(words[1]) is not None


@dataclass(frozen=True, slots=True)
class Example:
    """A move typed in a game on the default board: `move`, legal after the moves
    `before` (empty for the first move)."""

    before: tuple[str, ...]
    move: str


@cache
def notation_examples(name: str, count: int = 3, within: int = 12) -> tuple[Example, ...]:
    """`count` moves of one game's opening on the default board that show its notation:
    the first move of each kind (a cell, swap, cap, pop), then the earliest others. The
    opening plays a move of a kind not yet seen where there is one, else the middle
    legal move, for at most `within` moves."""
    state = new(name)
    line: list[Example] = []
    seen: set[str] = set()
    while len(line) < within and state.outcome is None:
        legal = state.legal_moves()
        fresh = [move for move in legal if _kind(move) not in seen] or legal
        move = fresh[len(fresh) // 2]
        seen.add(_kind(move))
        line.append(Example(state.moves, move))
        state = state.play(move)
    first_of_kinds = {_kind(example.move): example for example in reversed(line)}.values()
    picked = set(first_of_kinds)
    picked.update([example for example in line if example not in picked][: count - len(picked)])
    return tuple(example for example in line if example in picked)[:count]


def _kind(move: str) -> str:
    """A move's kind: its word ("swap", "cap", "pop"), or none for a piece named by its
    cells (a colour's initial, as Short Circuit's record writes it, is no kind of its own)."""
    word = move.split(" ", 1)[0]
    return word if len(word) > 1 and word.isalpha() else ""
