"""The fake Discord against the real discord.py client: a tiny bot (tests/fakediscordkit.py)
plays through slash commands, buttons, modals, autocomplete, threads, DMs and messages; unknown
routes, waits that time out, and what endpoints.py patches in discord.py. Injected faults, the
gateway and shards: tests/test_fakediscord_faults.py."""

from __future__ import annotations

import importlib
import inspect
import tomllib

import aiohttp
import discord
import pytest
import yarl
from discord import app_commands

from tests.conftest import ROOT
from tests.fakediscord import FakeDiscord, FakeDiscordTimeout, point_discord_at, run_bot
from tests.fakediscord.fixtures import fake_discord_fixture  # noqa: F401  (the fixture)
from tests.fakediscordkit import PNG, PaperBot, fake_with_bot, users

# ---------------------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_login_sync_slash_reply_with_png_and_button_press() -> None:
    async with fake_with_bot() as (fake, bot):
        alice, _ = users(fake)
        games = next(iter(fake.guilds.values())).channel("games")
        assert {c["name"] for c in fake.commands()} >= {"board", "slow", "challenge", "move"}
        assert fake.requests_to("GET /users/@me") and fake.requests_to(
            "GET /oauth2/applications/@me"
        )
        assert fake.requests_to("PUT /applications/{application_id}/commands")
        assert fake.gateway.connections[0].compressor is not None  # zlib-stream frames

        handle = await fake.slash(alice, "board", {"size": 13}, channel=games)
        assert await handle.ack() == 4
        reply = await handle.reply()
        assert reply.content == "board 13"
        assert reply.channel is games and reply.author is fake.bot
        assert reply.files == {"board.png": PNG}
        assert reply.attachments[0].image_size == (3, 2)
        assert reply.custom_ids == ["board:resign", "board:redraw"]
        assert handle.attachment_latency is not None and handle.attachment_latency > 0
        # The bot can read back what it uploaded, from the fake's CDN.
        fetched = await bot.http.get_from_cdn(reply.attachments[0].url)
        assert fetched == PNG

        redraw = await fake.press(alice, reply, "board:redraw")
        assert await redraw.ack() == 6
        edited = await redraw.reply()
        assert edited is reply and reply.content == "redrawn"
        assert reply.attachments[0].image_size == (5, 5)

        resign = await fake.press(alice, reply, "board:resign")
        assert await resign.ack() == 7
        assert reply.content == "resigned" and reply.components == []
        assert [r.content for r in reply.revisions] == ["board 13", "redrawn", "resigned"]
        with pytest.raises(ValueError, match="no component"):
            await fake.press(alice, reply, "board:resign")


@pytest.mark.asyncio
async def test_select_reactions_followup_edits_and_history() -> None:
    async with fake_with_bot() as (fake, _):
        alice, _ = users(fake)
        games = next(iter(fake.guilds.values())).channel("games")
        said = await fake.say(alice, games, "hello")
        handle = await fake.slash(alice, "misc", channel=games)
        menu = await handle.reply()
        summary = await handle.followup(1)
        temp = handle.followups[0]
        assert temp.deleted and [r.content for r in temp.revisions] == ["temp", "temp2", "temp2"]
        assert summary.content == "menu | hello"  # newest first, deleted ones gone
        assert menu.reactions == {"\N{WHITE HEAVY CHECK MARK}": {fake.bot.id}}
        assert said.id < menu.id
        picked = await fake.select(alice, menu, "pick", ["havannah"])
        assert (await picked.reply()).content == "picked havannah"
        with pytest.raises(ValueError, match="not options"):
            await fake.select(alice, menu, "pick", ["chess"])


@pytest.mark.asyncio
async def test_fetch_routes_and_guild_commands() -> None:
    async with fake_with_bot() as (fake, bot):
        alice, _ = users(fake)
        guild = next(iter(fake.guilds.values()))
        fetched = await bot.fetch_guild(guild.id)
        assert fetched.name == "Club"
        channel = await bot.fetch_channel(guild.channel("games").id)
        assert isinstance(channel, discord.TextChannel) and channel.name == "games"
        assert (await bot.fetch_user(alice.id)).name == "alice"
        member = await bot.get_guild(guild.id).fetch_member(alice.id)
        assert member.id == alice.id
        assert (await bot.application_info()).id == fake.application_id
        live = bot.get_guild(guild.id)
        assert live is not None
        assert {c.name for c in await live.fetch_channels()} == {"games", "chat"}
        assert "@everyone" in {r.name for r in await live.fetch_roles()}
        assert await live.active_threads() == []
        later = fake.create_guild("Later")  # GUILD_CREATE to the connected bot
        joined = await fake.wait_for(lambda: bot.get_guild(later.id))
        assert joined.name == "Later"
        assert {c.name for c in await bot.tree.fetch_commands()} >= {"board", "move"}

        target = discord.Object(guild.id)
        bot.tree.clear_commands(guild=None)
        bot.tree.add_command(
            app_commands.Command(name="local", description="guild only", callback=_local)
        )
        bot.tree.copy_global_to(guild=target)
        synced = await bot.tree.sync(guild=target)
        assert "local" in {c.name for c in synced}
        assert [c["name"] for c in fake.commands(guild)] == [c.name for c in synced]
        handle = await fake.slash(alice, "local")
        assert handle.interaction.data["guild_id"] == str(guild.id)
        assert (await handle.reply()).content == "local"


