"""Short Circuit ("Graph Coloring and Cycles"): close a loop of your own connectors.

Source: the rules page "Short Circuit; or Graph Coloring and Cycles" (author
not named); the project's reading is docs/RULES.md, "Short Circuit".
Two players share a hex-hex board. Each owns connectors of two colours and
places them so that a new connector touches one of their own of the other
colour and none of the same colour. Neutral capacitors, placed next to your
connectors, can later be popped to remove a capacitor together with a
connector next to one of yours. Whoever ends a turn with a closed loop of
their connectors wins; a player whose last connector is popped loses; two
passes in a row or the turn limit draw.

An engine action is one pop or one piece; the mover keeps the turn through
their pops and hands it over with the piece. `play` also takes a whole turn
typed as one string ("pop e5 f6, pop d4 d5, y c3").
"""

from __future__ import annotations

import copy as _copy
import functools
import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Self

from engine.core import (
    BadOptions,
    Code,
    End,
    GameInfo,
    GameState,
    IllegalMove,
    Option,
    OptionValue,
    Outcome,
    Tapped,
    View,
    int_option,
    register,
    shown,
    whole_number,
)
from engine.hexgrid import HEXHEX_DIRECTIONS, hexhex_cells
from engine.notation import Point, label, point, points, sort_key

_compiled: ModuleType | None
try:  # RandomPlayout's loop compiled, where the install step had a C compiler
    import engine._shortcircuit_playout as _compiled
except ImportError:
    _compiled = None

UNLIMITED = "unlimited"
_UNLIMITED_WORDS = {"unlimited", "infinite", "inf", "no limit"}
_MAX_CAPACITORS = 999


def _capacitors_option(raw: object) -> OptionValue:
    """A per-player capacitor supply: a whole number 0..999, or "unlimited"."""
    if str(raw).strip().lower() in _UNLIMITED_WORDS:
        return UNLIMITED
    value = whole_number(raw)
    if value is None or not 0 <= value <= _MAX_CAPACITORS:
        raise BadOptions(
            f"must be a whole number from 0 to {_MAX_CAPACITORS} or unlimited, not {shown(raw)}."
        )
    return value


# -- notation ---------------------------------------------------------------------

#: Colour indices: seat s owns colours 2s and 2s+1; the other colour of c is c ^ 1.
COLOURS = ("red", "yellow", "blue", "green")
_COLOUR_WORDS = {name: index for index, name in enumerate(COLOURS)} | {
    name[0]: index for index, name in enumerate(COLOURS)
}
_CAP_WORDS = {"cap", "c", "capacitor"}
_POP_WORD = "pop"

INFO = GameInfo(
    name="shortcircuit",
    title="Short Circuit",
    version=1,
    min_players=2,
    max_players=2,
    seat_names=("Player 1 (Red/Yellow)", "Player 2 (Blue/Green)"),
    options={
        "size": Option(
            "size",
            5,
            "3 to 10",
            int_option(3, 10),
            help="Side of the hex-hex board in cells (5 gives 61 cells).",
            choices=(4, 5, 6, 7),
        ),
        "capacitors": Option(
            "capacitors",
            UNLIMITED,
            f"0 to {_MAX_CAPACITORS}, or unlimited",
            _capacitors_option,
            help="Capacitors each player may place in the whole game.",
            choices=(UNLIMITED, 5, 10, 20),
        ),
        "max_turns": Option(
            "max_turns",
            300,
            "10 to 9999",
            int_option(10, 9999),
            help="The rules' max-turns: turns before a draw, counting the two setup "
            "placements, normal turns and passes (pops do not count).",
            choices=(100, 200, 300, 500),
        ),
    },
    summary=(
        "Player 2 puts a connector on the centre, Player 1 one next to it, then Player 1 "
        "starts. A turn: pop any number of capacitors (each removes itself and a connector "
        "next to one of your connectors on or beside it), then place one piece: a "
        "connector of one of your colours touching your other colour and not its own "
        "colour, or (if you did not pop) a capacitor on or beside one of your connectors. "
        "End a turn with a closed loop of your connectors to win."
    ),
    notation=(
        "A turn is its actions apart by commas, pops first. A connector: its colour by "
        "name or initial (red or r, yellow or y for Player 1; blue or b, green or g for "
        "Player 2), then its cell. A capacitor: cap, then its cell. A pop: pop, the "
        "capacitor's cell, then the cell of the connector it removes."
    ),
    move_words=frozenset({*_COLOUR_WORDS, *_CAP_WORDS, _POP_WORD}),
    credit="Short Circuit; or Graph Coloring and Cycles (rules page, author not named).",
    ends=frozenset({End.LOOP, End.NO_CONNECTORS, End.PASSES, End.TURN_LIMIT}),
)

_TURN_SEPARATOR = re.compile(r"\s*[,;]\s*")
_SETUP_TURNS = 2  # Player 2's centre piece, then Player 1's piece next to it
PASS = "pass"

# An action as the engine (and search) applies it, cells as bit indices:
# (_POP, capacitor, connector), (_CONNECTOR, colour, cell) or (_CAPACITOR, cell, 0).
_POP, _CONNECTOR, _CAPACITOR = 0, 1, 2
Action = tuple[int, int, int]


@dataclass(frozen=True, slots=True)
class ShortCircuitView(View):
    """What a renderer draws. Points are 0-based (column, row), row 0 at the bottom."""

    side: int
    cells: tuple[Point, ...]
    centre: Point
    connectors: tuple[tuple[Point, str], ...]  # (cell, colour name), board order
    capacitors: tuple[Point, ...]
    colours: tuple[tuple[str, str], ...]  # per seat: ("red", "yellow"), ("blue", "green")
    capacitors_left: tuple[int | None, ...]  # per seat; None = unlimited
    popped: bool  # the mover has popped this turn (so must play a connector)
    turns_played: int  # turns counted towards max_turns (setup, turns, passes)
    max_turns: int
    turn_actions: tuple[str, ...]  # the current turn's actions so far (pops)
    last_turn: tuple[str, ...]  # the actions of the last completed turn


