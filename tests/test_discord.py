"""The real bot (discord.py) against the local fake Discord: whole games of every game
through slash commands, buttons and thread messages; refusals, undo, resign, a restart,
rate limits, server errors and a dropped gateway."""

from __future__ import annotations

import asyncio
import contextlib
import io
import os
import random
import re
import signal
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from pydantic import SecretStr

import engine
from bot.discordbot import PaperboardBot, invite_url
from bot.discordbot.announce import CANNOT_READ
from bot.discordbot.client import PERMISSIONS
from bot.discordbot.text import status_text
from bot.discordbot.views import CHALLENGE_ACTIONS, ChallengeButton
from bot.service import (
    GameService,
    GameSummary,
    Place,
    Player,
    Refused,
    Result,
    SeatTaken,
    ServiceCode,
)
from bot.service.play.challenges import Challenges
from bot.settings import Settings
from bot.store import Database
from tests.conftest import PATIENCE_SECONDS, Clock
from tests.fakediscord import Channel, FakeDiscord, Guild, Message, User, run_bot
from tests.fakediscord.fixtures import fake_discord_fixture  # noqa: F401  (the fixture)

PLAYERS = ("ann", "bob", "cat")


@dataclass
class World:
    fake: FakeDiscord
    guild: Guild
    channel: Channel
    users: dict[str, User]
    settings: Settings
    service: GameService
    bot: PaperboardBot | None = None

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[PaperboardBot]:
        """The bot connected; a second `running()` after the first is a restart."""
        self.bot = PaperboardBot(self.service, self.settings)
        async with run_bot(self.fake, self.bot) as bot:
            yield bot

    def user_of(self, game: GameSummary, seat: int) -> User:
        pid = game.seats[seat].player_id
        return next(u for u in self.users.values() if u.id == pid)

    async def game(self, game_id: int) -> GameSummary:
        return await self.service.lookups.game(game_id, self.guild.id)

    def thread(self, game: GameSummary) -> Channel:
        return next(t for t in self.fake.threads if t.id == game.thread_id)


@pytest.fixture
async def world(fake_discord: FakeDiscord, tmp_path: Path, clock: Clock) -> AsyncIterator[World]:
    async with world_on(fake_discord, f"sqlite:///{tmp_path / 'bot.db'}", clock) as world:
        yield world


@contextlib.asynccontextmanager
async def world_on(fake_discord: FakeDiscord, url: str, clock: Clock) -> AsyncIterator[World]:
    """A server with a games channel and three players, and the service on `url`. Boards
    are drawn and the bot searches in threads of the test process (a spawned worker costs
    each `running()` about half a second of CPU): only tests/test_aiplay.py's `ai_world` has
    the bot play; worker processes are tested in tests/test_load.py and through `paperboard
    run`."""
    guild = fake_discord.create_guild("Paper club", channels=["games", "chat"])
    users = {name: fake_discord.create_user(name) for name in PLAYERS}
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None,
        database_url=url,
        dev_guild_id=guild.id,
        render_processes=0,
        ai_processes=0,
        discord_message_content=True,
    )
    service = GameService(await Database.open(url), settings, clock=clock)
    try:
        yield World(fake_discord, guild, guild.channel("games"), users, settings, service)
    finally:
        await service.close()


async def challenge(
    world: World, game: str, opponents: tuple[str, ...] = ("bob",), **extra: Any
) -> tuple[GameSummary, Message]:
    """ann challenges; the answer is the public challenge message with its buttons."""
    options: dict[str, Any] = {"game": game, "first": "challenger", **extra}
    for n, name in enumerate(opponents, 1):
        options["opponent" if n == 1 else f"opponent{n}"] = world.users[name]
    handle = await world.fake.slash(world.users["ann"], "challenge", options, channel=world.channel)
    message = await handle.reply()
    assert not message.ephemeral, message.content
    games = await world.service.lookups.games(world.guild.id, status="open")
    return games[0], message


