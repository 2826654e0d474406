"""Daily digest benchmark: the scan that finds the digests due and their games.

The store holds 100,000 games (30,000 under way, the rest finished) between 10,000
players, every one of them on daily digests, their digest hours spread over the day,
so an hour's sweep finds about 1/24 of them due. The data goes in by bulk inserts. The
measured scan is what a tick does first: `service.schedule.claim_digests` (the lease
statement, as deadlines are claimed) and the one query that lists, for the claimed
players, every game where it is their move (`digest.on_move`); the leases are released
between rounds. Also shown once: sending them (`send_digests`: the rows moved to the
next day and the digests written to the outbox, one transaction). Last line:

    digest scan: <ms> ms (<n> players due)

Run: .venv/bin/python -m bench.digest [--url postgresql://...] [--rounds N]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import sqlalchemy as sa

import engine
from bot.service import GameService
from bot.service.time.digest import on_move
from bot.settings import Settings
from bot.store import Database
from bot.store.database import scratch_schema
from bot.store.schema import digests, games, players, seats

NOW = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)
LEASE = timedelta(minutes=5)
OPTIONS = engine.new("hex", size=5).options
CHUNK = 20_000


async def load(service: GameService, total: int, active: int, people: int) -> None:
    rng = random.Random(2026)
    rows: dict[Any, list[dict[str, Any]]] = {players: [], games: [], seats: [], digests: []}
    for pid in range(1, people + 1):
        rows[players].append(
            {"id": pid, "name": f"p{pid}", "created_at": NOW, "reminders": "digest"}
        )
        # digest hours spread over the day: the next one somewhere in the coming 24 hours
        rows[digests].append({"id": pid, "due_at": NOW + timedelta(hours=rng.uniform(0, 24))})
    for game_id in range(1, total + 1):
        live = game_id > total - active
        a, b = rng.sample(range(1, people + 1), 2)
        created = NOW - timedelta(days=rng.uniform(3, 365))
        rows[games].append(
            {
                "id": game_id, "guild_id": 1, "channel_id": 1, "thread_id": 10_000_000 + game_id,
                "game": "hex", "options": OPTIONS, "rules_version": 1,
                "status": "active" if live else "finished", "ply": 0,
                "to_move": rng.randrange(2) if live else None, "challenger_id": a,
                "days_per_move": 3, "first": "challenger", "rated": False,
                "deadline_at": NOW + timedelta(days=rng.uniform(0, 3)) if live else None,
                "created_at": created, "updated_at": created, "started_at": created,
            }
        )  # fmt: skip
        rows[seats] += [
            {"game_id": game_id, "seat": 0, "player_id": a, "accepted": True},
            {"game_id": game_id, "seat": 1, "player_id": b, "accepted": True},
        ]
    for table in (players, games, seats, digests):
        for start in range(0, len(rows[table]), CHUNK):
            async with service.records.db.write() as conn:
                await conn.execute(table.insert(), rows[table][start : start + CHUNK])
    if service.records.db.url.startswith("postgresql"):
        async with service.records.db.write() as conn:
            await conn.execute(sa.text("ANALYZE"))


async def scan(service: GameService, worker: str) -> tuple[float, int, int]:
    """One claim of the due digests and the list of their games: ms, players, games."""
    started = time.perf_counter()
    claims = await service.schedule.claim_digests(worker, LEASE, limit=10_000)
    async with service.records.db.read() as conn:
        listed = await on_move(conn, [c.player_id for c in claims])
    ms = (time.perf_counter() - started) * 1e3
    return ms, len(claims), sum(len(v) for v in listed.values())


async def release(service: GameService) -> None:
    async with service.records.db.write() as conn:
        await conn.execute(digests.update().values(claimed_by=None, claimed_until=None))


async def run(url: str, args: argparse.Namespace) -> None:
    settings = Settings(database_url=url, render_processes=0, _env_file=None)  # type: ignore[call-arg]
    clock = {"now": NOW + timedelta(hours=1)}  # an hour's sweep: ~1/24 of the digests due
    service = GameService(await Database.open(url), settings, clock=lambda: clock["now"])
    try:
        started = time.perf_counter()
        await load(service, args.games, args.active, args.players)
        print(
            f"{args.games:,} games ({args.active:,} under way), {args.players:,} players on "
            f"digests ({time.perf_counter() - started:.1f} s to load), {url.split(':')[0]}"
        )
        times = []
        for _ in range(args.rounds):
            ms, due, listed = await scan(service, "bench")
            times.append(ms)
            await release(service)
        claims = await service.schedule.claim_digests("send", LEASE, limit=10_000)
        started = time.perf_counter()
        sent = await service.schedule.send_digests(claims, "send")
        send_ms = (time.perf_counter() - started) * 1e3
        print(f"scans: {', '.join(f'{t:.1f}' for t in times)} ms; {listed:,} games listed")
        print(f"sending {len(sent):,} digests (rows moved on, outbox written): {send_ms:.0f} ms")
        print(f"digest scan: {statistics.median(times):.1f} ms ({due} players due)")
    finally:
        await service.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", help="a PostgreSQL server (a scratch schema); default SQLite")
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--active", type=int, default=30_000)
    parser.add_argument("--players", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=9, help="scans measured; median reported")
    args = parser.parse_args()
    if args.url:
        asyncio.run(run_in_scratch_schema(args.url, args))
        return
    with tempfile.TemporaryDirectory() as folder:
        asyncio.run(run(f"sqlite:///{Path(folder) / 'digest.db'}", args))


async def run_in_scratch_schema(url: str, args: argparse.Namespace) -> None:
    async with scratch_schema(url, "pb_bench") as scratch:
        await run(scratch, args)


if __name__ == "__main__":
    main()
