"""Events benchmark: Swiss pairing of 64, 256 and 1,000 players, and the rest of the pure core.

For each size it plays `--tournaments` random Swiss tournaments of four rounds (ratings
drawn around 1500; each game won by the first seat with its Elo expectation, a draw one game
in eight; the odd player out has the bye) and times the pairing of round 5: the median and
the slowest. Then, for the largest, the event loop's longest stall while the pairing runs in
a thread (`asyncio.to_thread`, as the service would call it), sampled by a task that sleeps
1 ms at a time. Also: a 16-player round robin's schedule (120 games), and the same round
robin started through the service on SQLite (its 120 games made in one transaction; the
time, and the loop's longest stall meanwhile), the Swiss standings of
1,000 players after 5 rounds, and the picture of a 256-player Swiss's standings (the PNG the
bot posts: median CPU time of `--pictures` draws, as bench/render.py times boards). Last line:

    swiss 1000 players: <ms> ms

Run: .venv/bin/python -m bench.tournament [--tournaments N]
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import random
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

import sqlalchemy as sa

from bot.events import Bye, Entrant, GameResult, Round, pair_swiss, round_robin, swiss_standings
from bot.render import canvas, fonts
from bot.render.tables import StandingRow, StandingsTable, standings_png
from bot.service import GameService, Place, Player
from bot.settings import Settings
from bot.store import Database
from bot.store.schema import games

SIZES = (64, 256, 1000)
PICTURE_SIZE = 256
HISTORY_ROUNDS = 4
T = TypeVar("T")


def played(round_: Round, rng: random.Random, rating: dict[int, float]) -> list[GameResult]:
    results = []
    for game in round_.games:
        expected = 1 / (1 + 10 ** ((rating[game.second] - rating[game.first]) / 400))
        x = rng.random()
        winner = game.first if x < 7 / 8 * expected else (game.second if x < 7 / 8 else None)
        results.append(GameResult(round_.number, game.first, game.second, winner))
    return results


def history(size: int, seed: int) -> tuple[list[Entrant], list[GameResult], list[Bye]]:
    """Four rounds of a random Swiss tournament of `size` players."""
    rng = random.Random(seed)
    entrants = [Entrant(i, rating=rng.gauss(1500, 200)) for i in range(size)]
    rating = {e.id: e.rating for e in entrants}
    results: list[GameResult] = []
    byes: list[Bye] = []
    for number in range(1, HISTORY_ROUNDS + 1):
        round_ = pair_swiss(entrants, results, byes=byes, number=number)
        results += played(round_, rng, rating)
        if round_.bye is not None:
            byes.append(Bye(number, round_.bye))
    return entrants, results, byes


def next_round(
    entrants: list[Entrant], results: list[GameResult], byes: list[Bye]
) -> Callable[[], Round]:
    return functools.partial(pair_swiss, entrants, results, byes=byes, number=HISTORY_ROUNDS + 1)


def standings_table(size: int) -> StandingsTable:
    """The picture's data for the standings of a `size`-player Swiss after four rounds, as
    the service would build it (names of 12 to 32 characters)."""
    entrants, results, byes = history(size, 1)
    standings = swiss_standings(entrants, results, byes=byes)
    counts = [standing.place for standing in standings.rows]
    rows = tuple(
        StandingRow(
            f"={standing.place}" if counts.count(standing.place) > 1 else str(standing.place),
            f"player {standing.player:04d} " + "x" * (standing.player % 21),
            standing.points,
            standing.tiebreaks,
            1,
            "withdrawn" if standing.withdrawn else "",
        )
        for standing in standings.rows
    )
    return StandingsTable(f"Swiss of {size} · round 5", standings.tiebreaks, rows)


def forget_words() -> None:
    """Empty the caches of measured and rendered words: every name is drawn as if new."""
    fonts.text_mask.cache_clear()
    fonts._width.cache_clear()
    canvas._text_piece.cache_clear()


def cpu_timed(action: Callable[[], object]) -> float:
    """This thread's CPU time for `action`: what other processes on the machine take does
    not count (bench/render.py)."""
    start = time.thread_time()
    action()
    return time.thread_time() - start


def timed(action: Callable[[], object]) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


async def longest_stall(action: Callable[[], object]) -> float:
    """The longest the event loop went without running a 1 ms ticker while `action` ran in
    a thread."""
    return (await stalled_while(asyncio.to_thread(action)))[1]


async def stalled_while(work: Awaitable[T]) -> tuple[T, float]:
    """`work`'s result, and the longest the event loop went without running a 1 ms ticker
    while it ran."""
    done = False
    worst = 0.0

    async def ticker() -> None:
        nonlocal worst
        last = time.perf_counter()
        while not done:
            await asyncio.sleep(0.001)
            now = time.perf_counter()
            worst = max(worst, now - last)
            last = now

    task = asyncio.create_task(ticker())
    await asyncio.sleep(0.01)
    result = await work
    done = True
    await task
    return result, worst


async def round_robin_started(folder: Path, players: int) -> tuple[float, float, int]:
    """A round robin of `players` started through the service on SQLite, its games all
    created in start_tournament's one transaction: (seconds, the loop's longest stall
    meanwhile, games made)."""
    url = f"sqlite:///{folder / 'events.db'}"
    settings = Settings(database_url=url, render_processes=0, _env_file=None)  # type: ignore[call-arg]
    service = GameService(await Database.open(url), settings)
    try:
        organizer = Player(1000, "org")
        made = await service.events.create_tournament(
            Place(1, 1), organizer, "hex", format="roundrobin", days_per_move=3, manages=True
        )
        event = made.tournament.id
        for i in range(players):
            await service.events.join_tournament(event, 1, Player(1001 + i, f"p{i}"))
        start = time.perf_counter()
        _, stall = await stalled_while(service.events.start_tournament(event, 1, organizer))
        took = time.perf_counter() - start
        async with service.records.db.read() as conn:
            games_made = (
                await conn.execute(
                    sa.select(sa.func.count())
                    .select_from(games)
                    .where(games.c.tournament_id == event)
                )
            ).scalar_one()
        return took, stall, games_made
    finally:
        await service.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tournaments", type=int, default=5)
    parser.add_argument("--pictures", type=int, default=5)
    args = parser.parse_args()
    medians: dict[int, float] = {}
    for size in SIZES:
        times = []
        for seed in range(args.tournaments):
            entrants, results, byes = history(size, seed)
            times.append(timed(next_round(entrants, results, byes)))
        medians[size] = statistics.median(times)
        print(
            f"swiss {size:>4} players, round {HISTORY_ROUNDS + 1}: "
            f"median {1000 * medians[size]:.1f} ms, slowest {1000 * max(times):.1f} ms "
            f"({args.tournaments} tournaments)"
        )
    entrants, results, byes = history(SIZES[-1], 0)
    stall = asyncio.run(longest_stall(next_round(entrants, results, byes)))
    print(
        f"event loop's longest stall while pairing {SIZES[-1]} in a thread: {1000 * stall:.1f} ms"
    )
    schedule = timed(lambda: round_robin(range(16)))
    print(f"round robin of 16 (120 games): {1000 * schedule:.2f} ms")
    with tempfile.TemporaryDirectory() as folder:
        took, stall, made = asyncio.run(round_robin_started(Path(folder), 16))
    print(
        f"round robin of 16 started through the service on SQLite: {made} games in one "
        f"transaction, {1000 * took:.0f} ms, event loop's longest stall {1000 * stall:.1f} ms"
    )
    standings = timed(lambda: swiss_standings(entrants, results, byes=byes))
    print(
        f"swiss standings of {SIZES[-1]} after {HISTORY_ROUNDS} rounds: {1000 * standings:.1f} ms"
    )
    table = standings_table(PICTURE_SIZE)
    png = standings_png(table)  # fonts and text masks loaded, as in a running bot
    again = statistics.median(cpu_timed(lambda: standings_png(table)) for _ in range(args.pictures))
    fresh = statistics.median(
        cpu_timed(lambda: (forget_words(), standings_png(table))) for _ in range(args.pictures)
    )
    print(
        f"standings picture of {PICTURE_SIZE} players: {1000 * fresh:.0f} ms CPU, "
        f"{1000 * again:.0f} ms drawn again (medians of {args.pictures}), {len(png) // 1024} KB"
    )
    print(f"swiss {SIZES[-1]} players: {1000 * medians[SIZES[-1]]:.0f} ms")


if __name__ == "__main__":
    main()
