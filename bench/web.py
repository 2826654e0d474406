"""Web pages benchmark: game pages and board pictures under an open-loop load, served
by the bot's own process while the bot's moves are measured beside them.

The store holds 100,000 games (bench/schedule.py's bulk rows: Hex 5 at ply 0, 90,000
finished, 10,000 under way); 3,000 of them get real records (Hex 11, Hot Wire 9x9 and
Short Circuit random games written into the moves table, four in five played to their
end). Every server's pages are on (`web:public`). The bot's process is this one: the
service with its drawing worker, the web pages served on its loop as `paperboard run`
serves them (WEB_RATE_LIMIT=0: the load comes from one address), a light game (Hot Wire
7x7) moving every 50 ms through the same service (each move's reply carries its board),
a ticker measuring how late a 2 ms sleep wakes (the loop's stall), and the garbage
collector's longest pause (a `gc.callbacks` hook).

The load is another process (`--drive`, an aiohttp client): it first asks for
`--boards` board pictures once each (drawn, then cached), then sends `--rate` requests a
second for `--seconds` at fixed times (open loop: a slow answer delays no later request;
each latency counts from the time its request was due), half of them game pages (a real
game at random, a random ply), a quarter those boards again by their version (`?v=`: the
picture from the cache), a quarter with If-None-Match (a 304). Each round measures the
moves for `--seconds / 2` without load, then under the load, then again without; figures
are medians of the rounds' p50s and p99s. SQLite, then PostgreSQL (a database of the
benchmark's own, created and dropped: PAPERBOARD_TEST_POSTGRES names the server). Last
line (the worse of the two backends):

    web game page p99: <ms> ms; cached board p99 <ms> ms; move p99 <ms> ms under load
    (<ms> ms without); loop stall <ms> ms

Then the live pages (bench/web_live.py), on each backend: `--live-pages` pages open on
their live streams while a move comes every 50 ms, spread over `--live-games` games: the
move's answer p99, the pages' delivery p99, the loop's longest stall, memory per page.
The last line gains them (the worse of the two backends):

    ...; live: <n> pages, delivery p99 <ms> ms, move p99 <ms> ms, stall <ms> ms, <kB> kB a page

Run: .venv/bin/python -m bench.web [--backend sqlite|postgresql|both] [--rounds 3]
[--seconds 20] [--rate 200] [--live-pages 2000] [--live-games 200] [--live-seconds 20]
[--live-only]

`--cpu N` measures instead what one request costs the bot's process: its CPU time
(time.process_time: the loop and the database's threads; the drawing workers draw
nothing here) over N requests of each kind sent one after another by the other process,
no mover, no load beside them. Kinds: a page of a game kept (100 games asked before,
read less than FRESH_SECONDS ago), the same with its row read again (FRESH_SECONDS 0:
what most pages of the load are, each game asked about every 30 s), a page of a game
never asked before (nothing kept: read, replayed, drawn), a board by its version and a
304 (each fresh, and with the row read again). Prints ms of CPU per request by kind.

Here the rounds, their figures and the command line; the store and the server in
bench/web_serving.py, the load in bench/web_load.py, `--cpu` in bench/web_cpu.py.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import random
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import engine
from bench import web_live
from bench.discord_e2e import percentile
from bench.load import Collections, Ticker
from bench.web_cpu import CPU_KINDS, cpu_costs, probe
from bench.web_load import drive
from bench.web_serving import serving
from bot.service import GameService, Place, Player

LIGHT = ("hotwire", {"size": "7x7"})
MOVER_GUILD = 1


# == the bot's side: moves and the loop ==========================================================


@dataclass
class Windows:
    """The moves' latencies, the loop's worst stall and the collector's worst pause in
    each window of a round."""

    moves: dict[str, list[float]] = field(default_factory=lambda: {"quiet": [], "loaded": []})
    stall: dict[str, float] = field(default_factory=lambda: {"quiet": 0.0, "loaded": 0.0})
    collection: dict[str, float] = field(default_factory=lambda: {"quiet": 0.0, "loaded": 0.0})
    collections: Collections = field(default_factory=Collections)
    now: str | None = None  # the window moves are counted in; None between windows


async def light_moves(service: GameService, windows: Windows, stop: asyncio.Event) -> None:
    """A light game's moves at a player's pace, each counted in the window it began in."""
    rng = random.Random(3)
    first = 900_000
    while not stop.is_set():
        players = [Player(first, f"m{first}"), Player(first + 1, f"m{first + 1}")]
        first += 2
        issued = await service.challenges.challenge(
            Place(MOVER_GUILD, 1001), players[0], LIGHT[0], opponents=players[1:],
            options=LIGHT[1], first="challenger",
        )  # fmt: skip
        await service.challenges.accept(issued.game.id, MOVER_GUILD, players[1])
        state = engine.new(LIGHT[0], **LIGHT[1])
        while state.outcome is None and not stop.is_set():
            text = rng.choice(state.legal_moves())
            window = windows.now
            start = time.perf_counter()
            await service.play.move(issued.game.id, MOVER_GUILD, players[state.ply % 2], text)
            if window is not None and window == windows.now:
                windows.moves[window].append(time.perf_counter() - start)
            state = state.play(text)
            await asyncio.sleep(0.05)


async def window(windows: Windows, ticker: Ticker, name: str, until: Any) -> Any:
    """Count moves and the loop's stall as `name` while `until` runs."""
    ticker.worst, windows.collections.worst, windows.now = 0.0, 0.0, name
    try:
        return await until
    finally:
        windows.now = None
        windows.stall[name] = max(windows.stall[name], ticker.worst)
        windows.collection[name] = max(windows.collection[name], windows.collections.worst)


