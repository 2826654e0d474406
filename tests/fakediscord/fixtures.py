"""Pytest glue. In tests/conftest.py::

from tests.fakediscord.fixtures import fake_discord  # noqa: F401  (re-exported fixture)
"""

from __future__ import annotations

import asyncio
import contextlib
import warnings
from collections.abc import AsyncIterator, Iterator
from typing import Any, TypeVar

import discord
import discord.gateway
import discord.http
import pytest
import pytest_asyncio

from bot.discordbot.endpoints import point_discord_at

from .server import FakeDiscord

ClientT = TypeVar("ClientT", bound=discord.Client)

#: Discord's 3 s for an interaction's first answer, as the suite's fake keeps it: long. The
#: suite checks what the bot answers, to whom and in which order, never how fast a shared
#: machine ran it (the fake and the bot share one test process: a process waiting for a
#: core makes any bot late). That a slow answer is deferred is checked by the event loop's
#: timers (tests/test_discord_in_time.py); the time to the first acknowledgement under load,
#: against Discord's real 3 s, is measured by bench/discord_e2e.py.
SUITE_ACK_TIMEOUT = 30.0


@contextlib.contextmanager
def discord_pointed_at(fake: FakeDiscord) -> Iterator[None]:
    """point_discord_at(fake) for the duration, then put discord.py's endpoints back."""
    http_client: Any = discord.http.HTTPClient
    saved = (
        discord.http.Route.BASE,
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY,
        http_client.get_bot_gateway,
    )
    point_discord_at(fake.api_base, fake.gateway_url)
    try:
        yield
    finally:
        discord.http.Route.BASE = saved[0]
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = saved[1]
        http_client.get_bot_gateway = saved[2]


@pytest_asyncio.fixture(name="fake_discord")
async def fake_discord_fixture() -> AsyncIterator[FakeDiscord]:
    """A running FakeDiscord with discord.py pointed at it. Fails the test if the fake hit an
    internal error; warns about routes the bot called that the fake does not know."""
    async with FakeDiscord(interaction_ack_timeout=SUITE_ACK_TIMEOUT) as fake:
        with discord_pointed_at(fake):
            yield fake
    if fake.internal_errors:
        pytest.fail(f"fake discord internal errors: {fake.internal_errors}")
    if fake.unknown_routes:
        warnings.warn(f"fake discord: unknown routes {fake.unknown_routes}", stacklevel=1)


@contextlib.asynccontextmanager
async def run_bot(
    fake: FakeDiscord, bot: ClientT, *, shards: int = 1, timeout: float = 60.0, fast: bool = True
) -> AsyncIterator[ClientT]:
    """Log ``bot`` in to ``fake``, connect it, wait for on_ready; close it afterwards.

    ``fast`` removes two real-time waits of discord.py that only make sense against Discord:
    the 2 s ``guild_ready_timeout`` after the last GUILD_CREATE before on_ready (lowered to
    0.05 s), and ``before_identify_hook``'s 5 s sleep before every non-initial IDENTIFY (the
    second shard, a re-IDENTIFY after INVALID_SESSION).
    """
    if fast:
        state: Any = bot._connection
        state.guild_ready_timeout = min(state.guild_ready_timeout, 0.05)

        async def no_identify_wait(shard_id: int | None, *, initial: bool = False) -> None:
            return None

        bot.before_identify_hook = no_identify_wait  # type: ignore[method-assign]
    await bot.login(fake.token)
    runner = asyncio.create_task(bot.connect(reconnect=True), name="fakediscord-bot")
    ready = asyncio.create_task(bot.wait_until_ready())
    try:
        done, _ = await asyncio.wait(
            {runner, ready}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED
        )
        if runner in done:
            runner.result()  # Raises what made connect() give up.
            raise RuntimeError("bot.connect() returned before the bot was ready")
        if ready not in done:
            raise TimeoutError(f"the bot was not ready after {timeout}s")
        await fake.wait_ready(shards=shards)
        yield bot
    finally:
        ready.cancel()
        await bot.close()
        with contextlib.suppress(asyncio.CancelledError, TimeoutError, discord.DiscordException):
            await asyncio.wait_for(runner, timeout=5.0)
