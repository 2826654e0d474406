"""The home page (`/`): a visitor not signed in reads what Paperboard is; a signed-in
player sees their games on every server, those waiting for their move first (least time
left first, as /next goes), the challenges waiting for their answer (answered right
there: bot/web/acts.py), and their events with what comes next.

A game links to its page only where its server's pages are on; a link-mode server's
address is shown to its own players here, the only reader of this page.
"""

from __future__ import annotations

from aiohttp import web

from bot.service import WebPlace, game_clock_text
from bot.web import acts, auth
from bot.web.site import SITE, page


async def home_page(request: web.Request) -> web.StreamResponse:
    visitor = await auth.visitor_of(request)
    if visitor is None:
        return page(request, "home.html")
    service = request.app[SITE].service
    player = visitor.player
    mine = await service.queue.everywhere(player.id)
    events = await service.event_reads.events_of(player.id)
    games = (*mine.on_move, *mine.under_way, *mine.challenges)
    places: dict[int, WebPlace | None] = {}
    for guild_id in {g.guild_id for g in games} | {e.guild_id for e in events}:
        places[guild_id] = await service.web.web_place(guild_id)
    away = any(
        seat.player_id == player.id and seat.vacation_since is not None
        for game in (*mine.on_move, *mine.under_way)
        for seat in game.seats
    )
    return page(
        request,
        "mine.html",
        me=player,
        csrf=visitor.csrf,
        said=acts.heard(request, visitor),
        mine=mine,
        events=events,
        places=places,
        away=away,
        clock=game_clock_text,
    )
