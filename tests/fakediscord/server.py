"""FakeDiscord: the fake's state, its lifecycle, waiting, building the world, observing and
dispatching to the gateway; its faults (records.py), content (content.py) and what its people
do (driving.py) are mixed in."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from types import TracebackType
from typing import TypeVar

from aiohttp import web

from .constants import (
    DEFAULT_BOT_PERMISSIONS,
    DEFAULT_EVERYONE_PERMISSIONS,
    DM,
    GUILD_TEXT,
    INTENT_GUILD_MEMBERS,
    INTENT_GUILDS,
    INTENT_MESSAGE_CONTENT,
    PRIVILEGED_INTENTS,
)
from .content import Content
from .driving import Driving
from .gateway import DataFor, Gateway, GatewaySession, message_intent_for
from .handles import FakeDiscordTimeout
from .messages import Attachment, Interaction, Message
from .models import JSON, Channel, Guild, Member, Role, SnowflakeFactory, User
from .oauth import OAuth2
from .records import Fault, Faults, RequestRecord, route_matches

log = logging.getLogger("fakediscord")

T = TypeVar("T")

APP_FLAG_GATEWAY_PRESENCE = 1 << 12
APP_FLAG_GATEWAY_GUILD_MEMBERS = 1 << 14
APP_FLAG_GATEWAY_MESSAGE_CONTENT = 1 << 18


class FakeDiscord(Faults, Content, Driving):
    """A local Discord (REST + gateway) for the real discord.py client.

    Use as ``async with FakeDiscord() as fake:``; then point discord.py at
    ``fake.api_base`` / ``fake.gateway_url`` with :func:`point_discord_at`.
    """

    def __init__(
        self,
        *,
        token: str = "fake-bot-token",
        bot_name: str = "Paperboard",
        host: str = "127.0.0.1",
        port: int = 0,
        shard_count: int = 1,
        heartbeat_interval: float = 41.25,
        interaction_ack_timeout: float = 3.0,
        privileged_intents: Iterable[str] = ("members", "presences", "message_content"),
        gateway_compression: bool = True,
        ratelimit_headers: bool = True,
        strict_commands: bool = True,
        default_timeout: float = 30.0,
    ) -> None:
        self.token = token
        self.host = host
        self.port = port
        self.shard_count = shard_count
        """The ``shards`` GET /gateway/bot recommends (AutoShardedClient uses it)."""
        self.heartbeat_interval = heartbeat_interval
        self.interaction_ack_timeout = interaction_ack_timeout
        """Discord's 3 second rule: a later initial response gets 404 10062 Unknown interaction."""
        self.privileged_intents = set(privileged_intents)
        """The developer-portal switches; IDENTIFY asking for a missing one is closed with 4014,
        and without 'message_content' REST reads of messages lose their content."""
        unknown = self.privileged_intents - set(PRIVILEGED_INTENTS)
        if unknown:
            raise ValueError(f"unknown privileged intents {unknown}")
        self.gateway_compression = gateway_compression
        self.ratelimit_headers = ratelimit_headers
        self.strict_commands = strict_commands
        """slash()/autocomplete() refuse commands the bot never registered (as Discord would)."""
        self.default_timeout = default_timeout
        """How long wait_for (and the handles' waits) wait when not told: long, because it only
        matters when the bot is slow (a loaded machine draws a board in seconds) or broken."""

        self._snowflake = SnowflakeFactory()
        self.bot = User(self._snowflake(), bot_name, None, bot=True)
        self.application_id = self.bot.id
        self.owner = User(self._snowflake(), "owner")
        self.users: dict[int, User] = {self.bot.id: self.bot, self.owner.id: self.owner}
        self.guilds: dict[int, Guild] = {}
        self.channels: dict[int, Channel] = {}
        self.messages: dict[int, Message] = {}
        self.attachments: dict[int, Attachment] = {}
        self.interactions: dict[int, Interaction] = {}
        self.interactions_by_token: dict[str, Interaction] = {}
        self.global_commands: dict[int, JSON] = {}
        self.guild_commands: dict[int, dict[int, JSON]] = {}

        self.requests: list[RequestRecord] = []
        self.unknown_routes: list[str] = []
        self.internal_errors: list[str] = []
        self.faults: list[Fault] = []

        from .rest import RestApi  # rest.py imports this module.

        self.gateway = Gateway(self)
        self.oauth = OAuth2(self)
        self.rest = RestApi(self)
        self._outbox: deque[tuple[str, JSON | DataFor, int | None, int | None]] = deque()
        self._flush_lock = asyncio.Lock()
        self._flush_task: asyncio.Task[None] | None = None
        self._changed = asyncio.Event()
        self._runner: web.AppRunner | None = None

    # ----------------------------------------------------------------------------------------
    # Lifecycle.

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def api_base(self) -> str:
        return f"{self.base_url}/api/v10"

    @property
    def gateway_url(self) -> str:
        return f"ws://{self.host}:{self.port}/gateway"

    @property
    def resume_gateway_url(self) -> str:
        """A different path than gateway_url, so tests can see which one discord.py used."""
        return f"ws://{self.host}:{self.port}/resume"

    @property
    def heartbeat_interval_ms(self) -> int:
        return int(self.heartbeat_interval * 1000)

    @property
    def application_flags(self) -> int:
        flags = 0
        if "presences" in self.privileged_intents:
            flags |= APP_FLAG_GATEWAY_PRESENCE
        if "members" in self.privileged_intents:
            flags |= APP_FLAG_GATEWAY_GUILD_MEMBERS
        if "message_content" in self.privileged_intents:
            flags |= APP_FLAG_GATEWAY_MESSAGE_CONTENT
        return flags

    async def start(self) -> FakeDiscord:
        app = web.Application(middlewares=[self.rest.middleware], client_max_size=64 << 20)
        self.rest.add_routes(app)
        for path in ("/gateway", "/gateway/", "/resume", "/resume/"):
            app.router.add_get(path, self.gateway.handle)
        app.router.add_get("/attachments/{channel_id}/{attachment_id}/{filename}", self.rest.cdn)
        app.router.add_get("/oauth2/authorize", self.oauth.authorize)
        self._runner = web.AppRunner(app, shutdown_timeout=1.0, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self.port)
        await site.start()
        address = self._runner.addresses[0]
        self.port = int(address[1])
        log.info("fake discord listening on %s", self.base_url)
        return self

    async def stop(self) -> None:
        if self._flush_task is not None and not self._flush_task.done():
            self._flush_task.cancel()
        await self.gateway.close_all()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> FakeDiscord:
        return await self.start()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.stop()

    # ----------------------------------------------------------------------------------------
    # Waiting.

    def _notify(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()

    async def wait_for(
        self, predicate: Callable[[], T | None], timeout: float | None = None, *, what: str = ""
    ) -> T:
        """Re-evaluate ``predicate`` whenever the fake's state changes (and every 10 ms) until
        it is truthy; returns its value. Raises FakeDiscordTimeout (a TimeoutError) listing the
        last requests."""
        await self._flush()
        loop = asyncio.get_running_loop()
        timeout = self.default_timeout if timeout is None else timeout
        deadline = loop.time() + timeout
        while True:
            result = predicate()
            if result:
                return result
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise FakeDiscordTimeout(self._timeout_report(what or repr(predicate), timeout))
            # Woken by any change in the fake; the short poll also catches predicates on the
            # bot's own state (which changes without telling the fake).
            event = self._changed
            with contextlib.suppress(TimeoutError):  # not wait_for: it can lose a cancel
                async with asyncio.timeout(min(remaining, 0.01)):
                    await event.wait()

    def _timeout_report(self, what: str, timeout: float) -> str:
        lines = [f"fake discord: timed out after {timeout}s waiting for {what}"]
        if self.internal_errors:
            lines.append(f"fake internal errors: {self.internal_errors[-3:]}")
        if self.unknown_routes:
            lines.append(f"unknown routes: {self.unknown_routes[-5:]}")
        lines.append("last requests:")
        for rec in self.requests[-8:]:
            lines.append(f"  {rec.status} {rec.method} {rec.path} ({rec.fault or 'ok'})")
        return "\n".join(lines)

    async def wait_ready(self, shards: int = 1, timeout: float | None = None) -> None:
        """Wait until ``shards`` gateway sessions got READY and their GUILD_CREATEs."""
        await self.wait_for(
            lambda: sum(1 for s in self.gateway.sessions.values() if s.ready) >= shards,
            timeout,
            what=f"{shards} identified gateway session(s)",
        )

    async def wait_for_message(
        self,
        channel: Channel | None = None,
        *,
        author: User | None = None,
        predicate: Callable[[Message], bool] | None = None,
        after: Message | int | None = None,
        timeout: float | None = None,
    ) -> Message:
        """The first message created after ``after`` (default: now) in ``channel`` (default:
        any) by ``author`` (default: the bot) that satisfies ``predicate``."""
        since = after.id if isinstance(after, Message) else (after or self._snowflake.last)
        who = author or self.bot

        def find() -> Message | None:
            for message in self.messages.values():
                if (
                    message.id > since
                    and message.author is who
                    and (channel is None or message.channel is channel)
                    and (predicate is None or predicate(message))
                ):
                    return message
            return None

        where = f" in #{channel.name}" if channel is not None else ""
        return await self.wait_for(find, timeout, what=f"a message by {who.username}{where}")

    # ----------------------------------------------------------------------------------------
    # Building the world (synchronous; events reach a connected bot in call order).

    def create_user(
        self,
        username: str,
        *,
        global_name: str | None = None,
        bot: bool = False,
        guilds: Iterable[Guild] | None = None,
        dms_open: bool = True,
    ) -> User:
        """A user; by default a member of every guild that exists."""
        user = User(self._snowflake(), username, global_name, bot=bot, dms_open=dms_open)
        self.users[user.id] = user
        for guild in list(self.guilds.values()) if guilds is None else guilds:
            self.add_member(guild, user)
        return user

    def create_guild(
        self,
        name: str = "Test Guild",
        *,
        owner: User | None = None,
        channels: Sequence[str] = ("general",),
        members: Iterable[User] = (),
        bot_permissions: int = DEFAULT_BOT_PERMISSIONS,
        id: int | None = None,
    ) -> Guild:
        """A guild with an @everyone role, the bot as member (with a managed role holding
        ``bot_permissions``), the owner, ``members`` and one text channel per name.

        ``id`` picks the snowflake, e.g. to place it on a shard: ``(id >> 22) % shard_count``.
        """
        owner = owner or self.owner
        guild = Guild(id if id is not None else self._snowflake(), name, owner.id)
        guild.roles[guild.id] = Role(guild.id, guild.id, "@everyone", DEFAULT_EVERYONE_PERMISSIONS)
        bot_role = Role(self._snowflake(), guild.id, self.bot.username, bot_permissions, 1, True)
        guild.roles[bot_role.id] = bot_role
        guild.members[self.bot.id] = Member(self.bot, guild, [bot_role.id])
        guild.members[owner.id] = Member(owner, guild)
        for user in members:
            guild.members[user.id] = Member(user, guild)
        for position, channel_name in enumerate(channels):
            channel = Channel(self._snowflake(), GUILD_TEXT, channel_name, guild, position=position)
            guild.channels.append(channel)
            self.channels[channel.id] = channel
        self.guilds[guild.id] = guild
        # to a bot already connected this is a server joining: Discord's GUILD_CREATE for a
        # join has no "unavailable" (False marks a server coming back after an outage)
        self._emit("GUILD_CREATE", lambda s: joined(guild.to_dict()), guild.id, INTENT_GUILDS)
        return guild

    def add_member(
        self, guild: Guild, user: User, *, roles: Iterable[Role] = (), nick: str | None = None
    ) -> Member:
        member = guild.members.get(user.id)
        if member is None:
            member = Member(user, guild, [r.id for r in roles], nick)
            guild.members[user.id] = member
            data = {**member.to_dict(), "guild_id": str(guild.id)}
            self._emit("GUILD_MEMBER_ADD", data, guild.id, INTENT_GUILD_MEMBERS)
        return member

    def create_role(self, guild: Guild, name: str, permissions: int = 0) -> Role:
        role = Role(self._snowflake(), guild.id, name, permissions, len(guild.roles))
        guild.roles[role.id] = role
        data = {"guild_id": str(guild.id), "role": role.to_dict()}
        self._emit("GUILD_ROLE_CREATE", data, guild.id, INTENT_GUILDS)
        return role

    def create_text_channel(
        self, guild: Guild, name: str, *, topic: str | None = None, parent: Channel | None = None
    ) -> Channel:
        channel = Channel(
            self._snowflake(),
            GUILD_TEXT,
            name,
            guild,
            parent_id=parent.id if parent else None,
            position=len(guild.channels),
            topic=topic,
        )
        guild.channels.append(channel)
        self.channels[channel.id] = channel
        self._emit("CHANNEL_CREATE", lambda s: channel.to_dict(), guild.id, INTENT_GUILDS)
        return channel

    def dm_channel(self, user: User) -> Channel:
        """The DM channel between the bot and ``user`` (created on first use)."""
        for channel in self.channels.values():
            if channel.is_dm and channel.recipients and channel.recipients[0] is user:
                return channel
        channel = Channel(self._snowflake(), DM, None, recipients=[user])
        self.channels[channel.id] = channel
        return channel

    # ----------------------------------------------------------------------------------------
    # Observing.

    def bot_user_dict(self) -> JSON:
        data = self.bot.to_dict()
        data.update(verified=True, mfa_enabled=False, email=None, locale="en-US")
        return data

    @property
    def connected(self) -> bool:
        return any(s.conn is not None and not s.conn.closed for s in self.gateway.sessions.values())

    @property
    def sessions(self) -> list[GatewaySession]:
        return self.gateway.live_sessions()

    def all_messages(
        self,
        channel: Channel | None = None,
        *,
        author: User | None = None,
        include_deleted: bool = False,
    ) -> list[Message]:
        """Messages in creation order (ephemeral ones included), optionally filtered."""
        return [
            m
            for m in self.messages.values()
            if (channel is None or m.channel is channel)
            and (author is None or m.author is author)
            and (include_deleted or not m.deleted)
        ]

    def bot_messages(self, channel: Channel | None = None) -> list[Message]:
        return self.all_messages(channel, author=self.bot)

    @property
    def threads(self) -> list[Channel]:
        """Every thread, in creation order."""
        return [c for c in self.channels.values() if c.is_thread]

    def dms(self, user: User) -> list[Message]:
        """What the bot sent to ``user`` in DMs."""
        return [m for m in self.dm_channel(user).messages if m.author is self.bot and not m.deleted]

    def commands(self, guild: Guild | None = None) -> list[JSON]:
        """The application commands the bot registered (globally, or for ``guild``)."""
        if guild is None:
            return list(self.global_commands.values())
        return list(self.guild_commands.get(guild.id, {}).values())

    def requests_to(self, route: str) -> list[RequestRecord]:
        """Requests whose route matches e.g. ``"POST /channels/{channel_id}/messages"``."""
        return [r for r in self.requests if route_matches(route, r.route)]

    # ----------------------------------------------------------------------------------------
    # Dispatching.

    def _emit(
        self, event: str, data: JSON | DataFor, guild_id: int | None, intent: int | None
    ) -> None:
        self._outbox.append((event, data, guild_id, intent))
        self._notify()
        if self._flush_task is None or self._flush_task.done():
            # Without a running loop (setup before asyncio starts) the next async call flushes.
            with contextlib.suppress(RuntimeError):
                self._flush_task = asyncio.get_running_loop().create_task(self._flush())

    async def _flush(self) -> None:
        async with self._flush_lock:
            while self._outbox:
                event, data, guild_id, intent = self._outbox.popleft()
                await self.gateway.dispatch(event, data, guild_id=guild_id, intent=intent)

    async def dispatch(
        self, event: str, data: JSON | DataFor, *, guild_id: int | None, intent: int | None = None
    ) -> None:
        """Escape hatch: send any gateway dispatch to the session(s) of ``guild_id``'s shard."""
        self._emit(event, data, guild_id, intent)
        await self._flush()

    def content_visible(self, message: Message, has_message_content: bool) -> bool:
        """Discord's message-content rule: without the intent an app still sees the content of
        DMs, of its own messages and of messages that mention it."""
        return (
            has_message_content
            or message.channel.is_dm
            or message.author is self.bot
            or any(u is self.bot for u in message.mentions)
        )

    def _emit_message(self, event: str, message: Message) -> None:
        def data_for(session: GatewaySession) -> JSON:
            visible = self.content_visible(message, session.has_intent(INTENT_MESSAGE_CONTENT))
            return message.to_dict(strip_content=not visible)

        self._emit(
            event, data_for, message.channel.guild_id, message_intent_for(message.channel.guild_id)
        )


def joined(guild: JSON) -> JSON:
    """A guild's GUILD_CREATE as a bot gets it on joining the guild."""
    return {key: value for key, value in guild.items() if key != "unavailable"}
