"""Hot Wire: a panel of pins, the wires drawn so far, and the groups overlay.

Pins sit on a rectangle with a1 bottom left and rows counting upward, as in
the rules. Red's wires end in round terminals and Black's in square ones, so
the shape tells the seats apart as well as the colour. The last wire lies on
a halo in the "last" colour with a diamond at its middle; at the end the hot
wire lies on a "win" halo with a star instead.

The groups overlay (asked for with `extras.groups`) shades each independent
sub-game from `state.groups()` in a tint of its kind, draws the candidate
wires of the groups that have few faintly (long "hidden" wires included),
tags every group with "1" (one-wire), "S" (switch) or "L" (larger), and
counts them in a legend above the board.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from PIL import ImageColor

from bot.render.board import BoardRenderer, Extras, register
from bot.render.canvas import Canvas
from bot.render.caption import default_status
from bot.render.fonts import clean_name
from bot.render.theme import Marker, Point, SeatStyle
from engine import GameState
from engine.core import End, UnionFind
from engine.hotwire import INFO, HotWireState, HotWireView, WireGroup, wire_text
from engine.notation import Point as Pin
from engine.notation import column_label, label, points
from engine.options import dims

WIDTH = 760  # the picture's width, whatever the board's shape (the caption needs it)
BOARD_HEIGHT_LIMIT = 700  # the pin panel and its labels, below the legend band
MARGIN = 58  # outer pin centre to the picture's edge, at least: room for the labels
LEGEND_HEIGHT = 34  # the band above the board: board options, groups legend
LARGEST_PITCH = 150  # so a 2x2 board is a board, not four dots lost in a field

#: Seat -> (theme colour, terminal shape): Red (moves first), Black.
SEATS: tuple[tuple[str, Marker], ...] = (("vermillion", "circle"), ("black", "square"))
NAMES = INFO.seat_names

#: Group kind -> (tag letter, tint colour).
KINDS: Mapping[str, tuple[str, str]] = {
    "one-wire": ("1", "sky"),
    "switch": ("S", "green"),
    "larger": ("L", "muted"),
}
#: How much of a group's tint colours the fill and the rim of its shading, and its
#: candidate wires: quarters, as the encoder's palette holds them exactly.
FILL_TINT, RIM_TINT, WIRE_TINT = 0.25, 0.5, 0.75

#: A group with at most this many candidate wires shows them all, faintly; more
#: would be a hairball (an opening 7x7 board is one group of 572).
SHOWN_WIRES_LIMIT = 40


@dataclass(frozen=True, slots=True)
class Layout:
    """Where the pins of a columns x rows board are drawn, in logical pixels."""

    columns: int
    rows: int
    pitch: float  # distance between neighbouring pins
    left: float  # x of column a
    bottom: float  # y of row 1

    def centre(self, pin: Point) -> Point:
        """The centre of a pin given as 0-based (column, row); row 0 is at the bottom.
        Fractions are places between pins."""
        return (self.left + pin[0] * self.pitch, self.bottom - pin[1] * self.pitch)

    @property
    def right(self) -> float:
        return self.left + (self.columns - 1) * self.pitch

    @property
    def top(self) -> float:
        return self.bottom - (self.rows - 1) * self.pitch

    @property
    def height(self) -> int:
        """The board area's height: legend band, panel and labels."""
        return math.ceil(self.bottom + MARGIN)

    @property
    def pad(self) -> float:
        """From the outer pins to the panel's edge: room for a group's shading."""
        return self.blob_radius + 3

    @property
    def label_size(self) -> float:
        return _clamp(self.pitch * 0.4, 11, 15)

    @property
    def pin_radius(self) -> float:
        return _clamp(self.pitch * 0.045, 2, 4.5)

    @property
    def wire_width(self) -> float:
        return _clamp(self.pitch * 0.085, 3, 8.5)

    @property
    def terminal_radius(self) -> float:
        return _clamp(self.pitch * 0.12, 4.5, 12)

    @property
    def halo_width(self) -> float:
        return self.wire_width + _clamp(self.pitch * 0.17, 7, 18)

    @property
    def blob_radius(self) -> float:
        # 0.3 pitch fills the hole in a right triangle of pins (inradius 0.29).
        return _clamp(self.pitch * 0.3, 7.5, 30)

    @property
    def highlight_radius(self) -> float:
        """The diamond (last wire) or star (hot wire) at the wire's middle."""
        return _clamp(self.pitch * 0.15, 7, 15)

    @property
    def tag_size(self) -> float:
        return _clamp(self.pitch * 0.2, 9, 14)


