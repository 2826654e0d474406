"""The fake REST API's routes for channels, messages, reactions, typing and threads."""

from __future__ import annotations

from aiohttp import web

from .constants import (
    ANNOUNCEMENT_THREAD,
    GUILD_ANNOUNCEMENT,
    GUILD_TEXT,
    INTENT_GUILDS,
    PRIVATE_THREAD,
    PUBLIC_THREAD,
)
from .models import JSON, Channel
from .responses import as_snowflake, json_response, no_content, read_body
from .validation import DiscordError, form_error, not_found


class ChannelRoutes:
    """RestApi's routes for channels, messages and threads."""

    # ----------------------------------------------------------------------------------------
    # Channels and messages.

    async def get_channel(self, request: web.Request) -> web.Response:
        return json_response(self._channel(request).to_dict())

    async def edit_channel(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        data = (await read_body(request)).json
        if "name" in data:
            channel.name = data["name"]
        if "topic" in data:
            channel.topic = data["topic"]
        for key in ("archived", "locked", "invitable", "auto_archive_duration"):
            if key in data and channel.is_thread:
                setattr(channel, key, data[key])
        event = "THREAD_UPDATE" if channel.is_thread else "CHANNEL_UPDATE"
        self.fake._emit(event, channel.to_dict(), channel.guild_id, INTENT_GUILDS)
        return json_response(channel.to_dict())

    async def delete_channel(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        self.fake.delete_channel(channel)
        return json_response(channel.to_dict())

    async def list_messages(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        messages = channel.visible_messages()
        query = request.query
        limit = max(1, min(100, int(query.get("limit", 50))))
        if "before" in query:
            before = int(query["before"])
            messages = [m for m in messages if m.id < before][-limit:]
        elif "after" in query:
            after = int(query["after"])
            messages = [m for m in messages if m.id > after][:limit]
        elif "around" in query:
            around = int(query["around"])
            older = [m for m in messages if m.id < around][-(limit // 2) :]
            newer = [m for m in messages if m.id >= around][: limit - len(older)]
            messages = older + newer
        else:
            messages = messages[-limit:]
        return json_response([self._message_dict(m) for m in reversed(messages)])

    async def send_message(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        if channel.is_thread and channel.archived and channel.locked:
            raise DiscordError(400, 50083, "Thread is archived")
        if channel.is_dm and not channel.recipients[0].dms_open:
            raise DiscordError(403, 50007, "Cannot send messages to this user")
        body = await read_body(request)
        message = self.fake.nonce_repeat(channel, self.fake.bot, body.json)
        if message is None:
            message = self.fake.create_message(channel, self.fake.bot, body.json, body.files)
        return json_response(message.to_dict())

    async def get_message(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        return json_response(self._message_dict(self._message(request, channel)))

    async def edit_message(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        message = self._message(request, channel)
        if message.author is not self.fake.bot:
            raise DiscordError(403, 50005, "Cannot edit a message authored by another user")
        body = await read_body(request)
        self.fake.edit_message(message, body.json, body.files)
        return json_response(message.to_dict())

    async def delete_message(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        self.fake.delete_message(self._message(request, channel))
        return no_content()

    async def bulk_delete(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        ids = (await read_body(request)).json.get("messages", [])
        if not 2 <= len(ids) <= 100:
            raise form_error("messages", "BASE_TYPE_BAD_LENGTH", "Must be between 2 and 100.")
        for ident in ids:
            message = self.fake.messages.get(int(ident))
            if message is not None and message.channel is channel and not message.deleted:
                self.fake.delete_message(message)
        return no_content()

    async def add_reaction(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        message = self._message(request, channel)
        emoji = request.match_info["emoji"]
        message.reactions.setdefault(emoji, set()).add(self.fake.bot.id)
        self.fake._notify()
        return no_content()

    async def remove_reaction(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        message = self._message(request, channel)
        message.reactions.get(request.match_info["emoji"], set()).discard(self.fake.bot.id)
        self.fake._notify()
        return no_content()

    async def typing(self, request: web.Request) -> web.Response:
        self._channel(request)
        return no_content()

    def _thread_parent(self, channel: Channel) -> None:
        if channel.type not in (GUILD_TEXT, GUILD_ANNOUNCEMENT):
            raise DiscordError(400, 50024, "Cannot execute action on this channel type")

    async def thread_from_message(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        self._thread_parent(channel)
        message = self._message(request, channel)
        if message.thread is not None:
            raise DiscordError(400, 160004, "A thread has already been created for this message")
        data = (await read_body(request)).json
        name = _thread_name(data)
        thread = self.fake.create_thread(
            channel,
            name,
            owner=self.fake.bot,
            thread_type=ANNOUNCEMENT_THREAD
            if channel.type == GUILD_ANNOUNCEMENT
            else PUBLIC_THREAD,
            auto_archive_duration=int(data.get("auto_archive_duration") or 1440),
            starter=message,
        )
        return json_response(thread.to_dict(), 201)

    async def thread_without_message(self, request: web.Request) -> web.Response:
        channel = self._channel(request)
        self._thread_parent(channel)
        data = (await read_body(request)).json
        thread_type = int(data.get("type") or PRIVATE_THREAD)
        if thread_type not in (PUBLIC_THREAD, PRIVATE_THREAD, ANNOUNCEMENT_THREAD):
            raise form_error("type", "BASE_TYPE_CHOICES", f"bad thread type {thread_type}")
        thread = self.fake.create_thread(
            channel,
            _thread_name(data),
            owner=self.fake.bot,
            thread_type=thread_type,
            auto_archive_duration=int(data.get("auto_archive_duration") or 1440),
            invitable=bool(data.get("invitable", True)),
        )
        return json_response(thread.to_dict(), 201)

    def _thread(self, request: web.Request) -> Channel:
        channel = self._channel(request)
        if not channel.is_thread:
            raise DiscordError(400, 50024, "Cannot execute action on this channel type")
        return channel

    def _thread_member_dict(self, thread: Channel, user_id: int) -> JSON:
        return {
            "id": str(thread.id),
            "user_id": str(user_id),
            "join_timestamp": thread.created_at,
            "flags": 0,
        }

    async def list_thread_members(self, request: web.Request) -> web.Response:
        thread = self._thread(request)
        return json_response([self._thread_member_dict(thread, u) for u in thread.thread_members])

    async def _set_thread_member(
        self, request: web.Request, user_id: int, join: bool
    ) -> web.Response:
        thread = self._thread(request)
        if user_id not in self.fake.users:
            raise not_found(10013, "User")
        if join:
            thread.thread_members.add(user_id)
        else:
            thread.thread_members.discard(user_id)
        self.fake._notify()
        return no_content()

    async def join_thread(self, request: web.Request) -> web.Response:
        return await self._set_thread_member(request, self.fake.bot.id, True)

    async def leave_thread(self, request: web.Request) -> web.Response:
        return await self._set_thread_member(request, self.fake.bot.id, False)

    async def add_thread_member(self, request: web.Request) -> web.Response:
        return await self._set_thread_member(
            request, as_snowflake(request.match_info["user_id"]), True
        )

    async def remove_thread_member(self, request: web.Request) -> web.Response:
        return await self._set_thread_member(
            request, as_snowflake(request.match_info["user_id"]), False
        )


def _thread_name(data: JSON) -> str:
    name = str(data.get("name") or "")
    if not 1 <= len(name) <= 100:
        raise form_error("name", "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 100 in length.")
    return name
