"""Email benchmark: move mails through the bot's SMTP listener on SQLite, each move's
board mailed to both players through an SMTP server (a capture server on loopback).

The players (email-only, in games of Hex 7x7 under way at once) and the SMTP server
the bot mails through run in a process of their own, so this process is the bot alone:
the listener, the desk, the service, the mails out. Each game's player to move
sends its move to the reply address of its seat and ply; the SMTP session ends when the
bot has committed the move and mailed the board to both players (the listener answers
250 after handling), so the time per game is the bot's. Figures: moves per second, the
longest the bot's event loop went without running a 1 ms ticker, and the bot's memory
(RSS after each thousand moves, and the peak). Last line:

    email moves/s: <n>

Run: .venv/bin/python -m bench.email [--games 50] [--moves 20] [--stalls]
(--games 500: 10,000 move mails and 20,000 boards mailed; --stalls: a watcher thread
prints where the event loop's thread was whenever the loop went 50 ms without a tick,
the most frequent places first)
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import resource
import sys
import tempfile
import threading
import time
import traceback
from collections import Counter as Tally
from multiprocessing.connection import Connection
from pathlib import Path
from typing import TypeVar

from bench.service import scripted_games
from bench.tournament import stalled_while
from bot.email.runner import start_mail
from bot.email.tokens import Token, reply_address
from bot.service import GameService, Place, Result
from tests.mailkit import DOMAIN, SECRET, mail_settings

GAME, OPTIONS = "hex", {"size": 7, "swap": False}
GUILD, CHANNEL = 1, 1
T = TypeVar("T")


def rss_mb() -> float:
    """This process's resident memory now (Linux: /proc)."""
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return pages * resource.getpagesize() / 2**20


class Counter(asyncio.Protocol):
    """The SMTP server the bot mails through, as little as an SMTP server can be: it
    answers every command, finds each mail's end (a line holding only a dot) and counts
    the mails; it reads nothing else of them (reading them would be the mail clients'
    work, not the bot's, and the load generator should take as little CPU from the bot
    as it can)."""

    mails = 0  # counted over every connection

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        self.buffer = bytearray()
        self.in_data = False
        transport.write(b"220 capture.test\r\n")

    def data_received(self, data: bytes) -> None:
        buffer = self.buffer
        seen = max(0, len(buffer) - 4)
        buffer += data
        while buffer:
            if self.in_data:
                end = buffer.find(b"\r\n.\r\n", seen)
                if end < 0:
                    return
                del buffer[: end + 5]
                self.in_data = False
                Counter.mails += 1
                self.transport.write(b"250 OK\r\n")
                continue
            end = buffer.find(b"\r\n")
            if end < 0:
                return
            verb = bytes(buffer[:4]).upper()
            del buffer[: end + 2]
            if verb == b"DATA":
                self.in_data = True
                seen = 0
                # the mail's end is a CRLF, a dot, a CRLF: the CRLF before the dot is the
                # DATA line's own when the mail is empty
                buffer[0:0] = b"\r\n"
                self.transport.write(b"354 End data with <CR><LF>.<CR><LF>\r\n")
            elif verb == b"EHLO":
                self.transport.write(b"250-capture.test\r\n250 8BITMIME\r\n")
            elif verb == b"QUIT":
                self.transport.write(b"221 Bye\r\n")
                self.transport.close()
                return
            else:  # HELO, MAIL, RCPT, RSET, NOOP
                self.transport.write(b"250 OK\r\n")


Chain = tuple[int, list[str], list[str], int]  # game id, the seats' addresses, moves, first


def players_process(connection: Connection) -> None:
    """The mailboxes and the server the bot mails through, in a process of their own (the
    bot's CPU figures are then its own): says the server's port, waits for the games,
    plays them through the bot's listener (each game's moves in turn, the games at once),
    and answers how many mails the server took."""

    async def main() -> None:
        server = await asyncio.get_running_loop().create_server(Counter, "127.0.0.1", 0)
        connection.send(server.sockets[0].getsockname()[1])
        started: float | None = None  # the CPU spent before the games (imports) left out
        while (order := await asyncio.to_thread(connection.recv)) is not None:
            listen_port, chains = order
            if started is None:
                started = time.process_time()
            before = Counter.mails
            await asyncio.gather(*(play(listen_port, *chain) for chain in chains))
            connection.send(Counter.mails - before)
        server.close()
        connection.send(time.process_time() - (started or 0.0))

    asyncio.run(main())


async def play(
    listen_port: int, game_id: int, seats: list[str], script: list[str], first: int
) -> None:
    """A game's moves in turn, each a mail in an SMTP session of its own to the bot's
    listener (the bytes written as a mail client would, without a mail library: the
    players' CPU is not the bot's)."""
    for ply, text in enumerate(script):
        seat = (first + ply) % 2
        to = reply_address(Token(game_id, seat, ply), "play", DOMAIN, SECRET)
        mail = (
            f"From: {seats[seat]}\r\nTo: {to}\r\nSubject: Re: Hex\r\n"
            "Content-Type: text/plain; charset=utf-8\r\n"
            "Content-Transfer-Encoding: 7bit\r\nMIME-Version: 1.0\r\n"
            f"\r\n{text}\r\n\r\n> the board\r\n"
        )
        await smtp_session(listen_port, seats[seat], to, mail.encode())