@functools.cache
def layout(columns: int, rows: int) -> Layout:
    """The geometry of a board: the largest pitch that fits, the pins centred across."""
    pitch = min(
        LARGEST_PITCH,
        (WIDTH - 2 * MARGIN) / max(1, columns - 1),
        (BOARD_HEIGHT_LIMIT - 2 * MARGIN) / max(1, rows - 1),
    )
    left = (WIDTH - (columns - 1) * pitch) / 2
    bottom = LEGEND_HEIGHT + MARGIN + (rows - 1) * pitch
    return Layout(columns, rows, pitch, left, bottom)


def state_layout(state: GameState) -> Layout:
    columns, rows = dims(state.options["size"])
    return layout(columns, rows)


class HotWireRenderer(BoardRenderer[HotWireState, HotWireView]):
    game = "hotwire"
    state_type = HotWireState
    view_type = HotWireView

    def board_size(self, state: HotWireState) -> tuple[int, int]:
        return WIDTH, state_layout(state).height

    def tap_points(self, state: HotWireState) -> Iterator[tuple[str, Point, float]]:
        place = state_layout(state)
        for row in range(place.rows):
            for column in range(place.columns):
                yield label((column, row)), place.centre((column, row)), place.pitch / 2

    def seat_styles(self, state: HotWireState) -> list[SeatStyle]:
        return [
            SeatStyle(colour, shape, name)
            for (colour, shape), name in zip(SEATS, NAMES, strict=True)
        ]

    def text(self, view: HotWireView) -> str:
        """Pins as . (free), R or B (holding Red's or Black's wire), the last wire's
        pins in brackets; then the wires, which characters cannot draw at an angle."""
        owner = {pin: "RB"[seat] for p, q, seat in view.wires for pin in (p, q)}
        last = set(view.last_wire or ())
        lines = []
        for row in reversed(range(view.height)):
            cells = []
            for column in range(view.width):
                mark = owner.get((column, row), ".")
                cells.append(f"[{mark}]" if (column, row) in last else f" {mark} ")
            lines.append(f"{row + 1:>2} " + "".join(cells).rstrip())
        lines.append("   " + "".join(f" {column_label(c):<2}" for c in range(view.width)).rstrip())
        for seat, name in enumerate(("Red", "Black")):
            wires = [wire_text(p, q) for p, q, owner_seat in view.wires if owner_seat == seat]
            lines.append(f"{name}: {', '.join(wires) or 'no wires yet'}")
        return "\n".join(lines)

    def status_line(
        self, state: HotWireState, view: HotWireView, players: Sequence[str] = ()
    ) -> str:
        outcome = view.outcome
        if outcome is None:
            wires = "1 legal wire" if view.legal_count == 1 else f"{view.legal_count} legal wires"
            return f"{NAMES[view.to_move or 0]} to move · {wires}"
        if outcome.reason != End.LAST_WIRE or len(outcome.winners) != 1:
            return default_status(view, self.seat_styles(state))
        winner = NAMES[outcome.winners[0]]
        if not view.wires:
            return f"{winner} wins: no wire fits"
        loser = NAMES[view.wires[-1][2]]
        return f"{winner} wins: {loser} connected the hot wire"

    # -- the static board ---------------------------------------------------------

    def draw_board(self, canvas: Canvas, state: HotWireState) -> None:
        place = state_layout(state)
        lengths = str(state.options["lengths"])
        if lengths == "any":
            lengths_words = "any wire length"
        else:  # "1,3,5,...,49" would run into the groups legend: cut it short
            plural = "s" if any(mark in lengths for mark in ",-") else ""
            lengths_words = f"wire length{plural} {clean_name(lengths, 22)}"
        canvas.text(
            (16, LEGEND_HEIGHT / 2 + 4),
            f"{place.columns} × {place.rows} pins · {lengths_words}",
            13,
            "muted",
            anchor="lm",
        )
        pad = place.pad
        canvas.rectangle(
            (place.left - pad, place.top - pad, place.right + pad, place.bottom + pad),
            "faint",
            outline="paper_edge",
            width=1.5,
            radius=min(pad, 14),
        )
        label_gap = pad + place.label_size * 0.95
        for column in range(place.columns):
            x, _ = place.centre((column, 0))
            for y in (place.top - label_gap, place.bottom + label_gap):
                canvas.text((x, y), column_label(column), place.label_size, "muted")
        for row in range(place.rows):
            _, y = place.centre((0, row))
            for x in (place.left - label_gap - 2, place.right + label_gap + 2):
                canvas.text((x, y), str(row + 1), place.label_size, "muted")
        socket = place.pin_radius
        for column in range(place.columns):
            for row in range(place.rows):
                centre = place.centre((column, row))
                canvas.disc(centre, socket * 1.9, "paper")
                canvas.disc(centre, socket, "muted")

    # -- the position -------------------------------------------------------------

    def draw_position(
        self, canvas: Canvas, state: HotWireState, view: HotWireView, extras: Extras
    ) -> None:
        place = layout(view.width, view.height)
        shapes: list[GroupShape] = []
        # Groups cost the engine real work on big boards: only when asked for.
        if extras.groups and view.outcome is None:
            groups = state.groups()
            shapes = [group_shape(group, place) for group in groups]
            _draw_groups(canvas, place, shapes)
            _draw_legend(canvas, groups)
        hot = view.outcome is not None and view.outcome.reason == End.LAST_WIRE
        highlight = "win" if hot else "last"
        if view.last_wire is not None:
            canvas.line([place.centre(pin) for pin in view.last_wire], highlight, place.halo_width)
        for p, q, seat in view.wires:
            canvas.line([place.centre(p), place.centre(q)], SEATS[seat][0], place.wire_width)
        draw_terminals(canvas, place, view.wires)
        if view.last_wire is not None:
            (x1, y1), (x2, y2) = (place.centre(pin) for pin in view.last_wire)
            canvas.marker(
                "star" if hot else "diamond",
                ((x1 + x2) / 2, (y1 + y2) / 2),
                place.highlight_radius,
                highlight,
                outline="ink",
                width=1,
            )
        for shape in shapes:
            letter, tint = KINDS[shape.kind]
            _tag(canvas, shape.tag, letter, tint, place.tag_size)


