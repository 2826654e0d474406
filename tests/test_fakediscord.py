"""The fake Discord against the real discord.py client: a tiny bot defined here plays through
slash commands, buttons, modals, autocomplete, threads, DMs, messages and injected faults."""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import inspect
import io
import struct
import tomllib
import zlib
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import discord
import pytest
import yarl
from discord import app_commands
from discord.ext import commands

from tests.conftest import ROOT
from tests.fakediscord import (
    FakeDiscord,
    FakeDiscordTimeout,
    discord_pointed_at,
    point_discord_at,
    run_bot,
)
from tests.fakediscord.fixtures import fake_discord_fixture  # noqa: F401  (the fixture)


def tiny_png(width: int = 3, height: int = 2) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    raw = b"".join(b"\x00" + b"\xff\x00\x00" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw))
        + chunk(b"IEND", b"")
    )


PNG = tiny_png()


def png_file(name: str, data: bytes = PNG) -> discord.File:
    return discord.File(io.BytesIO(data), name)


class BoardView(discord.ui.View):
    def __init__(self) -> None:
        super().__init__(timeout=None)

    @discord.ui.button(label="Resign", custom_id="board:resign", style=discord.ButtonStyle.danger)
    async def resign(
        self, interaction: discord.Interaction, button: discord.ui.Button[Any]
    ) -> None:
        await interaction.response.edit_message(content="resigned", view=None)

    @discord.ui.button(label="Redraw", custom_id="board:redraw")
    async def redraw(
        self, interaction: discord.Interaction, button: discord.ui.Button[Any]
    ) -> None:
        await interaction.response.defer()
        await interaction.edit_original_response(
            content="redrawn", attachments=[png_file("board.png", tiny_png(5, 5))]
        )


class PickView(discord.ui.View):
    @discord.ui.select(
        custom_id="pick",
        options=[discord.SelectOption(label=x, value=x) for x in ("hex", "havannah", "y")],
    )
    async def pick(self, interaction: discord.Interaction, select: discord.ui.Select[Any]) -> None:
        await interaction.response.send_message(f"picked {select.values[0]}")


