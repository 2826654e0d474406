"""Payload validation: the subset of Discord's limits that a game bot is likely to trip over,
refused with Discord's error shapes."""

from __future__ import annotations

from .constants import ATTACHMENT_SIZE_LIMIT, FLAG_COMPONENTS_V2
from .models import JSON

# ---------------------------------------------------------------------------------------------
# Payload validation: the subset of Discord's limits that a game bot is likely to trip over.


class DiscordError(Exception):
    """An error answer in Discord's shape: ``{"code": ..., "message": ..., "errors": ...}``."""

    def __init__(self, status: int, code: int, message: str, errors: JSON | None = None) -> None:
        super().__init__(f"{status} {code} {message}")
        self.status = status
        self.code = code
        self.message = message
        self.errors = errors

    def body(self) -> JSON:
        body: JSON = {"message": self.message, "code": self.code}
        if self.errors:
            body["errors"] = self.errors
        return body


def form_error(path: str, code: str, message: str) -> DiscordError:
    errors: JSON = {"_errors": [{"code": code, "message": message}]}
    for part in reversed(path.split(".")):
        errors = {part: errors}
    return DiscordError(400, 50035, "Invalid Form Body", errors)


def not_found(code: int, what: str) -> DiscordError:
    return DiscordError(404, code, f"Unknown {what}")


def validate_message_payload(
    payload: JSON, n_files: int, total_bytes: int, *, creating: bool, prefix: str = ""
) -> None:
    content = payload.get("content")
    if content is not None and len(str(content)) > 2000:
        raise form_error(
            prefix + "content", "BASE_TYPE_MAX_LENGTH", "Must be 2000 or fewer in length."
        )
    embeds = payload.get("embeds") or []
    if len(embeds) > 10:
        raise form_error(prefix + "embeds", "BASE_TYPE_MAX_LENGTH", "Must be 10 or fewer.")
    total = 0
    for index, embed in enumerate(embeds):
        for key, limit in (("title", 256), ("description", 4096)):
            value = embed.get(key) or ""
            total += len(value)
            if len(value) > limit:
                raise form_error(
                    f"{prefix}embeds.{index}.{key}",
                    "BASE_TYPE_MAX_LENGTH",
                    f"Must be {limit} or fewer in length.",
                )
        fields = embed.get("fields") or []
        if len(fields) > 25:
            raise form_error(
                f"{prefix}embeds.{index}.fields", "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer."
            )
        for f in fields:
            total += len(f.get("name", "")) + len(f.get("value", ""))
    if total > 6000:
        raise form_error(prefix + "embeds", "MAX_EMBED_SIZE_EXCEEDED", "Embed size exceeds 6000")
    if n_files > 10 or len(payload.get("attachments") or []) > 10:
        raise form_error(prefix + "attachments", "BASE_TYPE_MAX_LENGTH", "Must be 10 or fewer.")
    if total_bytes > ATTACHMENT_SIZE_LIMIT:
        raise DiscordError(413, 40005, "Request entity too large")
    validate_components(payload.get("components") or [], int(payload.get("flags") or 0), prefix)
    if creating and not (
        content
        or embeds
        or n_files
        or payload.get("components")
        or payload.get("sticker_ids")
        or payload.get("poll")
    ):
        raise DiscordError(400, 50006, "Cannot send an empty message")


def validate_components(components: list[JSON], flags: int, prefix: str = "") -> None:
    seen: set[str] = set()
    if not flags & FLAG_COMPONENTS_V2 and len(components) > 5:
        raise form_error(prefix + "components", "BASE_TYPE_MAX_LENGTH", "Must be 5 or fewer.")

    def check(items: list[JSON], path: str) -> None:
        for index, item in enumerate(items):
            here = f"{path}.{index}"
            custom_id = item.get("custom_id")
            if custom_id is not None:
                if not 1 <= len(custom_id) <= 100:
                    raise form_error(
                        here + ".custom_id",
                        "BASE_TYPE_BAD_LENGTH",
                        "Must be between 1 and 100 in length.",
                    )
                if custom_id in seen:
                    raise form_error(
                        here + ".custom_id",
                        "COMPONENT_CUSTOM_ID_DUPLICATED",
                        "Component custom id cannot be duplicated",
                    )
                seen.add(custom_id)
            label = item.get("label")
            if item.get("type") == 2 and label is not None and len(label) > 80:
                raise form_error(
                    here + ".label", "BASE_TYPE_MAX_LENGTH", "Must be 80 or fewer in length."
                )
            # Link (5) and premium (6) buttons are the only ones without a custom_id.
            if item.get("type") == 2 and item.get("style") not in (5, 6) and custom_id is None:
                raise form_error(here + ".custom_id", "BASE_TYPE_REQUIRED", "required")
            children = item.get("components") or []
            if item.get("type") == 1 and len(children) > 5:
                raise form_error(
                    here + ".components", "BASE_TYPE_MAX_LENGTH", "Must be 5 or fewer."
                )
            check(children, here + ".components")
            for key in ("accessory", "component"):
                if item.get(key):
                    check([item[key]], f"{here}.{key}")

    check(components, prefix + "components")
