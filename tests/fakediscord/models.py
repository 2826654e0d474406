"""The fake's world: users, guilds, channels, messages, interactions, and their JSON shapes.

Payload shapes follow the Discord API v10 documentation and, where the two disagree, what
discord.py 2.7.1 actually reads (``discord/types/*.py`` and the ``_from_data`` methods).
"""

from __future__ import annotations

import datetime as dt
import mimetypes
import struct
import time
from dataclasses import dataclass, field
from typing import Any

JSON = dict[str, Any]

DISCORD_EPOCH_MS = 1_420_070_400_000

# Channel types.
GUILD_TEXT = 0
DM = 1
GUILD_CATEGORY = 4
GUILD_ANNOUNCEMENT = 5
ANNOUNCEMENT_THREAD = 10
PUBLIC_THREAD = 11
PRIVATE_THREAD = 12
THREAD_TYPES = frozenset({ANNOUNCEMENT_THREAD, PUBLIC_THREAD, PRIVATE_THREAD})

# Interaction types.
APPLICATION_COMMAND = 2
MESSAGE_COMPONENT = 3
APPLICATION_COMMAND_AUTOCOMPLETE = 4
MODAL_SUBMIT = 5

# Interaction callback types.
CHANNEL_MESSAGE_WITH_SOURCE = 4
DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE = 5
DEFERRED_UPDATE_MESSAGE = 6
UPDATE_MESSAGE = 7
APPLICATION_COMMAND_AUTOCOMPLETE_RESULT = 8
MODAL = 9

# Message flags.
FLAG_SUPPRESS_EMBEDS = 1 << 2
FLAG_EPHEMERAL = 1 << 6
FLAG_LOADING = 1 << 7
FLAG_SUPPRESS_NOTIFICATIONS = 1 << 12
FLAG_COMPONENTS_V2 = 1 << 15

# Message types.
MSG_DEFAULT = 0
MSG_REPLY = 19
MSG_CHAT_INPUT_COMMAND = 20

# Gateway intents.
INTENT_GUILDS = 1 << 0
INTENT_GUILD_MEMBERS = 1 << 1
INTENT_GUILD_PRESENCES = 1 << 8
INTENT_GUILD_MESSAGES = 1 << 9
INTENT_DIRECT_MESSAGES = 1 << 12
INTENT_MESSAGE_CONTENT = 1 << 15
PRIVILEGED_INTENTS = {
    "members": INTENT_GUILD_MEMBERS,
    "presences": INTENT_GUILD_PRESENCES,
    "message_content": INTENT_MESSAGE_CONTENT,
}

# Permissions.
PERM_ADMINISTRATOR = 1 << 3
PERM_ADD_REACTIONS = 1 << 6
PERM_VIEW_CHANNEL = 1 << 10
PERM_SEND_MESSAGES = 1 << 11
PERM_MANAGE_MESSAGES = 1 << 13
PERM_EMBED_LINKS = 1 << 14
PERM_ATTACH_FILES = 1 << 15
PERM_READ_MESSAGE_HISTORY = 1 << 16
PERM_USE_APPLICATION_COMMANDS = 1 << 31
PERM_MANAGE_THREADS = 1 << 34
PERM_CREATE_PUBLIC_THREADS = 1 << 35
PERM_CREATE_PRIVATE_THREADS = 1 << 36
PERM_SEND_MESSAGES_IN_THREADS = 1 << 38
DEFAULT_EVERYONE_PERMISSIONS = (
    PERM_ADD_REACTIONS
    | PERM_VIEW_CHANNEL
    | PERM_SEND_MESSAGES
    | PERM_EMBED_LINKS
    | PERM_ATTACH_FILES
    | PERM_READ_MESSAGE_HISTORY
    | PERM_USE_APPLICATION_COMMANDS
    | PERM_CREATE_PUBLIC_THREADS
    | PERM_CREATE_PRIVATE_THREADS
    | PERM_SEND_MESSAGES_IN_THREADS
)
DEFAULT_BOT_PERMISSIONS = DEFAULT_EVERYONE_PERMISSIONS | PERM_MANAGE_MESSAGES | PERM_MANAGE_THREADS

ATTACHMENT_SIZE_LIMIT = 10 * 1024 * 1024


def iso(ts: dt.datetime | None = None) -> str:
    return (ts or dt.datetime.now(dt.UTC)).isoformat()


