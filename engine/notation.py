"""Algebraic coordinates shared by every game.

Columns run a..z, then aa, ab, ... (spreadsheet style); rows are numbered
from 1. A point is kept as 0-based (column, row). Separators between
coordinates may be spaces, a hyphen or nothing: "d5 g3", "d5-g3", "d5g3".
"""

from __future__ import annotations

import re

from engine.core import Code, IllegalMove, shown

Point = tuple[int, int]

_CELL = re.compile(r"([a-z]{1,3})(\d{1,4})")
_CELLS_ONLY = re.compile(r"(?:[a-z]{1,3}\d{1,4})(?:[\s-]*[a-z]{1,3}\d{1,4})*")


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
    """ "d5" -> (3, 4). The text must be one well-formed coordinate."""
    match = _CELL.fullmatch(text)
    if match is None:
        raise IllegalMove(f"{shown(text)} is not a coordinate like d5.", code=Code.SYNTAX)
    return column_index(match[1]), int(match[2]) - 1


def points(text: str) -> list[Point]:
    """Every coordinate in `text` ("d5 g3", "d5-g3", "d5g3"), in order.

    Refuses text that holds anything but coordinates and separators.
    """
    compact = text.strip()
    if not _CELLS_ONLY.fullmatch(compact):
        raise IllegalMove(
            f"I can't read {shown(text)}: type coordinates like d5 g3.", code=Code.SYNTAX
        )
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
