"""Playing the bot, and analysis: what the AI queue costs everyone else.

Three sections (all by default):

- `reply`: through the local fake Discord, one whole game against the bot at `easy`
  for every game; for each of the player's /move commands, the time until the bot's
  move is posted in the thread, minus the search's own time (the queue, the claim,
  the worker process, the commit, the board, the post).
- `lag`: the event loop's lag (a 2 ms ticker) and the latency of people's moves in
  other games (service.play.move), first with no search running, then while 4
  searches run (4 games against the bot at `max`, AI_PROCESSES=4); medians and p99s
  side by side.
- `analysis`: the analysis of a 40-move Hex 11x11 game at 0.5 s a position: wall
  time and the chart's PNG size.

Last line: `ai play: reply overhead p99 <ms> ms, lag p99 <ms> ms (x<ratio>), human
move p99 x<ratio>, analysis <s> s, chart <KB> KB`.

Run: .venv/bin/python -m bench.ai_play [--section reply|lag|analysis]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import tempfile
import time
from functools import partial
from pathlib import Path
from typing import Any

from bot.discordbot import PaperboardBot
from bot.schedule.airunner import AiRunner
from bot.service import GameService, Place, Player, Result
from bot.settings import Settings
from bot.store import Database
from tests.fakediscord import FakeDiscord, discord_pointed_at, run_bot

GAMES: list[tuple[str, dict[str, Any], int]] = [
    ("hex", {"size": "11", "options": "swap=off"}, 1),
    ("disthex", {"size": "9"}, 1),
    ("hotwire", {"size": "7x7"}, 1),
    ("shortcircuit", {"size": "3", "options": "max_turns=40"}, 1),
    ("livewire", {"size": "17x14"}, 1),
    ("intersections", {"size": "4"}, 2),
]
ANN, BOB = Player(101, "ann"), Player(102, "bob")
PLACE = Place(1, 10)


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


# == reply: the bot's answer through the fake Discord ===========================================


async def reply_overheads(folder: Path) -> list[float]:
    overheads: list[float] = []
    async with FakeDiscord() as fake:
        with discord_pointed_at(fake):
            guild = fake.create_guild("Bench", channels=["games"])
            ann = fake.create_user("ann")
            url = f"sqlite:///{folder / 'reply.db'}"
            settings = Settings(_env_file=None, database_url=url, dev_guild_id=guild.id)  # type: ignore[call-arg]
            service = GameService(await Database.open(url), settings)
            bot = PaperboardBot(service, settings)
            rng = random.Random(2026)
            try:
                async with run_bot(fake, bot):
                    assert bot.ai is not None
                    for game, options, bots in GAMES:
                        found = await one_game(
                            fake, guild, ann, service, bot.ai, game, options, bots, rng
                        )
                        median, most = statistics.median(found), max(found)
                        print(
                            f"  {game}: {len(found)} bot turns, overhead median "
                            f"{1000 * median:.0f} ms, max {1000 * most:.0f} ms"
                        )
                        overheads += found
            finally:
                await service.close()
    return overheads


async def one_game(
    fake: FakeDiscord,
    guild: Any,
    ann: Any,
    service: GameService,
    runner: AiRunner,
    game: str,
    options: dict[str, Any],
    bots: int,
    rng: random.Random,
) -> list[float]:
    channel = guild.channel("games")
    asked = {"game": game, "first": "challenger", "level": "easy", **options}
    if bots > 1:  # Making Intersections: the bot in several seats
        for n in range(1, bots + 1):
            asked["opponent" if n == 1 else f"opponent{n}"] = fake.bot
    await (await fake.slash(ann, "challenge", asked, channel=channel)).reply(timeout=60)
    game_id = max(g.id for g in await service.lookups.games(guild.id))
    summary = await wait_game(service, guild.id, game_id, lambda g: g.thread_id is not None)
    thread = next(t for t in fake.threads if t.id == summary.thread_id)
    await fake.wait_for(lambda: bool(thread.messages), timeout=60, what="the first board")
    overheads = []
    while summary.status == "active":
        state = await service.lookups.state(game_id, guild.id)
        before = len(thread.messages)
        started = time.perf_counter()
        handle = await fake.slash(
            ann, "move", {"move": rng.choice(state.legal_moves())}, channel=thread
        )
        await handle.reply(timeout=60)
        summary = await service.lookups.game(game_id, guild.id)
        if summary.status != "active":
            break
        # every bot seat answers in turn before Ann's next move
        while summary.status == "active" and summary.seats[summary.to_move or 0].bot:
            ply = summary.ply
            posted = thread.messages
            await fake.wait_for(
                partial(bot_played, posted, before),
                timeout=120,
                what="the bot's move",
            )
            overheads.append(time.perf_counter() - started - runner.searched[game_id])
            before = len(thread.messages)
            started = time.perf_counter()
            summary = await wait_game(service, guild.id, game_id, lambda g, p=ply: g.ply != p)
    return overheads


def bot_played(messages: list[Any], since: int) -> bool:
    return any("** played" in m.content for m in messages[since:])


async def wait_game(service: GameService, guild_id: int, game_id: int, ready: Any) -> Any:
    for _ in range(6000):
        game = await service.lookups.game(game_id, guild_id)
        if ready(game):
            return game
        await asyncio.sleep(0.005)
    raise TimeoutError(f"game #{game_id} never got ready")


# == lag: the event loop and other games while searches run =======================================


async def lag_and_moves(folder: Path, seconds: float) -> dict[str, list[float]]:
    url = f"sqlite:///{folder / 'lag.db'}"
    settings = Settings(_env_file=None, database_url=url, ai_processes=4)  # type: ignore[call-arg]
    service = await GameService.open(settings)
    published: list[Result] = []

    async def deliver(result: Result) -> None:
        published.append(result)

    runner = AiRunner(service, deliver, processes=4)
    figures: dict[str, list[float]] = {}
    try:
        people = []
        for _ in range(8):  # games between people, moved in turn
            issued = await service.challenges.challenge(
                PLACE, ANN, "hex", opponents=[BOB], options={"size": 11}, first="challenger"
            )
            people.append((await service.challenges.accept(issued.game.id, 1, BOB)).game.id)
        await probe(service, people, 5.0)  # warm up: the drawing worker, each game's state
        for label in ("idle", "searching"):
            if label == "searching":
                for _ in range(4):  # the bot moves first, a minute each: 4 searches all along
                    await service.challenges.challenge(
                        PLACE, ANN, "hex", options={"size": 11}, bots=["max"], first="opponent"
                    )
                await runner.start()
                await asyncio.sleep(2)  # the workers take their jobs
            lags, moves = await probe(service, people, seconds)
            figures[f"{label} lag"] = lags
            figures[f"{label} move"] = moves
    finally:
        await runner.stop()
        await service.close()
    return figures


async def probe(
    service: GameService, people: list[int], seconds: float
) -> tuple[list[float], list[float]]:
    lags: list[float] = []
    moves: list[float] = []
    stop = time.perf_counter() + seconds

    async def ticker() -> None:
        while time.perf_counter() < stop:
            before = time.perf_counter()
            await asyncio.sleep(0.002)
            lags.append(time.perf_counter() - before - 0.002)

    async def mover() -> None:
        rng = random.Random(len(moves))
        while time.perf_counter() < stop:
            for game_id in people:
                state = await service.lookups.state(game_id, 1)
                if state.outcome is not None:
                    continue
                player = (ANN, BOB)[state.to_move or 0]
                started = time.perf_counter()
                await service.play.move(game_id, 1, player, rng.choice(state.legal_moves()))
                moves.append(time.perf_counter() - started)
                await asyncio.sleep(0.05)

    await asyncio.gather(ticker(), mover())
    return lags, moves


# == analysis ===================================================================================


async def analysis(folder: Path) -> tuple[float, int, str]:
    url = f"sqlite:///{folder / 'analysis.db'}"
    settings = Settings(_env_file=None, database_url=url)  # type: ignore[call-arg]
    service = await GameService.open(settings)
    runner = AiRunner(service, lambda result: asyncio.sleep(0), processes=1)
    try:
        issued = await service.challenges.challenge(
            PLACE, ANN, "hex", opponents=[BOB], options={"size": 11, "swap": "off"},
            first="challenger",
        )  # fmt: skip
        game = (await service.challenges.accept(issued.game.id, 1, BOB)).game
        rng = random.Random(40)
        state = await service.lookups.state(game.id, 1)
        while state.ply < 40:
            # 40 moves of a game still under way, then Ann resigns: a finished 40-move game
            await service.play.move(
                game.id, 1, (ANN, BOB)[state.ply % 2], rng.choice(state.legal_moves())
            )
            state = await service.lookups.state(game.id, 1)
        await service.play.resign(game.id, 1, ANN)
        await asyncio.sleep(1)  # the worker process has started
        started = time.perf_counter()
        await service.analysis.analysis(game.id, 1)
        await runner.run_once()
        report = await service.analysis.analysis(game.id, 1)
        wall = time.perf_counter() - started
        assert report.done
        (folder / "analysis.png").write_bytes(report.png)
        return wall, len(report.png), report.text
    finally:
        await runner.stop()
        await service.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--section", choices=("reply", "lag", "analysis"))
    parser.add_argument("--lag-seconds", type=float, default=20.0)
    parser.add_argument("--chart", type=Path, help="keep the analysis chart here")
    args = parser.parse_args()
    parts = []
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        if args.section in (None, "reply"):
            overheads = asyncio.run(reply_overheads(folder))
            ms = [1000 * value for value in overheads]
            p99 = percentile(ms, 0.99)
            print(
                f"reply minus search, {len(ms)} bot moves: median "
                f"{statistics.median(ms):.0f} ms, p99 {p99:.0f} ms, max {max(ms):.0f} ms"
            )
            parts.append(f"reply overhead p99 {p99:.0f} ms")
        if args.section in (None, "lag"):
            figures = asyncio.run(lag_and_moves(folder, args.lag_seconds))
            for key, values in figures.items():
                ms = [1000 * v for v in values]
                print(f"{key}: {len(ms)} samples, median {statistics.median(ms):.1f} ms, "
                      f"p99 {percentile(ms, 0.99):.1f} ms")  # fmt: skip
            lag = [percentile(figures[f"{k} lag"], 0.99) for k in ("idle", "searching")]
            move = [percentile(figures[f"{k} move"], 0.99) for k in ("idle", "searching")]
            parts.append(f"lag p99 {1000 * lag[1]:.1f} ms (x{lag[1] / lag[0]:.2f})")
            parts.append(f"human move p99 x{move[1] / move[0]:.2f}")
        if args.section in (None, "analysis"):
            wall, size, text = asyncio.run(analysis(folder))
            print(text)
            if args.chart is not None:
                args.chart.write_bytes((folder / "analysis.png").read_bytes())
            parts.append(f"analysis {wall:.1f} s, chart {size / 1024:.0f} KB")
    print("ai play: " + ", ".join(parts))


if __name__ == "__main__":
    main()
