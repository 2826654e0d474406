"""What the tests of the fake Discord share: a tiny bot (slash commands, buttons, a select, a
modal, autocomplete, threads, DMs, a PNG board; sharded too), the fake with that bot logged in,
and its two people."""

from __future__ import annotations

import asyncio
import contextlib
import io
import struct
import zlib
from collections.abc import AsyncIterator
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from tests.fakediscord import FakeDiscord, discord_pointed_at, run_bot


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
