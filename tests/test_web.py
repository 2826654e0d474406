"""The web pages (bot/web): privacy, headers, escaping, hostile addresses, the game page.

Route tests through aiohttp's test client (the `web` fixture) over a service on SQLite."""

from __future__ import annotations

import asyncio
import logging
import re
import socket
from pathlib import Path
from urllib.parse import quote

import pytest
from aiohttp import ClientSession
from aiohttp.test_utils import TestClient, TestServer

from bot.cli import main
from bot.service import GameService, Player, Refused, ServiceCode
from bot.service.core import jobs as aiqueue
from bot.service.web import pages as service_web
from bot.store import Database
from bot.web import game as game_page
from bot.web import urls
from bot.web.app import CONTENT_SECURITY_POLICY, create_app
from bot.web.runner import start_web
from bot.web.site import SITE
from tests.conftest import ANN, BOB, WEB_URL, Clock
from tests.mailserver import free_port
from tests.webkit import GUILD, PLACE, UP, Client, fetched, hex_game, pages_on, text_of

HOSTILE = '<script>alert(1)</script>"><img src=x onerror=alert(2)>\u202e'


async def test_a_server_whose_pages_are_off_has_no_address(
    service: GameService, web: Client
) -> None:
    game = await hex_game(service, ["b2", "c3"])
    for path in (f"/s/{GUILD}/", f"/s/{GUILD}/g/{game.id}", f"/s/{GUILD}/g/{game.id}/board/1.png"):
        assert (await fetched(web, path)).status == 404, path
    place = await pages_on(service, "public")
    assert (await fetched(web, urls.game(place, game.id))).status == 200
    assert (await service.preferences.guild_settings(GUILD, web="off")).web_place is None
    assert (await fetched(web, urls.game(place, game.id))).status == 404


async def test_link_mode_pages_only_through_their_token_never_indexed(
    service: GameService, web: Client
) -> None:
    game = await hex_game(service, ["b2"])
    place = await pages_on(service, "link")
    assert place.token is not None and len(place.token) >= 20
    assert (await fetched(web, f"/s/{GUILD}/g/{game.id}")).status == 404  # the id is no secret
    assert (await fetched(web, f"/l/{'A' * 22}/g/{game.id}")).status == 404  # a guessed token
    page = await fetched(web, urls.game(place, game.id))
    assert page.status == 200 and page.headers["X-Robots-Tag"] == "noindex, nofollow"
    assert page.headers["Cache-Control"] == "private, no-cache"
    assert '<meta name="robots" content="noindex, nofollow">' in await page.text()
    board = await fetched(web, urls.board(place, game.id, 1))
    assert board.headers["X-Robots-Tag"] == "noindex, nofollow"
    assert board.headers["Cache-Control"].startswith("private")
    # the token stays while the pages are on; gone public, the link leads to the public page
    assert (await service.preferences.guild_settings(GUILD, web="link")).web_token == place.token
    await service.preferences.guild_settings(GUILD, web="public")
    moved = await fetched(web, urls.game(place, game.id, 1))
    assert moved.status == 302 and moved.headers["Location"] == f"/s/{GUILD}/g/{game.id}?ply=1"
    # off forgets the token: the old links are dead, a new link mode gets a new one
    await service.preferences.guild_settings(GUILD, web="off")
    again = await pages_on(service, "link")
    assert again.token != place.token
    assert (await fetched(web, urls.game(place, game.id))).status == 404
    with pytest.raises(Refused) as refused:  # a mode no server has: one sentence, no change
        await service.preferences.guild_settings(GUILD, web="secret")
    assert refused.value.code == ServiceCode.BAD_SETTING
    assert (await service.preferences.guild_settings(GUILD)).web_token == again.token
    robots = await text_of(web, "/robots.txt")
    assert "Disallow: /l/" in robots


