"""Scale-out on one PostgreSQL with real `paperboard` processes and the local fake Discord.

Three sections (all by default), each repeated `--rounds` times:

- `start`: N processes (`paperboard run --console`, N = 2, 4, 8) started at the same
  instant on a fresh database, then on the same database up to date: the wall time
  until the last has started and left, and that every one exited 0.
- `moves`: two bot processes (`run --shard-count 2 --shard-ids 0` and `1`), one
  server each, Hex 9x9 against the bot at `medium` (a 1 s search) in both servers at
  once; for each of the player's /move commands, the time until the bot's move is
  posted in the thread, minus the search's own time (as the worker process measured
  it: the first move after a start also waits for that process to start). With
  AI_SEARCH=workers and two `paperboard worker` processes, then with the bot
  processes searching themselves (AI_SEARCH=here), side by side.
- `crash`: a bot process killed between a person's move's commit and its announcement:
  the time from the kill until the move is posted, by the other bot process (the
  lease runs out), and by the killed one restarted at once (it takes back its rows).

Last line: `scale: bot move p50 search + <s> s with workers (+ <s> s searching in the
bot), crash announced in <s> s (<s> s restarted), 8 processes start in <s> s (<s> s
up to date)`.

Run: .venv/bin/python -m bench.scale [--section start|moves|crash] [--rounds 3]
(PostgreSQL as for the tests: PAPERBOARD_TEST_POSTGRES, default
postgresql://postgres@127.0.0.1:5432/test; each round uses a database of its own.)
"""

from __future__ import annotations

import argparse
import asyncio
import random
import re
import signal
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from bot.service import GameService
from bot.settings import Settings
from bot.store import Database
from tests.conftest import fresh_database
from tests.fakediscord import FakeDiscord, Guild, User
from tests.fleet import PATIENCE, Fleet, fleet_on, until

SECTIONS = ("moves", "crash", "start")
COUNTS = (2, 4, 8)
MOVES = 6  # the player's moves in each of the two servers, a round
CRASH_MOVE = "a1"  # the first move of a new game, on which bot 0 dies
#: the runner's log line of a bot move: the search's own time is the one in the worker
SEARCHED = re.compile(r"game=(\d+) bot move ply=(\d+): search \d+ ms \(in the worker (\d+) ms")
BOT_PLAYED = "Paperboard (medium)** played"


# == start: N processes at once ==================================================================


async def start_together(url: str, folder: Path, count: int) -> tuple[float, int]:
    """Seconds from the go until `count` consoles have started and left, and how many
    of them failed (exited other than 0)."""
    async with fleet_on(url, folder) as fleet:
        consoles = {f"console-{n}": (["run", "--console"], {"PROCESS_NAME": f"console-{n}"})
                    for n in range(count)}  # fmt: skip
        began = await fleet.start(consoles)
        codes = [await fleet[name].ended() for name in consoles]
        took = time.perf_counter() - began
    return took, sum(code != 0 for code in codes)


async def start_round(folder: Path) -> dict[tuple[int, str], tuple[float, int]]:
    took = {}
    for count in COUNTS:
        async with fresh_database() as url:
            took[count, "fresh"] = await start_together(url, folder, count)
            took[count, "up to date"] = await start_together(url, folder, count)
    return took


# == moves and crashes: two bot processes (and two workers) ======================================


