"""Load benchmark: the heaviest allowed configuration of every game through the service,
with a light game played alongside.

For each game at its largest options a long random record is written to the store,
then the slow requests run one after another: a board after a cache miss (the whole
record replays), a board of the past, the groups overlay, a move after a cache miss,
an undo and the whole game's GIF. Meanwhile a light game (Hot Wire 7x7) moves as fast
as it can, a ticker samples the event loop's lag every 2 ms and a `gc.callbacks` hook
times the garbage collector's pauses. Peak RSS is VmHWM of this process and of each
drawing worker (/proc, summed). Last line:

    load: worst loop stall X ms; worst gc pause G ms (generation N); light move p99 Y ms;
    peak RSS Z MB

Run: .venv/bin/python -m bench.load
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import multiprocessing
import random
import tempfile
import time
from collections.abc import Awaitable, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import engine
from bot.service import GameService, Place, Player, Refused
from bot.settings import Settings
from bot.store.schema import games, moves

HEAVIEST: list[tuple[str, dict[str, object]]] = [
    ("hotwire", {"size": "19x19", "lengths": "any"}),
    ("hex", {"size": 19}),
    ("disthex", {"size": 19}),
    ("shortcircuit", {"size": 10, "capacitors": "unlimited", "max_turns": 9999}),
    ("livewire", {"size": "60x60"}),
    ("intersections", {"size": 12, "rounds": 120}),
    # the longest record the bot takes: 8 players, 64 segments a round (7,168 plies)
    ("intersections", {"players": 8, "size": 12, "segments": 64, "rounds": 112}),
]
LIGHT: tuple[str, dict[str, object]] = ("hotwire", {"size": "7x7"})
PLACE = Place(1, 1)
TICK = 0.002


class Ticker:
    """The event loop's worst lag: how late a 2 ms sleep wakes."""

    def __init__(self) -> None:
        self.worst = 0.0
        self.running = True

    async def run(self) -> None:
        last = time.perf_counter()
        while self.running:
            await asyncio.sleep(TICK)
            now = time.perf_counter()
            self.worst = max(self.worst, now - last - TICK)
            last = now


class Collections:
    """The garbage collector's longest pause (a `gc.callbacks` entry) since `worst` was
    last set to 0, and the generation it collected."""

    def __init__(self) -> None:
        self.worst = 0.0
        self.generation = 0
        self._began = 0.0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._began = time.perf_counter()
        elif time.perf_counter() - self._began > self.worst:
            self.worst = time.perf_counter() - self._began
            self.generation = info["generation"]


def peak_rss_mb() -> float:
    """VmHWM of this process plus VmRSS-or-VmHWM of its children (the drawing workers)."""
    peaks = [_status_kb("self", "VmHWM")]
    for task in Path("/proc/self/task").iterdir():
        peaks += [_status_kb(pid, "VmHWM") for pid in (task / "children").read_text().split()]
    print("peak RSS by process (MB):", ", ".join(f"{kb / 1024:.0f}" for kb in peaks))
    return sum(peaks) / 1024


def _status_kb(pid: str, field: str) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except FileNotFoundError:
        pass
    return 0


async def started(
    service: GameService, name: str, options: dict[str, object], first: int
) -> tuple[int, list[Player]]:
    """A game started with its players (two unless `options` names more)."""
    count = int(str(options.get("players", 2)))
    players = [Player(first + i, f"p{first + i}") for i in range(count)]
    issued = await service.challenges.challenge(
        PLACE,
        players[0],
        name,
        opponents=players[1:],
        options={key: value for key, value in options.items() if key != "players"},
        first="challenger",
    )
    for player in players[1:]:
        await service.challenges.accept(issued.game.id, 1, player)
    return issued.game.id, players


Record = tuple[tuple[str, ...], int | None, tuple[int, ...]]


def long_record(name: str, options: dict[str, object]) -> Record:
    """A random game stopped two plies before its end, who is to move then, and the seat
    that made each entry."""
    final = engine.new(name, **options).random_playout(random.Random(7))
    record = final.moves[: max(1, final.ply - 2)]
    to_move = engine.replay(name, final.options, record).to_move
    return record, to_move, final.actors[: len(record)]


async def with_record(
    service: GameService,
    game_id: int,
    record: tuple[str, ...],
    to_move: int | None,
    actors: Sequence[int] | None = None,
) -> None:
    """Write a long record straight into the store (as if played over months); `actors`,
    the seat that made each entry (by default two seats taking turns)."""
    async with service.records.db.write() as conn:
        row = (await conn.execute(games.select().where(games.c.id == game_id))).one()
        await conn.execute(
            moves.insert(),
            [
                {
                    "game_id": game_id,
                    "ply": i,
                    "seat": i % 2 if actors is None else actors[i],
                    "text": t,
                    "created_at": row.updated_at,
                }
                for i, t in enumerate(record)
            ],
        )
        await conn.execute(
            games.update().where(games.c.id == game_id).values(ply=len(record), to_move=to_move)
        )


