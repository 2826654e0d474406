"""bench/web.py's live figures: 2,000 game pages open on their live streams while moves
come every 50 ms, spread over the 200 games they watch.

The pages are served by the bot's process (this one: the service, the web pages on its
loop, a ticker measuring the loop's longest stall). The pages are another process
(`--live-drive`, an aiohttp client): `--live-pages` streams, as many on each game, each
doing what bot/web/static/live.js and the browser do on an event: fetch the page again,
then its new board picture. Each move is the page's move form, posted by its player's
signed-in browser (`/g/<game>/move`, the session's cookie and CSRF token, the ply it
saw), timed from the post to its answer. On SQLite the moves are posted to the serving
process (`paperboard run` serves the pages beside the bot: the signal is in-process); on
PostgreSQL to the pages of a second service in a third process (as `paperboard run`
beside `paperboard web`: the signal crosses by NOTIFY). A page's delivery is timed from
the post to the event's arrival, and to the page and its board fetched again after it
(both processes read the machine's one monotonic clock). Memory per open page: the
serving process's RSS grown by opening them all, divided by their number.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import gc
import json
import random
import re
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp

import engine
from bench.discord_e2e import percentile
from bench.load import Ticker, _status_kb
from bench.web_serving import free_port
from bot.heap import LongLived
from bot.service import GameService, Place, Player, WebPlace
from bot.settings import Settings
from bot.web import auth, urls
from bot.web.runner import start_web

#: The games watched: Hex 11x11 (no game ends within a run).
KIND = ("hex", {"size": 11, "swap": "off"})
GUILD = 5
PLACE = WebPlace(GUILD, "public")
FIRST_PLAYER = 800_000
#: The board picture's address in a game's page.
BOARD = re.compile(r'<img id="board" src="([^"]+)"')
#: After the last move, how long its events (and the pages fetched) have to arrive.
SETTLE_SECONDS = 5.0
#: How long the pages wait for their streams to open and their first events.
OPENING_SECONDS = 120.0


@dataclass
class LiveFigures:
    """One backend's run: ms, and kB a page."""

    move_p99: float
    event_p99: float  # the event's arrival
    shown_p99: float  # the page fetched again after it
    stall: float
    kb_per_page: float
    missing: int  # moves a page never heard of (nor of a later one)

    def line(self) -> str:
        return (
            f"move p99 {self.move_p99:.0f} ms; delivery p99 {self.event_p99:.0f} ms (page "
            f"shown {self.shown_p99:.0f} ms); loop stall {self.stall:.0f} ms; "
            f"{self.kb_per_page:.0f} kB a page; events missed {self.missing}"
        )


@dataclass(frozen=True)
class Mover:
    """A player's browser, signed in: the session's cookie and CSRF token."""

    cookie: str
    csrf: str


Made = list[tuple[int, list[Mover]]]


async def games(service: GameService, count: int) -> Made:
    """`count` games under way: (id, its players' browsers, signed in)."""
    made = []
    place = Place(GUILD, 1)
    for n in range(count):
        players = [
            Player(FIRST_PLAYER + 2 * n, f"w{n}a"),
            Player(FIRST_PLAYER + 2 * n + 1, f"w{n}b"),
        ]
        issued = await service.challenges.challenge(
            place, players[0], KIND[0], opponents=players[1:], options=KIND[1],
            first="challenger",
        )  # fmt: skip
        await service.challenges.accept(issued.game.id, GUILD, players[1])
        browsers = []
        for player in players:
            opened = await service.sessions.start(player, "bot")
            browsers.append(Mover(f"{auth.COOKIE}={opened.secret}", opened.session.csrf))
        made.append((issued.game.id, browsers))
    return made


async def moving(
    base: str, made: Made, seconds: float
) -> tuple[dict[tuple[int, int], float], list[float]]:
    """A move every 50 ms, the games in turn, posted to the pages at `base`: when each
    (game, ply) was asked for, and each move's answer time (s)."""
    rng = random.Random(5)
    states = {game_id: engine.new(KIND[0], **KIND[1]) for game_id, _ in made}
    asked: dict[tuple[int, int], float] = {}
    answers: list[float] = []
    loop = asyncio.get_running_loop()
    start = loop.time()
    moves = []
    connector = aiohttp.TCPConnector(limit=0)
    jar = aiohttp.DummyCookieJar()  # each post carries its player's cookie
    async with aiohttp.ClientSession(base, connector=connector, cookie_jar=jar) as browser:
        for n in range(round(seconds / 0.05)):
            if (ahead := start + n * 0.05 - loop.time()) > 0:
                await asyncio.sleep(ahead)
            game_id, players = made[n % len(made)]
            posting = one_move(browser, game_id, players, states, rng, asked)
            moves.append(asyncio.create_task(posting))
            moves[-1].add_done_callback(lambda done: answers.append(done.result()))
        await asyncio.gather(*moves)
    return asked, answers


