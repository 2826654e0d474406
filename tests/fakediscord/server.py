"""FakeDiscord: the fake's state, its lifecycle and the API tests drive it with."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import secrets
import time
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any, TypeVar

from aiohttp import web

from .gateway import DataFor, Gateway, GatewaySession, message_intent_for
from .models import (
    APPLICATION_COMMAND,
    APPLICATION_COMMAND_AUTOCOMPLETE,
    ATTACHMENT_SIZE_LIMIT,
    DEFAULT_BOT_PERMISSIONS,
    DEFAULT_EVERYONE_PERMISSIONS,
    DM,
    FLAG_COMPONENTS_V2,
    FLAG_EPHEMERAL,
    FLAG_LOADING,
    FLAG_SUPPRESS_EMBEDS,
    FLAG_SUPPRESS_NOTIFICATIONS,
    GUILD_TEXT,
    INTENT_GUILD_MEMBERS,
    INTENT_GUILDS,
    INTENT_MESSAGE_CONTENT,
    JSON,
    MESSAGE_COMPONENT,
    MODAL_SUBMIT,
    MSG_DEFAULT,
    MSG_REPLY,
    PRIVILEGED_INTENTS,
    Attachment,
    Channel,
    DiscordError,
    Guild,
    Interaction,
    InteractionEvent,
    Member,
    Message,
    Role,
    SnowflakeFactory,
    User,
    form_error,
    iso,
    validate_message_payload,
)
from .oauth import OAuth2

log = logging.getLogger("fakediscord")

T = TypeVar("T")

APP_FLAG_GATEWAY_PRESENCE = 1 << 12
APP_FLAG_GATEWAY_GUILD_MEMBERS = 1 << 14
APP_FLAG_GATEWAY_MESSAGE_CONTENT = 1 << 18

MENTION_RE = re.compile(r"<@!?(\d+)>")
PLACEHOLDER_RE = re.compile(r"\{[^}]*\}")
NONCE_SECONDS = 300.0  # Discord checks an enforced nonce "in the past few minutes"


@dataclass(frozen=True)
class UploadedFile:
    index: int
    filename: str
    data: bytes
    content_type: str | None


@dataclass
class RequestRecord:
    """One REST request the bot made, with perf_counter() timestamps."""

    method: str
    path: str
    route: str
    """``METHOD /template``, with discord.py's placeholder names where they exist."""
    query: dict[str, str]
    started: float
    finished: float | None = None
    status: int | None = None
    fault: str | None = None
    """'ratelimit', 'error' or None when the fake answered normally."""
    request_bytes: int = 0

    @property
    def duration(self) -> float | None:
        return None if self.finished is None else self.finished - self.started


@dataclass
class Fault:
    kind: str
    """'ratelimit', 'error' or 'delay'."""
    route: str | Callable[[RequestRecord], bool] | None
    times: int | None
    """How many requests it applies to; None: all of them until cleared."""
    status: int = 500
    retry_after: float = 0.05
    is_global: bool = False
    scope: str = "user"
    delay: float = 0.0
    code: int = 0
    message: str | None = None
    hits: int = 0

    def matches(self, record: RequestRecord) -> bool:
        if self.times is not None and self.hits >= self.times:
            return False
        route = self.route
        if route is None:
            return True
        if callable(route):
            return route(record)
        return route_matches(route, record.route)


def normalise_route(route: str) -> str:
    route = route.strip()
    method, _, path = route.partition(" ")
    if not path:
        method, path = "*", method
    path = PLACEHOLDER_RE.sub("{}", path.rstrip("/"))
    return f"{method.upper()} {path}"


def route_matches(pattern: str, route: str) -> bool:
    want_method, want_path = normalise_route(pattern).split(" ", 1)
    method, path = normalise_route(route).split(" ", 1)
    return want_path == path and want_method in ("*", method)


class FakeDiscordTimeout(TimeoutError):
    pass


