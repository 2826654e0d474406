"""The garbage collector and a long-running process: what start-up made stays for the
process's life, and a full collection that scans it holds the event loop."""

from __future__ import annotations

import gc


def freeze_start_up() -> None:
    """Leave everything start-up made (modules, the commands, the pages' templates, the
    scheduler, warm caches) out of every later collection, its garbage collected first:
    with ~40,000 such objects tracked, each full collection held the event loop for tens
    of milliseconds, and one could land in any request."""
    gc.collect()
    gc.freeze()
