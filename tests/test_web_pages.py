"""The server, event, player and rules pages (bot/web/pages.py over bot/service/web/lists.py):
status, escaping, 404s and 400s, privacy, paging and filters, a knockout's bracket, a round
robin's crosstable, a ladder's order, the rules cards and their pictures.

Route tests through aiohttp's test client (the `web` fixture) over a service on SQLite."""

from __future__ import annotations

import re

import pytest

from bot.service import GameService, Player
from bot.service.web import lists as webreads
from bot.web import urls
from tests.conftest import ANN, BOB, CAT, DAN
from tests.webkit import GUILD, PLACE, UP, Client, fetched, hex_game, pages_on, text_of

HOSTILE = '<script>alert(1)</script>"><img src=x onerror=alert(2)>\u202e'
MALLORY = Player(9005, HOSTILE)
EVE = Player(9006, "eve")


def links(page: str, pattern: str) -> list[str]:
    return re.findall(rf'href="({pattern})"', page)


async def test_the_server_page_lists_games_leaderboards_and_events(
    service: GameService, web: Client
) -> None:
    place = await pages_on(service)
    done = await hex_game(service, ["b2", "c3"], resign=True)  # rated: bob wins
    going = await hex_game(service, ["b2"], players=(CAT, DAN))
    never = await service.challenges.challenge(PLACE, ANN, "hex", opponents=[CAT])  # not accepted
    event = await service.events.create_tournament(
        PLACE, ANN, "hex", format="swiss", name="Spring", options={"size": "5"}, manages=True
    )
    page = await text_of(web, urls.server(place))
    assert f'href="{urls.game(place, done.id)}"' in page
    assert f'href="{urls.game(place, going.id)}"' in page
    assert urls.game(place, never.game.id) + '"' not in page  # a challenge has no page
    assert "\u2068bob\u2069 wins (resignation)" in page and "under way" in page  # isolated
    assert f'href="{urls.player(place, ANN.id)}"' in page
    assert f'href="{urls.event(place, event.tournament.id)}">Spring Hex</a>' in page
    assert re.search(r"<caption>Hex</caption>.*?bob</a></td><td>1\d\d\d\?", page, re.S)
    assert 'id="events"' in page and f'href="{urls.server(place)}#events"' in page
    assert f'href="{urls.rules()}"' in page
    # one list, one game
    finished = await text_of(web, urls.games(place, status="finished", game="hex"))
    assert urls.game(place, done.id) in finished and urls.game(place, going.id) not in finished
    assert "Leaderboards" not in finished
    other = await text_of(web, urls.games(place, game="livewire"))
    assert "No game under way." in other and "No finished game." in other


