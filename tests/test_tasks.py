"""Stopping a background task: its cancellation is quiet, its owner's is not."""

from __future__ import annotations

import asyncio

import pytest

from bot.tasks import stop_task


async def test_a_stopped_task_ends_quietly() -> None:
    task = asyncio.create_task(asyncio.sleep(3600))
    await stop_task(task)
    assert task.cancelled()


async def test_the_owners_own_cancellation_is_not_swallowed() -> None:
    """A shutdown cancels the owner while it waits for a task that takes a moment to end:
    the owner must end there, not go on as if it had never been cancelled."""
    went_on = False

    async def slow_to_stop() -> None:
        try:
            await asyncio.sleep(3600)
        finally:
            await asyncio.sleep(0.05)  # its cleanup, under way when the owner is cancelled

    async def owner() -> None:
        nonlocal went_on
        task = asyncio.create_task(slow_to_stop())
        await asyncio.sleep(0)  # it has started
        await stop_task(task)
        went_on = True

    stopping = asyncio.create_task(owner())
    await asyncio.sleep(0.01)  # the owner waits for the task's cleanup
    stopping.cancel()
    with pytest.raises(asyncio.CancelledError):
        await stopping
    assert not went_on
