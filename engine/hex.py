"""Hex and Disthex: join your two sides of a rhombus of hexagons.

Hex (Piet Hein 1942, John Nash 1948): two players take turns placing a stone
of their colour on any empty cell of an n x n rhombus. Black joins the top and
bottom edges, White the left and right; the first to do so wins, and a full
board always holds exactly one such chain, so there are no draws. With swap,
the second player may take over the opening stone instead of placing.
Disthex (Ryoji Ishii and Cameron Browne, 2017) adds one rule: you may not place
next to your opponent's most recent stone; with no legal cell you pass.
Rules: docs/rules/hex.md.

Seats are people and stones are colours: a swap exchanges the colours of the
seats (`colour_of`), so the opening stone, still Black, now belongs to seat 1.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import ClassVar, Self

from engine import notation
from engine.core import (
    Code,
    End,
    GameInfo,
    GameState,
    IllegalMove,
    Option,
    OptionValue,
    Outcome,
    View,
    shown,
)
from engine.hexgrid import RHOMBUS_DIRECTIONS, neighbour_table
from engine.notation import Point
from engine.options import bool_option, dims_option
from engine.registry import register

BLACK, WHITE = 0, 1
COLOUR_NAMES = ("Black", "White")
EMPTY = -1


def _options(size: int, swap: bool) -> dict[str, Option]:
    return {
        "size": Option(
            "size",
            size,
            "2 to 19 (typed 7 or 7x7)",
            dims_option((2, 2), (19, 19), square=True),
            help="cells along each side of the rhombus",
            choices=(7, 9, 11, 13, 19),
        ),
        "swap": Option(
            "swap",
            swap,
            "on or off",
            bool_option,
            help="the second player may take over the opening stone instead of placing",
            choices=(True, False),
        ),
    }


INFO = GameInfo(
    name="hex",
    title="Hex",
    version=1,
    min_players=2,
    max_players=2,
    seat_names=("Black", "White"),
    options=_options(11, True),
    summary=(
        "Take turns placing a stone of your colour on any empty cell. Black joins the "
        "top and bottom edges, White the left and right; the first to connect wins. "
        "With swap on, the second player may type swap as their first move to take "
        "over the opening stone and play Black."
    ),
    notation=(
        "A move is a cell: its column letter, then its row number. With swap on, the "
        "second player's first move may be the word swap."
    ),
    credit="Piet Hein and John Nash",
    ends=frozenset({End.CONNECTION}),
    renames_seats=True,  # the swap
    word_moves=frozenset({"swap"}),
)

DISTHEX_INFO = GameInfo(
    name="disthex",
    title="Disthex",
    version=1,
    min_players=2,
    max_players=2,
    seat_names=("Black", "White"),
    options=_options(7, False),
    summary=(
        "Hex with one more rule: you may not place a stone next to your opponent's "
        "most recent stone. When no cell is left to you, you pass automatically."
    ),
    notation=(
        "A move is a cell: its column letter, then its row number. With swap on, the "
        "second player's first move may be the word swap."
    ),
    credit="Ryoji Ishii and Cameron Browne (2017)",
    ends=frozenset({End.CONNECTION}),
    renames_seats=True,  # the swap
    word_moves=frozenset({"swap"}),
)

# Edge bits of a cell or of a group, for the colour that owns it: Black's first
# edge is row 1, its second row n; White's are column a and the last column.
FIRST_EDGE, SECOND_EDGE = 1, 2
BOTH_EDGES = FIRST_EDGE | SECOND_EDGE

#: At most six cells touch a stone, so a player with more empty cells is never stuck.
MOST_FORBIDDEN = len(RHOMBUS_DIRECTIONS)


# -- notation -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Board:
    """The fixed tables of one board size. Cell index = row * size + column."""

    size: int
    points: tuple[Point, ...]
    labels: tuple[str, ...]
    cell_of: Mapping[str, int]  # canonical label -> cell
    neighbours: tuple[tuple[int, ...], ...]
    edge_bits: tuple[tuple[int, ...], tuple[int, ...]]  # per colour, per cell
    first_edge: tuple[tuple[int, ...], tuple[int, ...]]  # per colour: the cells on it
    sorted_cells: tuple[int, ...]  # in notation.sort_key order, for legal_moves


@cache
def board(size: int) -> Board:
    points = tuple((column, row) for row in range(size) for column in range(size))
    labels = tuple(notation.label(point) for point in points)
    last = size - 1
    black_bits = tuple((row == 0) | (row == last) << 1 for _, row in points)
    white_bits = tuple((column == 0) | (column == last) << 1 for column, _ in points)
    return Board(
        size=size,
        points=points,
        labels=labels,
        cell_of={text: cell for cell, text in enumerate(labels)},
        neighbours=neighbour_table(points, RHOMBUS_DIRECTIONS),
        edge_bits=(black_bits, white_bits),
        first_edge=(tuple(range(size)), tuple(range(0, size * size, size))),
        sorted_cells=tuple(sorted(range(size * size), key=lambda cell: points[cell])),
    )


# -- the state -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class HexView(View):
    """The board for renderers. Points are 0-based (column, row); colour 0 is Black."""

    size: int
    stones: tuple[tuple[Point, int], ...]  # (point, colour), row by row
    colours: tuple[int, int]  # the colour of each seat: (0, 1), or (1, 0) after a swap
    swapped: bool
    last_point: Point | None  # the most recent stone (the swapped one after a swap)
    forbidden: tuple[Point, ...]  # cells the player to move may not take (Disthex)
    chain: tuple[Point, ...]  # the winning chain, edge to edge, when over


class HexState(GameState):
    """A Hex position. Stones are kept by colour; seats map to colours via `colour_of`."""

    info: ClassVar[GameInfo] = INFO

    def __init__(self, options: Mapping[str, OptionValue]) -> None:
        super().__init__(options)
        self._board = board(int(self.options["size"]))
        cells = self._board.size**2
        self._stones = [EMPTY] * cells  # colour per cell
        # Union-find over same-coloured stones; each root keeps the edge bits
        # of its group, so a connection shows when a join yields BOTH_EDGES.
        self._parent = list(range(cells))
        self._edges = [0] * cells
        self._empty = cells
        self._colour = BLACK  # the colour to move
        self._swapped = False
        self._last_stone = -1  # the most recent stone placed or swapped; -1 after a pass
        self._chain: tuple[int, ...] = ()

    @property
    def size(self) -> int:
        return self._board.size

    @property
    def swapped(self) -> bool:
        return self._swapped

    # -- for search (engine/ai): the position as plain data --------------------------

    @property
    def cell_colours(self) -> tuple[int, ...]:
        """The colour on each cell (index row * size + column): BLACK, WHITE or EMPTY."""
        return tuple(self._stones)

    @property
    def colour_to_move(self) -> int:
        """The colour of the next stone (once over: the colour that connected)."""
        return self._colour

    @property
    def last_stone(self) -> int:
        """The cell of the most recent stone placed or swapped; -1 at the start or
        just after a pass (then Disthex forbids no cell)."""
        return self._last_stone

    @property
    def empty_count(self) -> int:
        """How many cells are still empty."""
        return self._empty

    def colour_of(self, seat: int) -> int:
        """The colour (0 Black, 1 White) the person in `seat` plays."""
        return seat ^ self._swapped

    def seat_name(self, seat: int) -> str:
        return COLOUR_NAMES[self.colour_of(seat)]

    @property
    def to_move(self) -> int | None:
        if self.outcome is not None:
            return None
        return self.colour_of(self._colour)  # the map is its own inverse

    def legal_moves(self) -> list[str]:
        if self.outcome is not None:
            return []
        stones, labels = self._stones, self._board.labels
        forbidden = frozenset(self._forbidden_cells())
        moves = [
            labels[cell]
            for cell in self._board.sorted_cells
            if stones[cell] == EMPTY and cell not in forbidden
        ]
        if self._swap_available():
            moves.append("swap")
        return moves

    _tapped_points = 1  # a cell, or the swap button

    def tap_tools(self) -> tuple[str, ...]:
        return ("swap",) if self.outcome is None and self._swap_available() else ()

    def _example_moves(self) -> list[str]:
        """The cells, when there are any: an example tells what a cell looks like (on a
        small Disthex board the middle of the legal list may be the swap)."""
        legal = self.legal_moves()
        return [move for move in legal if move != "swap"] or legal

    def _play_action(self, text: str) -> None:
        if text == "swap":
            self._check_swap()
            self._record("swap")  # made by the seat to move before the colours change hands
            self._swapped = True
            self._pass_if_stuck()
            return
        if text == "pass":
            raise IllegalMove(
                "You never type pass: when no cell is left to you, the pass is made for you.",
                code=Code.NO_PASS,
            )
        cell = self._parse_cell(text)
        label = self._board.labels[cell]
        if self._stones[cell] != EMPTY:
            raise IllegalMove(f"{label} is already taken.", code=Code.OCCUPIED)
        if cell in self._forbidden_cells():
            raise IllegalMove(
                f"{label} is next to {COLOUR_NAMES[self._colour ^ 1]}'s last stone at "
                f"{self._board.labels[self._last_stone]}; Disthex forbids it.",
                code=Code.FORBIDDEN,
            )
        self._place(cell)

    def view(self) -> HexView:
        points = self._board.points
        forbidden = self._forbidden_cells() if self.outcome is None else ()
        return HexView(
            **self._view_fields(),
            size=self.size,
            stones=tuple(
                (points[cell], colour)
                for cell, colour in enumerate(self._stones)
                if colour != EMPTY
            ),
            colours=(self.colour_of(0), self.colour_of(1)),
            swapped=self._swapped,
            last_point=points[self._last_stone] if self._last_stone >= 0 else None,
            forbidden=tuple(sorted(points[cell] for cell in forbidden)),
            chain=tuple(points[cell] for cell in self._chain),
        )

    def copy(self) -> Self:
        twin = object.__new__(type(self))
        twin.__dict__.update(self.__dict__)
        twin.options = dict(self.options)
        self._copy_record(twin)
        twin._stones = self._stones.copy()
        twin._parent = self._parent.copy()
        twin._edges = self._edges.copy()
        return twin

    def random_playout(self, rng: random.Random) -> Self:
        state = self.copy()
        if state.outcome is None and state.options["swap"] and state.ply <= 1:
            if state.ply == 0:
                state._place(rng.randrange(state.size**2))  # the first move is free
            if state._swap_available():
                # Swap is one choice among the cells the mover may take.
                cells = state._empty - len(state._forbidden_cells())
                if rng.randrange(cells + 1) == cells:
                    state._play_action("swap")
        if state.outcome is None:
            state._finish_at_random(rng)
        return state

    # -- the hook where Disthex differs ------------------------------------------

    def _forbidden_cells(self) -> tuple[int, ...]:
        """The empty cells the player to move may not take. Hex forbids none."""
        return ()

    # -- moves -------------------------------------------------------------------

    def _parse_cell(self, text: str) -> int:
        cell = self._board.cell_of.get(text)
        if cell is not None:
            return cell
        try:
            column, row = notation.point(text)
        except IllegalMove:
            example = self._refusal_example()
            # on a small Disthex board every cell may be forbidden right after the opening
            wanted = (
                f"type a cell, like {example}" if example != "swap" else "your only move is swap"
            )
            raise IllegalMove(f"I can't read {shown(text)}: {wanted}.", code=Code.SYNTAX) from None
        size = self.size
        if not (0 <= column < size and 0 <= row < size):
            raise IllegalMove(
                f"There is no cell {notation.label((column, row))} on a {size}x{size} board.",
                code=Code.OFF_BOARD,
            )
        return row * size + column  # a spelling like "a01"

    def _swap_available(self) -> bool:
        return bool(self.options["swap"]) and len(self._moves) == 1

    def _check_swap(self) -> None:
        if not self.options["swap"]:
            raise IllegalMove("This game is played without the swap rule.", code=Code.NO_SWAP)
        if not self._swap_available():
            raise IllegalMove(
                "Swap is only allowed as the second player's first move.", code=Code.NO_SWAP
            )

    def _place(self, cell: int) -> None:
        """Put the mover's stone on `cell` (already checked) and pass the turn on."""
        connected = _place_stones(self, (cell,))
        self._record(self._board.labels[cell])
        self._last_stone = cell
        if connected:
            self._end(self._colour)
        else:
            self._colour ^= 1
            self._pass_if_stuck()

    def _pass_if_stuck(self) -> None:
        """The forced pass: the mover has no cell and no swap (Disthex only)."""
        if self._empty > MOST_FORBIDDEN:
            return
        if len(self._forbidden_cells()) == self._empty and not self._swap_available():
            self._record("pass")
            self._colour ^= 1
            self._last_stone = -1

    def _finish_at_random(self, rng: random.Random) -> None:
        """Play to the end with uniformly random cells.

        With no cell ever forbidden, random moves to the end are a random order
        of the empty cells, placed alternately until one colour connects; a
        full board always has a winner, so the order never runs out.
        """
        empties = [cell for cell, colour in enumerate(self._stones) if colour == EMPTY]
        rng.shuffle(empties)
        placed = _place_stones(self, empties)
        del empties[placed:]
        labels = self._board.labels
        self._moves.extend([labels[cell] for cell in empties])
        first = self.colour_of(self._colour)  # the seats alternate as the colours do
        self._actors.extend([first ^ (index & 1) for index in range(placed)])
        self._last_stone = empties[-1]
        self._colour ^= (placed - 1) & 1  # the colour of the last stone
        self._end(self._colour)

    # -- end detection -------------------------------------------------------------

    def _end(self, colour: int) -> None:
        """`colour` has just connected its edges: record the winner and the chain."""
        self._chain = _shortest_chain(self._board, self._stones, colour)
        self.outcome = Outcome(
            winners=(self.colour_of(colour),),
            reason=End.CONNECTION,
            path=tuple(self._board.labels[cell] for cell in self._chain),
        )


