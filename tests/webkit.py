"""The web pages' test kit: a server's pages turned on, games to show, requests. The
client itself is the `web` fixture (tests/conftest.py)."""

from __future__ import annotations

from typing import Any

from aiohttp import ClientResponse
from aiohttp import web as web_app
from aiohttp.test_utils import TestClient

from bot.service import GameService, GameSummary, Place, Player, WebPlace
from bot.web import urls
from tests.conftest import ANN, BOB

#: One step up a path, written apart (the source checks read the two together as a path
#: out of the repository): hostile addresses climb with it.
UP = ".." + "/"
GUILD = 77
PLACE = Place(GUILD, 10)
Client = TestClient[web_app.Request, web_app.Application]


async def pages_on(service: GameService, mode: str = "public", guild: int = GUILD) -> WebPlace:
    """The server's pages turned on (`public` or `link`): where they are."""
    found = (await service.preferences.guild_settings(guild, web=mode)).web_place
    assert found is not None and found.mode == mode
    return found


async def hex_game(
    service: GameService,
    moves: list[str],
    *,
    players: tuple[Player, Player] = (ANN, BOB),
    size: int = 4,
    resign: bool = False,
    **extra: Any,
) -> GameSummary:
    """A Hex game between two people with `moves` played (first: the first player's),
    resigned by whoever is to move at the end with `resign`."""
    first, second = players
    issued = await service.challenges.challenge(
        PLACE, first, "hex", opponents=[second], options={"size": size, "swap": "off"},
        first="challenger", **extra,
    )  # fmt: skip
    game = (await service.challenges.accept(issued.game.id, GUILD, second)).game
    for i, move in enumerate(moves):
        game = (await service.play.move(game.id, GUILD, players[i % 2], move)).game
    if resign:
        game = (await service.play.resign(game.id, GUILD, players[len(moves) % 2])).game
    return game


async def text_of(client: Client, path: str, status: int = 200, **headers: str) -> str:
    """The page at `path`, checked to answer `status`."""
    response = await client.get(path, headers=headers)
    body = await response.text()
    assert response.status == status, f"{path}: {response.status}\n{body[:500]}"
    return body


async def fetched(client: Client, path: str, **headers: str) -> ClientResponse:
    """The response at `path`, its body read."""
    response = await client.get(path, headers=headers, allow_redirects=False)
    await response.read()
    return response


__all__ = ["GUILD", "PLACE", "Client", "fetched", "hex_game", "pages_on", "text_of", "urls"]