class Servers:
    """The fake Discord with two servers, one per shard of 2, ann in both, the bot
    processes and workers running, and a service reading the database."""

    def __init__(self, fake: FakeDiscord, fleet: Fleet, service: GameService) -> None:
        self.fake = fake
        self.fleet = fleet
        self.service = service
        self.guilds: list[Guild] = [
            fake.create_guild(f"Club {shard}", channels=["games"], id=(1000 + shard) << 22)
            for shard in (0, 1)
        ]
        self.ann: User = fake.create_user("ann")

    def bot_process(self, shard: int) -> tuple[list[str], dict[str, str]]:
        arguments = ["run", "--shard-count", "2", "--shard-ids", str(shard)]
        environment = {"DEV_GUILD_ID": str(self.guilds[shard].id)}
        if shard == 0:
            environment["PB_DIE_AFTER_MOVE"] = CRASH_MOVE
        return arguments, environment

    async def ready(self) -> None:
        await self.fake.wait_for(
            lambda: all(self.fake.commands(g) for g in self.guilds), PATIENCE, what="commands"
        )
        await self.fake.wait_ready(shards=2, timeout=PATIENCE)

    async def new_game(self, shard: int) -> tuple[int, Any]:
        """ann challenges the bot in the shard's server: the game and its thread."""
        guild = self.guilds[shard]
        before = {g.id for g in await self.service.lookups.games(guild.id)}
        options = {"game": "hex", "size": "9", "options": "swap=off", "first": "challenger",
                   "opponent": self.fake.bot}  # fmt: skip
        await self.fake.slash(self.ann, "challenge", options, channel=guild.channel("games"))

        async def threaded() -> Any:
            games = [g for g in await self.service.lookups.games(guild.id) if g.id not in before]
            return games and games[0].thread_id

        await until(threaded, "the game's thread")
        [game] = [g for g in await self.service.lookups.games(guild.id) if g.id not in before]
        thread = next(t for t in self.fake.threads if t.id == game.thread_id)
        return game.id, thread

    async def move(self, shard: int, game_id: int, thread: Any, text: str) -> None:
        await self.fake.slash(self.ann, "move", {"move": text}, channel=thread)

    async def posted(self, thread: Any, text: str, count: int, wait: float = PATIENCE) -> float:
        await self.fake.wait_for(
            lambda: sum(text in m.content for m in thread.messages) >= count,
            wait,
            what=f"{count} x {text!r}",
        )
        return time.perf_counter()


async def play_game(
    servers: Servers, shard: int, rng: random.Random
) -> list[tuple[int, int, float]]:
    """ann's MOVES moves against the bot: (game, the job's ply, seconds until the bot's
    move was posted) for each."""
    game_id, thread = await servers.new_game(shard)
    guild_id = servers.guilds[shard].id
    timings = []
    for n in range(1, MOVES + 1):
        state = await servers.service.lookups.state(game_id, guild_id)
        if state.outcome is not None:
            break
        text = rng.choice(sorted(m for m in state.legal_moves() if m != CRASH_MOVE))
        sent = time.perf_counter()
        await servers.move(shard, game_id, thread, text)
        if state.play(text).outcome is not None:
            break
        timings.append((game_id, state.ply + 1, await servers.posted(thread, BOT_PLAYED, n) - sent))
    return timings


def search_seconds(fleet: Fleet) -> dict[tuple[int, int], float]:
    """(game, ply) -> the search's time, from the searching processes' logs."""
    found = {}
    for child in fleet.children.values():
        for line in child.lines:
            if match := SEARCHED.search(line):
                found[int(match[1]), int(match[2])] = int(match[3]) / 1000
    return found


async def moves_round(folder: Path, ai_search: str, seed: int) -> list[float]:
    """The bot's reply beyond its search, for every move of a game in each server."""
    async with fresh_database() as url, FakeDiscord() as fake:
        environment = {"DISCORD_TOKEN": fake.token, "DISCORD_API_BASE": fake.api_base,
                       "DISCORD_GATEWAY_URL": fake.gateway_url, "AI_SEARCH": ai_search}  # fmt: skip
        async with fleet_on(url, folder, **environment) as fleet:
            service = await open_service(url)
            servers = Servers(fake, fleet, service)
            try:
                commands = {f"bot-{s}": servers.bot_process(s) for s in (0, 1)}
                if ai_search == "workers":
                    for n in (1, 2):
                        commands[f"worker-{n}"] = (["worker"], {"PROCESS_NAME": f"worker-{n}"})
                await fleet.start(commands)
                await servers.ready()
                for name in commands:
                    await fleet[name].printed("started" if "worker" in name else "ready as")
                rng = random.Random(seed)
                games = await asyncio.gather(
                    *(play_game(servers, shard, random.Random(rng.random())) for shard in (0, 1))
                )
                timings = [timing for game in games for timing in game]

                async def logged() -> bool:  # a search's log line may come after its post
                    return all((g, ply) in search_seconds(fleet) for g, ply, _ in timings)

                await until(logged, "every search's log line")
                searched = search_seconds(fleet)
                return [took - searched[g, ply] for g, ply, took in timings]
            finally:
                await service.close()


