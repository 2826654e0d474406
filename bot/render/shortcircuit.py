"""Short Circuit: a hex-hex board of pointy-top cells, four connector colours, capacitors.

Rows run left to right with row 1 at the bottom, so that cell (q+1, r+1) is up
and to the right of (q, r); a column is the diagonal line of cells running up
and to the left. Each row is numbered left of its first cell and each column
lettered past its lowest cell (along the bottom row and the lower-right
edge), where the line of cells runs off the board, with a short tick pointing
up the column; the top row and the upper-right edge repeat the labels where
they do not crowd the others.

Player 1's connectors are discs and Player 2's rounded squares, each with its
colour's initial (R, Y, B, G), so neither colour nor shape alone tells them
apart. A capacitor is the two-plate circuit symbol on a small paper badge: in
the middle of an empty cell, at the upper-right corner of a cell it shares
with a connector.

The last turn (and the current one, after a pop) is marked in the last-move
colour: a hexagonal frame around the placed piece, a large dashed ring where a
pop removed a connector and a small one where it removed a capacitor. A
winning loop gets a thick closed line and a halo round each of its pieces.

Pieces carry text, which the sprite canvas (canvas.py) does not cache, so pieces,
badges and dashed rings are stamped from sprites of their own (one per
colour, size, theme and half-pixel offset).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cache

import engine
from bot.render.board import BoardRenderer, Extras, register
from bot.render.canvas import Canvas
from bot.render.fonts import clean_name, text_width
from bot.render.theme import Marker, Point, SeatStyle
from engine import GameState
from engine.notation import column_label, label, point
from engine.shortcircuit import PASS, ShortCircuitState, ShortCircuitView

MARGIN = 20
LONGEST = 760
SQRT3 = math.sqrt(3)
#: Labels sit this many cell pitches beyond the edge cell, on the line of their row or column.
LABEL_REACH = 0.95
#: Room for a label's own half-extent beyond its centre, in circumradii.
LABEL_ROOM = 0.55
#: The tick from a column letter towards its column spans these fractions of a pitch.
TICK_FROM, TICK_TO = 0.2, 0.36

#: Connector colour -> (theme fill, shape, initial, initial's colour). The initial and
#: the shape (Player 1 discs, Player 2 squares) make colour never the only cue.
PIECES: Mapping[str, tuple[str, Marker, str, str]] = {
    "red": ("vermillion", "circle", "R", "white"),
    "yellow": ("yellow", "circle", "Y", "ink"),
    "blue": ("blue", "square", "B", "white"),
    "green": ("green", "square", "G", "white"),
}
SEATS = (
    SeatStyle("vermillion", "circle", "P1 · Red/Yellow"),
    SeatStyle("blue", "square", "P2 · Blue/Green"),
)
#: Sizes in hexagon circumradii.
DISC_RADIUS = 0.64  # Player 1's disc
SQUARE_HALF = 0.55  # Player 2's square, half its side: about the disc's area
INITIAL_SIZE = 0.62
HALO_RADIUS = 0.76  # a winning-loop piece's halo
BADGE_ALONE = 0.4  # half the capacitor badge's side, on an empty cell
BADGE_SHARED = 0.25  # ... and beside a connector
BADGE_OFFSET = (0.5, -0.47)  # the shared badge's centre from the cell's centre
GHOST_RADIUS = 0.58  # the dashed ring where a popped connector stood
FRAME_RADIUS = 0.98  # the frame around the last placed piece


@dataclass(frozen=True, slots=True)
class Layout:
    """Where things are drawn on a board of one side, in logical pixels."""

    side: int
    radius: float  # hexagon circumradius
    width: int
    height: int

    @property
    def label_size(self) -> float:
        return max(11.0, min(15.0, self.radius * 0.42))

    @property
    def frame_width(self) -> float:
        return max(3.0, self.radius * 0.12)

    def centre(self, column: float, row: float) -> Point:
        """The centre of cell (column, row), 0-based; fractions reach between cells."""
        middle = self.side - 1
        x = self.width / 2 + SQRT3 * self.radius * ((column - middle) - (row - middle) / 2)
        y = self.height / 2 - 1.5 * self.radius * (row - middle)
        return x, y

    def cells(self) -> list[tuple[int, int]]:
        span = 2 * self.side - 1
        return [(q, r) for r in range(span) for q in range(span) if abs(q - r) <= self.side - 1]

    def column_labels(self) -> list[tuple[str, Point]]:
        """Each column's letter past its lowest cell; the top row's also past their top."""
        return [
            (column_label(column), self.centre(column, row))
            for column, row, _ in self._column_ends()
        ]

    def column_ticks(self) -> list[tuple[Point, Point]]:
        """A short segment from each column letter towards its column's end cell."""
        return [
            (
                self.centre(column, row + direction * TICK_FROM),
                self.centre(column, row + direction * TICK_TO),
            )
            for column, row, direction in self._column_ends()
        ]

    def row_labels(self) -> list[tuple[str, Point]]:
        """Each row's number left of its first cell; the upper half's also right of its last."""
        last = 2 * self.side - 2
        labels = []
        for row in range(last + 1):
            first = max(0, row - (self.side - 1))
            labels.append((str(row + 1), self.centre(first - LABEL_REACH, row)))
            if row >= self.side - 1:
                labels.append((str(row + 1), self.centre(last + LABEL_REACH, row)))
        return labels

    def capacitor_centre(self, cell: tuple[int, int], shared: bool) -> Point:
        """The badge's centre: the cell's centre, or its upper-right corner beside a connector."""
        x, y = self.centre(*cell)
        if not shared:
            return x, y
        dx, dy = BADGE_OFFSET
        return x + dx * self.radius, y + dy * self.radius

    def _column_ends(self) -> list[tuple[int, float, int]]:
        """(column, row where its letter sits, direction along the column into the board)."""
        last = 2 * self.side - 2
        ends = []
        for column in range(last + 1):
            lowest = max(0, column - (self.side - 1))
            ends.append((column, lowest - LABEL_REACH, 1))
            if column >= self.side - 1:
                ends.append((column, last + LABEL_REACH, -1))
        return ends


