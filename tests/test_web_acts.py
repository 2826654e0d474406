"""A player's acts on a game's page (bot/web/acts.py), over HTTP: resign (confirmed), undo
asked and answered, conditional lines, vacation, a challenge answered; and who may not:
each form refused to a spectator, the other seat where it is not theirs, a player of
another server, a visitor not signed in, a revoked session, a forged token, a GET, with
a clear sentence and the database unchanged."""

from __future__ import annotations

import re
from html import unescape
from typing import Any

import sqlalchemy as sa
from aiohttp import ClientResponse
from aiohttp.test_utils import TestClient, TestServer

from bot.service import (
    GameOver,
    GameService,
    GameSummary,
    NewSession,
    Place,
    Player,
    Result,
    WebPlace,
)
from bot.store.schema import conditionals, games, players, seats
from bot.web import acts, auth, urls
from bot.web.app import create_app
from tests.conftest import ANN, BOB, WEB_URL
from tests.webkit import GUILD, PLACE, Client, hex_game, pages_on

CARL = Player(9003, "carl")  # signed in, seated nowhere here
DORA = Player(9004, "dora")  # plays on another server


def session_cookie(opened: NewSession, said: str | None = None) -> dict[str, str]:
    """The headers a signed-in browser sends (the sentence an act left, with `said`)."""
    cookie = f"{auth.COOKIE}={opened.secret}"
    if said is not None:
        cookie += f"; {acts.SAID}={said}"
    return {"Cookie": cookie}


async def posted(
    web: Client, path: str, opened: NewSession | None, csrf: str | None = None, **fields: str
) -> ClientResponse:
    """A form sent as the page sends it: the session's cookie and token (`csrf` forged)."""
    data = dict(fields)
    if opened is not None:
        data["csrf"] = opened.session.csrf if csrf is None else csrf
    headers = session_cookie(opened) if opened is not None else {}
    response = await web.post(path, data=data, headers=headers, allow_redirects=False)
    await response.read()
    return response


async def acted(web: Client, path: str, opened: NewSession, **fields: str) -> str:
    """A form sent, its redirect followed as a browser does: the page it leads to, which
    shows the act's sentence once (its cookie cleared)."""
    response = await posted(web, path, opened, **fields)
    assert response.status == 303, (response.status, await response.text())
    said = response.cookies[acts.SAID].value
    page = await web.get(response.headers["Location"], headers=session_cookie(opened, said))
    assert page.status == 200
    cleared = page.headers.getall("Set-Cookie", [])
    assert any(c.startswith(f"{acts.SAID}=") and "Max-Age=0" in c for c in cleared), cleared
    return unescape(await page.text())


def said_on(page: str) -> str:
    """The act's sentence a page shows ("" for none)."""
    found = re.search(r'<p class="said" role="status">(.*?)</p>', page, re.S)
    return found.group(1) if found else ""


async def page_as(web: Client, path: str, opened: NewSession | None) -> str:
    response = await web.get(path, headers=session_cookie(opened) if opened else {})
    assert response.status == 200
    return unescape(await response.text())


async def rows_of(service: GameService, game_id: int) -> tuple[Any, ...]:
    """Everything an act could change: the game's row, its seats, the lines, the players."""
    async with service.records.db.read() as conn:
        return (
            (await conn.execute(sa.select(games).where(games.c.id == game_id))).one(),
            (await conn.execute(sa.select(seats).where(seats.c.game_id == game_id))).all(),
            (await conn.execute(sa.select(conditionals).order_by(conditionals.c.player_id))).all(),
            (await conn.execute(sa.select(players).order_by(players.c.id))).all(),
        )


async def other_server_game(service: GameService) -> GameSummary:
    """A game under way on another server (its pages on), between dora and eve."""
    eve = Player(9005, "eve")
    issued = await service.challenges.challenge(
        Place(GUILD + 1, 10), DORA, "hex", opponents=[eve], options={"size": 4, "swap": "off"},
        first="challenger",
    )  # fmt: skip
    return (await service.challenges.accept(issued.game.id, GUILD + 1, eve)).game


async def test_resigning_asks_first_then_resigns_once(service: GameService, web: Client) -> None:
    place = await pages_on(service)
    game = await hex_game(service, ["b2", "c3"])
    ann = await service.sessions.start(ANN, "bot")
    base = urls.game(place, game.id)
    page = await page_as(web, base, ann)
    assert f'href="{base}?act=resign#acts">Resign…' in page and "Resign this game?" not in page
    asking = await page_as(web, base + "?act=resign", ann)  # asks, changes nothing
    assert "Resign this game?" in asking and f'action="{base}/resign"' in asking
    assert "Keep playing" in asking
    assert (await service.lookups.game(game.id, GUILD)).status == "active"
    after = await acted(web, base + "/resign", ann)
    assert said_on(after) == f"Hex #{game.id} is over: bob wins by resignation. You lose."
    assert (await service.lookups.game(game.id, GUILD)).status == "finished"
    assert "bob wins" in after and "Resign…" not in after
    assert said_on(await page_as(web, base, ann)) == ""  # shown once
    again = await acted(web, base + "/resign", ann)  # the form sent twice acts once
    assert "not under way" in said_on(again) or "is over" in said_on(again)
    assert (await service.lookups.game(game.id, GUILD)).winners == (1,)