class SnowflakeFactory:
    """Unique, strictly increasing snowflakes whose timestamp part is the current time."""

    def __init__(self) -> None:
        self.last = 0

    def __call__(self) -> int:
        now = (int(time.time() * 1000) - DISCORD_EPOCH_MS) << 22
        self.last = max(now, self.last + 1)
        return self.last


def png_size(data: bytes) -> tuple[int, int] | None:
    if data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR" and len(data) >= 24:
        width, height = struct.unpack(">II", data[16:24])
        return width, height
    return None


@dataclass(eq=False)
class User:
    id: int
    username: str
    global_name: str | None = None
    bot: bool = False
    dms_open: bool = True
    """False makes the fake answer 403 (50007 Cannot send messages to this user) on DMs."""

    @property
    def mention(self) -> str:
        return f"<@{self.id}>"

    def to_dict(self) -> JSON:
        data: JSON = {
            "id": str(self.id),
            "username": self.username,
            "global_name": self.global_name,
            "discriminator": "0",
            "avatar": None,
            "public_flags": 0,
            "flags": 0,
        }
        if self.bot:
            data["bot"] = True
        return data


@dataclass(eq=False)
class Role:
    id: int
    guild_id: int
    name: str
    permissions: int
    position: int = 0
    managed: bool = False

    def to_dict(self) -> JSON:
        return {
            "id": str(self.id),
            "name": self.name,
            "permissions": str(self.permissions),
            "position": self.position,
            "color": 0,
            "hoist": False,
            "managed": self.managed,
            "mentionable": False,
            "icon": None,
            "unicode_emoji": None,
            "flags": 0,
        }


@dataclass(eq=False)
class Member:
    user: User
    guild: Guild = field(repr=False)
    roles: list[int] = field(default_factory=list)
    nick: str | None = None
    joined_at: str = field(default_factory=iso)

    @property
    def permissions(self) -> int:
        guild = self.guild
        if guild.owner_id == self.user.id:
            return (1 << 53) - 1
        perms = guild.everyone.permissions
        for role_id in self.roles:
            role = guild.roles.get(role_id)
            if role is not None:
                perms |= role.permissions
        if perms & PERM_ADMINISTRATOR:
            return (1 << 53) - 1
        return perms

    def to_dict(self, *, with_user: bool = True, with_permissions: bool = False) -> JSON:
        data: JSON = {
            "roles": [str(r) for r in self.roles],
            "nick": self.nick,
            "joined_at": self.joined_at,
            "deaf": False,
            "mute": False,
            "flags": 0,
            "pending": False,
            "avatar": None,
            "premium_since": None,
            "communication_disabled_until": None,
        }
        if with_user:
            data["user"] = self.user.to_dict()
        if with_permissions:
            data["permissions"] = str(self.permissions)
        return data


@dataclass(eq=False)
class Guild:
    id: int
    name: str
    owner_id: int
    roles: dict[int, Role] = field(default_factory=dict, repr=False)
    members: dict[int, Member] = field(default_factory=dict, repr=False)
    channels: list[Channel] = field(default_factory=list, repr=False)
    """Every channel of the guild, threads included, in creation order."""
    joined_at: str = field(default_factory=iso)

    @property
    def everyone(self) -> Role:
        return self.roles[self.id]

    @property
    def text_channels(self) -> list[Channel]:
        return [c for c in self.channels if c.type == GUILD_TEXT and not c.deleted]

    @property
    def threads(self) -> list[Channel]:
        return [c for c in self.channels if c.is_thread and not c.deleted]

    def channel(self, name: str) -> Channel:
        for channel in self.channels:
            if channel.name == name and not channel.deleted:
                return channel
        raise KeyError(name)

    def to_dict(self, *, members: bool = True) -> JSON:
        """The GUILD_CREATE shape: the guild object plus the gateway-only extra fields."""
        return {
            "id": str(self.id),
            "name": self.name,
            "icon": None,
            "splash": None,
            "discovery_splash": None,
            "banner": None,
            "description": None,
            "owner_id": str(self.owner_id),
            "afk_channel_id": None,
            "afk_timeout": 300,
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "roles": [r.to_dict() for r in self.roles.values()],
            "emojis": [],
            "stickers": [],
            "features": [],
            "mfa_level": 0,
            "system_channel_id": None,
            "system_channel_flags": 0,
            "rules_channel_id": None,
            "vanity_url_code": None,
            "premium_tier": 0,
            "premium_subscription_count": 0,
            "preferred_locale": "en-US",
            "public_updates_channel_id": None,
            "nsfw_level": 0,
            "premium_progress_bar_enabled": False,
            "joined_at": self.joined_at,
            "large": False,
            "unavailable": False,
            "member_count": len(self.members),
            "voice_states": [],
            "members": [m.to_dict() for m in self.members.values()] if members else [],
            "channels": [c.to_dict() for c in self.channels if not c.is_thread and not c.deleted],
            "threads": [c.to_dict() for c in self.channels if c.is_thread and not c.deleted],
            "presences": [],
            "stage_instances": [],
            "guild_scheduled_events": [],
            "soundboard_sounds": [],
        }

    def to_rest_dict(self) -> JSON:
        data = self.to_dict(members=False)
        for key in (
            "joined_at",
            "large",
            "unavailable",
            "member_count",
            "voice_states",
            "members",
            "channels",
            "threads",
            "presences",
            "stage_instances",
            "guild_scheduled_events",
            "soundboard_sounds",
        ):
            data.pop(key, None)
        data["approximate_member_count"] = len(self.members)
        data["approximate_presence_count"] = 0
        return data