@cache
def layout(side: int) -> Layout:
    """The layout that fits a side-`side` board and its labels LONGEST pixels wide."""
    reach = side - 1 + LABEL_REACH  # centre cell to the outermost labels, in pitches
    radius = (LONGEST - 2 * MARGIN) / (2 * SQRT3 * reach + 2 * LABEL_ROOM)
    height = 2 * MARGIN + 2 * radius * (1.5 * reach + LABEL_ROOM)
    return Layout(side=side, radius=radius, width=LONGEST, height=math.ceil(height))


class ShortCircuitRenderer(BoardRenderer[ShortCircuitState, ShortCircuitView]):
    game = "shortcircuit"
    state_type = ShortCircuitState
    view_type = ShortCircuitView

    def board_size(self, state: ShortCircuitState) -> tuple[int, int]:
        grid = layout(_side(state))
        return grid.width, grid.height

    # -- the static board -------------------------------------------------------------

    def draw_board(self, canvas: Canvas, state: ShortCircuitState) -> None:
        grid = layout(_side(state))
        radius = grid.radius
        # Oversized hexagons in the grid colour first, then the cells a little smaller:
        # the gaps become the grid lines, and the board gets a firmer outer rim.
        for cell in grid.cells():
            canvas.polygon(hexagon(grid.centre(*cell), radius * 1.07), "grid")
        for cell in grid.cells():
            canvas.polygon(hexagon(grid.centre(*cell), radius * 0.95), "faint")
        middle = grid.side - 1
        canvas.disc(grid.centre(middle, middle), radius * 0.12, "grid")
        for text, position in (*grid.column_labels(), *grid.row_labels()):
            canvas.text(position, text, grid.label_size, "muted")
        # Columns run diagonally: a short tick from each letter points up its column.
        for start, end in grid.column_ticks():
            canvas.line([start, end], "grid", max(1.5, radius * 0.06))

    # -- the position -------------------------------------------------------------------

    def draw_position(
        self, canvas: Canvas, state: ShortCircuitState, view: ShortCircuitView, extras: Extras
    ) -> None:
        grid = layout(view.side)
        radius = grid.radius
        occupied = {cell for cell, _ in view.connectors}
        outcome = view.outcome
        loop = [point(text) for text in outcome.path] if outcome is not None else []
        if loop:
            centres = [grid.centre(*cell) for cell in loop]
            canvas.line([*centres, centres[0]], "win", radius * 0.36)
            for centre in centres:
                canvas.disc(centre, radius * HALO_RADIUS, "win")
        for cell, colour in view.connectors:
            _piece(canvas, colour, radius, grid.centre(*cell))
        for cell in view.capacitors:
            shared = cell in occupied
            half = (BADGE_SHARED if shared else BADGE_ALONE) * radius
            _capacitor(canvas, half, grid.capacitor_centre(cell, shared))
        self._draw_last_turn(canvas, grid, occupied, (*view.last_turn, *view.turn_actions))

    def _draw_last_turn(
        self,
        canvas: Canvas,
        grid: Layout,
        occupied: set[tuple[int, int]],
        actions: Iterable[str],
    ) -> None:
        """The last turn's and this turn's actions: the placed piece framed, and dashed
        rings where pops removed a capacitor and a connector."""
        radius, frame = grid.radius, grid.frame_width
        for action in actions:
            if action == PASS:
                continue
            words = action.split()
            if words[0] == "pop":
                capacitor, connector = point(words[1]), point(words[2])
                centre = grid.capacitor_centre(capacitor, capacitor in occupied)
                _ghost(canvas, radius * BADGE_SHARED * 1.3, frame * 0.8, centre)
                if connector not in occupied:
                    _ghost(canvas, radius * GHOST_RADIUS, frame, grid.centre(*connector))
            else:
                outline = hexagon(grid.centre(*point(words[1])), radius * FRAME_RADIUS)
                canvas.polygon(outline, None, outline="last", width=frame)

    # -- caption ----------------------------------------------------------------------

    def tap_points(self, state: ShortCircuitState) -> Iterator[tuple[str, Point, float]]:
        grid = layout(_side(state))
        inner = grid.radius * SQRT3 / 2  # the hexagon's inscribed circle
        for cell in grid.cells():
            yield label(cell), grid.centre(*cell), inner

    def seat_styles(self, state: ShortCircuitState) -> list[SeatStyle]:
        return list(SEATS)

    def text(self, view: ShortCircuitView) -> str:
        return board_text(view)

    def status_line(
        self, state: ShortCircuitState, view: ShortCircuitView, players: Sequence[str] = ()
    ) -> str:
        """Whose turn (and why, after a pop or a pass) or the result, the turn count, and
        the capacitors left when limited: the fullest wording that fits beside the title."""
        finished = view.outcome is not None
        turn = f"turn {view.turns_played + (0 if finished else 1)}/{view.max_turns}"
        supplies = view.capacitors_left
        # After a pop no capacitor may be placed this turn, and at the end none ever.
        capacitors = [""]
        if None not in supplies and not view.popped and not finished:
            each = [f"P{seat + 1} {left}" for seat, left in enumerate(supplies)]
            capacitors = ["capacitors left " + ", ".join(each), "caps " + " · ".join(each), ""]
        title = f"{engine.GAMES[state.name].title} · move {view.ply}"
        room = LONGEST - 32 - 16 - text_width(title, 17, bold=True)
        wordings = [
            " · ".join(part for part in (who, turn, caps) if part)
            for who in _mover_words(view, [clean_name(name, 12) for name in players])
            for caps in capacitors
        ]
        return next((words for words in wordings if text_width(words, 15) <= room), wordings[-1])


