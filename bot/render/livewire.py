"""Livewire: the grid of dots, both players' trees of lines, the bases and the path.

a1 is bottom left and rows count upward, as in the rules. The pitch and the
grid's corner are whole pixels, so every dot and line of one kind is the same
cached sprite wherever it lies (a full board has 300 lines and as many dots).

Player 1 (left edge) is blue with round dots, Player 2 (right edge) vermillion
with square ones. Straight lines are thick; branches and diagonals thin (their
dots may start diagonals), and a diagonal is the only slanted line anyway.
A dot that can still be drawn from is large with an ink rim: solid for a
straight dot, hollow for a branch or diagonal dot. A used dot is small, a dead
dot a grey cross, and the lines into dead dots fade, so the living trees stand
out on a crowded board. Bases are large marks with their coordinates in the
margin; guide lines every five squares help read any coordinate off the edges,
and on boards too large to label every point the labels stand on the guides.
A legend under the board says what the marks mean.
The last line lies on a band in "last" with a diamond under its new dot; a
winning path lies on a band in "win" with a star under the base it reached.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from PIL import ImageColor

from bot.render.board import BoardRenderer, Extras, register
from bot.render.canvas import Canvas
from bot.render.caption import CAPTION_HEIGHT, default_status
from bot.render.fonts import clean_name, font
from bot.render.theme import MAX_SIDE, SCALE, Marker, Point, SeatStyle
from engine import GameState
from engine.core import End
from engine.livewire import INFO, LivewireState, LivewireView
from engine.livewireboard import base_rows
from engine.notation import Point as GridPoint
from engine.notation import column_label, label
from engine.options import dims

MIN_WIDTH = 720  # the caption needs room whatever the board's shape
GRID_WIDTH_LIMIT = 680  # the grid itself, between the margins
LARGEST_PITCH = 38  # so a small board is a board, not a few dots lost in a field
SIDE_MARGIN = 52  # grid edge to picture edge at least: row labels, base coordinates
TOP_MARGIN = 34  # column labels above the grid
BOTTOM_MARGIN = 34  # and below it
LEGEND_HEIGHT = 26  # the band under the bottom labels that says what the marks mean
#: Label steps, smallest first: labels stand evenly, every point or on every guide line
#: (every 5th), every 2nd guide... (a step of 2 would leave every other guide bare).
LABEL_STEPS = (1, 5, 10, 20)
GUIDE_EVERY = 5  # darker guide lines at columns e, j, o.. and rows 5, 10, 15.. help count

#: Seat -> (theme colour, dot shape): Player 1 (left, moves first), Player 2 (right).
SEATS: tuple[tuple[str, Marker], ...] = (("blue", "circle"), ("vermillion", "square"))
NAMES = INFO.seat_names
#: How much of its owner's colour a dead line keeps: a half, which the palette holds.
DEAD_TINT = 0.5
#: The star behind the base a winning path lands on, against the base's radius.
STAR_SCALE = 1.9
#: A square looks smaller than a circle of the same radius: this evens their areas.
SQUARE_SCALE = 1.35
#: The paper inside a hollow dot, against the dot's radius.
HOLLOW = 0.4
#: Grid line colours: (plain, guide or border).
GRID_COLOURS = ("faint", "grid")


@dataclass(frozen=True, slots=True)
class Layout:
    """Where the grid points of a width x height squares board are drawn."""

    width: int  # squares; points run 0..width
    height: int
    pitch: int  # pixels between neighbouring points
    left: int  # x of column a
    top: int  # y of the last row
    picture_width: int

    def centre(self, point: GridPoint | Point) -> Point:
        """Pixel centre of a 0-based (column, row); row 0 is at the bottom.
        Fractions are places between points."""
        return (self.left + point[0] * self.pitch, self.top + (self.height - point[1]) * self.pitch)

    @property
    def right(self) -> int:
        return self.left + self.width * self.pitch

    @property
    def bottom(self) -> int:
        return self.top + self.height * self.pitch

    @property
    def board_height(self) -> int:
        return self.bottom + BOTTOM_MARGIN + LEGEND_HEIGHT

    def scaled(self, fraction: float, low: float, high: float) -> float:
        """A size that follows the pitch within bounds."""
        return min(high, max(low, self.pitch * fraction))

    @property
    def label_size(self) -> float:
        return self.scaled(0.7, 10, 13)

    @property
    def base_radius(self) -> float:
        return self.scaled(0.55, 7, 14)

    @property
    def base_gap(self) -> float:
        """From a base's centre to its coordinates: clear of a won base's star."""
        return self.base_radius * STAR_SCALE * 1.1 + 2

    @property
    def dot_radius(self) -> float:
        """A dot that can still be drawn from; used dots are smaller."""
        return self.scaled(0.27, 3.5, 8)

    @property
    def straight_width(self) -> float:
        return self.scaled(0.17, 2.2, 5)

    @property
    def thin_width(self) -> float:
        """Branches and diagonals: their dots may start diagonals, a straight dot not."""
        return self.scaled(0.09, 1.3, 2.6)

    @property
    def last_radius(self) -> float:
        """The diamond under the last line's new dot."""
        return self.scaled(0.55, 7, 16)

    @property
    def halo_width(self) -> float:
        """The last line's and the winning path's band under the lines."""
        return self.scaled(0.5, 7, 16)