@dataclass(eq=False)
class Channel:
    id: int
    type: int
    name: str | None = None
    guild: Guild | None = field(default=None, repr=False)
    parent_id: int | None = None
    position: int = 0
    topic: str | None = None
    # Threads.
    owner_id: int | None = None
    archived: bool = False
    locked: bool = False
    auto_archive_duration: int = 1440
    invitable: bool = True
    thread_members: set[int] = field(default_factory=set, repr=False)
    starter_message_id: int | None = None
    # DMs.
    recipients: list[User] = field(default_factory=list, repr=False)
    created_at: str = field(default_factory=iso)
    messages: list[Message] = field(default_factory=list, repr=False)
    """Every message of the channel in creation order, deleted and ephemeral ones included."""
    deleted: bool = False

    @property
    def guild_id(self) -> int | None:
        return self.guild.id if self.guild is not None else None

    @property
    def is_thread(self) -> bool:
        return self.type in THREAD_TYPES

    @property
    def is_dm(self) -> bool:
        return self.type == DM

    @property
    def mention(self) -> str:
        return f"<#{self.id}>"

    @property
    def last_message_id(self) -> int | None:
        for message in reversed(self.messages):
            if not message.ephemeral:
                return message.id
        return None

    def visible_messages(self) -> list[Message]:
        """What a member would see in the channel: not deleted, not ephemeral."""
        return [m for m in self.messages if not m.deleted and not m.ephemeral]

    def to_dict(self) -> JSON:
        if self.is_dm:
            return {
                "id": str(self.id),
                "type": DM,
                "last_message_id": _opt_str(self.last_message_id),
                "recipients": [u.to_dict() for u in self.recipients],
                "flags": 0,
            }
        data: JSON = {
            "id": str(self.id),
            "type": self.type,
            "guild_id": str(self.guild_id),
            "name": self.name,
            "parent_id": _opt_str(self.parent_id),
            "last_message_id": _opt_str(self.last_message_id),
            "rate_limit_per_user": 0,
            "flags": 0,
        }
        if self.is_thread:
            count = sum(1 for m in self.messages if not m.deleted and not m.ephemeral)
            data.update(
                owner_id=_opt_str(self.owner_id),
                message_count=count,
                total_message_sent=count,
                member_count=len(self.thread_members),
                thread_metadata={
                    "archived": self.archived,
                    "auto_archive_duration": self.auto_archive_duration,
                    "archive_timestamp": self.created_at,
                    "locked": self.locked,
                    "invitable": self.invitable,
                    "create_timestamp": self.created_at,
                },
            )
        else:
            data.update(
                position=self.position,
                permission_overwrites=[],
                topic=self.topic,
                nsfw=False,
                default_auto_archive_duration=1440,
            )
        return data

    def to_interaction_dict(self, permissions: int) -> JSON:
        data = self.to_dict()
        data["permissions"] = str(permissions)
        return data


