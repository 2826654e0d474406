"""A game's page: the board at every ply (each a link, `?ply=N`; bot/web/static/game.js
adds the slider), the moves with their times and who played them, the players, clocks
and result, the analysis of a finished game, the downloads; and its pictures and files.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from functools import partial
from typing import Any

from aiohttp import web
from markupsafe import Markup, escape

from bot.service import (
    Refused,
    TapBoard,
    WebGame,
    WebPlace,
    banks_text,
    game_clock_text,
    text_bytes,
)
from bot.service.core.rules import outcome_words
from bot.service.web.lists import isolated
from bot.web import acts, auth, live, urls
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
LONG_GAME = 1000
#: A picture whose address holds its version never changes.
FOREVER = "max-age=31536000, immutable"
#: A picture's address says its scale by how it ends (`urls.ENDINGS`): `@2x` or nothing.
SCALED = "{scale:|@2x}"


def cached(place: WebPlace, lasting: str) -> str:
    """Cache-Control for a server's file: shared caches may keep a public server's; a
    link-mode server's stay in the reader's own."""
    return f"{'public' if place.indexable else 'private'}, {lasting}"


async def game_page(request: web.Request) -> web.StreamResponse:
    site = request.app[SITE]
    place = await site.server_of(request)
    found = await site.service.web.web_game(place, int(request.match_info["game"]))
    last = len(found.board_tags) - 1
    ply = ply_asked(request, last)
    game = found.game
    shown = await drawn(request, place, found)
    result = None
    if game.status == "finished":  # each name isolated: a right-to-left mark turns it alone
        named = outcome_words(game.winners, game.reason, lambda s: isolated(game.name_of_seat(s)))
        result = f"{named}."
    return page(
        request,
        "game.html",
        place=place,
        found=found,
        game=game,
        ply=ply,
        last=last,
        board=site.urls.board(place, game.id, ply, found.board_tags[ply]),
        board_2x=site.urls.board(place, game.id, ply, found.board_tags[ply], scale=2),
        drawn=shown,
        result=result,
        clock=game_clock_text(game),
        banks=banks_text(game) if game.banks and game.status == "active" else "",
        preview=site.absolute(site.urls.board(place, game.id, last, found.board_tags[last])),
        address=site.absolute(site.urls.game(place, game.id)),
        acts=await acts.panel(request, place, found),
        stream=site.urls.live(place, game.id),
        version=live.version(found),
        **await tapping(request, place, found, ply),
    )


async def tapping(
    request: web.Request, place: WebPlace, found: WebGame, ply: int
) -> dict[str, Any]:
    """The page's part for its player to move, on the last position: where to tap on
    the board and the forms' CSRF token (bot/web/play.py takes them); none for others."""
    visitor = await auth.visitor_of(request)
    game = found.game
    shown_last = ply == len(found.board_tags) - 1
    if visitor is None or not shown_last or game.player_to_move != visitor.player.id:
        return {"tapping": None}
    try:
        board: TapBoard | None = await request.app[SITE].service.play.tap_board(
            game.id, place.guild_id, visitor.player
        )
    except Refused:  # not their turn after all (a bot's seat, an undo under way)
        board = None
    return {"tapping": board, "csrf": visitor.csrf}


@dataclass(frozen=True, slots=True)
class Drawn:
    """The part of a game's page the same at every ply, drawn once per version of the
    game: each board's address, and the move list with no position marked."""

    boards: Markup  # the boards' addresses, for the slider, one after another
    moves: str

    @property
    def size(self) -> int:
        """The memory it takes, about (`Site.drawn`)."""
        return 100 + text_bytes(self.boards, self.moves)

    def moves_at(self, ply: int) -> Markup:
        """The move list with the position after `ply` moves marked."""
        link = f' data-ply="{ply}">'
        return Markup(self.moves.replace(link, f'{link[:-1]} aria-current="step">', 1))


async def drawn(request: web.Request, place: WebPlace, found: WebGame) -> Drawn:
    """`found`'s page's unchanging part: drawn again when the record, the names or the
    caption change (the last board's version holds them) or a move's time does (an undo
    and the same move again); a long game's in a thread, where the loop gets the GIL
    back every few ms (a few µs a move)."""
    cache = request.app[SITE].drawn
    game = found.game
    key = (urls.prefix(place), game.id, found.board_tags[-1], found.times[-1:])
    kept = cache.get(key)
    if kept is None:
        draw = partial(draw_page_part, request.app[SITE].urls, place, found)
        kept = await asyncio.to_thread(draw) if len(found.record) > LONG_GAME else draw()
        cache.keep(key, kept)
    return kept


def draw_page_part(written: urls.Rooted, place: WebPlace, found: WebGame) -> Drawn:
    """A game's page's unchanging part (`Drawn`): strings joined, every name and move
    escaped (a template costs some 30 µs a move); the addresses as `written`."""
    game_id = found.game.id
    board = written.board
    boards = " ".join(board(place, game_id, n, t) for n, t in enumerate(found.board_tags))
    base = escape(written.game(place, game_id))
    names: dict[str, Markup] = {}
    start = "<span>0.</span><span>start</span><span></span>"
    lines = [f'<li><a href="{base}?ply=0" data-ply="0">{start}</a></li>']
    for move in found.moves:
        who = names.get(move.who)
        if who is None:
            who = names[move.who] = escape(move.who)
        at = move.at
        lines.append(
            f'<li><a href="{base}?ply={move.ply}" data-ply="{move.ply}"><span>{move.ply}.</span>'
            f"<span>{escape(move.text)}</span><span><bdi>{who}</bdi> "
            f'<time class="when" datetime="{at.isoformat()}">{at:%Y-%m-%d %H:%M} UTC</time>'
            "</span></a></li>"
        )
    lines.append("")
    return Drawn(Markup(escape(boards)), "\n".join(lines))


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


def scale_asked(request: web.Request) -> int:
    """The scale a picture's address asks for (`SCALED`): 2 for `@2x`, else 1."""
    return 2 if request.match_info["scale"] else 1


async def board_picture(request: web.Request) -> web.StreamResponse:
    """The board after <ply> moves (at twice the pixels at <ply>@2x.png): cached for good
    when asked by its version (`?v=`), else revalidated by its ETag (a 304 draws and
    replays nothing)."""
    site = request.app[SITE]
    place = await site.server_of(request)
    known = request.headers.get("If-None-Match", "").split(",")[0].strip().strip('"')
    version = request.query.get("v")
    found = await site.service.web.web_board(
        place,
        int(request.match_info["game"]),
        int(request.match_info["ply"]),
        known=known[:64] or None,
        version=version,
        scale=scale_asked(request),
    )
    lasting = FOREVER if version == found.tag else "no-cache"
    return file(
        request, found.png or b"", "image/png", cached(place, lasting), place=place, tag=found.tag
    )


async def download(request: web.Request) -> web.StreamResponse:
    site = request.app[SITE]
    place = await site.server_of(request)
    fmt = request.match_info["format"]
    found = await site.service.web.web_download(place, int(request.match_info["game"]), fmt)
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
    png = await site.service.web.analysis_chart(place, int(request.match_info["game"]))
    return file(request, png, "image/png", cached(place, "no-cache"), place=place)


GAME = r"/g/{game:[0-9]{1,20}}"
ROUTES: tuple[tuple[str, Handler], ...] = (
    (GAME, game_page),
    (GAME + r"/board/{ply:[0-9]{1,6}}" + SCALED + ".png", board_picture),
    (GAME + r"/game.{format:json|sgf|gif}", download),
    (GAME + "/analysis.png", analysis_chart),
)