async def crash_round(folder: Path) -> tuple[float, float]:
    """Seconds from bot 0's kill until ann's move is posted: by bot 1, then (a second
    crash) by bot 0 restarted at once."""
    async with fresh_database() as url, FakeDiscord() as fake:
        # no search (AI_SEARCH=workers, none running): the bot processes alone
        environment = {"DISCORD_TOKEN": fake.token, "DISCORD_API_BASE": fake.api_base,
                       "DISCORD_GATEWAY_URL": fake.gateway_url, "AI_SEARCH": "workers"}  # fmt: skip
        async with fleet_on(url, folder, **environment) as fleet:
            service = await open_service(url)
            servers = Servers(fake, fleet, service)
            try:
                await fleet.start({f"bot-{s}": servers.bot_process(s) for s in (0, 1)})
                await servers.ready()
                delays = []
                running = "bot-0"
                for restart in (False, True):
                    game_id, thread = await servers.new_game(0)
                    await servers.move(0, game_id, thread, CRASH_MOVE)
                    assert await fleet[running].ended() == -signal.SIGKILL
                    killed = time.perf_counter()
                    running = "bot-0 restarted" if restart else "bot-0 again"
                    if restart:
                        await fleet.start({running: servers.bot_process(0)})
                    delays.append(
                        await servers.posted(thread, f"played {CRASH_MOVE}", 1, 300) - killed
                    )
                    if not restart:
                        await fleet.start({running: servers.bot_process(0)})
                        await fleet[running].printed("ready as")
                return delays[0], delays[1]
            finally:
                await service.close()


async def open_service(url: str) -> GameService:
    settings = Settings(database_url=url, render_processes=0, _env_file=None)  # type: ignore[call-arg]
    return GameService(await Database.open(url), settings)


# == the report ===================================================================================


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--section", choices=SECTIONS)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    rounds = args.rounds
    headline = {}
    with tempfile.TemporaryDirectory() as directory:
        folder = Path(directory)
        if args.section in (None, "moves"):
            medians = {}
            for ai_search in ("workers", "here"):
                runs = [
                    statistics.median(asyncio.run(moves_round(folder, ai_search, seed)))
                    for seed in range(rounds)
                ]
                medians[ai_search] = statistics.median(runs)
                shown = ", ".join(f"{run:.2f}" for run in runs)
                beyond = medians[ai_search]
                print(f"bot move beyond its search, AI_SEARCH={ai_search}: p50 {beyond:.2f} s")
                print(f"  (the medians of {rounds} runs: {shown})")
            headline["moves"] = (
                f"bot move p50 search + {medians['workers']:.2f} s with workers "
                f"(+ {medians['here']:.2f} s searching in the bot)"
            )
        if args.section in (None, "crash"):
            crashes = [asyncio.run(crash_round(folder)) for _ in range(rounds)]
            other = statistics.median(c[0] for c in crashes)
            again = statistics.median(c[1] for c in crashes)
            print(f"crash announced by the other process after {other:.1f} s, by the killed")
            print(f"  one restarted at once after {again:.1f} s (medians of {rounds})")
            headline["crash"] = f"crash announced in {other:.1f} s ({again:.1f} s restarted)"
        if args.section in (None, "start"):
            starts = [asyncio.run(start_round(folder)) for _ in range(rounds)]
            failed = 0
            for count in COUNTS:
                fresh = statistics.median(r[count, "fresh"][0] for r in starts)
                current = statistics.median(r[count, "up to date"][0] for r in starts)
                failures = sum(
                    r[count, kind][1] for r in starts for kind in ("fresh", "up to date")
                )
                times = f"fresh {fresh:.1f} s, up to date {current:.1f} s"
                print(
                    f"{count} processes at once: {times}, {failures} of {2 * count * rounds} failed"
                )
                failed += failures
            print(f"  (medians of {rounds})")
            headline["start"] = (
                f"8 processes start in {fresh:.1f} s ({current:.1f} s up to date), "
                f"{failed} processes failed"
            )
    print("scale: " + ", ".join(headline.values()))


if __name__ == "__main__":
    main()
