"""Pools of worker processes for CPU-heavy work, off the event loop: the boards the
service draws (bot/service/core/painter.py) and the bot's searches (bot/schedule/airunner.py).

A `Lane` is a pool of spawned processes (or, with 0 processes, one thread of this
process). A worker that dies (the out-of-memory killer, a crash) is replaced and the call
run again once; workers run at a lower priority than the bot's event loop, and exit when
the bot does, even when it is killed outright.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import TypeVar

log = logging.getLogger("paperboard.workers")

#: How often a worker checks that the bot that started it is still there.
PARENT_CHECK_SECONDS = 0.5
#: Drawing workers run at a lower priority than the bot's event loop.
WORKER_NICENESS = 10

T = TypeVar("T")


class Lane:
    """Worker processes (0: one thread of this process) that are started again when one dies."""

    def __init__(self, name: str, processes: int, niceness: int = WORKER_NICENESS) -> None:
        self.name = name
        self.processes = processes
        self.niceness = niceness
        self.executor = self._start()

    def _start(self) -> Executor:
        if self.processes == 0:
            return ThreadPoolExecutor(1, thread_name_prefix=f"paperboard-{self.name}")
        # spawn: the workers start clean, without this process's threads and event loop
        executor = ProcessPoolExecutor(
            self.processes,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_start_worker,
            initargs=(os.getpid(), self.niceness),
        )
        # start the workers now, not on the first move (a worker takes a second to start)
        for _ in range(self.processes):
            executor.submit(_ready)
        return executor

    async def run(self, call: Callable[[], T]) -> T:
        loop = asyncio.get_running_loop()
        executor = self.executor
        try:
            return await loop.run_in_executor(executor, call)
        except BrokenProcessPool:
            if self.executor is executor:  # the first to notice starts new workers
                log.warning("a %s worker died; starting new ones", self.name)
                executor.shutdown(wait=False, cancel_futures=True)
                self.executor = self._start()
            return await loop.run_in_executor(self.executor, call)

    def close(self) -> None:
        self.executor.shutdown(wait=True, cancel_futures=True)


def _ready() -> None:
    """Nothing: submitted once per worker so that it starts (and imports) at once."""


def _start_worker(parent: int, niceness: int) -> None:
    """Worker initializer. The worker yields the CPU to the bot (on a busy machine an
    event loop waiting for a core stalls as surely as a busy one), and it ends when the
    bot that started it is gone, even killed outright (no clean shutdown tells the
    worker); the multiprocessing resource tracker then ends too, when the last process
    holding its pipe is gone."""
    os.nice(niceness)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_CHECK_SECONDS)
        os._exit(0)

    threading.Thread(target=watch, name="paperboard-parent-watch", daemon=True).start()
