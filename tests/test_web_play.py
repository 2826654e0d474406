"""Moving on a game's page over HTTP (bot/web/play.py): taps and typed moves previewed,
confirmed at the ply seen; every refusal in one sentence and nothing changed: a stale
board, an illegal move, not your turn, a spectator, the other seat, signed out, a forged
token, a GET, an enormous move."""

from __future__ import annotations

import re
from typing import Any

from bot.service import GameService, Player
from bot.web import auth
from tests.conftest import ANN, BOB
from tests.webkit import GUILD, Client, hex_game, pages_on, text_of, urls

JSON = {"Accept": "application/json"}
CAT = Player(9003, "cat")


async def signed_in(client: Client, service: GameService, player: Player) -> str:
    """`client` signed in as `player`: the session's CSRF token."""
    opened = await service.sessions.start(player, "bot")
    client.session.cookie_jar.update_cookies({auth.COOKIE: opened.secret})
    return opened.session.csrf


async def post(client: Client, path: str, fields: dict[str, Any], **headers: str) -> Any:
    response = await client.post(path, data=fields, headers=headers, allow_redirects=False)
    body = await response.text()
    return response.status, body, response


async def moves_of(service: GameService, game_id: int) -> int:
    return (await service.lookups.game(game_id, GUILD)).ply


async def test_taps_preview_and_confirm(web: Client, service: GameService) -> None:
    place = await pages_on(service)
    game = await hex_game(service, ["a1"])
    page = urls.game(place, game.id)
    assert 'id="moving" data-live hidden' in await text_of(web, page)  # a visitor: as before
    csrf = await signed_in(web, service, BOB)
    html = await text_of(web, page)
    assert html.count('class="target"') == 16 and 'aria-label="c3"' in html
    status, body, response = await post(
        web, urls.play(place, game.id, "taps"), {"csrf": csrf, "ply": "1", "taps": "c3"}, **JSON
    )
    assert status == 200, body
    answer = await response.json()
    assert answer["move"] == "c3" and answer["whole"] and answer["played"] == "c3"
    picture = await web.get(answer["picture"])
    assert picture.status == 200 and (await picture.read())[:4] == b"\x89PNG"
    assert picture.headers["Cache-Control"].startswith("private")
    assert await moves_of(service, game.id) == 1  # previewed, not played
    status, body, response = await post(
        web, urls.play(place, game.id, "move"), {"csrf": csrf, "ply": "1", "move": "c3"}, **JSON
    )
    assert status == 200 and (await response.json())["address"] == page
    assert await moves_of(service, game.id) == 2


async def test_typed_move_without_script(web: Client, service: GameService) -> None:
    place = await pages_on(service)
    game = await hex_game(service, [])
    csrf = await signed_in(web, service, ANN)
    status, body, _ = await post(
        web, urls.play(place, game.id, "preview"), {"csrf": csrf, "ply": "0", "move": " B2 "}
    )
    assert status == 200 and "Confirm b2" in body
    picture = re.search(r'<img src="([^"]+preview\.png[^"]+)"', body)
    assert picture is not None
    assert (await web.get(picture[1].replace("&amp;", "&"))).status == 200
    status, _, response = await post(
        web, urls.play(place, game.id, "move"), {"csrf": csrf, "ply": "0", "move": "b2"}
    )
    assert status == 303 and response.headers["Location"] == urls.game(place, game.id)
    assert await moves_of(service, game.id) == 1


async def test_refusals_are_one_sentence_and_change_nothing(
    web: Client, service: GameService
) -> None:
    place = await pages_on(service)
    game = await hex_game(service, ["a1"])
    taps, move = urls.play(place, game.id, "taps"), urls.play(place, game.id, "move")
    csrf = await signed_in(web, service, BOB)
    cases = [
        (move, {"ply": "0", "move": "b2"}, 409, "out of date"),  # a stale board
        (move, {"ply": "1", "move": "a1"}, 422, "a1"),  # illegal: the engine's sentence
        (taps, {"ply": "1", "taps": "a1 b2"}, 200, "taps 1 points"),
        (taps, {"ply": "1", "taps": "swap"}, 200, "cannot be used now"),
        (taps, {"ply": "1", "taps": "a1"}, 200, "a1"),
        (move, {"ply": "1", "move": "x" * 60_000}, 422, "too long"),
        (taps, {"ply": "1", "taps": "a1 " * 600}, 200, "Too many taps"),
    ]
    for path, fields, status, words in cases:
        got, body, response = await post(web, path, {"csrf": csrf, **fields}, **JSON)
        assert got == status, body
        assert words in (await response.json())["sentence"]
    status, body, _ = await post(web, move, {"csrf": csrf, "ply": "1", "move": "z" * 100_000})
    assert status == 413  # too big a form: refused before it is read
    status, body, _ = await post(web, move, {"csrf": csrf, "ply": "1", "move": "a1"})
    assert status == 422 and "a1" in body and "<form" in body  # the sentence, the form again
    assert await moves_of(service, game.id) == 1


async def test_only_the_player_to_move_moves(web: Client, service: GameService) -> None:
    place = await pages_on(service)
    game = await hex_game(service, ["a1"])
    move = urls.play(place, game.id, "move")
    fields = {"ply": "1", "move": "b2"}
    assert (await post(web, move, fields, **JSON))[0] == 403  # signed out
    for player, status in ((ANN, 422), (CAT, 422)):  # the other seat, a spectator
        csrf = await signed_in(web, service, player)
        got, body, response = await post(web, move, {"csrf": csrf, **fields}, **JSON)
        assert got == status, body
        sentence = (await response.json())["sentence"]
        assert "not your turn" in sentence or "not playing" in sentence
        page = await text_of(web, urls.game(place, game.id))
        assert 'class="target"' not in page
    csrf = await signed_in(web, service, BOB)
    assert (await post(web, move, {"csrf": "forged", **fields}, **JSON))[0] == 403
    assert (await web.get(move)).status in (404, 405)  # nothing by GET
    preview = urls.preview_picture(place, game.id, 1, "b2")
    web.session.cookie_jar.clear()
    assert (await web.get(preview)).status == 403
    assert csrf and await moves_of(service, game.id) == 1
