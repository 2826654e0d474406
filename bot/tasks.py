"""Ending a background task from the code that owns it."""

from __future__ import annotations

import asyncio
from typing import Any


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
