"""Serving the pages: beside the bot or the console (`paperboard run`, on their loop and
service), or alone (`paperboard web`: several such processes behind a proxy, on
PostgreSQL)."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from aiohttp import web

from bot.service import GameService
from bot.settings import Settings
from bot.web.app import create_app

log = logging.getLogger("paperboard.web")


async def start_web(
    service: GameService, settings: Settings
) -> Callable[[], Awaitable[None]] | None:
    """Serve the pages on WEB_HOST:WEB_PORT: how to stop them, or None (WEB_PORT=0, or
    the address is taken: logged, and the bot runs on without its pages)."""
    if settings.web_port == 0:
        return None
    runner = web.AppRunner(create_app(service, settings), access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, settings.web_host, settings.web_port, reuse_address=True)
    try:
        await site.start()
    except OSError as exc:
        await runner.cleanup()
        log.warning(
            "the web pages cannot listen on %s:%s (%s); set WEB_HOST and WEB_PORT "
            "(WEB_PORT=0: no pages)",
            settings.web_host,
            settings.web_port,
            exc.strerror or exc,
        )
        return None
    log.info("web pages on http://%s:%s, reached at %s", *site_address(settings))
    return runner.cleanup


def site_address(settings: Settings) -> tuple[str, int, str]:
    return settings.web_host, settings.web_port, settings.site_url
