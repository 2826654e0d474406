"""Boards are drawn in worker processes, so drawing never holds the bot's event loop
(its heartbeats, its other games) and uses the machine's other cores.

A worker gets the position itself: a state pickles without the tables its game
shares between states (a few kilobytes; the worker keeps its own tables), so a
board never costs the worker a replay.

Two lanes of workers: the board after a move never queues behind a slower
picture (a whole game's GIF, a board asked for, the groups overlay, a board of
the past), which has a worker of its own. A worker that dies (the
out-of-memory killer, a crash) is replaced and the picture drawn again once;
workers exit when the bot does, even when it is killed outright (bot/workers.py).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from functools import partial

from bot.render import bracket, gallery, render_gif, render_png, tables
from bot.workers import Lane
from engine import GameState


class Painter:
    """Draws boards and replays in worker processes: `processes` for the boards of moves,
    one more for slow pictures (0: a thread of this process for each)."""

    def __init__(self, processes: int) -> None:
        self.boards = Lane("boards", processes)
        self.slow = Lane("slow", min(processes, 1))
        # the gallery's pictures (game, stage) -> the drawing: each drawn once, then kept
        self._gallery: dict[tuple[str, str], asyncio.Future[bytes]] = {}

    async def png(
        self,
        state: GameState,
        *,
        players: Sequence[str],
        groups: bool = False,
        caption: str | None = None,
        slow: bool = False,
        suggestion: str | None = None,
        scale: int = 1,
    ) -> bytes:
        """The board of `state` (with `suggestion` drawn as a suggested move, at `scale`
        times the pixels: `render_png`); `slow` for pictures that may wait (all but a
        move's board)."""
        lane = self.slow if slow else self.boards
        return await lane.run(
            partial(
                render_png,
                state,
                players=tuple(players),
                groups=groups,
                caption=caption,
                suggestion=suggestion,
                scale=scale,
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

    async def gallery(self, game: str, stage: str) -> bytes:
        """The gallery's picture of `game` at `stage` (bot/render/gallery.py): drawn in the
        slow lane once, whoever asks meanwhile waits for that drawing; kept (a few dozen
        kilobytes a picture). A failed drawing is tried again at the next request."""
        key = (game, stage)
        drawing = self._gallery.get(key)
        if drawing is None:
            drawing = asyncio.ensure_future(self.slow.run(partial(gallery.picture, game, stage)))
            self._gallery[key] = drawing
        try:
            return await asyncio.shield(drawing)
        except Exception:
            if self._gallery.get(key) is drawing and drawing.done():
                del self._gallery[key]
            raise

    def close(self) -> None:
        self.boards.close()
        self.slow.close()


def draw_table(table: tables.StandingsTable | tables.Crosstable | tables.Bracket) -> bytes:
    """The picture of an event's table, in a worker."""
    if isinstance(table, tables.Bracket):
        return bracket.bracket_png(table)
    if isinstance(table, tables.Crosstable):
        return tables.crosstable_png(table)
    return tables.standings_png(table)