async def start(
    world: World, game: str, opponents: tuple[str, ...] = ("bob",), **extra: Any
) -> GameSummary:
    summary, message = await challenge(world, game, opponents, **extra)
    assert "pb:c:accept" in " ".join(message.custom_ids)
    for name in opponents:
        handle = await world.fake.press(world.users[name], message, f"pb:c:accept:{summary.id}")
        await handle.ack()
    started = await settled_game(world, summary.id, lambda g: g.thread_id is not None, "a thread")
    assert started.status == "active"
    await world.fake.wait_for(lambda: bool(world.thread(started).messages), what="the first board")
    return started


async def settled_game(world: World, game_id: int, ready: Any, what: str) -> GameSummary:
    """The game once `ready(game)` holds: the bot writes to the database after Discord
    (within the fake's timeout, generous for a loaded machine)."""
    deadline = asyncio.get_running_loop().time() + world.fake.default_timeout
    while asyncio.get_running_loop().time() < deadline:
        game = await world.game(game_id)
        if ready(game):
            return game
        await asyncio.sleep(0.01)
    raise AssertionError(f"game #{game_id} never got {what}")


def png_of(message: Message) -> Image.Image:
    (data,) = message.files.values()
    return Image.open(io.BytesIO(data))


async def play_slash(world: World, game: GameSummary, text: str) -> Message:
    state = await world.service.lookups.state(game.id, world.guild.id)
    user = world.user_of(game, state.to_move or 0)
    handle = await world.fake.slash(user, "move", {"move": text}, channel=world.thread(game))
    return await handle.reply()


async def play_typed(world: World, game: GameSummary, text: str) -> None:
    state = await world.service.lookups.state(game.id, world.guild.id)
    user = world.user_of(game, state.to_move or 0)
    thread = world.thread(game)
    before = len(thread.messages)
    await world.fake.say(user, thread, text)
    await world.fake.wait_for(
        lambda: any(m.author.bot for m in thread.messages[before:]),
        what=f"the bot's answer to {text}",
    )


OPTIONS = {
    "hotwire": {"size": "5x5"},
    "hex": {"size": "5", "options": "swap=off"},
    "disthex": {"size": "5"},
    "shortcircuit": {"size": "3", "options": "max_turns=40"},
    "livewire": {"size": "17x14"},
    "intersections": {"size": "4"},
}


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


async def test_a_post_discord_could_not_take_is_posted_again_by_the_outbox(
    world: World, clock: Clock
) -> None:
    """Discord answers 503 to the board's post (discord.py does not retry a 503): the move
    stands, its announcement stays undelivered, and once its lease runs out the outbox
    posts the board with the next player's mention, once."""
    async with world.running() as bot:
        game = await start(world, "hex", size="5", options="swap=off")
        thread = world.thread(game)
        before = len(thread.messages)
        fault = world.fake.inject_error("POST /channels/{channel_id}/messages", status=503)
        mover = world.user_of(game, 0)
        await world.fake.say(mover, thread, "c3")
        await world.fake.wait_for(lambda: fault.hits == 1, what="the refused post")
        await bot.announcer.drain(PATIENCE_SECONDS)  # the announcer has given up on this try
        assert not any(m.author.bot for m in thread.messages[before:])
        assert (await world.game(game.id)).ply == 1
        clock.advance(minutes=2)  # the lease runs out
        assert await world.service.outbox.redeliver(bot.announcer.post) == 1
        posted = [m for m in thread.messages[before:] if m.author.bot]
        assert len(posted) == 1 and posted[0].attachments
        assert f"<@{world.user_of(game, 1).id}>" in posted[0].content
        assert await world.service.outbox.redeliver(bot.announcer.post) == 0


CALLBACK = "POST /interactions/{interaction_id}/{token}/callback"


def expire_the_next_answer(world: World) -> None:
    """The bot's next answer to an interaction comes too late (Discord's 3 s ran out)."""
    world.fake.inject_error(CALLBACK, status=404, code=10062, message="Unknown interaction")