async def heavy_requests(
    service: GameService,
    ticker: Ticker,
    collections: Collections,
    records: list[Record],
    first: int,
) -> dict[str, tuple[float, float, float]]:
    """Each slow request of each heaviest game: its duration, the worst loop stall and
    the garbage collector's longest pause while it ran, in seconds."""
    took: dict[str, tuple[float, float, float]] = {}

    async def timed(label: str, work: Awaitable[object]) -> None:
        start = time.perf_counter()
        worst, ticker.worst = ticker.worst, 0.0
        paused, generation, collections.worst = collections.worst, collections.generation, 0.0
        with contextlib.suppress(Refused):  # an undo a record cannot take: measured all the same
            await work
        took[label] = (time.perf_counter() - start, ticker.worst, collections.worst)
        ticker.worst = max(worst, ticker.worst)
        if paused > collections.worst:
            collections.worst, collections.generation = paused, generation

    for index, ((game, options), (record, to_move, actors)) in enumerate(
        zip(HEAVIEST, records, strict=True)
    ):
        seated = asyncio.ensure_future(started(service, game, options, first + 10 * index))
        name = game if "players" not in options else f"{game} {options['players']} players"
        await timed(f"{name} challenge and accept", seated)
        game_id, players = seated.result()
        before = ticker.worst
        await with_record(service, game_id, record, to_move, actors)
        ticker.worst = before  # the benchmark's own writing of months of moves, no request
        service.records._states.clear()
        await timed(f"{name} board after a cache miss", service.lookups.board(game_id, 1))
        await timed(
            f"{name} board of the past", service.lookups.board(game_id, 1, ply=len(record) // 2)
        )
        await timed(f"{name} groups", service.lookups.board(game_id, 1, groups=True))
        state = await service.lookups.state(game_id, 1)
        if state.to_move is not None and state.legal_moves():
            mover = players[state.to_move]
            service.records._states.clear()
            await timed(
                f"{name} move", service.play.move(game_id, 1, mover, state.legal_moves()[0])
            )
            await timed(f"{name} undo request", service.play.request_undo(game_id, 1, mover))
            others = [player for player in players if player != mover]
            for other in others[:-1]:  # every opponent but the last agrees first
                await service.play.answer_undo(game_id, 1, other, accept=True)
            service.records._states.clear()
            last = service.play.answer_undo(game_id, 1, others[-1], accept=True)
            await timed(f"{name} undo", last)
        await timed(f"{name} gif", service.lookups.replay_gif(game_id, 1))
    return took


async def light_moves(service: GameService, stop: asyncio.Event) -> list[float]:
    """Moves of light games, one after another, until told to stop: each one's latency."""
    latencies: list[float] = []
    rng = random.Random(3)
    first = 9000
    while not stop.is_set():
        game_id, players = await started(service, *LIGHT, first)
        first += 2
        state = engine.new(LIGHT[0], **LIGHT[1])
        while state.outcome is None and not stop.is_set():
            text = rng.choice(state.legal_moves())
            start = time.perf_counter()
            await service.play.move(game_id, 1, players[state.ply % 2], text)
            latencies.append(time.perf_counter() - start)
            state = state.play(text)
            await asyncio.sleep(0.05)  # a player's pace, not a flood
    return latencies


async def run(
    folder: Path,
) -> tuple[float, Collections, float, float, dict[str, tuple[float, float, float]]]:
    url = f"sqlite:///{folder / 'load.db'}"
    settings = Settings(  # type: ignore[call-arg]
        database_url=url, render_processes=1, max_active_games=10_000, _env_file=None
    )
    # the records are made in a process of their own: the bot's peak memory stays its own
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as helper:
        records = list(helper.map(long_record, *zip(*HEAVIEST, strict=True)))
    service = await GameService.open(settings)
    try:
        await light_moves_once(service)  # the workers have started
        ticker = Ticker()
        ticking = asyncio.create_task(ticker.run())
        collections = Collections()
        gc.callbacks.append(collections)
        stop = asyncio.Event()
        light = asyncio.create_task(light_moves(service, stop))
        took = await heavy_requests(service, ticker, collections, records, 100)
        stop.set()
        latencies = await light
        ticker.running = False
        await ticking
        gc.callbacks.remove(collections)
        rss = peak_rss_mb()
    finally:
        await service.close()
    latencies.sort()
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
    print(f"light moves: {len(latencies)}, p50 {latencies[len(latencies) // 2] * 1e3:.0f} ms")
    return ticker.worst, collections, p99, rss, took


async def light_moves_once(service: GameService) -> None:
    game_id, _ = await started(service, *LIGHT, 8000)
    await service.lookups.board(game_id, 1)
    await service.lookups.board(game_id, 1, groups=True)


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        worst, collections, p99, rss, took = asyncio.run(run(Path(folder)))
    for label, (seconds, stall, paused) in took.items():
        print(
            f"{label}: {seconds * 1e3:.0f} ms, worst loop stall {stall * 1e3:.0f} ms, "
            f"longest gc pause {paused * 1e3:.0f} ms"
        )
    print(
        f"load: worst loop stall {worst * 1e3:.0f} ms; worst gc pause "
        f"{collections.worst * 1e3:.0f} ms (generation {collections.generation}); "
        f"light move p99 {p99 * 1e3:.0f} ms; peak RSS {rss:.0f} MB"
    )


if __name__ == "__main__":
    main()
