"""Boards are drawn in worker processes, so drawing never holds the bot's event loop
(its heartbeats, its other games) and uses the machine's other cores.

A worker gets the position itself: a state pickles without the tables its game
shares between states (a few kilobytes; the worker keeps its own tables), so a
board never costs the worker a replay.

Two lanes of workers: the board after a move never queues behind a slower
picture (a whole game's GIF, a board asked for, the groups overlay, a board of
the past), which has a worker of its own. A worker that dies (the
out-of-memory killer, a crash) is replaced and the picture drawn again once;
workers exit when the bot does, even when it is killed outright.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from functools import partial
from typing import TypeVar

from bot.render import render_gif, render_png, tables
from engine import GameState

log = logging.getLogger("paperboard.painter")

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
                log.warning("a %s drawing worker died; starting new ones", self.name)
                executor.shutdown(wait=False, cancel_futures=True)
                self.executor = self._start()
            return await loop.run_in_executor(self.executor, call)

    def close(self) -> None:
        self.executor.shutdown(wait=True, cancel_futures=True)


class Painter:
    """Draws boards and replays in worker processes: `processes` for the boards of moves,
    one more for slow pictures (0: a thread of this process for each)."""

    def __init__(self, processes: int) -> None:
        self.boards = Lane("boards", processes)
        self.slow = Lane("slow", min(processes, 1))

    async def png(
        self,
        state: GameState,
        *,
        players: Sequence[str],
        groups: bool = False,
        caption: str | None = None,
        slow: bool = False,
        suggestion: str | None = None,
    ) -> bytes:
        """The board of `state` (with `suggestion` drawn as a suggested move); `slow` for
        pictures that may wait (all but a move's board)."""
        lane = self.slow if slow else self.boards
        return await lane.run(
            partial(
                render_png,
                state,
                players=tuple(players),
                groups=groups,
                caption=caption,
                suggestion=suggestion,
            )
        )

    async def gif(self, state: GameState, *, players: Sequence[str]) -> bytes:
        return await self.slow.run(
            partial(render_gif, state.name, state.options, state.moves, players=tuple(players))
        )

    async def table(
        self, table: tables.StandingsTable | tables.Crosstable | tables.Bracket
    ) -> bytes:
        """An event's standings, crosstable or bracket."""
        return await self.slow.run(partial(draw_table, table))

    def close(self) -> None:
        self.boards.close()
        self.slow.close()


def draw_table(table: tables.StandingsTable | tables.Crosstable | tables.Bracket) -> bytes:
    """The picture of an event's table, in a worker."""
    if isinstance(table, tables.Bracket):
        return tables.bracket_png(table)
    if isinstance(table, tables.Crosstable):
        return tables.crosstable_png(table)
    return tables.standings_png(table)


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
