"""A move looked at before it is played: read and checked for its player, drawn, never
played. The misclick guard's preview and the game page's taps are this one piece; `Play`
(bot/service/play/moves.py) is built on it and plays what a confirmation sends."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from sqlalchemy.ext.asyncio import AsyncConnection

from bot.render import render_text, tap_targets
from bot.service.core.models import GameSummary, MovePreview, Player, Refused, ServiceCode, TapBoard
from bot.service.core.records import Records
from bot.service.core.rules import check_ids, seat_names_now
from bot.store import Database
from engine import GameState, IllegalMove

T = TypeVar("T")


class Previews:
    """The checks a move passes before it is played, and the previews built on them."""

    records: Records
    db: Database

    async def preview(
        self,
        game_id: int,
        guild_id: int,
        player: Player,
        text: str,
        *,
        taps: Sequence[str] = (),
        expected_ply: int | None = None,
        drawn: bool = True,
        scale: int = 1,
    ) -> MovePreview:
        """`text`, or the move `taps` write on the board picture (the engine's
        `tapped`), checked for `player` and drawn (with `drawn`, at `scale` times the
        pixels: `render_png`) but not played: a `MovePreview`, which `move(...,
        expected_ply=preview.ply)` plays if the game has not moved on. Taps that are no
        whole move yet come back unchecked beyond themselves, `whole` false. Refused as
        a move would be, in one sentence."""
        check_ids(game_id, guild_id, player.id)
        async with self.db.read() as conn:
            row, summary, seat, state = await self._position(
                conn, game_id, guild_id, player, expected_ply
            )
        if taps:
            tapped = _engine_says(lambda: state.tapped(taps))
            if not tapped.whole:
                return MovePreview(summary, row.ply, tapped.text, "", b"", "", whole=False)
            text = tapped.text
        after = _engine_says(lambda: state.play(text))
        png = b""
        if drawn:
            shown_then = seat_names_now(summary, after)
            png = await self.records.render(
                game_id, after, shown_then, groups=False, after_move=True, scale=scale
            )
        entries = zip(after.moves[state.ply :], after.actors[state.ply :], strict=True)
        played = ", ".join(entry for entry, actor in entries if actor == seat)
        typed = " ".join(text.lower().split())
        return MovePreview(summary, row.ply, typed, played, png, render_text(after))

    async def tap_board(self, game_id: int, guild_id: int, player: Player) -> TapBoard:
        """Where `player`, to move, may tap on the board's picture now, and the tools
        beside it; refused as a move would be (not seated, not their turn, over)."""
        check_ids(game_id, guild_id, player.id)
        async with self.db.read() as conn:
            row, summary, _, state = await self._position(conn, game_id, guild_id, player, None)
        return TapBoard(summary, row.ply, tap_targets(state), state.tap_tools())

    async def _checked_move(
        self, game_id: int, guild_id: int, player: Player, text: str, expected_ply: int | None
    ) -> tuple[Any, GameSummary, int, GameState, GameState]:
        """A move read and checked outside the write lock (SQLite has one writer; WAL
        readers never wait): its commit then holds only if the game row is still the one
        read. The row, summary, seat, the position and the position after the move."""
        async with self.db.read() as conn:
            row, summary, seat, state = await self._position(
                conn, game_id, guild_id, player, expected_ply
            )
        return row, summary, seat, state, _engine_says(lambda: state.play(text))

    async def _position(
        self,
        conn: AsyncConnection,
        game_id: int,
        guild_id: int,
        player: Player,
        expected_ply: int | None,
    ) -> tuple[Any, GameSummary, int, GameState]:
        """The game's row, summary, `player`'s seat and the position, where it is their
        turn on the board they saw (`expected_ply`); refused otherwise."""
        row, summary, seat = await self.records.seated(conn, game_id, guild_id, player, lock=False)
        if expected_ply is not None and expected_ply != row.ply:
            raise Refused(
                f"This board is out of date: the game is at move {row.ply} now.",
                code=ServiceCode.STALE,
            )
        state = await self.records.load_state(conn, row)
        if state.to_move != seat:
            to_move = summary.name_of_seat(state.to_move) if state.to_move is not None else "nobody"
            raise Refused(
                f"It is not your turn: {to_move} is to move.", code=ServiceCode.NOT_YOUR_TURN
            )
        return row, summary, seat, state


def _engine_says(ask: Callable[[], T]) -> T:
    """What the engine answers, its refusal of a move as the service's (its sentence)."""
    try:
        return ask()
    except IllegalMove as illegal:
        raise Refused(str(illegal), code=illegal.code) from None
