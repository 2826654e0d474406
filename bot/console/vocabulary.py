"""The console's words for its commands, read from their one declaration (bot/commands/):
the parameters each reads, `help` and `help COMMAND`, the answer to a word that is no
command (and what was meant: a command, or a setting typed alone), and the commands the
service's sentences name, worded as they are typed here (`config email=on`)."""

from __future__ import annotations

from collections.abc import Iterable

from bot.commands import COMMANDS
from bot.commands.declaration import GAME_NUMBERS, Command, Param
from bot.service import Refused, ServiceCode, Typed, closest, shown

#: Commands typed with an action word ("tournament join 1"): their actions.
ACTIONS_OF = {
    name: tuple(c.name.split(" ", 1)[1] for c in COMMANDS if c.name.startswith(f"{name} "))
    for name in {c.name.split(" ", 1)[0] for c in COMMANDS if " " in c.name}
}
#: The parameters of each command, by name (bot/commands/: how the console reads each).
PARAMS = {command.name: {param.name: param for param in command.params} for command in COMMANDS}
#: The keys of each command's key=value parameters, the shorter ones too (days= for
#: days_per_move=), each with its parameter's name.
KEYS = {
    command.name: {
        key: param.name
        for param in command.params
        if param.console == "key"
        for key in (param.name, *param.keys)
    }
    for command in COMMANDS
}
#: The commands whose keys are settings a player may type alone ("vacation").
SETTING_COMMANDS = ("settings", "config")


def typed_here(typed: Typed) -> str:
    """A command a sentence names, as it is typed in the console."""
    return " ".join([typed.command, *(f"{key}={value}" for key, value in typed.values)])


def help_lines(words: list[str], commands: Iterable[str]) -> list[str]:
    """`help`: how games are named, then every command; `help move`, `help tournament`:
    those commands alone, with their parameters. `commands`: what may be typed here."""
    if not words:
        listed = [command_line(c) for c in COMMANDS if c.console]
        return [GAME_NUMBERS, *listed, "help COMMAND (help move): that command and its parameters."]
    name = " ".join(words).lower()
    found = [c for c in COMMANDS if c.console and f"{c.name} ".startswith(f"{name} ")]
    if not found:
        raise no_command(name, commands)
    return [line for c in found for line in (command_line(c), *map(param_line, c.params))]


def command_line(command: Command) -> str:
    return f"  {command.console:<58} {command.help}"


def param_line(param: Param) -> str:
    choices = f" ({', '.join(param.choices)})" if param.choices else ""
    return f"      {param.name}: {param.help}{choices}"


def no_command(word: str, commands: Iterable[str]) -> Refused:
    """A word that is no command: the command or the setting it likely meant."""
    meant = setting_meant(word, exact=True) or closest(word, list(commands))
    meant = meant or setting_meant(word, exact=False)
    guess = f"did you mean {meant}? Type" if meant else "type"
    return Refused(
        f"There is no command {shown(word)}; {guess} help for the commands.",
        code=ServiceCode.USAGE,
    )


def setting_meant(word: str, *, exact: bool) -> str | None:
    """A player's or the server's setting `word` names (`exact`) or is closest to, as
    typed with a value: "settings vacation=on"."""
    keys = [(key, command) for command in SETTING_COMMANDS for key in KEYS[command]]
    key = word.lower() if exact else closest(word, [k for k, _ in keys])
    command = next((c for k, c in keys if k == key), None)
    if key is None or command is None:
        return None
    return f"{command} {key}={example_value(command, key)}"


def example_value(command: str, key: str) -> str:
    """A value of a command's key=value parameter: its declared example's, else on for a
    yes-or-no, else its first choice, else what it is."""
    shown_in = next((c.console or "" for c in COMMANDS if c.name == command), "")
    for word in shown_in.split():
        typed, _, value = word.partition("=")
        if typed == key and value:
            return value
    param = PARAMS[command][KEYS[command][key]]
    if param.kind == "bool":
        return "on"
    return param.choices[0] if param.choices else param.name.upper()
