"""The fake REST API (``/api/v10``): the route table, authentication, the request log, injected
faults and rate-limit headers, and lookups. The routes by resource are mixed in: rest_guilds.py,
rest_commands.py, rest_interactions.py, rest_channels.py; answers and bodies: responses.py."""

from __future__ import annotations

import asyncio
import hashlib
import logging
import math
import time
import traceback
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from aiohttp import web

from .messages import Interaction, Message
from .models import JSON, Channel, Guild
from .records import Fault, RequestRecord
from .responses import as_snowflake, error_response, json_response
from .rest_channels import ChannelRoutes
from .rest_commands import CommandRoutes
from .rest_guilds import GuildRoutes
from .rest_interactions import InteractionRoutes
from .validation import DiscordError, not_found

if TYPE_CHECKING:
    from .server import FakeDiscord

log = logging.getLogger("fakediscord.rest")

PREFIX = "/api/v10"
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

# Routes that authenticate with the token in the URL (or the OAuth2 client's), not the bot
# token; and those a user's OAuth2 Bearer token may read too.
NO_AUTH = ("/interactions/", "/webhooks/{webhook_id}/{webhook_token}", "/oauth2/token")
BEARER = ("/users/@me",)


class RestApi(GuildRoutes, CommandRoutes, InteractionRoutes, ChannelRoutes):
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
        channel = self.fake.channels.get(as_snowflake(request.match_info["channel_id"]))
        if channel is None or channel.deleted:
            raise not_found(10003, "Channel")
        return channel

    def _message(self, request: web.Request, channel: Channel) -> Message:
        message = self.fake.messages.get(as_snowflake(request.match_info["message_id"]))
        if (
            message is None
            or message.deleted
            or message.channel is not channel
            or message.ephemeral
        ):
            raise not_found(10008, "Message")
        return message

    def _guild(self, request: web.Request) -> Guild:
        guild = self.fake.guilds.get(as_snowflake(request.match_info["guild_id"]))
        if guild is None:
            raise not_found(10004, "Guild")
        return guild

    def _interaction_by_token(self, request: web.Request) -> Interaction:
        interaction = self.fake.interactions_by_token.get(request.match_info["webhook_token"])
        if (
            interaction is None
            or as_snowflake(request.match_info["webhook_id"]) != self.fake.application_id
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
