"""The signed-in home page (bot/web/home.py) and the service's reads behind it: a player's
games on every server in the queue's order, the challenges waiting for them, their events
with what comes next; a game of a server whose pages are off listed without a link, a
link-mode server's address shown to its own players alone; names as text."""

from __future__ import annotations

import re
from html import unescape

import pytest

from bot.service import GameService, Place, Player
from bot.web import urls
from tests import eventkit
from tests.conftest import ANN, BOB
from tests.test_web_acts import CARL, acted, page_as
from tests.webkit import GUILD, PLACE, Client, hex_game, pages_on

MALLORY = Player(9006, "<script>alert(1)</script>")


async def test_a_visitor_not_signed_in_reads_what_paperboard_is(web: Client) -> None:
    page = await page_as(web, "/", None)
    assert '<a href="/signin">Sign in</a>' in page and "Your games" not in page


@pytest.mark.both_backends  # the reads' SQL
async def test_the_home_page_lists_your_games_and_challenges(
    service: GameService, web: Client
) -> None:
    place = await pages_on(service)
    link = await pages_on(service, "link", guild=GUILD + 2)
    slow = await hex_game(service, [], days_per_move=7)  # ann to move in each
    fast = await hex_game(service, [], days_per_move=1)
    theirs = await hex_game(service, ["b2"], players=(ANN, MALLORY))
    quiet = await service.challenges.challenge(
        Place(GUILD + 1, 10), BOB, "hex", opponents=[ANN], first="opponent"
    )  # a server whose pages are off
    hidden = await service.challenges.challenge(
        Place(GUILD + 2, 10), BOB, "hex", opponents=[ANN], first="opponent"
    )
    hidden_game = (await service.challenges.accept(hidden.game.id, GUILD + 2, ANN)).game
    offered = await service.challenges.challenge(PLACE, BOB, "hex", opponents=[ANN])
    quiet_offer = await service.challenges.challenge(
        Place(GUILD + 1, 10), BOB, "hex", opponents=[ANN]
    )
    await service.challenges.challenge(PLACE, ANN, "hex", opponents=[BOB])  # ann's own
    await service.challenges.accept(quiet.game.id, GUILD + 1, ANN)
    mine = await service.queue.everywhere(ANN.id)
    waiting = [g.id for g in mine.on_move]
    assert sorted(waiting) == sorted([fast.id, slow.id, quiet.game.id, hidden_game.id])
    assert waiting[0] == fast.id and waiting[-1] == slow.id  # least time left first
    assert [g.id for g in mine.under_way] == [theirs.id]
    assert [g.id for g in mine.challenges] == [offered.game.id, quiet_offer.game.id]

    ann = await service.sessions.start(ANN, "bot")
    page = await page_as(web, "/", ann)
    assert page.index(f"Hex #{fast.id}") < page.index(f"Hex #{slow.id}")
    assert f'href="{urls.game(place, fast.id)}"' in page
    assert f'href="{urls.game(link, hidden_game.id)}"' in page  # her own game: linked
    assert f"<b>Hex #{quiet.game.id}</b>" in page and f"/g/{quiet.game.id}" not in page
    assert "This server's pages are off: it has no page here; play it on Discord." in page
    assert f'action="{urls.challenge_answer(place, offered.game.id, "accept")}"' in page
    assert f'action="{urls.challenge_answer(place, offered.game.id, "decline")}"' in page
    assert "This server's pages are off: answer it on Discord." in page
    assert f"/g/{quiet_offer.game.id}/accept" not in page
    raw = await (await web.get("/", headers={"Cookie": f"paperboard_session={ann.secret}"})).text()
    assert "<script>alert" not in raw and "&lt;script&gt;alert(1)&lt;/script&gt;" in raw
    # the link-mode address is hers to see, nobody else's
    carl = await service.sessions.start(CARL, "bot")
    others = await page_as(web, "/", carl)
    assert "No game is waiting for your move." in others and link.token not in others
    bob = await service.sessions.start(BOB, "bot")
    assert link.token in await page_as(web, "/", bob)  # bob plays there too
    # answered from the home page, which says so
    answered = await acted(web, urls.challenge_answer(place, offered.game.id, "accept"), ann)
    assert "begins." in answered and f"/g/{offered.game.id}/accept" not in answered


@pytest.mark.both_backends
async def test_the_home_page_lists_your_events_with_what_comes_next(
    service: GameService, web: Client
) -> None:
    place = await pages_on(service, guild=eventkit.GUILD)
    people = eventkit.PEOPLE[:3]
    event = await eventkit.open_event(service, "roundrobin", people)
    other = await eventkit.open_event(service, "swiss", people[1:], rounds=3)
    me = await service.sessions.start(people[0], "bot")
    page = await page_as(web, "/", me)
    assert f'href="{urls.event(place, event)}"' in page and f"/e/{other}" not in page
    assert "Not started: its organiser starts it." in page
    await service.events.start_tournament(event, eventkit.GUILD, eventkit.ORGANIZER)
    (found,) = await service.event_reads.events_of(people[0].id)
    assert found.next == "Every game is under way; it ends with the last of them."
    assert len(found.games) == 2
    page = await page_as(web, "/", me)
    for game_id in found.games:
        assert f'href="{urls.game(place, game_id)}">#{game_id}</a>' in page
    await service.events.leave_tournament(event, eventkit.GUILD, people[0])
    assert await service.event_reads.events_of(people[0].id) == ()
    assert re.search(
        r"You are in no event open or under way.", unescape(await page_as(web, "/", me))
    )
