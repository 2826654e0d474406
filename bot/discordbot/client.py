"""The Discord bot: an AutoShardedBot around the game service."""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import logging
import signal
from collections.abc import Awaitable, Callable, Iterator

import aiohttp
import discord
from discord.ext import commands

from bot.discordbot.about import AboutCog
from bot.discordbot.aicog import AiCog
from bot.discordbot.announce import Announcer
from bot.discordbot.challenges import ChallengesCog
from bot.discordbot.endpoints import point_discord_at
from bot.discordbot.errors import answer_in_time
from bot.discordbot.help import HelpCog
from bot.discordbot.looking import LookingCog
from bot.discordbot.moves import MovesCog
from bot.discordbot.text import MENTIONS
from bot.discordbot.threads import ThreadMovesCog
from bot.discordbot.tournaments import SignupButton, TournamentsCog
from bot.discordbot.views import (
    ChallengeButton,
    ConfirmMoveButton,
    NextButton,
    ResignButton,
    UndoButton,
)
from bot.heap import LongLived
from bot.schedule import Scheduler
from bot.schedule.airunner import AiRunner
from bot.service import GameService, MoveResult, Result
from bot.service.core.outbox import Publish
from bot.settings import SettingRefused, Settings, reason
from bot.web.links import WebLinks

log = logging.getLogger("paperboard.discord")

#: What runs beside the bot on its service (mail: bot/email/runner.py), given the bot's
#: delivery of a result; it returns how to stop it (None: nothing started).
Beside = Callable[[GameService, Publish], Awaitable[Callable[[], Awaitable[None]] | None]]

DISCORD_API = "https://discord.com/api/v10"
CLOSE_GRACE_SECONDS = 8.0  # announcements under way may finish; docker stop kills at 10 s

#: Exactly what the bot does in a server: read and post in channels and threads, open a
#: thread per game, attach boards. Slash commands need the applications.commands scope.
PERMISSIONS = discord.Permissions(
    view_channel=True,
    send_messages=True,
    send_messages_in_threads=True,
    create_public_threads=True,
    attach_files=True,
    embed_links=True,
    read_message_history=True,
)


def intents(settings: Settings) -> discord.Intents:
    """No privileged intent is needed; message content only when the operator asks for it."""
    wanted = discord.Intents.none()
    wanted.guilds = True
    wanted.guild_messages = True  # moves typed in game threads
    wanted.message_content = settings.discord_message_content
    return wanted


class PaperboardBot(commands.AutoShardedBot):
    def __init__(
        self,
        service: GameService,
        settings: Settings,
        *,
        shard_count: int | None = None,
        shard_ids: list[int] | None = None,
        schedule: bool = True,
    ) -> None:
        super().__init__(
            command_prefix=commands.when_mentioned,  # slash commands only; a prefix is required
            intents=intents(settings),
            allowed_mentions=MENTIONS,
            help_command=None,
            shard_count=shard_count,
            shard_ids=shard_ids,  # type: ignore[arg-type]  # None: every shard (discord.py's default)
        )
        self.service = service
        # an interaction is answered before its result is delivered: however long the
        # answer takes, no other process posts the result meanwhile
        service.records.holds_until_delivered = True
        self.settings = settings
        self.links = WebLinks(service)
        #: the heap frozen once started (bot/heap.py)
        self.long_lived = LongLived()
        self.announcer = Announcer(
            self, service, reads_messages=settings.discord_message_content, links=self.links
        )
        # reminders and deadlines; off for one-shot commands (paperboard sync)
        self.scheduler = Scheduler(service, self.announcer.post) if schedule else None
        if self.scheduler is not None:
            self.announcer.on_deadline = self.scheduler.poke
        # the bot's own moves, searched in worker processes; off with the scheduler, and
        # left to `paperboard worker` processes with AI_SEARCH=workers
        self.ai = (
            AiRunner(
                service,
                self.announce_bot_move,
                processes=settings.ai_processes,
                nodes=settings.ai_nodes,
            )
            if schedule and settings.searches_here
            else None
        )

    async def setup_hook(self) -> None:
        for family in (ChallengesCog, MovesCog, LookingCog, AboutCog, AiCog):
            await self.add_cog(family(self.service, self.announcer))
        await self.add_cog(ThreadMovesCog(self.service, self.announcer))
        await self.add_cog(HelpCog(self.service, self.announcer))
        await self.add_cog(TournamentsCog(self.service, self.announcer))
        self.add_dynamic_items(
            ChallengeButton, ResignButton, UndoButton, NextButton, ConfirmMoveButton, SignupButton
        )
        if self.scheduler is not None:
            await self.scheduler.start()  # catches up at once on what fell due while down
        if self.ai is not None:
            await self.ai.start()  # the bot's moves owed from before a restart come first
        if self.settings.dev_guild_id is not None:
            guild = discord.Object(id=self.settings.dev_guild_id)
            self.tree.copy_global_to(guild=guild)
            synced = await self.tree.sync(guild=guild)
            log.info("synced %d commands to the dev guild %d", len(synced), guild.id)
        self.long_lived.start()

    async def close(self) -> None:
        self.long_lived.stop()
        if self.scheduler is not None:
            await self.scheduler.stop()
        if self.ai is not None:
            await self.ai.stop()
        # status edits and thread posts under way need the HTTP session a little longer
        await self.announcer.drain(CLOSE_GRACE_SECONDS)
        await super().close()

    async def announce_bot_move(self, result: Result) -> None:
        """The AI runner's delivery: the bot's move posted like anyone's, with its board."""
        png = result.png if isinstance(result, MoveResult) else None
        await self.announcer.publish(result, png=png or None)

    async def on_message(self, message: discord.Message) -> None:
        """Slash commands only: no message is read as a text command (the cogs' listeners
        read moves in threads and mentions), so no one's text is taken for an unknown
        command and logged as an error."""

    async def on_interaction(self, interaction: discord.Interaction) -> None:
        """Every command and button is answered in Discord's time, however slow its work."""
        await answer_in_time(interaction)

    async def on_ready(self) -> None:
        log.info("ready as %s in %d guilds, shards %s", self.user, len(self.guilds), self.shard_ids)


