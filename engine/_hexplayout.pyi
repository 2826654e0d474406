"""Hex's playouts compiled: engine/ai/hexai.py's bridge-saving fill (see its C source)."""

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
    def fill(self, stones: list[int], colour: int, order: Sequence[int]) -> None: ...
