"""The fake's messages and interactions: attachments, revisions, messages, interactions and what
happened to them, with their JSON shapes (Discord API v10, as discord.py 2.7.1 reads them)."""

from __future__ import annotations

import mimetypes
import struct
import time
from dataclasses import dataclass, field
from typing import Any

from .constants import FLAG_EPHEMERAL, FLAG_LOADING, MSG_DEFAULT
from .models import JSON, Channel, Guild, User, iso, snowflake_text


def png_size(data: bytes) -> tuple[int, int] | None:
    if data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR" and len(data) >= 24:
        width, height = struct.unpack(">II", data[16:24])
        return width, height
    return None


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
                "guild_id": snowflake_text(ref.channel.guild_id),
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
