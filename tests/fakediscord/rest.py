"""The fake REST API (``/api/v10``): routes, fault injection, request log, error shapes."""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import math
import mimetypes
import re
import time
import traceback
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from aiohttp import BodyPartReader, web

from .models import (
    ANNOUNCEMENT_THREAD,
    APPLICATION_COMMAND,
    APPLICATION_COMMAND_AUTOCOMPLETE,
    APPLICATION_COMMAND_AUTOCOMPLETE_RESULT,
    CHANNEL_MESSAGE_WITH_SOURCE,
    DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE,
    DEFERRED_UPDATE_MESSAGE,
    FLAG_EPHEMERAL,
    FLAG_LOADING,
    GUILD_ANNOUNCEMENT,
    GUILD_TEXT,
    INTENT_GUILDS,
    JSON,
    MESSAGE_COMPONENT,
    MODAL,
    MODAL_SUBMIT,
    MSG_CHAT_INPUT_COMMAND,
    PRIVATE_THREAD,
    PUBLIC_THREAD,
    UPDATE_MESSAGE,
    Channel,
    DiscordError,
    Guild,
    Interaction,
    Message,
    form_error,
    not_found,
)
from .records import Fault, RequestRecord, UploadedFile

if TYPE_CHECKING:
    from .server import FakeDiscord

log = logging.getLogger("fakediscord.rest")

PREFIX = "/api/v10"
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
FILE_FIELD_RE = re.compile(r"^files\[(\d+)\]$")
COMMAND_NAME_RE = re.compile(r"^[-_\w]{1,32}$")

# Routes that authenticate with the token in the URL (or the OAuth2 client's), not the bot
# token; and those a user's OAuth2 Bearer token may read too.
NO_AUTH = ("/interactions/", "/webhooks/{webhook_id}/{webhook_token}", "/oauth2/token")
BEARER = ("/users/@me",)


def json_response(
    data: Any, status: int = 200, headers: dict[str, str] | None = None
) -> web.Response:
    # Exactly "application/json": discord.py's json_or_text() compares the header verbatim, so
    # aiohttp's json_response ("application/json; charset=utf-8") would come back as a str.
    all_headers = {"Content-Type": "application/json"}
    all_headers.update(headers or {})
    return web.Response(body=json.dumps(data).encode(), status=status, headers=all_headers)


def error_response(error: DiscordError) -> web.Response:
    return json_response(error.body(), error.status)


def no_content() -> web.Response:
    return web.Response(status=204)


class Body:
    def __init__(self, payload: Any, files: list[UploadedFile], size: int) -> None:
        self.json: Any = payload
        """The JSON body (or ``payload_json`` of a multipart body): usually a dict."""
        self.files = files
        self.size = size


async def read_body(request: web.Request) -> Body:
    if request.content_type.startswith("multipart/"):
        payload: JSON = {}
        files: list[UploadedFile] = []
        size = 0
        reader = await request.multipart()
        while True:
            part = await reader.next()
            if part is None:
                break
            if not isinstance(part, BodyPartReader):
                continue
            raw = await part.read(decode=False)
            size += len(raw)
            if part.name == "payload_json":
                payload = json.loads(raw or b"{}")
            elif part.filename is not None:
                match = FILE_FIELD_RE.match(part.name or "")
                index = int(match.group(1)) if match else len(files)
                content_type = part.headers.get("Content-Type")
                files.append(UploadedFile(index, part.filename, bytes(raw), content_type))
            elif part.name:
                payload[part.name] = raw.decode()
        return Body(payload, files, size)
    raw = await request.read()
    return Body(json.loads(raw) if raw else {}, [], len(raw))


