"""Hot Wire: Phil Leduc's misère game of straight wires between pins (2010).

Red and Black take turns connecting two free pins of a rectangle of pins with
a straight wire. A wire must have an allowed length (horizontal steps plus
vertical steps), may not pass over a pin and may not cross a wire already
drawn; each pin takes one wire. The player left without a legal wire wins:
the opponent connected the last, "hot", wire.

Every wire the rules could ever allow on a board (a candidate) is numbered
once per board size and length set, in record order, together with the
bitmask of the candidates it conflicts with (shares a pin or crosses). A
position is the mask of candidates still available, so playing, legality,
the move list and the groups of independent sub-games are integer
operations; which wire is crossed or which pin passed over is worked out
only to explain a refusal.
"""

from __future__ import annotations

import functools
import random
import re
from collections.abc import Mapping
from dataclasses import dataclass
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
    UnionFind,
    View,
    shown,
)
from engine.hotwiretable import WireTable, crosses, pins_between, wire_count
from engine.notation import Point, label, points
from engine.options import dims, dims_option
from engine.registry import register

#: The longest wire there can be: corner to corner of a 26x26 board.
LONGEST = 50

#: The most candidate wires a board and length set may have (any length on 19x19
#: has 39,724): a whole game then replays in well under a second and a move
#: costs a few milliseconds. 26x26 with any length would have 139,350.
MOST_WIRES = 40_000

_LENGTHS_ALLOWED = f'lengths like "1-6", "1,3,5", "2" or "any" (whole numbers from 1 to {LONGEST})'


def parse_lengths(raw: object) -> OptionValue:
    """The lengths option as typed ("1-3,5", "1 3 5", 2, "any") -> canonical text ("1-3,5")."""
    lengths = length_set(raw)
    return "any" if lengths is None else _lengths_text(lengths)


INFO = GameInfo(
    name="hotwire",
    title="Hot Wire",
    version=1,
    min_players=2,
    max_players=2,
    seat_names=("Red", "Black"),
    options={
        "size": Option(
            "size",
            "7x7",
            "2x2 to 26x26",
            dims_option((2, 2), (26, 26)),
            help="columns x rows of pins, e.g. 7x7 or 5x9",
            choices=("5x5", "7x7", "9x9"),
        ),
        "lengths": Option(
            "lengths",
            "1-6",
            '"1-6", "1,3,5", "2" or "any" (lengths 1 to 50; at most 40,000 possible wires)',
            parse_lengths,
            help="the allowed wire lengths, counted as horizontal plus vertical steps",
            choices=("1-6", "1,3,5", "any"),
        ),
    },
    summary=(
        "Take turns connecting two free pins with a straight wire of an allowed length "
        "that passes over no pin and crosses no wire; each pin takes one wire. "
        "Whoever connects the last wire loses."
    ),
    notation=(
        "A move is a wire: its two pins, each a column letter and a row number, in "
        "either order, apart by a space, a hyphen or nothing."
    ),
    credit=(
        "Phil Leduc (2010). The author asks anyone who programs or sells Hot Wire "
        "to contact him for permission."
    ),
    ends=frozenset({End.LAST_WIRE}),
)


# -- notation -------------------------------------------------------------------


def length_set(raw: object) -> frozenset[int] | None:
    """The allowed lengths of a typed or canonical lengths option; None means any length.

    Raises BadOptions naming what is wrong and what is allowed.
    """
    if isinstance(raw, bool):
        raise BadOptions(f"give {_LENGTHS_ALLOWED}, not {shown(raw)}.")
    text = re.sub(r"\s*[-–]\s*", "-", str(raw).strip().lower())
    if text == "any":
        return None
    words = [word for word in re.split(r"[,\s]+", text) if word]
    if not words:
        raise BadOptions(f"give at least one length: {_LENGTHS_ALLOWED}.")
    lengths: set[int] = set()
    for word in words:
        if re.fullmatch(r"-\d+", word):
            raise BadOptions(f"{shown(word)} is negative; give {_LENGTHS_ALLOWED}.")
        match = re.fullmatch(r"(\d{1,6})(?:-(\d{1,6}))?", word)
        if match is None:
            raise BadOptions(f"{shown(word)} is not a length or a range; give {_LENGTHS_ALLOWED}.")
        low, high = int(match[1]), int(match[2] or match[1])
        if low > high:
            raise BadOptions(f"the range {word} runs backwards; write {high}-{low}.")
        if low < 1:
            raise BadOptions(f"a wire is at least 1 long, not {low}; give {_LENGTHS_ALLOWED}.")
        if high > LONGEST:
            raise BadOptions(f"no wire is {high} long; give {_LENGTHS_ALLOWED}.")
        lengths.update(range(low, high + 1))
    return frozenset(lengths)


