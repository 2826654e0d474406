"""Short Circuit ("Graph Coloring and Cycles"): close a loop of your own connectors.

Source: the rules page "Short Circuit; or Graph Coloring and Cycles" (author
not named); the project's reading is docs/rules/shortcircuit.md.
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
import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Self

from engine.core import (
    BadOptions,
    Code,
    End,
    GameInfo,
    IllegalMove,
    Option,
    OptionValue,
    Outcome,
    View,
    shown,
    whole_number,
)
from engine.notation import Point, label, point, points, sort_key
from engine.options import int_option
from engine.registry import register
from engine.shortcircuitboard import (
    bits,
    board_for,
    connector_reachable,
    legal_pops,
    loop_through,
    lowest,
    placeable_cells,
    pop_links,
)
from engine.shortcircuitturns import POP_WORD, ShortCircuitTurns

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
    move_words=frozenset({*_COLOUR_WORDS, *_CAP_WORDS, POP_WORD}),
    credit="Short Circuit; or Graph Coloring and Cycles (rules page, author not named).",
    ends=frozenset({End.LOOP, End.NO_CONNECTORS, End.PASSES, End.TURN_LIMIT}),
)

SETUP_TURNS = 2  # Player 2's centre piece, then Player 1's piece next to it
PASS = "pass"

# An action as the engine (and search) applies it, cells as bit indices:
# (POP, capacitor, connector), (CONNECTOR, colour, cell) or (CAPACITOR, cell, 0).
POP, CONNECTOR, CAPACITOR = 0, 1, 2
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


class ShortCircuitState(ShortCircuitTurns):
    info = INFO
    _shared_tables = ("_board",)

    def __init__(self, options: Mapping[str, OptionValue]) -> None:
        super().__init__(options)
        self._board = board_for(int(self.options["size"]))
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

    def _play_action(self, text: str) -> None:
        self.apply(self._parse_and_check(text))

    # -- taps on the board picture ----------------------------------------------------

    def tap_tools(self) -> tuple[str, ...]:
        """The mover's two colours, a capacitor and a pop."""
        if self.outcome is not None:
            return ()
        return (*COLOURS[2 * self._mover : 2 * self._mover + 2], "cap", POP_WORD)

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
        if head == POP_WORD:
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
            pieces = self._examples((CONNECTOR, CAPACITOR)) or self._examples()
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
            pop = self._examples((POP,))
            shape = "A pop names two cells, the capacitor then the connector"
            if pop:
                raise IllegalMove(f"{shape}, like {pop}.", code=Code.SYNTAX)
            raise IllegalMove(
                f"{shape}, but none is possible now: play like {self._examples()}.",
                code=Code.SYNTAX,
            )
        return self._on_board(cells[0]), self._on_board(cells[1])

    def _examples(self, kinds: tuple[int, ...] = (CONNECTOR, CAPACITOR, POP)) -> str:
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
        if self._turns >= SETUP_TURNS:
            same = board.neighbours[cell] & self._colours[colour]
            if same:
                raise IllegalMove(
                    f"{text} touches your {COLOURS[colour]} connector at "
                    f"{board.label(lowest(same))}.",
                    code=Code.SAME_COLOUR,
                )
            if not board.neighbours[cell] & self._colours[colour ^ 1]:
                raise IllegalMove(
                    f"{text} is not next to any of your {COLOURS[colour ^ 1]} connectors.",
                    code=Code.NO_OTHER_COLOUR,
                )
        return (CONNECTOR, colour, cell)

    def _check_capacitor(self, cell: int) -> Action:
        board, mover = self._board, self._mover
        name = board.label(cell)
        if self._turns < SETUP_TURNS:
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
        return (CAPACITOR, cell, 0)

    def _check_pop(self, capacitor: int, target: int) -> Action:
        board, mover = self._board, self._mover
        c_name, y_name = board.label(capacitor), board.label(target)
        if self._turns < SETUP_TURNS:
            raise IllegalMove(
                f"There are no pops in the setup turns (pop {c_name} {y_name}).", code=Code.SETUP
            )
        if not self._caps >> capacitor & 1:
            raise IllegalMove(f"There is no capacitor on {c_name} to pop.", code=Code.NO_CAPACITOR)
        if self._connector_at(target) is None:
            raise IllegalMove(f"There is no connector on {y_name} to pop.", code=Code.NO_CONNECTOR)
        if not pop_links(board, self._own(mover), capacitor, target):
            raise IllegalMove(
                f"{y_name} is not next to any of your connectors on or next to the "
                f"capacitor at {c_name}.",
                code=Code.POP_NOT_LINKED,
            )
        colours = self._colours_without(target)
        if not connector_reachable(board, mover, colours, self._caps & ~(1 << capacitor)):
            raise IllegalMove(
                f"After pop {c_name} {y_name} you could place no connector, so the turn "
                "could not be finished.",
                code=Code.DEAD_END,
            )
        return (POP, capacitor, target)

    def apply(self, action: Action) -> None:
        """Apply a legal action (checked, or one of `actions()`), then end the turn if it
        placed a piece."""
        kind, first, second = action
        self._record(self.action_text(action))
        if kind == POP:
            self._caps &= ~(1 << first)
            self._colours = self._colours_without(second)
            self._popped = True
            self._turn_actions.append(self._moves[-1])
            return
        if kind == CONNECTOR:
            self._colours[first] |= 1 << second
        else:
            self._caps |= 1 << first
            left = self._caps_left[self._mover]
            if left is not None:
                self._caps_left[self._mover] = left - 1
        self._end_turn(second if kind == CONNECTOR else None)

    def actions(self) -> list[Action]:
        """Every legal single action of the mover now, unsorted (`legal_moves` gives
        their texts, sorted): what a search plays without parsing text."""
        board, mover = self._board, self._mover
        colours = self._colours
        empty = board.mask & ~(colours[0] | colours[1] | colours[2] | colours[3])
        if self._turns == 0:
            return [(CONNECTOR, colour, board.centre) for colour in (2, 3)]
        if self._turns == 1:
            cells = list(bits(board.neighbours[board.centre] & empty))
            return [(CONNECTOR, colour, cell) for colour in (0, 1) for cell in cells]
        actions: list[Action] = []
        for colour in (2 * mover, 2 * mover + 1):
            placeable = placeable_cells(board, colours, colour, empty)
            actions.extend((CONNECTOR, colour, cell) for cell in bits(placeable))
        own = colours[2 * mover] | colours[2 * mover + 1]
        if not self._popped and self._caps_left[mover] != 0:
            free = (own | board.adjacent(own)) & ~self._caps
            actions.extend((CAPACITOR, cell, 0) for cell in bits(free))
        actions.extend((POP, c, y) for c, y in legal_pops(board, mover, colours, self._caps))
        return actions

    def action_text(self, action: Action) -> str:
        """The action's move text, as `legal_moves` gives it ("y c3", "cap d4")."""
        kind, first, second = action
        label_of = self._board.label
        if kind == POP:
            return f"{POP_WORD} {label_of(first)} {label_of(second)}"
        if kind == CONNECTOR:
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
        loop = None if placed is None else loop_through(self._board, self._own(mover), placed)
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
        self._mover = 0 if self._turns == SETUP_TURNS else 1 - mover
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
        if self._turns < SETUP_TURNS:
            return True  # the setup placements are exempt from the placement rules
        own = self._own(mover)
        if self._caps_left[mover] != 0 and (own | board.adjacent(own)) & ~self._caps:
            return True
        return connector_reachable(board, mover, self._colours, self._caps)

    # -- view -----------------------------------------------------------------------

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


def _player(seat: int) -> str:
    return f"Player {seat + 1}"


register(ShortCircuitState)
