"""Caches kept within a memory budget rather than a count: what a cache of pages may hold
is a matter of bytes, and a count small enough for long games is too small for a
realistic working set of short ones."""

from __future__ import annotations

import sys
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")

#: What a game's page as read takes beyond its moves, and each of its moves (its text,
#: time and mover, its board's version): measured with tracemalloc, rounded up. 128 MB
#: hold some 7,000 games of 80 moves (18 kB each); bench/web.py's 3,000 games (Hex 11,
#: Hot Wire 9x9, Short Circuit: 140 moves on average) take 81 MB.
KEPT_GAME_BYTES, KEPT_MOVE_BYTES = 2_000, 200


class SizedCache(Generic[K, V]):
    """A cache that keeps what it holds within `budget` bytes, as `size_of` counts each
    value: the least recently used forgotten first."""

    def __init__(self, budget: int, size_of: Callable[[V], int]) -> None:
        self.budget = budget
        self.size_of = size_of
        self.bytes = 0  # what the values kept take, as `size_of` counts them
        self._kept: OrderedDict[K, tuple[V, int]] = OrderedDict()  # key: value, its size

    def __len__(self) -> int:
        return len(self._kept)

    def get(self, key: K) -> V | None:
        """The value kept for `key` (now the most recently used), or None."""
        found = self._kept.get(key)
        if found is None:
            return None
        self._kept.move_to_end(key)
        return found[0]

    def keep(self, key: K, value: V) -> None:
        """`value` the newest; the oldest forgotten until the rest fit the budget."""
        self.forget(key)
        size = self.size_of(value)
        self._kept[key] = (value, size)
        self.bytes += size
        while self.bytes > self.budget and len(self._kept) > 1:
            _, (_, gone) = self._kept.popitem(last=False)
            self.bytes -= gone

    def forget(self, key: K) -> None:
        found = self._kept.pop(key, None)
        if found is not None:
            self.bytes -= found[1]

    def clear(self) -> None:
        self._kept.clear()
        self.bytes = 0


def web_game_bytes(kept: Any) -> int:
    """What a game's page as read takes (bot/service/web/pages.py's `_Kept`)."""
    return KEPT_GAME_BYTES + KEPT_MOVE_BYTES * len(kept.record)


def text_bytes(*texts: str) -> int:
    """The memory these strings take."""
    return sum(sys.getsizeof(text) for text in texts)