class RestApi:
    def __init__(self, fake: FakeDiscord) -> None:
        self.fake = fake
        self._route_keys: dict[int, str] = {}

    # ----------------------------------------------------------------------------------------
    # Plumbing.

    def add_routes(self, app: web.Application) -> None:
        r = app.router
        routes: list[tuple[str, str, Handler]] = [
            ("GET", "/gateway", self.get_gateway),
            ("GET", "/gateway/bot", self.get_gateway_bot),
            ("GET", "/users/@me", self.get_me),
            ("POST", "/oauth2/token", self.fake.oauth.token),
            ("GET", "/users/@me/guilds", self.get_my_guilds),
            ("POST", "/users/@me/channels", self.create_dm),
            ("GET", "/users/{user_id}", self.get_user),
            ("GET", "/oauth2/applications/@me", self.get_application),
            ("GET", "/applications/@me", self.get_application),
            ("GET", "/applications/{application_id}/commands", self.list_commands),
            ("PUT", "/applications/{application_id}/commands", self.put_commands),
            ("POST", "/applications/{application_id}/commands", self.upsert_command),
            ("GET", "/applications/{application_id}/commands/{command_id}", self.get_command),
            ("PATCH", "/applications/{application_id}/commands/{command_id}", self.edit_command),
            ("DELETE", "/applications/{application_id}/commands/{command_id}", self.del_command),
            (
                "GET",
                "/applications/{application_id}/guilds/{guild_id}/commands/permissions",
                self.command_permissions,
            ),
            (
                "GET",
                "/applications/{application_id}/guilds/{guild_id}/commands",
                self.list_commands,
            ),
            ("PUT", "/applications/{application_id}/guilds/{guild_id}/commands", self.put_commands),
            (
                "POST",
                "/applications/{application_id}/guilds/{guild_id}/commands",
                self.upsert_command,
            ),
            (
                "GET",
                "/applications/{application_id}/guilds/{guild_id}/commands/{command_id}",
                self.get_command,
            ),
            (
                "PATCH",
                "/applications/{application_id}/guilds/{guild_id}/commands/{command_id}",
                self.edit_command,
            ),
            (
                "DELETE",
                "/applications/{application_id}/guilds/{guild_id}/commands/{command_id}",
                self.del_command,
            ),
            ("POST", "/interactions/{webhook_id}/{webhook_token}/callback", self.callback),
            ("POST", "/webhooks/{webhook_id}/{webhook_token}", self.followup),
            (
                "GET",
                "/webhooks/{webhook_id}/{webhook_token}/messages/{message_id}",
                self.webhook_get,
            ),
            (
                "PATCH",
                "/webhooks/{webhook_id}/{webhook_token}/messages/{message_id}",
                self.webhook_edit,
            ),
            (
                "DELETE",
                "/webhooks/{webhook_id}/{webhook_token}/messages/{message_id}",
                self.webhook_delete,
            ),
            ("GET", "/channels/{channel_id}", self.get_channel),
            ("PATCH", "/channels/{channel_id}", self.edit_channel),
            ("DELETE", "/channels/{channel_id}", self.delete_channel),
            ("GET", "/channels/{channel_id}/messages", self.list_messages),
            ("POST", "/channels/{channel_id}/messages", self.send_message),
            ("POST", "/channels/{channel_id}/messages/bulk-delete", self.bulk_delete),
            ("GET", "/channels/{channel_id}/messages/{message_id}", self.get_message),
            ("PATCH", "/channels/{channel_id}/messages/{message_id}", self.edit_message),
            ("DELETE", "/channels/{channel_id}/messages/{message_id}", self.delete_message),
            (
                "PUT",
                "/channels/{channel_id}/messages/{message_id}/reactions/{emoji}/@me",
                self.add_reaction,
            ),
            (
                "DELETE",
                "/channels/{channel_id}/messages/{message_id}/reactions/{emoji}/@me",
                self.remove_reaction,
            ),
            (
                "POST",
                "/channels/{channel_id}/messages/{message_id}/threads",
                self.thread_from_message,
            ),
            ("POST", "/channels/{channel_id}/threads", self.thread_without_message),
            ("POST", "/channels/{channel_id}/typing", self.typing),
            ("GET", "/channels/{channel_id}/thread-members", self.list_thread_members),
            ("PUT", "/channels/{channel_id}/thread-members/@me", self.join_thread),
            ("DELETE", "/channels/{channel_id}/thread-members/@me", self.leave_thread),
            ("PUT", "/channels/{channel_id}/thread-members/{user_id}", self.add_thread_member),
            (
                "DELETE",
                "/channels/{channel_id}/thread-members/{user_id}",
                self.remove_thread_member,
            ),
            ("GET", "/guilds/{guild_id}", self.get_guild),
            ("GET", "/guilds/{guild_id}/channels", self.get_guild_channels),
            ("GET", "/guilds/{guild_id}/roles", self.get_roles),
            ("GET", "/guilds/{guild_id}/members", self.list_members),
            ("GET", "/guilds/{guild_id}/members/{user_id}", self.get_member),
            ("GET", "/guilds/{guild_id}/threads/active", self.active_threads),
        ]
        for method, path, handler in routes:
            route = r.add_route(method, PREFIX + path, handler)
            self._route_keys[id(route)] = f"{method} {path}"

    @web.middleware
    async def middleware(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        if request.path.startswith(("/gateway", "/resume", "/attachments/", "/oauth2/")):
            return await handler(request)  # The gateway websocket, the CDN, OAuth2's page.
        fake = self.fake
        key = self._route_keys.get(id(request.match_info.route))
        known = request.match_info.http_exception is None and key is not None
        record = RequestRecord(
            method=request.method,
            path=request.path,
            route=key if key is not None else f"{request.method} {request.path}",
            query=dict(request.query),
            started=time.perf_counter(),
            request_bytes=request.content_length or 0,
        )
        fake.requests.append(record)
        try:
            response = await self._answer(request, handler, record, known)
        finally:
            record.finished = time.perf_counter()
            fake._notify()
        record.status = response.status
        return response

    async def _answer(
        self, request: web.Request, handler: Handler, record: RequestRecord, known: bool
    ) -> web.StreamResponse:
        fake = self.fake
        if not known:
            entry = f"{request.method} {request.path}"
            log.warning("fake discord: unknown route %s", entry)
            fake.unknown_routes.append(entry)
            return json_response({"message": "404: Not Found", "code": 0}, 404)
        template = record.route.split(" ", 1)[1]
        needs_auth = not template.startswith(NO_AUTH) and template != "/gateway"
        as_bot = request.headers.get("Authorization") == f"Bot {fake.token}"
        as_user = template in BEARER and fake.oauth.bearer_user(request) is not None
        if needs_auth and not (as_bot or as_user):
            return json_response({"message": "401: Unauthorized", "code": 0}, 401)
        for fault in list(fake.faults):
            if not fault.matches(record):
                continue
            fault.hits += 1
            if fault.kind == "delay":
                await asyncio.sleep(fault.delay)
                continue
            record.fault = fault.kind
            await request.read()
            return self._fault_response(fault, record)
        try:
            response = await handler(request)
        except DiscordError as error:
            return error_response(error)
        except web.HTTPException:
            raise
        except Exception as exc:
            text = traceback.format_exc()
            log.error(
                "fake discord internal error on %s %s\n%s", request.method, request.path, text
            )
            fake.internal_errors.append(f"{record.route}: {exc!r}")
            # Not a 5xx: discord.py would retry those for ~25 s. 418 fails the request at once.
            return json_response(
                {"message": f"fake discord internal error: {exc!r}", "code": 0}, 418
            )
        if fake.ratelimit_headers and 200 <= response.status < 300:
            response.headers.update(self._ratelimit_headers(record.route, 50, 49, 1.0))
        return response

    @staticmethod
    def _ratelimit_headers(
        route: str, limit: int, remaining: int, reset_after: float
    ) -> dict[str, str]:
        return {
            "X-RateLimit-Limit": str(limit),
            "X-RateLimit-Remaining": str(remaining),
            "X-RateLimit-Reset": f"{time.time() + reset_after:.3f}",
            "X-RateLimit-Reset-After": f"{reset_after:.3f}",
            "X-RateLimit-Bucket": hashlib.sha1(route.encode()).hexdigest()[:16],
        }

    def _fault_response(self, fault: Fault, record: RequestRecord) -> web.Response:
        if fault.kind == "ratelimit":
            headers = self._ratelimit_headers(record.route, 1, 0, fault.retry_after)
            headers.update(
                {
                    "Retry-After": str(max(1, math.ceil(fault.retry_after))),
                    "X-RateLimit-Scope": fault.scope,
                    "Via": "1.1 google",
                }
            )
            if fault.is_global:
                headers["X-RateLimit-Global"] = "true"
            body = {
                "message": "You are being rate limited.",
                "retry_after": fault.retry_after,
                "global": fault.is_global,
                "code": 0,
            }
            return json_response(body, 429, headers)
        status = fault.status
        message = fault.message or f"{status}: {web.Response(status=status).reason}"
        return json_response({"message": message, "code": fault.code}, status)

    # ----------------------------------------------------------------------------------------
    # Lookups.

    def _channel(self, request: web.Request) -> Channel:
        channel = self.fake.channels.get(_int(request.match_info["channel_id"]))
        if channel is None or channel.deleted:
            raise not_found(10003, "Channel")
        return channel

    def _message(self, request: web.Request, channel: Channel) -> Message:
        message = self.fake.messages.get(_int(request.match_info["message_id"]))
        if (
            message is None
            or message.deleted
            or message.channel is not channel
            or message.ephemeral
        ):
            raise not_found(10008, "Message")
        return message

    def _guild(self, request: web.Request) -> Guild:
        guild = self.fake.guilds.get(_int(request.match_info["guild_id"]))
        if guild is None:
            raise not_found(10004, "Guild")
        return guild

    def _interaction_by_token(self, request: web.Request) -> Interaction:
        interaction = self.fake.interactions_by_token.get(request.match_info["webhook_token"])
        if (
            interaction is None
            or _int(request.match_info["webhook_id"]) != self.fake.application_id
        ):
            raise not_found(10015, "Webhook")
        if interaction.callback_type is None:
            raise not_found(10015, "Webhook")
        return interaction

    def _message_dict(self, message: Message) -> JSON:
        visible = self.fake.content_visible(
            message, "message_content" in self.fake.privileged_intents
        )
        return message.to_dict(strip_content=not visible)

    # ----------------------------------------------------------------------------------------
    # Gateway, users, application.

    async def get_gateway(self, request: web.Request) -> web.Response:
        return json_response({"url": self.fake.gateway_url})

    async def get_gateway_bot(self, request: web.Request) -> web.Response:
        return json_response(
            {
                "url": self.fake.gateway_url,
                "shards": self.fake.shard_count,
                "session_start_limit": {
                    "total": 1000,
                    "remaining": 999,
                    "reset_after": 14_400_000,
                    "max_concurrency": 1,
                },
            }
        )

    async def get_me(self, request: web.Request) -> web.Response:
        user = self.fake.oauth.bearer_user(request)  # a user signed in to a site, or the bot
        return json_response(self.fake.bot_user_dict() if user is None else user.to_dict())

    async def get_my_guilds(self, request: web.Request) -> web.Response:
        return json_response(
            [
                {
                    "id": str(g.id),
                    "name": g.name,
                    "icon": None,
                    "owner": False,
                    "permissions": str(g.members[self.fake.bot.id].permissions),
                    "features": [],
                }
                for g in self.fake.guilds.values()
            ]
        )

    async def get_user(self, request: web.Request) -> web.Response:
        user = self.fake.users.get(_int(request.match_info["user_id"]))
        if user is None:
            raise not_found(10013, "User")
        return json_response(user.to_dict())

    async def create_dm(self, request: web.Request) -> web.Response:
        body = await read_body(request)
        user = self.fake.users.get(_int(body.json.get("recipient_id")))
        if user is None:
            raise form_error("recipient_id", "USER_NOT_FOUND", "Unknown user")
        if user.bot:
            raise DiscordError(403, 50007, "Cannot send messages to this user")
        return json_response(self.fake.dm_channel(user).to_dict())

    async def get_application(self, request: web.Request) -> web.Response:
        fake = self.fake
        return json_response(
            {
                "id": str(fake.application_id),
                "name": fake.bot.username,
                "icon": None,
                "description": "a fake application",
                "rpc_origins": [],
                "bot_public": True,
                "bot_require_code_grant": False,
                "bot": fake.bot.to_dict(),
                "owner": fake.owner.to_dict(),
                "team": None,
                "verify_key": "0" * 64,
                "flags": fake.application_flags,
                "summary": "",
                "tags": [],
                "redirect_uris": [],
                "interactions_endpoint_url": None,
                "approximate_guild_count": len(fake.guilds),
                "integration_types_config": {"0": {}},
            }
        )

    # ----------------------------------------------------------------------------------------
    # Application commands.

    def _command_store(self, request: web.Request) -> tuple[dict[int, JSON], int | None]:
        if _int(request.match_info["application_id"]) != self.fake.application_id:
            raise not_found(10002, "Application")
        if "guild_id" in request.match_info:
            guild = self._guild(request)
            return self.fake.guild_commands.setdefault(guild.id, {}), guild.id
        return self.fake.global_commands, None

    def _complete_command(
        self, data: JSON, existing: JSON | None, guild_id: int | None, where: str
    ) -> JSON:
        name = data.get("name", "")
        ctype = int(data.get("type", 1))
        if not COMMAND_NAME_RE.match(name) or (ctype == 1 and name != name.lower()):
            raise form_error(
                f"{where}name", "APPLICATION_COMMAND_INVALID_NAME", f"bad name {name!r}"
            )
        description = data.get("description", "")
        if ctype == 1 and not 1 <= len(description) <= 100:
            raise form_error(
                f"{where}description",
                "BASE_TYPE_BAD_LENGTH",
                "Must be between 1 and 100 in length.",
            )
        _check_options(data.get("options") or [], f"{where}options")
        command: JSON = {
            "type": ctype,
            "description": description,
            "options": [],
            "default_member_permissions": None,
            "dm_permission": True,
            "nsfw": False,
            **data,
        }
        command["id"] = existing["id"] if existing else str(self.fake._snowflake())
        command["application_id"] = str(self.fake.application_id)
        command["version"] = str(self.fake._snowflake())
        if guild_id is not None:
            command["guild_id"] = str(guild_id)
        return command

    async def list_commands(self, request: web.Request) -> web.Response:
        store, _ = self._command_store(request)
        return json_response(list(store.values()))

    async def put_commands(self, request: web.Request) -> web.Response:
        store, guild_id = self._command_store(request)
        body = await read_body(request)
        commands = body.json if isinstance(body.json, list) else []
        if len(commands) > 100:
            raise form_error("_", "BASE_TYPE_MAX_LENGTH", "Must be 100 or fewer.")
        seen: set[tuple[str, int]] = set()
        by_key = {(c["name"], int(c.get("type", 1))): c for c in store.values()}
        fresh: dict[int, JSON] = {}
        for index, data in enumerate(commands):
            key = (data.get("name", ""), int(data.get("type", 1)))
            if key in seen:
                raise form_error(
                    f"{index}.name", "APPLICATION_COMMANDS_DUPLICATE_NAME", "duplicate"
                )
            seen.add(key)
            command = self._complete_command(data, by_key.get(key), guild_id, f"{index}.")
            fresh[int(command["id"])] = command
        store.clear()
        store.update(fresh)
        self.fake._notify()
        return json_response(list(store.values()))

    async def upsert_command(self, request: web.Request) -> web.Response:
        store, guild_id = self._command_store(request)
        data = (await read_body(request)).json
        key = (data.get("name", ""), int(data.get("type", 1)))
        existing = next(
            (c for c in store.values() if (c["name"], int(c.get("type", 1))) == key), None
        )
        command = self._complete_command(data, existing, guild_id, "")
        store[int(command["id"])] = command
        self.fake._notify()
        return json_response(command, 200 if existing else 201)

    def _find_command(self, request: web.Request) -> tuple[dict[int, JSON], int | None, JSON]:
        store, guild_id = self._command_store(request)
        command = store.get(_int(request.match_info["command_id"]))
        if command is None:
            raise not_found(10063, "application command")
        return store, guild_id, command

    async def get_command(self, request: web.Request) -> web.Response:
        return json_response(self._find_command(request)[2])

    async def edit_command(self, request: web.Request) -> web.Response:
        store, guild_id, command = self._find_command(request)
        data = (await read_body(request)).json
        merged = {**command, **data}
        updated = self._complete_command(merged, command, guild_id, "")
        store[int(updated["id"])] = updated
        self.fake._notify()
        return json_response(updated)

    async def del_command(self, request: web.Request) -> web.Response:
        store, _, command = self._find_command(request)
        del store[int(command["id"])]
        self.fake._notify()
        return no_content()

    async def command_permissions(self, request: web.Request) -> web.Response:
        self._command_store(request)
        return json_response([])

    # ----------------------------------------------------------------------------------------
    # Interactions.

    async def callback(self, request: web.Request) -> web.Response:
        fake = self.fake
        interaction = fake.interactions.get(_int(request.match_info["webhook_id"]))
        if interaction is None or interaction.token != request.match_info["webhook_token"]:
            raise not_found(10062, "interaction")
        body = await read_body(request)
        if interaction.callback_type is not None:
            raise DiscordError(400, 40060, "Interaction has already been acknowledged.")
        sent_at = interaction.sent_at or 0.0
        if time.perf_counter() - sent_at > fake.interaction_ack_timeout:
            raise not_found(10062, "interaction")
        ctype = int(body.json.get("type", 0))
        data: JSON = body.json.get("data") or {}
        itype = interaction.type
        from_component = interaction.message is not None
        allowed = {
            APPLICATION_COMMAND: {4, 5, 9},
            MESSAGE_COMPONENT: {4, 5, 6, 7, 9},
            APPLICATION_COMMAND_AUTOCOMPLETE: {8},
            MODAL_SUBMIT: {4, 5, 6, 7} if from_component else {4, 5},
        }[itype]
        if ctype not in allowed:
            raise form_error(
                "type", "INTERACTION_CALLBACK_TYPE_INVALID", f"callback {ctype} for {itype}"
            )
        message: Message | None = None
        resource: JSON | None = None
        if ctype == CHANNEL_MESSAGE_WITH_SOURCE:
            message = fake.create_message(
                interaction.channel,
                fake.bot,
                data,
                body.files,
                interaction=interaction,
                msg_type=MSG_CHAT_INPUT_COMMAND if itype == APPLICATION_COMMAND else 0,
                prefix="data.",
            )
            interaction.original = message
        elif ctype == DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE:
            flags = FLAG_LOADING | (int(data.get("flags") or 0) & FLAG_EPHEMERAL)
            message = fake.create_message(
                interaction.channel,
                fake.bot,
                {},
                interaction=interaction,
                msg_type=MSG_CHAT_INPUT_COMMAND if itype == APPLICATION_COMMAND else 0,
                extra_flags=flags,
                validate=False,
            )
            interaction.original = message
        elif ctype == DEFERRED_UPDATE_MESSAGE:
            interaction.original = interaction.message
        elif ctype == UPDATE_MESSAGE:
            assert interaction.message is not None
            message = fake.edit_message(interaction.message, data, body.files, prefix="data.")
            interaction.original = message
        elif ctype == APPLICATION_COMMAND_AUTOCOMPLETE_RESULT:
            choices = data.get("choices") or []
            if len(choices) > 25:
                raise form_error("data.choices", "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer.")
            for index, choice in enumerate(choices):
                if not 1 <= len(str(choice.get("name", ""))) <= 100:
                    raise form_error(
                        f"data.choices.{index}.name",
                        "BASE_TYPE_BAD_LENGTH",
                        "Must be between 1 and 100 in length.",
                    )
        elif ctype == MODAL:
            _check_modal(data)
        interaction.callback_type = ctype
        interaction.callback_at = time.perf_counter()
        interaction.callback_data = data
        interaction.record("callback", message, callback_type=ctype)
        fake._notify()
        if request.query.get("with_response") not in ("1", "true", "True"):
            return no_content()
        callback: JSON = {"id": str(interaction.id), "type": itype}
        if message is not None:
            callback.update(
                response_message_id=str(message.id),
                response_message_loading=message.loading,
                response_message_ephemeral=message.ephemeral,
            )
            resource = {"type": ctype, "message": message.to_dict()}
        answer: JSON = {"interaction": callback}
        if resource is not None:
            answer["resource"] = resource
        return json_response(answer)

    async def followup(self, request: web.Request) -> web.Response:
        fake = self.fake
        interaction = self._interaction_by_token(request)
        body = await read_body(request)
        original = interaction.original
        if (
            interaction.callback_type == DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE
            and original is not None
            and original.loading
            and not original.deleted
        ):
            # Discord: the first follow-up after a "thinking" defer replaces the placeholder.
            message = fake.edit_message(original, body.json, body.files)
        else:
            message = fake.create_message(
                interaction.channel, fake.bot, body.json, body.files, interaction=interaction
            )
        interaction.followups.append(message)
        interaction.record("followup", message)
        fake._notify()
        if request.query.get("wait") in ("true", "1", "True"):
            return json_response(message.to_dict())
        return no_content()

    def _webhook_message(self, request: web.Request, interaction: Interaction) -> Message:
        ident = request.match_info["message_id"]
        if ident == "@original":
            message = interaction.original
        else:
            message_id = _int(ident)
            candidates = [interaction.original, *interaction.followups]
            message = next((m for m in candidates if m is not None and m.id == message_id), None)
        if message is None or message.deleted:
            raise not_found(10008, "Message")
        return message

    async def webhook_get(self, request: web.Request) -> web.Response:
        interaction = self._interaction_by_token(request)
        return json_response(self._webhook_message(request, interaction).to_dict())

    async def webhook_edit(self, request: web.Request) -> web.Response:
        interaction = self._interaction_by_token(request)
        message = self._webhook_message(request, interaction)
        body = await read_body(request)
        self.fake.edit_message(message, body.json, body.files)
        original = (
            request.match_info["message_id"] == "@original" or message is interaction.original
        )
        interaction.record("original_edit" if original else "followup_edit", message)
        self.fake._notify()
        return json_response(message.to_dict())

    async def webhook_delete(self, request: web.Request) -> web.Response:
        interaction = self._interaction_by_token(request)
        message = self._webhook_message(request, interaction)
        self.fake.delete_message(message)
        original = message is interaction.original
        interaction.record("original_delete" if original else "followup_delete", message)
        return no_content()

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
        return await self._set_thread_member(request, _int(request.match_info["user_id"]), True)

    async def remove_thread_member(self, request: web.Request) -> web.Response:
        return await self._set_thread_member(request, _int(request.match_info["user_id"]), False)

    # ----------------------------------------------------------------------------------------
    # Guilds.

    async def get_guild(self, request: web.Request) -> web.Response:
        return json_response(self._guild(request).to_rest_dict())

    async def get_guild_channels(self, request: web.Request) -> web.Response:
        guild = self._guild(request)
        return json_response(
            [c.to_dict() for c in guild.channels if not c.is_thread and not c.deleted]
        )

    async def get_roles(self, request: web.Request) -> web.Response:
        return json_response([r.to_dict() for r in self._guild(request).roles.values()])

    async def list_members(self, request: web.Request) -> web.Response:
        guild = self._guild(request)
        limit = max(1, min(1000, int(request.query.get("limit", 1))))
        after = int(request.query.get("after", 0))
        members = sorted(guild.members.values(), key=lambda m: m.user.id)
        members = [m for m in members if m.user.id > after][:limit]
        return json_response([m.to_dict() for m in members])

    async def get_member(self, request: web.Request) -> web.Response:
        guild = self._guild(request)
        member = guild.members.get(_int(request.match_info["user_id"]))
        if member is None:
            raise not_found(10007, "Member")
        return json_response(member.to_dict())

    async def active_threads(self, request: web.Request) -> web.Response:
        guild = self._guild(request)
        threads = [t for t in guild.threads if not t.archived]
        members = [
            self._thread_member_dict(t, self.fake.bot.id)
            for t in threads
            if self.fake.bot.id in t.thread_members
        ]
        return json_response({"threads": [t.to_dict() for t in threads], "members": members})

    # ----------------------------------------------------------------------------------------
    # The CDN.

    async def cdn(self, request: web.Request) -> web.Response:
        attachment = self.fake.attachments.get(_int(request.match_info["attachment_id"]))
        if attachment is None or attachment.filename != request.match_info["filename"]:
            return web.Response(status=404, text="Not Found")
        content_type = attachment.content_type or mimetypes.guess_type(attachment.filename)[0]
        return web.Response(
            body=attachment.data, content_type=content_type or "application/octet-stream"
        )


def _int(value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        raise form_error("id", "NUMBER_TYPE_COERCE", f"Value {value!r} is not snowflake.") from None


def _thread_name(data: JSON) -> str:
    name = str(data.get("name") or "")
    if not 1 <= len(name) <= 100:
        raise form_error("name", "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 100 in length.")
    return name


def _check_options(options: list[JSON], where: str) -> None:
    if len(options) > 25:
        raise form_error(where, "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer.")
    optional_seen = False
    names: set[str] = set()
    for index, option in enumerate(options):
        here = f"{where}.{index}"
        name = option.get("name", "")
        if not COMMAND_NAME_RE.match(name) or name != name.lower():
            raise form_error(
                f"{here}.name", "APPLICATION_COMMAND_INVALID_NAME", f"bad name {name!r}"
            )
        if name in names:
            raise form_error(
                f"{here}.name", "APPLICATION_COMMAND_OPTIONS_NAME_ALREADY_EXISTS", name
            )
        names.add(name)
        if not 1 <= len(option.get("description", "")) <= 100:
            raise form_error(
                f"{here}.description",
                "BASE_TYPE_BAD_LENGTH",
                "Must be between 1 and 100 in length.",
            )
        if option.get("type") in (1, 2):
            _check_options(option.get("options") or [], f"{here}.options")
            continue
        if option.get("required"):
            if optional_seen:
                raise form_error(
                    here,
                    "APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID",
                    "Required options must be placed before non-required options",
                )
        else:
            optional_seen = True
        if len(option.get("choices") or []) > 25:
            raise form_error(f"{here}.choices", "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer.")


def _check_modal(data: JSON) -> None:
    title = data.get("title", "")
    if not 1 <= len(title) <= 45:
        raise form_error(
            "data.title", "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 45 in length."
        )
    custom_id = data.get("custom_id", "")
    if not 1 <= len(custom_id) <= 100:
        raise form_error(
            "data.custom_id", "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 100 in length."
        )
    components = data.get("components") or []
    if not 1 <= len(components) <= 5:
        raise form_error("data.components", "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 5.")
