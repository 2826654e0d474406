"""The fake REST API's routes for the gateway's address, users, the application, guilds and
the CDN."""

from __future__ import annotations

import mimetypes

from aiohttp import web

from .responses import as_snowflake, json_response, read_body
from .validation import DiscordError, form_error, not_found


class GuildRoutes:
    """RestApi's routes for the gateway, users, the application, guilds and the CDN."""

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
        user = self.fake.users.get(as_snowflake(request.match_info["user_id"]))
        if user is None:
            raise not_found(10013, "User")
        return json_response(user.to_dict())

    async def create_dm(self, request: web.Request) -> web.Response:
        body = await read_body(request)
        user = self.fake.users.get(as_snowflake(body.json.get("recipient_id")))
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
        member = guild.members.get(as_snowflake(request.match_info["user_id"]))
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
        attachment = self.fake.attachments.get(as_snowflake(request.match_info["attachment_id"]))
        if attachment is None or attachment.filename != request.match_info["filename"]:
            return web.Response(status=404, text="Not Found")
        content_type = attachment.content_type or mimetypes.guess_type(attachment.filename)[0]
        return web.Response(
            body=attachment.data, content_type=content_type or "application/octet-stream"
        )