async def test_every_response_carries_the_security_headers(
    service: GameService, web: Client
) -> None:
    place = await pages_on(service)
    game = await hex_game(service, ["b2"])
    for path in ("/", urls.game(place, game.id), "/nowhere", "/static/site.css", "/robots.txt"):
        response = await fetched(web, path)
        assert response.headers["Content-Security-Policy"] == CONTENT_SECURITY_POLICY, path
        assert response.headers["X-Content-Type-Options"] == "nosniff"
        assert response.headers["X-Frame-Options"] == "DENY"
        assert response.headers["Referrer-Policy"] == "no-referrer"
    assert "default-src 'none'" in CONTENT_SECURITY_POLICY
    assert (
        "script-src 'self'" in CONTENT_SECURITY_POLICY and "unsafe" not in CONTENT_SECURITY_POLICY
    )
    page = await text_of(web, urls.game(place, game.id))
    # nothing from elsewhere: every address in the page is this site's (or PUBLIC_URL's)
    for address in re.findall(r'(?:src|href|content)="([^"]*//[^"]*)"', page):
        assert address.startswith(WEB_URL + "/"), address
    assert "<style" not in page and "style=" not in page and "<script>" not in page
    static = await fetched(web, re.findall(r'href="(/static/site\.css\?v=\w+)"', page)[0])
    assert static.status == 200 and "immutable" in static.headers["Cache-Control"]


async def test_hostile_ids_and_parameters_are_404_or_400_never_500(
    service: GameService, web: Client
) -> None:
    place = await pages_on(service)
    game = await hex_game(service, ["b2", "c3"])
    base = urls.game(place, game.id)
    cases = {
        f"/s/{GUILD}/g/{'9' * 20}": 404,  # beyond a BIGINT
        f"/s/{GUILD}/g/{'9' * 400}": 404,
        f"/s/{'9' * 20}/g/1": 404,
        f"/s/{GUILD}/g/-1": 404,
        f"/s/{GUILD}/g/{game.id + 1}": 404,
        f"/s/{GUILD}/g/1%00": 404,
        f"/s/{GUILD}/g/%D9%A3": 404,  # an Arabic-Indic digit
        f"/s/{GUILD}/g/{game.id}/board/{'9' * 6}.png": 404,
        f"/s/{GUILD}/g/{game.id}/board/3.png": 404,
        f"/s/{GUILD}/g/{game.id}/game.exe": 404,
        f"/s/{GUILD}/g/{game.id}/analysis.png": 404,
        f"/l/{'x' * 64}/g/{game.id}": 404,
        f"/l/{'x' * 65}/g/{game.id}": 404,
        "/s/77/" + UP * 2 + "etc/passwd": 404,
        "/static/" + UP + "bot/web/app.py": 404,
        base + "?ply=abc": 400,
        base + "?ply=%D9%A3": 400,
        base + "?ply=" + "9" * 7: 400,
        base + "?ply=-1": 400,
        base + "?ply=3": 404,
        base + "?ply=2&ply=x": 200,  # the first
    }
    for path, status in cases.items():
        response = await fetched(web, path)
        assert response.status == status, (path, response.status)
    other = await hex_game(service, ["b2"])
    await service.preferences.guild_settings(GUILD + 1, web="public")
    assert (await fetched(web, f"/s/{GUILD + 1}/g/{other.id}")).status == 404  # not that server's


async def test_names_render_as_text(service: GameService, web: Client) -> None:
    place = await pages_on(service)
    mallory = Player(9005, HOSTILE)
    long_name = Player(9006, "W" * 5000)
    game = await hex_game(service, ["b2", "c3"], players=(mallory, long_name), resign=True)
    page = await text_of(web, urls.game(place, game.id))
    assert "<script>alert" not in page and "<img src=x" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;&#34;&gt;&lt;img" in page
    assert "W" * 90 in page  # the name as stored (the store keeps 100 characters)


async def test_the_game_page_shows_every_ply_as_a_link(service: GameService, web: Client) -> None:
    place = await pages_on(service)
    game = await hex_game(service, ["b2", "c3", "a4"], resign=True)
    page = await text_of(web, urls.game(place, game.id))
    for ply in range(4):
        assert f'href="{urls.game(place, game.id, ply)}"' in page
    assert page.count('aria-current="step"') == 1
    assert "b2" in page and "c3" in page and "ann" in page and "bob" in page
    assert "bob wins (resignation)" in page or "wins" in page
    assert (
        f'<meta property="og:image" content="{WEB_URL}/s/{GUILD}/g/{game.id}/board/3.png?v=' in page
    )
    at_one = await text_of(web, urls.game(place, game.id, 1))
    assert re.search(r'href="[^"]*ply=1" data-ply="1" aria-current="step"', at_one)
    assert f'src="/s/{GUILD}/g/{game.id}/board/1.png?v=' in at_one
    banked = await hex_game(service, ["b2"], clock="standard")  # under way, a bank clock
    page = await text_of(web, urls.game(place, banked.id))
    assert re.search(r"Due <time datetime=\"[^\"]+\">[^<]+ UTC</time> · ann \d+d", page), page
    assert (
        f'White: <bdi><a class="name" href="{urls.player(place, BOB.id)}">bob</a></bdi> · to move'
        in page
    )
    await service.preferences.player_settings(BOB, vacation=True)
    assert "Clock stopped: on vacation" in await text_of(web, urls.game(place, banked.id))


