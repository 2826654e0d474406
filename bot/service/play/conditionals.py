"""Conditional moves: "if they play e5, I play d6; then if c3, c4".

A player leaves, for one game, lines that continue the game from where it stands: each
line is the record it would write, their opponent's moves and their own replies in
turn, checked by the engine when entered. The lines are one row per game and player
(`conditionals`): the ply they start from and the lines as record entries.

When the opponent moves (bot/service/play/moves.py calls `answer` in the move's transaction),
the lines whose start is the moves just played go on and the others are dropped; if the
lines that go on agree on the owner's next move, it is played at once, committed in the
same transaction, and the owner alone is told (`ConditionalPlayed`). A move that matches
no line drops them all, and the owner alone is told that (`ConditionalsDropped`). Undo,
resignation, a loss on time and any end of the game clear them
(`Turns.clear_conditionals`).

Two seats only: with more players the replies of several people would interleave.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.service.core.models import (
    ConditionalLines,
    ConditionalsDropped,
    GameSummary,
    Player,
    Refused,
    ServiceCode,
)
from bot.service.core.records import Records
from bot.service.core.rules import check_ids
from bot.store.schema import conditionals
from bot.store.upserts import upsert
from engine import Code, GameState, IllegalMove
from engine.core import shown

MAX_LINES = 20
MAX_LINE_MOVES = 24

_TREES = sa.select(conditionals).where(conditionals.c.game_id == sa.bindparam("game_id"))


@dataclass(frozen=True, slots=True)
class Answer:
    """What a player's lines do after an opponent's move."""

    player_id: int  # the owner
    seat: int
    answered: tuple[str, ...]  # the opponent's actions the lines matched
    texts: tuple[str, ...]  # the owner's actions to play now (may be none)
    state: GameState  # the position after them
    lines_left: int


ACTIONS = ("add", "list", "remove", "clear")


class Conditionals:
    """The use cases of a player's conditional lines."""

    def __init__(self, records: Records) -> None:
        self.records = records
        self.db = records.db
        self.clock = records.clock

    async def conditional(
        self,
        game_id: int,
        guild_id: int,
        player: Player,
        action: str | None = None,
        line: str | None = None,
    ) -> ConditionalLines:
        """The one entry of both adapters: `action` (add when a line is given, else
        list), with the `line` typed for add and remove."""
        chosen = action or ("add" if line else "list")
        if chosen not in ACTIONS:
            raise Refused(
                f"Conditional lines are {', '.join(ACTIONS)}; not {shown(chosen)}.",
                code=ServiceCode.USAGE,
            )
        if chosen in ("add", "remove") and not line:
            raise Refused(f"Type the line to {chosen}: e5 d6 c3 c4.", code=Code.BAD_LINE)
        if chosen == "add":
            return await self.add_conditional(game_id, guild_id, player, line or "")
        if chosen == "remove":
            return await self.remove_conditional(game_id, guild_id, player, line or "")
        if chosen == "clear":
            return await self.clear_conditionals_of(game_id, guild_id, player)
        return await self.conditional_lines(game_id, guild_id, player)

    async def conditional_lines(
        self, game_id: int, guild_id: int, player: Player
    ) -> ConditionalLines:
        """The player's lines in the game, as they read."""
        check_ids(game_id, guild_id, player.id)
        async with self.db.read() as conn:
            row, summary, seat = await self._pair_seat(conn, game_id, guild_id, player, lock=False)
            state = await self.records.load_state(conn, row)
            lines = await _lines(conn, game_id, player.id, state.ply)
        return _listing(summary, state, seat, lines, "")

    async def add_conditional(
        self, game_id: int, guild_id: int, player: Player, text: str
    ) -> ConditionalLines:
        """Add a line: moves in turn from the position now, starting with the opponent's
        and ending with the player's own. Refused with the move that cannot be played."""
        check_ids(game_id, guild_id, player.id)
        moves = split_line(text)
        async with self.db.write() as conn:
            row, summary, seat = await self._pair_seat(conn, game_id, guild_id, player)
            state = await self.records.load_state(conn, row)
            if state.to_move == seat:
                raise Refused(
                    "It is your move now: play it; a conditional line starts with your "
                    "opponent's next move.",
                    code=Code.BAD_LINE,
                )
            entries, actors = checked_line(state, seat, moves)
            lines = await _lines(conn, game_id, player.id, state.ply)
            lines = merged(lines, entries, actors, seat, lambda line: _read(state, seat, line))
            await _save(conn, game_id, player.id, state.ply, lines, self.clock())
        return _listing(summary, state, seat, lines, "Line added.")

    async def remove_conditional(
        self, game_id: int, guild_id: int, player: Player, text: str
    ) -> ConditionalLines:
        """Remove the lines that start with the moves typed."""
        check_ids(game_id, guild_id, player.id)
        moves = split_line(text)
        async with self.db.write() as conn:
            row, summary, seat = await self._pair_seat(conn, game_id, guild_id, player)
            state = await self.records.load_state(conn, row)
            lines = await _lines(conn, game_id, player.id, state.ply)
            try:
                start = list(_played(state, moves).moves[state.ply :])
            except IllegalMove:
                start = None
            kept = [line for line in lines if start is None or line[: len(start)] != start]
            if start is None or len(kept) == len(lines):
                raise Refused(f"None of your lines starts with {shown(text)}.", code=Code.BAD_LINE)
            await _save(conn, game_id, player.id, state.ply, kept, self.clock())
        gone = len(lines) - len(kept)
        return _listing(
            summary, state, seat, kept, f"{gone} line{'s' if gone > 1 else ''} removed."
        )

    async def clear_conditionals_of(
        self, game_id: int, guild_id: int, player: Player
    ) -> ConditionalLines:
        """Remove all the player's lines in the game."""
        check_ids(game_id, guild_id, player.id)
        async with self.db.write() as conn:
            row, summary, seat = await self._pair_seat(conn, game_id, guild_id, player)
            state = await self.records.load_state(conn, row)
            await _save(conn, game_id, player.id, state.ply, [], self.clock())
        return _listing(summary, state, seat, [], "Your lines are cleared.")

    async def _pair_seat(
        self,
        conn: AsyncConnection,
        game_id: int,
        guild_id: int,
        player: Player,
        *,
        lock: bool = True,
    ) -> tuple[Any, GameSummary, int]:
        """The game's row (locked in a write: an opponent's move waits, so a line is
        checked against the position it will follow), its summary and the seat."""
        row, summary, seat = await self.records.seated(conn, game_id, guild_id, player, lock=lock)
        refusal = no_conditionals(summary)
        if refusal is not None:
            raise refusal
        return row, summary, seat


