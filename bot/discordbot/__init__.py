"""The Discord adapter: slash commands, buttons and game threads on discord.py.

Named so it does not shadow the `discord` package. Only this package imports discord.
"""

from bot.discordbot.client import (
    PaperboardBot,
    invite_url,
    run_bot,
    sync_commands,
)

__all__ = ["PaperboardBot", "invite_url", "run_bot", "sync_commands"]