async def test_board_pictures_are_cached_and_revalidated(service: GameService, web: Client) -> None:
    place = await pages_on(service)
    game = await hex_game(service, ["b2", "c3"])
    page = await text_of(web, urls.game(place, game.id))
    versioned = re.findall(r"/board/1\.png\?v=\w+", page)[0]
    first = await fetched(web, urls.prefix(place) + f"/g/{game.id}" + versioned)
    assert first.status == 200 and first.headers["Content-Type"] == "image/png"
    assert (await first.read()).startswith(b"\x89PNG")
    assert first.headers["Cache-Control"] == "public, max-age=31536000, immutable"
    etag = first.headers["ETag"]
    again = await fetched(web, urls.board(place, game.id, 1), **{"If-None-Match": etag})
    assert again.status == 304 and again.headers["ETag"] == etag
    plain = await fetched(web, urls.board(place, game.id, 1))
    assert plain.status == 200 and plain.headers["Cache-Control"] == "public, no-cache"
    # an undo makes ply 2 another position: another version
    before = (await fetched(web, urls.board(place, game.id, 2))).headers["ETag"]
    await service.play.request_undo(game.id, GUILD, BOB)
    await service.play.answer_undo(game.id, GUILD, ANN, accept=True)
    await service.play.move(game.id, GUILD, BOB, "a4")
    after = await fetched(web, urls.board(place, game.id, 2), **{"If-None-Match": before})
    assert after.status == 200 and after.headers["ETag"] != before


async def test_downloads(service: GameService, web: Client) -> None:
    place = await pages_on(service)
    game = await hex_game(service, ["b2", "c3"], resign=True)
    record = await fetched(web, urls.download(place, game.id, "json"))
    assert record.status == 200 and (await record.json())["moves"][0]["text"] == "b2"
    assert record.headers["Content-Disposition"] == f'attachment; filename="hex-{game.id}.json"'
    sgf = await fetched(web, urls.download(place, game.id, "sgf"))
    assert sgf.status == 200 and (await sgf.text()).startswith("(;")
    gif = await fetched(web, urls.download(place, game.id, "gif"))
    assert gif.status == 200 and (await gif.read()).startswith(b"GIF8")


async def test_the_rate_limit_is_per_client_address(service: GameService) -> None:
    settings = service.records.settings.model_copy(
        update={"web_rate_limit": 1.0, "web_forwarded": True}
    )
    async with TestClient(TestServer(create_app(service, settings))) as client:
        for _ in range(5):  # the burst: five seconds' worth
            assert (
                await fetched(client, "/robots.txt", **{"X-Forwarded-For": "1.2.3.4"})
            ).status == 200
        refused = await fetched(client, "/robots.txt", **{"X-Forwarded-For": "1.2.3.4"})
        assert refused.status == 429 and refused.headers["Retry-After"] == "1"
        other = await fetched(client, "/robots.txt", **{"X-Forwarded-For": "1.2.3.4, 5.6.7.8"})
        assert other.status == 200


async def store_analysis(service: GameService, game_id: int, ply: int, clock: Clock) -> None:
    """An analysis as the AI runner stores it (its text and chart), for game `game_id`."""
    async with service.records.db.write() as conn:
        job = await aiqueue.request(conn, game_id, "analysis", ply, clock())
        await aiqueue.finish(
            conn, job.id, clock(), {"text": "move 3 a4: Black threw away a win"}, b"\x89PNG-chart"
        )


async def test_a_finished_games_analysis_is_shown_none_while_a_game_is_under_way(
    service: GameService, web: Client, clock: Clock
) -> None:
    place = await pages_on(service)
    over = await hex_game(service, ["b2", "c3", "a4"], resign=True)
    await store_analysis(service, over.id, over.ply, clock)
    page = await text_of(web, urls.game(place, over.id))
    assert "Black threw away a win" in page and urls.analysis_chart(place, over.id) in page
    chart = await fetched(web, urls.analysis_chart(place, over.id))
    assert chart.status == 200 and await chart.read() == b"\x89PNG-chart"
    under_way = await hex_game(service, ["b2", "c3"])  # between people: no engine help
    await store_analysis(service, under_way.id, under_way.ply, clock)
    page = await text_of(web, urls.game(place, under_way.id))
    assert "threw away" not in page and "Analysis" not in page
    assert (await fetched(web, urls.analysis_chart(place, under_way.id))).status == 404


