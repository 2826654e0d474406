"""The console: the same commands as on Discord, typed in a terminal.

Several local players share one terminal (`as bob` switches), one SQLite store,
one pretend server. Every board is saved as a PNG (its path printed) and drawn
in characters. When standard input is not a terminal the commands are read
from it, so a whole game can be piped in; end of input ends the session.

The bot: at a terminal the AI runner's own loop plays its moves while the player
types on (they are printed as they come, as Discord posts them). Piped input is
a script: each line waits for the bot's moves it set off before the next line
is read, so a script's transcript is the same on every run.

This module is the loop: it reads a line, hands it to the command's handler and
prints what comes back. The commands are in rooms, one per family of bot/commands/
(play.py, looks.py, ai.py, settings.py, events.py); `as` and `help` are the loop's own.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import shlex
import sys
import unicodedata
import zlib
from collections.abc import Awaitable, Callable, Iterable, Iterator
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import TextIO

from bot.console import ai, events, looks, play, settings
from bot.console.ai import ai_work
from bot.console.numbers import is_comment
from bot.console.session import GUILD, Handler
from bot.console.vocabulary import ACTIONS_OF, help_lines, no_command, typed_here
from bot.schedule.airunner import AiRunner
from bot.service import (
    Event,
    GameService,
    GameSummary,
    MoveResult,
    Player,
    Refused,
    Result,
    ServiceCode,
    closest,
    describe,
    local_time,
)

log = logging.getLogger("paperboard.console")

#: Moves without a digit that may be typed bare, like "d5".
BARE_WORD_MOVES = {"swap", "pass"}  # "pass" gets the engine's sentence: it is never typed
#: The rooms' commands (each room a family of bot/commands/), by name.
ROOMS: dict[str, Handler] = {
    **play.HANDLERS,
    **looks.HANDLERS,
    **ai.HANDLERS,
    **settings.HANDLERS,
    **events.HANDLERS,
}


def player_id(name: str) -> int:
    """A local player's id, the same for the same name in every session."""
    return 1_000_000 + zlib.crc32(name.strip().lower().encode())