async def test_what_an_expired_interaction_would_have_shown_is_posted_instead(
    world: World,
) -> None:
    """Under load the bot can answer after Discord's 3 s: the answer is refused (404) but
    what it did stands, and what the answer would have shown is posted at once (not a
    lease later by the outbox): a challenge message, a game's start, a move's board with
    the next player's mention."""
    async with world.running():
        expire_the_next_answer(world)
        await world.fake.slash(
            world.users["ann"],
            "challenge",
            {"game": "hex", "opponent": world.users["bob"]},
            channel=world.channel,
        )
        message = await world.fake.wait_for(
            lambda: next((m for m in world.channel.messages if m.custom_ids), None),
            what="the challenge message",
        )
        (summary,) = await world.service.lookups.games(world.guild.id, status="open")
        assert f"pb:c:accept:{summary.id}" in message.custom_ids

        expire_the_next_answer(world)
        await world.fake.press(world.users["bob"], message, f"pb:c:accept:{summary.id}")
        game = await settled_game(world, summary.id, lambda g: g.thread_id is not None, "a thread")
        await world.fake.wait_for(lambda: not message.components, what="the status edited")
        assert "pb:c:" not in " ".join(message.custom_ids)
        thread = world.thread(game)
        await world.fake.wait_for(lambda: bool(thread.messages), what="the first board")

        last = thread.messages[-1]
        expire_the_next_answer(world)
        await world.fake.slash(world.user_of(game, 0), "move", {"move": "c3"}, channel=thread)
        posted = await world.fake.wait_for_message(thread, after=last)
        assert posted.attachments and f"<@{world.user_of(game, 1).id}>" in posted.content
        assert (await world.game(game.id)).ply == 1


async def move_from_the_channel(world: World, game: GameSummary, seat: int, text: str) -> None:
    user = world.user_of(game, seat)
    handle = await world.fake.slash(
        user, "move", {"move": text, "game": game.id}, channel=world.channel
    )
    assert "played" in (await handle.reply()).content


async def test_a_game_whose_thread_is_deleted_or_locked_goes_on_in_a_new_one(
    world: World,
) -> None:
    """A moderator deletes a game's thread, or locks it: the next post opens a new thread
    where the player to move is told, with the board, instead of being lost while their
    clock runs. A thread merely archived (Discord's auto-archive) is used again."""
    async with world.running() as bot:
        game = await start(world, "hex", size="5", options="swap=off")
        first = world.thread(game)
        # a post refused for another reason (a missing permission): the thread is kept
        fault = world.fake.inject_error(
            "POST /channels/{channel_id}/messages", status=403, code=50013
        )
        await move_from_the_channel(world, game, 0, "c3")
        await world.fake.wait_for(lambda: fault.hits == 1, what="the refused post")
        await bot.announcer.drain(PATIENCE_SECONDS)
        assert len(world.fake.threads) == 1 and (await world.game(game.id)).thread_id == first.id
        world.fake.clear_faults()
        world.fake.close_thread(first)
        await move_from_the_channel(world, game, 1, "b2")
        posted = await world.fake.wait_for_message(first, after=first.messages[-1])
        assert not first.archived and posted.attachments

        world.fake.delete_channel(first)
        await move_from_the_channel(world, game, 0, "d4")
        game = await settled_game(
            world, game.id, lambda g: g.thread_id not in (None, first.id), "a new thread"
        )
        second = world.thread(game)
        posted = await world.fake.wait_for(lambda: next(iter(second.messages), None))
        assert posted.attachments and f"<@{world.user_of(game, 1).id}>" in posted.content
        assert "d4" in posted.content

        world.fake.close_thread(second, locked=True)
        await move_from_the_channel(world, game, 1, "e4")
        game = await settled_game(
            world, game.id, lambda g: g.thread_id not in (first.id, second.id), "a third thread"
        )
        posted = await world.fake.wait_for(lambda: next(iter(world.thread(game).messages), None))
        assert posted.attachments and f"<@{world.user_of(game, 0).id}>" in posted.content
        assert len(world.fake.threads) == 3  # one new thread for each one lost, no more
        # typed moves work in the new thread
        await play_typed(world, game, "e5")
        assert (await world.game(game.id)).ply == 5
        # no thread can be opened (the bot lost the permission): the channel itself
        world.fake.delete_channel(world.thread(game))
        world.fake.inject_error("POST /channels/{channel_id}/threads", status=403, code=50013)
        last = world.channel.messages[-1]
        await move_from_the_channel(world, game, 1, "a5")
        posted = await world.fake.wait_for_message(
            world.channel, after=last, predicate=lambda m: not m.ephemeral
        )
        assert f"/move game:{game.id}" in posted.content and posted.attachments


