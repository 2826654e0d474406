"""The fake Discord's faults against the real discord.py client: a privileged intent the portal
did not enable, rate limits and server errors retried, Discord's errors and its three-second
rule, closed DMs, a dropped gateway resumed, an invalid session, plain text frames and
heartbeats, and shards. What the tiny bot plays through: tests/test_fakediscord.py."""

from __future__ import annotations

import asyncio

import aiohttp
import discord
import pytest

from tests.fakediscord import FakeDiscord, discord_pointed_at, run_bot
from tests.fakediscordkit import PaperBot, ShardedPaperBot, fake_with_bot, users


@pytest.mark.asyncio
async def test_privileged_intent_not_enabled_in_the_portal() -> None:
    async with FakeDiscord(privileged_intents=()) as fake:
        with discord_pointed_at(fake):
            fake.create_guild()
            with pytest.raises(discord.PrivilegedIntentsRequired):
                async with run_bot(fake, PaperBot(message_content=True)):
                    pass


@pytest.mark.asyncio
async def test_rate_limit_is_retried() -> None:
    async with fake_with_bot() as (fake, bot):
        alice, _ = users(fake)
        fault = fake.inject_rate_limit("POST /channels/{channel_id}/messages", retry_after=0.05)
        handle = await fake.slash(alice, "post", {"text": "hello"})
        assert (await handle.followup()).content == "posted"
        sends = fake.requests_to("POST /channels/{}/messages")
        assert [(r.status, r.fault) for r in sends] == [(429, "ratelimit"), (200, None)]
        assert sends[1].started - sends[0].finished >= 0.04  # type: ignore[operator]
        assert fault.hits == 1 and not bot.errors


@pytest.mark.asyncio
async def test_rate_limit_on_the_interaction_callback_is_retried() -> None:
    async with fake_with_bot() as (fake, _):
        alice, _ = users(fake)
        fake.inject_rate_limit("POST /interactions/{id}/{token}/callback", retry_after=0.02)
        handle = await fake.slash(alice, "move", {"cell": "a1"})
        assert (await handle.reply()).content == "played a1"
        statuses = [r.status for r in fake.requests_to("POST /interactions/{}/{}/callback")]
        assert statuses == [429, 200]


@pytest.mark.asyncio
async def test_server_error_is_retried() -> None:
    async with fake_with_bot() as (fake, bot):
        alice, _ = users(fake)
        fake.inject_error("POST /channels/{channel_id}/messages", status=500)
        handle = await fake.slash(alice, "post", {"text": "hello"})
        assert (await handle.followup(timeout=5)).content == "posted"  # discord.py sleeps 1 s
        statuses = [r.status for r in fake.requests_to("POST /channels/{}/messages")]
        assert statuses == [500, 200] and not bot.errors


@pytest.mark.asyncio
async def test_discord_errors_reach_the_bot_with_their_codes() -> None:
    async with fake_with_bot() as (fake, bot):
        alice, _ = users(fake)
        handle = await fake.slash(alice, "post", {"text": "x" * 2001})
        assert (await handle.followup()).content == "error 400 50035"
        fake.inject_error(
            "POST /channels/{}/messages", status=403, code=50013, message="Missing Permissions"
        )
        handle = await fake.slash(alice, "post", {"text": "hi"})
        assert (await handle.followup()).content == "error 403 50013"
        assert isinstance(bot.errors[-1], discord.Forbidden)


@pytest.mark.asyncio
async def test_the_three_second_rule_and_double_acknowledgement() -> None:
    async with fake_with_bot(interaction_ack_timeout=0.05) as (fake, bot):
        alice, _ = users(fake)
        bot.slow_seconds = 0.1
        late = await fake.slash(alice, "late")
        await fake.wait_for(lambda: bot.errors)
        assert isinstance(bot.errors[0], discord.NotFound) and bot.errors[0].code == 10062
        assert late.callback_type is None

        fake.interaction_ack_timeout = 3.0  # Discord's: a prompt answer is in time on a busy box
        handle = await fake.slash(alice, "move", {"cell": "a1"})
        await handle.ack()
        url = f"{fake.api_base}/interactions/{handle.id}/{handle.interaction.token}/callback"
        body = {"type": 4, "data": {"content": "again"}}
        async with aiohttp.ClientSession() as session, session.post(url, json=body) as answer:
            assert answer.status == 400
            assert (await answer.json())["code"] == 40060