async def test_an_act_beside_the_bot_is_announced_at_once(service: GameService) -> None:
    """Served with the bot (`publish`), a result goes out at once, as Discord's would."""
    published: list[Result] = []

    async def publish(result: Result) -> None:
        published.append(result)

    place = await pages_on(service)
    game = await hex_game(service, ["b2"])
    ann = await service.sessions.start(ANN, "bot")
    settings = service.records.settings.model_copy(
        update={"web_rate_limit": 0, "public_url": WEB_URL}
    )
    async with TestClient(TestServer(create_app(service, settings, publish))) as client:
        await acted(client, urls.game(place, game.id) + "/resign", ann)
    assert [type(e) for r in published for e in r.events] == [GameOver]


async def test_an_undo_is_asked_and_answered_on_the_page(service: GameService, web: Client) -> None:
    place = await pages_on(service)
    game = await hex_game(service, ["b2", "c3"])
    ann, bob = [await service.sessions.start(p, "bot") for p in (ANN, BOB)]
    base = urls.game(place, game.id)
    asked = await acted(web, base + "/undo", bob)
    assert (
        said_on(asked)
        == f"You ask to take back your last move in Hex #{game.id}; ann may accept or decline."
    )
    assert "Your undo request waits for an answer." in asked
    ann_session = ann
    page = await page_as(web, base, ann_session)
    assert "<bdi>bob</bdi> asks to take back their last move." in page
    assert re.search(r'name="ply" value="2"', page)
    stale = await acted(web, base + "/undo/answer", ann_session, answer="accept", ply="1")
    assert said_on(stale) == "There is no undo request waiting for an answer."
    done = await acted(web, base + "/undo/answer", ann_session, answer="accept", ply="2")
    assert "taken back" in said_on(done)
    assert (await service.lookups.game(game.id, GUILD)).ply == 1


async def test_conditional_lines_are_set_seen_and_cleared(
    service: GameService, web: Client
) -> None:
    place = await pages_on(service)
    game = await hex_game(service, ["b2"])  # bob to move: ann may leave replies
    ann = await service.sessions.start(ANN, "bot")
    base = urls.game(place, game.id)
    added = await acted(web, base + "/conditional", ann, action="add", line="c3 a4")
    assert said_on(added) == "Line added."
    assert re.search(r'<ol class="lines">\s*<li>if c3 then a4</li>', added)
    await acted(web, base + "/conditional", ann, action="add", line="d1 a3")
    removed = await acted(web, base + "/conditional", ann, action="remove", line="d1")
    assert said_on(removed) == "1 line removed." and "if d1" not in removed
    refused = await acted(web, base + "/conditional", ann, action="add", line="b2 b2")
    assert "b2" in said_on(refused) and "Line added" not in said_on(refused)
    cleared = await acted(web, base + "/conditional", ann, action="clear")
    assert said_on(cleared) == "Your lines are cleared." and "No conditional lines." in cleared
    unknown = await acted(web, base + "/conditional", ann, action="list")
    assert said_on(unknown) == "Add a line, remove one, or clear them."


async def test_a_vacation_starts_and_ends_from_the_page(service: GameService, web: Client) -> None:
    place = await pages_on(service)
    game = await hex_game(service, ["b2"], days_per_move=3)
    bob = await service.sessions.start(BOB, "bot")
    base = urls.game(place, game.id)
    started = await acted(web, "/vacation", bob, vacation="on", back=base)
    assert said_on(started).startswith("You are on vacation: your clocks are stopped")
    assert "Clock stopped: on vacation" in started and "End my vacation" in started
    assert (await service.lookups.game(game.id, GUILD)).away == (BOB.id,)
    ended = await acted(web, "/vacation", bob, vacation="off", back=base)
    assert said_on(ended).startswith("You are back from vacation")
    assert (await service.lookups.game(game.id, GUILD)).away == ()
    for elsewhere in ("//evil.example/", "https://evil.example/", "/\\evil.example"):
        response = await posted(web, "/vacation", bob, vacation="off", back=elsewhere)
        assert response.headers["Location"] == "/", elsewhere  # led home, never away


