"""Hex's and Disthex's playouts compiled: engine/ai/hexai.py's bridge-saving fill and
Disthex's fill (see its C source)."""

from collections.abc import Sequence
from typing import TypeVar

Move = TypeVar("Move")

#: the largest board side the module's tables hold
MAX_SIZE: int

class Playout:
    def __init__(
        self,
        size: int,
        neighbours: tuple[tuple[int, ...], ...],
        bridges: tuple[tuple[tuple[int, int, int], ...], ...],
    ) -> None: ...
    def run(
        self, stones: list[int], colour: int, seed: int, moves: tuple[tuple[Move, ...], ...]
    ) -> tuple[bool, list[Move]]: ...
    def run_disthex(
        self,
        stones: list[int],
        colour: int,
        last: int,
        seed: int,
        moves: tuple[tuple[Move, ...], ...],
    ) -> tuple[bool, list[Move]]: ...
    def fill(self, stones: list[int], colour: int, order: Sequence[int]) -> None: ...
    def fill_disthex(
        self, stones: list[int], colour: int, last: int, draws: Sequence[int]
    ) -> list[int]: ...
    def completing(self, stones: list[int], colour: int) -> set[int]: ...