def point_at_settings(settings: Settings) -> None:
    """Use a Discord-compatible endpoint when the settings name one."""
    if settings.discord_api_base or settings.discord_gateway_url:
        point_discord_at(settings.discord_api_base or DISCORD_API, settings.discord_gateway_url)


async def run_bot(
    settings: Settings,
    *,
    shard_count: int | None = None,
    shard_ids: list[int] | None = None,
    beside: Beside | None = None,
) -> None:
    """Run until stopped: the service, then the bot on its shards; `beside` starts what
    runs with it on the same service (mail), given the bot's delivery of a result."""
    if settings.discord_token is None:
        raise ValueError("DISCORD_TOKEN is not set")
    point_at_settings(settings)
    if settings.ai_search == "workers":
        if settings.searches_here:
            log.warning("AI_SEARCH=workers needs PostgreSQL: on SQLite this process searches")
        else:
            log.info("AI_SEARCH=workers: the bot's searches are left to paperboard worker")
    name = settings.process_name or shard_name(shard_ids, shard_count)
    service = await GameService.open(settings, name=name)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signal_number in (signal.SIGINT, signal.SIGTERM):  # docker stop, systemctl stop, Ctrl-C
        loop.add_signal_handler(signal_number, stop.set)
    try:
        bot = PaperboardBot(service, settings, shard_count=shard_count, shard_ids=shard_ids)
        stop_beside = None if beside is None else await beside(service, bot.announcer.post)
        async with bot:  # leaving it closes the bot, and the scheduler with it
            running = asyncio.create_task(bot.start(settings.discord_token.get_secret_value()))
            stopping = asyncio.create_task(stop.wait())
            await asyncio.wait({running, stopping}, return_when=asyncio.FIRST_COMPLETED)
            if running.done():
                with logging_in(settings):
                    running.result()  # the bot gave up: say why
            log.info("stopping")
            stopping.cancel()
            if stop_beside is not None:
                await stop_beside()
    finally:
        await service.close()


@contextlib.contextmanager
def logging_in(settings: Settings) -> Iterator[None]:
    """A token Discord refuses, or a Discord out of reach, as one sentence naming the
    setting (SettingRefused); the first call to Discord is the login's."""
    try:
        yield
    except discord.LoginFailure:
        raise SettingRefused(
            "Discord refused DISCORD_TOKEN; copy the token again from the developer portal "
            "(Bot page) into .env."
        ) from None
    except aiohttp.ClientConnectionError as error:  # no network, no such host, refused
        why = (
            reason(error.os_error)
            if isinstance(error, aiohttp.ClientConnectorError)
            else str(error)
        )
        if settings.discord_api_base is None:
            raise SettingRefused(
                f"DISCORD_TOKEN: could not reach Discord at {DISCORD_API} to log in ({why}); "
                "check this machine's network."
            ) from None
        raise SettingRefused(
            f"DISCORD_API_BASE: could not reach Discord at {settings.discord_api_base} ({why}); "
            f"it should look like {DISCORD_API}."
        ) from None


def shard_name(shard_ids: list[int] | None, shard_count: int | None) -> str:
    """A bot process's default name: `bot`, or its shards (`bot-shards-0-3,8-of-16`), so a
    restarted process has the name it had before and takes back what it held."""
    if not shard_ids:
        return "bot"
    runs: list[list[int]] = []
    for shard in sorted(set(shard_ids)):
        if runs and shard == runs[-1][-1] + 1:
            runs[-1].append(shard)
        else:
            runs.append([shard])
    spans = ",".join(f"{r[0]}-{r[-1]}" if len(r) > 1 else str(r[0]) for r in runs)
    return f"bot-shards-{spans}-of-{shard_count}"[:40]


async def sync_commands(settings: Settings, guild_id: int | None) -> int:
    """Register the slash commands globally (up to an hour to appear) or in one guild."""
    if settings.discord_token is None:
        raise ValueError("DISCORD_TOKEN is not set")
    point_at_settings(settings)
    service = await GameService.open(settings.model_copy(update={"render_processes": 0}))
    bot = PaperboardBot(service, settings.model_copy(update={"dev_guild_id": None}), schedule=False)
    try:
        with logging_in(settings):
            await bot.login(settings.discord_token.get_secret_value())  # runs setup_hook
        if guild_id is None:
            return len(await bot.tree.sync())
        guild = discord.Object(id=guild_id)
        bot.tree.copy_global_to(guild=guild)
        return len(await bot.tree.sync(guild=guild))
    finally:
        await bot.close()
        await service.close()


def invite_url(settings: Settings) -> str:
    """The link that adds the bot to a server with exactly the permissions it needs."""
    if settings.discord_token is None:
        raise ValueError("DISCORD_TOKEN is not set")
    return discord.utils.oauth_url(
        application_id(settings.discord_token.get_secret_value()),
        permissions=PERMISSIONS,
        scopes=("bot", "applications.commands"),
    )


def application_id(token: str) -> int:
    """A bot token starts with its application's id, base64-encoded."""
    head = token.split(".", 1)[0]
    try:
        return int(base64.b64decode(head + "=" * (-len(head) % 4)).decode())
    except (binascii.Error, ValueError, UnicodeDecodeError):
        raise ValueError("DISCORD_TOKEN does not look like a bot token") from None