async def test_a_thread_discord_cannot_look_up_for_now_is_posted_in_later(
    world: World, clock: Clock
) -> None:
    """A 503 while the bot looks up an archived thread (no longer in its cache) is
    Discord out of reach, not the thread gone: the board is left to the outbox."""
    async with world.running() as bot:
        game = await start(world, "hex", size="5", options="swap=off")
        thread = world.thread(game)
        world.fake.close_thread(thread)
        await world.fake.wait_for(lambda: bot.get_channel(thread.id) is None, what="forgotten")
        fault = world.fake.inject_error("GET /channels/{channel_id}", status=503)
        before = len(thread.messages)
        await move_from_the_channel(world, game, 0, "c3")
        await world.fake.wait_for(lambda: fault.hits >= 1, what="the refused look-up")
        await bot.announcer.drain(PATIENCE_SECONDS)
        assert len(thread.messages) == before
        world.fake.clear_faults()
        clock.advance(minutes=2)  # the lease runs out
        assert await world.service.outbox.redeliver(bot.announcer.post) == 1
        posted = thread.messages[before:]
        assert len(posted) == 1 and posted[0].attachments


async def test_a_rematch_asked_in_the_thread_is_answered_before_the_slow_post(
    world: World,
) -> None:
    """/rematch in a game's thread posts the new challenge in the channel; when that post
    is slow the player still gets an answer within Discord's time."""
    async with world.running():
        game = await start(world, "hex", size="4", options="swap=off")
        await world.service.play.resign(
            game.id, world.guild.id, Player(world.users["bob"].id, "bob")
        )
        world.fake.inject_latency(1.0, "POST /channels/{channel_id}/messages", times=1)
        handle = await world.fake.slash(
            world.users["ann"], "rematch", {}, channel=world.thread(game)
        )
        answer = await handle.reply()
        assert answer.content == f"Rematch offered in <#{world.channel.id}>."
        await world.fake.wait_for(
            lambda: any(f"#{game.id + 1}" in m.content for m in world.channel.messages),
            what="the new challenge in the channel",
        )
        posted = next(m for m in world.channel.messages if f"#{game.id + 1}" in m.content)
        assert answer.id < posted.id  # the answer went first, the slow post after it


async def test_without_message_content_the_thread_says_use_move(world: World) -> None:
    world.settings = world.settings.model_copy(update={"discord_message_content": False})
    async with world.running():
        game = await start(world, "hex", size="4", options="swap=off")
        thread = world.thread(game)
        assert "/move" in thread.messages[0].content
        await world.fake.say(world.user_of(game, 0), thread, "b2")
        await world.fake.wait_for(
            lambda: any("cannot read" in m.content for m in thread.messages[1:])
        )
        assert (await world.game(game.id)).ply == 0
        assert engine.GAMES["hex"].title in thread.name


async def test_reminders_by_dm_and_a_loss_on_time(world: World, clock: Clock) -> None:
    bob = world.users["bob"]
    await world.service.preferences.player_settings(Player(bob.id, "bob"), reminders="dm")
    async with world.running() as bot:
        assert bot.scheduler is not None
        game = await start(world, "hex", size="5", options="swap=off", days_per_move="1")
        await play_slash(world, game, "c3")  # ann moved: bob has a day
        clock.advance(hours=23, minutes=30)  # past the one-hour reminder
        await bot.scheduler.tick()
        await world.fake.wait_for(lambda: bool(world.fake.dms(bob)), what="bob's DM reminder")
        reminder = world.fake.dms(bob)[-1].content
        assert f"/channels/{world.guild.id}/{game.thread_id}" in reminder
        clock.advance(hours=1)  # the deadline passes
        await bot.scheduler.tick()
        over = await world.game(game.id)
        assert over.status == "finished" and over.reason == "time" and over.winners == (0,)
        thread = world.thread(over)
        await world.fake.wait_for(
            lambda: any("on time" in m.content for m in thread.messages), what="the loss on time"
        )
        assert len(world.fake.dms(bob)) == 1  # reminded once