async def smtp_session(port: int, sender: str, to: str, mail: bytes) -> None:
    """One mail through an SMTP server on loopback, every answer checked."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)

    async def answer(expected: bytes) -> None:
        while (line := await reader.readline())[3:4] == b"-":
            pass
        if not line.startswith(expected):
            raise RuntimeError(f"the listener answered {line!r}")

    try:
        await answer(b"220")
        for command, expected in (
            (b"EHLO home.test", b"250"),
            (f"MAIL FROM:<{sender}>".encode(), b"250"),
            (f"RCPT TO:<{to}>".encode(), b"250"),
            (b"DATA", b"354"),
            (mail + b".", b"250"),  # no line of the mail starts with a dot
            (b"QUIT", b"221"),
        ):
            writer.write(command + b"\r\n")
            await answer(expected)
    finally:
        writer.close()


async def bench(folder: Path, games: int, moves: int, watch: StallWatch | None = None) -> None:
    connection, child_end = multiprocessing.get_context("spawn").Pipe()
    players = multiprocessing.get_context("spawn").Process(
        target=players_process, args=(child_end,), daemon=True
    )
    players.start()
    smtp_port = await asyncio.to_thread(connection.recv)
    url = f"sqlite:///{folder / 'email.db'}"
    settings = mail_settings(url, smtp_port).model_copy(update={"render_processes": 1})
    service = await GameService.open(settings)  # as the bot opens it (gc.freeze included)

    async def published(result: Result) -> None:
        """The process's own adapter: nothing beside mail."""

    runner = await start_mail(service, settings, published, service.records.clock, codes=False)
    assert runner is not None and runner.port is not None
    await service.preferences.guild_settings(GUILD, email=True, email_channel=CHANNEL)
    chains = []
    for number, script in enumerate(scripted_games(games, moves, GAME, OPTIONS)):
        seats = [f"a{number}@home.test", f"b{number}@home.test"]
        first, second = [
            await service.mail.join_by_mail(address, f"p{number}{seat}", GUILD)
            for seat, address in enumerate(seats)
        ]
        issued = await service.challenges.challenge(
            Place(GUILD, CHANNEL), first, GAME, opponents=[second], options=OPTIONS
        )
        started = await service.challenges.accept(issued.game.id, GUILD, second)
        chains.append((started.game.id, seats, script, started.game.to_move or 0))
    memory = [rss_mb()]
    total = sum(len(script) for *_, script, _ in chains)
    cpu = time.process_time()
    start = time.perf_counter()

    async def all_games() -> int:
        """Every game played, a thousand moves at a time; the mails the server took."""
        mailed = 0
        per_tranche = max(1, 1000 // moves)
        for tranche in range(0, len(chains), per_tranche):
            connection.send((runner.port, chains[tranche : tranche + per_tranche]))
            mailed += await asyncio.to_thread(connection.recv)
            memory.append(rss_mb())
        return mailed

    if watch is not None:
        ticker = asyncio.create_task(watch.tick())
        threading.Thread(target=watch.watch, daemon=True).start()
    mailed, stall = await stalled_while(all_games())
    if watch is not None:
        watch.done = True
        await ticker
    elapsed = time.perf_counter() - start
    cpu = time.process_time() - cpu
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    await runner.stop()
    await service.close()
    connection.send(None)
    players_cpu = connection.recv()
    players.join()
    assert mailed == 2 * total, f"{mailed} mails for {total} moves"
    print(f"{total} move mails in, {mailed} boards mailed out, {elapsed:.1f} s")
    print(f"the bot's CPU (boards drawn in its worker process): {cpu / total * 1e3:.1f} ms a move")
    print(f"the players and the server mailed through: {players_cpu / total * 1e3:.1f} ms a move")
    print("RSS after each thousand moves (MB): " + ", ".join(f"{m:.0f}" for m in memory))
    print(f"longest event loop stall: {stall * 1e3:.0f} ms; peak RSS {peak:.0f} MB")
    print(f"email moves/s: {total / elapsed:.0f}")


class StallWatch:
    """Where the event loop's thread is when the loop stalls: a ticker on the loop notes
    the time; a thread looks every 5 ms and, when the last tick is over `limit` old,
    notes the loop thread's innermost frames (each stall counted once per 5 ms)."""

    def __init__(self, limit: float = 0.05) -> None:
        self.limit = limit
        self.beat = time.perf_counter()
        self.places: Tally[str] = Tally()
        self.loop_thread = threading.get_ident()
        self.done = False

    async def tick(self) -> None:
        while not self.done:
            self.beat = time.perf_counter()
            await asyncio.sleep(0.001)

    def watch(self) -> None:
        while not self.done:
            time.sleep(0.005)
            if time.perf_counter() - self.beat > self.limit:
                frame = sys._current_frames().get(self.loop_thread)
                if frame is not None:
                    place = traceback.format_stack(frame)[-6:]
                    self.places["".join(place)] += 1

    def report(self, top: int = 6) -> None:
        total = sum(self.places.values())
        print(f"stalled samples (5 ms each): {total}")
        for place, count in self.places.most_common(top):
            print(f"--- {count}\n{place}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--moves", type=int, default=20)
    parser.add_argument("--stalls", action="store_true", help="print where the loop stalled")
    args = parser.parse_args()
    watch = StallWatch() if args.stalls else None
    with tempfile.TemporaryDirectory() as folder:
        asyncio.run(bench(Path(folder), args.games, args.moves, watch))
    if watch is not None:
        watch.report()


if __name__ == "__main__":
    main()