async def one_move(
    browser: aiohttp.ClientSession,
    game_id: int,
    players: list[Mover],
    states: dict[int, Any],
    rng: random.Random,
    asked: dict[tuple[int, int], float],
) -> float:
    """A move posted as the page's form posts it (JSON asked, as play.js asks)."""
    state = states[game_id]
    text = rng.choice(state.legal_moves())
    states[game_id] = state.play(text)
    player = players[state.ply % 2]
    asked[(game_id, state.ply + 1)] = time.monotonic()
    began = time.perf_counter()
    async with browser.post(
        f"{urls.game(PLACE, game_id)}/move",
        data={"csrf": player.csrf, "ply": str(state.ply), "move": text},
        headers={"Cookie": player.cookie, "Accept": "application/json"},
    ) as answer:
        await answer.read()
        assert answer.status == 200, (answer.status, await answer.text())
    return time.perf_counter() - began


def rss_kb() -> int:
    return _status_kb("self", "VmRSS")


async def measure(url: str, args: argparse.Namespace, backend: str) -> LiveFigures:
    async with serving(url, args) as (service, settings, made):
        if backend == "sqlite":
            return await watched(service, settings.site_url, settings, made, args)
        # another process's moves, posted to its own pages (`paperboard web` beside
        # `paperboard run`): the signal crosses by NOTIFY
        port = free_port()
        other = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bench.web", "--live-serve", f"{port} {url}",
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        )  # fmt: skip
        assert other.stdout is not None and other.stdin is not None
        ready = await asyncio.wait_for(other.stdout.readline(), OPENING_SECONDS)
        assert ready.strip() == b"ready", ready
        try:
            figures = await watched(service, f"http://127.0.0.1:{port}", settings, made, args)
        finally:
            other.stdin.write(b"done\n")
            await other.stdin.drain()
        # the loop stall: the worse of the two processes'
        their_stall = float(await other.stdout.readline())
        await other.wait()
        return dataclasses.replace(figures, stall=max(figures.stall, their_stall))


@contextlib.asynccontextmanager
async def serving(
    url: str, args: argparse.Namespace
) -> AsyncIterator[tuple[GameService, Settings, Made]]:
    settings = Settings(  # type: ignore[call-arg]
        database_url=url, web_port=free_port(), web_rate_limit=0, max_active_games=10_000,
        web_live_per_address=args.live_pages, web_live_streams=args.live_pages,
        _env_file=None,
    )  # fmt: skip
    service = await GameService.open(settings)
    stop_web = None
    try:
        made = await games(service, args.live_games)
        await service.preferences.guild_settings(GUILD, web="public")
        stop_web = await start_web(service, settings)
        assert stop_web is not None, "the web pages did not start"
        with LongLived():  # as `paperboard run` keeps its heap
            yield service, settings, made
    finally:
        if stop_web is not None:
            await stop_web()
        await service.close()


async def watched(
    service: GameService,
    moves_to: str,
    settings: Settings,
    made: Made,
    args: argparse.Namespace,
) -> LiveFigures:
    place = await service.web.web_place(GUILD)
    assert place is not None
    paths = {game_id: urls.game(place, game_id) for game_id, _ in made}
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as plan:
        json.dump({"base": settings.site_url, "games": paths, "pages": args.live_pages}, plan)
    before = rss_kb()
    pages = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bench.web", "--live-drive", plan.name,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        limit=256 * 1024 * 1024,
    )  # fmt: skip
    assert pages.stdout is not None and pages.stdin is not None
    ready = await asyncio.wait_for(pages.stdout.readline(), OPENING_SECONDS)
    assert ready.strip() == b"ready", ready
    gc.collect()
    per_page = (rss_kb() - before) / args.live_pages
    ticker = Ticker()
    ticking = asyncio.create_task(ticker.run())
    asked, answers = await moving(moves_to, made, args.live_seconds)
    await asyncio.sleep(SETTLE_SECONDS)  # the last events arrive
    ticker.running = False
    await ticking
    pages.stdin.write(b"done\n")
    await pages.stdin.drain()
    heard = json.loads(await pages.stdout.readline())
    await pages.wait()
    Path(plan.name).unlink()
    events, shown, missing = [], [], 0
    for page in heard:  # a move is delivered by its event, or a later one's (coalesced)
        for (game_id, ply), at in asked.items():
            if game_id != page["game"]:
                continue
            later = [(arrived, fetched) for p, arrived, fetched in page["events"] if p >= ply]
            if not later:
                missing += 1
                continue
            events.append((later[0][0] - at) * 1e3)
            if later[0][1]:  # else its page was still being fetched at the end
                shown.append((later[0][1] - at) * 1e3)
    events.sort()
    shown.sort()
    return LiveFigures(
        move_p99=percentile(sorted(1e3 * s for s in answers), 0.99),
        event_p99=percentile(events, 0.99),
        shown_p99=percentile(shown, 0.99),
        stall=1e3 * ticker.worst,
        kb_per_page=per_page,
        missing=missing,
    )


