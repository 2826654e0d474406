"""Pauses of the garbage collector: what start-up made, and what outlives a full
collection, is left out of the next ones."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import weakref
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import bot.web.runner
import engine
from bot import cli
from bot.console import Console
from bot.heap import THAW_SECONDS, LongLived
from bot.settings import Settings


class StartUpMade:
    """An object start-up makes and keeps (a template, a command): long-lived."""


def collected(thing: object) -> bool:
    """Whether the collector's generations hold `thing` (not frozen, not untracked)."""
    return any(found is thing for found in gc.get_objects())


@pytest.fixture
def unfrozen() -> Iterator[None]:
    """The test process's heap back in the collector's generations afterwards."""
    yield
    gc.unfreeze()


@pytest.fixture
def settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    monkeypatch.chdir(tmp_path)
    return Settings(  # type: ignore[call-arg]
        database_url=f"sqlite:///{tmp_path / 'pauses.db'}",
        render_processes=0,
        web_port=0,
        _env_file=None,
    )


async def test_the_web_process_freezes_what_start_up_made(
    settings: Settings, monkeypatch: pytest.MonkeyPatch, unfrozen: None
) -> None:
    made: list[StartUpMade] = []
    started = asyncio.Event()

    async def start_web(*_: Any) -> Any:
        made.append(StartUpMade())
        started.set()

        async def stop() -> None:
            pass

        return stop

    monkeypatch.setattr(bot.web.runner, "start_web", start_web)
    running = asyncio.create_task(cli.run_web(settings))
    await started.wait()
    await asyncio.sleep(0.01)  # the process waits for its stop signal now
    try:
        assert not running.done()
        assert gc.is_tracked(made[0]) and not collected(made[0])
    finally:
        running.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await running


async def test_the_console_freezes_what_start_up_made(
    settings: Settings, monkeypatch: pytest.MonkeyPatch, unfrozen: None
) -> None:
    made: list[StartUpMade] = []
    seen: list[bool] = []

    async def start_beside(*_: Any) -> None:
        made.append(StartUpMade())

    async def run(self: Console, *, interactive: bool) -> None:
        seen.append(collected(made[0]))

    monkeypatch.setattr(cli, "start_beside", start_beside)
    monkeypatch.setattr(Console, "run", run)
    assert await cli.run_console(settings) == 0
    assert seen == [False]
    assert not any(isinstance(callback, LongLived) for callback in gc.callbacks)


def test_what_outlives_a_full_collection_is_left_out_of_the_next(unfrozen: None) -> None:
    with LongLived() as keeper:
        assert keeper in gc.callbacks
        opened = StartUpMade()  # a live page's stream: made after start-up, kept
        assert collected(opened)
        gc.collect()
        assert gc.is_tracked(opened) and not collected(opened)
    assert keeper not in gc.callbacks


def test_the_frozen_heap_is_thawed_once_an_hour(unfrozen: None) -> None:
    """A cycle that dies frozen is collected after all, at the next full collection once
    the heap is thawed."""
    with LongLived() as keeper:
        cycle: list[object] = [StartUpMade()]
        cycle.append(cycle)
        gc.collect()
        assert not collected(cycle)
        gone = weakref.ref(cycle[0])
        del cycle
        gc.collect()
        assert gone() is not None  # frozen: not collected
        keeper.thawed -= THAW_SECONDS
        gc.collect()  # thaws
        gc.collect()
        assert gone() is None


def test_a_hot_wire_table_leaves_the_collector_nothing_to_scan() -> None:
    """The table every state of a board shares lives as long as the process: a full
    collection scans whatever of it the collector tracks."""
    table = engine.new("hotwire", size="11x11", lengths="any").wire_table
    gc.collect()
    gc.collect()  # a tuple of tuples is left alone once its own are
    scanned = sum(
        len(gc.get_referents(part)) for part in vars(table).values() if gc.is_tracked(part)
    )
    assert table.count > 4_000 and scanned < 100
