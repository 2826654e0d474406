"""docs/COMMANDS.md, written from the commands' declarations (`python -m bot.commands`)."""

from __future__ import annotations

from bot.commands import COMMANDS
from bot.commands.declaration import GAME_NUMBERS

CONSOLE_AND_THE_BOT = (
    "- At a terminal the console keeps reading while the bot thinks: its move is printed",
    "  when it comes, and meanwhile any command works (`rules hex`, `games`, a move in",
    "  another game).",
    "- Piped input is a script: each line waits for the bot's moves it set off (and",
    "  `hint` and `analysis` for their answer) before the next line is read, so a script",
    "  sees the bot's reply on the next line and prints the same transcript every run.",
    "- A line starting with `#` and no number is a comment.",
)


def markdown() -> str:
    """docs/COMMANDS.md."""
    lines = [
        "# Commands",
        "",
        "Written from `bot/commands/` by `python -m bot.commands > docs/COMMANDS.md`;",
        "a test fails when this page is out of date.",
        "",
        "On Discord commands are slash commands; challenges and undo requests are",
        "answered with buttons. In the console (`make run` without a Discord token)",
        "the same commands are typed as words, `@name` for players and `key=value`",
        "for options. Where no game is named, the game of the current thread (or your",
        "only game where it is your turn) is meant.",
        "",
        "## In the console",
        "",
        f"- {GAME_NUMBERS}",
        *CONSOLE_AND_THE_BOT,
        "",
    ]
    for command in COMMANDS:
        title = f"/{command.name}" if command.discord else command.name
        lines += [
            f"## {title}",
            "",
            command.help + (" (Manage Server)" if command.admin else ""),
            "",
        ]
        if command.params:
            lines.append("| parameter | | |")
            lines.append("|---|---|---|")
            for param in command.params:
                needed = "required" if param.required else "optional"
                choices = f" ({', '.join(param.choices)})" if param.choices else ""
                lines.append(f"| `{param.name}` | {needed} | {param.help}{choices} |")
            lines.append("")
        if command.discord:
            lines.append(f"- Discord: `{command.discord}`")
        if command.buttons:
            lines.append(f"- Buttons: {command.buttons}")
        if command.console:
            lines.append(f"- Console: `{command.console}`")
        lines.append("")
    return "\n".join(lines)
