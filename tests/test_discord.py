"""The real bot (discord.py) against the local fake Discord: whole games of every game through
slash commands, buttons and thread messages; refusals, undo, resign, a restart, rate limits,
server errors and a dropped gateway. What happens when Discord does not take a post, direct
messages and Discord's limits: tests/test_discord_delivery.py."""

from __future__ import annotations

import random
import re

import pytest
from pydantic import SecretStr

import engine
from bot.discordbot import invite_url
from bot.discordbot.announce import CANNOT_READ
from bot.discordbot.client import PERMISSIONS
from bot.discordbot.views import CHALLENGE_ACTIONS, ChallengeButton
from bot.service import Player
from bot.service.play.challenges import Challenges
from bot.settings import Settings
from tests.discordkit import (
    OPTIONS,
    PLAYERS,
    World,
    challenge,
    play_slash,
    play_typed,
    png_of,
    settled_game,
    start,
)
from tests.discordkit import world as world
from tests.fakediscord.fixtures import fake_discord_fixture  # noqa: F401  (the fixture)


@pytest.mark.parametrize("name", list(OPTIONS))
async def test_a_whole_game_through_slash_commands_and_thread_messages(
    world: World, name: str
) -> None:
    opponents = ("bob", "cat") if name == "intersections" else ("bob",)
    async with world.running():
        game = await start(world, name, opponents, **OPTIONS[name])
        state = await world.service.lookups.state(game.id, world.guild.id)
        script = state.random_playout(random.Random(11)).moves
        index = 0
        while index < len(script):
            if index < state.ply:  # a pass the engine made
                index += 1
                continue
            text = script[index]
            if index % 3 == 2:
                await play_typed(world, game, text)
            else:
                reply = await play_slash(world, game, text)
                assert not reply.ephemeral and max(png_of(reply).size) <= 1024
                assert text in reply.content
            state = await world.service.lookups.state(game.id, world.guild.id)
            assert state.moves[: index + 1] == script[: index + 1]
            index += 1
        final = await world.game(game.id)
        assert final.status == "finished"
        thread = world.thread(final)
        await world.fake.wait_for(
            lambda: any(" is over: " in m.content or "draw" in m.content for m in thread.messages),
            what="the result in the thread",
        )
        status = next(m for m in world.channel.messages if m.id == final.message_id)
        await world.fake.wait_for(lambda: "after" in status.content, what="the status message edit")
        assert (
            "wins" in status.content
            or "share the win" in status.content
            or "Drawn" in status.content
        )
        assert not status.components  # the buttons are gone


async def test_refusals_are_ephemeral_and_change_nothing(world: World) -> None:
    async with world.running():
        game = await start(world, "hotwire", size="5x5")
        thread = world.thread(game)
        wrong = world.user_of(game, 1)
        handle = await world.fake.slash(wrong, "move", {"move": "a1 b2"}, channel=thread)
        reply = await handle.reply()
        assert reply.ephemeral and "not your turn" in reply.content
        mover = world.user_of(game, 0)
        handle = await world.fake.slash(mover, "move", {"move": "a1 a3"}, channel=thread)
        reply = await handle.reply()
        assert reply.ephemeral and reply.content == "a1-a3 passes over pin a2."
        handle = await world.fake.slash(
            world.users["cat"], "move", {"move": "a1 b2"}, channel=thread
        )
        assert "not playing" in (await handle.reply()).content
        handle = await world.fake.slash(mover, "move", {"move": "x" * 3000}, channel=thread)
        assert (await handle.reply()).ephemeral
        assert (await world.game(game.id)).ply == 0
        # chat in the thread is not a move, and gets no answer
        before = len(thread.messages)
        await world.fake.say(mover, thread, "good luck!")
        await world.fake.say(mover, thread, "a1 a3")  # reads as a move: refused in the thread
        await world.fake.wait_for(lambda: len(thread.messages) >= before + 3, what="the refusal")
        assert thread.messages[-1].content == "a1-a3 passes over pin a2."
        assert (await world.game(game.id)).ply == 0


#: Chat in a game's thread, none of it a move in any game (no game takes a typed pass).
THREAD_CHAT = ("hello there", "gg", "pass", "lol 123")


@pytest.mark.parametrize("name", sorted(engine.GAMES))
async def test_chat_in_a_thread_is_ignored_and_a_real_move_answered_in_every_game(
    world: World, name: str
) -> None:
    """The same in every game: chat, a typed pass included, gets no answer; a real
    move that is illegal (here: off the board) gets its refusal sentence."""
    opponents = PLAYERS[1 : engine.GAMES[name].min_players]
    async with world.running():
        game = await start(world, name, opponents, **OPTIONS[name])
        state = await world.service.lookups.state(game.id, world.guild.id)
        move = next(m for m in state.legal_moves() if re.search(r"\d", m))
        off_board = re.sub(r"\d+", "999", move)
        with pytest.raises(engine.IllegalMove) as refused:
            state.play(off_board)
        thread, mover = world.thread(game), world.user_of(game, state.to_move or 0)
        before = len(thread.messages)

        def answers() -> list[str]:
            return [m.content for m in thread.messages[before:] if m.author.bot]

        async def refused_again(answered: int) -> None:
            await world.fake.say(mover, thread, off_board)
            await world.fake.wait_for(lambda: len(answers()) > answered, what="the refusal")

        for answered, chat in enumerate(THREAD_CHAT):
            await world.fake.say(mover, thread, chat)
            await refused_again(answered)  # answered after the chat: the chat was handled
        await refused_again(len(THREAD_CHAT))  # and no late answer to the last chat
        assert answers() == [str(refused.value)] * (len(THREAD_CHAT) + 1)
        assert (await world.game(game.id)).ply == 0