def draw_terminals(canvas: Canvas, place: Layout, wires: Sequence[tuple[Pin, Pin, int]]) -> None:
    """The wires' ends: Red's round, Black's square, ringed in paper."""
    radius = place.terminal_radius
    for p, q, seat in wires:
        colour, shape = SEATS[seat]
        size = radius * 1.3 if shape == "square" else radius  # a square looks smaller
        for pin in (p, q):
            canvas.marker(shape, place.centre(pin), size, colour, outline="paper", width=1)


# -- the groups overlay --------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GroupShape:
    """Where a group is drawn: the strokes its shading follows, its pins, its tag."""

    kind: str
    pins: list[Point]
    strokes: list[list[Point]]  # polylines through pin centres, shaded thick
    spots: list[Point]  # places on no stroke, shaded as a lone disc
    shown: list[tuple[Point, Point]]  # the candidate wires drawn faintly
    tag: Point


def group_shape(group: WireGroup, place: Layout) -> GroupShape:
    """A small group's shading follows all its wires; a larger group's is built from
    its wires between neighbouring pins (a 26x26 opening has 13,758 wires), in few,
    small strokes: the canvas pastes each stroke as a sprite. The tag sits at the
    middle of the stroke segment nearest the group's centre."""
    shown = [_ends(text) for text in group.wires] if len(group.wires) <= SHOWN_WIRES_LIMIT else []
    if group.kind == "larger":
        runs, spots = _neighbour_strokes(group)
    else:
        runs, spots = [list(ends) for ends in shown], []
    strokes = [[place.centre(spot) for spot in run] for run in runs]
    pins = [place.centre(pin) for pin in group.pins]
    middles = [
        ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)
        for stroke in strokes
        for a, b in itertools.pairwise(stroke)
    ] or pins
    cx = sum(x for x, _ in pins) / len(pins)
    cy = sum(y for _, y in pins) / len(pins)
    return GroupShape(
        kind=group.kind,
        pins=pins,
        strokes=strokes,
        spots=[place.centre(pin) for pin in spots],
        shown=[(place.centre(p), place.centre(q)) for p, q in shown],
        tag=min(middles, key=lambda point: (point[0] - cx) ** 2 + (point[1] - cy) ** 2),
    )


