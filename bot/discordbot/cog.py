"""What every cog of game commands shares: `described`, which gives a slash command its
description and its parameters' help and choices from bot.commands (tests/test_commands.py
checks each signature against it), and `GameCommandCog`: refusals answered, the game a
command means, the menu of the asker's games. The commands themselves are in families:
challenges.py, moves.py, looking.py, about.py, aicog.py. Each is thin: read Discord's
types, call the service, format the answer."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import discord
from discord import app_commands
from discord.app_commands import Choice
from discord.ext import commands

import engine
from bot.commands import BY_NAME
from bot.commands.declaration import Param
from bot.discordbot.announce import Announcer
from bot.discordbot.context import guild_of
from bot.discordbot.errors import PUBLIC_ANSWER, report_error
from bot.discordbot.text import when
from bot.service import (
    Code,
    GameService,
    GameSummary,
    Refused,
    banks_text,
    clock_text,
    parse_days,
    shown,
)

MAX_CHOICES = 25  # Discord's limit for autocomplete


def described(name: str, *, public: bool | Callable[[discord.Interaction], bool] = False) -> Any:
    """The command's description, its parameters' help and choices, from the registry;
    `public`: whether its answer is (the audience of its "thinking..." when it is slow)."""
    spec = BY_NAME[name]

    def decorate(function: Any) -> Any:
        # a parameter missing from the signature is left to tests/test_commands.py to name
        taken = [p for p in spec.params if p.name in inspect.signature(function).parameters]
        helps = {param.name: param.help[:100] for param in taken}
        menus = {param.name: menu(param) for param in taken if param.choices}
        if menus:
            function = app_commands.choices(**menus)(function)
        if helps:
            function = app_commands.describe(**helps)(function)
        return app_commands.command(  # "tournament create": create, in a GroupCog
            name=name.split()[-1], description=spec.help[:100], extras={PUBLIC_ANSWER: public}
        )(function)

    return decorate


def menu(param: Param) -> list[Choice[str]]:
    """A parameter's choices as Discord lists them: a game by its title, days as days."""
    if param.kind == "game":
        return [Choice(name=engine.GAMES[game].title, value=game) for game in param.choices]
    if param.kind == "days":
        return [
            Choice(name=clock_text(days if isinstance(days, int) else None), value=d)
            for d in param.choices
            for days in [parse_days(d, unset="default")]
        ]
    return [Choice(name=choice, value=choice) for choice in param.choices]


class GameCommandCog(commands.Cog):
    """A family of game commands: the service, the announcer, and what they share."""

    def __init__(self, service: GameService, announcer: Announcer) -> None:
        self.service = service
        self.announcer = announcer

    async def cog_app_command_error(
        self, interaction: discord.Interaction, error: app_commands.AppCommandError
    ) -> None:
        await report_error(interaction, error)

    async def game_meant(
        self,
        interaction: discord.Interaction,
        game_id: int | None,
        *,
        my_turn: bool,
        finished: bool = False,
        last_moved: bool = False,
    ) -> GameSummary:
        """The game named, or this thread's, or the player's only one (on move, for moves;
        `last_moved`: the game of their last move)."""
        guild_id = guild_of(interaction)
        if game_id is not None:
            return await self.service.lookups.game(game_id, guild_id)
        thread_id = (
            interaction.channel_id if isinstance(interaction.channel, discord.Thread) else None
        )
        if finished and thread_id is None:
            mine = await self.service.lookups.games(
                guild_id, player_id=interaction.user.id, status="finished", limit=1
            )
            if mine:
                return mine[0]
        return await self.service.lookups.default_game(
            guild_id, interaction.user.id, thread_id, my_turn=my_turn, last_moved=last_moved
        )

    async def my_games(self, interaction: discord.Interaction, current: str) -> list[Choice[int]]:
        if interaction.guild_id is None:
            return []  # games live in servers
        listed = await self.service.lookups.games(
            interaction.guild_id,
            player_id=interaction.user.id,
            viewer_id=interaction.user.id,
            limit=MAX_CHOICES,
        )
        choices = []
        for game in listed:
            label = game_line(game, interaction.user.id, plain=True)
            if current.strip().lstrip("#") in label:
                choices.append(Choice(name=label[:100], value=game.id))
        return choices[:MAX_CHOICES]

    async def game_choices(
        self, interaction: discord.Interaction, current: str
    ) -> list[Choice[int]]:
        """The asker's games, for a command's game parameter (its autocomplete)."""
        return await self.my_games(interaction, current)


def game_line(game: GameSummary, viewer: int, *, plain: bool = False) -> str:
    names = " vs ".join(s.name or "open seat" for s in game.seats)
    standing: str = game.status
    if game.status == "active":
        mover = game.player_to_move
        standing = (
            "your move" if mover == viewer else f"{game.name_of_seat(game.to_move or 0)} to move"
        )
        if game.deadline and not plain:
            standing += f", due {when(game.deadline)}"
        if game.banks:
            standing += f" · {banks_text(game)}"
    return f"#{game.id} {game.title}: {names} · {standing}"


def key_values(text: str | None) -> dict[str, str]:
    """key=value pairs typed in one field ("lengths=1,3,5 swap=off")."""
    found: dict[str, str] = {}
    for word in (text or "").split():
        key, sep, value = word.partition("=")
        if not sep or not key or not value:
            raise Refused(
                f"Options are key=value, like lengths=1,3,5; {shown(word)} is not.",
                code=Code.BAD_OPTION,
            )
        found[key.lower().replace("-", "_")] = value
    return found