async def test_the_lists_page_by_key_and_filter_by_player(
    service: GameService, web: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(webreads, "PAGE", 2)
    place = await pages_on(service)
    ids = [(await hex_game(service, ["b2"], resign=True)).id for _ in range(3)]
    theirs = await hex_game(service, ["b2"], players=(CAT, DAN), resign=True)
    shown = links(await text_of(web, urls.games(place, status="finished")), r"[^\"]*/g/\d+")
    assert shown == [urls.game(place, theirs.id), urls.game(place, ids[2])]
    page = await text_of(web, urls.games(place, status="finished"))
    after = urls.games(place, status="finished", before=ids[2])
    assert f'href="{after.replace("&", "&amp;")}"' in page
    second = await text_of(web, after)
    assert links(second, r"[^\"]*/g/\d+") == [urls.game(place, i) for i in (ids[1], ids[0])]
    assert "Older finished" not in second  # the last page
    cat = await text_of(web, urls.games(place, player=CAT.id))
    assert links(cat, r"[^\"]*/g/\d+") == [urls.game(place, theirs.id)]
    assert "Games of <span" in cat and ">cat</span>" in cat


async def test_hostile_query_parameters_are_400_and_unknown_ids_404(
    service: GameService, web: Client
) -> None:
    place = await pages_on(service)
    game = await hex_game(service, ["b2"], players=(ANN, MALLORY), resign=True)
    await service.preferences.player_settings(BOB, web_profile=False)
    await hex_game(service, ["b2"])  # bob played here: hidden all the same
    server = urls.server(place)
    cases = {
        server + "?game=chess": 400,
        server + "?game=HEX": 400,
        server + "?game=" + "x" * 5000: 400,
        server + "?status=open": 400,
        server + "?player=abc": 400,
        server + "?player=" + "9" * 20: 400,
        server + "?player=%D9%A3": 400,
        server + "?player=-1": 400,
        server + "?before=5": 400,  # a next page is a page of one list
        server + "?status=active&before=x": 400,
        server + f"?player={EVE.id}": 404,  # never played here
        server + f"?player={BOB.id}": 404,  # hidden
        server + "?player=2": 404,  # the bot
        server + "?game=&status=&player=": 200,  # the empty form
        server + "?utm_source=discord": 200,
        f"/s/{GUILD}/e/{'9' * 20}": 404,
        f"/s/{GUILD}/e/{'9' * 21}": 404,
        f"/s/{GUILD}/e/1": 404,
        f"/s/{GUILD}/e/abc": 404,
        f"/s/{GUILD}/p/{'9' * 20}": 404,
        f"/s/{GUILD}/p/{EVE.id}": 404,
        f"/s/{GUILD}/p/{BOB.id}": 404,
        f"/s/{GUILD}/p/2": 404,
        f"/s/{GUILD}/p/--1": 404,
        "/rules/chess": 404,
        "/rules/" + "a" * 33: 404,
        "/rules/hex/end.png": 404,
        "/rules/chess/middle.png": 404,
        "/rules/hex/" + UP * 2 + "etc/passwd": 404,
    }
    for path, status in cases.items():
        response = await fetched(web, path)
        assert response.status == status, (path, response.status)
    assert (await fetched(web, urls.player(place, MALLORY.id))).status == 200
    assert (await fetched(web, urls.game(place, game.id))).status == 200


async def test_names_render_as_text_and_long_ones_stay_whole(
    service: GameService, web: Client
) -> None:
    place = await pages_on(service)
    long_name = Player(9007, "\u202eW" * 2500)
    await hex_game(service, ["b2", "c3"], players=(MALLORY, long_name), resign=True)
    await hex_game(service, ["b2"], players=(MALLORY, long_name))
    for path in (
        urls.server(place),
        urls.games(place, player=MALLORY.id),
        urls.player(place, MALLORY.id),
        urls.player(place, long_name.id),
    ):
        page = await text_of(web, path)
        assert "<script>alert" not in page and "<img src=x" not in page, path
        assert "&lt;script&gt;alert(1)&lt;/script&gt;&#34;&gt;&lt;img" in page, path
        # a right-to-left mark stays inside its name's element (isolated by the style)
        body = page[page.index("<body>") :]
        for at in (m.start() for m in re.finditer("\u202e", body)):
            tag = body[body.rindex("<", 0, at) : body.index(">", body.rindex("<", 0, at)) + 1]
            assert 'class="name"' in tag, (path, tag)
    assert "\u202eW" * 45 in page  # the name as stored (100 characters)
    title = await text_of(web, urls.player(place, MALLORY.id))
    assert re.search("<title>\u2068&lt;script&gt;alert\\(1\\)", title)


async def test_the_player_page(service: GameService, web: Client) -> None:
    place = await pages_on(service)
    await hex_game(service, ["b2", "c3"], resign=True)  # rated: bob wins
    going = await hex_game(service, ["b2"])
    issued = await service.challenges.challenge(
        PLACE, ANN, "hex", bots=["easy"], options={"size": 4}
    )
    await service.play.resign(issued.game.id, GUILD, ANN)  # a casual game lost to the bot
    page = await text_of(web, urls.player(place, ANN.id))
    assert '<h1 class="name">ann</h1>' in page
    assert re.search(r"Hex</a></td><td>1\d\d\d\?</td><td>0/1</td>", page)
    assert "Hex against the bot: easy 0 won 1 lost" in page
    assert f'href="{urls.game(place, going.id)}"' in page
    assert f'href="{urls.game(place, issued.game.id)}"' in page
    assert "Paperboard (easy)" in page and urls.player(place, 2) not in page  # the bot: text
    # a game's page links its players' pages (the bot's name is text)
    game = await text_of(web, urls.game(place, going.id))
    assert f'<a class="name" href="{urls.player(place, ANN.id)}">ann</a>' in game
    assert f'href="{urls.player(place, BOB.id)}"' in game
    against_bot = await text_of(web, urls.game(place, issued.game.id))
    assert urls.player(place, ANN.id) in against_bot and "/p/2" not in against_bot
    # a hidden profile: no page, no link, off the leaderboard; its games show its name
    await service.preferences.player_settings(ANN, web_profile=False)
    assert (await fetched(web, urls.player(place, ANN.id))).status == 404
    server = await text_of(web, urls.server(place))
    assert urls.player(place, ANN.id) not in server and '<span class="name">ann</span>' in server
    assert re.search(r"<caption>Hex</caption>.*?bob</a>", server, re.S)
    assert not re.search(r"<caption>Hex</caption>(?:(?!</table>).)*>ann<", server, re.S)
    game = await text_of(web, urls.game(place, going.id))  # read again: the link is gone
    assert "<bdi>ann</bdi>" in game and urls.player(place, ANN.id) not in game
    assert f'href="{urls.player(place, BOB.id)}"' in game
    # a player of another server has no page here, nor there while its pages are off
    elsewhere = await pages_on(service, guild=GUILD + 1)
    assert (await fetched(web, urls.player(elsewhere, BOB.id))).status == 404


async def test_pages_of_a_server_whose_pages_are_off_are_404_and_link_mode_works(
    service: GameService, web: Client
) -> None:
    game = await hex_game(service, ["b2"], resign=True)
    created = await service.events.create_tournament(
        PLACE, ANN, "hex", format="ladder", options={"size": "5"}, manages=True
    )
    event_id = created.tournament.id
    for path in (f"/s/{GUILD}/", f"/s/{GUILD}/e/{event_id}", f"/s/{GUILD}/p/{ANN.id}"):
        assert (await fetched(web, path)).status == 404, path
    place = await pages_on(service, "link")
    assert (await fetched(web, f"/s/{GUILD}/")).status == 404
    page = await fetched(web, urls.server(place))
    assert page.status == 200 and page.headers["X-Robots-Tag"] == "noindex, nofollow"
    body = await page.text()
    assert urls.game(place, game.id) in body and urls.event(place, event_id) in body
    assert f"/s/{GUILD}/" not in body  # every link keeps the token
    assert (await fetched(web, urls.player(place, ANN.id))).status == 200
    assert (await fetched(web, urls.event(place, event_id))).status == 200


async def test_games_under_way_show_no_analysis_hints_or_conditionals(
    service: GameService, web: Client
) -> None:
    place = await pages_on(service)
    going = await hex_game(service, ["b2"])
    await service.conditionals.add_conditional(going.id, GUILD, ANN, "c3 a4")
    for path in (urls.server(place), urls.player(place, BOB.id), urls.game(place, going.id)):
        page = re.sub(r"\?v=\w+", "", await text_of(web, path))  # static files' hashes
        assert not re.search(r"\ba4\b", page), path  # the line's move, nowhere
        assert "nalysis" not in page and "hint" not in page.lower(), path


async def _event(service: GameService, fmt: str, people: tuple[Player, ...]) -> int:
    """A new event of `fmt` (5x5 Hex) that `people` joined, in order."""
    created = await service.events.create_tournament(
        PLACE, ANN, "hex", format=fmt, options={"size": "5"}, manages=True
    )
    for person in people:
        await service.events.join_tournament(created.tournament.id, GUILD, person)
    return created.tournament.id


async def _finish_all(service: GameService, event_id: int, loser_seat: int = 1) -> None:
    """Every game of the event resigned by its `loser_seat`, round after round."""
    for _ in range(20):
        found = await service.web_lists.web_event(await pages_on(service), event_id, None)
        playing = [
            p.game_id
            for r in found.rounds
            for p in r.pairings
            if p.game_id is not None and p.state == "under way"
        ]
        if not playing:
            return
        for game_id in playing:
            game = await service.lookups.game(game_id, GUILD)
            loser = game.seats[loser_seat].player_id
            await service.play.resign(
                game_id, GUILD, Player(loser or 0, game.seats[loser_seat].name or "")
            )


async def test_a_knockout_shows_its_bracket_with_the_games(
    service: GameService, web: Client
) -> None:
    place = await pages_on(service)
    event_id = await _event(service, "knockout", (ANN, BOB, CAT, MALLORY))
    opened = await text_of(web, urls.event(place, event_id))
    assert "Entrants" in opened and "&lt;script&gt;" in opened and "<script>alert" not in opened
    await service.events.start_tournament(event_id, GUILD, ANN)
    await _finish_all(service, event_id)
    page = await text_of(web, urls.event(place, event_id))
    assert 'class="bracket"' in page and ">Semi-finals<" in page and ">Final<" in page
    bracket = page[page.index('class="bracket"') : page.index("</ol>\n  </div>")]
    games = re.findall(r'href="[^"]*/g/(\d+)"', bracket)
    assert len(games) == 3  # two semi-finals and the final, each linked
    assert bracket.count('class="won"') == 3
    assert "<script>alert" not in page
    # the rounds: round 2 by default (the last), round 1 asked
    assert ">Round 2</h3>" in page
    first = await text_of(web, urls.event_round(place, event_id, 1))
    assert ">Round 1</h3>" in first and first.count('<span class="muted">v</span>') == 2
    assert (await fetched(web, urls.event_round(place, event_id, 3))).status == 404
    assert (await fetched(web, urls.event(place, event_id) + "?round=x")).status == 400
    assert (await fetched(web, urls.event(place, event_id) + "?round=" + "9" * 7)).status == 400


async def test_a_round_robin_shows_standings_with_tiebreaks_and_its_crosstable(
    service: GameService, web: Client
) -> None:
    place = await pages_on(service)
    event_id = await _event(service, "roundrobin", (ANN, BOB, CAT))
    await service.events.start_tournament(event_id, GUILD, ANN)
    await _finish_all(service, event_id, loser_seat=0)
    page = await text_of(web, urls.event(place, event_id))
    assert "<h2>Standings</h2>" in page and "Sonneborn-Berger" in page
    assert "<caption>" not in page  # the tables' title is the page's
    assert '<abbr class="narrow" title="head to head">H2H</abbr>' in page  # a phone's header
    assert '<table class="cross">' in page
    cross = page[
        page.index('<table class="cross">') : page.index(
            "</table>", page.index('<table class="cross">')
        )
    ]
    assert cross.count('class="self">×</td>') == 3
    assert cross.count("<td>1</td>") == 3 and cross.count("<td>0</td>") == 3
    assert len(re.findall(r'href="[^"]*/g/\d+"', page)) == 3  # every round's game
    assert (await fetched(web, urls.event_round(place, event_id, 1))).status == 200


async def test_a_ladder_shows_its_order(service: GameService, web: Client) -> None:
    place = await pages_on(service)
    event_id = await _event(service, "ladder", (ANN, BOB, CAT))
    await service.events.start_tournament(event_id, GUILD, ANN)
    challenge = await service.ladders.ladder_challenge(event_id, GUILD, CAT, BOB)
    page = await text_of(web, urls.event(place, event_id))
    assert "The ladder" in page
    order = re.findall(r"<td>(\d)</td>\s*<td><a class=\"name\" href=\"[^\"]*\">(\w+)</a>", page)
    assert order == [("1", "ann"), ("2", "bob"), ("3", "cat")]
    assert "not accepted yet" in page
    assert challenge is not None


async def test_the_rules_pages(service: GameService, web: Client) -> None:
    index = await text_of(web, urls.rules())
    for name in ("hex", "hotwire", "livewire"):
        assert f'href="{urls.rules(name)}"' in index
    page = await text_of(web, urls.rules("hex"))
    assert "Options:" in page and "Against the bot (casual)" in page
    # each option a block of its own (a line wrapped on a phone keeps its indent)
    assert re.search(
        r'<p>Options:<span class="indent">size: [^<]+</span><span class="indent">swap', page
    )
    assert "Hex (2 players)" not in page and '<p class="muted">2 players</p>' in page
    for stage in webreads.STAGES:
        assert f'src="{urls.rules_picture("hex", stage)}"' in page
    picture = await fetched(web, urls.rules_picture("hex", "middle"))
    assert picture.status == 200 and picture.headers["Content-Type"] == "image/png"
    assert (await picture.read()).startswith(b"\x89PNG")
    again = await fetched(
        web, urls.rules_picture("hex", "middle"), **{"If-None-Match": picture.headers["ETag"]}
    )
    assert again.status == 304


async def test_a_swiss_round_shows_its_bye_and_a_league_its_divisions(
    service: GameService, web: Client
) -> None:
    place = await pages_on(service)
    swiss = await _event(service, "swiss", (ANN, BOB, CAT, DAN, EVE))
    await service.events.start_tournament(swiss, GUILD, ANN)
    page = await text_of(web, urls.event(place, swiss))
    assert "has the bye" in page and "Buchholz" in page and ">Round 1</h3>" in page
    assert page.count('<span class="muted">v</span>') == 2
    people = (ANN, BOB, CAT, DAN, EVE, MALLORY)
    league = await _event(service, "league", people)
    await service.events.start_tournament(league, GUILD, ANN)
    page = await text_of(web, urls.event(place, league))
    assert ">Season 1</h3>" in page and "division 1" in page and '<table class="cross">' in page
    assert "<caption>Season 1 · division 1</caption>" in page  # what adds to the title
    assert page.count('<span class="muted">v</span>') == 15  # six players, every game


async def test_events_called_off_or_empty_have_pages(service: GameService, web: Client) -> None:
    place = await pages_on(service)
    for fmt in ("knockout", "league", "swiss", "roundrobin", "ladder"):
        empty = await _event(service, fmt, ())
        assert "Nobody has entered yet" in await text_of(web, urls.event(place, empty)), fmt
        called_off = await _event(service, fmt, (ANN, BOB, CAT, DAN))
        await service.events.cancel_tournament(called_off, GUILD, ANN)
        assert "called off" in await text_of(web, urls.event(place, called_off)), fmt


async def test_a_game_called_off_is_listed_with_the_finished_ones(
    service: GameService, web: Client
) -> None:
    place = await pages_on(service)
    done = await hex_game(service, ["b2", "c3"], resign=True)
    called_off = await hex_game(service, [])
    await service.play.abort(called_off.id, GUILD, ANN)
    going = await hex_game(service, ["b2"])
    assert (await fetched(web, urls.game(place, called_off.id))).status == 200
    page = await text_of(web, urls.server(place))
    finished = page[page.index("<h2>Finished") : page.index('id="ratings"')]
    row = finished[finished.index(f'href="{urls.game(place, called_off.id)}"') :]
    assert "called off" in row[: row.index("</tr>")]
    assert f'href="{urls.game(place, done.id)}"' in finished
    assert f'href="{urls.game(place, going.id)}"' not in finished
    listed = links(await text_of(web, urls.games(place, status="finished")), r"[^\"]*/g/\d+")
    assert listed == [urls.game(place, called_off.id), urls.game(place, done.id)]
    active = await text_of(web, urls.games(place, status="active"))
    assert urls.game(place, called_off.id) + '"' not in active
