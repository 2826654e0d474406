"""A newcomer's first minute on Discord (the fake Discord): the thread's example move
plays, a near-move gets its refusal while chat stays chat, /help lists the commands by
task, a mention gets a pointer, and a server the bot joins is welcomed once."""

from __future__ import annotations

import logging
import re

import pytest

import engine
from bot.commands import COMMANDS
from bot.discordbot.help import POINTER, TASKS, HelpCog, help_text, welcome_text
from bot.discordbot.threads import BARE_COMMANDS
from bot.service import GameService
from bot.store import Database
from tests.discordkit import OPTIONS, World, start
from tests.discordkit import world as world
from tests.fakediscord import Channel, User
from tests.fakediscord.fixtures import fake_discord_fixture  # noqa: F401  (the fixture)
from tests.test_notation import CHAT, NEAR_MOVES

EXAMPLE = re.compile(r"for example `([^`]+)`")


def bot_answers(thread: Channel, since: int) -> list[str]:
    return [m.content for m in thread.messages[since:] if m.author.bot]


async def test_the_threads_example_is_a_move_that_plays(world: World) -> None:
    async with world.running():
        for name in ("hex", "disthex", "shortcircuit"):
            game = await start(world, name, **OPTIONS[name])
            thread = world.thread(game)
            found = EXAMPLE.search(thread.messages[0].content)
            assert found, thread.messages[0].content
            state = await world.service.lookups.state(game.id, world.guild.id)
            assert found[1] in state.legal_moves()
            await world.fake.say(world.user_of(game, state.to_move or 0), thread, found[1])
            await world.fake.wait_for(
                lambda thread=thread: any(m.files for m in thread.messages[1:] if m.author.bot),
                what=f"the board after {found[1]} in {name}",
            )
            assert (await world.game(game.id)).ply == state.ply + 1


async def test_near_moves_are_refused_and_chat_stays_chat_in_a_thread(world: World) -> None:
    """Each near-move of any game gets the one-sentence refusal; each chat line gets
    nothing (checked by a near-move after it being the next thing answered)."""
    async with world.running():
        game = await start(world, "hex", size="5", options="swap=off")
        thread = world.thread(game)
        mover, waiting = world.user_of(game, 0), world.user_of(game, 1)

        async def answered(user: User, text: str) -> str:
            before = len(thread.messages)
            await world.fake.say(user, thread, text)
            await world.fake.wait_for(lambda: bool(bot_answers(thread, before)), what=text)
            return bot_answers(thread, before)[0]

        # every near-move but "d5" and "D5", which are legal here (tested above: one plays)
        near = [line for line in NEAR_MOVES if line.lower() != "d5"]
        state = await world.service.lookups.state(game.id, world.guild.id)
        for chat, attempt in zip(CHAT, near, strict=False):
            await world.fake.say(mover, thread, chat)
            with pytest.raises(engine.IllegalMove) as refused:
                state.play(attempt)
            # the answer to the chat, had there been one, would have come first
            assert await answered(mover, attempt) == str(refused.value)
        assert "It is not your turn" in await answered(waiting, "d5 g3")
        await world.fake.say(waiting, thread, "good luck!")
        assert (await answered(mover, "e44")).startswith("There is no cell e44")
        assert (await world.game(game.id)).ply == 0


async def test_a_bare_command_word_is_pointed_to_its_slash_command(world: World) -> None:
    """Resign, undo, board alone, by the player to move or the one waiting, get the slash
    command (the game goes on); swap in a game without it is told so; chat stays chat."""
    async with world.running():
        game = await start(world, "hotwire", **OPTIONS["hotwire"])
        thread = world.thread(game)
        mover, waiting = world.user_of(game, 0), world.user_of(game, 1)

        async def answered(user: User, text: str) -> str:
            before = len(thread.messages)
            await world.fake.say(user, thread, text)
            await world.fake.wait_for(lambda: bool(bot_answers(thread, before)), what=text)
            return bot_answers(thread, before)[0]

        for user in (mover, waiting):
            for word in ("resign", "Resign!", "undo", "board"):
                await world.fake.say(user, thread, "resign?")  # asked of the opponent: chat
                pointer = await answered(user, word)
                assert pointer == BARE_COMMANDS[word.lower().rstrip("!")]
            assert await answered(user, "swap") == "There is no swap in Hot Wire."
        assert "/resign" in BARE_COMMANDS["resign"] and "confirm" in BARE_COMMANDS["resign"]
        assert (await world.game(game.id)).status == "active"
        assert (await world.game(game.id)).ply == 0


def test_each_slash_command_is_under_one_task() -> None:
    listed = [name for _, names in TASKS for name in names]
    on_discord = [command.name for command in COMMANDS if command.discord]
    assert sorted(listed) == sorted(on_discord)


async def test_help_lists_the_commands_by_task(world: World) -> None:
    async with world.running():
        asked = await world.fake.slash(world.users["ann"], "help", {}, channel=world.channel)
        first = await asked.reply()
        await world.fake.wait_for(
            lambda: "`/help`" in " ".join(m.content for m in [first, *asked.followups]),
            what="every part of the help",
        )
        said = "\n".join(m.content for m in [first, *asked.followups])
    assert first.ephemeral
    for task, _ in TASKS:
        assert f"**{task}**" in said
    for _, names in TASKS:
        assert all(f"`/{name}` " in said for name in names)
    assert "`/challenge` Challenge players to a game" in said
    assert [line for line in said.splitlines() if line] == [
        line for line in help_text().splitlines() if line
    ]


async def test_a_mention_gets_a_pointer_and_logs_no_error(
    world: World, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    async with world.running():
        before = len(world.channel.messages)
        await world.fake.say(world.users["ann"], world.channel, f"<@{world.fake.bot.id}> help")
        await world.fake.wait_for(
            lambda: bool(bot_answers(world.channel, before)), what="the pointer"
        )
        # a message that mentions no one is nobody's business
        await world.fake.say(world.users["bob"], world.channel, "help")
        await world.fake.say(world.users["ann"], world.channel, f"<@{world.fake.bot.id}> hi")
        await world.fake.wait_for(lambda: len(bot_answers(world.channel, before)) == 2)
    assert bot_answers(world.channel, before) == [POINTER, POINTER]
    assert "/help" in POINTER and "/challenge" in POINTER
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


async def test_a_server_the_bot_joins_is_welcomed_once_ever(world: World) -> None:
    async with world.running() as bot:
        joined = world.fake.create_guild("New club", channels=["general", "games"])
        general = joined.channel("general")
        await world.fake.wait_for(lambda: bool(general.messages), what="the welcome")
        (welcome,) = general.messages
        assert welcome.content == welcome_text()
        for said in ("/challenge", "/help", "/config", "Hex", "Hot Wire"):
            assert said in welcome.content
        # joining again (after being removed, say) posts nothing more
        guild = bot.get_guild(joined.id)
        assert guild is not None
        await HelpCog(bot.service, bot.announcer).on_guild_join(guild)
    assert not joined.channel("games").messages
    # and that holds after a restart: it is in the database
    restarted = GameService(await Database.open(world.settings.database_url), world.settings)
    try:
        assert not await restarted.preferences.first_welcome(joined.id)
        assert await restarted.preferences.first_welcome(world.guild.id)  # never welcomed so far
    finally:
        await restarted.close()
    assert len(general.messages) == 1
