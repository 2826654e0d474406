"""Background tasks end when they are told to: a wait never loses a cancellation, and
stopping a task never swallows its owner's."""

from __future__ import annotations

import ast
import asyncio

import pytest

from bot.schedule.airunner import AiRunner
from bot.service import GameService
from bot.tasks import stop_task, wait_set
from tests.parsed_sources import ROOT, TREES


async def test_a_loop_waiting_on_an_event_ends_when_cancelled_as_the_event_is_set() -> None:
    """asyncio.wait_for (Python 3.11) returns the event instead of the cancellation when
    both come in one turn of the event loop, and the loop around it runs on."""
    wake = asyncio.Event()

    async def loop() -> None:
        while True:
            wake.clear()
            await wait_set(wake, 0.2)

    task = asyncio.create_task(loop())
    await asyncio.sleep(0.05)
    wake.set()
    task.cancel()  # in the same turn
    async with asyncio.timeout(5):
        with pytest.raises(asyncio.CancelledError):
            await task


async def test_the_ai_runner_stops_when_work_comes_as_it_is_stopped(service: GameService) -> None:
    """A poke (a search that ended, a bot's turn) in the turn that stops the runner."""
    runner = AiRunner(service, None, processes=0, poll=60.0)
    await runner.start()
    await asyncio.sleep(0.05)  # the runner waits for work
    runner.poke()
    async with asyncio.timeout(10):
        await runner.stop()


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


def test_the_bot_never_waits_with_asyncio_wait_for() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{node.lineno}"
        for path, tree in TREES.items()
        if path.is_relative_to(ROOT / "bot")
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and node.attr == "wait_for"
        and isinstance(node.value, ast.Name)
        and node.value.id == "asyncio"
    ]
    assert not found, f"asyncio.timeout instead (bot/tasks.py says why): {found}"