@dataclass
class Round:
    web: dict[str, list[float]]  # kind: latencies, ms
    errors: dict[str, int]
    moves: dict[str, list[float]]  # quiet, loaded: ms
    late: float  # the load's requests' p99 lateness in leaving, ms
    stall: dict[str, float]  # ms
    collection: dict[str, float]  # the collector's longest pause, ms


async def one_round(
    base: str, targets: list[Any], args: argparse.Namespace, seed: int, ticker: Ticker,
    service: GameService,
) -> Round:  # fmt: skip
    windows = Windows()
    gc.callbacks.append(windows.collections)
    stop = asyncio.Event()
    mover = asyncio.create_task(light_moves(service, windows, stop))
    half = asyncio.sleep(args.seconds / 2)
    await window(windows, ticker, "quiet", half)
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as plan:
        json.dump(
            {"base": base, "games": targets, "rate": args.rate, "seconds": args.seconds,
             "boards": args.boards, "seed": seed},
            plan,
        )  # fmt: skip
    load = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bench.web",
        "--drive",
        plan.name,
        stdout=asyncio.subprocess.PIPE,
        limit=256 * 1024 * 1024,  # its answer: a line of every latency
    )
    assert load.stdout is not None
    ready = await load.stdout.readline()  # the boards drawn once: the load starts
    assert ready.strip() == b"ready", ready
    answer = await window(windows, ticker, "loaded", load.stdout.readline())
    await load.wait()
    Path(plan.name).unlink()
    await window(windows, ticker, "quiet", asyncio.sleep(args.seconds / 2))
    stop.set()
    await mover
    gc.callbacks.remove(windows.collections)
    driven = json.loads(answer)
    return Round(
        web={kind: sorted(values) for kind, values in driven["ms"].items()},
        errors=driven["errors"],
        moves={name: sorted(1e3 * s for s in values) for name, values in windows.moves.items()},
        stall={name: 1e3 * s for name, s in windows.stall.items()},
        collection={name: 1e3 * s for name, s in windows.collection.items()},
        late=driven["late"],
    )


async def measure(url: str, args: argparse.Namespace, backend: str) -> list[Round]:
    async with serving(url, args, backend) as served:
        ticker = Ticker()
        ticking = asyncio.create_task(ticker.run())
        rounds = []
        for n in range(args.rounds):
            found = await one_round(
                served.settings.site_url, served.targets, args, n, ticker, served.service
            )
            rounds.append(found)
            print(f"  round {n + 1}: {describe(found)}", flush=True)
        ticker.running = False
        await ticking
        return rounds


# == reporting ===================================================================================


def describe(found: Round) -> str:
    parts = [
        f"{kind} p50 {statistics.median(ms):.1f} p99 {percentile(ms, 0.99):.1f} ms"
        for kind, ms in found.web.items()
        if ms
    ]
    parts += [
        f"moves {name} p99 {percentile(ms, 0.99):.0f} ms ({len(ms)})"
        for name, ms in found.moves.items()
        if ms
    ]
    parts.append(
        f"stall loaded {found.stall['loaded']:.0f} ms, quiet {found.stall['quiet']:.0f} ms"
        f" (the collector's longest pause {found.collection['loaded']:.0f} ms,"
        f" {found.collection['quiet']:.0f} ms)"
    )
    parts.append(f"requests left late by p99 {found.late:.1f} ms")
    errors = sum(found.errors.values())
    if errors:
        parts.append(f"answers not as expected: {found.errors}")
    return "; ".join(parts)


def medians(rounds: list[Round]) -> dict[str, float]:
    """Per figure: the median over the rounds."""
    figures: dict[str, list[float]] = {}
    for found in rounds:
        for kind, ms in found.web.items():
            figures.setdefault(f"{kind} p50", []).append(statistics.median(ms))
            figures.setdefault(f"{kind} p99", []).append(percentile(ms, 0.99))
        for name, ms in found.moves.items():
            figures.setdefault(f"move {name} p50", []).append(statistics.median(ms))
            figures.setdefault(f"move {name} p99", []).append(percentile(ms, 0.99))
        for name, stall in found.stall.items():
            figures.setdefault(f"stall {name}", []).append(stall)
        for name, pause in found.collection.items():
            figures.setdefault(f"collector pause {name}", []).append(pause)
    return {name: statistics.median(values) for name, values in figures.items()}


