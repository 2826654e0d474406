"""A server's pages besides its games': the server (games under way and finished, paged
and filtered; leaderboards; events), an event (standings, crosstable, bracket, rounds),
a player (ratings, record against the bot, latest games). And the rules pages, of no
server: each game's card with the gallery's pictures.

Query parameters are checked here: a number that is no number, a game or status that
does not exist, is a 400; an id nobody has is the service's refusal, a 404. Parameters
the pages do not know are ignored (as links shared with tracking tags carry).
"""

from __future__ import annotations

from aiohttp import web

from bot.service import rules_card
from bot.service.web.lists import STAGES, ListStatus
from bot.web.site import SITE, Handler, file, page
from engine import GAMES

#: The lists of the server's page, as `?status=` names them.
LISTS: tuple[ListStatus, ...] = ("active", "finished")
#: The longest number a query takes: an id (a BIGINT has 19 digits).
ID_DIGITS = 19
#: The rules pages' pictures are drawn once; browsers keep them a day.
PICTURE_CACHE = "public, max-age=86400"


def number_asked(request: web.Request, name: str, digits: int = ID_DIGITS) -> int | None:
    """The query's `name` as a whole number (None when absent or empty): a 400 for
    anything but up to `digits` ASCII digits."""
    text = request.query.get(name, "")
    if not text:
        return None
    if not (text.isascii() and text.isdecimal() and len(text) <= digits):
        raise web.HTTPBadRequest()
    return int(text)


def choice_asked(request: web.Request, name: str, allowed: tuple[str, ...]) -> str | None:
    """The query's `name`, one of `allowed` (None when absent or empty); else a 400."""
    text = request.query.get(name, "")
    if not text:
        return None
    if text not in allowed:
        raise web.HTTPBadRequest()
    return text


async def server_page(request: web.Request) -> web.StreamResponse:
    """The server: its games under way and finished (`?status=` one list, `?game=`,
    `?player=`, `?before=` its next page), and on the first page its leaderboards and
    events."""
    site = request.app[SITE]
    service = site.service
    place = await site.server_of(request)
    status = choice_asked(request, "status", LISTS)
    game = choice_asked(request, "game", tuple(GAMES))
    player_id = number_asked(request, "player")
    before = number_asked(request, "before")
    if before is not None and status is None:  # a next page is a page of one list
        raise web.HTTPBadRequest()
    who = None if player_id is None else await service.web_lists.web_player_name(place, player_id)
    statuses = LISTS if status is None else tuple(s for s in LISTS if s == status)
    lists = [
        (
            s,
            await service.web_lists.web_games(
                place, s, game=game, player_id=player_id, before=before
            ),
        )
        for s in statuses
    ]
    first = status is None and player_id is None
    boards = await service.web_lists.web_leaderboards(place) if first else ()
    return page(
        request,
        "server.html",
        place=place,
        lists=lists,
        listed=status,
        game=game,
        who=who,
        before=before,
        games=GAMES,
        leaderboards=[b for b in boards if game is None or b.game == game],
        events=await service.web_lists.web_events(place) if first and game is None else (),
        first=first,
    )


async def event_page(request: web.Request) -> web.StreamResponse:
    site = request.app[SITE]
    place = await site.server_of(request)
    found = await site.service.web_lists.web_event(
        place, int(request.match_info["event"]), number_asked(request, "round", 6)
    )
    return page(request, "event.html", place=place, found=found, event=found.event, games=GAMES)


async def player_page(request: web.Request) -> web.StreamResponse:
    site = request.app[SITE]
    place = await site.server_of(request)
    found = await site.service.web_lists.web_player(place, int(request.match_info["player"]))
    return page(request, "player.html", place=place, found=found, games=GAMES)


async def rules_index(request: web.Request) -> web.StreamResponse:
    return page(request, "rules.html", games=GAMES)


def card_under_title(card: str, title: str) -> str:
    """The rules card without its first line when that line is the page's title ("Hex (2
    players)" under "Hex": the page says the players beside the title)."""
    first, _, rest = card.partition("\n")
    if first == title or first.startswith(title + " ("):
        return rest.lstrip("\n")
    return card


async def rules_page(request: web.Request) -> web.StreamResponse:
    name = request.match_info["game"]
    card = rules_card(name)  # refused (a 404) for a game that does not exist
    info = GAMES[name]
    return page(
        request,
        "rules_game.html",
        name=name,
        info=info,
        card=card_under_title(card, info.title),
        stages=STAGES,
    )


async def rules_picture(request: web.Request) -> web.StreamResponse:
    site = request.app[SITE]
    png = await site.service.web_lists.rules_picture(
        request.match_info["game"], request.match_info["stage"]
    )
    return file(request, png, "image/png", PICTURE_CACHE)


#: Under a server's prefix (bot/web/app.py adds it).
ROUTES: tuple[tuple[str, Handler], ...] = (
    ("/", server_page),
    (r"/e/{event:[0-9]{1,20}}", event_page),
    (r"/p/{player:-?[0-9]{1,20}}", player_page),
)
#: Of no server.
SITE_ROUTES: tuple[tuple[str, Handler], ...] = (
    ("/rules/", rules_index),
    (r"/rules/{game:[a-z]{1,32}}", rules_page),
    (r"/rules/{game:[a-z]{1,32}}/{stage:" + "|".join(STAGES) + "}.png", rules_picture),
)