async def test_decline_cancel_and_open_seats(world: World) -> None:
    async with world.running():
        summary, message = await challenge(world, "hex", size="5")
        stranger = await world.fake.press(world.users["cat"], message, f"pb:c:decline:{summary.id}")
        assert (await stranger.reply()).ephemeral
        handle = await world.fake.press(world.users["bob"], message, f"pb:c:decline:{summary.id}")
        await handle.reply()  # the message edited (a slow press is deferred first)
        assert "declined" in message.content and not message.components
        handle = await world.fake.slash(
            world.users["ann"],
            "challenge",
            {"game": "intersections", "open_seats": 2},
            channel=world.channel,
        )
        open_message = await handle.reply()
        game_id = max(g.id for g in await world.service.lookups.games(world.guild.id))
        assert f"pb:c:join:{game_id}" in open_message.custom_ids
        for name in ("bob", "cat"):
            await (
                await world.fake.press(world.users[name], open_message, f"pb:c:join:{game_id}")
            ).reply()
        assert (await world.game(game_id)).status == "active"


async def test_undo_with_buttons_and_resign(world: World) -> None:
    async with world.running():
        game = await start(world, "hotwire", size="5x5")
        thread = world.thread(game)
        await play_slash(world, game, "a1-b2")
        ann, bob = world.user_of(game, 0), world.user_of(game, 1)
        reply = await (await world.fake.slash(ann, "undo", {}, channel=thread)).reply()
        assert reply.ephemeral
        await world.fake.wait_for(
            lambda: any("pb:u:yes" in " ".join(m.custom_ids) for m in thread.messages)
        )
        ask = next(m for m in thread.messages if "pb:u:yes" in " ".join(m.custom_ids))
        (custom_id,) = [c for c in ask.custom_ids if c.startswith("pb:u:yes")]
        refused = await world.fake.press(ann, ask, custom_id)
        assert (await refused.reply()).ephemeral
        await (await world.fake.press(bob, ask, custom_id)).reply()
        assert (await world.game(game.id)).ply == 0
        assert not ask.components  # answered: the buttons are gone
        # a request the game has moved past: its buttons say so and show the board
        await play_slash(world, game, "a1-b2")
        await (await world.fake.slash(ann, "undo", {}, channel=thread)).reply()
        await play_slash(world, game, "c3-d4")  # bob moves instead of answering
        asks = [m for m in thread.messages if any(c.startswith("pb:u:yes") for c in m.custom_ids)]
        (custom_id,) = [c for c in asks[-1].custom_ids if c.startswith("pb:u:yes")]
        stale_reply = await (await world.fake.press(bob, asks[-1], custom_id)).reply()
        assert stale_reply.ephemeral and "moved on" in stale_reply.content and stale_reply.files
        # resigning asks first, on a message only the resigner sees
        ask = await (await world.fake.slash(bob, "resign", {}, channel=thread)).reply()
        assert ask.ephemeral and ask.content.startswith("Resign Hot Wire #")
        at = (await world.game(game.id)).ply
        assert ask.custom_ids == [f"pb:r:yes:{game.id}:{at}", f"pb:r:no:{game.id}:{at}"]
        await (await world.fake.press(bob, ask, f"pb:r:no:{game.id}:{at}")).reply()
        assert ask.content == f"You did not resign game #{game.id}." and not ask.components
        assert (await world.game(game.id)).status == "active"
        ask = await (await world.fake.slash(bob, "resign", {}, channel=thread)).reply()
        await (await world.fake.press(bob, ask, f"pb:r:yes:{game.id}:{at}")).reply()
        assert ask.content == f"You resigned Hot Wire #{game.id}."
        final = await world.game(game.id)
        assert final.status == "finished" and final.winners == (0,)


async def test_resign_is_refused_at_once_to_a_bystander_and_in_a_game_over(
    world: World,
) -> None:
    """No confirmation is asked of someone who could not resign: /abort and /undo refuse
    at once too."""
    async with world.running():
        game = await start(world, "hotwire", size="5x5")
        thread = world.thread(game)
        asked = {"game": game.id}
        reply = await (await world.fake.slash(world.users["cat"], "resign", asked)).reply()
        assert reply.ephemeral and reply.content == "You are not playing in this game."
        assert not reply.components
        bob = world.user_of(game, 1)
        await world.service.play.resign(game.id, world.guild.id, Player(bob.id, "bob"))
        reply = await (await world.fake.slash(bob, "resign", {}, channel=thread)).reply()
        assert reply.ephemeral and reply.content == "This game is over." and not reply.components