@contextlib.asynccontextmanager
async def database(backend: str, folder: Path) -> AsyncIterator[str]:
    if backend == "sqlite":
        yield f"sqlite:///{folder / 'web.db'}"
        return
    from tests.conftest import fresh_database  # its own database, dropped afterwards

    async with fresh_database() as url:
        yield url


async def run(args: argparse.Namespace) -> None:
    backends = ("sqlite", "postgresql") if args.backend == "both" else (args.backend,)
    found: dict[str, dict[str, float]] = {}
    errors = 0
    print(f"load average {' '.join(Path('/proc/loadavg').read_text().split()[:3])}")
    with tempfile.TemporaryDirectory() as folder:
        if args.cpu:
            costs = {}
            for backend in backends:
                async with database(backend, Path(folder)) as url:
                    costs[backend] = await cpu_costs(url, args, backend)
            load = " ".join(Path("/proc/loadavg").read_text().split()[:3])
            print(
                f"load average {load}; ms of CPU a request (of it the loop's thread), "
                f"{args.cpu} of each kind:"
            )
            print("| | " + " | ".join(backends) + " |")
            print("|---|" + "---:|" * len(backends))
            for kind, _ in CPU_KINDS:
                print(
                    f"| {kind} | "
                    + " | ".join(
                        f"{costs[b][kind]:.2f} ({costs[b][kind + ' (loop)']:.2f})" for b in backends
                    )
                    + " |"
                )
            return
        live: dict[str, web_live.LiveFigures] = {}
        for backend in backends:
            if not args.live_only:
                async with database(backend, Path(folder)) as url:
                    rounds = await measure(url, args, backend)
                errors += sum(sum(r.errors.values()) for r in rounds)
                found[backend] = medians(rounds)
            if args.live_pages:
                (Path(folder) / "live").mkdir(exist_ok=True)
                async with database(backend, Path(folder) / "live") as url:
                    live[backend] = await web_live.measure(url, args, backend)
                print(f"  live pages, {backend}: {live[backend].line()}", flush=True)
                errors += live[backend].missing
    print(f"load average {' '.join(Path('/proc/loadavg').read_text().split()[:3])}")
    headline = web_live.headline(live, args.live_pages)
    if args.live_only:
        print(headline.removeprefix("; "))
        sys.exit(1 if errors else 0)
    print(f"medians of {args.rounds} rounds, {args.rate:g} requests/s, ms:")
    print("| | " + " | ".join(backends) + " |")
    print("|---|" + "---:|" * len(backends))
    for name in found[backends[0]]:
        print(f"| {name} | " + " | ".join(f"{found[b][name]:.1f}" for b in backends) + " |")
    worst = {name: max(found[b][name] for b in backends) for name in found[backends[0]]}
    if errors:
        print(f"answers not as expected: {errors}")
    print(
        f"web game page p99: {worst['page p99']:.1f} ms; cached board p99 "
        f"{max(worst['board p99'], worst['board 304 p99']):.1f} ms; move p99 "
        f"{worst['move loaded p99']:.0f} ms under load ({worst['move quiet p99']:.0f} ms "
        f"without); loop stall {worst['stall loaded']:.0f} ms{headline}"
    )
    if errors:
        sys.exit(1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=("sqlite", "postgresql", "both"), default="both")
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--real", type=int, default=3_000, help="games given real records")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=20.0, help="of load, a round")
    parser.add_argument("--rate", type=float, default=200.0, help="requests a second")
    parser.add_argument("--boards", type=int, default=200, help="board pictures asked again")
    parser.add_argument("--cpu", type=int, default=0, help="CPU per request, N of each kind")
    parser.add_argument("--live-pages", type=int, default=2000, help="live pages open (0: none)")
    parser.add_argument("--live-games", type=int, default=200, help="the games they watch")
    parser.add_argument("--live-seconds", type=float, default=20.0, help="of moves")
    parser.add_argument("--live-only", action="store_true", help="only the live pages")
    parser.add_argument("--drive", help=argparse.SUPPRESS)  # the load process: its plan
    parser.add_argument("--live-drive", help=argparse.SUPPRESS)  # the live pages: their plan
    parser.add_argument("--live-serve", help=argparse.SUPPRESS)  # the live moves' other service
    parser.add_argument("--probe", help=argparse.SUPPRESS)  # --cpu's requests: its plan
    args = parser.parse_args()
    if args.probe:
        asyncio.run(probe(json.loads(Path(args.probe).read_text())))
        return
    if args.live_drive:
        asyncio.run(web_live.drive(json.loads(Path(args.live_drive).read_text())))
        return
    if args.live_serve:
        port, url = args.live_serve.split(" ", 1)
        asyncio.run(web_live.serve(int(port), url))
        return
    if args.drive:
        answer = asyncio.run(drive(json.loads(Path(args.drive).read_text())))
        print(json.dumps(answer), flush=True)
        return
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
