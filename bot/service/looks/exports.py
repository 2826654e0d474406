"""Exports: a game's record as JSON (every game) or as HexGui's SGF (Hex and Disthex), and
every finished game of a server as JSON lines for operators, streamed page by page.

Built from the stored rows alone (no replay): the record, the seats and the result are
all in the tables. The rule is the record's (`record`, `/record`): anyone in the server
may have any of its games, under way or over, its own players too (Little Golem and
lichess let players download their games in progress). A file of moves is no engine
help; the fair-play line is drawn at analyses and hints (bot/service/looks/analysis.py).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

import engine
from bot.service.core.models import Refused, ServiceCode
from bot.service.core.records import Records
from bot.service.core.rules import check_ids
from bot.store import Database
from bot.store.schema import games, moves, players, seats
from engine.core import shown

ExportFormat = Literal["json", "sgf"]
EXPORT_FORMATS: tuple[ExportFormat, ...] = ("json", "sgf")
#: Games whose record HexGui reads (its GM[11] is Hex; Disthex is Hex with one more rule).
SGF_GAMES = ("hex", "disthex")
#: HexGui's name for the swap: the opening stone is mirrored and changes colour, the
#: players keep theirs (our engine swaps the players' colours instead; see `hexgui_sgf`).
SGF_SWAP = "swap-pieces"
PAGE = 500  # finished games per query when streaming


@dataclass(frozen=True, slots=True)
class ExportFile:
    filename: str
    data: bytes


class Exports:
    """The export use case."""

    def __init__(self, records: Records) -> None:
        self.records = records
        self.db = records.db

    async def export(self, game_id: int, guild_id: int, fmt: str = "json") -> ExportFile:
        """A game's record as a file, under way or over, for anyone in the server (the
        record's rule). Refused: an unknown format, SGF of a game that is not Hex or
        Disthex."""
        check_ids(game_id, guild_id)
        async with self.db.read() as conn:
            row = await self.records.game_row(conn, game_id, guild_id)
            return await export_file(self.records, conn, row, fmt)


async def export_file(host: Records, conn: AsyncConnection, row: Any, fmt: str) -> ExportFile:
    """The file of a game's row (`fmt`: EXPORT_FORMATS); refused for an unknown format, or
    SGF of a game that is not Hex or Disthex."""
    if fmt not in EXPORT_FORMATS:
        raise Refused(
            f"Exports are {' or '.join(EXPORT_FORMATS)}, not {shown(fmt)}.",
            code=ServiceCode.BAD_SETTING,
        )
    if fmt == "sgf" and row.game not in SGF_GAMES:
        raise Refused(
            "SGF is written for Hex and Disthex only; json works for every game.",
            code=ServiceCode.BAD_SETTING,
        )
    record = await stored_record(host, conn, row)
    if fmt == "sgf":
        return ExportFile(f"{row.game}-{row.id}.sgf", hexgui_sgf(record).encode())
    text = json.dumps(record, indent=1, ensure_ascii=False) + "\n"
    return ExportFile(f"{row.game}-{row.id}.json", text.encode())


_ROSTER = (
    sa.select(seats.c.game_id, seats.c.seat, seats.c.player_id, players.c.name)
    .select_from(seats.outerjoin(players, players.c.id == seats.c.player_id))
    .order_by(seats.c.game_id, seats.c.seat)
)
_MOVES = sa.select(
    moves.c.game_id, moves.c.ply, moves.c.seat, moves.c.text, moves.c.created_at
).order_by(moves.c.game_id, moves.c.ply)


async def stored_record(records: Records, conn: AsyncConnection, row: Any) -> dict[str, Any]:
    """The record (`game_record`) of the game whose row is `row`, read in `conn`."""
    state = await records.load_state(conn, row)
    roster = (await conn.execute(_ROSTER.where(seats.c.game_id == row.id))).all()
    entries = (await conn.execute(_MOVES.where(moves.c.game_id == row.id))).all()
    return game_record(row, roster, entries, state)


def _iso(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat()


def game_record(
    row: Any, roster: Sequence[Any], entries: Sequence[Any], state: engine.GameState
) -> dict[str, Any]:
    """One game as plain JSON values: what it is, who played (`seat_name`: the colour
    each seat plays at the end, after any swap; `state` is the game replayed), every
    move with its time, and how it ended (`result` is None until it has)."""
    info = engine.GAMES[row.game]
    names = {r.seat: (r.player_id, r.name) for r in roster}
    players_out = [
        {
            "seat": seat,
            "seat_name": state.seat_name(seat),
            "id": names[seat][0],
            "name": names[seat][1],
        }
        for seat in sorted(names)
    ]
    result = None
    if row.status == "finished":
        winners = list(row.winners or ())
        result = {
            "winners": winners,
            "winner_ids": [names[s][0] for s in winners if s in names],
            "reason": row.reason,
            "scores": row.scores,
        }
    return {
        "id": row.id,
        "game": row.game,
        "title": info.title,
        "guild_id": row.guild_id,
        "options": dict(row.options),
        "rated": row.rated,
        "days_per_move": row.days_per_move,
        "clock": row.time_control,
        "status": row.status,
        "created_at": _iso(row.created_at),
        "started_at": _iso(row.started_at),
        "finished_at": _iso(row.finished_at),
        "players": players_out,
        "moves": [
            {"ply": e.ply, "seat": e.seat, "text": e.text, "at": _iso(e.created_at)}
            for e in entries
        ],
        "result": result,
    }


def _sgf_text(value: str) -> str:
    """An SGF property value: `]` and `\\` escaped."""
    return value.replace("\\", "\\\\").replace("]", "\\]")


def _transposed(cell: str) -> str:
    """d5 -> e4: the cell mirrored in the long diagonal (column and row exchanged)."""
    column = ord(cell[0]) - ord("a")
    row = int(cell[1:]) - 1
    return f"{chr(ord('a') + row)}{column + 1}"


def hexgui_sgf(record: dict[str, Any]) -> str:
    """The record in HexGui's SGF: `(;FF[4]AP[...]GM[11]SZ[n]PB[..]PW[..];B[a1];W[b2]...)`.

    HexGui keeps the players' colours and writes the swap as `W[swap-pieces]`, which
    mirrors the opening stone and makes it White. Our engine keeps the stone Black and
    exchanges the players' colours instead: the two positions are mirror images, so after
    a swap every cell is written mirrored (column and row exchanged) and the seats keep
    B (seat 0) and W (seat 1) throughout. A forced Disthex pass is SGF's empty move `B[]`.
    """
    names = {p["seat"]: p["name"] or "?" for p in record["players"]}
    head = [
        "FF[4]",
        "AP[Paperboard]",
        "GM[11]",
        f"SZ[{int(record['options']['size'])}]",
        f"PB[{_sgf_text(names.get(0, '?'))}]",
        f"PW[{_sgf_text(names.get(1, '?'))}]",
        f"GN[{_sgf_text(record['title'])} #{record['id']}]",
    ]
    if record["started_at"]:
        head.append(f"DT[{record['started_at'][:10]}]")
    if record["game"] == "disthex":
        head.append("RU[Disthex]")
    result = record["result"]
    if result is not None and result["winners"]:
        why = {"resignation": "Resign", "time": "Time"}.get(str(result["reason"]), "")
        head.append(f"RE[{'BW'[result['winners'][0]]}+{why}]")
    nodes = ["".join(head)]
    swapped = False
    for entry in record["moves"]:
        colour = "BW"[entry["ply"] % 2]
        text = entry["text"]
        if text == "swap":
            swapped = True
            nodes.append(f"{colour}[{SGF_SWAP}]")
        elif text == "pass":
            nodes.append(f"{colour}[]")
        else:
            nodes.append(f"{colour}[{_transposed(text) if swapped else text}]")
    return "(;" + ";".join(nodes) + ")\n"


# == every finished game, streamed (the operator's `paperboard export`) ==========================


async def finished_games(
    db: Database, guild_id: int, since: datetime | None, *, page: int = PAGE
) -> AsyncIterator[dict[str, Any]]:
    """Every finished game of a server (since `since`, by when it finished) as a record,
    oldest id first: one page of games, their seats and their moves at a time, each in
    its own short read, so memory stays that of one page however many games there are."""
    after = 0
    while True:
        query = (
            sa.select(games)
            .where(games.c.guild_id == guild_id, games.c.status == "finished", games.c.id > after)
            .order_by(games.c.id)
            .limit(page)
        )
        if since is not None:
            query = query.where(games.c.finished_at >= since)
        async with db.read() as conn:
            rows = (await conn.execute(query)).all()
            if not rows:
                return
            ids = [r.id for r in rows]
            roster = (await conn.execute(_ROSTER.where(seats.c.game_id.in_(ids)))).all()
            entries = (await conn.execute(_MOVES.where(moves.c.game_id.in_(ids)))).all()
        by_game: dict[int, tuple[list[Any], list[Any]]] = {gid: ([], []) for gid in ids}
        for seat in roster:
            by_game[seat.game_id][0].append(seat)
        for entry in entries:
            by_game[entry.game_id][1].append(entry)
        for row in rows:
            roster, entries = by_game[row.id]
            # The operator's export runs in its own process: a replay here holds no one up.
            state = engine.replay(row.game, row.options, [e.text for e in entries])
            yield game_record(row, roster, entries, state)
        after = ids[-1]
