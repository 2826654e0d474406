"""A game page's live stream (bot/web/live.py) over HTTP, and the "game changed" signal
under it (bot/service/core/changes.py): this process's moves, another process's (NOTIFY
on PostgreSQL, the watched games' versions polled on SQLite), who may open it."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from aiohttp import ClientResponse
from aiohttp.test_utils import TestClient, TestServer

from bot.service import GameService
from bot.store import Database
from bot.web import live
from bot.web.app import create_app
from tests.conftest import ANN, BOB
from tests.webkit import GUILD, PLACE, Client, fetched, hex_game, pages_on, urls

#: A new position reaches an open stream within this (the poll's second included).
DELIVERY_SECONDS = 5.0


def live_path(place: Any, game_id: int) -> str:
    return urls.game(place, game_id) + "/live"


@asynccontextmanager
async def stream(client: Client, path: str, **headers: str) -> AsyncIterator[ClientResponse]:
    response = await client.get(path, headers=headers)
    try:
        assert response.status == 200, await response.text()
        assert response.headers["Content-Type"] == "text/event-stream"
        yield response
    finally:
        response.close()


async def next_block(response: ClientResponse, seconds: float = DELIVERY_SECONDS) -> str:
    """The next block of the stream (an event, a comment, the retry line)."""
    block = await asyncio.wait_for(response.content.readuntil(b"\n\n"), seconds)
    return block.decode()


async def next_event(response: ClientResponse, seconds: float = DELIVERY_SECONDS) -> dict[str, Any]:
    """The next `game` event's facts (its id checked to be its version)."""
    while True:
        block = await next_block(response, seconds)
        if block.startswith("event: game\n"):
            fields = dict(line.split(": ", 1) for line in block.strip().splitlines())
            facts: dict[str, Any] = json.loads(fields["data"])
            assert fields["id"] == facts["version"]
            return facts


@pytest.mark.both_backends
async def test_the_stream_sends_each_new_position(service: GameService, web: Client) -> None:
    place = await pages_on(service)
    game = await hex_game(service, ["b2"])
    async with stream(web, live_path(place, game.id)) as response:
        assert await next_block(response) == f"retry: {live.RETRY_MS}\n\n"
        first = await next_event(response)
        assert (first["ply"], first["status"], first["to_move"]) == (1, "active", "bob")
        await service.play.move(game.id, GUILD, BOB, "c3")
        second = await next_event(response)
        assert (second["ply"], second["to_move"]) == (2, "ann")
        assert second["version"] != first["version"]
        await service.play.resign(game.id, GUILD, ANN)
        over = await next_event(response)
        assert (over["ply"], over["status"], over["to_move"], over["deadline"]) == (
            2,
            "finished",
            None,
            None,
        )
        shown = over["version"]
    # back with the version it shows: nothing until the next change, a heartbeat meanwhile
    live.HEARTBEAT_SECONDS, before = 0.2, live.HEARTBEAT_SECONDS
    try:
        async with stream(web, live_path(place, game.id), **{"Last-Event-ID": shown}) as again:
            await next_block(again)  # retry
            assert (await next_block(again)).startswith(": ")
    finally:
        live.HEARTBEAT_SECONDS = before


@pytest.mark.both_backends
async def test_another_processs_move_reaches_the_stream(
    service: GameService, web: Client, database_url: str
) -> None:
    """PostgreSQL: the move's NOTIFY; SQLite: the watched game's version, polled."""
    place = await pages_on(service)
    game = await hex_game(service, ["b2"])
    other = GameService(await Database.open(database_url), service.records.settings)
    try:
        async with stream(web, live_path(place, game.id)) as response:
            assert (await next_event(response))["ply"] == 1
            await asyncio.sleep(0.1)  # the listening (or the first poll) has begun
            await other.play.move(game.id, GUILD, BOB, "c3")
            moved = await next_event(response)
            assert (moved["ply"], moved["to_move"]) == (2, "ann")
            # the page then fetched shows the move, though this process read it a moment ago
            assert 'data-ply="2"' in await (await fetched(web, urls.game(place, game.id))).text()
            await other.play.request_undo(game.id, GUILD, BOB)
            await other.play.answer_undo(game.id, GUILD, ANN, accept=True)
            undone = await next_event(response)
            assert (undone["ply"], undone["to_move"]) == (1, "bob")
    finally:
        await other.close()


@pytest.mark.both_backends
async def test_a_vacation_taken_or_ended_reaches_the_stream(
    service: GameService, web: Client
) -> None:
    """The board's caption says the clock stopped, then when it runs again: a new
    version of the position, with a new picture."""
    place = await pages_on(service)
    game = await hex_game(service, ["b2"])

    async def board() -> str:
        page = await (await fetched(web, urls.game(place, game.id))).text()
        return page.split('<img id="board" src="', 1)[1].split('"', 1)[0]

    async with stream(web, live_path(place, game.id)) as response:
        due, due_board = await next_event(response), await board()
        await service.preferences.player_settings(BOB, vacation=True)
        away = await next_event(response)
        assert (away["ply"], away["to_move"]) == (1, "bob")
        assert away["version"] != due["version"] and await board() != due_board
        await service.preferences.player_settings(BOB, vacation=False)
        back = await next_event(response)
        assert back["version"] == due["version"]  # due as before: no time passed meanwhile


async def test_a_stream_is_where_its_page_is(service: GameService, web: Client) -> None:
    game = await hex_game(service, ["b2"])
    off = await fetched(web, f"/s/{GUILD}/g/{game.id}/live")
    assert off.status == 404  # pages off
    place = await pages_on(service, "link")
    assert (await fetched(web, f"/s/{GUILD}/g/{game.id}/live")).status == 404  # the id is no key
    assert (await fetched(web, f"/l/{'A' * 22}/g/{game.id}/live")).status == 404
    assert (await fetched(web, live_path(place, game.id + 1))).status == 404
    async with stream(web, live_path(place, game.id)) as response:
        assert (await next_event(response))["ply"] == 1
    challenge = await service.challenges.challenge(
        PLACE, ANN, "hex", opponents=[BOB], options={"size": 4}
    )
    assert (await fetched(web, live_path(place, challenge.game.id))).status == 404


async def test_streams_are_capped_with_a_clear_answer(service: GameService) -> None:
    place = await pages_on(service)
    game = await hex_game(service, ["b2"])
    settings = service.records.settings.model_copy(
        update={"web_rate_limit": 0, "web_live_per_address": 1}
    )
    app = create_app(service, settings)
    async with TestClient(TestServer(app)) as client, stream(client, live_path(place, game.id)):
        refused = await fetched(client, live_path(place, game.id))
        assert refused.status == 429 and refused.headers["Retry-After"]
        assert "Too many live pages are open from your address" in await refused.text()
        assert app[live.STREAMS].open == 1
    assert app[live.STREAMS].open == 0  # the client went, its stream ended with it


async def test_the_streams_end_at_once_when_the_server_shuts_down(service: GameService) -> None:
    place = await pages_on(service)
    game = await hex_game(service, ["b2"])
    settings = service.records.settings.model_copy(update={"web_rate_limit": 0})
    server = TestServer(create_app(service, settings))
    async with TestClient(server) as client, stream(client, live_path(place, game.id)) as response:
        await next_event(response)
        began = asyncio.get_running_loop().time()
        await server.close()  # on_shutdown: every stream ends, no waiting out aiohttp's 60 s
        assert await response.content.read() == b""
        assert asyncio.get_running_loop().time() - began < DELIVERY_SECONDS
