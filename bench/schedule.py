"""Schedule benchmark: one due-deadline scan-and-claim, the scheduler's hot statement.

The store holds 100,000 games: 90,000 finished (their deadline rows not yet cleaned
up), 10,000 under way on bank clocks (10d+36h/10d: each seat's bank, the turn's clock
start; `--days` puts them on 3 days per move instead) with a timeout and two reminders
each, 1,000 of those with a reminder due. The data goes in by bulk inserts straight
into the tables; the measured call is the real claim path,
`service.schedule.claim_deadlines` (one write transaction: `UPDATE ... RETURNING`,
`FOR UPDATE SKIP LOCKED` on PostgreSQL), claiming all 1,000 rows at once; the
leases are released between rounds. Also shown, once each: the scan when nothing
is due, `next_deadline`, a whole catch-up tick acting on the 1,000 reminders, and
the cleanup of the finished games' rows. Last line:

    deadline scan: <ms> ms

Run: .venv/bin/python -m bench.schedule [--url postgresql://...] [--rounds N] [--days]
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
from bot.schedule import Scheduler
from bot.service import GameService, Result, clocks
from bot.service.clocks import REMINDER_LEADS
from bot.settings import Settings
from bot.store import Database
from bot.store.database import scratch_schema
from bot.store.schema import deadlines, games, players, seats

NOW = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)
LEASE = timedelta(minutes=5)
DAY, MICROSECOND = timedelta(days=1), timedelta(microseconds=1)
GAME, OPTIONS = "hex", engine.new("hex", size=5).options
CHUNK = 20_000


async def load(service: GameService, total: int, active: int, due: int, banks: bool) -> None:
    """Bulk rows: players, games, seats, deadlines (no moves: every game is at ply 0)."""
    rng = random.Random(2026)
    people = 2 * active
    player_rows = [
        {"id": 1 + i, "name": f"p{i}", "created_at": NOW - timedelta(days=400)}
        for i in range(people)
    ]
    game_rows: list[dict[str, Any]] = []
    seat_rows: list[dict[str, Any]] = []
    deadline_rows: list[dict[str, Any]] = []
    for game_id in range(1, total + 1):
        live = game_id > total - active
        created = NOW - timedelta(days=rng.uniform(3, 365))
        a, b = rng.sample(range(1, people + 1), 2)
        if live:
            # the last `due` games are 1-2 hours past their 24-hour reminder
            late = game_id > total - due
            deadline = NOW + (
                timedelta(hours=rng.uniform(22, 23)) if late else timedelta(days=rng.uniform(1, 3))
            )
        else:
            deadline = created + timedelta(days=3)
        reminders = {kind: deadline - lead for kind, lead in REMINDER_LEADS.items()}
        # every row with the same keys: a bulk insert takes its columns from the first
        clock: dict[str, Any] = {
            "days_per_move": 3,
            "time_control": None,
            "banks": None,
            "clock_started_at": None,
        }
        if live and banks:
            bank = timedelta(days=rng.uniform(2, 10))
            turn = clocks.Turn(deadline - bank, bank)  # its deadline: the one drawn above
            reminders = clocks.reminders_at(turn, clocks.NO_PAUSE)
            clock = {
                "days_per_move": None,
                "time_control": str(clocks.PRESETS["standard"]),
                "banks": [turn.bank // MICROSECOND, rng.randrange(1, 10) * DAY // MICROSECOND],
                "clock_started_at": turn.started,
            }
        game_rows.append(
            {
                "id": game_id,
                "guild_id": 1 + game_id % 50,
                "channel_id": 1000 + game_id % 50,
                "game": GAME,
                "options": OPTIONS,
                "rules_version": 1,
                "status": "active" if live else "finished",
                "ply": 0,
                "to_move": 0 if live else None,
                "challenger_id": a,
                **clock,
                "first": "challenger",
                "rated": False,
                "deadline_at": deadline,
                "created_at": created,
                "updated_at": created,
                "started_at": created,
                "finished_at": None if live else deadline,
                "winners": None if live else [1],
                "reason": None if live else "connection",
            }
        )
        seat_rows += [
            {"game_id": game_id, "seat": 0, "player_id": a, "accepted": True},
            {"game_id": game_id, "seat": 1, "player_id": b, "accepted": True},
        ]
        deadline_rows.append(
            {"game_id": game_id, "kind": "expire", "ply": 0, "due_at": created, "done": True}
        )
        for kind, at in {"timeout": deadline, **reminders}.items():
            deadline_rows.append(
                {"game_id": game_id, "kind": kind, "ply": 0, "due_at": at, "done": not live}
            )
    for table, rows in (
        (players, player_rows),
        (games, game_rows),
        (seats, seat_rows),
        (deadlines, deadline_rows),
    ):
        for start in range(0, len(rows), CHUNK):
            async with service.records.db.write() as conn:
                await conn.execute(table.insert(), rows[start : start + CHUNK])
    if service.records.db.url.startswith("postgresql"):
        async with service.records.db.write() as conn:
            await conn.execute(sa.text("ANALYZE"))


async def release(service: GameService, worker: str) -> None:
    async with service.records.db.write() as conn:
        await conn.execute(
            deadlines.update()
            .where(deadlines.c.claimed_by == worker)
            .values(claimed_by=None, claimed_until=None)
        )


async def timed(call: Any) -> tuple[float, Any]:
    start = time.perf_counter()
    value = await call
    return (time.perf_counter() - start) * 1e3, value


async def run(url: str, args: argparse.Namespace) -> None:
    settings = Settings(database_url=url, render_processes=0, _env_file=None)  # type: ignore[call-arg]
    service = GameService(await Database.open(url), settings, clock=lambda: NOW)
    try:
        start = time.perf_counter()
        await load(service, args.games, args.active, args.due, not args.days)
        clock = "3 days per move" if args.days else "bank clocks"
        print(
            f"{args.games:,} games, {args.active:,} active on {clock}, {args.due:,} due "
            f"({time.perf_counter() - start:.1f} s to load), {url.split(':')[0]}"
        )
        times = []
        for _ in range(args.rounds):
            ms, claims = await timed(
                service.schedule.claim_deadlines("bench", LEASE, limit=args.due)
            )
            assert len(claims) == args.due, len(claims)
            times.append(ms)
            await release(service, "bench")
        published: list[Result] = []

        async def publish(result: Result) -> None:
            published.append(result)

        tick, _ = await timed(Scheduler(service, publish, worker_id="catch-up").tick())
        assert len(published) == args.due, len(published)
        idle, nothing = await timed(service.schedule.claim_deadlines("idle", LEASE, limit=args.due))
        assert nothing == []
        wake, _ = await timed(service.schedule.next_deadline())
        idle_tick, _ = await timed(Scheduler(service, publish, worker_id="idle").tick())
        cleanup, removed = await timed(service.schedule.cleanup_deadlines())
        median = statistics.median(times)
        print(f"claim {args.due:,} due rows: {', '.join(f'{t:.1f}' for t in times)} ms")
        print(f"scan with nothing claimable: {idle:.1f} ms; next_deadline: {wake:.1f} ms")
        print(
            f"catch-up tick acting on {args.due:,} reminders: {tick:.0f} ms "
            f"({tick / args.due:.2f} ms each); an idle tick: {idle_tick:.1f} ms"
        )
        print(f"cleanup of finished games' rows: {removed:,} rows in {cleanup:.0f} ms")
        print(f"deadline scan: {median:.1f} ms")
    finally:
        await service.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--url", help="a PostgreSQL server (the benchmark uses a schema of its own); default SQLite"
    )
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--active", type=int, default=10_000)
    parser.add_argument("--due", type=int, default=1_000)
    parser.add_argument("--rounds", type=int, default=9, help="claims measured; median reported")
    parser.add_argument("--days", action="store_true", help="days per move, not bank clocks")
    args = parser.parse_args()
    if args.url:
        asyncio.run(run_in_scratch_schema(args.url, args))
        return
    with tempfile.TemporaryDirectory() as folder:
        asyncio.run(run(f"sqlite:///{Path(folder) / 'schedule.db'}", args))


async def run_in_scratch_schema(url: str, args: argparse.Namespace) -> None:
    async with scratch_schema(url, "pb_bench") as scratch:
        await run(scratch, args)


if __name__ == "__main__":
    main()