@dataclass(eq=False)
class Attachment:
    id: int
    filename: str
    data: bytes = field(repr=False)
    url: str
    content_type: str | None = None
    description: str | None = None
    ephemeral: bool = False

    @property
    def size(self) -> int:
        return len(self.data)

    @property
    def image_size(self) -> tuple[int, int] | None:
        """(width, height) for PNG attachments, else None."""
        return png_size(self.data)

    def to_dict(self) -> JSON:
        content_type = self.content_type or mimetypes.guess_type(self.filename)[0]
        data: JSON = {
            "id": str(self.id),
            "filename": self.filename,
            "size": self.size,
            "url": self.url,
            "proxy_url": self.url,
        }
        if content_type:
            data["content_type"] = content_type
        if self.description is not None:
            data["description"] = self.description
        if self.ephemeral:
            data["ephemeral"] = True
        size = self.image_size
        if size is not None:
            data["width"], data["height"] = size
        return data


@dataclass(frozen=True)
class Revision:
    """One state of a message: its creation or one edit."""

    at: float
    """time.perf_counter() when the fake stored this state."""
    kind: str
    """'create', 'edit' or 'delete'."""
    content: str
    embeds: tuple[JSON, ...]
    components: tuple[JSON, ...]
    attachments: tuple[Attachment, ...]
    flags: int


@dataclass(eq=False)
class Message:
    id: int
    channel: Channel = field(repr=False)
    author: User
    content: str = ""
    embeds: list[JSON] = field(default_factory=list, repr=False)
    components: list[JSON] = field(default_factory=list, repr=False)
    attachments: list[Attachment] = field(default_factory=list, repr=False)
    flags: int = 0
    type: int = MSG_DEFAULT
    timestamp: str = field(default_factory=iso)
    edited_timestamp: str | None = None
    webhook_id: int | None = None
    application_id: int | None = None
    interaction: Interaction | None = field(default=None, repr=False)
    """The interaction whose response (or follow-up) this message is."""
    referenced: Message | None = field(default=None, repr=False)
    mentions: list[User] = field(default_factory=list, repr=False)
    thread: Channel | None = field(default=None, repr=False)
    tts: bool = False
    nonce: str | int | None = None
    deleted: bool = False
    reactions: dict[str, set[int]] = field(default_factory=dict, repr=False)
    revisions: list[Revision] = field(default_factory=list, repr=False)

    # Convenience views for tests.

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & FLAG_EPHEMERAL)

    @property
    def loading(self) -> bool:
        """True while this is a deferred ("Bot is thinking...") response not yet edited."""
        return bool(self.flags & FLAG_LOADING)

    @property
    def files(self) -> dict[str, bytes]:
        """Attachment bytes by file name."""
        return {a.filename: a.data for a in self.attachments}

    @property
    def created_at(self) -> float:
        return self.revisions[0].at if self.revisions else 0.0

    @property
    def edits(self) -> list[Revision]:
        return [r for r in self.revisions if r.kind == "edit"]

    def iter_components(self) -> list[JSON]:
        """Every component, flattened (action rows, sections, containers are opened)."""
        found: list[JSON] = []

        def walk(items: list[JSON]) -> None:
            for item in items:
                found.append(item)
                walk(item.get("components", []))
                accessory = item.get("accessory")
                if accessory:
                    walk([accessory])
                inner = item.get("component")
                if inner:
                    walk([inner])

        walk(self.components)
        return found

    def component(self, custom_id: str) -> JSON | None:
        for item in self.iter_components():
            if item.get("custom_id") == custom_id:
                return item
        return None

    @property
    def custom_ids(self) -> list[str]:
        return [c["custom_id"] for c in self.iter_components() if "custom_id" in c]

    @property
    def buttons(self) -> list[JSON]:
        return [c for c in self.iter_components() if c.get("type") == 2]

    def snapshot(self, kind: str) -> None:
        self.revisions.append(
            Revision(
                at=time.perf_counter(),
                kind=kind,
                content=self.content,
                embeds=tuple(self.embeds),
                components=tuple(self.components),
                attachments=tuple(self.attachments),
                flags=self.flags,
            )
        )

    def to_dict(self, *, strip_content: bool = False) -> JSON:
        channel = self.channel
        data: JSON = {
            "id": str(self.id),
            "channel_id": str(channel.id),
            "author": self.author.to_dict(),
            "content": "" if strip_content else self.content,
            "timestamp": self.timestamp,
            "edited_timestamp": self.edited_timestamp,
            "tts": self.tts,
            "mention_everyone": False,
            "mentions": [u.to_dict() for u in self.mentions],
            "mention_roles": [],
            "attachments": [] if strip_content else [a.to_dict() for a in self.attachments],
            "embeds": [] if strip_content else list(self.embeds),
            "components": [] if strip_content else list(self.components),
            "pinned": False,
            "type": self.type,
            "flags": self.flags,
        }
        if channel.guild is not None:
            data["guild_id"] = str(channel.guild.id)
            member = channel.guild.members.get(self.author.id)
            if member is not None and self.webhook_id is None:
                data["member"] = member.to_dict(with_user=False)
        if self.webhook_id is not None:
            data["webhook_id"] = str(self.webhook_id)
        if self.application_id is not None:
            data["application_id"] = str(self.application_id)
        if self.nonce is not None:
            data["nonce"] = self.nonce
        if self.referenced is not None:
            ref = self.referenced
            data["message_reference"] = {
                "type": 0,
                "message_id": str(ref.id),
                "channel_id": str(ref.channel.id),
                "guild_id": _opt_str(ref.channel.guild_id),
            }
            if not ref.deleted:
                data["referenced_message"] = ref.to_dict(strip_content=strip_content)
        interaction = self.interaction
        if interaction is not None:
            data["interaction_metadata"] = interaction.metadata()
            data["interaction"] = {
                "id": str(interaction.id),
                "type": interaction.type,
                "name": interaction.command_name or "",
                "user": interaction.user.to_dict(),
            }
        if self.thread is not None:
            data["thread"] = self.thread.to_dict()
        if self.reactions:
            data["reactions"] = [
                {
                    "emoji": {"id": None, "name": emoji},
                    "count": len(users),
                    "count_details": {"burst": 0, "normal": len(users)},
                    "burst_colors": [],
                    "me": False,
                    "me_burst": False,
                }
                for emoji, users in self.reactions.items()
                if users
            ]
        return data


