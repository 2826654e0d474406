"""Serving the pages: beside the bot or the console (`paperboard run`, on their loop and
service), or alone (`paperboard web`: several such processes behind a proxy, on
PostgreSQL).

A request aiohttp cannot read (a request line or a header too long, a malformed one)
never reaches the application: `Connection` answers it with the site's error page and
headers (414, 431, 400), never echoing it, and logs such refusals in one line at most
every `QUIET_SECONDS` (anyone can send them), never a traceback.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import time
from asyncio import AbstractEventLoop
from collections.abc import Awaitable, Callable

from aiohttp import web
from aiohttp.http_exceptions import BadHttpMessage, LineTooLong

from bot.service import GameService
from bot.service.core.outbox import Publish
from bot.settings import Settings
from bot.web.app import SECURITY_HEADERS, create_app, error_answer
from bot.web.site import SITE, Site

log = logging.getLogger("paperboard.web")

#: The longest request line and header field read (beyond: 414 and 431). They differ by a
#: byte because aiohttp's refusal names only the limit it met: that says which it was.
MAX_REQUEST_LINE = 8190
MAX_HEADER_FIELD = 8189
#: Requests refused unread are logged at most this often.
QUIET_SECONDS = 60.0
#: What a malformed request is told.
UNREADABLE = "That request could not be read."


async def start_web(
    service: GameService, settings: Settings, publish: Publish | None = None
) -> Callable[[], Awaitable[None]] | None:
    """Serve the pages on WEB_HOST:WEB_PORT, each connection a `Connection`: how to stop
    them, or None (WEB_PORT=0, or the address is taken: logged, and the bot runs on
    without its pages)."""
    if settings.web_port == 0:
        return None
    runner = web.AppRunner(create_app(service, settings, publish), access_log=None)
    await runner.setup()
    server, site, refusals = runner.server, runner.app[SITE], Refusals()
    assert server is not None  # set up
    loop = asyncio.get_running_loop()
    try:
        listening = await loop.create_server(
            lambda: Connection(server, site, refusals, loop=loop),
            settings.web_host,
            settings.web_port,
            reuse_address=True,
        )
    except OSError as exc:
        await runner.cleanup()
        where = f"{settings.web_host}:{settings.web_port}"
        service.web.pages_unserved = (
            f"{where} is taken"
            if exc.errno == errno.EADDRINUSE
            else f"{where} cannot be listened on ({exc.strerror or exc})"
        )
        log.warning(
            "the web pages cannot listen on %s:%s (%s); set WEB_HOST and WEB_PORT "
            "(WEB_PORT=0: no pages)",
            settings.web_host,
            settings.web_port,
            exc.strerror or exc,
        )
        return None
    log.info("web pages on http://%s:%s, reached at %s", *site_address(settings))

    async def stop() -> None:
        listening.close()
        await runner.cleanup()  # closes the connections too
        await listening.wait_closed()

    return stop


def site_address(settings: Settings) -> tuple[str, int, str]:
    return settings.web_host, settings.web_port, settings.site_url


class Connection(web.RequestHandler):
    """A client's connection: its requests that cannot be read answered by the site."""

    def __init__(
        self, server: web.Server, site: Site, refusals: Refusals, *, loop: AbstractEventLoop
    ) -> None:
        super().__init__(
            server,
            loop=loop,
            access_log=None,  # type: ignore[arg-type]  # none (aiohttp takes None: no log)
            max_line_size=MAX_REQUEST_LINE,
            max_field_size=MAX_HEADER_FIELD,
        )
        self.site = site
        self.refusals = refusals

    def handle_error(
        self,
        request: web.BaseRequest,
        status: int = 500,
        exc: BaseException | None = None,
        message: str | None = None,
    ) -> web.StreamResponse:
        if not isinstance(exc, BadHttpMessage):  # not the parser's: aiohttp's own answer
            return super().handle_error(request, status, exc, message)
        status = unread_status(exc)
        self.refusals.note(status)
        response = error_answer(self.site, status, sentence=UNREADABLE if status == 400 else None)
        response.headers.update(SECURITY_HEADERS)  # no application: no on_response_prepare
        response.force_close()
        return response


def unread_status(exc: BadHttpMessage) -> int:
    """The status of a request the parser refused: 414 for a request line too long, 431
    for a header field too long or too many of them, else 400."""
    if isinstance(exc, LineTooLong):
        return 414 if exc.args[1] == MAX_REQUEST_LINE else 431
    return 431 if exc.message.startswith("Too many headers") else 400


class Refusals:
    """Requests refused unread: one log line at most every QUIET_SECONDS, with how many
    were refused since the last."""

    def __init__(self) -> None:
        self.count = 0
        self.quiet_until = 0.0

    def note(self, status: int) -> None:
        self.count += 1
        now = time.monotonic()
        if now < self.quiet_until:
            return
        log.warning(
            "web: %d request(s) too long to read or malformed refused since the last such "
            "line (the latest: %d); such lines come at most every %d s",
            self.count,
            status,
            QUIET_SECONDS,
        )
        self.count = 0
        self.quiet_until = now + QUIET_SECONDS