async def test_the_status_message_shows_a_player_on_vacation(world: World) -> None:
    async with world.running():
        game = await start(world, "hex", size="4", options="swap=off")
    bob = world.users["bob"]
    await world.service.preferences.player_settings(Player(bob.id, "bob"), vacation=True)
    shown = status_text(await world.game(game.id))
    assert f"<@{bob.id}> is on vacation" in shown


async def test_paperboard_run_with_a_token_starts_the_bot(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    """The command as an operator runs it: settings from the environment, Discord's
    endpoints from DISCORD_API_BASE / DISCORD_GATEWAY_URL, the bot on its shards."""
    guild = fake_discord.create_guild("Ops", channels=["games"])
    ann = fake_discord.create_user("ann")
    env = {
        **os.environ,
        "DISCORD_TOKEN": fake_discord.token,
        "DISCORD_API_BASE": fake_discord.api_base,
        "DISCORD_GATEWAY_URL": fake_discord.gateway_url,
        "DEV_GUILD_ID": str(guild.id),
        "DATABASE_URL": f"sqlite:///{tmp_path / 'ops.db'}",
        "PYTHONPATH": str(Path(__file__).resolve().parents[1]),
    }
    bot = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot.cli", "run", env=env, cwd=tmp_path,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
    )  # fmt: skip
    assert bot.stdout is not None
    logged: list[bytes] = []
    try:
        while not any(b"ready as" in line for line in logged):  # logs go to stdout
            line = await asyncio.wait_for(bot.stdout.readline(), PATIENCE_SECONDS)
            assert line, b"".join(logged).decode()[-2000:]
            logged.append(line)
        rules = await (
            await fake_discord.slash(ann, "rules", {"game": "hex"}, channel=guild.channel("games"))
        ).reply()
        assert "Hex" in rules.content
    finally:
        bot.send_signal(signal.SIGTERM)  # as docker stop and systemctl stop do
        rest, _ = await asyncio.wait_for(bot.communicate(), PATIENCE_SECONDS)
    assert bot.returncode == 0, rest.decode()[-2000:]
    assert b"Traceback" not in rest and b"stopping" in rest


# -- direct messages, refusals that stay private, answers within Discord's limits ---------------

IN_THE_SERVER = "Use this in the server where the game is."


def as_service(user: User) -> Player:
    return Player(user.id, user.username)


async def test_in_direct_messages_no_game_is_within_reach(world: World) -> None:
    ann, bob, cat = (world.users[name] for name in ("ann", "bob", "cat"))
    console = Place(0, 0)  # the console's pretend server: guild 0, as DMs were
    issued = await world.service.challenges.challenge(
        console, as_service(ann), "hex", opponents=[as_service(bob)]
    )
    await world.service.challenges.accept(issued.game.id, 0, as_service(bob))
    game_id = issued.game.id
    async with world.running() as bot:
        await bot.tree.sync()  # global commands: the ones Discord offers in DMs
        for user in (cat, ann):  # a stranger, and a player of that game
            dm = world.fake.dm_channel(user)
            challenge = await (
                await world.fake.slash(
                    user, "challenge", {"game": "hex", "opponent": bob}, channel=dm
                )
            ).reply()
            assert challenge.ephemeral and "in a server" in challenge.content
            for command, options in [
                ("board", {"game": game_id}),
                ("board", {}),
                ("move", {"move": "a1", "game": game_id}),
                ("resign", {"game": game_id}),
                ("abort", {"game": game_id}),
                ("undo", {"game": game_id}),
                ("rematch", {"game": game_id}),
                ("record", {"game": game_id}),
                ("record", {}),
                ("games", {}),
                ("rating", {}),
                ("leaderboard", {"game": "hex"}),
            ]:
                reply = await (await world.fake.slash(user, command, options, channel=dm)).reply()
                assert reply.ephemeral and reply.content == IN_THE_SERVER, (command, reply.content)
                assert not reply.files
            handle = await world.fake.autocomplete(
                user, "board", {"game": ""}, focused="game", channel=dm
            )
            assert await handle.wait_for_choices() == []
            rules = await (
                await world.fake.slash(user, "rules", {"game": "hex"}, channel=dm)
            ).reply()
            assert "Hex" in rules.content  # not about a game: fine anywhere
    assert (await world.service.lookups.game(game_id, 0)).ply == 0


