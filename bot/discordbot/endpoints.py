"""Point discord.py at another Discord: a local fake, or a REST/gateway proxy in production.

Self-contained on purpose (it imports only discord.py and yarl) so that it can move into the
bot's start-up code and honour the DISCORD_API_BASE / DISCORD_GATEWAY_URL settings.

What discord.py 2.7.1 hard-codes, and what this patches (checked against the installed source;
pyproject.toml pins the range checked, and tests/test_fakediscord.py fails naming the internal
an upgrade moved):

1. REST: ``discord.http.Route.BASE`` ('https://discord.com/api/v10'), a class attribute read
   by ``Route.__init__`` for every request. The webhook/interaction adapter
   (``discord/webhook/async_.py``) builds its URLs with the same ``Route``, so interaction
   callbacks, follow-ups and ``@original`` edits follow it too. ``discord.http._set_api_version``
   resets BASE to discord.com: call this after it, if at all. Not covered, because nothing in a
   bot's normal flow goes there: attachment URLs are whatever the server puts in the payload;
   avatars/icons use ``discord.asset.Asset.BASE`` (cdn.discordapp.com); ``Webhook.url`` and
   ``utils.oauth_url`` are display strings.

2. Gateway: ``discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY`` ('wss://gateway.discord.gg/').
   ``Client.connect`` never asks GET /gateway in 2.x: the first connection of a plain
   Client/Bot goes straight to DEFAULT_GATEWAY. It is also where a fresh IDENTIFY goes after
   INVALID_SESSION for AutoShardedClient (``Shard.reidentify(resume=False)`` and
   ``Shard.reconnect`` pass gateway=None), and for a plain Client that has never RESUMEd
   (``Client.connect`` keeps the last ``resume_gateway_url`` in its ``ws_params`` otherwise).
   The query string (``?v=10&encoding=json&compress=zlib-stream``, or ``zstd-stream`` when
   ``zstandard`` / ``compression.zstd`` is importable) is appended by
   ``DiscordWebSocket.from_client``; the URL given here must not carry one.

3. AutoShardedClient without ``shard_count`` calls GET /gateway/bot
   (``HTTPClient.get_bot_gateway``) and connects to the ``url`` of the answer. Discord's own
   answer would be wss://gateway.discord.gg, bypassing a configured gateway, so
   ``HTTPClient.get_bot_gateway`` is wrapped to keep the answer's shard count and session
   limits but substitute ``gateway_url``. (Given an explicit ``shard_count`` it skips the call
   and uses DEFAULT_GATEWAY.)

Not patched, deliberately: RESUMEs go to ``resume_gateway_url`` from READY (discord.py stores
it in ``ws.gateway``), i.e. wherever the server we identified with says; behind a gateway proxy
that is the proxy's business. Transport compression
needs nothing: discord.py only decompresses BINARY frames, TEXT frames are parsed as plain JSON.
"""

from __future__ import annotations

from typing import Any

import discord.gateway
import discord.http
import yarl


def point_discord_at(api_base: str, gateway_url: str | None = None) -> None:
    """Send discord.py's REST calls to ``api_base`` (e.g. ``http://127.0.0.1:8080/api/v10``) and
    its gateway connections to ``gateway_url`` (e.g. ``ws://127.0.0.1:8080/gateway``).

    Process-wide (class attributes); call before ``Client.login``/``start``. Idempotent.
    """
    version = f"/v{discord.http.INTERNAL_API_VERSION}"
    base = api_base.rstrip("/")
    if not base.endswith(version):
        raise ValueError(f"api_base must end with {version!r} (discord.py's API version): {base}")
    url = yarl.URL(gateway_url) if gateway_url is not None else None
    if url is not None and (url.scheme not in ("ws", "wss") or url.query_string):
        raise ValueError(f"gateway_url must be a ws:// or wss:// URL without a query: {url}")

    discord.http.Route.BASE = base
    if url is None:
        return
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = url

    client_cls: Any = discord.http.HTTPClient
    original = getattr(client_cls.get_bot_gateway, "__wrapped__", client_cls.get_bot_gateway)

    async def get_bot_gateway(self: discord.http.HTTPClient) -> tuple[int, str, Any]:
        shards, _, limits = await original(self)
        return shards, str(url), limits

    get_bot_gateway.__wrapped__ = original  # type: ignore[attr-defined]
    client_cls.get_bot_gateway = get_bot_gateway