def wire_text(p: Point, q: Point) -> str:
    """The record of a wire: its pins in column-then-row order, lower first ("d5-g3")."""
    first, second = sorted((p, q))
    return f"{label(first)}-{label(second)}"


def _lengths_text(lengths: frozenset[int]) -> str:
    """{1,2,3,5} -> "1-3,5": runs of three or more become ranges."""
    parts: list[str] = []
    ordered = sorted(lengths)
    start = 0
    for end in range(len(ordered)):
        if end + 1 < len(ordered) and ordered[end + 1] == ordered[end] + 1:
            continue
        run = ordered[start : end + 1]
        if len(run) >= 3:
            parts.append(f"{run[0]}-{run[-1]}")
        else:
            parts.extend(str(length) for length in run)
        start = end + 1
    return ",".join(parts)


# -- the state -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class HotWireView(View):
    """The board for renderers. Points are 0-based (column, row)."""

    width: int
    height: int
    lengths: str  # the canonical option: "1-6", "1,3,5", "any"
    wires: tuple[tuple[Point, Point, int], ...]  # in play order: pins (record order), seat
    used_pins: tuple[Point, ...]  # sorted
    last_wire: tuple[Point, Point] | None  # the hot wire once the game is over
    legal_count: int  # wires the player to move may still connect


@dataclass(frozen=True, slots=True)
class WireGroup:
    """Available candidate wires that interact only with each other: a separate sub-game.

    A "one-wire" group (2 or 3 pins) takes exactly one more wire; a "switch"
    (4 pins) takes one or two; a "larger" group anything more.
    """

    pins: tuple[Point, ...]  # sorted
    wires: tuple[str, ...]  # canonical text, in record order
    kind: str  # "one-wire", "switch" or "larger"


