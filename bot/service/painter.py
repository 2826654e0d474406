"""Boards are drawn in worker processes, so drawing never holds the bot's event loop
(its heartbeats, its other games) and uses the machine's other cores.

A worker gets the record, not a pickled state, and keeps the last position of
each game it drew: the next board of that game costs only the new moves.
"""

from __future__ import annotations

import asyncio
import multiprocessing
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor

import engine
from bot.render import render_gif, render_png
from engine import GameState

POSITIONS_KEPT = 512

_positions: OrderedDict[int, GameState] = OrderedDict()  # per worker process


def _position(
    game_id: int, name: str, options: Mapping[str, object], moves: Sequence[str]
) -> GameState:
    """The position after `moves`, played on from this worker's last one when it can be."""
    state = _positions.get(game_id)
    if state is None or state.name != name or tuple(moves[: state.ply]) != state.moves:
        state = engine.replay(name, options, moves)
    else:
        state = engine.replay_onto(state, moves)
    _positions[game_id] = state
    _positions.move_to_end(game_id)
    while len(_positions) > POSITIONS_KEPT:
        _positions.popitem(last=False)
    return state


def _png(
    game_id: int,
    name: str,
    options: Mapping[str, object],
    moves: Sequence[str],
    players: Sequence[str],
    groups: bool,
    caption: str | None,
) -> bytes:
    state = _position(game_id, name, options, moves)
    return render_png(state, players=players, groups=groups, caption=caption)


class Painter:
    """Draws boards and replays in `processes` worker processes (0: a thread of this one)."""

    def __init__(self, processes: int) -> None:
        self._executor: Executor
        if processes > 0:
            # spawn: the workers start clean, without this process's threads and event loop
            self._executor = ProcessPoolExecutor(
                processes, mp_context=multiprocessing.get_context("spawn")
            )
            # start the workers now, not on the first move (a worker takes a second to start)
            for _ in range(processes):
                self._executor.submit(_ready)
        else:
            self._executor = ThreadPoolExecutor(2, thread_name_prefix="paperboard-render")

    async def png(
        self,
        game_id: int,
        state: GameState,
        *,
        players: Sequence[str],
        groups: bool = False,
        caption: str | None = None,
    ) -> bytes:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(
            self._executor,
            _png,
            game_id,
            state.name,
            state.options,
            state.moves,
            tuple(players),
            groups,
            caption,
        )

    async def gif(self, state: GameState, *, players: Sequence[str]) -> bytes:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(
            self._executor, _gif, state.name, state.options, state.moves, tuple(players)
        )

    def close(self) -> None:
        self._executor.shutdown(wait=True, cancel_futures=True)


def _ready() -> None:
    """Nothing: submitted once per worker so that it starts (and imports) at once."""


def _gif(
    name: str, options: Mapping[str, object], moves: Sequence[str], players: Sequence[str]
) -> bytes:
    return render_gif(name, options, moves, players=players)
