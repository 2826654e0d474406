"""The game page's kept parts (the service's reading of a game, the page's move list)
are read and drawn again when the game changes; a board asked by its version is
answered from the kept reading; a reading under way when what it reads changes is not
kept nor given to those who ask after the change; the caches keep within their memory
budgets."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from bot.service import GameService, SizedCache
from bot.service.web import pages as service_web
from bot.web import urls
from bot.web.site import Site
from tests.conftest import ANN, Clock
from tests.test_web import store_analysis
from tests.webkit import GUILD, Client, fetched, hex_game, pages_on, text_of


async def test_a_game_page_read_again_shows_what_changed_since(
    service: GameService, web: Client, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(service_web, "FRESH_SECONDS", 0.0)
    place = await pages_on(service)
    game = await hex_game(service, ["b2", "c3"])
    before = await text_of(web, urls.game(place, game.id, 1))
    assert "<span>a4</span>" not in before and 'data-ply="1" aria-current="step"' in before
    await service.play.move(game.id, GUILD, ANN, "a4")
    after = await text_of(web, urls.game(place, game.id, 1))
    assert "<span>a4</span>" in after and f'href="{urls.game(place, game.id, 3)}"' in after
    assert after.count('aria-current="step"') == 1
    over = (await service.play.resign(game.id, GUILD, ANN)).game
    assert "Analysis" not in await text_of(web, urls.game(place, game.id))
    await store_analysis(service, game.id, over.ply, clock)  # it comes after the game ends
    assert "Black threw away a win" in await text_of(web, urls.game(place, game.id))


async def test_a_board_asked_by_its_version_reads_nothing(
    service: GameService, web: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    place = await pages_on(service)
    game = await hex_game(service, ["b2", "c3"])
    page = await text_of(web, urls.game(place, game.id))
    versioned = urls.prefix(place) + f"/g/{game.id}" + re.findall(r"/board/1\.png\?v=\w+", page)[0]
    monkeypatch.setattr(service_web, "FRESH_SECONDS", 0.0)  # the reading is old
    await service.preferences.guild_settings(GUILD + 1, web="public")
    elsewhere = f"/s/{GUILD + 1}/g/{game.id}/board/1.png" + versioned.split(".png")[1]
    assert (await fetched(web, elsewhere)).status == 404  # not that server's game

    async def no_read(*_: object) -> None:
        raise AssertionError("read again")

    monkeypatch.setattr(service.web, "_read_game", no_read)
    board = await fetched(web, versioned)
    assert board.status == 200 and "immutable" in board.headers["Cache-Control"]
    tag = board.headers["ETag"]
    assert (await fetched(web, versioned, **{"If-None-Match": tag})).status == 304
    with pytest.raises(AssertionError, match="read again"):  # without its version: read
        await service.web.web_board(place, game.id, 1)


def paused_once(
    read: Callable[..., Awaitable[Any]],
) -> tuple[Callable[..., Awaitable[Any]], asyncio.Event, asyncio.Event]:
    """`read`, whose first call waits, once it has read, until `go_on` is set (`done`
    says it is waiting)."""
    done, go_on = asyncio.Event(), asyncio.Event()

    async def paused(*args: Any, **kwargs: Any) -> Any:
        found = await read(*args, **kwargs)
        if not done.is_set():
            done.set()
            await go_on.wait()
        return found

    return paused, done, go_on


@pytest.mark.both_backends
async def test_a_game_read_while_it_changes_is_read_again(
    service: GameService, monkeypatch: pytest.MonkeyPatch
) -> None:
    place = await pages_on(service)
    game = await hex_game(service, ["b2", "c3"])
    paused, done, go_on = paused_once(service.records.timed_moves)
    monkeypatch.setattr(service.records, "timed_moves", paused)
    first = asyncio.create_task(service.web.web_game(place, game.id))
    await done.wait()  # read: two moves
    await service.play.move(game.id, GUILD, ANN, "a4")
    asked_after = asyncio.create_task(service.web.web_game(place, game.id))
    await asyncio.sleep(0.01)
    go_on.set()
    assert len((await first).record) == 2
    assert len((await asked_after).record) == 3  # not the reading begun before the move
    assert len((await service.web.web_game(place, game.id)).record) == 3  # nor kept


async def test_a_place_read_while_its_pages_turn_off_is_not_kept(
    service: GameService, monkeypatch: pytest.MonkeyPatch
) -> None:
    await pages_on(service)
    service.web.forget_places()
    paused, done, go_on = paused_once(service.web._read_web_place)
    monkeypatch.setattr(service.web, "_read_web_place", paused)
    first = asyncio.create_task(service.web.web_place(GUILD))
    await done.wait()  # read: the pages are on
    await service.preferences.guild_settings(GUILD, web="off")
    go_on.set()
    assert await first is not None
    assert await service.web.web_place(GUILD) is None


def test_a_sized_cache_forgets_the_least_recently_used_beyond_its_budget() -> None:
    cache: SizedCache[str, str] = SizedCache(10, len)
    cache.keep("a", "xxxx")
    cache.keep("b", "yyyy")
    assert cache.get("a") == "xxxx"  # now the most recent
    cache.keep("c", "zzzz")  # 12 bytes: the least recent, b, goes
    assert cache.get("b") is None and cache.get("a") == "xxxx" and cache.bytes == 8
    cache.keep("a", "x")  # kept again: counted once
    assert cache.bytes == 5 and len(cache) == 2
    cache.forget("c")
    assert cache.bytes == 1 and cache.get("c") is None
    cache.keep("big", "w" * 50)  # one value over the budget is still kept, alone
    assert len(cache) == 1 and cache.get("big") is not None


def test_both_caches_take_their_budget_from_web_cache_mb(service: GameService) -> None:
    settings = service.records.settings.model_copy(update={"web_cache_mb": 3})
    assert Site(service, settings).drawn.budget == 3 * 2**20
    assert (
        service.web._web_games.budget
        == service.records.settings.web_cache_mb * 2**20
        == 128 * 2**20
    )
