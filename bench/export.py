"""Export benchmark: `paperboard export` of 100,000 finished games, wall time and peak RSS.

The store (SQLite in a temporary folder, or PostgreSQL with --url) gets 100,000 finished
Hex games of one server, 30 moves each (3 million move rows), by bulk inserts. The real
command then runs as a child process (`python -m bot.cli export --guild 1 -o ...`),
which streams them page by page; its wall time and peak resident memory (the child's
ru_maxrss) are measured. The file is checked: one JSON line per game. Last line:

    export of 100000 games: <s> s, peak RSS <MB> MB

Run: .venv/bin/python -m bench.export [--games N] [--url postgresql://...]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import engine
from bot.store import Database
from bot.store.database import scratch_schema
from bot.store.schema import games, moves, players, seats

START = datetime(2026, 1, 1, tzinfo=UTC)
MOVES_PER_GAME = 30
CHUNK = 1_000  # games per insert transaction
PLAYERS = 2_000
OPTIONS = engine.new("hex", size=11).options
CELLS = [f"{chr(ord('a') + c)}{r + 1}" for r in range(11) for c in range(11)]


async def load(url: str, total: int) -> None:
    database = await Database.open(url)
    try:
        async with database.write() as conn:
            await conn.execute(
                players.insert(),
                [{"id": 1 + i, "name": f"p{i}", "created_at": START} for i in range(PLAYERS)],
            )
        for first in range(1, total + 1, CHUNK):
            game_rows: list[dict[str, Any]] = []
            seat_rows: list[dict[str, Any]] = []
            move_rows: list[dict[str, Any]] = []
            for game_id in range(first, min(total, first + CHUNK - 1) + 1):
                begun = START + timedelta(minutes=game_id)
                game_rows.append(
                    {
                        "id": game_id, "guild_id": 1, "channel_id": 1, "game": "hex",
                        "options": OPTIONS, "rules_version": 1, "status": "finished",
                        "ply": MOVES_PER_GAME, "challenger_id": 1 + game_id % PLAYERS,
                        "days_per_move": 3, "first": "random", "rated": True,
                        "created_at": begun, "updated_at": begun, "started_at": begun,
                        "finished_at": begun + timedelta(days=10), "winners": [0],
                        "reason": "resignation",
                    }
                )  # fmt: skip
                for seat in (0, 1):
                    seat_rows.append(
                        {
                            "game_id": game_id,
                            "seat": seat,
                            "player_id": 1 + (game_id + seat) % PLAYERS,
                            "accepted": True,
                        }
                    )
                move_rows.extend(
                    {
                        "game_id": game_id,
                        "ply": ply,
                        "seat": ply % 2,
                        "text": CELLS[(game_id * 7 + ply * 13) % len(CELLS)],
                        "created_at": begun + timedelta(hours=ply),
                    }
                    for ply in range(MOVES_PER_GAME)
                )
            async with database.write() as conn:
                await conn.execute(games.insert(), game_rows)
                await conn.execute(seats.insert(), seat_rows)
                await conn.execute(moves.insert(), move_rows)
    finally:
        await database.close()


def export(url: str, out: Path) -> tuple[float, float]:
    """Run the real command; its wall time (s) and the child's peak RSS (MB)."""
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "bot.cli", "export", "--guild", "1", "-o", str(out)],
        check=True,
        env={**os.environ, "DATABASE_URL": url},
        stdout=subprocess.DEVNULL,
    )
    wall = time.perf_counter() - started
    peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return wall, peak_kb / 1024


async def run(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "games.jsonl"
        if args.url:
            async with scratch_schema(args.url, "pb_bench") as url:
                await load(url, args.games)
                wall, peak = await asyncio.to_thread(export, url, out)
        else:
            url = f"sqlite:///{Path(folder) / 'bench.db'}"
            started = time.perf_counter()
            await load(url, args.games)
            print(f"loaded {args.games} games in {time.perf_counter() - started:.0f} s")
            wall, peak = await asyncio.to_thread(export, url, out)
        with out.open() as lines:
            count = sum(1 for _ in lines)
        assert count == args.games, count
        print(f"file: {out.stat().st_size / 1e6:.0f} MB, {count} lines")
    print(f"export of {args.games} games: {wall:.1f} s, peak RSS {peak:.0f} MB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--url", help="a PostgreSQL URL (a scratch schema is used)")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