async def test_record_refuses_privately(world: World) -> None:
    async with world.running():
        reply = await (
            await world.fake.slash(world.users["cat"], "record", {}, channel=world.channel)
        ).reply()
        assert reply.ephemeral and "no game" in reply.content.lower()
        missing = await (
            await world.fake.slash(
                world.users["cat"], "record", {"game": 999}, channel=world.channel
            )
        ).reply()
        assert missing.ephemeral and missing.content == "There is no game #999 here."


async def test_a_huge_option_value_still_gets_an_answer(world: World) -> None:
    async with world.running():
        options = {"game": "hex", "opponent": world.users["bob"], "options": "size=" + "9" * 5000}
        reply = await (
            await world.fake.slash(world.users["ann"], "challenge", options, channel=world.channel)
        ).reply()
        assert reply.ephemeral and reply.content.startswith("Hex option size")
        assert len(reply.content) <= 300


async def test_every_answer_fits_in_a_discord_message(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def long_refusal(*args: Any, **kwargs: Any) -> None:
        raise Refused("é" * 5000, code=ServiceCode.USAGE)

    monkeypatch.setattr(world.service.lookups, "games", long_refusal)
    async with world.running():
        reply = await (
            await world.fake.slash(world.users["ann"], "games", {}, channel=world.channel)
        ).reply()
        assert reply.ephemeral and 1000 < len(reply.content) <= 2000

        # a long answer of many lines (twenty conditional lines, a long /games) comes
        # whole, in several messages cut between lines
        lines = [f"line {n}: " + "x" * 40 for n in range(100)]

        async def long_listing(*args: Any, **kwargs: Any) -> None:
            raise Refused("\n".join(lines), code=ServiceCode.USAGE)

        monkeypatch.setattr(world.service.lookups, "games", long_listing)
        handle = await world.fake.slash(world.users["ann"], "games", {}, channel=world.channel)
        first = await handle.reply()
        await world.fake.wait_for(lambda: len(handle.followups) >= 2, what="the follow-ups")
        parts = [first, *handle.followups]
        assert all(p.ephemeral and len(p.content) <= 2000 for p in parts)
        assert "\n".join(p.content for p in parts).splitlines() == lines


async def test_closing_waits_for_announcements_under_way(service: GameService) -> None:
    settings = Settings(discord_token=SecretStr("x"), render_processes=0, _env_file=None)  # type: ignore[call-arg]
    bot = PaperboardBot(service, settings, schedule=False)
    issued = await service.challenges.challenge(
        Place(1, 10), Player(101, "ann"), "hex", opponents=[Player(102, "bob")]
    )
    edited: list[bool] = []
    editing = asyncio.Event()

    async def slow_edit(game: GameSummary, *, url: str | None = None) -> None:
        editing.set()
        await asyncio.sleep(0.2)  # an HTTP request in flight
        edited.append(bot.is_closed())

    bot.announcer.edit_status = slow_edit  # type: ignore[method-assign]
    taken = Result(issued.game, (SeatTaken(issued.game.id, Player(102, "bob")),))
    async with bot:  # leaving closes it, as run_bot does on SIGTERM
        publishing = asyncio.create_task(bot.announcer.publish(taken))
        await editing.wait()
    await publishing
    assert edited == [False]  # the edit went out before the session closed