class ShortCircuitState(GameState):
    info = INFO
    _shared_tables = ("_board",)

    def __init__(self, options: Mapping[str, OptionValue]) -> None:
        super().__init__(options)
        self._board = _board(int(self.options["size"]))
        supply = self.options["capacitors"]
        limit = None if supply == UNLIMITED else int(supply)
        self._caps_left: list[int | None] = [limit, limit]
        self._colours = [0, 0, 0, 0]  # one bitboard per colour
        self._caps = 0  # bitboard of capacitors
        self._mover = 1  # Player 2 places the centre piece
        self._turns = 0
        self._passes = 0  # passes in a row
        self._popped = False
        self._turn_actions: list[str] = []
        self._last_turn: tuple[str, ...] = ()

    @property
    def to_move(self) -> int | None:
        return None if self.outcome is not None else self._mover

    @property
    def turns_played(self) -> int:
        """Turns counted towards max_turns: setup placements, turns and passes."""
        return self._turns

    @property
    def max_turns(self) -> int:
        return int(self.options["max_turns"])

    def legal_moves(self) -> list[str]:
        if self.outcome is not None:
            return []
        return sorted((self.action_text(action) for action in self.actions()), key=sort_key)

    def _example_moves(self) -> list[str]:
        """Connector placements when there are any: the piece every turn ends with."""
        legal = self.legal_moves()
        return [move for move in legal if move.split(" ", 1)[0] in _COLOUR_WORDS] or legal

    def copy(self) -> Self:
        clone = _copy.copy(self)
        clone.options = dict(self.options)
        self._copy_record(clone)
        clone._caps_left = list(self._caps_left)
        clone._colours = list(self._colours)
        clone._turn_actions = list(self._turn_actions)
        return clone

    def random_playout(self, rng: random.Random) -> Self:
        """Uniform over the legal single actions, without building move text to parse."""
        state = self.copy()
        while state.outcome is None:
            state.apply(rng.choice(state.actions()))
        return state

    # -- playing ------------------------------------------------------------------

    def _play_text(self, text: str) -> None:
        """One action, or a whole turn: actions separated by commas or semicolons."""
        parts = [part for part in _TURN_SEPARATOR.split(text) if part]
        if len(parts) <= 1:
            self._play_action(parts[0] if parts else text)
            return
        trial = self.copy()
        played = ""  # the canonical text of the string's previous action
        for number, part in enumerate(parts, start=1):
            if number > 1 and (trial.outcome is not None or not trial._turn_actions):
                raise IllegalMove(
                    f"The turn ends with {played}, so {shown(part)} would belong to the next turn.",
                    code=Code.AFTER_PIECE,
                )
            ply = trial.ply
            try:
                trial._play_action(part)
            except IllegalMove as refused:
                raise IllegalMove(
                    f"Action {number} ({shown(part)}) is refused: {refused}",
                    code=refused.code,
                ) from None
            played = trial._moves[ply]
        vars(self).update(vars(trial))

    def _play_action(self, text: str) -> None:
        self.apply(self._parse_and_check(text))

    # -- taps on the board picture ----------------------------------------------------

    def tap_tools(self) -> tuple[str, ...]:
        """The mover's two colours, a capacitor and a pop."""
        if self.outcome is not None:
            return ()
        return (*COLOURS[2 * self._mover : 2 * self._mover + 2], "cap", _POP_WORD)

    def tapped(self, taps: Sequence[str]) -> Tapped:
        """A turn tapped: each action a tool (a colour, cap, pop) then its cells (a pop's
        capacitor, then the connector), pops first; a cell tapped without a tool is a
        connector of the one colour that may go there. Each action is checked as its last
        cell completes it, so a refusal comes at the tap that broke the turn."""
        trial = self.copy()
        actions: list[str] = []
        tool: str | None = None
        cells: list[str] = []
        for word in self._tap_words(taps):
            if actions and not trial.mid_turn:
                raise IllegalMove(
                    f"The turn ends with {actions[-1]}: confirm it, or start again.",
                    code=Code.AFTER_PIECE,
                )
            if word.isalpha():
                if cells:
                    raise IllegalMove(
                        f"Tap the connector the capacitor on {cells[0]} pops first.",
                        code=Code.SYNTAX,
                    )
                tool = word
                continue
            cells.append(word)
            tool = tool or trial._colour_for(word)
            if tool == _POP_WORD and len(cells) < 2:
                continue
            trial._play_action(f"{tool} {' '.join(cells)}")
            actions.append(trial._moves[-1])
            tool, cells = None, []
        partial = " ".join(cells if tool is None else [tool, *cells])
        text = ", ".join([*actions, partial] if partial else actions)
        return Tapped(text, bool(actions) and not trial.mid_turn)

    def _colour_for(self, cell_name: str) -> str:
        """The mover's one colour that may go on `cell_name`; refused when both may (the
        player taps a colour first) or neither may (why the first may not)."""
        cell = self._on_board(point(cell_name))
        fitting, refusals = [], []
        for colour in (2 * self._mover, 2 * self._mover + 1):
            try:
                self._check_connector(colour, cell)
            except IllegalMove as refused:
                refusals.append(refused)
            else:
                fitting.append(COLOURS[colour])
        if len(fitting) == 1:
            return fitting[0]
        if fitting:
            raise IllegalMove(
                f"Both {fitting[0]} and {fitting[1]} may go on {cell_name}: tap a colour first.",
                code=Code.SYNTAX,
            )
        raise refusals[0]

    def _parse_and_check(self, text: str) -> Action:
        head = text.split(" ", 1)[0]
        if head == PASS:
            raise IllegalMove(
                "You cannot pass: a pass happens by itself, only when no turn is possible.",
                code=Code.NO_PASS,
            )
        if head == _POP_WORD:
            return self._check_pop(*self._pop_cells(text))
        if head in _COLOUR_WORDS:
            return self._check_connector(_COLOUR_WORDS[head], self._cell(text))
        if head in _CAP_WORDS:
            return self._check_capacitor(self._cell(text))
        raise self._unreadable(text)

    def _unreadable(self, text: str) -> IllegalMove:
        return IllegalMove(
            f"I can't read {shown(text)}: play like {self._examples()}.", code=Code.SYNTAX
        )

    def _cell(self, text: str) -> int:
        """The cell a piece's action ("r d4", "cap d4") names."""
        named = text.partition(" ")[2]
        if not named:
            # a turn may have to start with pops before any piece fits
            pieces = self._examples((_CONNECTOR, _CAPACITOR)) or self._examples()
            raise IllegalMove(f"Name the cell too, like {pieces}.", code=Code.SYNTAX)
        try:
            where = point(named)
        except IllegalMove:
            raise self._unreadable(text) from None
        return self._on_board(where)

    def _pop_cells(self, text: str) -> tuple[int, int]:
        """The capacitor's and the connector's cells a pop ("pop e5 f6") names."""
        try:
            cells = points(text.partition(" ")[2])
        except IllegalMove:
            cells = []
        if len(cells) != 2:
            pop = self._examples((_POP,))
            shape = "A pop names two cells, the capacitor then the connector"
            if pop:
                raise IllegalMove(f"{shape}, like {pop}.", code=Code.SYNTAX)
            raise IllegalMove(
                f"{shape}, but none is possible now: play like {self._examples()}.",
                code=Code.SYNTAX,
            )
        return self._on_board(cells[0]), self._on_board(cells[1])

    def _examples(self, kinds: tuple[int, ...] = (_CONNECTOR, _CAPACITOR, _POP)) -> str:
        """A legal action now of each of `kinds` that has one, as a refusal lists them
        ("g e5, cap d4 or pop e5 f6"); the connector is `example_move`'s."""
        actions = self.actions()
        examples = []
        for kind in kinds:
            texts = sorted(
                (self.action_text(action) for action in actions if action[0] == kind),
                key=sort_key,
            )
            if texts:
                examples.append(texts[len(texts) // 2])
        if len(examples) < 2:
            return "".join(examples)
        return f"{', '.join(examples[:-1])} or {examples[-1]}"

    def _on_board(self, where: Point) -> int:
        bit = self._board.bit_at.get(where)
        if bit is None:
            raise IllegalMove(f"{label(where)} is not on the board.", code=Code.OFF_BOARD)
        return bit

    # -- the rules of one action ----------------------------------------------------

    def _check_connector(self, colour: int, cell: int) -> Action:
        board, mover = self._board, self._mover
        name = label(board.points[cell])
        if colour >> 1 != mover:
            raise IllegalMove(
                f"{COLOURS[colour].capitalize()} is {_player(colour >> 1)}'s colour.",
                code=Code.NOT_YOURS,
            )
        holder = self._connector_at(cell)
        if holder is not None:
            raise IllegalMove(
                f"{name} already has a {COLOURS[holder]} connector.", code=Code.OCCUPIED
            )
        text = f"{COLOURS[colour][0]} {name}"
        if self._turns == 0 and cell != board.centre:
            raise IllegalMove(
                f"The first piece goes on the centre cell {board.label(board.centre)}, "
                f"not on {name}.",
                code=Code.SETUP,
            )
        if self._turns == 1 and not board.neighbours[cell] >> board.centre & 1:
            raise IllegalMove(
                f"Player 1's first piece goes next to the centre cell "
                f"{board.label(board.centre)}, and {name} is not.",
                code=Code.SETUP,
            )
        if self._turns >= _SETUP_TURNS:
            same = board.neighbours[cell] & self._colours[colour]
            if same:
                raise IllegalMove(
                    f"{text} touches your {COLOURS[colour]} connector at "
                    f"{board.label(_lowest(same))}.",
                    code=Code.SAME_COLOUR,
                )
            if not board.neighbours[cell] & self._colours[colour ^ 1]:
                raise IllegalMove(
                    f"{text} is not next to any of your {COLOURS[colour ^ 1]} connectors.",
                    code=Code.NO_OTHER_COLOUR,
                )
        return (_CONNECTOR, colour, cell)

    def _check_capacitor(self, cell: int) -> Action:
        board, mover = self._board, self._mover
        name = board.label(cell)
        if self._turns < _SETUP_TURNS:
            raise IllegalMove(
                f"The two setup turns place one connector each, not a capacitor on {name}.",
                code=Code.SETUP,
            )
        if self._popped:
            raise IllegalMove(
                f"You popped this turn, so you must play a connector, not a capacitor on {name}.",
                code=Code.CAPACITOR_AFTER_POP,
            )
        if self._caps_left[mover] == 0:
            raise IllegalMove(
                f"You have no capacitors left to place on {name}.", code=Code.NO_SUPPLY
            )
        if self._caps >> cell & 1:
            raise IllegalMove(f"{name} already has a capacitor.", code=Code.OCCUPIED)
        own = self._own(mover)
        if not (own >> cell & 1 or board.neighbours[cell] & own):
            raise IllegalMove(
                f"cap {name} is neither on nor next to one of your connectors.",
                code=Code.CAPACITOR_NOT_NEAR,
            )
        return (_CAPACITOR, cell, 0)

    def _check_pop(self, capacitor: int, target: int) -> Action:
        board, mover = self._board, self._mover
        c_name, y_name = board.label(capacitor), board.label(target)
        if self._turns < _SETUP_TURNS:
            raise IllegalMove(
                f"There are no pops in the setup turns (pop {c_name} {y_name}).", code=Code.SETUP
            )
        if not self._caps >> capacitor & 1:
            raise IllegalMove(f"There is no capacitor on {c_name} to pop.", code=Code.NO_CAPACITOR)
        if self._connector_at(target) is None:
            raise IllegalMove(f"There is no connector on {y_name} to pop.", code=Code.NO_CONNECTOR)
        if not _pop_links(board, self._own(mover), capacitor, target):
            raise IllegalMove(
                f"{y_name} is not next to any of your connectors on or next to the "
                f"capacitor at {c_name}.",
                code=Code.POP_NOT_LINKED,
            )
        colours = self._colours_without(target)
        if not _connector_reachable(board, mover, colours, self._caps & ~(1 << capacitor)):
            raise IllegalMove(
                f"After pop {c_name} {y_name} you could place no connector, so the turn "
                "could not be finished.",
                code=Code.DEAD_END,
            )
        return (_POP, capacitor, target)

    def apply(self, action: Action) -> None:
        """Apply a legal action (checked, or one of `actions()`), then end the turn if it
        placed a piece."""
        kind, first, second = action
        self._record(self.action_text(action))
        if kind == _POP:
            self._caps &= ~(1 << first)
            self._colours = self._colours_without(second)
            self._popped = True
            self._turn_actions.append(self._moves[-1])
            return
        if kind == _CONNECTOR:
            self._colours[first] |= 1 << second
        else:
            self._caps |= 1 << first
            left = self._caps_left[self._mover]
            if left is not None:
                self._caps_left[self._mover] = left - 1
        self._end_turn(second if kind == _CONNECTOR else None)

    def actions(self) -> list[Action]:
        """Every legal single action of the mover now, unsorted (`legal_moves` gives
        their texts, sorted): what a search plays without parsing text."""
        board, mover = self._board, self._mover
        colours = self._colours
        empty = board.mask & ~(colours[0] | colours[1] | colours[2] | colours[3])
        if self._turns == 0:
            return [(_CONNECTOR, colour, board.centre) for colour in (2, 3)]
        if self._turns == 1:
            cells = list(_bits(board.neighbours[board.centre] & empty))
            return [(_CONNECTOR, colour, cell) for colour in (0, 1) for cell in cells]
        actions: list[Action] = []
        for colour in (2 * mover, 2 * mover + 1):
            placeable = _placeable(board, colours, colour, empty)
            actions.extend((_CONNECTOR, colour, cell) for cell in _bits(placeable))
        own = colours[2 * mover] | colours[2 * mover + 1]
        if not self._popped and self._caps_left[mover] != 0:
            free = (own | board.adjacent(own)) & ~self._caps
            actions.extend((_CAPACITOR, cell, 0) for cell in _bits(free))
        actions.extend((_POP, c, y) for c, y in _legal_pops(board, mover, colours, self._caps))
        return actions

    def action_text(self, action: Action) -> str:
        """The action's move text, as `legal_moves` gives it ("y c3", "cap d4")."""
        kind, first, second = action
        label_of = self._board.label
        if kind == _POP:
            return f"{_POP_WORD} {label_of(first)} {label_of(second)}"
        if kind == _CONNECTOR:
            return f"{COLOURS[first][0]} {label_of(second)}"
        return f"cap {label_of(first)}"

    def position_key(self) -> tuple[object, ...]:
        """Everything the rest of the game depends on (pieces, supplies, the mover,
        turns and passes counted, whether the mover has popped this turn): positions
        with equal keys have the same futures (a search's transposition key)."""
        return (
            tuple(self._colours),
            self._caps,
            tuple(self._caps_left),
            self._mover,
            self._turns,
            self._passes,
            self._popped,
        )

    # -- end detection ----------------------------------------------------------------

    def _end_turn(self, placed: int | None) -> None:
        """The mover placed their piece: check the end, hand over, make forced passes."""
        mover = self._mover
        self._last_turn = (*self._turn_actions, self._moves[-1])
        popped = self._popped
        self._turn_actions = []
        self._popped = False
        self._passes = 0
        self._turns += 1
        # Only the placed connector can close a loop: the mover had none when the
        # turn began (they would have won), and pops only remove connectors.
        loop = None if placed is None else _loop_through(self._board, self._own(mover), placed)
        if loop is not None:
            path = tuple(self._board.label(cell) for cell in loop)
            self.outcome = Outcome((mover,), End.LOOP, path=path)
            return
        # A placement gives the mover a connector; only a pop can empty the opponent.
        if popped and not self._own(1 - mover):
            self.outcome = Outcome((mover,), End.NO_CONNECTORS)
            return
        if self._turns >= self.max_turns:
            self.outcome = Outcome((), End.TURN_LIMIT)
            return
        # Player 1 places the second setup piece and then starts the normal turns.
        self._mover = 0 if self._turns == _SETUP_TURNS else 1 - mover
        self._make_forced_passes()

    def _make_forced_passes(self) -> None:
        while not self._can_take_turn():
            self._record(PASS)
            self._last_turn = (PASS,)
            self._turns += 1
            self._passes += 1
            if self._passes >= 2:
                self.outcome = Outcome((), End.PASSES)
                return
            if self._turns >= self.max_turns:
                self.outcome = Outcome((), End.TURN_LIMIT)
                return
            self._mover = 1 - self._mover

    def _can_take_turn(self) -> bool:
        """Whether the mover, at the start of a turn, can complete a turn."""
        board, mover = self._board, self._mover
        if self._turns < _SETUP_TURNS:
            return True  # the setup placements are exempt from the placement rules
        own = self._own(mover)
        if self._caps_left[mover] != 0 and (own | board.adjacent(own)) & ~self._caps:
            return True
        return _connector_reachable(board, mover, self._colours, self._caps)

    # -- view -----------------------------------------------------------------------

    @property
    def mid_turn(self) -> bool:
        return bool(self._turn_actions)

    def view(self) -> ShortCircuitView:
        board = self._board
        connectors = tuple(
            (board.points[cell], COLOURS[colour])
            for cell in board.order
            for colour in range(4)
            if self._colours[colour] >> cell & 1
        )
        return ShortCircuitView(
            **self._view_fields(),
            side=board.side,
            cells=board.cells,
            centre=board.points[board.centre],
            connectors=connectors,
            capacitors=tuple(board.points[c] for c in board.order if self._caps >> c & 1),
            colours=((COLOURS[0], COLOURS[1]), (COLOURS[2], COLOURS[3])),
            capacitors_left=tuple(self._caps_left),
            popped=self._popped,
            turns_played=self._turns,
            max_turns=self.max_turns,
            turn_actions=tuple(self._turn_actions),
            last_turn=self._last_turn,
        )

    # -- small helpers --------------------------------------------------------------

    def _own(self, seat: int) -> int:
        return self._colours[2 * seat] | self._colours[2 * seat + 1]

    def _connector_at(self, cell: int) -> int | None:
        for colour, mask in enumerate(self._colours):
            if mask >> cell & 1:
                return colour
        return None

    def _colours_without(self, cell: int) -> list[int]:
        keep = ~(1 << cell)
        return [mask & keep for mask in self._colours]


# -- for search: random playouts on bare bitboards -------------------------------------


#: How a playout ended, by the compiled loop's code for it.
_END_CODES = (None, End.LOOP, End.NO_CONNECTORS, End.PASSES, End.TURN_LIMIT)


class RandomPlayout:
    """A position's pieces as bare bitboards, played on by uniformly random legal actions
    to the end: the search's playout, without a state's record, texts or action lists.
    With `take_wins` a mover who can close a loop does (a uniform draw among those
    placements): most playouts then end in a loop instead of at the turn limit, and
    the search won those at equal time (docs/AI.md).

    The rules are those of `actions` and `apply` (tests/test_shortcircuit.py replays
    playouts through them). An action is drawn uniformly from the legal ones by
    rejection from a list as cheap to count as to draw from: the connector and
    capacitor cells, and for each own connector X on or next to a capacitor, every pair
    of a capacitor on or next to X and a connector next to X. A pair is kept only
    through its lowest such X (so each pop counts once) and when the turn can still be
    completed after it, which is plain unless no connector could be placed before it.
    Kept up to date within a run rather than found again for each action: each
    colour's adjacent cells, and per cell the capacitors on or next to it and the
    connectors next to it (counters sliced into three bitboards of their binary
    digits), whose products summed over the mover's connectors count the pairs.

    `run` is compiled (engine/_shortcircuit_playout.c) where the install step could
    build it: the same loop, drawing the same numbers to the same actions, about 16
    times faster; this Python loop is its reference and the fallback.
    """

    __slots__ = (
        "_board",
        "_caps",
        "_caps_left",
        "_colours",
        "_max_turns",
        "_mover",
        "_passes",
        "_popped",
        "_take_wins",
        "_turns",
        "end",
        "played",
        "winners",
    )

    def __init__(self, state: ShortCircuitState, *, take_wins: bool) -> None:
        self._board = state._board
        self._take_wins = take_wins
        self._colours = list(state._colours)
        self._caps = state._caps
        self._caps_left = [-1 if left is None else left for left in state._caps_left]
        self._mover = state._mover
        self._turns = state._turns
        self._passes = state._passes
        self._popped = state._popped
        self._max_turns = state.max_turns
        outcome = state.outcome
        #: how the game ended (None while it goes on) and its winners
        self.end: End | None = None if outcome is None else outcome.reason
        self.winners: tuple[int, ...] = () if outcome is None else outcome.winners
        #: (seat, action) for each action played, in order
        self.played: list[tuple[int, Action]] = []

    def run(self, rng: random.Random, limit: int) -> bool:
        """Play up to `limit` actions (forced passes not counted); whether the game is over."""
        if _compiled is not None and self._board.mask.bit_length() <= _compiled.BITS:
            self._run_compiled(rng, limit)
        else:
            self._run_python(rng, limit)
        return self.end is not None

    def _run_compiled(self, rng: random.Random, limit: int) -> None:
        assert _compiled is not None
        board = self._board
        state = [
            *self._colours,
            self._caps,
            *self._caps_left,
            self._mover,
            self._turns,
            self._passes,
            int(self._popped),
            self._max_turns,
            _END_CODES.index(self.end),
            self.winners[0] if self.winners else -1,
        ]
        _compiled.run(
            (board.side, board.mask, *board.shifts, board.centre),
            state,
            rng.random,
            functools.partial(_connector_reachable, board),
            limit,
            self.played,
            self._take_wins,
        )
        self._colours, self._caps = state[:4], state[4]
        self._caps_left = state[5:7]
        self._mover, self._turns, self._passes = state[7:10]
        self._popped = bool(state[10])
        self.end = _END_CODES[state[12]]
        self.winners = () if state[13] < 0 else (state[13],)

    def _run_python(self, rng: random.Random, limit: int) -> None:
        board = self._board
        near, closed, mask, adjacent = board.neighbours, board.closed, board.mask, board.adjacent
        colours, left, caps = self._colours, self._caps_left, self._caps
        adj = [adjacent(colour) for colour in colours]
        occupied = colours[0] | colours[1] | colours[2] | colours[3]
        caps0 = caps1 = caps2 = pieces0 = pieces1 = pieces2 = 0
        for cell in _bits(caps):
            caps0, caps1, caps2 = _count_up(caps0, caps1, caps2, closed[cell])
        for cell in _bits(occupied):
            pieces0, pieces1, pieces2 = _count_up(pieces0, pieces1, pieces2, near[cell])
        mover, turns, passes, popped = self._mover, self._turns, self._passes, self._popped
        max_turns, take_wins = self._max_turns, self._take_wins
        draw = rng.random
        record = self.played.append
        end, winners = self.end, self.winners
        actions = 0
        while end is None and actions < limit:
            if turns < _SETUP_TURNS:
                # Setup: a connector of either colour on the centre, then next to it.
                cells = 1 << board.centre if turns == 0 else near[board.centre] & ~occupied
                index = int(draw() * 2 * cells.bit_count())
                kind, first, second = (
                    _CONNECTOR,
                    2 * mover + (index & 1),
                    _nth(cells, index >> 1, cells.bit_count()),
                )
            else:
                a = 2 * mover
                adj_a, adj_b = adj[a], adj[a + 1]
                empty = mask & ~occupied
                place_a = empty & adj_b & ~adj_a
                place_b = empty & adj_a & ~adj_b
                own = colours[a] | colours[a + 1]
                free = 0 if popped or not left[mover] else (own | adj_a | adj_b) & ~caps
                count_a, count_b = place_a.bit_count(), place_b.bit_count()
                count_free = free.bit_count()
                direct = count_a + count_b + count_free
                if not (direct or popped or _connector_reachable(board, mover, colours, caps)):
                    turns += 1  # a forced pass
                    passes += 1
                    if passes >= 2:
                        end = End.PASSES
                    elif turns >= max_turns:
                        end = End.TURN_LIMIT
                    mover = 1 - mover
                    continue
                wins = (
                    _closing(board, own, place_a | place_b)
                    if take_wins and own.bit_count() >= _LOOP_CELLS - 1
                    else 0
                )
                if wins:  # a loop closed wins: the mover takes it
                    count = wins.bit_count()
                    second = _nth(wins, int(draw() * count), count)
                    kind, first = _CONNECTOR, a if place_a >> second & 1 else a + 1
                else:
                    total = direct
                    own0, own1, own2 = own & caps0, own & caps1, own & caps2
                    linkers = own0 | own1 | own2
                    if linkers:
                        total += (
                            (own0 & pieces0).bit_count()
                            + 2 * ((own0 & pieces1).bit_count() + (own1 & pieces0).bit_count())
                            + 4
                            * (
                                (own0 & pieces2).bit_count()
                                + (own1 & pieces1).bit_count()
                                + (own2 & pieces0).bit_count()
                            )
                            + 8 * ((own1 & pieces2).bit_count() + (own2 & pieces1).bit_count())
                            + 16 * (own2 & pieces2).bit_count()
                        )
                    while True:
                        index = int(draw() * total)
                        if index < count_a:
                            kind, first, second = _CONNECTOR, a, _nth(place_a, index, count_a)
                            break
                        index -= count_a
                        if index < count_b:
                            kind, first, second = _CONNECTOR, a + 1, _nth(place_b, index, count_b)
                            break
                        index -= count_b
                        if index < count_free:
                            kind, first, second = _CAPACITOR, _nth(free, index, count_free), 0
                            break
                        index -= count_free
                        rest = linkers
                        while True:  # the linker the index falls on
                            low = rest & -rest
                            rest ^= low
                            linker = low.bit_length() - 1
                            there = caps & closed[linker]
                            targets = occupied & near[linker]
                            per_cap = targets.bit_count()
                            count = there.bit_count() * per_cap
                            if index < count:
                                break
                            index -= count
                        first = _nth(there, index // per_cap, count // per_cap)
                        second = _nth(targets, index % per_cap, per_cap)
                        if _lowest(own & closed[first] & near[second]) != linker:
                            continue  # a pop is drawn through its lowest linker only
                        bit = 1 << second
                        if _placement_kept(
                            colours, mover, bit, place_a, place_b
                        ) or _connector_reachable(
                            board, mover, [m & ~bit for m in colours], caps & ~(1 << first)
                        ):
                            kind = _POP
                            break
            actions += 1
            record((mover, (kind, first, second)))
            if kind == _POP:
                caps &= ~(1 << first)
                caps0, caps1, caps2 = _count_down(caps0, caps1, caps2, closed[first])
                pieces0, pieces1, pieces2 = _count_down(pieces0, pieces1, pieces2, near[second])
                hit = 0 if colours[0] & bit else 1 if colours[1] & bit else 2
                if hit == 2 and not colours[2] & bit:
                    hit = 3
                colours[hit] &= ~bit
                adj[hit] = adjacent(colours[hit])
                occupied &= ~bit
                popped = True
                continue
            if kind == _CONNECTOR:
                bit = 1 << second
                colours[first] |= bit
                adj[first] |= near[second]
                occupied |= bit
                pieces0, pieces1, pieces2 = _count_up(pieces0, pieces1, pieces2, near[second])
                own = colours[2 * mover] | colours[2 * mover + 1]
                ends = near[second] & own
                if ends & (ends - 1) and _joined(board, ends, own & ~bit):
                    end, winners = End.LOOP, (mover,)
                    break
            else:
                caps |= 1 << first
                caps0, caps1, caps2 = _count_up(caps0, caps1, caps2, closed[first])
                if left[mover] > 0:
                    left[mover] -= 1
            turns += 1
            passes = 0
            opponent = 1 - mover
            if popped and not colours[2 * opponent] | colours[2 * opponent + 1]:
                end, winners = End.NO_CONNECTORS, (mover,)
            elif turns >= max_turns:
                end = End.TURN_LIMIT
            popped = False
            mover = 0 if turns == _SETUP_TURNS else opponent
        self._caps = caps
        self._mover, self._turns, self._passes, self._popped = mover, turns, passes, popped
        self.end, self.winners = end, winners


#: The fewest connectors in a loop: adjacent connectors differ in colour, so a loop
#: alternates its owner's two colours (even), and the hex grid has no chordless 4-cycle.
_LOOP_CELLS = 6


def _closing(board: _Board, own: int, candidates: int) -> int:
    """The cells of `candidates` next to two connectors of `own` that are joined
    through `own`: a connector there closes a loop."""
    closing = 0
    candidates &= _beside_two(board, own)
    rest = own & board.adjacent(candidates)  # the connectors of the parts that matter
    while rest:
        part = rest & -rest
        while (grown := part | board.adjacent(part) & own) != part:
            part = grown
        rest &= ~part
        closing |= _beside_two(board, part) & candidates
    return closing


def _beside_two(board: _Board, cells: int) -> int:
    """The cells (some off the board) next to two or more of `cells`."""
    once = twice = 0
    for shift in board.shifts:
        for beside in (cells << shift, cells >> shift):
            twice |= once & beside
            once |= beside
    return twice


def _nth(mask: int, index: int, count: int) -> int:
    """The bit of the index-th lowest of the `count` set bits of `mask`, counted from
    the nearer end."""
    if 2 * index < count:
        for _ in range(index):
            mask &= mask - 1
        return (mask & -mask).bit_length() - 1
    for _ in range(count - 1 - index):
        mask ^= 1 << mask.bit_length() - 1
    return mask.bit_length() - 1


def _count_up(low: int, middle: int, high: int, cells: int) -> tuple[int, int, int]:
    """A counter per cell up to 7, sliced into its three binary digits, plus one at
    each of `cells`."""
    carry = low & cells
    low ^= cells
    middle, carry = middle ^ carry, middle & carry
    return low, middle, high ^ carry


def _count_down(low: int, middle: int, high: int, cells: int) -> tuple[int, int, int]:
    """`_count_up`'s counters minus one at each of `cells` (each at least one)."""
    borrow = ~low & cells
    low ^= cells
    middle, borrow = middle ^ borrow, ~middle & borrow
    return low, middle, high ^ borrow


def _joined(board: _Board, ends: int, rest: int) -> bool:
    """Whether two cells of `ends` are joined through the cells of `rest` (ends in rest)."""
    while ends & (ends - 1):
        seen = frontier = ends & -ends
        ends ^= seen
        while frontier:
            frontier = board.adjacent(frontier) & rest & ~seen
            if frontier & ends:
                return True
            seen |= frontier
    return False


# -- private helpers: geometry on bitboards ------------------------------------------


@dataclass(frozen=True, slots=True)
class _Board:
    """A hex-hex board as bitboards: cell (q, r) is bit r*W + q, W = 2s.

    The padding column q = 2s-1 lets a shift find all six neighbours at once
    without wrapping into the next row (the directions are ±1, ±W and ±(W+1));
    shifts off the bottom fall away and the mask drops those off the top. Side 5
    fits 89 bits: three of CPython's 30-bit digits, which the playouts' many
    bitboard operations are paid by.
    """

    side: int
    cells: tuple[Point, ...]  # hexhex_cells order
    order: tuple[int, ...]  # the bit of each cell, in `cells` order
    points: dict[int, Point]
    bit_at: dict[Point, int]
    labels: dict[int, str]
    neighbours: tuple[int, ...]  # bit -> mask of its neighbours (0 off the board)
    closed: tuple[int, ...]  # bit -> mask of the cell and its neighbours (0 off the board)
    shifts: tuple[int, int, int]  # the three positive direction shifts (the others negate)
    mask: int
    centre: int

    def adjacent(self, cells: int) -> int:
        """Every board cell next to some cell of `cells`."""
        one, two, three = self.shifts
        return (
            (cells << one)
            | (cells >> one)
            | (cells << two)
            | (cells >> two)
            | (cells << three)
            | (cells >> three)
        ) & self.mask

    def label(self, cell: int) -> str:
        return self.labels[cell]


@functools.cache
def _board(side: int) -> _Board:
    width = 2 * side
    cells = hexhex_cells(side)
    bit_at = {(q, r): r * width + q for q, r in cells}
    neighbours = [0] * (width * width)
    closed = [0] * (width * width)
    for (q, r), bit in bit_at.items():
        neighbours[bit] = sum(
            1 << bit_at[(q + dq, r + dr)]
            for dq, dr in HEXHEX_DIRECTIONS
            if (q + dq, r + dr) in bit_at
        )
        closed[bit] = neighbours[bit] | 1 << bit
    one, two, three = sorted({abs(dq + dr * width) for dq, dr in HEXHEX_DIRECTIONS})
    return _Board(
        side=side,
        cells=cells,
        order=tuple(bit_at[cell] for cell in cells),
        points={bit: cell for cell, bit in bit_at.items()},
        bit_at=bit_at,
        labels={bit: label(cell) for cell, bit in bit_at.items()},
        neighbours=tuple(neighbours),
        closed=tuple(closed),
        shifts=(one, two, three),
        mask=sum(1 << bit for bit in bit_at.values()),
        centre=bit_at[(side - 1, side - 1)],
    )


def _bits(mask: int) -> list[int]:
    """The set bits of `mask`, lowest first."""
    bits = []
    while mask:
        low = mask & -mask
        bits.append(low.bit_length() - 1)
        mask ^= low
    return bits


def _lowest(mask: int) -> int:
    return (mask & -mask).bit_length() - 1


def _player(seat: int) -> str:
    return f"Player {seat + 1}"


def _placeable(board: _Board, colours: list[int], colour: int, empty: int) -> int:
    """Cells where `colour` may go now: empty, touching its partner colour, not itself."""
    return empty & board.adjacent(colours[colour ^ 1]) & ~board.adjacent(colours[colour])


def _pop_links(board: _Board, own: int, capacitor: int, target: int) -> bool:
    """Some own connector X on or next to the capacitor has the target as a neighbour."""
    near = own & ((1 << capacitor) | board.neighbours[capacitor])
    return bool(near & board.neighbours[target])


def _legal_pops(board: _Board, mover: int, colours: list[int], caps: int) -> list[tuple[int, int]]:
    """Every pop (capacitor, connector) whose shape is right and after which a
    connector can still be placed."""
    own = colours[2 * mover] | colours[2 * mover + 1]
    occupied = colours[0] | colours[1] | colours[2] | colours[3]
    shaped: dict[int, int] = {}  # target -> capacitors that may pop it
    for linker in _bits(own):
        near_caps = caps & ((1 << linker) | board.neighbours[linker])
        if near_caps:
            for target in _bits(board.neighbours[linker] & occupied):
                shaped[target] = shaped.get(target, 0) | near_caps
    empty = board.mask & ~occupied
    open_a = _placeable(board, colours, 2 * mover, empty)
    open_b = _placeable(board, colours, 2 * mover + 1, empty)
    pops: list[tuple[int, int]] = []
    for target, capacitors in shaped.items():
        # Usually a placement is open at once, whichever capacitor goes.
        if _placement_kept(colours, mover, 1 << target, open_a, open_b):
            pops.extend([(capacitor, target) for capacitor in _bits(capacitors)])
            continue
        keep = ~(1 << target)
        after = [mask & keep for mask in colours]
        if _direct_placement(board, mover, after):
            pops.extend([(capacitor, target) for capacitor in _bits(capacitors)])
            continue
        pops.extend(
            (capacitor, target)
            for capacitor in _bits(capacitors)
            if _connector_reachable(board, mover, after, caps & ~(1 << capacitor))
        )
    return pops


def _placement_kept(colours: list[int], mover: int, removed: int, open_a: int, open_b: int) -> bool:
    """Whether the mover, whose colours can go on `open_a` and `open_b` now, keeps a
    placement once the piece on `removed` is gone: a removal takes away no placement
    of a colour the piece is not (an opponent's piece: of either colour)."""
    if colours[2 * mover] & removed:
        return bool(open_a)
    if colours[2 * mover + 1] & removed:
        return bool(open_b)
    return bool(open_a or open_b)


def _direct_placement(board: _Board, mover: int, colours: list[int]) -> bool:
    empty = board.mask & ~(colours[0] | colours[1] | colours[2] | colours[3])
    return any(_placeable(board, colours, colour, empty) for colour in (2 * mover, 2 * mover + 1))


def _connector_reachable(board: _Board, mover: int, colours: list[int], caps: int) -> bool:
    """Whether the mover can place a connector now or after some further pops.

    Pops only remove pieces, and removing a piece never makes another pop
    possible. So a placement of colour a on cell e is reachable exactly when
    the minimal set it needs removed, e's occupant and the mover's a-connectors
    next to e, can be popped in some order: any longer pop sequence reaching e
    contains one for that set. That keeps the search to a handful of pieces
    per candidate cell.
    """
    if _direct_placement(board, mover, colours):
        return True
    if not caps:
        return False
    own = colours[2 * mover] | colours[2 * mover + 1]
    occupied = colours[0] | colours[1] | colours[2] | colours[3]
    for colour in (2 * mover, 2 * mover + 1):
        for cell in _bits(board.adjacent(colours[colour ^ 1])):
            needed = (occupied & (1 << cell)) | (board.neighbours[cell] & colours[colour])
            if _can_pop_all(board, own, caps, needed):
                return True
    return False


def _can_pop_all(board: _Board, own: int, caps: int, needed: int) -> bool:
    """Whether the connectors in `needed` can all be popped, one after another,
    with distinct capacitors, each pop linked by an own connector still present."""
    if needed.bit_count() > caps.bit_count():
        return False
    seen: dict[tuple[int, int], bool] = {}

    def search(remaining: int, caps_left: int) -> bool:
        if not remaining:
            return True
        key = (remaining, caps_left)
        if key not in seen:
            present = own & ~(needed & ~remaining)
            seen[key] = any(
                search(remaining & ~(1 << target), caps_left & ~(1 << capacitor))
                for target in _bits(remaining)
                for capacitor in _bits(_linked_caps(board, present, caps_left, target))
            )
        return seen[key]

    return search(needed, caps)


def _linked_caps(board: _Board, present: int, caps: int, target: int) -> int:
    """The capacitors that could pop `target`: on or next to an own connector beside it."""
    linkers = board.neighbours[target] & present
    return caps & (linkers | board.adjacent(linkers))


def _loop_through(board: _Board, own: int, placed: int) -> tuple[int, ...] | None:
    """A shortest cycle of own connectors through `placed`, or None.

    The rest of the graph is a forest (no loop before this piece), so a cycle
    exists when two of the piece's own neighbours are joined without it.
    """
    rest = own & ~(1 << placed)
    ends = board.neighbours[placed] & rest
    if ends.bit_count() < 2:
        return None
    best: list[int] | None = None
    for start in _bits(ends):
        parents = {start: start}
        frontier = [start]
        found: int | None = None
        while frontier and found is None:
            following: list[int] = []
            for cell in frontier:
                for step in _bits(board.neighbours[cell] & rest):
                    if step in parents:
                        continue
                    parents[step] = cell
                    if ends >> step & 1:
                        found = step
                        break
                    following.append(step)
                if found is not None:
                    break
            frontier = following
        if found is None:
            continue
        chain = [found]
        while chain[-1] != start:
            chain.append(parents[chain[-1]])
        if best is None or len(chain) < len(best):
            best = chain[::-1]
    return None if best is None else (placed, *best)


register(ShortCircuitState)
