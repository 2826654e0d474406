"""What the cog, the views and the announcer know of the bot and of an interaction.

The bot class (client.py) sits at the top of the adapter and imports them; they see it
only through `BotContext`, so nothing here imports client.py and the adapter has no
import circle (tests/test_layers.py checks).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

import discord

from bot.service import GameService, Player, Refused, Result, ServiceCode

if TYPE_CHECKING:
    from bot.web.links import WebLinks


class Publisher(Protocol):
    """Posts a result where players see it (the Announcer; buttons need no more of it)."""

    async def publish(
        self, result: Result, *, status_done: bool = False, png: bytes | None = None
    ) -> None: ...


@runtime_checkable
class BotContext(Protocol):
    """The bot as buttons see it: its service, its announcer and its pages' links."""

    @property
    def service(self) -> GameService: ...

    @property
    def announcer(self) -> Publisher: ...

    @property
    def links(self) -> WebLinks: ...


def context_of(interaction: discord.Interaction) -> BotContext:
    """The bot behind an interaction: the PaperboardBot, which has what BotContext names."""
    client = interaction.client
    assert isinstance(client, BotContext), "buttons are only registered by the PaperboardBot"
    return client


def as_player(user: discord.abc.User) -> Player:
    return Player(user.id, user.display_name)


def asker(interaction: discord.Interaction) -> Player:
    """The person who pressed or typed."""
    return as_player(interaction.user)


def guild_of(interaction: discord.Interaction) -> int:
    """The server a command or button is used in. Every game lives in a server; in a
    direct message there is none (and guild 0 is the console's pretend server)."""
    if interaction.guild_id is None:
        raise Refused("Use this in the server where the game is.", code=ServiceCode.DM)
    return interaction.guild_id
