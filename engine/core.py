"""The common core every game is built on: errors, options, outcomes, the state API.

A game module declares a `GameInfo` and a `GameState` subclass and calls
`register(...)` (engine/registry.py) last. The base class owns the checked public surface (`play`,
`moves`, `ply`); a game implements the hooks `_play_action`, `legal_moves`,
`to_move`, `copy` and `view`.
"""

from __future__ import annotations

import copy as _copy
import enum
import random
import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Self

#: Longer input than this cannot be a move in any game; refused before parsing.
MAX_MOVE_TEXT = 200

#: Taps that can make one move at most (a Short Circuit turn of many pops is longest).
MAX_TAPS = 60
#: A tap's word: a target's coordinate or a tool's word.
_TAP_WORD = re.compile(r"[a-z]{1,12}|[a-z]{1,3}[0-9]{1,4}")

#: JSON scalar option values: options round-trip through JSON unchanged.
OptionValue = int | str | bool


class Code(enum.StrEnum):
    """Why the rules refused something: a move, or a game that cannot start as asked (the
    application's own refusals, a player not seated..., have a vocabulary of their own).
    Adapters and tests compare against these, never against prose."""

    AFTER_PIECE = "after_piece"
    BACKWARD = "backward"
    BAD_LINE = "bad_line"
    BAD_OPTION = "bad_option"
    BAD_RECORD = "bad_record"
    CAPACITOR_AFTER_POP = "capacitor_after_pop"
    CAPACITOR_NOT_NEAR = "capacitor_not_near"
    CROSSING = "crossing"
    DEAD_DOT = "dead_dot"
    DEAD_END = "dead_end"
    DIAGONAL_FROM_STRAIGHT = "diagonal_from_straight"
    EMPTY = "empty"
    FORBIDDEN = "forbidden"
    GAME_OVER = "game_over"
    ILLEGAL = "illegal"
    LANDS_ON_DEAD = "lands_on_dead"
    LANDS_ON_LINE = "lands_on_line"
    LENGTH = "length"
    NOT_YOURS = "not_yours"
    NO_CAPACITOR = "no_capacitor"
    NO_CONNECTOR = "no_connector"
    NO_DOT = "no_dot"
    NO_OTHER_COLOUR = "no_other_colour"
    NO_PASS = "no_pass"
    NO_SUPPLY = "no_supply"
    NO_SWAP = "no_swap"
    OCCUPIED = "occupied"
    OFF_BOARD = "off_board"
    OVERLAP = "overlap"
    OWN_BASE = "own_base"
    PASSES_OVER = "passes_over"
    PLAYER_COUNT = "player_count"
    POP_NOT_LINKED = "pop_not_linked"
    SAME_COLOUR = "same_colour"
    SAME_POINT = "same_point"
    SETUP = "setup"
    SYNTAX = "syntax"
    THROUGH_BASE = "through_base"
    THROUGH_LINE = "through_line"
    TOO_LONG = "too_long"
    UNKNOWN_GAME = "unknown_game"
    USED_DOT = "used_dot"
    WRONG_KIND = "wrong_kind"


#: Refusals of text that is no move at all in any game: blank, too long, unreadable, or
#: "pass" (no game takes a typed pass; the engine makes forced passes). An adapter that
#: reads moves from free chat stays silent on these, and answers every other refusal.
NOT_A_MOVE = frozenset({Code.EMPTY, Code.NO_PASS, Code.SYNTAX, Code.TOO_LONG})


class IllegalMove(ValueError):
    """A refused move. `str(exc)` is the sentence shown to the player verbatim."""

    def __init__(self, sentence: str, *, code: Code = Code.ILLEGAL) -> None:
        super().__init__(sentence)
        self.code = code  # tests assert on this, not on prose


class BadOptions(ValueError):
    """A game that cannot be started as asked: an unknown game, a player count or an
    option the game does not allow. `new` raises only this, its text the sentence shown
    to the player; an option's parser raises it with the part after the option's name."""

    def __init__(self, sentence: str, *, code: Code = Code.BAD_OPTION) -> None:
        super().__init__(sentence)
        self.code = code