async def _local(interaction: discord.Interaction) -> None:
    await interaction.response.send_message("local")


@pytest.mark.asyncio
async def test_defer_then_followup_replaces_the_thinking_message() -> None:
    async with fake_with_bot() as (fake, bot):
        alice, _ = users(fake)
        bot.slow_seconds = 0.05
        handle = await fake.slash(alice, "slow")
        assert await handle.ack() == 5
        assert handle.original is not None
        message = await handle.wait_for_attachment()
        assert message is handle.original and not message.loading
        assert message.content == "done" and message.files == {"slow.png": PNG}
        assert handle.reply_latency is not None and handle.reply_latency >= 0.05
        assert handle.ack_latency is not None and handle.ack_latency < handle.reply_latency


@pytest.mark.asyncio
async def test_thread_from_message_and_messages_in_it() -> None:
    async with fake_with_bot() as (fake, bot):
        alice, bob = users(fake)
        handle = await fake.slash(alice, "challenge", {"opponent": bob})
        reply = await handle.reply()
        assert reply.mentions == [bob]
        thread = await fake.wait_for(lambda: reply.thread)
        assert thread.name == "game vs bob" and thread.parent_id == reply.channel.id
        assert thread.id == reply.id  # Discord reuses the starter message's id.
        first = await fake.wait_for_message(thread, after=reply)
        assert first.content == "your move" and first.files == {"start.png": PNG}
        assert bob.id in thread.thread_members
        assert bot.get_channel(thread.id) is not None  # THREAD_CREATE reached the bot

        said = await fake.say(bob, thread, "ping d5 g3")
        pong = await fake.wait_for_message(thread, after=said)
        assert pong.content == "pong d5 g3"
        assert [m.content for m in bot.seen] == ["ping d5 g3"]

        # discord.py's own calls on the thread go to the fake too.
        live = bot.get_channel(thread.id)
        assert isinstance(live, discord.Thread)
        assert {m.id for m in await live.fetch_members()} == {fake.bot.id, bob.id}
        await live.edit(archived=True)
        assert thread.archived
        await fake.say(bob, thread, "back")  # posting unarchives an unlocked thread
        assert not thread.archived


@pytest.mark.asyncio
async def test_private_thread_without_message_and_ephemeral_reply() -> None:
    async with fake_with_bot() as (fake, _):
        alice, _ = users(fake)
        handle = await fake.slash(alice, "lobby")
        reply = await handle.reply()
        assert reply.ephemeral
        (thread,) = fake.threads
        assert thread.type == 12 and thread.name == "lobby"
        assert [m.content for m in thread.messages] == ["welcome"]
        assert reply.content == f"lobby: <#{thread.id}>"
        assert reply not in reply.channel.visible_messages()


@pytest.mark.asyncio
async def test_dm_to_the_invoking_user() -> None:
    async with fake_with_bot() as (fake, _):
        alice, _ = users(fake)
        handle = await fake.slash(alice, "whisper")
        await handle.reply()
        (dm,) = await fake.wait_for(lambda: fake.dms(alice))
        assert dm.content == "a secret" and dm.files == {"secret.png": PNG}
        assert dm.channel.is_dm and dm.channel.recipients == [alice]


@pytest.mark.asyncio
async def test_modal_and_autocomplete() -> None:
    async with fake_with_bot() as (fake, _):
        alice, _ = users(fake)
        opened = await fake.slash(alice, "rename")
        modal = await opened.wait_for_modal()
        assert modal["title"] == "Rename the game"
        submitted = await fake.submit_modal(alice, opened, {"name": "Friday game"})
        assert (await submitted.reply()).content == "renamed to Friday game"

        typing = await fake.autocomplete(alice, "move", {"cell": "a"}, focused="cell")
        assert [c["value"] for c in await typing.wait_for_choices()] == ["a1", "a2"]
        played = await fake.slash(alice, "move", {"cell": "b2"})
        assert (await played.reply()).content == "played b2"
        with pytest.raises(ValueError, match="requires"):
            await fake.slash(alice, "move")
        with pytest.raises(LookupError, match="not registered"):
            await fake.slash(alice, "nope")


