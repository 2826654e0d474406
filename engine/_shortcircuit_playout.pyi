"""Short Circuit's random playouts compiled: RandomPlayout.run's loop (see its C source)."""

from collections.abc import Callable

#: the bitboards' size: boards whose mask has more bits play in Python
BITS: int

def run(
    board: tuple[int, int, int, int, int, int],
    state: list[int],
    draw: Callable[[], float],
    reachable: Callable[[int, list[int], int], bool],
    limit: int,
    played: list[tuple[int, tuple[int, int, int]]],
    take_wins: bool,
) -> None: ...
