"""The fake REST API's routes for application commands: registered, listed, edited and
checked as Discord checks them."""

from __future__ import annotations

import re

from aiohttp import web

from .models import JSON
from .responses import as_snowflake, json_response, no_content, read_body
from .validation import form_error, not_found

COMMAND_NAME_RE = re.compile(r"^[-_\w]{1,32}$")


class CommandRoutes:
    """RestApi's routes for global and guild application commands."""

    # ----------------------------------------------------------------------------------------
    # Application commands.

    def _command_store(self, request: web.Request) -> tuple[dict[int, JSON], int | None]:
        if as_snowflake(request.match_info["application_id"]) != self.fake.application_id:
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
        command = store.get(as_snowflake(request.match_info["command_id"]))
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