@pytest.mark.asyncio
async def test_slash_command_in_a_dm_and_closed_dms() -> None:
    async with fake_with_bot() as (fake, bot):
        _, bob = users(fake)
        dm = fake.dm_channel(bob)
        handle = await fake.slash(bob, "move", {"cell": "b2"}, channel=dm)
        assert handle.interaction.payload["context"] == 1
        assert (await handle.reply()).channel is dm
        bob.dms_open = False
        handle = await fake.slash(bob, "post", {"text": "hi"}, channel=dm)
        assert (await handle.followup()).content == "error 403 50007"
        assert isinstance(bot.errors[-1], discord.Forbidden)


@pytest.mark.asyncio
async def test_dropped_gateway_is_resumed_and_missed_events_replayed() -> None:
    async with fake_with_bot() as (fake, bot):
        alice, _ = users(fake)
        resumed = asyncio.Event()

        async def on_resumed() -> None:
            resumed.set()

        bot.add_listener(on_resumed)
        (session,) = fake.sessions
        assert await fake.drop_gateway() == 1
        # Sent while the bot is disconnected: kept for the RESUME replay.
        handle = await fake.slash(alice, "move", {"cell": "a2"})
        assert (await handle.reply()).content == "played a2"
        assert session.resumes == 1 and fake.sessions == [session]
        first, second = fake.gateway.connections
        assert (first.path, second.path) == ("/gateway", "/resume")
        assert handle.interaction.sent_at is not None
        assert handle.interaction.sent_at < second.opened_at  # delivered by the RESUME replay
        await asyncio.wait_for(resumed.wait(), 1)

        assert await fake.drop_gateway(abort=True) == 1  # TCP cut, no close frame
        handle = await fake.slash(alice, "move", {"cell": "b1"})
        assert (await handle.reply()).content == "played b1"
        assert session.resumes == 2


@pytest.mark.asyncio
async def test_invalid_session_makes_the_bot_identify_again_on_the_default_gateway() -> None:
    async with fake_with_bot() as (fake, _):
        alice, _ = users(fake)
        (old,) = fake.sessions
        await fake.invalidate_session()
        await fake.wait_for(
            lambda: fake.sessions and fake.sessions[0] is not old and fake.sessions[0].ready
        )
        assert [c.path for c in fake.gateway.connections] == ["/gateway", "/gateway"]
        handle = await fake.slash(alice, "move", {"cell": "a1"})
        assert (await handle.reply()).content == "played a1"

        await fake.request_reconnect()  # op 7: close and RESUME
        await fake.wait_for(lambda: fake.sessions[0].resumes == 1)


@pytest.mark.asyncio
async def test_plain_text_frames_and_heartbeats() -> None:
    async with fake_with_bot(gateway_compression=False, heartbeat_interval=0.05) as (fake, _):
        alice, _ = users(fake)
        (session,) = fake.sessions
        assert fake.gateway.connections[0].query["compress"] == "zlib-stream"
        assert fake.gateway.connections[0].compressor is None
        await fake.wait_for(lambda: session.heartbeats >= 3)
        handle = await fake.slash(alice, "move", {"cell": "a1"})
        assert (await handle.reply()).content == "played a1"


@pytest.mark.asyncio
async def test_sharded_bot_gets_each_guild_on_its_shard() -> None:
    async with FakeDiscord(shard_count=2) as fake:
        with discord_pointed_at(fake):
            even = fake.create_guild("Even", id=(fake._snowflake() >> 23) << 23)
            odd = fake.create_guild("Odd", id=((fake._snowflake() >> 23) << 23) | (1 << 22))
            alice = fake.create_user("alice")
            sharded = ShardedPaperBot()
            async with run_bot(fake, sharded, shards=2):
                assert fake.requests_to("GET /gateway/bot")
                shards = {s.shard_id: s for s in fake.sessions}
                assert set(shards) == {0, 1}
                assert sharded.get_guild(even.id).shard_id == 0  # type: ignore[union-attr]
                assert sharded.get_guild(odd.id).shard_id == 1  # type: ignore[union-attr]
                for guild in (even, odd):
                    handle = await fake.slash(
                        alice, "move", {"cell": "a1"}, channel=guild.text_channels[0]
                    )
                    assert (await handle.reply()).content == "played a1"