def no_conditionals(summary: GameSummary) -> Refused | None:
    """Why a game takes no conditional lines; None when it takes them."""
    if any(other.bot is not None for other in summary.seats):
        return Refused(
            "Conditional moves are for games between people: the bot answers at once, "
            "so a line would never wait for it.",
            code=ServiceCode.AGAINST_BOT,
        )
    if len(summary.seats) != 2:
        return Refused(
            "Conditional moves are for two-player games; with more players the "
            "replies of several people would cross.",
            code=Code.PLAYER_COUNT,
        )
    return None


def split_line(text: str) -> list[str]:
    """The moves of a typed line: separated by commas when there are any (a Hot Wire
    move may hold a space, "d5 g3, b2 c4"), else by spaces ("e5 d6 c3 c4")."""
    parts = text.split(",") if "," in text else text.split()
    moves = [" ".join(part.split()) for part in parts]
    if not moves or not all(moves):
        raise Refused(
            "Type a line of moves in turn, like e5 d6 c3 c4 (commas between moves that "
            "hold a space).",
            code=Code.BAD_LINE,
        )
    if len(moves) > MAX_LINE_MOVES:
        raise Refused(f"A line holds at most {MAX_LINE_MOVES} moves.", code=Code.BAD_LINE)
    return moves


def checked_line(state: GameState, seat: int, moves: Sequence[str]) -> tuple[list[str], list[int]]:
    """The record entries a line writes from `state` and who makes each. Refused: a move
    the engine refuses (which move, and why), moves after the end, a line that ends on the
    opponent's move."""
    current = state
    for number, text in enumerate(moves, 1):
        if current.outcome is not None:
            raise Refused(
                f"The game is over before move {number} of the line, {shown(text)}.",
                code=Code.BAD_LINE,
            )
        try:
            current = current.play(text)
        except IllegalMove as illegal:
            raise Refused(
                f"Move {number} of the line, {shown(text)}, cannot be played: {illegal}",
                code=Code.BAD_LINE,
            ) from None
    entries, actors = list(current.moves[state.ply :]), list(current.actors[state.ply :])
    own = [actor for entry, actor in zip(entries, actors, strict=True) if entry != "pass"]
    if own[-1] != seat:
        raise Refused(
            "The line ends with your opponent's move: end it with your reply.",
            code=Code.BAD_LINE,
        )
    return entries, actors


