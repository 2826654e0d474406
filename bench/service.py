"""Service benchmark: moves per second through service.play.move on SQLite (parse,
check, commit against the ply, render the new board), with many games under way
at once as in a busy server.

The floor, measured in the same run on the same positions: a bare SQLite commit
(the move row and the game row in one WAL transaction, stdlib sqlite3) plus a
bare render of the board. The ratio is the service's time per move over the
floor's. Last line:

    service moves/s: <n> (<ratio>x floor)

Run: .venv/bin/python -m bench.service [--games N] [--moves M]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sqlite3
import tempfile
import time
from pathlib import Path
from typing import Any

import engine
from bot.render import render_png
from bot.service import GameService, Place, Player
from bot.settings import Settings
from bot.store import Database

GAME, OPTIONS = "hotwire", {"size": "7x7"}


def scripted_games(
    count: int, moves: int, game: str = GAME, options: dict[str, Any] = OPTIONS
) -> list[list[str]]:
    """Random legal games of `game` of at least `moves` moves, cut to that."""
    rng = random.Random(2026)
    scripts = []
    while len(scripts) < count:
        final = engine.new(game, **options).random_playout(rng)
        if final.ply >= moves:
            scripts.append(list(final.moves[:moves]))
    return scripts


async def service_run(
    folder: Path, scripts: list[list[str]], processes: int = 1
) -> tuple[float, int]:
    url = f"sqlite:///{folder / 'service.records.db'}"
    settings = Settings(database_url=url, render_processes=processes, _env_file=None)  # type: ignore[call-arg]
    service = GameService(await Database.open(url), settings)
    seats: list[tuple[int, list[Player]]] = []
    for i, _ in enumerate(scripts):
        a, b = Player(1000 + 10 * i, f"a{i}"), Player(1001 + 10 * i, f"b{i}")  # not the bot's ids
        issued = await service.challenges.challenge(
            Place(1, 1), a, GAME, opponents=[b], options=OPTIONS, first="challenger"
        )
        await service.challenges.accept(issued.game.id, 1, b)
        seats.append((issued.game.id, [a, b]))

    async def play(game_id: int, players: list[Player], script: list[str]) -> None:
        for ply, text in enumerate(script):
            await service.play.move(game_id, 1, players[ply % 2], text, expected_ply=ply)

    start = time.perf_counter()
    await asyncio.gather(
        *(play(gid, players, script) for (gid, players), script in zip(seats, scripts, strict=True))
    )
    elapsed = time.perf_counter() - start
    await service.close()
    return elapsed, sum(len(s) for s in scripts)


def floor_run(folder: Path, scripts: list[list[str]]) -> float:
    """The same moves as bare commits and bare renders, one after another."""
    connection = sqlite3.connect(folder / "floor.db", isolation_level=None)
    connection.execute("PRAGMA journal_mode=WAL")
    connection.execute("PRAGMA synchronous=NORMAL")
    connection.execute("CREATE TABLE games (id INTEGER PRIMARY KEY, ply INTEGER)")
    connection.execute(
        "CREATE TABLE moves (game_id INTEGER, ply INTEGER, text TEXT, PRIMARY KEY (game_id, ply))"
    )
    connection.executemany("INSERT INTO games VALUES (?, 0)", [(i,) for i in range(len(scripts))])
    states = []
    for script in scripts:
        state = engine.new(GAME, **OPTIONS)
        for text in script:
            state = state.play(text)
            states.append(state)
    start = time.perf_counter()
    index = 0
    for game_id, script in enumerate(scripts):
        for ply, text in enumerate(script):
            connection.execute("BEGIN IMMEDIATE")
            connection.execute(
                "UPDATE games SET ply = ? WHERE id = ? AND ply = ?", (ply + 1, game_id, ply)
            )
            connection.execute("INSERT INTO moves VALUES (?, ?, ?)", (game_id, ply, text))
            connection.execute("COMMIT")
            render_png(states[index], players=["a", "b"])
            index += 1
    elapsed = time.perf_counter() - start
    connection.close()
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=60)
    parser.add_argument("--moves", type=int, default=16, help="moves per game")
    parser.add_argument("--rounds", type=int, default=3, help="alternating runs; medians reported")
    parser.add_argument("--render-processes", type=int, default=1, help="as RENDER_PROCESSES")
    args = parser.parse_args()
    scripts = scripted_games(args.games, args.moves)
    service_times, floor_times = [], []
    for _ in range(args.rounds):
        with tempfile.TemporaryDirectory() as folder:
            elapsed, count = asyncio.run(service_run(Path(folder), scripts, args.render_processes))
            service_times.append(elapsed / count)
            floor_times.append(floor_run(Path(folder), scripts) / count)
    service_time = sorted(service_times)[len(service_times) // 2]
    floor_time = sorted(floor_times)[len(floor_times) // 2]
    print(f"{args.games} games x {args.moves} moves, {args.rounds} rounds (medians)")
    print(
        f"service: {service_time * 1e3:.2f} ms per move; "
        f"floor (commit + render): {floor_time * 1e3:.2f} ms"
    )
    print(f"service moves/s: {1 / service_time:.0f} ({service_time / floor_time:.2f}x floor)")


if __name__ == "__main__":
    main()
