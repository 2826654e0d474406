"""Help, and the console's own commands."""

from __future__ import annotations

from bot.commands.declaration import Command, Param

COMMANDS: tuple[Command, ...] = (
    Command(
        "as",
        "Console: act as this local player from now on (creates them).",
        (Param("name", "text", "a player's name", required=True, typed="word"),),
        console="as bob",
    ),
    Command("help", "The commands by task, each with its help.", discord="/help", console="help"),
    Command("quit", "Console: leave (end of input does too).", console="quit"),
)
