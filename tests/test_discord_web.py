"""The web pages on Discord: "View on the web" link buttons on the game's posts, the
challenge message, standings and /record while the server's pages are on (none while
they are off; the token's address in link mode), and /web. The real bot against the fake
Discord (tests/discordkit.py's world)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.discordbot.weblinks import LABEL
from bot.service import GameSummary, Place, Player, WebPlace
from bot.web import urls
from bot.web.links import PAGES_OFF, PAGES_ON
from tests.conftest import WEB_URL, Clock
from tests.discordkit import World, play_slash, start, world_on
from tests.fakediscord import FakeDiscord, Message
from tests.fakediscord.fixtures import fake_discord_fixture  # noqa: F401  (the fixture)


@pytest.fixture
async def world(fake_discord: FakeDiscord, tmp_path: Path, clock: Clock) -> AsyncIterator[World]:
    """tests/discordkit.py's server, its pages reached at WEB_URL (PUBLIC_URL)."""
    async with world_on(fake_discord, f"sqlite:///{tmp_path / 'bot.db'}", clock) as world:
        world.settings = world.settings.model_copy(update={"public_url": WEB_URL})
        world.service.records.settings = world.settings
        yield world


def links(message: Message) -> list[str]:
    """The addresses of a message's link buttons (style 5) to pages (/web's sign-in link
    aside)."""
    return [b["url"] for b in message.buttons if b.get("style") == 5 and "/signin/" not in b["url"]]


def person(world: World, name: str) -> Player:
    user = world.users[name]
    return Player(user.id, name)


def web_button(message: Message) -> str | None:
    """The address of its "View on the web" button; None without one."""
    found = [b["url"] for b in message.buttons if b.get("label") == LABEL]
    assert len(found) <= 1, message.buttons
    return found[0] if found else None


async def pages_on(world: World, mode: str) -> WebPlace:
    place = (await world.service.preferences.guild_settings(world.guild.id, web=mode)).web_place
    assert place is not None and place.mode == mode
    return place


async def asked(world: World, name: str, options: dict[str, object], channel: object) -> Message:
    handle = await world.fake.slash(world.users["ann"], name, options, channel=channel)
    return await handle.reply()


def board_posts(world: World, game: GameSummary) -> list[Message]:
    return [m for m in world.thread(game).messages if m.author.bot and m.files]


async def test_off_no_button_on_a_public_server_each_post_links_the_games_page(
    world: World,
) -> None:
    async with world.running():
        # off: no link anywhere, and /web says how to turn the pages on
        quiet = await start(world, "hex", size="5", options="swap=off")
        status = next(m for m in world.channel.messages if m.id == quiet.message_id)
        assert not links(status) and not any(links(m) for m in world.thread(quiet).messages)
        said = await asked(world, "web", {}, world.thread(quiet))
        off = PAGES_OFF.format(*(typed.slash() for typed in PAGES_ON))
        assert said.ephemeral and said.content == off and "`/config web:link`" in off
        assert not links(said)
        reply = await play_slash(world, quiet, "a1")
        assert reply.files and not links(reply)

        place = await pages_on(world, "public")
        game = await start(world, "hex", size="5", options="swap=off")
        address = WEB_URL + urls.game(place, game.id)
        assert address == f"{WEB_URL}/s/{world.guild.id}/g/{game.id}"
        # the challenge message, once the game has a page (an open challenge has none)
        status = next(m for m in world.channel.messages if m.id == game.message_id)
        assert web_button(status) == address
        posted = str(status.revisions[0].components)  # the challenge, still open
        assert "pb:c:accept" in posted and "'style': 5" not in posted
        # the first board in the thread, a move's board answered in the thread
        assert [web_button(m) for m in board_posts(world, game)] == [address]
        reply = await play_slash(world, game, "a1")
        assert not reply.ephemeral and reply.files and web_button(reply) == address
        # /web in the thread: the game's page, to the asker only
        said = await asked(world, "web", {}, world.thread(game))
        assert said.ephemeral and f"<{address}>" in said.content
        assert links(said) == [address]
        # /web in the channel: the server's page; another game named: its page
        said = await asked(world, "web", {}, world.channel)
        assert links(said) == [f"{WEB_URL}/s/{world.guild.id}/"]
        said = await asked(world, "web", {"game": quiet.id}, world.channel)
        assert links(said) == [WEB_URL + urls.game(place, quiet.id)]
        # /record of the finished game
        await world.service.play.resign(game.id, world.guild.id, person(world, "ann"))
        said = await asked(world, "record", {"game": game.id}, world.channel)
        assert not said.ephemeral and web_button(said) == address
        # a challenge never accepted has no page yet: /web says so, nothing else changes
        await world.service.challenges.challenge(
            Place(world.guild.id, world.channel.id), person(world, "bob"), "hex", open_seats=1
        )
        waiting = (await world.service.lookups.games(world.guild.id, status="open"))[0]
        said = await asked(world, "web", {"game": waiting.id}, world.channel)
        assert said.ephemeral and "gets its page when it starts" in said.content
        # off again: no button on what follows
        await world.service.preferences.guild_settings(world.guild.id, web="off")
        said = await asked(world, "record", {"game": game.id}, world.channel)
        assert not links(said)


async def test_link_mode_links_hold_the_token_events_link_their_page(world: World) -> None:
    place = await pages_on(world, "link")
    assert place.token is not None
    prefix = f"{WEB_URL}/l/{place.token}"
    made = await world.service.events.create_tournament(
        Place(world.guild.id, world.channel.id),
        person(world, "ann"),
        "hex",
        format="swiss",
        manages=True,
    )
    event = made.tournament.id
    async with world.running():
        game = await start(world, "hex", size="5", options="swap=off")
        address = f"{prefix}/g/{game.id}"
        assert address == WEB_URL + urls.game(place, game.id)
        assert [web_button(m) for m in board_posts(world, game)] == [address]
        status = next(m for m in world.channel.messages if m.id == game.message_id)
        assert web_button(status) == address
        said = await asked(world, "web", {}, world.channel)
        assert links(said) == [f"{prefix}/"]  # never the server's id: it is no secret
        said = await asked(world, "web", {"event": event}, world.channel)
        assert links(said) == [f"{prefix}/e/{event}"]
        said = await asked(world, "tournament standings", {"event": event}, world.channel)
        assert not said.ephemeral and web_button(said) == f"{prefix}/e/{event}"
        said = await asked(world, "web", {"event": event + 1}, world.channel)
        assert said.ephemeral and not links(said)  # no such event: its sentence


async def test_web_gives_its_asker_a_one_time_sign_in_link(world: World) -> None:
    await pages_on(world, "public")
    async with world.running():
        said = await asked(world, "web", {}, world.channel)
    assert said.ephemeral and said.content.startswith("This server's games: ")
    [button] = [b for b in said.buttons if b.get("label") == "Sign in on the web"]
    assert button["url"].startswith(f"{WEB_URL}/signin/")
    assert f"<{button['url']}>" in said.content and "works once" in said.content
    secret = button["url"].rpartition("/")[2]
    assert await world.service.sessions.link_holder(secret) == person(world, "ann")
    opened = await world.service.sessions.redeem_link(secret)
    assert opened.session.via == "bot" and await world.service.sessions.link_holder(secret) is None