def _neighbour_strokes(group: WireGroup) -> tuple[list[list[Point]], list[Point]]:
    """A larger group's shading in board units: runs along its rows and columns of
    neighbouring wires, runs through the middles of squares closed by four of them
    (the shading of the sides leaves a hole there), and the diagonals no two sides
    already join. Then the spots shaded alone: lone closed squares, pins on no stroke."""
    pin_set = set(group.pins)
    wire_set = set(group.wires)

    def joined(p: Pin, q: Pin) -> bool:
        return q in pin_set and _wire_text(p, q) in wire_set

    right = {(x, y) for x, y in group.pins if joined((x, y), (x + 1, y))}
    up = {(x, y) for x, y in group.pins if joined((x, y), (x, y + 1))}
    closed = {(x, y) for x, y in right if (x, y) in up and (x, y + 1) in right and (x + 1, y) in up}
    strokes: list[list[Point]] = [*_runs(right, 1, 0), *_runs(up, 0, 1)]
    middles = [[(x + 0.5, y + 0.5) for x, y in run[:-1]] for run in _runs(closed, 1, 0)]
    strokes += [run for run in middles if len(run) > 1]
    spots = [run[0] for run in middles if len(run) == 1]
    on_strokes = right | up | {(x + 1, y) for x, y in right} | {(x, y + 1) for x, y in up}
    for x, y in group.pins:
        rising = ((x, y), (x + 1, y + 1))
        sides = ((x, y) in right and (x + 1, y) in up) or ((x, y) in up and (x, y + 1) in right)
        if joined(*rising) and not sides:
            strokes.append(list(rising))
            on_strokes.update(rising)
        falling = ((x, y + 1), (x + 1, y))
        sides = ((x, y + 1) in right and (x + 1, y) in up) or ((x, y) in up and (x, y) in right)
        if joined(*falling) and not sides:
            strokes.append(list(falling))
            on_strokes.update(falling)
    bridges = _bridges(group, strokes)
    strokes += [list(bridge) for bridge in bridges]
    on_strokes.update(pin for bridge in bridges for pin in bridge)
    return strokes, spots + [pin for pin in group.pins if pin not in on_strokes]


def _bridges(group: WireGroup, strokes: list[list[Point]]) -> list[tuple[Pin, Pin]]:
    """Strokes along the group's shortest wires that join the pieces the neighbour
    strokes leave apart (wires that cross drawn ones split a group's outline): one
    group is always one blob."""
    index: dict[Point, int] = {pin: i for i, pin in enumerate(group.pins)}
    pieces = UnionFind(len(group.pins))
    for stroke in strokes:
        ends = [index[spot] for spot in stroke if spot in index]  # square middles are no pins
        for a, b in itertools.pairwise(ends):
            pieces.union(a, b)
    roots = {pieces.find(i) for i in range(len(group.pins))}
    if len(roots) == 1:
        return []
    bridges: list[tuple[Pin, Pin]] = []
    wires = sorted(
        (_ends(text) for text in group.wires),
        key=lambda ends: math.dist(ends[0], ends[1]),
    )
    for p, q in wires:
        if pieces.union(index[p], index[q]):
            bridges.append((p, q))
            if len(bridges) == len(roots) - 1:
                break
    return bridges


