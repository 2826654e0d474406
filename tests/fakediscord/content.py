"""FakeDiscord's content: messages and their attachments, threads, deletions, and the
application commands the bot registered (shared by REST handlers and the test API)."""

from __future__ import annotations

import re
import time
from collections.abc import Sequence

from .constants import (
    FLAG_COMPONENTS_V2,
    FLAG_EPHEMERAL,
    FLAG_LOADING,
    FLAG_SUPPRESS_EMBEDS,
    FLAG_SUPPRESS_NOTIFICATIONS,
    INTENT_GUILDS,
    MSG_DEFAULT,
    MSG_REPLY,
)
from .gateway import GatewaySession, message_intent_for
from .messages import Attachment, Interaction, Message
from .models import JSON, Channel, Guild, User, iso
from .records import UploadedFile
from .validation import DiscordError, form_error, validate_message_payload

MENTION_RE = re.compile(r"<@!?(\d+)>")
NONCE_SECONDS = 300.0  # Discord checks an enforced nonce "in the past few minutes"


class Content:
    """Messages, threads and commands, kept in FakeDiscord's state."""

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