async def test_a_challenge_is_accepted_or_declined(service: GameService, web: Client) -> None:
    place = await pages_on(service)
    bob = await service.sessions.start(BOB, "bot")
    one, two = [
        (await service.challenges.challenge(PLACE, ANN, "hex", opponents=[BOB])).game.id
        for _ in range(2)
    ]
    home = await acted(web, urls.challenge_answer(place, one, "accept"), bob)
    assert f"Hex #{one} begins." in said_on(home)
    assert (await service.lookups.game(one, GUILD)).status == "active"
    home = await acted(web, urls.challenge_answer(place, two, "decline"), bob)
    assert said_on(home) == f"You declined the challenge to Hex #{two}."
    assert (await service.lookups.game(two, GUILD)).status == "declined"


async def test_every_form_refuses_whoever_it_is_not_for(service: GameService, web: Client) -> None:
    """Each form, by everyone it is not for: refused with a sentence, nothing changed."""
    place = await pages_on(service)
    await pages_on(service, guild=GUILD + 1)
    game = await hex_game(service, ["b2", "c3"])
    await service.play.request_undo(game.id, GUILD, BOB)
    challenge = (await service.challenges.challenge(PLACE, ANN, "hex", opponents=[BOB])).game
    theirs = await other_server_game(service)
    ann, bob, carl, dora = [await service.sessions.start(p, "bot") for p in (ANN, BOB, CARL, DORA)]
    revoked = await service.sessions.start(BOB, "mail")  # signed out everywhere below
    base = urls.game(place, game.id)
    other_server = WebPlace(GUILD + 1, "public")
    forms: list[tuple[str, dict[str, str], list[tuple[NewSession, str]]]] = [
        (base + "/resign", {}, [(carl, "not playing"), (dora, "not playing")]),
        (base + "/undo", {}, [(carl, "not playing"), (bob, "already waiting")]),
        (
            base + "/undo/answer",
            {"answer": "accept", "ply": "2"},
            [(carl, "not playing"), (bob, "You asked for this undo")],
        ),
        (base + "/conditional", {"action": "add", "line": "a1 a2"}, [(carl, "not playing")]),
        (base + "/conditional", {"action": "clear"}, [(dora, "not playing")]),
        (
            urls.challenge_answer(place, challenge.id, "accept"),
            {},
            [(carl, "not waiting for you"), (ann, "not waiting for you")],
        ),
        (
            urls.challenge_answer(place, challenge.id, "decline"),
            {},
            [(carl, "Only an invited player"), (ann, "Only an invited player")],
        ),
        ("/vacation", {"vacation": "maybe"}, [(ann, "Start your vacation, or end it.")]),
    ]
    before = [await rows_of(service, g) for g in (game.id, challenge.id, theirs.id)]
    for path, fields, refused in forms:
        for who, sentence in refused:
            page = await acted(web, path, who, **fields)
            assert sentence in said_on(page) and said_on(page), (path, who.session.player, page)
        nobody = await posted(web, path, None, **fields)
        assert nobody.status == 403 and auth.SIGN_IN_FIRST in await nobody.text(), path
        forged = await posted(web, path, ann, csrf="x" * 43, **fields)
        assert forged.status == 403 and auth.FORGED in await forged.text(), path
        fetched = await web.get(path, headers=session_cookie(ann), allow_redirects=False)
        assert fetched.status == 405 and "only by its form" in await fetched.text(), path
    assert await service.sessions.end_all(BOB.id) == 2  # bob signs out everywhere
    for path, fields, _ in forms:
        gone = await posted(web, path, revoked, **fields)
        assert gone.status == 403 and auth.SIGN_IN_FIRST in await gone.text(), path
    # a game through another server's address: refused, led to a page that is not there
    for path, who in (
        (urls.game(place, theirs.id) + "/resign", dora),
        (urls.game(other_server, game.id) + "/resign", ann),
    ):
        response = await posted(web, path, who)
        assert response.status == 303 and acts.SAID in response.cookies
        assert (await web.get(response.headers["Location"])).status == 404
    assert [await rows_of(service, g) for g in (game.id, challenge.id, theirs.id)] == before
    # a server whose pages are off takes no form at all
    await service.preferences.guild_settings(GUILD + 1, web="off")
    assert (await posted(web, urls.game(other_server, theirs.id) + "/resign", dora)).status == 404
    assert [await rows_of(service, g) for g in (game.id, challenge.id, theirs.id)] == before


async def test_a_sentence_shows_only_to_the_session_that_acted(
    service: GameService, web: Client
) -> None:
    place = await pages_on(service)
    game = await hex_game(service, ["b2", "c3"])
    bob, carl = [await service.sessions.start(p, "bot") for p in (BOB, CARL)]
    response = await posted(web, urls.game(place, game.id) + "/undo", bob)
    said = response.cookies[acts.SAID].value
    base = urls.game(place, game.id)
    for who, cookie in ((carl, said), (bob, "x" + said), (bob, "!!.??")):  # not bob's: none
        page = await web.get(base, headers=session_cookie(who, cookie))
        assert said_on(unescape(await page.text())) == ""