def _runs(starts: set[Pin], dx: int, dy: int) -> list[list[Point]]:
    """Maximal straight runs of unit steps (dx, dy) from the points in `starts`."""
    runs = []
    for x, y in sorted(starts):
        if (x - dx, y - dy) in starts:
            continue  # inside a run already walked from its start
        run: list[Point] = [(x, y)]
        while run[-1] in starts:
            run.append((run[-1][0] + dx, run[-1][1] + dy))
        runs.append(run)
    return runs


@functools.lru_cache(maxsize=8192)  # a 26x26 board has 2,704 neighbour wires
def _wire_text(p: Pin, q: Pin) -> str:
    return wire_text(p, q)


def _ends(text: str) -> tuple[Pin, Pin]:
    p, q = points(text)
    return p, q


def _draw_groups(canvas: Canvas, place: Layout, shapes: Sequence[GroupShape]) -> None:
    """Each group as a tinted blob with a darker rim, its pins and candidate wires on it."""
    radius = place.blob_radius
    # The rims of every group first, then every fill: a rim shows only on the outside.
    for rim in (True, False):
        for shape in shapes:
            colour = tinted(canvas.theme, KINDS[shape.kind][1], RIM_TINT if rim else FILL_TINT)
            blob = radius + (1.5 if rim else 0)
            for stroke in shape.strokes:
                canvas.line(stroke, colour, 2 * blob)  # round caps and joins: the pins
            for centre in shape.spots:
                canvas.disc(centre, blob, colour)
    for shape in shapes:
        colour = tinted(canvas.theme, KINDS[shape.kind][1], WIRE_TINT)
        for a, b in shape.shown:
            canvas.line([a, b], colour, 1.2)
        for centre in shape.pins:
            canvas.disc(centre, place.pin_radius, "muted")


def _tag(canvas: Canvas, centre: Point, letter: str, tint: str, size: float) -> None:
    x, y = centre
    half_width, half_height = size * 0.62, size * 0.68
    canvas.rectangle(
        (x - half_width, y - half_height, x + half_width, y + half_height),
        "white",
        outline=tint,
        width=1.5,
        radius=size * 0.3,
    )
    canvas.text((x, y + size * 0.04), letter, size, "ink", bold=True)


def _draw_legend(canvas: Canvas, groups: Sequence[WireGroup]) -> None:
    """ "[1] one-wire ×4  [S] switch ×2  [L] larger ×1", right-aligned above the board."""
    counts = {kind: sum(1 for group in groups if group.kind == kind) for kind in KINDS}
    y = LEGEND_HEIGHT / 2 + 4
    words_size, tag_size = 13.0, 12.0
    x = WIDTH - 16.0
    for kind in reversed(list(KINDS)):
        if not counts[kind]:
            continue
        letter, tint = KINDS[kind]
        words = f"{kind} ×{counts[kind]}"
        canvas.text((x, y), words, words_size, "ink", anchor="rm")
        x -= canvas.text_width(words, words_size) + tag_size * 0.62 + 5
        _tag(canvas, (x, y), letter, tint, tag_size)
        x -= tag_size * 0.62 + 14


# -- small helpers -----------------------------------------------------------------


def _clamp(value: float, low: float, high: float) -> float:
    return max(low, min(high, value))


@functools.cache
def _mix_hex(colour: str, paper: str, amount: float) -> str:
    ink, base = ImageColor.getrgb(colour)[:3], ImageColor.getrgb(paper)[:3]
    mixed = (round(b + (c - b) * amount) for c, b in zip(ink, base, strict=True))
    return "#" + "".join(f"{channel:02X}" for channel in mixed)


def tinted(theme: Mapping[str, str], key: str, amount: float) -> str:
    """A theme colour washed onto the paper: amount 0 is paper, 1 the colour itself."""
    return _mix_hex(theme[key], theme["paper"], amount)


register(HotWireRenderer(), gallery={})
