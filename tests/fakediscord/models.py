"""The fake's world: users, roles, members, guilds and channels, and their JSON shapes
(messages and interactions: messages.py; Discord's numbers: constants.py).

Payload shapes follow the Discord API v10 documentation and, where the two disagree, what
discord.py 2.7.1 actually reads (``discord/types/*.py`` and the ``_from_data`` methods).
"""

from __future__ import annotations

import datetime as dt
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .constants import DM, GUILD_TEXT, PERM_ADMINISTRATOR, THREAD_TYPES

if TYPE_CHECKING:
    from .messages import Message

JSON = dict[str, Any]

DISCORD_EPOCH_MS = 1_420_070_400_000


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
                "last_message_id": snowflake_text(self.last_message_id),
                "recipients": [u.to_dict() for u in self.recipients],
                "flags": 0,
            }
        data: JSON = {
            "id": str(self.id),
            "type": self.type,
            "guild_id": str(self.guild_id),
            "name": self.name,
            "parent_id": snowflake_text(self.parent_id),
            "last_message_id": snowflake_text(self.last_message_id),
            "rate_limit_per_user": 0,
            "flags": 0,
        }
        if self.is_thread:
            count = sum(1 for m in self.messages if not m.deleted and not m.ephemeral)
            data.update(
                owner_id=snowflake_text(self.owner_id),
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


def snowflake_text(value: int | None) -> str | None:
    return None if value is None else str(value)
