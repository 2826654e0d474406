"""How a command is declared: `Command`, its `Param`s and how the console reads each, and
the parameters several families share (a game's number, a game's name)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import engine

#: "days": a time per move, a number of days or none.
ParamKind = Literal["game", "game_id", "user", "text", "int", "bool", "choice", "days"]
#: How the console reads a parameter: a game's number (12, #12, game=12), an @name, a bare
#: word, key=value, its name alone meaning yes (a flag), the rest of the line, key=value
#: handed to the game as one of its options (size=7x7), every other key=value word (the
#: game's options), or "none": the console has no such parameter.
Typed = Literal["number", "mention", "word", "key", "flag", "rest", "option", "options", "none"]
#: How the console reads a parameter of each kind that does not say.
TYPED_BY_KIND: dict[ParamKind, Typed] = {"game_id": "number", "user": "mention", "game": "word"}


@dataclass(frozen=True, slots=True)
class Param:
    name: str
    kind: ParamKind
    help: str
    required: bool = False
    choices: tuple[str, ...] = ()
    typed: Typed | None = None  # how the console reads it; None: as its kind
    keys: tuple[str, ...] = ()  # the console's shorter keys for it: days= for days_per_move=

    @property
    def console(self) -> Typed:
        """How the console reads this parameter."""
        return self.typed or TYPED_BY_KIND.get(self.kind, "key")


@dataclass(frozen=True, slots=True)
class Command:
    name: str
    help: str  # one sentence: the slash command's description
    params: tuple[Param, ...] = ()
    discord: str | None = None  # an example, or None where Discord uses a button
    console: str | None = None  # an example, or None where the console has no such command
    buttons: str = ""  # the buttons that stand for it on Discord
    admin: bool = False  # needs Manage Server on Discord


GAME_ID = Param(
    "game", "game_id", "the game's number; defaults to this thread's game or your only game on move"
)
#: How the console names a game; `help` prints it first.
GAME_NUMBERS = (
    "Name a game by its number, first or last on the line: move 12 d5 g3, d5 g3 #12, "
    "undo 12 (or game=12 anywhere). Without a number: your game on move, else your only "
    "game under way; for undo, the game of your last move."
)
GAME_NAME = Param("game", "game", "which game", required=True, choices=tuple(engine.GAMES))
