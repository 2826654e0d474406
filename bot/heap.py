"""The garbage collector and a long-running process: what start-up made stays for the
process's life, and a full collection that scans it holds the event loop.

So while a process runs, its long-lived heap is frozen (left out of collections): what
start-up made, and after each full collection what survived it (open live pages'
streams, kept games, caches: with 2,000 pages open a full pass over them held the loop
110-180 ms). A frozen object freed by its count goes as any other; one that dies in a
reference cycle is only collected once the heap is thawed, every THAW_SECONDS: one
full pass an hour instead of one every few seconds.
"""

from __future__ import annotations

import contextlib
import gc
import time
from types import TracebackType
from typing import Any

#: How often the frozen heap is given back to the collector's next full collection.
THAW_SECONDS = 3600.0


class LongLived:
    """Keeps the long-lived heap frozen from `start` (start-up done) to `stop` (a
    `gc.callbacks` entry meanwhile); also a context manager."""

    def __init__(self) -> None:
        self.thawed = time.monotonic()

    def start(self) -> None:
        """Freeze what start-up made (its garbage collected first: ~40,000 objects
        tracked made each full collection hold the loop for tens of milliseconds), then
        each full collection's survivors."""
        gc.collect()
        gc.freeze()
        self.thawed = time.monotonic()
        gc.callbacks.append(self)

    def stop(self) -> None:
        with contextlib.suppress(ValueError):  # stopped already
            gc.callbacks.remove(self)

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if phase != "stop" or info["generation"] != 2:
            return
        # the collection is over: the younger generations are empty, its garbage gone
        if time.monotonic() - self.thawed < THAW_SECONDS:
            gc.freeze()
        else:
            gc.unfreeze()
            self.thawed = time.monotonic()

    def __enter__(self) -> LongLived:
        self.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.stop()