async def test_unknown_methods_and_pages_are_pages_of_their_status(
    service: GameService, web: Client
) -> None:
    place = await pages_on(service)
    game = await hex_game(service, ["b2"])
    posted = await web.post(urls.game(place, game.id), data=b"x" * 100)
    assert posted.status == 405 and "not allowed" in await posted.text()
    assert posted.headers["Content-Security-Policy"] == CONTENT_SECURITY_POLICY
    head = await web.head(urls.game(place, game.id))
    assert head.status == 200
    missing = await fetched(web, "/nowhere")
    assert missing.headers["X-Robots-Tag"] == "noindex, nofollow"
    assert "There is no page here." in await missing.text()


async def test_the_pages_run_beside_the_bot_and_say_so_when_their_port_is_taken(
    service: GameService, caplog: pytest.LogCaptureFixture
) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        settings = service.records.settings.model_copy(update={"web_port": port})
        assert await start_web(service, settings) is None  # the bot runs on without pages
        assert f"cannot listen on 127.0.0.1:{port}" in caplog.text
    stop = await start_web(service, settings)
    assert stop is not None
    try:
        async with ClientSession() as session, session.get(f"http://127.0.0.1:{port}/") as got:
            assert got.status == 200 and "Paperboard" in await got.text()
    finally:
        await stop()
    assert await start_web(service, settings.model_copy(update={"web_port": 0})) is None


