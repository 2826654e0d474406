"""Every command players and admins have, once: the console and the Discord adapter
read their names, help and parameters from here, and docs/COMMANDS.md is written
from it (`python -m bot.commands > docs/COMMANDS.md`; a test checks it is current).

One module per family declares its commands (declaration.py: how); this registry lists
the families in the order `help` and docs/COMMANDS.md show them.

A parameter's choices come from the code that interprets them (the levels, the statuses,
the export formats...), never written here again; the slash commands take theirs from
here, and the console reads each parameter as its `console` says. tests/test_commands.py
fails when a slash command's signature or the console's reading differs from this.
"""

from __future__ import annotations

from bot.commands import ai, console, events, looks, play, settings
from bot.commands.declaration import Command

COMMANDS: tuple[Command, ...] = (
    *play.COMMANDS,
    *looks.COMMANDS,
    *ai.COMMANDS,
    *settings.COMMANDS,
    *events.COMMANDS,
    *console.COMMANDS,
)

BY_NAME = {command.name: command for command in COMMANDS}