class Console:
    def __init__(
        self, service: GameService, out: TextIO, board_dir: Path, runner: AiRunner | None = None
    ) -> None:
        self.service = service
        self.runner = runner  # the bot's moves, driven from here (none: nobody plays the bot)
        self.out = out
        self.board_dir = board_dir
        self.me = Player(player_id("player"), "player")
        self.zone: str | None = None  # the time zone of `me`: the times they read are in it
        self.names: dict[int, str] = {self.me.id: self.me.name}
        self.source: Iterator[str] | None = None  # piped lines; None: standard input
        self.interactive = False  # at a terminal: the bot moves while the player types
        self.reading: str | None = None  # the prompt while a line is read from the terminal
        self.asides = 0  # output under way that came while a line was being read
        self.answering = False  # a command is under way: the bot's moves wait for its answer
        self.held: list[Result] = []  # the bot's moves that came while a command was answered
        self.handlers: dict[str, Callable[[list[str], str], Awaitable[None]]] = {
            **{name: partial(handler, self) for name, handler in ROOMS.items()},
            "as": self.act_as,
            "help": self.help,
        }

    # -- the loop -------------------------------------------------------------------

    async def run(self, lines: Iterable[str] | None = None, *, interactive: bool = False) -> None:
        """Read commands until `quit` or the end of input. `interactive` (a terminal): a
        prompt, and the bot thinks while the player types; otherwise each line waits for
        the bot's moves it set off."""
        self.say("Paperboard console. Type help for the commands, quit to leave.")
        self.source = iter(lines) if lines is not None else None
        self.zone = await self.service.lookups.time_zone(self.me.id)
        self.interactive = interactive
        if interactive and self.runner is not None:
            await self.runner.start()  # its loop plays the bot; bot_moved prints each move
        else:
            await self.bot_turns()  # a move the bot owed when the last session ended
        while True:
            line = await self.read_line(f"{self.me.name}> " if interactive else None)
            if line is None or not await self.handle(line):
                return

    async def read_line(self, prompt: str | None) -> str | None:
        """The next line typed or piped in; None at the end of input."""
        if prompt is not None:
            self.out.write(prompt)
            self.out.flush()
        if self.source is not None:
            return next(self.source, None)
        self.reading = prompt or ""
        try:
            line = await asyncio.to_thread(sys.stdin.readline)
        finally:
            self.reading = None
        # Bytes that are not UTF-8 arrive as lone surrogates, which nothing can encode
        # again (the database, the terminal): make them U+FFFD.
        return line.encode("utf-8", "surrogateescape").decode("utf-8", "replace") or None

    async def handle(self, line: str) -> bool:
        """One command line; False to stop."""
        text = line.strip()
        if not text or is_comment(text):
            return True  # a comment ("#12 d5" names a game)
        word, _, rest = text.partition(" ")
        word = word.lower()
        if word in ("quit", "exit"):
            return False
        try:
            words = shlex.split(rest)
        except ValueError as error:
            self.say(f"I can't read that line ({error}).")
            return True
        if word in ACTIONS_OF:  # a command with an action: "tournament join 1"
            action = words[0].lower() if words else ""
            word = f"{word} {action}"
            if word not in self.handlers:
                self.say(
                    f"Say what to do: {text.split()[0].lower()} "
                    f"{', '.join(ACTIONS_OF[text.split()[0].lower()])}."
                )
                return True
            words, rest = words[1:], rest.strip().partition(" ")[2]
        handler = self.handlers.get(word)
        self.answering = True
        try:
            if handler is not None:
                await handler(words, rest.strip())
            elif self.reads_as_move(word, text):
                await play.move(self, [], text)  # a bare move: "d5 g3", "swap", "c3 #12"
            else:
                raise no_command(word, [*self.handlers, "quit"])
            if not self.interactive:
                await self.bot_turns()
                # what followed from the line in the outbox (an event's next round after
                # its last game ended), printed before the next line is read
                await self.service.outbox.redeliver(self.print_result)
        except Refused as refusal:
            self.refused(refusal)
        except Exception:  # a bug must not end the session or lose the games
            log.exception("console command failed: %r", text[:200])
            self.say(
                "Something went wrong with that command; it is logged. "
                "Type games to see where your games stand."
            )
        finally:
            self.answering = False
        while self.held:  # the bot's replies after the move that set them off
            await self.show_bot_move(self.held.pop(0))
        return True

    def reads_as_move(self, word: str, line: str) -> bool:
        """Whether a line that names no command is a bare move: it holds a digit ("d5 g3",
        "c3 #12") or is a move word ("swap"), and its first word is no command mistyped
        ("chalenge hex size=5")."""
        if word in BARE_WORD_MOVES:
            return True
        if not any(ch.isdigit() for ch in line):
            return False
        return any(ch.isdigit() for ch in word) or self.command_meant(word) is None

    def command_meant(self, word: str) -> str | None:
        return closest(word, [*self.handlers, "quit"])

    def refused(self, refusal: Refused) -> None:
        """Say why a command was refused: one sentence, and nothing changed."""
        self.say(refusal.worded(typed_here))

    async def bot_turns(self) -> None:
        """Piped input: let the bot play in every game where it is to move, after any
        command (a move, an accept or a rematch that seats it first, an undo) and at the
        start, before the next line is read. Each of its moves is printed like anyone's."""
        if self.runner is None:
            return
        for game in await self.service.lookups.games(GUILD, status="active"):
            if _bot_to_move(game):
                await ai_work(
                    self,
                    partial(self.service.lookups.game, game.id, GUILD),
                    lambda g: not _bot_to_move(g),
                )

    # -- who types: the loop's own commands, the local players ----------------------------

    async def act_as(self, words: list[str], _: str) -> None:
        if not words:
            raise Refused("Name the player: as bob.", code=ServiceCode.USAGE)
        self.me = self.player(words[0].lstrip("@"))
        self.zone = await self.service.lookups.time_zone(self.me.id)
        self.say(f"You are {self.me.name}.")

    async def help(self, words: list[str], _: str) -> None:
        self.say("\n".join(help_lines(words, [*self.handlers, "quit"])))

    def player(self, name: str) -> Player:
        cleaned = name.strip()[:32]
        if not cleaned:
            raise Refused("Name the player after @, as in @bob.", code=ServiceCode.USAGE)
        if any(unicodedata.category(ch) == "Cc" for ch in cleaned):  # NUL, escape codes
            raise Refused("A player's name cannot hold control characters.", code=ServiceCode.USAGE)
        player = Player(player_id(cleaned), cleaned)
        self.names[player.id] = cleaned
        return player

    # -- printing -------------------------------------------------------------------------

    async def announce(self, result: Result) -> None:
        """Print a use case's result and mark it delivered in the service's outbox."""
        await self.service.outbox.deliver(result, self.print_result)

    async def bot_moved(self, result: Result) -> None:
        """The AI runner's delivery: the bot's move printed like anyone's, with the board
        (at a terminal, perhaps while the player types); after the answer to a command
        under way (the move that set it off), not in the middle of it."""
        if self.answering:
            self.held.append(result)
        else:
            await self.show_bot_move(result)

    async def show_bot_move(self, result: Result) -> None:
        with self.aside():
            await self.announce(result)
            if isinstance(result, MoveResult) and result.png:
                await self.show_board(result.game, result.png)

    async def print_result(self, result: Result) -> None:
        """The console's delivery: each event's sentence (the scheduler calls it too)."""
        with self.aside():
            for event in result.events:
                self.say(self.describe(event, result.game))

    @contextlib.contextmanager
    def aside(self) -> Iterator[None]:
        """Output that comes while the player types (the bot's move, a reminder): on lines
        below the one being typed, then the prompt again."""
        if self.reading is not None and self.asides == 0:
            self.out.write("\n")
        self.asides += 1
        try:
            yield
        finally:
            self.asides -= 1
            if self.reading is not None and self.asides == 0:
                self.out.write(self.reading)
                self.out.flush()

    def describe(self, event: Event, game: GameSummary) -> str:
        names = {s.player_id: s.name for s in game.seats if s.player_id is not None}
        return describe(
            event, game, lambda pid: "@" + (names.get(pid) or self.names.get(pid, "?")), self.when
        )

    def when(self, moment: datetime, zone: str | None = None) -> str:
        """A time in the zone of whom it is for, else in the zone of who types here."""
        return local_time(moment, zone or self.zone)

    async def show_board(self, game: GameSummary, png: bytes, *, ply: int | None = None) -> None:
        shown = game.ply if ply is None else ply
        self.say(await self.service.lookups.board_text(game.id, GUILD, ply=shown))
        if png:  # empty when the picture could not be drawn (logged)
            path = self.save(f"game-{game.id}-move-{shown}.png", png)
            self.say(f"Board: {path}")

    def save(self, name: str, data: bytes) -> Path:
        """Write a picture or a file into the board folder; a refusal when that fails
        (what the command did stands: the file is all that is missing)."""
        path = self.board_dir / name
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        except OSError as error:
            raise Refused(
                f"I could not save {path} ({error.strerror or error}); check BOARD_DIR.",
                code=ServiceCode.USAGE,
            ) from None
        return path

    def say(self, text: str) -> None:
        self.out.write(text + "\n")
        self.out.flush()


def _bot_to_move(game: GameSummary) -> bool:
    return (
        game.status == "active"
        and game.to_move is not None
        and game.seats[game.to_move].bot is not None
    )
