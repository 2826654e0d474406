"""A local fake Discord (REST + gateway, aiohttp) that the real discord.py client talks to.

Typical use::

    async with FakeDiscord() as fake, ...:          # or the fake_discord fixture
        point_discord_at(fake.api_base, fake.gateway_url)
        guild = fake.create_guild("Club", channels=["games"])
        alice = fake.create_user("alice")           # joins every existing guild
        async with run_bot(fake, make_bot()):       # login, command sync, READY
            h = await fake.slash(alice, "move", {"move": "d5 g3"}, channel=guild.channel("games"))
            reply = await h.reply()                 # the Message the bot answered with
            png = reply.attachments[0].data         # bytes the bot uploaded
            h2 = await fake.press(alice, reply, "resign")
            await fake.say(alice, thread, "d5 g3")  # MESSAGE_CREATE
            fake.inject_rate_limit("POST /channels/{channel_id}/messages")
            await fake.drop_gateway()               # discord.py RESUMEs

See server.py (FakeDiscord: its state, lifecycle and the world a test builds), with what it
mixes in: content.py (messages, threads, commands), driving.py (what a user does), records.py
(requests and injected faults); handles.py (InteractionHandle), rest.py (routes), gateway.py
(protocol), oauth.py (OAuth2); models.py, messages.py, constants.py and validation.py (the
world, its messages, Discord's numbers and limits); bot/discordbot/endpoints.py
(point_discord_at) and fixtures.py (pytest fixture, run_bot).

Not implemented (a call to a missing route is answered 404 and listed in
``fake.unknown_routes``): permission checks on REST calls (only slash-command visibility via
``default_member_permissions``/``contexts`` is checked), real rate-limit buckets (only injected
429s), ETF encoding, zstd-stream frames (plain text frames are sent instead, which discord.py
accepts), forum/media channels, voice, presences, reactions by users, pins, polls, stickers,
user/role/channel selects, context-menu commands, webhooks other than interaction tokens,
interaction token expiry (15 min), system messages (thread created, pins...).
"""

from bot.discordbot.endpoints import point_discord_at

from .fixtures import discord_pointed_at, fake_discord_fixture, run_bot
from .handles import FakeDiscordTimeout, InteractionHandle
from .messages import Attachment, Interaction, InteractionEvent, Message, Revision
from .models import Channel, Guild, Member, Role, User
from .records import Fault, RequestRecord
from .server import FakeDiscord
from .validation import DiscordError

__all__ = [
    "Attachment",
    "Channel",
    "DiscordError",
    "FakeDiscord",
    "FakeDiscordTimeout",
    "Fault",
    "Guild",
    "Interaction",
    "InteractionEvent",
    "InteractionHandle",
    "Member",
    "Message",
    "RequestRecord",
    "Revision",
    "Role",
    "User",
    "discord_pointed_at",
    "fake_discord_fixture",
    "point_discord_at",
    "run_bot",
]