def merged(
    lines: list[list[str]],
    entries: list[str],
    actors: list[int],
    seat: int,
    read: Any,
) -> list[list[str]]:
    """The lines with a new one: refused when it is there already or contradicts one (a
    different reply of yours to the same moves); a line it extends is replaced."""
    kept = []
    for line in lines:
        common = 0
        while common < min(len(line), len(entries)) and line[common] == entries[common]:
            common += 1
        if common == len(entries):
            raise Refused("You have this line already.", code=Code.BAD_LINE)
        if common == len(line):
            continue  # the new line goes on from this one
        if actors[common] == seat:
            raise Refused(
                f"That contradicts your line {read(line)}: there you play {line[common]}.",
                code=Code.BAD_LINE,
            )
        kept.append(line)
    if len(kept) >= MAX_LINES:
        raise Refused(f"You may keep at most {MAX_LINES} lines in a game.", code=Code.BAD_LINE)
    return [*kept, entries]


def follow(
    after: GameState, base: int, lines: list[list[str]], seat: int
) -> tuple[list[str], GameState, list[list[str]]]:
    """After an opponent's move: the owner's actions the matching lines agree on, the
    position after them, and the lines that still go on (cut to start there)."""
    done = list(after.moves[base:])
    matching = [line for line in lines if after.ply >= base and line[: len(done)] == done]
    state, played = after, []
    while matching and state.outcome is None and state.to_move == seat:
        step = state.ply - base
        replies = {line[step] for line in matching if len(line) > step}
        if len(replies) != 1:
            break
        text = replies.pop()
        try:
            state = state.play(text)
        except IllegalMove:  # checked on entry against this very record: cannot happen
            break
        played.append(text)
        record = list(state.moves[base:])
        matching = [line for line in matching if line[: len(record)] == record]
    step = state.ply - base
    return played, state, [line[step:] for line in matching if len(line) > step]


async def answer(
    conn: AsyncConnection, game_id: int, summary: GameSummary, after: GameState, now: datetime
) -> tuple[Answer | None, list[ConditionalsDropped]]:
    """The lines of the game's players after a move, in the move's transaction: each
    tree is advanced, cut or dropped. Returns the reply of the owner whose turn it is
    now, if their lines give one (else None), and a note for each owner whose lines the
    move dropped."""
    trees = (await conn.execute(_TREES, {"game_id": game_id})).all()
    found = None
    dropped = []
    for tree in trees:
        seat = summary.seat_of(tree.player_id)
        if seat is None or tree.ply > after.ply:
            await _save(conn, game_id, tree.player_id, after.ply, [], now)
            continue
        played, state, remaining = follow(after, tree.ply, tree.lines, seat)
        if remaining != tree.lines or state.ply != tree.ply:
            await _save(conn, game_id, tree.player_id, state.ply, remaining, now)
        answered = tuple(
            text
            for text, actor in zip(after.moves[tree.ply :], after.actors[tree.ply :], strict=True)
            if actor != seat and text != "pass"
        )
        if played:
            found = Answer(tree.player_id, seat, answered, tuple(played), state, len(remaining))
        elif not remaining and tree.lines:
            dropped.append(ConditionalsDropped(game_id, tree.player_id, answered))
    return found, dropped


async def _lines(conn: AsyncConnection, game_id: int, player_id: int, ply: int) -> list[list[str]]:
    """The player's lines, if they start from the game's position now."""
    row = (
        await conn.execute(
            sa.select(conditionals.c.ply, conditionals.c.lines).where(
                conditionals.c.game_id == game_id, conditionals.c.player_id == player_id
            )
        )
    ).one_or_none()
    if row is None or row.ply != ply:
        return []
    return [list(line) for line in row.lines]


async def _save(
    conn: AsyncConnection,
    game_id: int,
    player_id: int,
    ply: int,
    lines: list[list[str]],
    now: datetime,
) -> None:
    if not lines:
        await conn.execute(
            conditionals.delete().where(
                conditionals.c.game_id == game_id, conditionals.c.player_id == player_id
            )
        )
        return
    await upsert(
        conn,
        conditionals,
        {"game_id": game_id, "player_id": player_id, "ply": ply, "lines": lines, "updated_at": now},
        keys=("game_id", "player_id"),
        update=("ply", "lines", "updated_at"),
    )


def _played(state: GameState, moves: Sequence[str]) -> GameState:
    for text in moves:
        state = state.play(text)
    return state


def _read(state: GameState, seat: int, line: Sequence[str]) -> str:
    """A line as it reads: "if e5 then d6, if c3 then c4" (forced passes left out)."""
    parts: list[str] = []
    current = state
    for text in line:
        if text == "pass":  # made by the engine after the move before it
            continue
        parts.append(f"{'then' if current.to_move == seat else 'if'} {text}")
        current = current.play(text)
    return " ".join(parts).replace(" if ", ", if ")


def _listing(
    summary: GameSummary, state: GameState, seat: int, lines: list[list[str]], note: str
) -> ConditionalLines:
    return ConditionalLines(summary, tuple(_read(state, seat, line) for line in lines), note)