class RenameModal(discord.ui.Modal, title="Rename the game"):
    name: discord.ui.TextInput[Any] = discord.ui.TextInput(label="New name", custom_id="name")

    async def on_submit(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(f"renamed to {self.name.value}")


class PaperBot(commands.Bot):
    """Everything a slash-command game bot does, in miniature."""

    def __init__(self, *, message_content: bool = True, **options: Any) -> None:
        intents = discord.Intents.default()
        intents.message_content = message_content
        super().__init__(command_prefix="!", intents=intents, **options)
        self.seen: list[discord.Message] = []
        self.errors: list[BaseException] = []
        self.slow_seconds = 0.0
        self.add_commands()

    async def setup_hook(self) -> None:
        self.add_view(BoardView())
        await self.tree.sync()

    async def on_message(self, message: discord.Message) -> None:
        if message.author.bot:
            return
        self.seen.append(message)
        if message.content.startswith("ping"):
            await message.channel.send(f"pong {message.content[4:].strip()}".strip())

    def add_commands(self) -> None:
        tree = self.tree

        @tree.command(description="Show the board")
        @app_commands.describe(size="board size")
        async def board(interaction: discord.Interaction, size: int = 11) -> None:
            await interaction.response.send_message(
                f"board {size}", file=png_file("board.png"), view=BoardView()
            )

        @tree.command(description="A slow render: defer, then follow up")
        async def slow(interaction: discord.Interaction) -> None:
            await interaction.response.defer(thinking=True)
            await asyncio.sleep(self.slow_seconds)
            await interaction.followup.send("done", file=png_file("slow.png"))

        @tree.command(description="Challenge someone in a thread")
        async def challenge(interaction: discord.Interaction, opponent: discord.User) -> None:
            await interaction.response.send_message(f"{opponent.mention}, you are challenged")
            message = await interaction.original_response()
            thread = await message.create_thread(name=f"game vs {opponent.name}")
            await thread.add_user(opponent)
            await thread.send("your move", file=png_file("start.png"))

        @tree.command(description="Open a private thread without a message")
        async def lobby(interaction: discord.Interaction) -> None:
            assert isinstance(interaction.channel, discord.TextChannel)
            thread = await interaction.channel.create_thread(name="lobby")
            await thread.send("welcome")
            await interaction.response.send_message(f"lobby: {thread.mention}", ephemeral=True)

        @tree.command(description="Whisper")
        async def whisper(interaction: discord.Interaction) -> None:
            await interaction.user.send("a secret", file=png_file("secret.png"))
            await interaction.response.send_message("sent", ephemeral=True)

        @tree.command(description="Rename")
        async def rename(interaction: discord.Interaction) -> None:
            await interaction.response.send_modal(RenameModal())

        @tree.command(description="Make a move")
        async def move(interaction: discord.Interaction, cell: str) -> None:
            await interaction.response.send_message(f"played {cell}")

        @move.autocomplete("cell")
        async def move_cells(
            interaction: discord.Interaction, current: str
        ) -> list[app_commands.Choice[str]]:
            cells = ["a1", "a2", "b1", "b2"]
            return [app_commands.Choice(name=c, value=c) for c in cells if c.startswith(current)]

        @tree.command(description="Post to the channel")
        async def post(interaction: discord.Interaction, text: str) -> None:
            await interaction.response.defer(ephemeral=True)
            assert isinstance(interaction.channel, discord.abc.Messageable)
            try:
                await interaction.channel.send(text)
            except discord.HTTPException as error:
                self.errors.append(error)
                await interaction.followup.send(f"error {error.status} {error.code}")
                return
            await interaction.followup.send("posted")

        @tree.command(description="Menus, reactions, follow-up edits, history")
        async def misc(interaction: discord.Interaction) -> None:
            await interaction.response.send_message("menu", view=PickView())
            menu = await interaction.original_response()
            await menu.add_reaction("\N{WHITE HEAVY CHECK MARK}")
            temp = await interaction.followup.send("temp", wait=True)
            await temp.edit(content="temp2")
            await temp.delete()
            assert isinstance(interaction.channel, discord.abc.Messageable)
            history = [m.content async for m in interaction.channel.history(limit=10)]
            await interaction.followup.send(" | ".join(history))

        @tree.command(description="Sleep past Discord's 3 s deadline")
        async def late(interaction: discord.Interaction) -> None:
            await asyncio.sleep(self.slow_seconds)
            try:
                await interaction.response.send_message("too late")
            except discord.NotFound as error:
                self.errors.append(error)


class ShardedPaperBot(PaperBot, commands.AutoShardedBot):
    pass


@contextlib.asynccontextmanager
async def fake_with_bot(
    *, bot: commands.Bot | None = None, **options: Any
) -> AsyncIterator[tuple[FakeDiscord, Any]]:
    async with FakeDiscord(**options) as fake:
        with discord_pointed_at(fake):
            fake.create_guild("Club", channels=["games", "chat"])
            fake.create_user("alice")
            fake.create_user("bob")
            async with run_bot(fake, bot or PaperBot()) as running:
                yield fake, running
        assert not fake.internal_errors, fake.internal_errors


def users(fake: FakeDiscord) -> tuple[Any, Any]:
    by_name = {u.username: u for u in fake.users.values()}
    return by_name["alice"], by_name["bob"]


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
async def test_privileged_intent_not_enabled_in_the_portal() -> None:
    async with FakeDiscord(privileged_intents=()) as fake:
        with discord_pointed_at(fake):
            fake.create_guild()
            with pytest.raises(discord.PrivilegedIntentsRequired):
                async with run_bot(fake, PaperBot(message_content=True)):
                    pass


@pytest.mark.asyncio
async def test_rate_limit_is_retried() -> None:
    async with fake_with_bot() as (fake, bot):
        alice, _ = users(fake)
        fault = fake.inject_rate_limit("POST /channels/{channel_id}/messages", retry_after=0.05)
        handle = await fake.slash(alice, "post", {"text": "hello"})
        assert (await handle.followup()).content == "posted"
        sends = fake.requests_to("POST /channels/{}/messages")
        assert [(r.status, r.fault) for r in sends] == [(429, "ratelimit"), (200, None)]
        assert sends[1].started - sends[0].finished >= 0.04  # type: ignore[operator]
        assert fault.hits == 1 and not bot.errors


@pytest.mark.asyncio
async def test_rate_limit_on_the_interaction_callback_is_retried() -> None:
    async with fake_with_bot() as (fake, _):
        alice, _ = users(fake)
        fake.inject_rate_limit("POST /interactions/{id}/{token}/callback", retry_after=0.02)
        handle = await fake.slash(alice, "move", {"cell": "a1"})
        assert (await handle.reply()).content == "played a1"
        statuses = [r.status for r in fake.requests_to("POST /interactions/{}/{}/callback")]
        assert statuses == [429, 200]


@pytest.mark.asyncio
async def test_server_error_is_retried() -> None:
    async with fake_with_bot() as (fake, bot):
        alice, _ = users(fake)
        fake.inject_error("POST /channels/{channel_id}/messages", status=500)
        handle = await fake.slash(alice, "post", {"text": "hello"})
        assert (await handle.followup(timeout=5)).content == "posted"  # discord.py sleeps 1 s
        statuses = [r.status for r in fake.requests_to("POST /channels/{}/messages")]
        assert statuses == [500, 200] and not bot.errors


@pytest.mark.asyncio
async def test_discord_errors_reach_the_bot_with_their_codes() -> None:
    async with fake_with_bot() as (fake, bot):
        alice, _ = users(fake)
        handle = await fake.slash(alice, "post", {"text": "x" * 2001})
        assert (await handle.followup()).content == "error 400 50035"
        fake.inject_error(
            "POST /channels/{}/messages", status=403, code=50013, message="Missing Permissions"
        )
        handle = await fake.slash(alice, "post", {"text": "hi"})
        assert (await handle.followup()).content == "error 403 50013"
        assert isinstance(bot.errors[-1], discord.Forbidden)


@pytest.mark.asyncio
async def test_the_three_second_rule_and_double_acknowledgement() -> None:
    async with fake_with_bot(interaction_ack_timeout=0.05) as (fake, bot):
        alice, _ = users(fake)
        bot.slow_seconds = 0.1
        late = await fake.slash(alice, "late")
        await fake.wait_for(lambda: bot.errors)
        assert isinstance(bot.errors[0], discord.NotFound) and bot.errors[0].code == 10062
        assert late.callback_type is None

        fake.interaction_ack_timeout = 3.0  # Discord's: a prompt answer is in time on a busy box
        handle = await fake.slash(alice, "move", {"cell": "a1"})
        await handle.ack()
        url = f"{fake.api_base}/interactions/{handle.id}/{handle.interaction.token}/callback"
        body = {"type": 4, "data": {"content": "again"}}
        async with aiohttp.ClientSession() as session, session.post(url, json=body) as answer:
            assert answer.status == 400
            assert (await answer.json())["code"] == 40060


@pytest.mark.asyncio
async def test_slash_command_in_a_dm_and_closed_dms() -> None:
    async with fake_with_bot() as (fake, bot):
        _, bob = users(fake)
        dm = fake.dm_channel(bob)
        handle = await fake.slash(bob, "move", {"cell": "b2"}, channel=dm)
        assert handle.interaction.payload["context"] == 1
        assert (await handle.reply()).channel is dm
        bob.dms_open = False
        handle = await fake.slash(bob, "post", {"text": "hi"}, channel=dm)
        assert (await handle.followup()).content == "error 403 50007"
        assert isinstance(bot.errors[-1], discord.Forbidden)


@pytest.mark.asyncio
async def test_dropped_gateway_is_resumed_and_missed_events_replayed() -> None:
    async with fake_with_bot() as (fake, bot):
        alice, _ = users(fake)
        resumed = asyncio.Event()

        async def on_resumed() -> None:
            resumed.set()

        bot.add_listener(on_resumed)
        (session,) = fake.sessions
        assert await fake.drop_gateway() == 1
        # Sent while the bot is disconnected: kept for the RESUME replay.
        handle = await fake.slash(alice, "move", {"cell": "a2"})
        assert (await handle.reply()).content == "played a2"
        assert session.resumes == 1 and fake.sessions == [session]
        first, second = fake.gateway.connections
        assert (first.path, second.path) == ("/gateway", "/resume")
        assert handle.interaction.sent_at is not None
        assert handle.interaction.sent_at < second.opened_at  # delivered by the RESUME replay
        await asyncio.wait_for(resumed.wait(), 1)

        assert await fake.drop_gateway(abort=True) == 1  # TCP cut, no close frame
        handle = await fake.slash(alice, "move", {"cell": "b1"})
        assert (await handle.reply()).content == "played b1"
        assert session.resumes == 2


@pytest.mark.asyncio
async def test_invalid_session_makes_the_bot_identify_again_on_the_default_gateway() -> None:
    async with fake_with_bot() as (fake, _):
        alice, _ = users(fake)
        (old,) = fake.sessions
        await fake.invalidate_session()
        await fake.wait_for(
            lambda: fake.sessions and fake.sessions[0] is not old and fake.sessions[0].ready
        )
        assert [c.path for c in fake.gateway.connections] == ["/gateway", "/gateway"]
        handle = await fake.slash(alice, "move", {"cell": "a1"})
        assert (await handle.reply()).content == "played a1"

        await fake.request_reconnect()  # op 7: close and RESUME
        await fake.wait_for(lambda: fake.sessions[0].resumes == 1)


@pytest.mark.asyncio
async def test_plain_text_frames_and_heartbeats() -> None:
    async with fake_with_bot(gateway_compression=False, heartbeat_interval=0.05) as (fake, _):
        alice, _ = users(fake)
        (session,) = fake.sessions
        assert fake.gateway.connections[0].query["compress"] == "zlib-stream"
        assert fake.gateway.connections[0].compressor is None
        await fake.wait_for(lambda: session.heartbeats >= 3)
        handle = await fake.slash(alice, "move", {"cell": "a1"})
        assert (await handle.reply()).content == "played a1"


@pytest.mark.asyncio
async def test_sharded_bot_gets_each_guild_on_its_shard() -> None:
    async with FakeDiscord(shard_count=2) as fake:
        with discord_pointed_at(fake):
            even = fake.create_guild("Even", id=(fake._snowflake() >> 23) << 23)
            odd = fake.create_guild("Odd", id=((fake._snowflake() >> 23) << 23) | (1 << 22))
            alice = fake.create_user("alice")
            sharded = ShardedPaperBot()
            async with run_bot(fake, sharded, shards=2):
                assert fake.requests_to("GET /gateway/bot")
                shards = {s.shard_id: s for s in fake.sessions}
                assert set(shards) == {0, 1}
                assert sharded.get_guild(even.id).shard_id == 0  # type: ignore[union-attr]
                assert sharded.get_guild(odd.id).shard_id == 1  # type: ignore[union-attr]
                for guild in (even, odd):
                    handle = await fake.slash(
                        alice, "move", {"cell": "a1"}, channel=guild.text_channels[0]
                    )
                    assert (await handle.reply()).content == "played a1"


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