@dataclass(frozen=True)
class InteractionEvent:
    kind: str
    """'sent', 'callback', 'original_edit', 'original_delete', 'followup', 'followup_edit',
    'followup_delete'."""
    at: float
    message: Message | None = None
    revision: Revision | None = None
    callback_type: int | None = None


@dataclass(eq=False)
class Interaction:
    id: int
    token: str
    type: int
    user: User
    channel: Channel
    data: JSON = field(repr=False)
    payload: JSON = field(default_factory=dict, repr=False)
    """The INTERACTION_CREATE ``d`` sent to the bot."""
    message: Message | None = field(default=None, repr=False)
    """For component and modal-from-component interactions: the message the component is on."""
    command_name: str | None = None
    sent_at: float | None = None
    callback_type: int | None = None
    callback_at: float | None = None
    callback_data: JSON | None = field(default=None, repr=False)
    original: Message | None = field(default=None, repr=False)
    followups: list[Message] = field(default_factory=list, repr=False)
    events: list[InteractionEvent] = field(default_factory=list, repr=False)

    @property
    def guild(self) -> Guild | None:
        return self.channel.guild

    def record(self, kind: str, message: Message | None = None, **extra: Any) -> None:
        revision = message.revisions[-1] if message is not None and message.revisions else None
        self.events.append(
            InteractionEvent(
                kind=kind, at=time.perf_counter(), message=message, revision=revision, **extra
            )
        )

    def metadata(self) -> JSON:
        data: JSON = {
            "id": str(self.id),
            "type": self.type,
            "user": self.user.to_dict(),
            "authorizing_integration_owners": {"0": str(self.channel.guild_id or 0)},
        }
        if self.command_name is not None:
            data["name"] = self.command_name
            data["command_type"] = 1
        if self.message is not None:
            data["interacted_message_id"] = str(self.message.id)
        return data


def _opt_str(value: int | None) -> str | None:
    return None if value is None else str(value)


# ---------------------------------------------------------------------------------------------
# Payload validation: the subset of Discord's limits that a game bot is likely to trip over.


class DiscordError(Exception):
    """An error answer in Discord's shape: ``{"code": ..., "message": ..., "errors": ...}``."""

    def __init__(self, status: int, code: int, message: str, errors: JSON | None = None) -> None:
        super().__init__(f"{status} {code} {message}")
        self.status = status
        self.code = code
        self.message = message
        self.errors = errors

    def body(self) -> JSON:
        body: JSON = {"message": self.message, "code": self.code}
        if self.errors:
            body["errors"] = self.errors
        return body