class HotWireState(GameState):
    """A Hot Wire position: the candidate wires still available and the wires drawn."""

    info = INFO
    _shared_tables = ("_table",)

    def __init__(self, options: Mapping[str, OptionValue]) -> None:
        super().__init__(options)
        width, height = dims(self.options["size"])
        lengths = str(self.options["lengths"])
        count = wire_count(width, height, length_set(lengths))
        if count > MOST_WIRES:
            raise BadOptions(
                f"Hot Wire allows at most {MOST_WIRES:,} possible wires, and a "
                f"{width}x{height} board with lengths {lengths} has {count:,}: "
                f"{_smaller_choices(width, height)}."
            )
        self._table = _wire_table(width, height, lengths)
        self._available = self._table.everything
        self._wires: list[int] = []
        self._check_end()

    @property
    def to_move(self) -> int | None:
        return None if self.outcome is not None else self.ply % 2

    def legal_moves(self) -> list[str]:
        if self.outcome is not None:
            return []
        names = self._table.names
        return [names[wire] for wire in wires_of(self._available)]

    def _play_action(self, text: str) -> None:
        p, q = self._read_wire(text)
        table = self._table
        wire = table.index.get(table.key(p, q))
        if wire is None or not self._available >> wire & 1:
            raise self._refusal(p, q)
        self._connect(wire)

    def view(self) -> HotWireView:
        table = self._table
        drawn = tuple(
            (table.point(table.first[wire]), table.point(table.second[wire]), ply % 2)
            for ply, wire in enumerate(self._wires)
        )
        return HotWireView(
            **self._view_fields(),
            width=table.width,
            height=table.height,
            lengths=str(self.options["lengths"]),
            wires=drawn,
            used_pins=tuple(sorted(pin for p, q, _ in drawn for pin in (p, q))),
            last_wire=drawn[-1][:2] if drawn else None,
            legal_count=self._available.bit_count(),
        )

    def copy(self) -> Self:
        # The wire table is shared and never changes: copy only the position.
        other = type(self).__new__(type(self))
        other.options = dict(self.options)
        self._copy_record(other)
        other.outcome = self.outcome
        other._table = self._table
        other._available = self._available
        other._wires = list(self._wires)
        return other

    def random_playout(self, rng: random.Random) -> Self:
        """Random legal wires to the end, in place on a copy.

        The available candidates are shuffled once and walked in that order,
        connecting each one still available: the first available candidate of
        a random order is a uniformly random legal wire at every step.
        """
        state = self.copy()
        if state.outcome is not None:
            return state
        table = state._table
        order = wires_of(state._available)
        rng.shuffle(order)
        available = state._available
        for wire in order:
            if available >> wire & 1:
                available &= ~table.conflict(wire)
                state._wires.append(wire)
                state._record(table.names[wire])
        state._available = available
        state._check_end()
        return state

    def groups(self) -> tuple[WireGroup, ...]:
        """The available candidate wires split into independent sub-games.

        Two candidates interact when they share a pin or cross; a group is a
        connected component of that relation, in record order of its first wire.
        """
        table = self._table
        available = self._available
        wires = wires_of(available)
        if not wires:
            return ()
        pins = UnionFind(table.width * table.height)
        for wire in wires:
            pins.union(table.first[wire], table.second[wire])
        # Wires of different pin components may still cross. Each such pair has
        # a wire outside the largest component, so only those need their masks.
        components = _components(table, wires, pins)
        largest = max(components, key=len)
        for component in components:
            if component is largest:
                continue
            reach = 0
            for wire in component:
                reach |= table.conflict(wire)
            for other in wires_of(reach & available):
                pins.union(table.first[component[0]], table.first[other])
        return tuple(_group(table, component) for component in _components(table, wires, pins))

    # -- for search (engine/ai): a position is the mask of available candidates ----

    @property
    def wire_table(self) -> WireTable:
        """Every candidate wire of this board, numbered in record order, with the mask
        of the candidates each conflicts with (shared by all states of the board)."""
        return self._table

    @property
    def available(self) -> int:
        """The candidates that may still be connected, as a mask (bit i: wire i of
        `wire_table`). Connecting wire i leaves `available & ~conflict(i)`."""
        return self._available

    # -- moves ---------------------------------------------------------------------

    def _read_wire(self, text: str) -> tuple[Point, Point]:
        """Two different pins on the board, in record order, or IllegalMove."""
        if text == "pass":
            raise IllegalMove(
                "There is no passing in Hot Wire: connect two pins, like "
                f"{self._refusal_example()}.",
                code=Code.NO_PASS,
            )
        try:
            pins = points(text)
        except IllegalMove:
            raise IllegalMove(
                f"I can't read {shown(text)}: type a wire as two pins, like "
                f"{self._refusal_example()}.",
                code=Code.SYNTAX,
            ) from None
        if len(pins) != 2:
            named = "one pin" if len(pins) == 1 else f"{len(pins)} pins"
            raise IllegalMove(
                f"{shown(text)} names {named}: a wire joins two pins, like "
                f"{self._refusal_example()}.",
                code=Code.SYNTAX,
            )
        p, q = sorted(pins)
        table = self._table
        for pin in (p, q):
            if not (0 <= pin[0] < table.width and 0 <= pin[1] < table.height):
                raise IllegalMove(
                    f"There is no pin {label(pin)} on a {table.width}x{table.height} board.",
                    code=Code.OFF_BOARD,
                )
        if p == q:
            raise IllegalMove(
                f"A wire needs two different pins, not {label(p)} twice.", code=Code.SAME_POINT
            )
        return p, q

    def _refusal(self, p: Point, q: Point) -> IllegalMove:
        """Why the wire p-q (two different pins on the board) is not available now."""
        table = self._table
        text = wire_text(p, q)
        for pin in (p, q):
            pin_id = table.pin_id(pin)
            for wire in self._wires:
                if pin_id in (table.first[wire], table.second[wire]):
                    return IllegalMove(
                        f"Pin {label(pin)} already has a wire ({table.names[wire]}).",
                        code=Code.OCCUPIED,
                    )
        dx, dy = abs(q[0] - p[0]), abs(q[1] - p[1])
        if table.lengths is not None and dx + dy not in table.lengths:
            return IllegalMove(
                f"{text} has length {dx + dy}; {_allowed_phrase(table.lengths)}.", code=Code.LENGTH
            )
        passed = pins_between(p, q)
        if passed:
            return IllegalMove(f"{text} passes over {_pins_phrase(passed)}.", code=Code.PASSES_OVER)
        crossed = next(
            table.names[wire]
            for wire in self._wires
            if crosses(p, q, table.point(table.first[wire]), table.point(table.second[wire]))
        )
        return IllegalMove(f"{text} crosses the wire {crossed}.", code=Code.CROSSING)

    def _connect(self, wire: int) -> None:
        self._available &= ~self._table.conflict(wire)
        self._wires.append(wire)
        self._record(self._table.names[wire])
        self._check_end()

    # -- end -----------------------------------------------------------------------

    def _check_end(self) -> None:
        """The player to move with no legal wire wins: the opponent drew the hot wire.

        A board with no wire at all is won at once by the first player.
        """
        if self._available:
            return
        path = (self._moves[-1],) if self._moves else ()
        self.outcome = Outcome(winners=(self.ply % 2,), reason=End.LAST_WIRE, path=path)


