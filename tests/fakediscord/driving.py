"""Driving the bot: the things a user does in the Discord client (slash commands,
autocomplete, buttons, selects, modals, messages), sent as interactions."""

from __future__ import annotations

import secrets
import time
from collections.abc import Sequence
from typing import Any

from .constants import (
    APPLICATION_COMMAND,
    APPLICATION_COMMAND_AUTOCOMPLETE,
    ATTACHMENT_SIZE_LIMIT,
    DEFAULT_EVERYONE_PERMISSIONS,
    MESSAGE_COMPONENT,
    MODAL_SUBMIT,
)
from .handles import InteractionHandle
from .messages import Attachment, Interaction, Message
from .models import JSON, Channel, Member, Role, User
from .records import UploadedFile


class Driving:
    """What FakeDiscord's people do, as the Discord client would send it."""

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
