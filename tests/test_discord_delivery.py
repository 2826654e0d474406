"""The real bot (discord.py) against the local fake Discord, when Discord does not take a post
at once: posts again by the outbox, answers to expired interactions, threads deleted, locked or
not found, a rematch before a slow post, no message content; reminders by DM, vacations, the
real command with a token; direct messages, private refusals, answers within Discord's limits,
and closing. Whole games, refusals and rate limits: tests/test_discord.py."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr

import engine
from bot.discordbot import PaperboardBot
from bot.discordbot.text import status_text
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
from bot.settings import Settings
from tests.conftest import PATIENCE_SECONDS, Clock
from tests.discordkit import (
    World,
    play_slash,
    play_typed,
    settled_game,
    start,
)
from tests.discordkit import world as world
from tests.fakediscord import FakeDiscord, User
from tests.fakediscord.fixtures import fake_discord_fixture  # noqa: F401  (the fixture)


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