class InteractionHandle:
    """What a test gets back from slash/press/select/submit_modal/autocomplete."""

    def __init__(self, fake: FakeDiscord, interaction: Interaction) -> None:
        self.fake = fake
        self.interaction = interaction

    def __repr__(self) -> str:
        i = self.interaction
        return f"<InteractionHandle id={i.id} type={i.type} callback={i.callback_type}>"

    @property
    def id(self) -> int:
        return self.interaction.id

    @property
    def callback_type(self) -> int | None:
        return self.interaction.callback_type

    @property
    def original(self) -> Message | None:
        return self.interaction.original

    @property
    def followups(self) -> list[Message]:
        return list(self.interaction.followups)

    @property
    def events(self) -> list[InteractionEvent]:
        return list(self.interaction.events)

    @property
    def modal(self) -> JSON | None:
        i = self.interaction
        return i.callback_data if i.callback_type == 9 else None

    @property
    def choices(self) -> list[JSON] | None:
        i = self.interaction
        if i.callback_type != 8 or i.callback_data is None:
            return None
        return list(i.callback_data.get("choices", []))

    def _describe(self) -> str:
        i = self.interaction
        name = i.command_name or i.data.get("custom_id") or "?"
        return f"interaction {i.id} ({name!r}, type {i.type})"

    async def ack(self, timeout: float | None = None) -> int:
        """Wait for the initial response; returns its callback type (4, 5, 6, 7, 8 or 9)."""
        return await self.fake.wait_for(
            lambda: self.interaction.callback_type,
            timeout,
            what=f"the bot to answer {self._describe()}",
        )

    def _first(self, predicate: Callable[[InteractionEvent], bool]) -> InteractionEvent | None:
        for event in self.interaction.events:
            if predicate(event):
                return event
        return None

    @staticmethod
    def _is_reply(event: InteractionEvent) -> bool:
        return (
            event.kind in ("callback", "original_edit", "followup")
            and event.revision is not None
            and not event.revision.flags & FLAG_LOADING
        )

    async def reply(self, timeout: float | None = None) -> Message:
        """The first message the interaction produced that is not a "thinking..." placeholder:
        the type 4/7 response, or the first edit of the deferred original, or a follow-up."""
        event = await self.fake.wait_for(
            lambda: self._first(self._is_reply), timeout, what=f"a reply to {self._describe()}"
        )
        assert event.message is not None
        return event.message

    async def followup(self, index: int = 0, timeout: float | None = None) -> Message:
        """The index-th follow-up message (0-based)."""
        followups = self.interaction.followups
        return await self.fake.wait_for(
            lambda: followups[index] if len(followups) > index else None,
            timeout,
            what=f"follow-up #{index} to {self._describe()}",
        )

    async def wait_for_attachment(self, timeout: float | None = None) -> Message:
        """The first message of this interaction that carries an attachment."""
        event = await self.fake.wait_for(
            lambda: self._first(lambda e: bool(e.revision and e.revision.attachments)),
            timeout,
            what=f"an attachment in reply to {self._describe()}",
        )
        assert event.message is not None
        return event.message

    async def wait_for_modal(self, timeout: float | None = None) -> JSON:
        await self.ack(timeout)
        if self.modal is None:
            raise AssertionError(f"{self._describe()} was answered with type {self.callback_type}")
        return self.modal

    async def wait_for_choices(self, timeout: float | None = None) -> list[JSON]:
        await self.ack(timeout)
        choices = self.choices
        if choices is None:
            raise AssertionError(f"{self._describe()} was answered with type {self.callback_type}")
        return choices

    # Latency, in seconds since the INTERACTION_CREATE was written to the websocket.

    def _since_sent(self, event: InteractionEvent | None) -> float | None:
        sent = self.interaction.sent_at
        if event is None or sent is None:
            return None
        return event.at - sent

    @property
    def ack_latency(self) -> float | None:
        return self._since_sent(self._first(lambda e: e.kind == "callback"))

    @property
    def reply_latency(self) -> float | None:
        return self._since_sent(self._first(self._is_reply))

    @property
    def attachment_latency(self) -> float | None:
        return self._since_sent(self._first(lambda e: bool(e.revision and e.revision.attachments)))


