"""The fake REST API's answers and requests as Discord's: JSON responses, error shapes, request
bodies (JSON or multipart with files), snowflake ids."""

from __future__ import annotations

import json
import re
from typing import Any

from aiohttp import BodyPartReader, web

from .models import JSON
from .records import UploadedFile
from .validation import DiscordError, form_error

FILE_FIELD_RE = re.compile(r"^files\[(\d+)\]$")


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


def as_snowflake(value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        raise form_error("id", "NUMBER_TYPE_COERCE", f"Value {value!r} is not snowflake.") from None