class End(enum.StrEnum):
    """Why a game ended. Each game declares the ones its rules produce in its
    `GameInfo.ends`."""

    CONNECTION = "connection"  # Hex, Disthex
    LAST_WIRE = "last wire"  # Hot Wire: the opponent connected the hot wire
    LOOP = "loop"  # Short Circuit
    NO_CONNECTORS = "no connectors"  # Short Circuit: last connector popped
    BASE_REACHED = "base reached"  # Livewire
    POINTS = "points"  # Making Intersections
    PASSES = "passes"  # two passes in a row: draw
    TURN_LIMIT = "turn limit"  # Short Circuit max-turns: draw
    RESIGNATION = "resignation"  # set by the service, not the rules
    TIME = "time"  # set by the service, not the rules
    FORFEIT = "forfeit"  # set by the service: a player left the event the game is part of


#: The ways a game ends that the service sets, in every game; a game's own are in its
#: `GameInfo.ends`.
SERVICE_ENDS = frozenset({End.RESIGNATION, End.TIME, End.FORFEIT})


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a finished game ended.

    `winners` are seats: one winner, several for a shared win, () for a draw.
    `path` is the deciding structure (chain, loop, path, last wire) as the
    cells or move text a renderer highlights.
    """

    winners: tuple[int, ...]
    reason: End
    scores: tuple[int, ...] | None = None
    path: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Option:
    """One game option: its default and how a typed value becomes a canonical one.

    `parse` takes what a player types (or a value already canonical) and
    returns the canonical JSON scalar, or raises BadOptions naming the
    constraint and what is allowed. A default of None means "derived from
    the other options" (the state fills it in).
    """

    name: str
    default: OptionValue | None
    allowed: str  # human description, e.g. "2x2 to 26x26"
    parse: Callable[[object], OptionValue]
    help: str = ""
    choices: tuple[OptionValue, ...] = ()  # short list for menus, when there is one


@dataclass(frozen=True, slots=True)
class GameInfo:
    """The declaration of a game, as data."""

    name: str  # registry key, e.g. "hex"
    title: str
    version: int  # bump when the rules change
    min_players: int
    max_players: int
    seat_names: tuple[str, ...]  # "Red", "Black"; games with more seats number them
    options: Mapping[str, Option]
    summary: str  # a short rules summary, the player's words
    notation: str  # how a move is typed, the player's words (examples come from a game)
    credit: str
    ends: frozenset[End]  # every End its rules can finish a game with (Outcome.reason)
    #: whether a move can change which seat bears which name (Hex's swap); when not, every
    #: position names its seats `seat_name` does, and no replay is needed to name them
    renames_seats: bool = False
    #: words a typed move may begin with, cells following ("pop e5 f6", "r d4")
    move_words: frozenset[str] = frozenset()
    #: words that are a whole move by themselves (Hex's "swap")
    word_moves: frozenset[str] = frozenset()

    def seat_name(self, seat: int) -> str:
        if seat < len(self.seat_names):
            return self.seat_names[seat]
        return f"Player {seat + 1}"


@dataclass(frozen=True, slots=True)
class Tapped:
    """A move as taps on the board write it so far: its text in the game's notation,
    and whether it is a whole move yet (else more taps are needed)."""

    text: str
    whole: bool


@dataclass(frozen=True, slots=True)
class View:
    """What every game's render-facing view carries. Games extend it."""

    game: str
    ply: int
    to_move: int | None
    players: int
    last_move: str | None
    outcome: Outcome | None