def board_text(view: ShortCircuitView) -> str:
    """Rows top to bottom, each shifted half a cell as drawn: R Y B G connectors, + a
    capacitor beside them (or alone), . an empty cell; the last piece in brackets. Each
    column's letter stands where its next cell down would be: under the bottom row, or
    beside the lower right edge."""
    last = {point(a.split()[1]) for a in (*view.last_turn, *view.turn_actions) if a[0] in "rybg"}
    pieces = {cell: colour[0].upper() for cell, colour in view.connectors}
    capacitors = set(view.capacitors)
    rows: dict[int, list[int]] = {}
    lowest: dict[int, int] = {}
    for column, row in view.cells:
        rows.setdefault(row, []).append(column)
        lowest[column] = min(row, lowest.get(column, row))
    feet: dict[int, list[str]] = {}  # a row -> the letters of the columns starting above it
    for column in sorted(lowest):
        feet.setdefault(lowest[column] - 1, []).append(column_label(column))
    lines = []
    for row in sorted(rows, reverse=True):
        columns = sorted(rows[row])
        indent = 2 * (columns[0] * 2 - row) + 2 * (view.side - 1)
        cells = []
        for column in columns:
            cell = (column, row)
            mark = pieces.get(cell, ".") + ("+" if cell in capacitors else " ")
            if mark == ". " and cell in capacitors:
                mark = "+ "
            cells.append(f"[{mark.strip()}]" if cell in last else f" {mark}")
        cells += [f" {letter}" for letter in feet.get(row, ())]
        lines.append(f"{row + 1:>2} {' ' * indent}{' '.join(cells)}".rstrip())
    bottom = "   ".join(feet[min(rows) - 1])
    lines.append(f"   {' ' * (2 * view.side)} {bottom}   (columns run up-left)")
    return "\n".join(lines)