class DisthexState(HexState):
    """Disthex: Hex where the cells next to the opponent's last stone are forbidden."""

    info: ClassVar[GameInfo] = DISTHEX_INFO

    def _forbidden_cells(self) -> tuple[int, ...]:
        if self._last_stone < 0:
            return ()  # the first move, or just after a pass
        stones = self._stones
        return tuple(
            cell for cell in self._board.neighbours[self._last_stone] if stones[cell] == EMPTY
        )

    def _finish_at_random(self, rng: random.Random) -> None:
        empties = [cell for cell, colour in enumerate(self._stones) if colour == EMPTY]
        neighbours = self._board.neighbours
        while self.outcome is None:
            # An empty cell is forbidden exactly when it touches the last stone.
            # Forced passes leave the mover some cell, so the redraws end.
            around = neighbours[self._last_stone] if self._last_stone >= 0 else ()
            index = rng.randrange(len(empties))
            while empties[index] in around:
                index = rng.randrange(len(empties))
            cell = empties[index]
            empties[index] = empties[-1]
            empties.pop()
            self._place(cell)


# -- private helpers ---------------------------------------------------------------


def _place_stones(state: HexState, cells: Iterable[int]) -> int:
    """Place stones on `cells` in order, colours alternating from the mover's,
    until one connects its two edges. Returns how many were placed if that
    happened, else 0. Does not touch the record or the turn.

    This is the hot loop of random playouts, so it works on local names.
    """
    stones, parent, edges = state._stones, state._parent, state._edges
    neighbours = state._board.neighbours
    mine, theirs = state._board.edge_bits[state._colour], state._board.edge_bits[state._colour ^ 1]
    colour = state._colour
    placed = 0
    for cell in cells:
        placed += 1
        stones[cell] = colour
        bits = mine[cell]
        for neighbour in neighbours[cell]:
            if stones[neighbour] == colour:
                root = neighbour
                while parent[root] != root:
                    parent[root] = root = parent[parent[root]]  # path halving
                if root != cell:
                    parent[root] = cell  # the new stone becomes the group's root
                    bits |= edges[root]
        edges[cell] = bits
        if bits == BOTH_EDGES:
            state._empty -= placed
            return placed
        colour ^= 1
        mine, theirs = theirs, mine
    state._empty -= placed
    return 0


def _shortest_chain(board: Board, stones: list[int], colour: int) -> tuple[int, ...]:
    """A shortest chain of `colour` stones from its first edge to its second
    (breadth-first from the first edge), in that order."""
    neighbours, edge_bits = board.neighbours, board.edge_bits[colour]
    came_from = {cell: -1 for cell in board.first_edge[colour] if stones[cell] == colour}
    frontier = list(came_from)
    while frontier:
        reached = []
        for cell in frontier:
            for neighbour in neighbours[cell]:
                if stones[neighbour] == colour and neighbour not in came_from:
                    came_from[neighbour] = cell
                    if edge_bits[neighbour] & SECOND_EDGE:
                        chain = [neighbour]
                        while came_from[chain[-1]] >= 0:
                            chain.append(came_from[chain[-1]])
                        return tuple(reversed(chain))
                    reached.append(neighbour)
        frontier = reached
    return ()


register(HexState)
register(DisthexState)