class FakeDiscord:
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
    # Faults.

    def inject_rate_limit(
        self,
        route: str | Callable[[RequestRecord], bool] | None = None,
        *,
        times: int = 1,
        retry_after: float = 0.05,
        is_global: bool = False,
        scope: str = "user",
    ) -> Fault:
        """Answer the next ``times`` matching requests with a Discord-shaped 429 (JSON
        ``retry_after``, ``X-RateLimit-*`` and ``Via`` headers: discord.py sleeps and retries)."""
        fault = Fault(
            "ratelimit",
            route,
            times,
            429,
            retry_after=retry_after,
            is_global=is_global,
            scope="global" if is_global else scope,
        )
        self.faults.append(fault)
        return fault

    def inject_error(
        self,
        route: str | Callable[[RequestRecord], bool] | None = None,
        *,
        times: int = 1,
        status: int = 500,
        code: int = 0,
        message: str | None = None,
    ) -> Fault:
        """Answer the next ``times`` matching requests with ``status``. discord.py retries
        500/502/504/524 after sleeping 1 + 2*attempt seconds (5 attempts in all)."""
        fault = Fault("error", route, times, status, code=code, message=message)
        self.faults.append(fault)
        return fault

    def inject_latency(
        self,
        seconds: float,
        route: str | Callable[[RequestRecord], bool] | None = None,
        *,
        times: int | None = None,
    ) -> Fault:
        """Delay matching requests (all of them until cleared, by default)."""
        fault = Fault("delay", route, times, delay=seconds)
        self.faults.append(fault)
        return fault

    def clear_faults(self) -> None:
        self.faults.clear()

    async def drop_gateway(
        self, shard_id: int | None = None, *, code: int = 4000, abort: bool = False
    ) -> int:
        """Close the live gateway connection(s) (all shards unless ``shard_id``) with ``code``,
        or cut the TCP connection if ``abort``. Sessions survive: dispatches made meanwhile are
        replayed when discord.py RESUMEs. Returns how many connections were dropped."""
        await self._flush()
        dropped = await self.gateway.drop(shard_id, code, abort)
        self._notify()
        return dropped

    async def invalidate_session(
        self, shard_id: int | None = None, *, resumable: bool = False
    ) -> int:
        """Send INVALID_SESSION; with ``resumable=False`` the session is forgotten, so
        discord.py must IDENTIFY again (through DiscordWebSocket.DEFAULT_GATEWAY)."""
        await self._flush()
        return await self.gateway.invalidate(shard_id, resumable)

    async def request_reconnect(self, shard_id: int | None = None) -> int:
        """Send op 7 RECONNECT: discord.py closes and RESUMEs."""
        await self._flush()
        return await self.gateway.reconnect(shard_id)

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

    # ----------------------------------------------------------------------------------------
    # Messages (shared by REST handlers and the test API).

    def new_attachment(
        self,
        channel: Channel,
        filename: str,
        data: bytes,
        *,
        content_type: str | None = None,
        description: str | None = None,
        ephemeral: bool = False,
    ) -> Attachment:
        attachment_id = self._snowflake()
        url = f"{self.base_url}/attachments/{channel.id}/{attachment_id}/{filename}"
        attachment = Attachment(
            attachment_id, filename, data, url, content_type, description, ephemeral
        )
        self.attachments[attachment_id] = attachment
        return attachment

    def _attachments_from(
        self,
        channel: Channel,
        payload: JSON,
        files: Sequence[UploadedFile],
        existing: list[Attachment] | None,
        prefix: str = "",
    ) -> list[Attachment] | None:
        """The message's new attachment list, or None to keep the current one."""
        by_index = {f.index: f for f in files}
        spec = payload.get("attachments")
        if spec is None:
            fresh = [self.new_attachment(channel, f.filename, f.data) for f in files]
            if existing is None:
                return fresh
            return existing + fresh if fresh else None
        result: list[Attachment] = []
        kept = {a.id: a for a in existing or []}
        for position, item in enumerate(spec):
            ident = int(item["id"])
            upload = by_index.pop(ident, None)
            if upload is not None:
                result.append(
                    self.new_attachment(
                        channel,
                        item.get("filename") or upload.filename,
                        upload.data,
                        description=item.get("description"),
                    )
                )
            elif ident in kept:
                result.append(kept[ident])
            else:
                raise form_error(
                    f"{prefix}attachments.{position}.id", "ATTACHMENT_NOT_FOUND", "Unknown"
                )
        result.extend(self.new_attachment(channel, f.filename, f.data) for f in by_index.values())
        return result

    def nonce_repeat(self, channel: Channel, author: User, payload: JSON) -> Message | None:
        """The message `author` created in `channel` with the payload's nonce in the last
        NONCE_SECONDS, when the payload enforces it: Discord returns that message again
        instead of creating one (`enforce_nonce`, which discord.py always sends)."""
        nonce = payload.get("nonce")
        if nonce is None or not payload.get("enforce_nonce"):
            return None
        now = time.perf_counter()
        for message in reversed(channel.messages):
            if now - message.created_at > NONCE_SECONDS:
                return None
            if message.author is author and str(message.nonce) == str(nonce):
                return message
        return None

    def create_message(
        self,
        channel: Channel,
        author: User,
        payload: JSON,
        files: Sequence[UploadedFile] = (),
        *,
        interaction: Interaction | None = None,
        msg_type: int | None = None,
        extra_flags: int = 0,
        validate: bool = True,
        prefix: str = "",
    ) -> Message:
        if validate:
            validate_message_payload(
                payload,
                len(files),
                sum(len(f.data) for f in files),
                creating=not extra_flags & FLAG_LOADING,
                prefix=prefix,
            )
        flags = int(payload.get("flags") or 0) & (
            FLAG_SUPPRESS_EMBEDS | FLAG_EPHEMERAL | FLAG_SUPPRESS_NOTIFICATIONS | FLAG_COMPONENTS_V2
        )
        if interaction is None:
            flags &= ~FLAG_EPHEMERAL
        flags |= extra_flags
        referenced = None
        reference = payload.get("message_reference")
        if reference and reference.get("message_id"):
            referenced = self.messages.get(int(reference["message_id"]))
            if referenced is None and reference.get("fail_if_not_exists", True):
                raise form_error(
                    prefix + "message_reference", "MESSAGE_REFERENCE_UNKNOWN_MESSAGE", "Unknown"
                )
        content = payload.get("content") or ""
        message = Message(
            id=self._snowflake(),
            channel=channel,
            author=author,
            content=str(content),
            embeds=list(payload.get("embeds") or []),
            components=list(payload.get("components") or []),
            attachments=self._attachments_from(channel, payload, files, None, prefix) or [],
            flags=flags,
            type=msg_type if msg_type is not None else (MSG_REPLY if referenced else MSG_DEFAULT),
            webhook_id=self.application_id if interaction is not None else None,
            application_id=self.application_id if interaction is not None else None,
            interaction=interaction,
            referenced=referenced,
            mentions=self._mentions(str(content)),
            tts=bool(payload.get("tts")),
            nonce=payload.get("nonce"),
        )
        if message.ephemeral:
            for attachment in message.attachments:
                attachment.ephemeral = True
        message.snapshot("create")
        self.messages[message.id] = message
        channel.messages.append(message)
        if channel.is_thread and channel.archived and not channel.locked:
            channel.archived = False
        if not message.ephemeral:
            self._emit_message("MESSAGE_CREATE", message)
        self._notify()
        return message

    def edit_message(
        self,
        message: Message,
        payload: JSON,
        files: Sequence[UploadedFile] = (),
        *,
        prefix: str = "",
    ) -> Message:
        validate_message_payload(
            payload, len(files), sum(len(f.data) for f in files), creating=False, prefix=prefix
        )
        content = str(payload["content"] or "") if "content" in payload else message.content
        embeds = list(payload["embeds"] or []) if "embeds" in payload else message.embeds
        components = (
            list(payload["components"] or []) if "components" in payload else message.components
        )
        attachments = self._attachments_from(
            message.channel, payload, files, message.attachments, prefix
        )
        if attachments is None:
            attachments = message.attachments
        if not (content or embeds or attachments or components):
            raise DiscordError(400, 50006, "Cannot send an empty message")
        message.content = content
        message.mentions = self._mentions(content)
        message.embeds = embeds
        message.components = components
        message.attachments = attachments
        if payload.get("flags") is not None:
            settable = FLAG_SUPPRESS_EMBEDS | FLAG_COMPONENTS_V2
            message.flags = (message.flags & ~settable) | (int(payload["flags"]) & settable)
        message.flags &= ~FLAG_LOADING
        message.edited_timestamp = iso()
        message.snapshot("edit")
        if not message.ephemeral:
            self._emit_message("MESSAGE_UPDATE", message)
        self._notify()
        return message

    def delete_message(self, message: Message) -> None:
        message.deleted = True
        message.snapshot("delete")
        if not message.ephemeral:
            data: JSON = {"id": str(message.id), "channel_id": str(message.channel.id)}
            if message.channel.guild_id is not None:
                data["guild_id"] = str(message.channel.guild_id)
            self._emit(
                "MESSAGE_DELETE",
                data,
                message.channel.guild_id,
                message_intent_for(message.channel.guild_id),
            )
        self._notify()

    def delete_channel(self, channel: Channel) -> None:
        """A moderator deletes a channel or thread (the REST route does the same)."""
        channel.deleted = True
        if channel.is_thread:
            data: JSON = {
                "id": str(channel.id),
                "guild_id": str(channel.guild_id),
                "parent_id": str(channel.parent_id),
                "type": channel.type,
            }
            self._emit("THREAD_DELETE", data, channel.guild_id, INTENT_GUILDS)
        elif not channel.is_dm:
            self._emit("CHANNEL_DELETE", channel.to_dict(), channel.guild_id, INTENT_GUILDS)
        self._notify()

    def close_thread(self, thread: Channel, *, locked: bool = False) -> None:
        """Archive a thread (Discord does after its auto-archive time); `locked`: as a
        moderator, so only moderators may unarchive it (the bot's posts are refused)."""
        thread.archived = True
        thread.locked = locked
        self._emit("THREAD_UPDATE", thread.to_dict(), thread.guild_id, INTENT_GUILDS)
        self._notify()

    def _mentions(self, content: str) -> list[User]:
        found: list[User] = []
        for match in MENTION_RE.finditer(content):
            user = self.users.get(int(match.group(1)))
            if user is not None and user not in found:
                found.append(user)
        return found

    def create_thread(
        self,
        parent: Channel,
        name: str,
        *,
        owner: User,
        thread_type: int,
        auto_archive_duration: int = 1440,
        invitable: bool = True,
        starter: Message | None = None,
    ) -> Channel:
        guild = parent.guild
        assert guild is not None
        thread = Channel(
            starter.id if starter is not None else self._snowflake(),
            thread_type,
            name,
            guild,
            parent_id=parent.id,
            owner_id=owner.id,
            auto_archive_duration=auto_archive_duration,
            invitable=invitable,
            thread_members={owner.id},
            starter_message_id=starter.id if starter is not None else None,
        )
        guild.channels.append(thread)
        self.channels[thread.id] = thread
        if starter is not None:
            starter.thread = thread

        def data_for(session: GatewaySession) -> JSON:
            data = thread.to_dict()
            data["newly_created"] = True
            if owner is self.bot:
                data["member"] = {
                    "id": str(thread.id),
                    "user_id": str(self.bot.id),
                    "join_timestamp": thread.created_at,
                    "flags": 0,
                }
            return data

        self._emit("THREAD_CREATE", data_for, guild.id, INTENT_GUILDS)
        self._notify()
        return thread

    # ----------------------------------------------------------------------------------------
    # Application commands.

    def find_command(self, name: str, guild: Guild | None) -> JSON | None:
        if guild is not None:
            for command in self.guild_commands.get(guild.id, {}).values():
                if command["name"] == name and command.get("type", 1) == 1:
                    return command
        for command in self.global_commands.values():
            if command["name"] == name and command.get("type", 1) == 1:
                return command
        return None

    # ----------------------------------------------------------------------------------------
    # Driving the bot: the things a user does in the Discord client.

    def _default_channel(self) -> Channel:
        for guild in self.guilds.values():
            if guild.text_channels:
                return guild.text_channels[0]
        raise ValueError("no text channel exists: create_guild() first or pass channel=")

    def _check_can_act(self, user: User, channel: Channel) -> None:
        guild = channel.guild
        if guild is not None and user.id not in guild.members:
            raise ValueError(f"{user.username} is not a member of {guild.name}")
        if channel.deleted:
            raise ValueError(f"channel {channel.id} was deleted")
        if channel.is_dm and channel.recipients[0] is not user:
            raise ValueError(f"{channel.id} is not {user.username}'s DM with the bot")

    def _permissions_in(self, user: User, channel: Channel) -> int:
        guild = channel.guild
        if guild is None:
            return DEFAULT_EVERYONE_PERMISSIONS
        member = guild.members.get(user.id)
        return member.permissions if member is not None else 0

    def _new_interaction(
        self,
        itype: int,
        user: User,
        channel: Channel,
        data: JSON,
        *,
        message: Message | None = None,
        command_name: str | None = None,
        locale: str = "en-US",
    ) -> Interaction:
        self._check_can_act(user, channel)
        guild = channel.guild
        interaction = Interaction(
            id=self._snowflake(),
            token="aW50ZXJhY3Rpb24" + secrets.token_urlsafe(48),
            type=itype,
            user=user,
            channel=channel,
            data=data,
            message=message,
            command_name=command_name,
        )
        payload: JSON = {
            "id": str(interaction.id),
            "application_id": str(self.application_id),
            "type": itype,
            "data": data,
            "channel_id": str(channel.id),
            "channel": channel.to_interaction_dict(self._permissions_in(user, channel)),
            "token": interaction.token,
            "version": 1,
            "locale": locale,
            "entitlements": [],
            "attachment_size_limit": ATTACHMENT_SIZE_LIMIT,
            "app_permissions": str(self._permissions_in(self.bot, channel)),
        }
        if guild is not None:
            payload.update(
                guild_id=str(guild.id),
                guild={"id": str(guild.id), "locale": "en-US", "features": []},
                guild_locale="en-US",
                member=guild.members[user.id].to_dict(with_permissions=True),
                authorizing_integration_owners={"0": str(guild.id)},
                context=0,
            )
        else:
            payload.update(
                user=user.to_dict(),
                authorizing_integration_owners={"0": "0"},
                context=1,
            )
        if message is not None:
            payload["message"] = message.to_dict()
        interaction.payload = payload
        self.interactions[interaction.id] = interaction
        self.interactions_by_token[interaction.token] = interaction
        return interaction

    async def _send_interaction(self, interaction: Interaction) -> InteractionHandle:
        await self._flush()
        guild_id = interaction.channel.guild_id
        if not any(s.covers_guild(guild_id) for s in self.gateway.sessions.values()):
            raise RuntimeError(
                "no gateway session would receive this interaction: is the bot connected?"
            )
        interaction.sent_at = time.perf_counter()
        interaction.record("sent")
        self._emit("INTERACTION_CREATE", interaction.payload, guild_id, None)
        await self._flush()
        return InteractionHandle(self, interaction)

    async def slash(
        self,
        user: User,
        command: str,
        options: dict[str, Any] | None = None,
        *,
        channel: Channel | None = None,
        locale: str = "en-US",
    ) -> InteractionHandle:
        """Run ``/command`` (``"game new"`` for subcommands) as ``user`` in ``channel``.

        Option values: str, int, float, bool; a User/Member for USER, a Channel for CHANNEL,
        a Role for ROLE, ``bytes`` or ``(filename, bytes)`` for ATTACHMENT.
        """
        data, name = self._command_data(user, command, options or {}, channel, focused=None)
        return await self._send_interaction(
            self._new_interaction(
                APPLICATION_COMMAND,
                user,
                channel or self._default_channel(),
                data,
                command_name=name,
                locale=locale,
            )
        )

    async def autocomplete(
        self,
        user: User,
        command: str,
        options: dict[str, Any],
        *,
        focused: str,
        channel: Channel | None = None,
    ) -> InteractionHandle:
        """The user is typing ``options[focused]`` (a partial string) in ``/command``."""
        data, name = self._command_data(user, command, options, channel, focused=focused)
        return await self._send_interaction(
            self._new_interaction(
                APPLICATION_COMMAND_AUTOCOMPLETE,
                user,
                channel or self._default_channel(),
                data,
                command_name=name,
            )
        )

    async def press(self, user: User, message: Message | int, custom_id: str) -> InteractionHandle:
        """Click the button ``custom_id`` on ``message``."""
        msg, component = self._find_component(user, message, custom_id)
        if component.get("type") != 2:
            raise ValueError(f"{custom_id!r} is a component of type {component.get('type')}")
        data = {"custom_id": custom_id, "component_type": 2}
        if "id" in component:
            data["id"] = component["id"]
        return await self._send_interaction(
            self._new_interaction(MESSAGE_COMPONENT, user, msg.channel, data, message=msg)
        )

    async def select(
        self, user: User, message: Message | int, custom_id: str, values: Sequence[str]
    ) -> InteractionHandle:
        """Pick ``values`` in the string select ``custom_id`` on ``message``."""
        msg, component = self._find_component(user, message, custom_id)
        if component.get("type") != 3:
            raise ValueError(f"only string selects (type 3) are supported, not {component}")
        allowed = {o["value"] for o in component.get("options", [])}
        if not set(values) <= allowed:
            raise ValueError(f"{set(values) - allowed} are not options of {custom_id!r}")
        lo, hi = component.get("min_values", 1), component.get("max_values", 1)
        if not lo <= len(values) <= hi:
            raise ValueError(f"{custom_id!r} takes {lo}..{hi} values")
        data = {"custom_id": custom_id, "component_type": 3, "values": list(values)}
        return await self._send_interaction(
            self._new_interaction(MESSAGE_COMPONENT, user, msg.channel, data, message=msg)
        )

    async def submit_modal(
        self, user: User, source: InteractionHandle, values: dict[str, str | list[str]]
    ) -> InteractionHandle:
        """Fill in and submit the modal the bot answered ``source`` with: ``values`` maps text
        inputs' custom_ids to text (and selects' custom_ids to lists of values)."""
        modal = await source.wait_for_modal()
        if user is not source.interaction.user:
            raise ValueError("only the user who opened a modal can submit it")
        remaining = dict(values)

        def fill(component: JSON) -> JSON:
            ctype = component.get("type")
            if ctype == 1:
                return {"type": 1, "components": [fill(c) for c in component["components"]]}
            if ctype == 18:
                return {"type": 18, "component": fill(component["component"])}
            if ctype == 4:
                custom_id = component["custom_id"]
                value = str(remaining.pop(custom_id, component.get("value") or ""))
                if component.get("required", True) and not value:
                    raise ValueError(f"text input {custom_id!r} is required")
                if len(value) > component.get("max_length", 4000):
                    raise ValueError(f"text input {custom_id!r} is too long")
                return {"type": 4, "custom_id": custom_id, "value": value}
            if ctype == 3:
                custom_id = component["custom_id"]
                chosen = remaining.pop(custom_id, [])
                picked = [chosen] if isinstance(chosen, str) else list(chosen)
                return {"type": 3, "custom_id": custom_id, "values": picked}
            return {k: v for k, v in component.items() if k in ("type", "id")}

        components = [fill(c) for c in modal.get("components", [])]
        if remaining:
            raise ValueError(f"the modal has no inputs {sorted(remaining)}")
        data = {"custom_id": modal["custom_id"], "components": components}
        origin = source.interaction
        return await self._send_interaction(
            self._new_interaction(MODAL_SUBMIT, user, origin.channel, data, message=origin.message)
        )

    async def say(
        self,
        user: User,
        channel: Channel,
        content: str = "",
        *,
        files: dict[str, bytes] | None = None,
        reply_to: Message | None = None,
    ) -> Message:
        """``user`` types ``content`` (and uploads ``files``) in ``channel``: MESSAGE_CREATE."""
        self._check_can_act(user, channel)
        uploads = [
            UploadedFile(i, name, data, None)
            for i, (name, data) in enumerate((files or {}).items())
        ]
        payload: JSON = {"content": content}
        if reply_to is not None:
            payload["message_reference"] = {"message_id": str(reply_to.id)}
        message = self.create_message(channel, user, payload, uploads)
        await self._flush()
        return message

    def _find_component(
        self, user: User, message: Message | int, custom_id: str
    ) -> tuple[Message, JSON]:
        msg = self.messages[message] if isinstance(message, int) else message
        if msg.deleted:
            raise ValueError(f"message {msg.id} was deleted")
        if msg.ephemeral and (msg.interaction is None or msg.interaction.user is not user):
            raise ValueError("only the user an ephemeral message was sent to can use it")
        component = msg.component(custom_id)
        if component is None:
            raise ValueError(f"message {msg.id} has no component {custom_id!r}: {msg.custom_ids}")
        if component.get("disabled"):
            raise ValueError(f"component {custom_id!r} is disabled")
        return msg, component

    def _command_data(
        self,
        user: User,
        command: str,
        options: dict[str, Any],
        channel: Channel | None,
        *,
        focused: str | None,
    ) -> tuple[JSON, str]:
        channel = channel or self._default_channel()
        guild = channel.guild
        path = command.strip().lstrip("/").split()
        schema = self.find_command(path[0], guild)
        resolved: JSON = {}
        if schema is None:
            if self.strict_commands:
                known = sorted({c["name"] for c in self.global_commands.values()})
                if guild is not None:
                    known += sorted(c["name"] for c in self.commands(guild))
                raise LookupError(
                    f"/{path[0]} is not registered (did the bot sync its command tree?); "
                    f"registered: {known}"
                )
            schema = {"id": str(self._snowflake()), "name": path[0], "type": 1, "options": []}
        else:
            self._check_command_allowed(schema, user, channel)
        data: JSON = {"id": str(schema["id"]), "name": schema["name"], "type": 1}
        if schema.get("guild_id"):
            data["guild_id"] = str(schema["guild_id"])
        top = self._build_options(schema, path[1:], options, channel, resolved, focused)
        if top:
            data["options"] = top
        if resolved:
            data["resolved"] = resolved
        return data, " ".join(path)

    def _check_command_allowed(self, schema: JSON, user: User, channel: Channel) -> None:
        context = 0 if channel.guild is not None else 1
        contexts = schema.get("contexts")
        if contexts is not None and context not in contexts:
            raise PermissionError(f"/{schema['name']} is not available in context {context}")
        if context == 1 and schema.get("dm_permission") is False:
            raise PermissionError(f"/{schema['name']} is not available in DMs")
        needed = schema.get("default_member_permissions")
        if needed is not None and channel.guild is not None:
            needed = int(needed)
            if self._permissions_in(user, channel) & needed != needed:
                raise PermissionError(f"{user.username} may not use /{schema['name']}")

    def _build_options(
        self,
        schema: JSON,
        subpath: list[str],
        given: dict[str, Any],
        channel: Channel,
        resolved: JSON,
        focused: str | None,
    ) -> list[JSON]:
        schema_options: list[JSON] = list(schema.get("options") or [])
        if subpath:
            name = subpath[0]
            for sub in schema_options:
                if sub["name"] == name and sub.get("type") in (1, 2):
                    inner = self._build_options(sub, subpath[1:], given, channel, resolved, focused)
                    return [{"type": sub["type"], "name": name, "options": inner}]
            raise LookupError(f"/{schema['name']} has no subcommand {name!r}")
        if any(o.get("type") in (1, 2) for o in schema_options) and self.strict_commands:
            subs = [o["name"] for o in schema_options if o.get("type") in (1, 2)]
            raise LookupError(f"/{schema['name']} needs a subcommand: one of {subs}")
        by_name = {o["name"]: o for o in schema_options}
        built: list[JSON] = []
        for name, value in given.items():
            option = by_name.get(name)
            if option is None:
                if self.strict_commands and schema_options:
                    raise LookupError(f"/{schema['name']} has no option {name!r}: {list(by_name)}")
                option = {"name": name, "type": _guess_option_type(value)}
            built.append(self._option_value(option, value, channel, resolved, name == focused))
        if focused is None:
            missing = [
                o["name"] for o in schema_options if o.get("required") and o["name"] not in given
            ]
            if missing:
                raise ValueError(f"/{schema['name']} requires {missing}")
        elif focused not in given:
            raise ValueError(f"the focused option {focused!r} needs a (partial) value")
        return built

    def _option_value(
        self, option: JSON, value: Any, channel: Channel, resolved: JSON, focused: bool
    ) -> JSON:
        otype = int(option.get("type", 3))
        name = option["name"]
        out: JSON = {"name": name, "type": otype}
        if focused:
            out["value"] = str(value)
            out["focused"] = True
            return out
        guild = channel.guild
        if otype == 3:
            value = str(value)
            lo, hi = option.get("min_length", 0), option.get("max_length", 6000)
            if not lo <= len(value) <= hi:
                raise ValueError(f"option {name!r} must be {lo}..{hi} characters long")
        elif otype == 4:
            if isinstance(value, bool) or int(value) != value:
                raise ValueError(f"option {name!r} takes an integer, not {value!r}")
            value = int(value)
        elif otype == 10:
            value = float(value)
        elif otype == 5:
            if not isinstance(value, bool):
                raise ValueError(f"option {name!r} takes a bool, not {value!r}")
        elif otype in (6, 9) and isinstance(value, (User, Member)):
            user = value.user if isinstance(value, Member) else value
            resolved.setdefault("users", {})[str(user.id)] = user.to_dict()
            member = guild.members.get(user.id) if guild is not None else None
            if member is not None:
                resolved.setdefault("members", {})[str(user.id)] = member.to_dict(
                    with_user=False, with_permissions=True
                )
            value = str(user.id)
        elif otype in (8, 9) and isinstance(value, Role):
            resolved.setdefault("roles", {})[str(value.id)] = value.to_dict()
            value = str(value.id)
        elif otype == 7 and isinstance(value, Channel):
            data = value.to_dict()
            data["permissions"] = str(self._permissions_in(self.bot, value))
            resolved.setdefault("channels", {})[str(value.id)] = data
            value = str(value.id)
        elif otype == 11:
            if isinstance(value, Attachment):
                attachment = value
            else:
                filename, blob = value if isinstance(value, tuple) else ("file.bin", value)
                attachment = self.new_attachment(channel, filename, blob, ephemeral=True)
            resolved.setdefault("attachments", {})[str(attachment.id)] = attachment.to_dict()
            value = str(attachment.id)
        else:
            raise ValueError(f"option {name!r} (type {otype}) cannot take {value!r}")
        if otype in (4, 10):
            lo, hi = option.get("min_value"), option.get("max_value")
            if (lo is not None and value < lo) or (hi is not None and value > hi):
                raise ValueError(f"option {name!r} must be within {lo}..{hi}")
        choices = option.get("choices")
        if choices and value not in [c["value"] for c in choices]:
            raise ValueError(f"option {name!r} must be one of {[c['value'] for c in choices]}")
        out["value"] = value
        return out


def joined(guild: JSON) -> JSON:
    """A guild's GUILD_CREATE as a bot gets it on joining the guild."""
    return {key: value for key, value in guild.items() if key != "unavailable"}


def _guess_option_type(value: Any) -> int:
    if isinstance(value, bool):
        return 5
    if isinstance(value, int):
        return 4
    if isinstance(value, float):
        return 10
    if isinstance(value, (User, Member)):
        return 6
    if isinstance(value, Channel):
        return 7
    if isinstance(value, Role):
        return 8
    if isinstance(value, (bytes, tuple, Attachment)):
        return 11
    return 3
