"""What a room of commands (play.py, looks.py, ai.py, settings.py, events.py) sees of the
console: its service, who types, and how it prints. The console (console.py) sits above
the rooms and builds its table of commands from theirs; they see it only through
`Session`, so no room imports console.py (tests/test_layers.py checks)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime
from pathlib import Path
from typing import Protocol

from bot.schedule.airunner import AiRunner
from bot.service import GameService, GameSummary, Player, Result

#: The console plays as one pretend server and channel.
GUILD, CHANNEL = 0, 0


class Session(Protocol):
    service: GameService
    runner: AiRunner | None  # the bot's moves, driven from here (none: nobody plays the bot)
    me: Player  # who types
    zone: str | None  # the time zone of `me`: the times they read are in it
    names: dict[int, str]  # the local players met so far, by id

    def say(self, text: str) -> None: ...

    async def read_line(self, prompt: str | None) -> str | None:
        """The next line (an answer to a question: y or n); None at the end of input."""

    def player(self, name: str) -> Player:
        """A local player by name (typed after @)."""

    def when(self, moment: datetime, zone: str | None = None) -> str:
        """A time in the zone of whom it is for, else in the zone of who types here."""

    async def announce(self, result: Result) -> None:
        """Print a use case's result and mark it delivered in the service's outbox."""

    async def show_board(self, game: GameSummary, png: bytes, *, ply: int | None = None) -> None:
        """A board in characters, and the path of its picture."""

    def save(self, name: str, data: bytes) -> Path:
        """Write a picture or a file into the board folder."""


#: A room's handler of a command: the console, the command's words (after its name, and
#: its action: "tournament join") and the rest of the line as typed.
Handler = Callable[[Session, list[str], str], Awaitable[None]]
