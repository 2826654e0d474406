"""What the tests of Short Circuit share: games to replay and positions set on the board
directly."""

from __future__ import annotations

from collections.abc import Iterable

from engine.notation import point
from engine.shortcircuit import ShortCircuitState
from tests.conftest import game

#: A game Player 1 wins with the ring d4 c4 b3 b2 c2 d3 around c3 (side 5).
LOOP_GAME = [
    "b e5",  # setup: Player 2 on the centre
    "r d4",  # setup: Player 1 next to it
    "y c4",
    "g f5",
    "r b3",
    "b g5",
    "y b2",
    "g h5",
    "r c2",
    "b i5",
    "y d3",  # closes the ring around c3
]
#: Player 2 pops Player 1's only connector (f5) and wins.
POP_LAST_GAME = ["b e5", "y f5", "cap f5", "g d5", "cap e4", "pop e4 f5", "g f6"]


def new(**options: object) -> ShortCircuitState:
    return game(ShortCircuitState, **options)


def played(moves: Iterable[str], **options: object) -> ShortCircuitState:
    return game(ShortCircuitState, *moves, **options)


def position(
    *,
    size: int = 3,
    mover: int = 0,
    red: str = "",
    yellow: str = "",
    blue: str = "",
    green: str = "",
    caps: str = "",
    **options: object,
) -> ShortCircuitState:
    """A normal-turn position set directly on the board (cells as "c3 d4")."""
    state = new(size=size, **options)
    state._colours = [_mask(state, cells) for cells in (red, yellow, blue, green)]
    state._caps = _mask(state, caps)
    state._mover = mover
    state._turns = 2
    return state


def _mask(state: ShortCircuitState, cells: str) -> int:
    return sum(1 << state._board.bit_at[point(cell)] for cell in cells.split())


#: Red c3 and yellow d3; every other cell next to them is Player 2's, so Player 1
#: has no direct connector placement. d4 and c2 touch both c3 and d3.
BOXED = {"red": "c3", "yellow": "d3", "blue": "b3 c4 e3 d2 e4", "green": "d4 c2 b2"}
