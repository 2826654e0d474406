"""The board at twice the pixels for high-DPI screens: the game page's picture and the
preview offer it by `srcset`; its address (`<ply>@2x.png`, `preview@2x.png`) answers
like the 1x's (versions, ETags, 404s, a server's pages off); the 1x is the picture
Discord is sent, unchanged."""

from __future__ import annotations

import io
import re

from PIL import Image

import engine
from bot.render import render_png
from bot.service import GameService
from tests.conftest import BOB
from tests.test_web_play import JSON, post, signed_in
from tests.webkit import GUILD, Client, fetched, hex_game, pages_on, text_of, urls

#: The game page's board: its 1x address, and the srcset's two.
BOARD = re.compile(r'<img id="board" src="([^"]+)" srcset="([^" ]+) 1x, ([^" ]+) 2x"')


def size_of(png: bytes) -> tuple[int, int]:
    return Image.open(io.BytesIO(png)).size


async def test_the_game_page_offers_the_board_at_2x(service: GameService, web: Client) -> None:
    place = await pages_on(service)
    game = await hex_game(service, ["b2", "c3"])
    for ply in (None, 1):
        page = await text_of(web, urls.game(place, game.id, ply))
        found = BOARD.search(page)
        assert found is not None, page
        shown = 2 if ply is None else ply
        one, also, two = found.groups()
        assert one == also and re.fullmatch(rf".*/board/{shown}\.png\?v=\w+", one)
        assert two == one.replace(f"/{shown}.png?", f"/{shown}@2x.png?")
    # the slider's addresses stay the 1x ones (game.js writes each 2x from its 1x)
    assert "@2x" not in re.findall(r'data-boards="([^"]*)"', page)[0]


async def test_the_2x_board_is_twice_the_1x_and_answers_like_it(
    service: GameService, web: Client
) -> None:
    place = await pages_on(service)
    game = await hex_game(service, ["b2", "c3"])
    page = await text_of(web, urls.game(place, game.id, 1))
    found = BOARD.search(page)
    assert found is not None
    one, _, two = found.groups()
    first, second = await fetched(web, one), await fetched(web, two)
    assert (first.status, second.status) == (200, 200)
    assert second.headers["Content-Type"] == "image/png"
    assert second.headers["Cache-Control"] == "public, max-age=31536000, immutable"
    once, twice = await first.read(), await second.read()
    width, height = size_of(once)
    assert size_of(twice) == (2 * width, 2 * height)
    # the 1x is the picture drawn for Discord, byte for byte
    state = engine.replay("hex", game.options, ["b2"])
    assert once == render_png(state, players=("ann", "bob"))
    etag = second.headers["ETag"]
    plain = urls.board(place, game.id, 1, scale=2)
    again = await fetched(web, plain, **{"If-None-Match": etag})
    assert again.status == 304 and again.headers["ETag"] == etag
    unversioned = await fetched(web, plain)
    assert unversioned.status == 200 and unversioned.headers["Cache-Control"] == "public, no-cache"
    assert await unversioned.read() == twice
    assert (await fetched(web, urls.board(place, game.id, 3, scale=2))).status == 404  # no ply 3
    await service.preferences.guild_settings(GUILD + 1, web="public")
    assert (await fetched(web, f"/s/{GUILD + 1}/g/{game.id}/board/1@2x.png")).status == 404
    for hostile in ("1@3x.png", "1@2x@2x.png", "@2x.png", "1@2X.png"):
        assert (await fetched(web, f"/s/{GUILD}/g/{game.id}/board/{hostile}")).status == 404
    await service.preferences.guild_settings(GUILD, web="off")  # the pages off: no address
    assert (await fetched(web, plain)).status == 404


async def test_the_link_modes_2x_board_stays_in_the_readers_cache(
    service: GameService, web: Client
) -> None:
    place = await pages_on(service, "link")
    game = await hex_game(service, ["b2"])
    board = await fetched(web, urls.board(place, game.id, 1, scale=2))
    assert board.status == 200 and board.headers["Cache-Control"].startswith("private")
    assert board.headers["X-Robots-Tag"] == "noindex, nofollow"


async def test_the_preview_is_offered_at_2x(service: GameService, web: Client) -> None:
    place = await pages_on(service)
    game = await hex_game(service, ["a1"])
    assert (await fetched(web, urls.preview_picture(place, game.id, 1, "c3", 2))).status == 403
    csrf = await signed_in(web, service, BOB)
    fields = {"csrf": csrf, "ply": "1", "taps": "c3"}
    status, body, response = await post(web, urls.play(place, game.id, "taps"), fields, **JSON)
    assert status == 200, body
    answer = await response.json()
    twice = urls.preview_picture(place, game.id, 1, "c3", 2)
    assert answer["srcset"] == f"{answer['picture']} 1x, {twice} 2x"
    once = await (await fetched(web, answer["picture"])).read()
    picture = await fetched(web, twice)
    assert picture.status == 200 and picture.headers["Cache-Control"].startswith("private")
    width, height = size_of(once)
    assert size_of(await picture.read()) == (2 * width, 2 * height)
    fields = {"csrf": csrf, "ply": "1", "move": "c3"}
    status, body, _ = await post(web, urls.play(place, game.id, "preview"), fields)
    assert status == 200
    found = re.search(r'<img src="([^"]+)" srcset="([^" ]+) 1x, ([^" ]+) 2x"', body)
    assert found is not None and found[1] == found[2]
    assert found[3].replace("&amp;", "&") == twice
