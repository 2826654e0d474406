"""What the tests of the real bot against the fake Discord share: the world (a fake Discord
server, its channel and people, a service, the bot running on demand; fixture `world`),
challenges and games started through it, and moves by slash command or typed in a thread."""

from __future__ import annotations

import asyncio
import contextlib
import io
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from bot.discordbot import PaperboardBot
from bot.service import GameService, GameSummary
from bot.settings import Settings
from bot.store import Database
from tests.conftest import Clock
from tests.fakediscord import Channel, FakeDiscord, Guild, Message, User, run_bot

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
    each `running()` about half a second of CPU): only tests/aiplaykit.py's `ai_world` has
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
