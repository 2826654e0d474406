"""Hexagonal-cell geometry shared by Hex, Disthex and Short Circuit.

Cells are 0-based (column, row) points. The two boards use the same six
axial directions seen from opposite sides: Hex numbers rows downward,
Short Circuit upward.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.notation import Point

#: Hex/Disthex rhombus, rows top to bottom: (c, r-1) (c+1, r-1) (c±1, r) (c-1, r+1) (c, r+1).
RHOMBUS_DIRECTIONS: tuple[Point, ...] = ((0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1))

#: Short Circuit hex-hex, rows bottom to top: (q±1, r) (q, r±1) (q+1, r+1) (q-1, r-1).
HEXHEX_DIRECTIONS: tuple[Point, ...] = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1))


def neighbour_table(
    cells: Sequence[Point], directions: Sequence[Point]
) -> tuple[tuple[int, ...], ...]:
    """For each cell (by index in `cells`), the indices of its neighbours on the board."""
    index = {cell: i for i, cell in enumerate(cells)}
    return tuple(
        tuple(index[(c + dc, r + dr)] for dc, dr in directions if (c + dc, r + dr) in index)
        for c, r in cells
    )


def hexhex_cells(side: int) -> tuple[Point, ...]:
    """The cells of a hex-hex board of the given side: 0 <= q, r <= 2s-2, |q - r| <= s-1."""
    span = 2 * side - 1
    return tuple((q, r) for r in range(span) for q in range(span) if abs(q - r) <= side - 1)
