"""Background tasks: waiting in them, and ending them from the code that owns them.

Python 3.11's `asyncio.wait_for` loses a cancellation that comes in the same turn of the
event loop as the end of what it waits for: it returns that result instead, and a loop
around it runs on. A task stopped then never ends, and whoever waits for it waits
forever. `asyncio.timeout` has no such gap; the bot's loops wait with it (`wait_set`).
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any


async def wait_set(event: asyncio.Event, seconds: float) -> bool:
    """Wait at most `seconds` for `event`; whether it is set."""
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(seconds):
            await event.wait()
    return event.is_set()


async def stop_task(task: asyncio.Task[Any]) -> None:
    """Cancel `task` and wait until it has ended. The task's cancellation is expected and
    kept quiet; the caller's own is not (swallowing it would leave a shutdown, which
    cancels its callers, waiting for a caller that goes on as if nothing happened)."""
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        current = asyncio.current_task()
        if current is not None and current.cancelling():
            raise
