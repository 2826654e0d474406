"""Email benchmark: move mails through the bot's SMTP listener on SQLite, each move's
board mailed to both players through an SMTP server (a capture server on loopback).

The players (email-only, in games of Hex 7x7 under way at once) and the capture server
run in a thread with an event loop of their own, so the bot's loop carries only the
bot: the listener, the desk, the service, the mails out. Each game's player to move
sends its move to the reply address of its seat and ply; the SMTP session ends when the
bot has committed the move and mailed the board to both players (the listener answers
250 after handling), so the time per game is the bot's. Figures: moves per second, the
longest the bot's event loop went without running a 1 ms ticker, and the bot's memory
(RSS after each thousand moves, and the peak). Last line:

    email moves/s: <n>

Run: .venv/bin/python -m bench.email [--games 50] [--moves 20]
(--games 500 --moves 20 for 10,000 move mails and 20,000 boards mailed)
"""

from __future__ import annotations

import argparse
import asyncio
import random
import resource
import tempfile
import threading
import time
from collections.abc import Awaitable
from email.message import EmailMessage
from pathlib import Path
from typing import TypeVar

import aiosmtplib

import engine
from bench.tournament import stalled_while
from bot.email.runner import start_mail
from bot.email.tokens import Token, reply_address
from bot.service import GameService, Place, Result
from bot.store import Database
from tests.mailkit import DOMAIN, SECRET, mail_settings, serve

GAME, OPTIONS = "hex", {"size": 7, "swap": False}
GUILD, CHANNEL = 1, 1
T = TypeVar("T")


def scripted_games(count: int, moves: int) -> list[list[str]]:
    """Random legal games of at least `moves` moves, cut to that."""
    rng = random.Random(2026)
    scripts = []
    while len(scripts) < count:
        final = engine.new(GAME, **OPTIONS).random_playout(rng)
        if final.ply >= moves:
            scripts.append(list(final.moves[:moves]))
    return scripts


def rss_mb() -> float:
    """This process's resident memory now (Linux: /proc)."""
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return pages * resource.getpagesize() / 2**20


class Counter:
    """The SMTP server the bot mails through: it counts the mails it takes (reading them
    would be the mail clients' work, not the bot's)."""

    def __init__(self) -> None:
        self.mails = 0

    async def handle_DATA(  # aiosmtpd's hook name
        self, server: object, session: object, envelope: object
    ) -> str:
        self.mails += 1
        return "250 OK"


class Players:
    """The mailboxes and the server the bot mails through, on a loop in a thread of
    their own."""

    def __init__(self) -> None:
        self.capture = Counter()
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.server, self.smtp_port = self.run(serve(self.capture))

    def run(self, work: Awaitable[T]) -> T:
        return asyncio.run_coroutine_threadsafe(work, self.loop).result()  # type: ignore[arg-type]

    async def play(
        self, listen_port: int, game_id: int, seats: list[str], script: list[str], first: int
    ) -> None:
        for ply, text in enumerate(script):
            seat = (first + ply) % 2
            message = EmailMessage()
            message["From"] = seats[seat]
            message["To"] = reply_address(Token(game_id, seat, ply), "play", DOMAIN, SECRET)
            message["Subject"] = "Re: Hex"
            message.set_content(f"{text}\n\n> the board")
            await aiosmtplib.send(
                message, hostname="127.0.0.1", port=listen_port, local_hostname="home.test"
            )

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.server.close)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join()


async def bench(folder: Path, games: int, moves: int) -> None:
    players = Players()
    url = f"sqlite:///{folder / 'email.db'}"
    settings = mail_settings(url, players.smtp_port).model_copy(update={"render_processes": 1})
    service = GameService(await Database.open(url), settings)

    async def published(result: Result) -> None:
        """The process's own adapter: nothing beside mail."""

    runner = await start_mail(service, settings, published, service.clock, codes=False)
    assert runner is not None and runner.port is not None
    await service.guild_settings(GUILD, email=True, email_channel=CHANNEL)
    chains = []
    for number, script in enumerate(scripted_games(games, moves)):
        seats = [f"a{number}@home.test", f"b{number}@home.test"]
        first, second = [
            await service.join_by_mail(address, f"p{number}{seat}", GUILD)
            for seat, address in enumerate(seats)
        ]
        issued = await service.challenge(
            Place(GUILD, CHANNEL), first, GAME, opponents=[second], options=OPTIONS
        )
        started = await service.accept(issued.game.id, GUILD, second)
        chains.append((started.game.id, seats, script, started.game.to_move or 0))
    mailed_before = players.capture.mails
    memory = [rss_mb()]
    total = sum(len(script) for *_, script, _ in chains)
    cpu = time.process_time()
    start = time.perf_counter()

    async def all_games() -> None:
        for tranche in range(0, len(chains), max(1, 1000 // moves)):
            batch = chains[tranche : tranche + max(1, 1000 // moves)]
            await asyncio.gather(
                *(
                    asyncio.wrap_future(
                        asyncio.run_coroutine_threadsafe(
                            players.play(runner.port or 0, gid, seats, script, first),
                            players.loop,
                        )
                    )
                    for gid, seats, script, first in batch
                )
            )
            memory.append(rss_mb())

    _, stall = await stalled_while(all_games())
    elapsed = time.perf_counter() - start
    cpu = time.process_time() - cpu
    mailed = players.capture.mails - mailed_before
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    await runner.stop()
    await service.close()
    players.close()
    assert mailed == 2 * total, f"{mailed} mails for {total} moves"
    print(f"{total} move mails in, {mailed} boards mailed out, {elapsed:.1f} s")
    print(
        f"CPU of this process (the bot and the players' thread; boards drawn in a worker "
        f"process): {cpu / total * 1e3:.1f} ms a move"
    )
    print("RSS after each thousand moves (MB): " + ", ".join(f"{m:.0f}" for m in memory))
    print(f"longest event loop stall: {stall * 1e3:.0f} ms; peak RSS {peak:.0f} MB")
    print(f"email moves/s: {total / elapsed:.0f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--moves", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        asyncio.run(bench(Path(folder), args.games, args.moves))


if __name__ == "__main__":
    main()
