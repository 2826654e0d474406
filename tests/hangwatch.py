"""A test that hangs fails, and says where: the suite ends instead of waiting for its
runner's timeout with nothing to show.

Past HANG_SECONDS a test's report gets the stacks of every thread and of every pending
asyncio task (an idle event loop waiting on a future that nothing will resolve shows
only as a thread in `select`), and the test's tasks are cancelled so that it fails
there. A test that does not end even then (a hang outside the event loop) ends its
worker process after GRACE_SECONDS more; pytest-xdist reports the crash with the test's
name. Tests marked `alone` (minutes of a fresh clone's own suite) are not watched.
"""

from __future__ import annotations

import asyncio
import contextlib
import faulthandler
import io
import os
import sys
import tempfile
import threading
from collections.abc import Iterator
from typing import Any

import pytest

HANG_SECONDS = 600.0
GRACE_SECONDS = 60.0
DUMP = pytest.StashKey[str]()


def _tasks() -> list[asyncio.Task[Any]]:
    """Every event loop's tasks, read from outside them all (a copy taken while a loop
    adds one fails: tried again)."""
    for _ in range(100):
        with contextlib.suppress(RuntimeError):
            return list(asyncio.tasks._all_tasks)
    return []


def stacks() -> str:
    """Every thread's stack and every pending asyncio task's, as text."""
    with tempfile.TemporaryFile("w+") as out:  # faulthandler writes to a file descriptor
        faulthandler.dump_traceback(out, all_threads=True)
        out.seek(0)
        text = [out.read()]
    for task in _tasks():
        if task.done():
            continue
        frames = io.StringIO()
        task.print_stack(file=frames)
        text.append(frames.getvalue())
    return "\n".join(text)


def _cancel_tasks() -> None:
    for task in _tasks():
        loop = task.get_loop()
        if not task.done() and loop.is_running():
            loop.call_soon_threadsafe(task.cancel)


def _watch(item: pytest.Item, ended: threading.Event) -> None:
    if ended.wait(HANG_SECONDS):
        return
    dump = stacks()
    item.stash[DUMP] = dump
    sys.stderr.write(f"{item.nodeid} is still running after {HANG_SECONDS:g} s:\n{dump}\n")
    _cancel_tasks()
    if not ended.wait(GRACE_SECONDS):
        sys.stderr.write(f"{item.nodeid} did not end when cancelled: ending its process\n")
        sys.stderr.flush()
        os._exit(1)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Iterator[None]:
    if item.get_closest_marker("alone") is not None:
        return (yield)
    ended = threading.Event()
    threading.Thread(target=_watch, args=(item, ended), name="hangwatch", daemon=True).start()
    try:
        return (yield)
    finally:
        ended.set()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item) -> Iterator[pytest.TestReport]:
    report: pytest.TestReport = yield
    dump = item.stash.get(DUMP, None)
    if dump is not None:
        del item.stash[DUMP]  # in the report of the phase that hung, once
        report.sections.append((f"stacks after {HANG_SECONDS:g} s", dump))
    return report