@functools.cache
def layout(width: int, height: int) -> Layout:
    """The largest whole-pixel pitch that fits, the grid centred across the picture
    with room beside it for the bases' coordinates."""
    height_room = MAX_SIDE - CAPTION_HEIGHT - TOP_MARGIN - BOTTOM_MARGIN - LEGEND_HEIGHT - 40
    pitch = min(LARGEST_PITCH, GRID_WIDTH_LIMIT // width, height_room // height)
    sized = Layout(width, height, pitch, 0, TOP_MARGIN, 0)
    words = f"{column_label(width)}{max(base_rows(height)) + 1}"
    label = font(round(sized.label_size * SCALE), bold=True).getlength(words) / SCALE
    side = max(SIDE_MARGIN, math.ceil(sized.base_gap + label + 6))
    picture_width = max(MIN_WIDTH, width * pitch + 2 * side)
    left = (picture_width - width * pitch) // 2
    return Layout(width, height, pitch, left, TOP_MARGIN, picture_width)


def state_layout(state: GameState) -> Layout:
    return layout(*dims(state.options["size"]))


def labelled(count: int, room: float, pitch: int, keep: Sequence[int]) -> list[int]:
    """Which of the points 0..count get a label `room` pixels long: all when they fit,
    else `keep` (ends, bases) and then the guide lines, or every other one..., at an
    even step, that stay clear of those."""
    gap = max(1, math.ceil(room / pitch))
    step = next((step for step in LABEL_STEPS if step >= gap), LABEL_STEPS[-1])
    first = 0 if step == 1 else step - 1  # the guides count from 1: e, j, o; 5, 10, 15
    chosen: list[int] = []
    for index in [*keep, *range(first, count + 1, step)]:
        if all(abs(index - other) >= gap for other in chosen):
            chosen.append(index)
    return sorted(chosen)


def is_guide(index: int) -> bool:
    """Every fifth column or row, counted from 1 as the labels count."""
    return (index + 1) % GUIDE_EVERY == 0


def tinted(theme: Mapping[str, str], colour: str, amount: float) -> str:
    """`colour` mixed into the paper, as the encoder's palette mixes it."""
    paper = ImageColor.getrgb(theme["paper"])[:3]
    ink = ImageColor.getrgb(theme.get(colour, colour))[:3]
    mixed = (round(p + (c - p) * amount) for c, p in zip(ink, paper, strict=True))
    return "#{:02X}{:02X}{:02X}".format(*mixed)


class LivewireRenderer(BoardRenderer[LivewireState, LivewireView]):
    game = "livewire"
    state_type = LivewireState
    view_type = LivewireView

    def board_size(self, state: LivewireState) -> tuple[int, int]:
        place = state_layout(state)
        return place.picture_width, place.board_height

    def tap_points(self, state: LivewireState) -> Iterator[tuple[str, Point, float]]:
        place = state_layout(state)
        for row in range(place.height + 1):
            for column in range(place.width + 1):
                yield label((column, row)), place.centre((column, row)), place.pitch / 2

    def seat_styles(self, state: LivewireState) -> list[SeatStyle]:
        return [
            SeatStyle(colour, shape, name)
            for (colour, shape), name in zip(SEATS, NAMES, strict=True)
        ]

    def status_line(
        self, state: LivewireState, view: LivewireView, players: Sequence[str] = ()
    ) -> str:
        outcome = view.outcome
        names = [clean_name(name, 12) for name in players] or list(NAMES)
        if outcome is not None and outcome.reason == End.BASE_REACHED and outcome.path:
            return f"{names[outcome.winners[0]]} wins: reached the base {outcome.path[-1]}"
        if outcome is not None and outcome.reason == End.PASSES:
            return "Draw: neither can move (passes)"
        styles = self.seat_styles(state)
        named = [
            dataclasses.replace(style, name=name)
            for style, name in zip(styles, names, strict=False)
        ]
        return default_status(view, named)

    def text(self, view: LivewireView) -> str:
        """Every point and half-way point: 1 2 dots that can move, a b dots already
        drawn from, A B bases, X the base reached, * dead dots; lines as - | / \\."""
        width, height = 2 * view.width + 1, 2 * view.height + 1
        grid = [[" "] * width for _ in range(height)]
        for column in range(0, width, 2):
            for row in range(0, height, 2):
                grid[height - 1 - row][column] = "."
        for line in view.lines:
            (x0, y0), (x1, y1) = line.start, line.end
            steps = max(abs(x1 - x0), abs(y1 - y0))
            dx, dy = (x1 - x0) // steps, (y1 - y0) // steps
            mark = "-" if dy == 0 else "|" if dx == 0 else "/" if dx == dy else "\\"
            for step in range(steps):
                x, y = 2 * (x0 + step * dx) + dx, 2 * (y0 + step * dy) + dy
                grid[height - 1 - y][x] = mark
        bases = {point for seat in view.bases for point in seat}
        for dot in view.dots:
            if dot.kind == "base":
                mark = "AB"[dot.owner]
            elif dot.point in bases:  # the winner's line landed there (the game is over)
                mark = "X"
            elif not dot.live:
                mark = "*"
            else:
                mark = ("ab" if dot.used else "12")[dot.owner]
            x, y = dot.point
            grid[height - 1 - 2 * y][2 * x] = mark
        lines = []
        for index, chars in enumerate(grid):
            row = (height - 1 - index) // 2 + 1
            label = f"{row:>2} " if index % 2 == 0 else "   "
            lines.append((label + "".join(chars)).rstrip())
        labels = "".join(f"{column_label(c):<4}" for c in range(0, view.width + 1, 2))
        lines.append("   " + labels.rstrip())
        lines.append("1 2 dots that can move · a b used · A B bases · X base reached · * dead")
        return "\n".join(lines)

    # -- the static board ---------------------------------------------------------

    def draw_board(self, canvas: Canvas, state: LivewireState) -> None:
        place = state_layout(state)
        width, height = place.width, place.height
        # The faint lines first, so the guides and the border cross over them.
        for guides in (False, True):
            for column in range(width + 1):
                if (is_guide(column) or column in (0, width)) == guides:
                    x, _ = place.centre((column, 0))
                    canvas.line([(x, place.top), (x, place.bottom)], GRID_COLOURS[guides], 1)
            for row in range(height + 1):
                if (is_guide(row) or row in (0, height)) == guides:
                    _, y = place.centre((0, row))
                    canvas.line([(place.left, y), (place.right, y)], GRID_COLOURS[guides], 1)
        # The home edges in their owners' colours.
        for seat, x in enumerate((place.left, place.right)):
            home = tinted(canvas.theme, SEATS[seat][0], DEAD_TINT)
            canvas.line([(x, place.top), (x, place.bottom)], home, 2)
        self._draw_labels(canvas, place)
        self._draw_legend(canvas, place)

    def _draw_legend(self, canvas: Canvas, place: Layout) -> None:
        """What the marks mean, in Player 1's colour and shape, centred under the board."""
        colour, shape = SEATS[0]
        radius = max(place.dot_radius, 4.5)
        size = 12.0

        def live(at: Point) -> None:
            canvas.marker(shape, at, radius, colour, outline="ink", width=1)

        def branch(at: Point) -> None:
            canvas.marker(shape, at, radius, "ink")
            canvas.marker(shape, at, radius - 1, colour)
            canvas.marker(shape, at, radius * HOLLOW, "paper")

        def used(at: Point) -> None:
            canvas.marker(shape, at, radius * 0.6, colour)

        def dead(at: Point) -> None:
            canvas.marker("cross", at, radius * 0.8, "muted")

        def base(at: Point) -> None:
            canvas.marker(shape, at, radius * 1.4, colour, outline="ink", width=1.5)
            canvas.marker(shape, at, radius * 0.56, "white")

        def last(at: Point) -> None:
            x, y = at
            canvas.line([(x - radius, y), (x + radius, y)], "last", radius)

        entries = (
            (live, "can be drawn from"),
            (branch, "also diagonally"),
            (used, "used"),
            (dead, "dead"),
            (base, "base"),
            (last, "last line"),
        )
        mark, gap = radius * 3.4, 14.0
        widths = [mark + canvas.text_width(words, size) for _, words in entries]
        x = (place.picture_width - sum(widths) - gap * (len(entries) - 1)) / 2
        y = place.bottom + BOTTOM_MARGIN + LEGEND_HEIGHT / 2 - 2
        for (draw, words), width in zip(entries, widths, strict=True):
            draw((x + mark / 2 - 2, y))
            canvas.text((x + mark, y), words, size, "muted", anchor="lm")
            x += width + gap

    def _draw_labels(self, canvas: Canvas, place: Layout) -> None:
        """Columns above and below, rows on both sides; every one that fits, always the
        ends and the guides (in ink); each base's coordinates, bold in its colour."""
        size = place.label_size
        widest = max(canvas.text_width(column_label(c), size) for c in (0, place.width))
        for column in labelled(place.width, widest + 5, place.pitch, (0, place.width)):
            x, _ = place.centre((column, 0))
            guide = is_guide(column) or column in (0, place.width)
            colour = "ink" if guide else "muted"
            canvas.text((x, place.top - size), column_label(column), size, colour)
            canvas.text((x, place.bottom + size), column_label(column), size, colour)
        bases = base_rows(place.height)
        ends = (0, place.height)
        gap = place.base_gap
        for row in labelled(place.height, size + 3, place.pitch, (*ends, *bases)):
            if row in bases:
                continue
            _, y = place.centre((0, row))
            colour = "ink" if is_guide(row) or row in ends else "muted"
            canvas.text((place.left - gap, y), str(row + 1), size, colour, anchor="rm")
            canvas.text((place.right + gap, y), str(row + 1), size, colour, anchor="lm")
        for row in bases:
            _, y = place.centre((0, row))
            sides = ((place.left - gap, "rm", 0), (place.right + gap, "lm", place.width))
            for seat, (x, anchor, column) in enumerate(sides):
                words = f"{column_label(column)}{row + 1}"
                canvas.text((x, y), words, size, SEATS[seat][0], anchor=anchor, bold=True)

    # -- the position -------------------------------------------------------------

    def draw_position(
        self, canvas: Canvas, state: LivewireState, view: LivewireView, extras: Extras
    ) -> None:
        place = layout(view.width, view.height)
        centre = place.centre
        if view.winning_path:
            canvas.line([centre(p) for p in view.winning_path], "win", place.halo_width)
        elif view.last_points:
            canvas.line([centre(p) for p in view.last_points], "last", place.halo_width)
        self._draw_lines(canvas, place, view)
        if view.last_points and not view.winning_path:
            # A diamond under the new dot: the band's colour is not the only cue.
            end = centre(view.last_points[-1])
            canvas.marker("diamond", end, place.last_radius, "last", outline="ink", width=1)
        self._draw_dots(canvas, place, view)
        self._draw_bases(canvas, place, view)

    def _draw_lines(self, canvas: Canvas, place: Layout, view: LivewireView) -> None:
        """Each line in its owner's colour, faded when the dot it made is dead; drawn in
        batches of one style, as a full board has hundreds.

        Every line makes one dot and the view lists both in the order they were made,
        after the bases: the line's dot is the one at the same place in the list."""
        made = view.dots[sum(len(bases) for bases in view.bases) :]
        # The winning line's own dot dies on the base it lands on: that line stays bright.
        winning_line = len(view.lines) - 1 if view.winning_path else -1
        pitch, left, bottom = place.pitch, place.left, place.bottom
        batches: dict[tuple[int, bool, bool], list[tuple[Point, Point]]] = {}
        for number, (line, dot) in enumerate(zip(view.lines, made, strict=True)):
            (x0, y0), (x1, y1) = line.start, line.end
            ends = (
                (left + x0 * pitch, bottom - y0 * pitch),
                (left + x1 * pitch, bottom - y1 * pitch),
            )
            style = (line.owner, dot.live or number == winning_line, line.kind == "straight")
            batches.setdefault(style, []).append(ends)
        # Faded lines first, so the living trees cross over them.
        for (owner, bright, thick), pairs in sorted(batches.items(), key=lambda item: item[0][1]):
            colour = SEATS[owner][0]
            if not bright:
                colour = tinted(canvas.theme, colour, DEAD_TINT)
            canvas.segments(pairs, colour, place.straight_width if thick else place.thin_width)

    def _draw_dots(self, canvas: Canvas, place: Layout, view: LivewireView) -> None:
        """Dead dots as grey crosses (one where a landing left two), used dots small,
        dots that can still be drawn from large: solid for a straight dot, hollow for a
        branch or diagonal dot, which may also start a diagonal."""
        pitch, left, bottom = place.pitch, place.left, place.bottom
        dead: dict[GridPoint, Point] = {}
        used: tuple[list[Point], list[Point]] = ([], [])
        solid: tuple[list[Point], list[Point]] = ([], [])
        hollow: tuple[list[Point], list[Point]] = ([], [])
        for dot in view.dots:
            if dot.kind == "base":
                continue
            x, y = dot.point
            at = (left + x * pitch, bottom - y * pitch)
            if not dot.live:
                dead[dot.point] = at
            elif dot.used:
                used[dot.owner].append(at)
            elif dot.kind == "straight":
                solid[dot.owner].append(at)
            else:
                hollow[dot.owner].append(at)
        canvas.markers("cross", dead.values(), place.dot_radius * 0.8, "muted")
        for seat, (colour, shape) in enumerate(SEATS):
            radius = place.dot_radius * (SQUARE_SCALE if shape == "square" else 1)
            canvas.markers(shape, used[seat], radius * 0.6, colour)
            canvas.markers(shape, solid[seat], radius, colour, outline="ink", width=1)
            canvas.markers(shape, hollow[seat], radius, "ink")
            canvas.markers(shape, hollow[seat], radius - 1, colour)
            canvas.markers(shape, hollow[seat], radius * HOLLOW, "paper")

    def _draw_bases(self, canvas: Canvas, place: Layout, view: LivewireView) -> None:
        landed = view.winning_path[-1] if view.winning_path else None
        star = place.base_radius * STAR_SCALE
        for seat, points in enumerate(view.bases):
            colour, shape = SEATS[seat]
            radius = place.base_radius * (SQUARE_SCALE if shape == "square" else 1)
            for point in points:
                at = place.centre(point)
                if point == landed:
                    canvas.marker("star", at, star, "win", outline="ink", width=1)
                canvas.marker(shape, at, radius, colour, outline="ink", width=1.5)
                canvas.marker(shape, at, radius * 0.4, "white")


register(LivewireRenderer(), gallery={})
