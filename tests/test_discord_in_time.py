"""Every interaction is answered within Discord's 3 s, however slow its work: a command or
button still unanswered a moment after its creation is deferred, and its answer follows to
the same people it would have gone to (a refusal never becomes public)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from bot.discordbot import errors
from bot.discordbot.errors import defer_delay
from tests.discordkit import World, start
from tests.discordkit import world as world
from tests.fakediscord.constants import (
    DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE,
    DEFERRED_UPDATE_MESSAGE,
)
from tests.fakediscord.fixtures import fake_discord_fixture  # noqa: F401  (the fixture)

#: The work's time here, against a defer after DEFERRED_AFTER: ordered by the event loop's
#: timers, not by how fast the machine is.
SLOW_SECONDS = 0.6
DEFERRED_AFTER = 0.2


@pytest.fixture(autouse=True)
def early_defer(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(errors, "DEFER_AFTER_SECONDS", DEFERRED_AFTER)


def slowed(monkeypatch: pytest.MonkeyPatch, owner: object, name: str) -> None:
    """`owner.name` (a coroutine function) takes SLOW_SECONDS longer: a busy host."""
    work = getattr(owner, name)

    async def slow(*args: Any, **kwargs: Any) -> Any:
        await asyncio.sleep(SLOW_SECONDS)
        return await work(*args, **kwargs)

    monkeypatch.setattr(owner, name, slow)


async def test_a_slow_answer_is_deferred_and_goes_to_the_same_people(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with world.running():
        game = await start(world, "hex", size="4", options="swap=off")
        slowed(monkeypatch, world.service.records.painter, "png")
        thread = world.thread(game)
        handle = await world.fake.slash(world.users["ann"], "move", {"move": "b2"}, channel=thread)
        board = await handle.reply()
        assert handle.callback_type == DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE
        assert board is handle.original  # the public "thinking..." became the board
        assert not board.ephemeral and board.files and "played b2" in board.content
        assert (await world.game(game.id)).ply == 1
        handle = await world.fake.slash(
            world.users["cat"], "board", {"game": game.id, "groups": True}
        )  # a picture not drawn yet, for cat only
        board = await handle.reply()
        assert handle.callback_type == DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE
        assert board is handle.original and board.ephemeral and board.files


async def test_a_refusal_after_a_public_defer_is_shown_to_the_asker_only(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with world.running():
        game = await start(world, "hex", size="4", options="swap=off")
        slowed(monkeypatch, world.service.play, "propose_move")
        thread = world.thread(game)
        handle = await world.fake.slash(world.users["ann"], "move", {"move": "z9"}, channel=thread)
        refused = await handle.reply()
        assert handle.callback_type == DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE
        assert refused.ephemeral and "z9" in refused.content
        placeholder = handle.original
        assert placeholder is not None and placeholder.deleted  # the public "thinking..."
        slowed(monkeypatch, world.service.lookups, "board")
        handle = await world.fake.slash(
            world.users["ann"], "board", {"public": True, "ply": 50}, channel=thread
        )
        refused = await handle.reply()
        assert refused.ephemeral and refused.content.endswith("there is no move 50.")
        assert handle.original is not None and handle.original.deleted


async def test_a_slow_button_is_deferred_and_its_message_edited(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with world.running():
        game = await start(world, "hex", size="4", options="swap=off")
        ann, thread = world.users["ann"], world.thread(game)
        settings = await world.fake.slash(ann, "settings", {"confirm_moves": True}, channel=thread)
        await settings.reply()
        slowed(monkeypatch, world.service.records.painter, "png")
        # the misclick guard's question is ephemeral: the public "thinking..." gives way
        handle = await world.fake.slash(ann, "move", {"move": "b2"}, channel=thread)
        asked = await handle.reply()
        assert handle.callback_type == DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE
        assert asked.ephemeral and asked.content.startswith(f"Play b2 in Hex #{game.id}?")
        confirmed = await world.fake.press(ann, asked, f"pb:m:yes:{game.id}:0:b2")
        edited = await confirmed.reply()
        assert confirmed.callback_type == DEFERRED_UPDATE_MESSAGE
        assert edited is asked and asked.content == f"You played b2 in Hex #{game.id}."
        assert not asked.custom_ids and (await world.game(game.id)).ply == 1


def test_the_defer_counts_from_the_interactions_creation() -> None:
    now, after = 1_000_000.0, errors.DEFER_AFTER_SECONDS
    assert defer_delay(now, now) == pytest.approx(after)
    # it waited for the event loop before its handler ran: only the rest of the time is left
    assert defer_delay(now - after * 0.75, now) == pytest.approx(after * 0.25)
    assert defer_delay(now - 5, now) == 0.0
    # a clock behind Discord's: never longer than the whole delay from now
    assert defer_delay(now + 2, now) == pytest.approx(after)
