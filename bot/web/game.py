"""A game's page: the board at every ply (each a link, `?ply=N`; bot/web/static/game.js
adds the slider), the moves with their times and who played them, the players, clocks
and result, the analysis of a finished game, the downloads; and its pictures and files.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from functools import partial
from typing import cast

from aiohttp import web
from markupsafe import Markup

from bot.service import WebGame, WebPlace, banks_text, game_clock_text, result_text
from bot.web import urls
from bot.web.site import SITE, Handler, file, page

#: A position's number as a query takes it: at most 6 digits (no game is that long).
MAX_PLY_DIGITS = 6
#: What a download is sent as.
CONTENT_TYPES = {
    "json": "application/json",
    "sgf": "application/x-go-sgf",
    "gif": "image/gif",
}
#: A game with more moves than this has its move list drawn off the event loop (~4 ms).
LONG_GAME = 150
#: A picture whose address holds its version never changes.
FOREVER = "max-age=31536000, immutable"
#: Games whose page's unchanging part is kept drawn (`Drawn`).
DRAWN_KEPT = 2048


def cached(place: WebPlace, lasting: str) -> str:
    """Cache-Control for a server's file: shared caches may keep a public server's; a
    link-mode server's stay in the reader's own."""
    return f"{'public' if place.indexable else 'private'}, {lasting}"


async def game_page(request: web.Request) -> web.StreamResponse:
    site = request.app[SITE]
    place = await site.server_of(request)
    found = await site.service.web_game(place, int(request.match_info["game"]))
    last = len(found.board_tags) - 1
    ply = ply_asked(request, last)
    game = found.game
    shown = await drawn(request, place, found)
    boards = shown.addresses
    result = result_text(game).removeprefix("Result: ") if game.status == "finished" else None
    return page(
        request,
        "game.html",
        place=place,
        found=found,
        game=game,
        ply=ply,
        last=last,
        boards=boards,
        drawn=shown,
        result=result,
        clock=game_clock_text(game),
        banks=banks_text(game) if game.banks and game.status == "active" else "",
        preview=site.absolute(boards[last]),
        address=site.absolute(urls.game(place, game.id)),
    )


@dataclass(frozen=True, slots=True)
class Drawn:
    """The part of a game's page the same at every ply, drawn once per version of the
    game: each board's address, and the move list with no position marked."""

    addresses: tuple[str, ...]
    boards: Markup  # the addresses, for the slider
    moves: str

    def moves_at(self, ply: int) -> Markup:
        """The move list with the position after `ply` moves marked."""
        link = f' data-ply="{ply}">'
        return Markup(self.moves.replace(link, f'{link[:-1]} aria-current="step">', 1))


async def drawn(request: web.Request, place: WebPlace, found: WebGame) -> Drawn:
    """`found`'s page's unchanging part: drawn again when the record, the names or the
    caption change (the last board's version holds them) or a move's time does (an undo
    and the same move again); a long game's in a thread, where the loop gets the GIL
    back every few ms (about 25 µs a move)."""
    site = request.app[SITE]
    game = found.game
    key = (urls.prefix(place), game.id, found.board_tags[-1], found.moves[-1:])
    kept = site.drawn.get(key)
    if kept is None:
        addresses = tuple(urls.board(place, game.id, n, t) for n, t in enumerate(found.board_tags))
        render = partial(
            site.templates.get_template("game_moves.html").render,
            place=place,
            game=game,
            found=found,
        )
        moves = await asyncio.to_thread(render) if len(found.moves) > LONG_GAME else render()
        kept = Drawn(addresses, Markup(" ").join(addresses), moves)
        site.drawn[key] = kept
        while len(site.drawn) > DRAWN_KEPT:
            site.drawn.popitem(last=False)
    site.drawn.move_to_end(key)
    return cast(Drawn, kept)


def ply_asked(request: web.Request, last: int) -> int:
    """`?ply=N`, the position after N moves (the last when absent): 400 for what is no
    number, 404 for a position the game never had."""
    text = request.query.get("ply")
    if text is None:
        return last
    if not text.isdecimal() or not text.isascii() or len(text) > MAX_PLY_DIGITS:
        raise web.HTTPBadRequest()
    if int(text) > last:
        raise web.HTTPNotFound()
    return int(text)


async def board_picture(request: web.Request) -> web.StreamResponse:
    """The board after <ply> moves: cached for good when asked by its version (`?v=`),
    else revalidated by its ETag (a 304 draws and replays nothing)."""
    site = request.app[SITE]
    place = await site.server_of(request)
    known = request.headers.get("If-None-Match", "").split(",")[0].strip().strip('"')
    found = await site.service.web_board(
        place,
        int(request.match_info["game"]),
        int(request.match_info["ply"]),
        known=known[:64] or None,
    )
    lasting = FOREVER if request.query.get("v") == found.tag else "no-cache"
    return file(
        request, found.png or b"", "image/png", cached(place, lasting), place=place, tag=found.tag
    )


async def download(request: web.Request) -> web.StreamResponse:
    site = request.app[SITE]
    place = await site.server_of(request)
    fmt = request.match_info["format"]
    found = await site.service.web_download(place, int(request.match_info["game"]), fmt)
    return file(
        request,
        found.data,
        CONTENT_TYPES[fmt],
        cached(place, "no-cache"),
        place=place,
        filename=found.filename,
    )


async def analysis_chart(request: web.Request) -> web.StreamResponse:
    site = request.app[SITE]
    place = await site.server_of(request)
    png = await site.service.analysis_chart(place, int(request.match_info["game"]))
    return file(request, png, "image/png", cached(place, "no-cache"), place=place)


GAME = r"/g/{game:\d{1,20}}"
ROUTES: tuple[tuple[str, Handler], ...] = (
    (GAME, game_page),
    (GAME + r"/board/{ply:\d{1,6}}.png", board_picture),
    (GAME + r"/game.{format:json|sgf|gif}", download),
    (GAME + "/analysis.png", analysis_chart),
)
