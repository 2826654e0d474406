"""Moving on a game's page: the player to move taps the board's picture (bot/web/static/
play.js) or types the move, sees it previewed (the picture after it, its text) and
confirms it. Every check is the service's (`play.preview`, `play.move`): the taps are
written as a move by the engine, never here; a confirmation holds only on the board
its player saw (`expected_ply`).

Each form answers JSON to the script (`Accept: application/json`), else a page: the
preview with its Confirm form, or the game's page once played (303), so typing a move
works without JavaScript.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from bot.service import MovePreview, Refused, ServiceCode, WebPlace, WebSession
from bot.web import auth
from bot.web.game import GAME, MAX_PLY_DIGITS, SCALED, scale_asked
from bot.web.site import SITE, Handler, file, page

#: The taps field is a few words; more than this is no move of any game.
MAX_TAPS_TEXT = 1000
#: A preview's picture stays in the player's own cache a while (its address names it).
PREVIEW_CACHE = "private, max-age=600"


async def taps(request: web.Request) -> web.StreamResponse:
    """The move the taps so far write (`taps`, words), checked for the player at `ply`:
    JSON with the move, whether it is whole, and its preview's picture; or the sentence
    of why not, an answer like any other (200: a tap is no request that failed)."""
    visitor, fields, place, game_id, ply = await _posted(request)
    words = fields.get("taps", "")
    if len(words) > MAX_TAPS_TEXT:
        return web.json_response({"sentence": "Too many taps for one move."})
    try:
        found = await request.app[SITE].service.play.preview(
            game_id,
            place.guild_id,
            visitor.player,
            "",
            taps=words.split(),
            expected_ply=ply,
            drawn=False,
        )
    except Refused as refused:
        return web.json_response({"sentence": str(refused)})
    return web.json_response(_described(request, place, game_id, found))


async def preview(request: web.Request) -> web.StreamResponse:
    """A typed move (`move`) checked for the player at `ply`: its preview page with the
    Confirm form (JSON to the script), or the refusal's sentence with the form again."""
    visitor, fields, place, game_id, ply = await _posted(request)
    move = fields.get("move", "")
    try:
        found = await request.app[SITE].service.play.preview(
            game_id, place.guild_id, visitor.player, move, expected_ply=ply, drawn=False
        )
    except Refused as refused:
        if _wants_json(request):
            return _json_refusal(refused)
        return _preview_page(request, place, game_id, ply, visitor, move, None, refused)
    if _wants_json(request):
        return web.json_response(_described(request, place, game_id, found))
    return _preview_page(request, place, game_id, ply, visitor, move, found, None)


async def confirm(request: web.Request) -> web.StreamResponse:
    """Play `move` for the player, only if the game is still at `ply`: the game's page
    (303; JSON to the script), or the refusal's sentence."""
    visitor, fields, place, game_id, ply = await _posted(request)
    site = request.app[SITE]
    move = fields.get("move", "")
    try:
        result = await site.service.play.move(
            game_id, place.guild_id, visitor.player, move, expected_ply=ply
        )
    except Refused as refused:
        if _wants_json(request):
            return _json_refusal(refused)
        return _preview_page(request, place, game_id, ply, visitor, move, None, refused)
    if site.publish is not None:  # beside the bot: announced now (else by the bot, at news)
        await site.service.outbox.deliver(result, site.publish)
    address = site.urls.game(place, game_id)
    if _wants_json(request):
        return web.json_response({"played": move, "address": address})
    raise web.HTTPSeeOther(address)


async def preview_picture(request: web.Request) -> web.StreamResponse:
    """The board after `move` at `ply` (at twice the pixels at preview@2x.png), drawn for
    the player to move alone (a GET that changes nothing; the page's script and the
    preview page show it)."""
    site = request.app[SITE]
    place = await site.server_of(request)
    visitor = await auth.visitor_of(request)
    if visitor is None:
        raise web.HTTPForbidden()
    found = await site.service.play.preview(
        int(request.match_info["game"]),
        place.guild_id,
        visitor.player,
        request.query.get("move", ""),
        expected_ply=_ply(request.query.get("ply", "")),
        scale=scale_asked(request),
    )
    return file(request, found.png, "image/png", PREVIEW_CACHE, place=place)


# -- the pieces --------------------------------------------------------------------


async def _posted(request: web.Request) -> tuple[WebSession, dict[str, str], WebPlace, int, int]:
    """A move form's visitor (403 without a session or its CSRF token), fields, server,
    game and the ply its player saw (400 without one)."""
    visitor, fields = await auth.posted(request)
    place = await request.app[SITE].server_of(request)
    return visitor, fields, place, int(request.match_info["game"]), _ply(fields.get("ply", ""))


def _ply(text: str) -> int:
    if not text.isdecimal() or not text.isascii() or len(text) > MAX_PLY_DIGITS:
        raise web.HTTPBadRequest()
    return int(text)


def _wants_json(request: web.Request) -> bool:
    return "application/json" in request.headers.get("Accept", "")


def _described(
    request: web.Request, place: WebPlace, game_id: int, found: MovePreview
) -> dict[str, Any]:
    """A preview as the script reads it: the move so far, whether it is whole, as the
    record writes it, and the picture after it (a whole move's), with its `srcset`."""
    urls = request.app[SITE].urls
    picture = srcset = None
    if found.whole:
        picture = urls.preview_picture(place, game_id, found.ply, found.move)
        twice = urls.preview_picture(place, game_id, found.ply, found.move, 2)
        srcset = f"{picture} 1x, {twice} 2x"
    return {
        "move": found.move,
        "whole": found.whole,
        "played": found.played,
        "picture": picture,
        "srcset": srcset,
    }


def _json_refusal(refused: Refused) -> web.Response:
    """The service's sentence: 409 where the board moved on, else 422."""
    status = 409 if refused.code == ServiceCode.STALE else 422
    return web.json_response({"sentence": str(refused)}, status=status)


def _preview_page(
    request: web.Request,
    place: WebPlace,
    game_id: int,
    ply: int,
    visitor: WebSession,
    move: str,
    found: MovePreview | None,
    refused: Refused | None,
) -> web.Response:
    """The page of a typed move: its preview and Confirm form, or why it was refused."""
    urls = request.app[SITE].urls
    picture = picture_2x = None
    if found is not None:
        picture = urls.preview_picture(place, game_id, ply, found.move)
        picture_2x = urls.preview_picture(place, game_id, ply, found.move, 2)
    return page(
        request,
        "play_preview.html",
        place=place,
        status=200 if refused is None else 409 if refused.code == ServiceCode.STALE else 422,
        game_id=game_id,
        ply=ply,
        move=move,
        found=found,
        sentence=None if refused is None else str(refused),
        csrf=visitor.csrf,
        picture=picture,
        picture_2x=picture_2x,
    )


FORMS: tuple[tuple[str, Handler], ...] = (
    (GAME + "/taps", taps),
    (GAME + "/preview", preview),
    (GAME + "/move", confirm),
)
ROUTES: tuple[tuple[str, Handler], ...] = ((GAME + "/preview" + SCALED + ".png", preview_picture),)