def form_error(path: str, code: str, message: str) -> DiscordError:
    errors: JSON = {"_errors": [{"code": code, "message": message}]}
    for part in reversed(path.split(".")):
        errors = {part: errors}
    return DiscordError(400, 50035, "Invalid Form Body", errors)


def not_found(code: int, what: str) -> DiscordError:
    return DiscordError(404, code, f"Unknown {what}")


def validate_message_payload(
    payload: JSON, n_files: int, total_bytes: int, *, creating: bool, prefix: str = ""
) -> None:
    content = payload.get("content")
    if content is not None and len(str(content)) > 2000:
        raise form_error(
            prefix + "content", "BASE_TYPE_MAX_LENGTH", "Must be 2000 or fewer in length."
        )
    embeds = payload.get("embeds") or []
    if len(embeds) > 10:
        raise form_error(prefix + "embeds", "BASE_TYPE_MAX_LENGTH", "Must be 10 or fewer.")
    total = 0
    for index, embed in enumerate(embeds):
        for key, limit in (("title", 256), ("description", 4096)):
            value = embed.get(key) or ""
            total += len(value)
            if len(value) > limit:
                raise form_error(
                    f"{prefix}embeds.{index}.{key}",
                    "BASE_TYPE_MAX_LENGTH",
                    f"Must be {limit} or fewer in length.",
                )
        fields = embed.get("fields") or []
        if len(fields) > 25:
            raise form_error(
                f"{prefix}embeds.{index}.fields", "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer."
            )
        for f in fields:
            total += len(f.get("name", "")) + len(f.get("value", ""))
    if total > 6000:
        raise form_error(prefix + "embeds", "MAX_EMBED_SIZE_EXCEEDED", "Embed size exceeds 6000")
    if n_files > 10 or len(payload.get("attachments") or []) > 10:
        raise form_error(prefix + "attachments", "BASE_TYPE_MAX_LENGTH", "Must be 10 or fewer.")
    if total_bytes > ATTACHMENT_SIZE_LIMIT:
        raise DiscordError(413, 40005, "Request entity too large")
    validate_components(payload.get("components") or [], int(payload.get("flags") or 0), prefix)
    if creating and not (
        content
        or embeds
        or n_files
        or payload.get("components")
        or payload.get("sticker_ids")
        or payload.get("poll")
    ):
        raise DiscordError(400, 50006, "Cannot send an empty message")


def validate_components(components: list[JSON], flags: int, prefix: str = "") -> None:
    seen: set[str] = set()
    if not flags & FLAG_COMPONENTS_V2 and len(components) > 5:
        raise form_error(prefix + "components", "BASE_TYPE_MAX_LENGTH", "Must be 5 or fewer.")

    def check(items: list[JSON], path: str) -> None:
        for index, item in enumerate(items):
            here = f"{path}.{index}"
            custom_id = item.get("custom_id")
            if custom_id is not None:
                if not 1 <= len(custom_id) <= 100:
                    raise form_error(
                        here + ".custom_id",
                        "BASE_TYPE_BAD_LENGTH",
                        "Must be between 1 and 100 in length.",
                    )
                if custom_id in seen:
                    raise form_error(
                        here + ".custom_id",
                        "COMPONENT_CUSTOM_ID_DUPLICATED",
                        "Component custom id cannot be duplicated",
                    )
                seen.add(custom_id)
            label = item.get("label")
            if item.get("type") == 2 and label is not None and len(label) > 80:
                raise form_error(
                    here + ".label", "BASE_TYPE_MAX_LENGTH", "Must be 80 or fewer in length."
                )
            # Link (5) and premium (6) buttons are the only ones without a custom_id.
            if item.get("type") == 2 and item.get("style") not in (5, 6) and custom_id is None:
                raise form_error(here + ".custom_id", "BASE_TYPE_REQUIRED", "required")
            children = item.get("components") or []
            if item.get("type") == 1 and len(children) > 5:
                raise form_error(
                    here + ".components", "BASE_TYPE_MAX_LENGTH", "Must be 5 or fewer."
                )
            check(children, here + ".components")
            for key in ("accessory", "component"):
                if item.get(key):
                    check([item[key]], f"{here}.{key}")

    check(components, prefix + "components")