def headline(live: dict[str, LiveFigures], pages: int) -> str:
    """The last line's live part (the worse backend's figures), "" without them."""
    if not live:
        return ""
    worst = list(live.values())
    return (
        f"; live: {pages:,} pages, delivery p99 {max(f.event_p99 for f in worst):.0f} ms, "
        f"move p99 {max(f.move_p99 for f in worst):.0f} ms, stall "
        f"{max(f.stall for f in worst):.0f} ms, {max(f.kb_per_page for f in worst):.0f} kB a page"
    )


async def serve(port: int, url: str) -> None:
    """The other process's service and pages, on the database at `url`: print `ready`
    once they serve, and when told `done` on stdin their loop's longest stall (ms)."""
    settings = Settings(  # type: ignore[call-arg]
        database_url=url, web_port=port, web_rate_limit=0, max_active_games=10_000,
        _env_file=None,
    )  # fmt: skip
    service = await GameService.open(settings)
    stop_web = await start_web(service, settings)
    assert stop_web is not None, "the mover's pages did not start"
    ticker = Ticker()
    ticking = asyncio.create_task(ticker.run())
    print("ready", flush=True)
    with LongLived():
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    ticker.running = False
    await ticking
    print(f"{1e3 * ticker.worst:.1f}", flush=True)
    await stop_web()
    await service.close()


# == the pages: another process ==================================================================


async def drive(plan: dict[str, Any]) -> None:
    """Open the streams (as many on each game), print `ready` once each has its first
    event, then note every event's arrival and the page fetched after it, until told
    `done` on stdin: print, a page each, {"game": id, "events": [[ply, arrived, page
    fetched], ...]}."""
    base, games_paths, count = plan["base"], plan["games"], plan["pages"]
    pages: list[dict[str, Any]] = []
    opened = asyncio.Event()
    ready = 0
    connector = aiohttp.TCPConnector(limit=0)
    timeout = aiohttp.ClientTimeout(total=None, sock_read=None)
    async with aiohttp.ClientSession(base, connector=connector, timeout=timeout) as session:

        async def page(game_id: str, path: str) -> None:
            nonlocal ready
            events: list[list[float]] = []
            pages.append({"game": int(game_id), "events": events})
            async with session.get(path + "/live") as stream:
                assert stream.status == 200, stream.status
                first = True
                while True:
                    block = await stream.content.readuntil(b"\n\n")
                    if not block.startswith(b"event: game"):
                        continue
                    arrived = time.monotonic()
                    if first:
                        first = False
                        ready += 1
                        if ready == count:
                            opened.set()
                        continue
                    data = json.loads(block.split(b"data: ", 1)[1])
                    noted = [data["ply"], arrived, 0.0]
                    events.append(noted)
                    async with session.get(path) as again:  # as live.js does
                        html = await again.text()
                    board = BOARD.search(html)
                    if again.status != 200 or board is None:
                        continue
                    async with session.get(board[1].replace("&amp;", "&")) as picture:
                        await picture.read()  # as the browser does: the new board
                        if picture.status == 200:
                            noted[2] = time.monotonic()

        game_ids = list(games_paths)
        streams = [
            asyncio.create_task(
                page(game_ids[n % len(game_ids)], games_paths[game_ids[n % len(game_ids)]])
            )
            for n in range(count)
        ]
        await opened.wait()
        print("ready", flush=True)
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
        for stream in streams:
            stream.cancel()
        await asyncio.gather(*streams, return_exceptions=True)
    print(json.dumps(pages), flush=True)
