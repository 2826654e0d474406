"""The web's lists on a big server: 100,000 games (5% under way), 2,000 players rated in
five games, on SQLite. Prints each list's time (the mean of 20 reads after one to warm
up) and the query plans of the lists, and fails if a plan sorts (a temporary B-tree:
the list would read every game of the server instead of an index's first rows).

The last line is the headline: `web lists: <figure>`.

Run: .venv/bin/python -m bench.web_lists [--games 100000] [--db /tmp/web_lists.db]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sqlite3
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bot.service import GameService
from bot.service.core.models import WebPlace
from bot.settings import Settings
from bot.store import Database

GUILD = 1
PEOPLE = list(range(10_000, 12_000))
GAMES = ("hex", "hotwire", "livewire", "shortcircuit", "disthex")
READS = 20
LIST_COLUMNS = "games.id, games.game, games.status, games.updated_at"
#: The lists' queries as bot/service/web/lists.py writes them (the columns aside).
PLANS = {
    "a status": f"SELECT {LIST_COLUMNS} FROM games WHERE guild_id = 1 AND status = 'finished' "
    "ORDER BY games.id DESC LIMIT 21",
    "a game, a page": f"SELECT {LIST_COLUMNS} FROM games WHERE guild_id = 1 AND game = 'hex' "
    "AND status = 'finished' AND games.id < 5000 ORDER BY games.id DESC LIMIT 21",
    "a player": f"SELECT {LIST_COLUMNS} FROM seats JOIN games ON games.id = seats.game_id "
    "WHERE games.guild_id = 1 AND seats.player_id = 10007 AND games.status = 'finished' "
    "ORDER BY seats.game_id DESC LIMIT 21",
}


async def fill(path: Path, count: int) -> None:
    """A migrated database holding `count` games of one server whose pages are public."""
    path.unlink(missing_ok=True)
    await (await Database.open(f"sqlite:///{path}")).close()
    rng = random.Random(1)
    start = datetime(2026, 11, 1, tzinfo=UTC)
    rows, seated = [], []
    for i in range(1, count + 1):
        status = "active" if rng.random() < 0.05 else "finished"
        at = (start + timedelta(minutes=i)).isoformat()
        done = status == "finished"
        rows.append(
            (i, GUILD, 5, rng.choice(GAMES), json.dumps({"players": 2, "size": 5}), status,
             0 if not done else None, PEOPLE[0], at, at,
             json.dumps([0]) if done else None, "resignation" if done else None)
        )  # fmt: skip
        a, b = rng.sample(PEOPLE, 2)
        seated += [(i, 0, a), (i, 1, b)]
    with sqlite3.connect(path) as con:
        con.executemany(
            "INSERT INTO players (id, name, created_at) VALUES (?, ?, ?)",
            [(p, f"p{p}", start.isoformat()) for p in PEOPLE],
        )
        con.executemany(
            "INSERT INTO games (id, guild_id, channel_id, game, options, rules_version, status,"
            " ply, to_move, challenger_id, first, rated, created_at, updated_at, winners, reason)"
            " VALUES (?, ?, ?, ?, ?, 1, ?, 10, ?, ?, 'random', 1, ?, ?, ?, ?)",
            rows,
        )
        con.executemany(
            "INSERT INTO seats (game_id, seat, player_id, accepted) VALUES (?, ?, ?, 1)", seated
        )
        con.executemany(
            "INSERT INTO ratings (guild_id, game, player_id, mu, sigma, games, wins)"
            " VALUES (?, ?, ?, ?, ?, 10, 5)",
            [(GUILD, g, p, rng.gauss(25, 3), rng.uniform(2, 8)) for g in GAMES for p in PEOPLE],
        )
        con.execute(
            "INSERT INTO guild_settings (guild_id, channels, web) VALUES (1, '[]', 'public')"
        )
        con.execute("ANALYZE")


def plans(path: Path) -> None:
    with sqlite3.connect(path) as con:
        for label, query in PLANS.items():
            steps = [row[3] for row in con.execute("EXPLAIN QUERY PLAN " + query)]
            print(f"plan, {label}: {'; '.join(steps)}")
            if any("TEMP B-TREE" in step for step in steps):
                raise SystemExit(f"the list of {label} sorts: {steps}")


async def timed(label: str, read: Callable[[], Awaitable[Any]]) -> float:
    await read()
    began = time.perf_counter()
    for _ in range(READS):
        await read()
    ms = (time.perf_counter() - began) / READS * 1000
    print(f"{label:32} {ms:7.2f} ms")
    return ms


async def run(args: argparse.Namespace) -> None:
    path = Path(args.db)
    await fill(path, args.games)
    plans(path)
    url = f"sqlite:///{path}"
    settings = Settings(database_url=url, render_processes=0, _env_file=None)  # type: ignore[call-arg]
    service = GameService(await Database.open(url), settings)
    place = WebPlace(GUILD, "public")
    player = PEOPLE[7]
    try:
        pages = [
            await timed("under way", lambda: service.web_lists.web_games(place, "active")),
            await timed("finished", lambda: service.web_lists.web_games(place, "finished")),
            await timed(
                "finished, a deep page",
                lambda: service.web_lists.web_games(place, "finished", before=args.games // 100),
            ),
            await timed(
                "finished hex", lambda: service.web_lists.web_games(place, "finished", game="hex")
            ),
            await timed(
                "a player's finished",
                lambda: service.web_lists.web_games(place, "finished", player_id=player),
            ),
        ]

        async def leaderboards() -> Any:
            service.web_lists._leaderboards.clear()  # read, not kept: what each 30 s costs
            return await service.web_lists.web_leaderboards(place)

        boards = await timed("leaderboards (not kept)", leaderboards)
        profile = await timed(
            "a player's page", lambda: service.web_lists.web_player(place, player)
        )
    finally:
        await service.close()
    print(
        f"web lists: a page of {args.games:,} games {min(pages):.1f}-{max(pages):.1f} ms, "
        f"leaderboards {boards:.0f} ms, a player's page {profile:.0f} ms (SQLite)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--db", default="/tmp/web_lists.db")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
