"""The fake REST API's routes for interactions: the callback (within Discord's 3 s),
follow-ups and the interaction token's webhook messages."""

from __future__ import annotations

import time

from aiohttp import web

from .constants import (
    APPLICATION_COMMAND,
    APPLICATION_COMMAND_AUTOCOMPLETE,
    APPLICATION_COMMAND_AUTOCOMPLETE_RESULT,
    CHANNEL_MESSAGE_WITH_SOURCE,
    DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE,
    DEFERRED_UPDATE_MESSAGE,
    FLAG_EPHEMERAL,
    FLAG_LOADING,
    MESSAGE_COMPONENT,
    MODAL,
    MODAL_SUBMIT,
    MSG_CHAT_INPUT_COMMAND,
    UPDATE_MESSAGE,
)
from .messages import Interaction, Message
from .models import JSON
from .responses import as_snowflake, json_response, no_content, read_body
from .validation import DiscordError, form_error, not_found


class InteractionRoutes:
    """RestApi's routes for interaction callbacks, follow-ups and webhook messages."""

    # ----------------------------------------------------------------------------------------
    # Interactions.

    async def callback(self, request: web.Request) -> web.Response:
        fake = self.fake
        interaction = fake.interactions.get(as_snowflake(request.match_info["webhook_id"]))
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
            message_id = as_snowflake(ident)
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
