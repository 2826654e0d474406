"""The console adapter: Paperboard's commands in a terminal, without Discord."""

from bot.console.console import Console, player_id

__all__ = ["Console", "player_id"]
