"""bot/commands/ is the one declaration of a command: the slash commands the bot
registers and the console's reading of each line must say the same. Each failure names
the command and the parameter."""

from __future__ import annotations

import contextlib
import io
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import discord
import pytest
from discord import app_commands

from bot.commands import COMMANDS
from bot.commands.declaration import Command, Param, ParamKind, Typed
from bot.console import Console
from bot.discordbot.client import PaperboardBot
from bot.schedule.airunner import AiRunner
from bot.service import GameService, Refused
from bot.settings import Settings

#: The option type Discord is told for each kind of parameter.
OPTION_TYPES: dict[ParamKind, discord.AppCommandOptionType] = {
    "game": discord.AppCommandOptionType.string,
    "game_id": discord.AppCommandOptionType.integer,
    "user": discord.AppCommandOptionType.user,
    "text": discord.AppCommandOptionType.string,
    "int": discord.AppCommandOptionType.integer,
    "bool": discord.AppCommandOptionType.boolean,
    "choice": discord.AppCommandOptionType.string,
    "days": discord.AppCommandOptionType.string,
}
#: Two values of each kind without choices, as the console takes them.
SAMPLES: dict[ParamKind, tuple[str, str]] = {
    "game_id": ("12", "13"),
    "user": ("bob", "carol"),
    "text": ("a1", "b2"),
    "int": ("1", "2"),
    "bool": ("yes", "no"),
}
#: What a parameter needs beside it in the console: level= is for a game against @ai.
BESIDE = {("challenge", "level"): ["@ai"]}
#: The order of a console line: a game's number first, the rest of the line last.
ORDER: dict[Typed, int] = {
    "number": 0, "word": 1, "mention": 2, "key": 3, "flag": 3, "option": 3, "options": 3, "rest": 4,
}  # fmt: skip


@pytest.fixture
async def slash_commands() -> dict[str, app_commands.Command[Any, ..., Any]]:
    """The slash commands the bot registers at start (setup_hook), built without Discord."""
    settings = Settings(_env_file=None).model_copy(update={"dev_guild_id": None})  # type: ignore[call-arg]
    bot = PaperboardBot(
        cast(GameService, SimpleNamespace(records=SimpleNamespace())), settings, schedule=False
    )
    await bot.setup_hook()
    found = [
        command
        for top in bot.tree.get_commands()
        for command in (top.walk_commands() if isinstance(top, app_commands.Group) else [top])
    ]  # a group's commands by their whole name: "tournament create"
    return {c.qualified_name: c for c in found if isinstance(c, app_commands.Command)}


def slash_differences(
    command: Command, slash: app_commands.Command[Any, ..., Any]
) -> Iterator[str]:
    where = f"/{command.name}"
    if slash.description != command.help[:100]:
        yield f"{where}: its description is not the registry's help"
    signature = {param.name: param for param in slash.parameters}
    for param in command.params:
        found = signature.get(param.name)
        if found is None:
            yield f"{where} {param.name}: in bot/commands/, not in the slash command"
            continue
        if found.required != param.required:
            yield (
                f"{where} {param.name}: required is {param.required} in bot/commands/, "
                f"{found.required} in the slash command"
            )
        if found.type != OPTION_TYPES[param.kind]:
            yield (
                f"{where} {param.name}: a {param.kind} in bot/commands/, a {found.type.name} "
                "in the slash command"
            )
        offered = tuple(str(choice.value) for choice in found.choices)
        if offered != param.choices:
            yield (
                f"{where} {param.name}: choices {param.choices} in bot/commands/, "
                f"{offered} in the slash command"
            )
        if found.description != param.help[:100]:
            yield f"{where} {param.name}: its description is not the registry's help"
    for name in signature.keys() - {param.name for param in command.params}:
        yield f"{where} {name}: in the slash command, not in bot/commands/"


async def test_every_slash_command_takes_the_registrys_parameters(
    slash_commands: dict[str, app_commands.Command[Any, ..., Any]],
) -> None:
    """Names, required or not, types, choices (in order) and help of every parameter."""
    on_discord = {command.name for command in COMMANDS if command.discord}
    assert sorted(slash_commands) == sorted(on_discord), (
        "the slash commands are not the commands with a Discord example in bot/commands/"
    )
    differences = [
        difference
        for command in COMMANDS
        if command.name in slash_commands
        for difference in slash_differences(command, slash_commands[command.name])
    ]
    assert not differences, "\n".join(differences)


# -- the console reads each parameter as the registry says ---------------------------------


class Asked(BaseException):
    """The console asked the service: the call is what it understood (a BaseException, so
    the console's catch-all for bugs lets it through)."""


class Spy:
    """A service that notes the first call it gets, in whichever family, and goes no
    further."""

    def __init__(self) -> None:
        self.asked: str | None = None

    def __getattr__(self, family: str) -> Any:
        return SpiedFamily(self)


