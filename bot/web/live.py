"""A game page's live stream: `/g/<game>/live`, Server-Sent Events telling the page of
each new position (bot/web/static/live.js fetches the page again and swaps its parts).

The stream is open to whoever may see the game's page (the same server lookup). Its
events, `game`, carry the position's version as their id, and the ply, the status,
whose move it is and the deadline; a comment every HEARTBEAT_SECONDS keeps proxies from
closing it and finds a client gone. A client coming back with the Last-Event-ID of the
position it shows gets no event until the next change. The streams are capped in all
and per client address (WEB_LIVE_STREAMS, WEB_LIVE_PER_ADDRESS): beyond, a 429 that
says so; all end at once when the server shuts down.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections import Counter
from collections.abc import Callable, Iterator

from aiohttp import web

from bot.service import Refused, WebGame
from bot.settings import Settings
from bot.web.site import SITE, Handler, page

#: A comment this often (proxies close a connection quiet for a minute).
HEARTBEAT_SECONDS = 20.0
#: How long a browser waits before it comes back after losing the stream.
RETRY_MS = 2000
#: When a refused client may try again.
RETRY_AFTER_SECONDS = 60
FULL = "Too many live pages are open {where}: this page still works, reload it to see new moves."


class Streams:
    """The open streams (`request.app[STREAMS]`): counted per client address, capped,
    and told to end at shutdown."""

    def __init__(self, settings: Settings, address: Callable[[web.Request], str]) -> None:
        self.most = settings.web_live_streams
        self.most_per_address = settings.web_live_per_address
        self.address = address
        self.by_address: Counter[str] = Counter()
        self.closing = asyncio.Event()
        self._woken: set[asyncio.Event] = set()  # each stream's: set to end it

    @property
    def open(self) -> int:
        return self.by_address.total()

    def refusal(self, address: str) -> str | None:
        """Why one more stream from `address` is refused; None when it is not."""
        if self.open >= self.most:
            return FULL.format(where="on this server")
        if self.by_address[address] >= self.most_per_address:
            return FULL.format(where="from your address")
        return None

    @contextlib.contextmanager
    def held(self, address: str, woken: asyncio.Event) -> Iterator[None]:
        """A stream from `address` is open while the block runs; `woken` is its wake-up,
        set at shutdown too."""
        self.by_address[address] += 1
        self._woken.add(woken)
        try:
            yield
        finally:
            self._woken.discard(woken)
            self.by_address[address] -= 1
            if not self.by_address[address]:
                del self.by_address[address]

    async def shut(self, _app: web.Application) -> None:
        """The server shuts down: every stream ends now (aiohttp's `on_shutdown`)."""
        self.closing.set()
        for woken in self._woken:
            woken.set()


STREAMS = web.AppKey("live_streams", Streams)


def version(found: WebGame) -> str:
    """What the page shows of the position, as one word: the last board's version (the
    record, the names, the deadline) and the status."""
    return f"{found.board_tags[-1]}.{found.game.status}"


def event(found: WebGame) -> bytes:
    """A `game` event: the position's version, ply, status, whose move and deadline."""
    game = found.game
    seat = game.to_move if game.status == "active" else None
    facts = {
        "version": version(found),
        "ply": len(found.record),
        "status": game.status,
        "to_move": None if seat is None else game.name_of_seat(seat),
        "deadline": game.deadline.isoformat() if seat is not None and game.deadline else None,
    }
    data = json.dumps(facts, ensure_ascii=True)
    return f"event: game\nid: {facts['version']}\ndata: {data}\n\n".encode()


async def live_stream(request: web.Request) -> web.StreamResponse:
    site = request.app[SITE]
    place = await site.server_of(request)
    game_id = int(request.match_info["game"])
    found = await site.service.web.web_game(place, game_id)  # a 404 where the page is one
    streams = request.app[STREAMS]
    address = streams.address(request)
    refused = streams.refusal(address)
    if refused is not None:
        answer = page(request, "error.html", status=429, sentence=refused, code=429)
        answer.headers["Retry-After"] = str(RETRY_AFTER_SECONDS)
        answer.headers["Cache-Control"] = "no-store"
        return answer
    async with site.service.web.watching(game_id) as woken:
        with streams.held(address, woken):
            response = web.StreamResponse(
                headers={
                    "Content-Type": "text/event-stream",
                    "Cache-Control": "no-store",
                    "X-Accel-Buffering": "no",  # nginx: each event at once
                }
            )
            await response.prepare(request)
            shown = request.headers.get("Last-Event-ID")
            # only the position's version and event are kept while the stream waits: a
            # page held for long is scanned by every full collection (bot/heap.py)
            latest, news = version(found), event(found)
            del found
            with contextlib.suppress(ConnectionError):  # the client went away
                await response.write(f"retry: {RETRY_MS}\n\n".encode())
                while not streams.closing.is_set():
                    if latest != shown:
                        shown = latest
                        await response.write(news)
                    if not await _woken(woken):
                        await response.write(b": still here\n\n")
                        continue
                    try:  # the page's server may have turned its pages off since
                        place = await site.server_of(request)
                        found = await site.service.web.web_game(place, game_id)
                    except (web.HTTPException, Refused):
                        break
                    latest, news = version(found), event(found)
                    del found
    return response


async def _woken(woken: asyncio.Event) -> bool:
    """Wait for the game to change or the server to close (True, the event cleared), or
    HEARTBEAT_SECONDS (False)."""
    try:
        async with asyncio.timeout(HEARTBEAT_SECONDS):
            await woken.wait()
    except TimeoutError:
        return False
    woken.clear()
    return True


ROUTES: tuple[tuple[str, Handler], ...] = ((r"/g/{game:[0-9]{1,20}}/live", live_stream),)