def _piece(canvas: Canvas, colour: str, radius: float, centre: Point) -> None:
    """A connector: Player 1's a disc, Player 2's a rounded square, with its initial."""
    fill, shape, initial, ink = PIECES[colour]
    outline = max(1.0, radius * 0.045)

    def paint(tile: Canvas, middle: Point) -> None:
        if shape == "circle":
            tile.marker("circle", middle, radius * DISC_RADIUS, fill, "ink", outline)
        else:
            x, y = middle
            half = radius * SQUARE_HALF
            box = (x - half, y - half, x + half, y + half)
            tile.rectangle(box, fill, "ink", outline, radius=radius * 0.14)
        tile.text(middle, initial, radius * INITIAL_SIZE, ink, bold=True)

    canvas.group(("piece", colour, radius), centre, radius * 0.85, paint)


def _capacitor(canvas: Canvas, half: float, centre: Point) -> None:
    """A paper badge with the capacitor symbol: two parallel plates and their leads."""
    stroke = max(1.0, half * 0.1)
    plate_width = max(1.0, half * 0.2)
    gap, plate, lead = half * 0.16, half * 0.58, half * 0.72

    def paint(tile: Canvas, middle: Point) -> None:
        x, y = middle
        box = (x - half, y - half, x + half, y + half)
        tile.rectangle(box, "paper", "ink", stroke, radius=half * 0.3)
        for sign in (-1, 1):
            inner = x + sign * gap
            outer = inner + sign * plate_width
            tile.rectangle((min(inner, outer), y - plate, max(inner, outer), y + plate), "ink")
            end = x + sign * lead
            tile.rectangle(
                (min(outer, end), y - stroke / 2, max(outer, end), y + stroke / 2), "ink"
            )

    canvas.group(("capacitor", half), centre, half + 1, paint)


def _ghost(canvas: Canvas, radius: float, width: float, centre: Point) -> None:
    """A ring of eight dashes in the last-move colour: where a piece was removed."""

    def paint(tile: Canvas, middle: Point) -> None:
        for dash in range(8):
            start = dash * 45 + 8
            tile.arc(middle, radius, start, start + 28, "last", width)

    canvas.group(("ghost", radius, width), centre, radius + width, paint)


def _mover_words(view: ShortCircuitView, players: Sequence[str]) -> list[str]:
    """The mover (and why they move now) or the result, fullest wording first."""
    names = list(players) or ["Player 1", "Player 2"]
    outcome = view.outcome
    if outcome is not None:
        if not outcome.winners:
            return [f"Draw ({outcome.reason})"]
        return [f"{names[outcome.winners[0]]} wins ({outcome.reason})"]
    seat = view.to_move or 0
    mover = names[seat]
    if view.popped:
        return [
            f"{mover} to move (after a pop: must place a connector)",
            f"{mover} to move (after a pop: place a connector)",
            f"{mover} to move (after a pop: a connector)",
        ]
    if view.last_turn == (PASS,):
        return [f"{mover} to move ({names[1 - seat]} passed)", f"{mover} to move"]
    return [f"{mover} to move"]


def _side(state: GameState) -> int:
    return int(state.options["size"])


def hexagon(centre: Point, radius: float) -> list[Point]:
    """A pointy-top hexagon's corners."""
    x, y = centre
    angles = [math.radians(30 + 60 * i) for i in range(6)]
    return [(x + radius * math.cos(a), y + radius * math.sin(a)) for a in angles]


register(ShortCircuitRenderer(), gallery={})