@pytest.mark.asyncio
async def test_on_message_with_and_without_the_message_content_intent() -> None:
    async with fake_with_bot(bot=PaperBot(message_content=False)) as (fake, bot):
        alice, _ = users(fake)
        chat = next(iter(fake.guilds.values())).channel("chat")
        plain = await fake.say(alice, chat, "ping hidden")
        mentioned = await fake.say(alice, chat, f"{fake.bot.mention} hello")
        direct = await fake.say(alice, fake.dm_channel(alice), "ping in a dm")
        await fake.wait_for(lambda: len(bot.seen) == 3)
        assert [m.content for m in bot.seen] == ["", f"{fake.bot.mention} hello", "ping in a dm"]
        pong = await fake.wait_for_message(fake.dm_channel(alice), after=direct)
        assert pong.content == "pong in a dm"
        assert plain.content == "ping hidden" and mentioned.mentions == [fake.bot]

    async with fake_with_bot(bot=PaperBot(message_content=True)) as (fake, bot):
        alice, _ = users(fake)
        chat = next(iter(fake.guilds.values())).channel("chat")
        said = await fake.say(alice, chat, "ping visible")
        assert (await fake.wait_for_message(chat, after=said)).content == "pong visible"


@pytest.mark.asyncio
async def test_unknown_routes_are_logged_and_answered_404(fake_discord: FakeDiscord) -> None:
    fake = fake_discord
    fake.create_guild()
    async with run_bot(fake, PaperBot()) as bot:
        with pytest.raises(discord.NotFound) as caught:
            await bot.http.request(discord.http.Route("GET", "/voice/regions"))
        assert caught.value.status == 404
        assert fake.unknown_routes == ["GET /api/v10/voice/regions"]
    fake.unknown_routes.clear()


@pytest.mark.asyncio
async def test_wait_for_times_out_with_a_report(fake_discord: FakeDiscord) -> None:
    with pytest.raises(FakeDiscordTimeout, match="waiting for nothing"):
        await fake_discord.wait_for(lambda: False, 0.01, what="nothing")


def test_point_discord_at_checks_its_arguments() -> None:
    with pytest.raises(ValueError, match="must end with"):
        point_discord_at("http://127.0.0.1:1/api")
    with pytest.raises(ValueError, match="ws:// or wss://"):
        point_discord_at("http://127.0.0.1:1/api/v10", "http://127.0.0.1:1/gateway")


def test_discord_py_still_has_what_endpoints_py_patches(monkeypatch: pytest.MonkeyPatch) -> None:
    """point_discord_at rewrites discord.py internals; an upgrade that moves one fails here,
    naming it, rather than sending the bot to discord.com behind a fake or a proxy."""
    pinned = next(
        dependency
        for dependency in tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
            "dependencies"
        ]
        if dependency.startswith("discord.py")
    )

    def moved(name: str) -> str:
        return (
            f"discord.py {discord.__version__} moved {name}: bot/discordbot/endpoints.py "
            f"needs updating (it was checked against {pinned}, pyproject.toml)"
        )

    route = getattr(discord.http, "Route", None)
    assert isinstance(getattr(route, "BASE", None), str), moved("Route.BASE")
    assert route is not None
    monkeypatch.setattr(route, "BASE", "http://127.0.0.1:1/api/v10")
    assert route("GET", "/gateway").url == "http://127.0.0.1:1/api/v10/gateway", moved(
        "Route.BASE (Route no longer builds its URL from it)"
    )
    webhooks = importlib.import_module("discord.webhook.async_")  # interaction answers
    assert getattr(webhooks, "Route", None) is route, moved("the webhook adapter's Route")
    assert isinstance(getattr(discord.http, "INTERNAL_API_VERSION", None), int), moved(
        "http.INTERNAL_API_VERSION"
    )
    gateway = getattr(discord.gateway.DiscordWebSocket, "DEFAULT_GATEWAY", None)
    assert isinstance(gateway, yarl.URL), moved("DiscordWebSocket.DEFAULT_GATEWAY")
    get_bot_gateway = getattr(discord.http.HTTPClient, "get_bot_gateway", None)
    assert inspect.iscoroutinefunction(get_bot_gateway), moved("HTTPClient.get_bot_gateway")
    assert list(inspect.signature(get_bot_gateway).parameters) == ["self"], moved(
        "HTTPClient.get_bot_gateway (its parameters)"
    )


@pytest.mark.asyncio
async def test_an_enforced_nonce_sent_again_returns_the_first_message() -> None:
    """As Discord: the same nonce from the same author in the same channel within a few
    minutes gives back the message it created, when the request enforces the nonce."""
    async with fake_with_bot() as (fake, bot):
        games = next(c for c in fake.channels.values() if c.name == "games")
        chat = next(c for c in fake.channels.values() if c.name == "chat")
        live = bot.get_channel(games.id)
        first = await live.send("board", nonce="pb7t")  # discord.py enforces every nonce
        again = await live.send("board", nonce="pb7t")
        assert again.id == first.id and [m.content for m in games.messages] == ["board"]
        other = await live.send("board", nonce="pb8t")
        elsewhere = await bot.get_channel(chat.id).send("board", nonce="pb7t")
        assert len({first.id, other.id, elsewhere.id}) == 3
        url = f"{fake.api_base}/channels/{games.id}/messages"
        body = {"content": "board", "nonce": "pb9t"}  # not enforced: two messages
        async with aiohttp.ClientSession(headers={"Authorization": f"Bot {fake.token}"}) as session:
            for _ in range(2):
                async with session.post(url, json=body) as answer:
                    assert answer.status == 200
        assert [m.content for m in games.messages] == ["board"] * 4
