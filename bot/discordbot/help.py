"""A newcomer's way in: /help (the commands by task, each with its help from
bot/commands/), a short pointer when someone mentions the bot, and one welcome message
when the bot joins a server."""

from __future__ import annotations

import logging

import discord
from discord.ext import commands

import engine
from bot.commands import BY_NAME, COMMANDS
from bot.discordbot.announce import Announcer
from bot.discordbot.cog import described
from bot.discordbot.errors import reply
from bot.service import GameService

log = logging.getLogger("paperboard.discord")

#: The slash commands by what a player wants to do; tests/test_discord_help.py checks
#: that each slash command is under exactly one task.
TASKS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Start a game", ("challenge", "rematch")),
    ("Move", ("move", "next", "undo", "conditional", "hint", "resign", "abort")),
    ("Look", ("board", "games", "record", "analysis", "export", "web", "rules", "rating",
              "leaderboard")),
    ("Events", tuple(c.name for c in COMMANDS if c.discord and c.name.startswith("tournament "))),
    ("Settings", ("settings", "config", "help")),
)  # fmt: skip

POINTER = "I answer slash commands: `/help` lists them by task, and `/challenge` starts a game."


def help_text() -> str:
    """Every slash command under its task, with its one-sentence help."""
    lines = ["Paperboard's commands (type `/` and a command's name):"]
    for task, names in TASKS:
        lines += ["", f"**{task}**"]
        for name in names:
            command = BY_NAME[name]
            admin = " (Manage Server)" if command.admin else ""
            lines.append(f"`/{name}` {command.help}{admin}")
    return "\n".join(lines)


def welcome_text() -> str:
    """What the bot is, how to start, and how a manager sets it up: said once per server."""
    titles = [info.title for info in engine.GAMES.values()]
    games = f"{', '.join(titles[:-1])} and {titles[-1]}"
    return (
        f"Hello! I'm Paperboard: I host slow games of {games}, each in a thread of its "
        "own, with a board drawn after every move. Start one with `/challenge` (name an "
        "opponent, or challenge me), learn a game with `/rules`, and see every command "
        "with `/help`. A server manager chooses where games start, the clocks, rated "
        "games and who runs events with `/config`."
    )


class HelpCog(commands.Cog):
    def __init__(self, service: GameService, announcer: Announcer) -> None:
        self.service = service
        self.announcer = announcer

    @described("help")
    async def help(self, interaction: discord.Interaction) -> None:
        await reply(interaction, help_text())

    @commands.Cog.listener()
    async def on_message(self, message: discord.Message) -> None:
        """Someone mentions the bot ("@Paperboard help"): point to the slash commands.
        A reply to one of the bot's messages mentions it too, but not in its text."""
        me = message.guild.me if message.guild is not None else None
        if message.author.bot or me is None or me.id not in message.raw_mentions:
            return
        await message.reply(POINTER, allowed_mentions=discord.AllowedMentions.none())

    @commands.Cog.listener()
    async def on_guild_join(self, guild: discord.Guild) -> None:
        """Welcome a server the bot joins, once ever, where it may write."""
        channel = welcome_channel(guild)
        if channel is None:
            log.info("guild=%d joined: no channel to welcome it in", guild.id)
            return
        if await self.service.preferences.first_welcome(guild.id):
            await self.announcer.send(channel, welcome_text())


def welcome_channel(guild: discord.Guild) -> discord.TextChannel | None:
    """The server's system channel where the bot may write there, else its first text
    channel where it may."""
    me = guild.me
    found = [guild.system_channel] if guild.system_channel is not None else []
    found += sorted(guild.text_channels, key=lambda channel: channel.position)
    return next((c for c in found if c.permissions_for(me).send_messages), None)