class GameState(ABC):
    """A position. States behave as values: `play` returns the state after the
    move and never changes the state it was called on.

    Subclasses mutate themselves only inside `_play_action` on a fresh copy.
    """

    info: ClassVar[GameInfo]
    #: Attributes holding a table every state of the same options shares (built once
    #: per process and cached): a pickled state leaves them out, so it travels to a
    #: drawing worker as kilobytes, and the unpickled one finds them in its process.
    _shared_tables: ClassVar[tuple[str, ...]] = ()

    def __init__(self, options: Mapping[str, OptionValue]) -> None:
        self.options: dict[str, OptionValue] = dict(options)
        self._moves: list[str] = []
        self._actors: list[int] = []  # the seat that made each entry of _moves
        self.outcome: Outcome | None = None

    # -- the public API -------------------------------------------------------

    @property
    def name(self) -> str:
        return self.info.name

    @property
    def players(self) -> int:
        return int(self.options["players"])

    @property
    def moves(self) -> tuple[str, ...]:
        """The canonical record, one entry per action, forced passes included."""
        return tuple(self._moves)

    @property
    def actors(self) -> tuple[int, ...]:
        """The seat that made each record entry: the mover for their actions (a whole
        turn may be several), the passer for a forced pass."""
        return tuple(self._actors)

    @property
    def ply(self) -> int:
        return len(self._moves)

    @property
    def last_move(self) -> str | None:
        return self._moves[-1] if self._moves else None

    @property
    @abstractmethod
    def to_move(self) -> int | None:
        """The seat to act, or None when the game is over."""

    def seat_name(self, seat: int) -> str:
        """The game's name for a seat now ("Red"); a swap may change it."""
        return self.info.seat_name(seat)

    @property
    def mid_turn(self) -> bool:
        """True while the player to move has acted this turn and keeps it
        (Short Circuit's pops). Clocks and undo treat a turn as one move."""
        return False

    @abstractmethod
    def legal_moves(self) -> list[str]:
        """The canonical text of every legal action now, in a stable sorted order."""

    def example_move(self) -> str | None:
        """A legal move now, to show a player the notation ("Type the move: move f6"); None
        when the game is over. The middle of the sorted list: on most boards a point near
        the centre rather than a corner."""
        shown_from = self._example_moves()
        return shown_from[len(shown_from) // 2] if shown_from else None

    def _example_moves(self) -> list[str]:
        """The moves `example_move` picks from (a game may prefer some kinds)."""
        return self.legal_moves()

    def _refusal_example(self) -> str:
        """The move a refusal of unreadable text shows: `example_move`, legal here, so a
        newcomer never copies an example that the board or the game refuses. A move is
        read only while the game goes on, when there is always one."""
        example = self.example_move()
        if example is None:
            raise AssertionError(f"{self.name} read a move after the game ended")
        return example

    #: How many targets (pins, dots, cells) a move taps, in the order its notation names
    #: them, for the games whose move is its points.
    _tapped_points: ClassVar[int] = 2

    def tap_tools(self) -> tuple[str, ...]:
        """The words a player may tap now besides the board's targets (Hex's swap, Short
        Circuit's colours): each a button beside the picture."""
        return ()

    def tapped(self, taps: Sequence[str]) -> Tapped:
        """The move that `taps` (targets' coordinates and tools' words, in order) write in
        this game's notation. Refuses taps that can make no move, in one sentence; the
        move itself is checked by `play`."""
        points = self._tap_words(taps)
        if len(points) > self._tapped_points:
            raise IllegalMove(
                f"A move taps {self._tapped_points} points; start again from the first.",
                code=Code.SYNTAX,
            )
        return Tapped(" ".join(points), len(points) == self._tapped_points)

    def _tap_words(self, taps: Sequence[str]) -> list[str]:
        """`taps` checked as words: at most MAX_TAPS, each a coordinate or a tool's word."""
        if len(taps) > MAX_TAPS:
            raise IllegalMove("Too many taps for one move.", code=Code.TOO_LONG)
        tools = self.tap_tools()
        for tap in taps:
            if not isinstance(tap, str) or not _TAP_WORD.fullmatch(tap):
                raise IllegalMove(f"{shown(tap)} is not a point of the board.", code=Code.SYNTAX)
            if tap.isalpha() and tap not in tools:
                raise IllegalMove(f"{shown(tap)} cannot be used now.", code=Code.SYNTAX)
        return list(taps)

    @abstractmethod
    def view(self) -> View:
        """The render-facing picture of the position; renderers derive no rules."""

    def _view_fields(self) -> dict[str, Any]:
        """The fields every game's view starts with (the `View` base)."""
        return {
            "game": self.name,
            "ply": self.ply,
            "to_move": self.to_move,
            "players": self.players,
            "last_move": self.last_move,
            "outcome": self.outcome,
        }

    def play(self, text: str) -> Self:
        """Parse, check and apply `text`; return the new state (self is unchanged).

        Raises IllegalMove, and only IllegalMove, whatever `text` is.
        """
        cleaned = clean_text(text)
        if self.outcome is not None:
            raise IllegalMove("The game is already over.", code=Code.GAME_OVER)
        after = self.copy()
        after._play_text(cleaned)
        return after

    def copy(self) -> Self:
        """An independent copy. Games with big immutable tables may override."""
        return _copy.deepcopy(self)

    def random_playout(self, rng: random.Random) -> Self:
        """Play uniformly random legal actions to the end; return the final state.

        The benchmark and the property tests use this. Games may override it
        with a faster path that makes the same random choices available.
        """
        state = self.copy()
        while state.outcome is None:
            state._play_action(rng.choice(state.legal_moves()))
        return state

    # -- hooks for games ------------------------------------------------------

    def _play_text(self, text: str) -> None:
        """Apply one typed move to self. Short Circuit overrides this to take a
        whole turn; every other game plays one action."""
        self._play_action(text)

    @abstractmethod
    def _play_action(self, text: str) -> None:
        """Parse, check and apply one action to self, appending its canonical
        text (and any forced passes) to `_moves`. Raises IllegalMove before
        changing anything."""

    def _record(self, canonical: str) -> None:
        """Append a record entry made by the seat to move now (for a forced pass, the
        passer): games record an action before they hand the turn on or end the game."""
        seat = self.to_move
        if seat is None:
            raise AssertionError(f"{self.name} recorded {canonical!r} after the game ended")
        self._actors.append(seat)
        self._moves.append(canonical)

    def _copy_record(self, twin: GameState) -> None:
        """Give `twin` its own copy of the record (for games' own fast `copy`)."""
        twin._moves = list(self._moves)
        twin._actors = list(self._actors)

    def __getstate__(self) -> dict[str, Any]:
        fields = dict(self.__dict__)
        for name in self._shared_tables:
            del fields[name]
        return fields

    def __setstate__(self, fields: dict[str, Any]) -> None:
        self.__dict__.update(fields)
        if self._shared_tables:
            fresh = type(self)(self.options)  # finds (or builds) this process's tables
            for name in self._shared_tables:
                setattr(self, name, getattr(fresh, name))

    def __copy__(self) -> Self:
        """Every attribute shared; a game's `copy` then replaces what its moves change."""
        twin = object.__new__(type(self))
        twin.__dict__.update(self.__dict__)
        return twin

    def __repr__(self) -> str:
        return f"replay({self.name!r}, {self.options!r}, {list(self._moves)!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GameState):
            return NotImplemented
        return (
            self.name == other.name
            and self.options == other.options
            and self._moves == other._moves
            and self.outcome == other.outcome
        )

    __hash__ = None  # type: ignore[assignment]


# -- text ---------------------------------------------------------------------


def clean_text(text: object) -> str:
    """Normalise typed input: lower case, single spaces. Refuse what cannot be a move."""
    if not isinstance(text, str):
        raise IllegalMove("A move must be typed as text.", code=Code.EMPTY)
    if len(text) > MAX_MOVE_TEXT:
        raise IllegalMove(
            f"That is too long to be a move ({len(text)} characters).", code=Code.TOO_LONG
        )
    cleaned = " ".join(text.lower().split())
    if not cleaned:
        raise IllegalMove("Type a move, for example the cells it uses.", code=Code.EMPTY)
    return cleaned


def shown(value: object, limit: int = 24) -> str:
    """Quote what a player typed (or any value given as input) inside a sentence:
    printable and at most `limit` characters, however long or strange the input.
    Every sentence that repeats input quotes it through here."""
    text = value if isinstance(value, str) else _printed(value)
    printable = "".join(ch if ch.isprintable() else "?" for ch in text[:limit])
    if len(text) > limit:
        printable = printable[: limit - 1] + "…"
    return f"“{printable}”"


def _printed(value: object) -> str:
    try:
        return repr(value)
    except ValueError:  # an int beyond the digits Python will print
        return f"{type(value).__name__} too long to show"


def whole_number(raw: object, digits: int = 6) -> int | None:
    """A whole number typed or given, of at most `digits` digits; None for anything else
    (isdecimal, not isdigit: "²" is a digit that int() refuses)."""
    if isinstance(raw, bool):
        return None
    if isinstance(raw, int):
        return raw
    text = raw.strip() if isinstance(raw, str) else ""
    if text.isdecimal() and len(text) <= digits:
        return int(text)
    return None


@dataclass
class UnionFind:
    """Disjoint sets over 0..n-1, with path halving and union by size."""

    size: int
    parent: list[int] = field(init=False)
    weight: list[int] = field(init=False)

    def __post_init__(self) -> None:
        self.parent = list(range(self.size))
        self.weight = [1] * self.size

    def find(self, item: int) -> int:
        parent = self.parent
        while parent[item] != item:
            parent[item] = parent[parent[item]]
            item = parent[item]
        return item

    def union(self, a: int, b: int) -> bool:
        """Join the sets of a and b; False when they were already one."""
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return False
        if self.weight[ra] < self.weight[rb]:
            ra, rb = rb, ra
        self.parent[rb] = ra
        self.weight[ra] += self.weight[rb]
        return True