class SpiedFamily:
    """One family of the spied service: each use case notes its call in the spy."""

    def __init__(self, spy: Spy) -> None:
        self.spy = spy

    def __getattr__(self, name: str) -> Any:
        async def asked(*args: object, **kwargs: object) -> None:
            self.spy.asked = f"{name}{args}{sorted(kwargs.items())}"
            raise Asked

        return asked


class Reading(Console):
    """The console with a spy for its service; refusals and failures kept."""

    def __init__(self, board_dir: Path) -> None:
        self.spy = Spy()
        self.said = io.StringIO()
        # a runner that is never reached: /analysis and /hint ask the service first
        super().__init__(
            cast(GameService, self.spy), self.said, board_dir, cast(AiRunner, object())
        )
        self.refusals: list[str] = []

    def refused(self, refusal: Refused) -> None:
        self.refusals.append(str(refusal))

    async def bot_turns(self) -> None:
        """No bot plays here."""


async def understood(line: str, board_dir: Path) -> tuple[str, str | None]:
    """What the console made of `line`: what it said, and the service call it made."""
    console = Reading(board_dir)
    with contextlib.suppress(Asked):
        await console.handle(line)
    said = console.said.getvalue()
    assert not console.refusals, f"the console refused `{line}`: {console.refusals[0]}"
    assert "Something went wrong" not in said, f"the console failed on `{line}`"
    return said, console.spy.asked


def values(param: Param) -> tuple[str, ...]:
    if param.console == "flag":
        return ("", param.name)  # absent, present
    if param.console == "options":
        return ("lengths=1,3,5", "swap=off")  # any key=value words
    return param.choices or SAMPLES[param.kind]


def typed(param: Param, value: str, key: str | None = None) -> str:
    """The parameter as the console takes it (`key`: one of its keys, its name by default)."""
    if param.console == "mention":
        return f"@{value}"
    if param.console in ("key", "option"):
        return f"{key or param.name}={value}"
    return value  # number, word, rest, flag, options


def line_with(command: Command, param: Param, value: str, key: str | None = None) -> str:
    """A line giving `param` this value, with the command's required parameters, its game's
    number (else the service would be asked which game is meant) and the mentions that come
    before a later one (opponent3 is the third @name)."""
    words: list[tuple[int, str]] = []
    mentions = [p for p in command.params if p.console == "mention"]
    for other in command.params:
        if other is param:
            words.append((ORDER[param.console], typed(param, value, key)))
        elif other.required or other.console == "number":
            words.append((ORDER[other.console], typed(other, values(other)[0])))
        elif (
            other in mentions
            and param in mentions
            and mentions.index(other) < mentions.index(param)
        ):
            words.append((ORDER["mention"], f"@before{mentions.index(other)}"))
    words += [(ORDER["mention"], word) for word in BESIDE.get((command.name, param.name), [])]
    return " ".join(
        [command.name, *(word for _, word in sorted(words, key=lambda w: w[0]) if word)]
    )


CONSOLE_PARAMS = [
    pytest.param(command, param, id=f"{command.name}-{param.name}")
    for command in COMMANDS
    if command.console
    for param in command.params
    if param.console != "none"
]


@pytest.mark.parametrize(("command", "param"), CONSOLE_PARAMS)
async def test_the_console_reads_each_parameter_as_the_registry_says(
    command: Command, param: Param, tmp_path: Path
) -> None:
    """Each value typed the registry's way (bot/commands/: Param.console) reaches the
    service, or the answer, as a different request; each shorter key reads as the name."""
    where = f"console {command.name} {param.name} ({param.console})"
    seen: dict[str, tuple[str, str | None]] = {}
    for value in values(param):
        line = line_with(command, param, value)
        seen[line] = await understood(line, tmp_path)
        for key in param.keys:
            short = line_with(command, param, value, key)
            assert await understood(short, tmp_path) == seen[line], (
                f"{where}: `{short}` is not read as `{line}`"
            )
    assert len(set(seen.values())) == len(seen), (
        f"{where}: these lines ask the same: {sorted(seen)}"
    )


def test_the_console_has_a_handler_for_each_console_command(tmp_path: Path) -> None:
    handled = {*Reading(tmp_path).handlers, "quit"}
    assert sorted(handled) == sorted(c.name for c in COMMANDS if c.console)


async def test_the_days_menu_reads_as_the_clock_does(
    slash_commands: dict[str, app_commands.Command[Any, ..., Any]],
) -> None:
    days = next(p for p in slash_commands["challenge"].parameters if p.name == "days_per_move")
    names = [choice.name for choice in days.choices]
    assert names[:2] == ["1 day per move", "2 days per move"], names  # it read "1 days"
    assert names[-1] == "no clock"