async def test_a_long_games_page_is_the_same_rendered_off_the_loop(
    service: GameService, web: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    place = await pages_on(service)
    game = await hex_game(service, ["b2", "c3", "a4"])
    on_the_loop = await text_of(web, urls.game(place, game.id, 2))
    monkeypatch.setattr(game_page, "LONG_GAME", 1)
    web.app[SITE].drawn.clear()  # its move list drawn again, in a thread
    assert await text_of(web, urls.game(place, game.id, 2)) == on_the_loop


async def test_another_processs_change_of_the_pages_shows_within_seconds(
    service: GameService, web: Client, database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    place = await pages_on(service)
    game = await hex_game(service, ["b2"])
    assert (await fetched(web, urls.game(place, game.id))).status == 200
    other = GameService(await Database.open(database_url), service.records.settings)
    try:
        await other.preferences.guild_settings(GUILD, web="off")
    finally:
        await other.close()
    assert (await fetched(web, urls.game(place, game.id))).status == 200  # trusted a while
    monkeypatch.setattr(service_web, "PLACE_SECONDS", 0.0)  # that while is over
    assert (await fetched(web, urls.game(place, game.id))).status == 404


def test_paperboard_web_needs_a_port(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)  # no .env of the developer's
    monkeypatch.setenv("WEB_PORT", "0")
    assert main(["web"]) == 2
    assert "paperboard web needs a WEB_PORT" in capsys.readouterr().err


async def test_a_name_turned_right_to_left_turns_only_itself_in_the_game_pages_sentences(
    service: GameService, web: Client
) -> None:
    place = await pages_on(service)
    reversed_name = Player(9007, "\u202egnp.exe")
    game = await hex_game(service, ["b2"], players=(reversed_name, BOB), resign=True)
    page = await text_of(web, urls.game(place, game.id))
    named = "\u2068\u202egnp.exe\u2069"
    assert f'<p class="result">{named} wins (resignation).</p>' in page
    title = f"Hex #{game.id}: {named} vs \u2068bob\u2069"
    assert f"<title>{title} · Paperboard</title>" in page
    assert f'<meta property="og:title" content="{title}">' in page
    assert f'<meta property="og:description" content="{named} wins (resignation).">' in page
    # the other pages' titles name people and events the same way
    player = await text_of(web, urls.player(place, reversed_name.id))
    assert f"<title>{named} · Paperboard</title>" in player
    games = await text_of(web, urls.games(place, player=reversed_name.id))
    assert f"<title>{named}'s games · Paperboard</title>" in games


def arabic_indic(number: int) -> str:
    """`number` in Arabic-Indic digits, as an address carries them (UTF-8, escaped)."""
    return quote("".join(chr(0x660 + int(digit)) for digit in str(number)))


async def test_ids_in_addresses_are_ascii_digits_only(service: GameService, web: Client) -> None:
    place = await pages_on(service)
    game = await hex_game(service, ["b2", "c3"], resign=True)
    base = urls.game(place, game.id)
    one = {"arabic-indic": "%D9%A1", "full-width": "%EF%BC%91", "mathematical": "%F0%9D%9F%8F"}
    assert game.id == 1
    for kind, digit in one.items():
        response = await fetched(web, f"/s/{GUILD}/g/{digit}")
        assert response.status == 404, kind
        assert "There is no page here." in await response.text(), kind
    for path in (
        f"/s/{arabic_indic(GUILD)}/g/{game.id}",
        f"{base}/board/{arabic_indic(1)}.png",
        f"/s/{GUILD}/p/{arabic_indic(ANN.id)}",
        f"/s/{GUILD}/p/-{arabic_indic(ANN.id)}",
    ):
        assert (await fetched(web, path)).status == 404, path
    assert (await fetched(web, f"{base}/board/1.png")).status == 200
    assert (await fetched(web, urls.player(place, ANN.id))).status == 200


async def raw_answer(port: int, request: bytes) -> bytes:
    """What the pages answer `request` sent as it is over a socket."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(request)
        await writer.drain()
        return await asyncio.wait_for(reader.read(), 10)
    finally:
        writer.close()


async def test_a_request_too_long_to_read_is_a_414_or_431_logged_once_a_minute(
    service: GameService, caplog: pytest.LogCaptureFixture
) -> None:
    port = free_port()
    stop = await start_web(service, service.records.settings.model_copy(update={"web_port": port}))
    assert stop is not None
    long_line = b"GET /" + b"a" * 9000 + b" HTTP/1.1\r\nHost: x\r\n\r\n"
    long_header = b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"b" * 9000 + b"\r\n\r\n"
    try:
        with caplog.at_level(logging.INFO):
            answers = [await raw_answer(port, r) for r in (long_line, long_header) * 3]
    finally:
        await stop()
    for answer, status in zip(answers, (414, 431) * 3, strict=True):
        head, _, body = answer.partition(b"\r\n\r\n")
        assert head.split(b" ", 2)[1] == b"%d" % status, head[:100]
        assert b"Content-Security-Policy: " + CONTENT_SECURITY_POLICY.encode() in head
        assert b"X-Frame-Options: DENY" in head and b"text/html" in head
        assert b"aaaa" not in body and b"bbbb" not in body and b"<h1>%d</h1>" % status in body
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    warned = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warned) == 1 and "too long to read" in warned[0].getMessage()


ROOTED = "https://example.org/paperboard"


async def test_the_pages_write_every_address_under_public_urls_path(
    service: GameService, clock: Clock
) -> None:
    settings = service.records.settings.model_copy(
        update={"web_rate_limit": 0, "public_url": ROOTED}
    )
    place = await pages_on(service)
    game = await hex_game(service, ["b2", "c3", "a4"], resign=True)
    await store_analysis(service, game.id, game.ply, clock)
    event = await service.events.create_tournament(
        PLACE, ANN, "hex", format="swiss", name="Spring", options={"size": "5"}, manages=True
    )
    pages = (
        "/",
        "/rules/",
        "/rules/hex",
        urls.server(place),
        urls.games(place, status="finished", player=ANN.id),
        urls.game(place, game.id, 1),
        urls.event(place, event.tournament.id),
        urls.player(place, ANN.id),
        "/nowhere",
    )
    async with TestClient(TestServer(create_app(service, settings))) as client:
        for path in pages:
            page = await (await client.get(path)).text()
            written = re.findall(r'(?:href|src|action|content|data-boards)="([^"]*)"', page)
            assert any(a.startswith("/paperboard/") for a in written), path
            for address in written:
                for part in address.split(" "):  # data-boards: addresses one after another
                    if part.startswith("/"):
                        assert part.startswith("/paperboard/"), (path, part)
                    if "//" in part:
                        assert part.startswith(ROOTED + "/"), (path, part)
                        assert "/paperboard/paperboard" not in part, (path, part)
        robots = await (await client.get("/robots.txt")).text()
        assert "Disallow: /paperboard/l/" in robots
        await service.preferences.guild_settings(GUILD, web="link")
        link = (await service.preferences.guild_settings(GUILD)).web_place
        assert link is not None
        await service.preferences.guild_settings(GUILD, web="public")
        moved = await client.get(urls.game(link, game.id), allow_redirects=False)
        assert moved.headers["Location"] == f"/paperboard/s/{GUILD}/g/{game.id}"