# -- the wire tables (engine/hotwiretable.py) -------------------------------------

#: Wire tables kept per process: the biggest allowed is a few tens of MB.
TABLES_KEPT = 4


@functools.lru_cache(maxsize=TABLES_KEPT)
def _wire_table(width: int, height: int, lengths: str) -> WireTable:
    return WireTable(width, height, length_set(lengths))


def _smaller_choices(width: int, height: int) -> str:
    """What fits under MOST_WIRES: the longest "1-n" lengths on this board, and the
    largest square board for any length."""
    longest = max(
        n
        for n in range(1, LONGEST + 1)
        if wire_count(width, height, frozenset(range(1, n + 1))) <= MOST_WIRES
    )
    side = max(n for n in range(2, 27) if wire_count(n, n, None) <= MOST_WIRES)
    return f'choose lengths up to {longest} ("1-{longest}"), or any length on up to {side}x{side}'


def wires_of(mask: int) -> list[int]:
    """The candidates of a mask of candidates (the positions of its set bits), lowest
    first: `wires_of(state.available)` are the wires that may still be connected."""
    digits = bin(mask)[:1:-1]
    found: list[int] = []
    position = digits.find("1")
    while position >= 0:
        found.append(position)
        position = digits.find("1", position + 1)
    return found


# -- private helpers -----------------------------------------------------------------


def _components(table: WireTable, wires: list[int], pins: UnionFind) -> list[list[int]]:
    """The wires grouped by the pin component of their first pin, in order of first wire."""
    by_root: dict[int, list[int]] = {}
    for wire in wires:
        by_root.setdefault(pins.find(table.first[wire]), []).append(wire)
    return list(by_root.values())


def _group(table: WireTable, wires: list[int]) -> WireGroup:
    pin_ids = {pin for wire in wires for pin in (table.first[wire], table.second[wire])}
    kind = "one-wire" if len(pin_ids) <= 3 else "switch" if len(pin_ids) == 4 else "larger"
    return WireGroup(
        pins=tuple(table.point(pin) for pin in sorted(pin_ids)),
        wires=tuple(table.names[wire] for wire in wires),
        kind=kind,
    )


def _pins_phrase(pins: list[Point]) -> str:
    """ "pin a2" / "pins a2 and a3" / "pins b2, c3 and d4"."""
    labels = [label(pin) for pin in pins]
    if len(labels) == 1:
        return f"pin {labels[0]}"
    return f"pins {', '.join(labels[:-1])} and {labels[-1]}"


def _allowed_phrase(lengths: frozenset[int]) -> str:
    if len(lengths) == 1:
        return f"the allowed length is {_lengths_text(lengths)}"
    return f"the allowed lengths are {_lengths_text(lengths)}"


register(HotWireState)