async def test_buttons_and_games_survive_a_restart(world: World) -> None:
    async with world.running():
        summary, message = await challenge(world, "hex", size="4", options="swap=off")
    async with world.running():  # a new process: nothing kept in memory
        handle = await world.fake.press(world.users["bob"], message, f"pb:c:accept:{summary.id}")
        await handle.ack()
        game = await settled_game(world, summary.id, lambda g: g.thread_id is not None, "a thread")
        reply = await play_slash(world, game, "b2")
        assert reply.files
    async with world.running():
        reply = await play_slash(world, game, "c3")
        assert "played c3" in reply.content


async def test_other_commands_answer(world: World) -> None:
    async with world.running():
        game = await start(world, "hex", size="4", options="swap=off")
        thread = world.thread(game)
        ann = world.users["ann"]
        asked = await world.fake.slash(ann, "board", {"public": True}, channel=thread)
        board = await asked.reply()
        assert not board.ephemeral and board.files
        asked = await world.fake.slash(ann, "board", {"public": True, "ply": 50}, channel=thread)
        refused = await asked.reply()
        assert refused.ephemeral and refused.content.endswith("there is no move 50.")
        listing = await (await world.fake.slash(ann, "games", {}, channel=world.channel)).reply()
        assert f"#{game.id} Hex" in listing.content
        rules = await (
            await world.fake.slash(ann, "rules", {"game": "disthex"}, channel=world.channel)
        ).reply()
        assert "Disthex" in rules.content and "Ishii" in rules.content
        settings = await (
            await world.fake.slash(
                ann,
                "settings",
                {"reminders": "dm", "time_zone": "Europe/Paris", "web_profile": False},
                channel=world.channel,
            )
        ).reply()
        assert "Europe/Paris" in settings.content and "web profile off" in settings.content
        with pytest.raises(PermissionError):  # hidden from members without Manage Server
            await world.fake.slash(ann, "config", {"rated": False}, channel=world.channel)
        owner = world.fake.owner
        config = await (
            await world.fake.slash(
                owner, "config", {"rated": False, "web": "link"}, channel=world.channel
            )
        ).reply()
        assert "rated games off" in config.content
        assert re.search(
            r"pages on the web by link only \(never indexed\): http://\S+/l/", config.content
        )
        handle = await world.fake.autocomplete(
            ann, "move", {"move": "a"}, focused="move", channel=thread
        )
        choices = await handle.wait_for_choices()
        assert choices and all(c["value"].startswith("a") for c in choices) and len(choices) <= 25
        # a picture in the thread is chat, not an empty move
        before = len(thread.messages)
        await world.fake.say(ann, thread, "", files={"shot.png": b"\x89PNG"})
        await play_slash(world, game, "b2")
        assert not [m for m in thread.messages[before:] if CANNOT_READ in m.content]
        record = await world.fake.slash(ann, "record", {"game": game.id}, channel=world.channel)
        message = await record.wait_for_attachment()
        assert any(name.endswith(".gif") for name in message.files)


def test_the_invite_link_asks_for_exactly_the_needed_permissions() -> None:
    token = SecretStr("MTIzNDU2Nzg5MDEyMzQ1Njc4.x.y")  # the id 123456789012345678, base64
    url = invite_url(Settings(_env_file=None, discord_token=token))  # type: ignore[call-arg]
    assert "client_id=123456789012345678" in url
    assert f"permissions={PERMISSIONS.value}" in url and "applications.commands" in url
    assert PERMISSIONS.create_public_threads and not PERMISSIONS.administrator


def test_challenge_buttons_dispatch_through_their_table() -> None:
    """Each action's button carries its label and calls its use case; the custom_id
    template accepts exactly the table's actions (so a new row needs no other edit)."""
    calls = {
        "accept": Challenges.accept,
        "decline": Challenges.decline,
        "join": Challenges.join,
        "cancel": Challenges.cancel,
    }
    assert {action: row.use_case for action, row in CHALLENGE_ACTIONS.items()} == calls
    for action, row in CHALLENGE_ACTIONS.items():
        button = ChallengeButton(action, 42)
        assert button.item.label == row.label and button.custom_id == f"pb:c:{action}:42"
        assert button.template.fullmatch(button.custom_id)
    assert not ChallengeButton("join", 42).template.fullmatch("pb:c:state:42")


async def test_the_bot_survives_429_500_and_a_dropped_gateway(world: World) -> None:
    async with world.running():
        game = await start(world, "hex", size="5", options="swap=off")
        world.fake.inject_rate_limit(
            "POST /interactions/{interaction_id}/{token}/callback", times=1, retry_after=0.05
        )
        reply = await play_slash(world, game, "c3")
        assert reply.files
        world.fake.inject_error("POST /channels/{channel_id}/messages", status=500, times=1)
        await play_typed(world, game, "b2")
        await world.fake.drop_gateway()
        reply = await play_slash(world, game, "d4")
        assert "played d4" in reply.content
        assert (await world.game(game.id)).ply == 3
