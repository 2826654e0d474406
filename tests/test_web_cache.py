"""The game page's kept parts (the service's reading of a game, the page's move list)
are read and drawn again when the game changes."""

from __future__ import annotations

import pytest

from bot.service import GameService
from bot.service import web as service_web
from bot.web import urls
from tests.conftest import ANN, Clock
from tests.test_web import store_analysis
from tests.webkit import GUILD, Client, hex_game, pages_on, text_of


async def test_a_game_page_read_again_shows_what_changed_since(
    service: GameService, web: Client, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(service_web, "FRESH_SECONDS", 0.0)
    place = await pages_on(service)
    game = await hex_game(service, ["b2", "c3"])
    before = await text_of(web, urls.game(place, game.id, 1))
    assert "<span>a4</span>" not in before and 'data-ply="1" aria-current="step"' in before
    await service.move(game.id, GUILD, ANN, "a4")
    after = await text_of(web, urls.game(place, game.id, 1))
    assert "<span>a4</span>" in after and f'href="{urls.game(place, game.id, 3)}"' in after
    assert after.count('aria-current="step"') == 1
    over = (await service.resign(game.id, GUILD, ANN)).game
    assert "Analysis" not in await text_of(web, urls.game(place, game.id))
    await store_analysis(service, game.id, over.ply, clock)  # it comes after the game ends
    assert "Black threw away a win" in await text_of(web, urls.game(place, game.id))
