"""Making Intersections: the array of dots, this round's segments, a score panel.

The dots sit on a square grid with a1 bottom-left, rows upward, as in the
rules. Each segment is a thick line in its drawer's colour with the drawer's
marker on one unit edge near its middle (never on a dot), so colour is never
the only cue. Segments stop just short of the dots they end at: where two
segments meet end to end the gap shows, and a line running on through a dot
is one that passes through it. Dots of degree 3 or 4 (the offense's points)
get a "win" ring with the degree; other used dots show their degree small.

The panel on the right holds the round, its offense and the running scores;
just after a round ends the array still shows that round with what it scored,
and at the end the final totals with the winners highlighted.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import lru_cache

from bot.render.board import BoardRenderer, Extras, register
from bot.render.canvas import Canvas
from bot.render.fonts import clean_name, fit_text
from bot.render.theme import Marker, Point, SeatStyle
from engine.intersections import (
    DrawnSegment,
    IntersectionsState,
    IntersectionsView,
    RoundResult,
)
from engine.notation import column_label, label

WIDTH = 760
MARGIN = 62  # board edge to the outer dots: room for the labels and the scoring rings
SPAN = 416  # from the first dot to the last, whatever the size
BOARD_HEIGHT = 2 * MARGIN + SPAN
LABEL_OFFSET = 32
PANEL = (540.0, 22.0, 744.0, BOARD_HEIGHT - 22.0)  # left, top, right, bottom
SCORES_TOP = PANEL[1] + 130  # the round's words above, the scores below
NAME_SIZE = 14
NAME_WIDTH = 96  # a name fits beside its marker and the score in the panel
#: The box that tells what a finished round scored, at the top of the panel.
RESULT_BOX = (PANEL[0] + 8, PANEL[1] + 8, PANEL[2] - 8, PANEL[1] + 60)

#: Okabe-Ito colours and a distinct marker per seat, in seat order.
SEAT_LOOKS: tuple[tuple[str, Marker], ...] = (
    ("vermillion", "circle"),
    ("blue", "square"),
    ("green", "triangle"),
    ("orange", "diamond"),
    ("purple", "hexagon"),
    ("sky", "ring"),
    ("yellow", "star"),
    ("black", "cross"),
)
#: Colours too pale to stand on paper without an ink outline.
PALE = frozenset({"yellow"})


# -- geometry (the tests compute where things are drawn with these) ---------------


def pitch(size: int) -> float:
    """Distance between neighbouring dots."""
    return SPAN / (size - 1)


def dot_centre(size: int, dot: Point) -> Point:
    """Where dot (column, row) is drawn; row 0 at the bottom."""
    column, row = dot
    step = pitch(size)
    return (MARGIN + column * step, MARGIN + (size - 1 - row) * step)


def marker_point(size: int, start: Point, end: Point) -> Point:
    """The centre of the unit edge at (or just before) the segment's middle.

    An even-length segment's middle is a dot, where degrees are shown, so the
    seat marker moves half a unit back towards the start.
    """
    (x0, y0), (x1, y1) = start, end
    length = abs(x1 - x0) + abs(y1 - y0)
    along = (length - 1) // 2 + 0.5
    dx, dy = (x1 > x0) - (x1 < x0), (y1 > y0) - (y1 < y0)
    return dot_centre(size, (x0 + dx * along, y0 + dy * along))


def score_row_box(players: int, seat: int) -> tuple[float, float, float, float]:
    """The panel row of a seat's score (highlighted for the offense and the winners)."""
    left, _, right, _ = PANEL
    height = 25.0 if players > 6 else 28.0
    top = SCORES_TOP + 32 + seat * height
    return (left + 8, top + 1, right - 8, top + height - 1)


def line_width(size: int) -> float:
    return min(7.0, max(3.5, pitch(size) * 0.075))


def dot_radius(size: int) -> float:
    return min(4.5, max(2.5, pitch(size) * 0.05))


def seat_marker_radius(size: int) -> float:
    return min(10.0, max(6.0, pitch(size) * 0.12))


def scoring_radius(size: int) -> float:
    return min(15.0, max(8.5, pitch(size) * 0.19))


class IntersectionsRenderer(BoardRenderer[IntersectionsState, IntersectionsView]):
    game = "intersections"
    state_type = IntersectionsState
    view_type = IntersectionsView

    def board_size(self, state: IntersectionsState) -> tuple[int, int]:
        return WIDTH, BOARD_HEIGHT

    def tap_points(self, state: IntersectionsState) -> Iterator[tuple[str, Point, float]]:
        size = int(state.options["size"])
        for row in range(size):
            for column in range(size):
                yield label((column, row)), dot_centre(size, (column, row)), pitch(size) / 2

    def seat_styles(self, state: IntersectionsState) -> list[SeatStyle]:
        return [
            SeatStyle(colour, marker, state.info.seat_name(seat))
            for seat, (colour, marker) in zip(range(state.players), SEAT_LOOKS, strict=False)
        ]

    def text(self, view: IntersectionsView) -> str:
        """Dots as their degree (. for none), segments as --- and |; the round that
        just ended while the next is still empty; then round, offense and scores."""
        shown = view.finished_round if not view.segments and view.finished_round else None
        segments = shown.segments if shown else view.segments
        degrees = dict(shown.degrees if shown else view.degrees)
        size = view.size
        grid = [[" "] * (4 * size) for _ in range(2 * size - 1)]
        for segment in segments:
            (x0, y0), (x1, y1) = segment.start, segment.end
            if y0 == y1:
                for x in range(4 * x0, 4 * x1):
                    grid[2 * (size - 1 - y0)][x] = "-"
            else:
                for y in range(2 * (size - 1 - y1), 2 * (size - 1 - y0)):
                    grid[y][4 * x0] = "|"
        for column in range(size):
            for row in range(size):
                degree = degrees.get((column, row), 0)
                grid[2 * (size - 1 - row)][4 * column] = str(degree) if degree else "."
        lines = []
        for index, chars in enumerate(grid):
            label = f"{size - index // 2:>2} " if index % 2 == 0 else "   "
            lines.append((label + "".join(chars)).rstrip())
        lines.append("   " + "".join(f"{column_label(c):<4}" for c in range(size)).rstrip())
        if shown is not None:
            lines.append(
                f"Round {shown.round} scored {shown.points} for Player {shown.offense + 1}."
            )
        scores = ", ".join(f"P{seat + 1} {score}" for seat, score in enumerate(view.scores))
        lines.append(
            f"Round {view.round} of {view.rounds} · dots of degree 3 or 4 score · {scores}"
        )
        return "\n".join(lines)

    def status_line(
        self, state: IntersectionsState, view: IntersectionsView, players: Sequence[str] = ()
    ) -> str:
        names = [clean_name(name, 12) for name in players] or [
            style.name for style in self.seat_styles(state)
        ]
        outcome = view.outcome
        if outcome is None:
            mover = names[view.to_move] if view.to_move is not None else ""
            return f"{mover} to move · round {view.round}/{view.rounds}"
        best = max(view.scores)
        if len(outcome.winners) == 1:
            return f"{names[outcome.winners[0]]} wins with {best}"
        if len(outcome.winners) == 2:
            first, second = (names[seat] for seat in outcome.winners)
            return f"{first} & {second} share the win ({best})"
        return f"{len(outcome.winners)} players share the win ({best})"

    # -- the static board ---------------------------------------------------------

    def draw_board(self, canvas: Canvas, state: IntersectionsState) -> None:
        size = int(state.options["size"])
        radius = dot_radius(size)
        label_size = 15.0 if size <= 8 else 13.0
        first, last = MARGIN - LABEL_OFFSET, MARGIN + SPAN + LABEL_OFFSET
        for index in range(size):
            x, _ = dot_centre(size, (index, 0))
            _, y = dot_centre(size, (0, index))
            canvas.text((x, first), column_label(index), label_size, "muted")
            canvas.text((x, last), column_label(index), label_size, "muted")
            canvas.text((first, y), str(index + 1), label_size, "muted")
            canvas.text((last, y), str(index + 1), label_size, "muted")
        for column in range(size):
            for row in range(size):
                canvas.disc(dot_centre(size, (column, row)), radius, "grid")
        left, _, right, bottom = PANEL
        canvas.rectangle(PANEL, "caption", outline="paper_edge", width=1, radius=10)
        # The legend: what the scoring ring and the last-move halo mean.
        ring_y, last_y = bottom - 46, bottom - 20
        _scoring_ring(canvas, (left + 22, ring_y), 9.5, 3, 11)
        canvas.text((left + 38, ring_y), "degree 3–4: offense scores", 12, "muted", anchor="lm")
        canvas.line([(left + 12, last_y), (left + 32, last_y)], "last", 8)
        canvas.line([(left + 12, last_y), (left + 32, last_y)], "ink", 2)
        canvas.text((left + 38, last_y), "last move", 12, "muted", anchor="lm")
        canvas.line([(left + 12, bottom - 64), (right - 12, bottom - 64)], "paper_edge", 1)

    # -- the position ---------------------------------------------------------------

    def draw_position(
        self, canvas: Canvas, state: IntersectionsState, view: IntersectionsView, extras: Extras
    ) -> None:
        shown = view.finished_round
        if view.segments or shown is None:
            segments, degrees, scoring = view.segments, view.degrees, view.scoring_dots
        else:
            segments, degrees, scoring = shown.segments, shown.degrees, shown.scoring_dots
        styles = self.seat_styles(state)
        size = view.size
        last = next((s for s in segments if s.text == view.last_move), None)
        for segment in segments:
            if segment is not last:
                self._draw_segment(canvas, size, segment, styles[segment.seat])
        if last is not None:  # on top, so a T-junction never hides its halo
            if not extras.bare:
                self._draw_halo(canvas, size, last)
            self._draw_segment(canvas, size, last, styles[last.seat], highlight=True)
        self._draw_degrees(canvas, size, degrees, frozenset(scoring))
        if not extras.bare:
            self._draw_panel(canvas, view, styles, extras, len(segments))

    def _ends(self, size: int, segment: DrawnSegment) -> tuple[Point, Point]:
        """The segment's line, stopped short of its end dots so ends show as gaps."""
        (x0, y0), (x1, y1) = dot_centre(size, segment.start), dot_centre(size, segment.end)
        gap = dot_radius(size) + line_width(size) / 2 + 2
        dx = (x1 > x0) - (x1 < x0)
        dy = (y1 > y0) - (y1 < y0)
        return (x0 + dx * gap, y0 + dy * gap), (x1 - dx * gap, y1 - dy * gap)

    def _draw_halo(self, canvas: Canvas, size: int, segment: DrawnSegment) -> None:
        ends = self._ends(size, segment)
        width = line_width(size)
        canvas.line(ends, "ink", width + 10)
        canvas.line(ends, "last", width + 7)

    def _draw_segment(
        self,
        canvas: Canvas,
        size: int,
        segment: DrawnSegment,
        style: SeatStyle,
        *,
        highlight: bool = False,
    ) -> None:
        ends = self._ends(size, segment)
        width = line_width(size)
        if style.colour in PALE:
            canvas.line(ends, "ink", width + 2)
        canvas.line(ends, style.colour, width)
        centre = marker_point(size, segment.start, segment.end)
        radius = seat_marker_radius(size)
        if highlight:
            canvas.marker("circle", centre, radius + 5, "last", outline="ink", width=1.5)
        _seat_marker(canvas, style, centre, radius)

    def _draw_degrees(
        self,
        canvas: Canvas,
        size: int,
        degrees: Sequence[tuple[Point, int]],
        scoring: frozenset[Point],
    ) -> None:
        radius = dot_radius(size)
        ring = scoring_radius(size)
        step = pitch(size)
        # Small degrees sit diagonally off the dot: segments run only along
        # rows and columns, so that corner of the cell is always clear.
        small = min(12.0, max(9.0, step * 0.14))
        offset = min(step * 0.2, 15.0)
        for dot, degree in degrees:
            centre = dot_centre(size, dot)
            if dot in scoring:
                _scoring_ring(canvas, centre, ring, degree, ring * 1.15)
            else:
                canvas.disc(centre, radius, "ink")
                canvas.text((centre[0] + offset, centre[1] - offset), str(degree), small, "muted")

    # -- the panel ------------------------------------------------------------------

    def _draw_panel(
        self,
        canvas: Canvas,
        view: IntersectionsView,
        styles: Sequence[SeatStyle],
        extras: Extras,
        drawn: int,
    ) -> None:
        left, _, right, _ = PANEL
        players = extras.players or ()
        names = [
            _fitted(players[seat] if seat < len(players) else style.name)
            for seat, style in enumerate(styles)
        ]
        if view.finished_round is not None:
            self._draw_result(canvas, view, view.finished_round, styles, names)
        else:
            self._draw_round(canvas, view, styles, names, drawn)
        x = left + 14
        canvas.line([(left + 12, SCORES_TOP), (right - 12, SCORES_TOP)], "paper_edge", 1)
        heading = "Final totals" if view.outcome is not None else "Scores"
        canvas.text((x, SCORES_TOP + 18), heading, 14, "muted", anchor="lm", bold=True)
        winners = frozenset(view.outcome.winners) if view.outcome is not None else frozenset()
        for seat, style in enumerate(styles):
            box = score_row_box(len(styles), seat)
            y = (box[1] + box[3]) / 2
            if seat in winners:
                canvas.rectangle(box, "win", outline="ink", width=1, radius=6)
            elif seat == view.offense:
                canvas.rectangle(box, "paper", outline="ink", width=1, radius=6)
            # Seat numbers: the offense turns in seat order, and the caption says "Player 6".
            number_colour = "ink" if seat in winners else "muted"
            canvas.text((x + 4, y), str(seat + 1), 12, number_colour, anchor="mm")
            _name_chip(canvas, style, names[seat], (x + 14, y))
            score = str(view.scores[seat])
            if seat in winners:
                score = f"★ {score}"
            canvas.text((right - 16, y), score, 15, anchor="rm", bold=True)

    def _draw_round(
        self,
        canvas: Canvas,
        view: IntersectionsView,
        styles: Sequence[SeatStyle],
        names: Sequence[str],
        drawn: int,
    ) -> None:
        """The round in play: its number, offense, whose turn, how far along."""
        left, top, _, _ = PANEL
        x, y = left + 14, top + 22
        canvas.text((x, y), f"Round {view.round} of {view.rounds}", 17, anchor="lm", bold=True)
        for words, seat, line_y in (
            ("offense", view.offense, y + 28),
            ("to move", view.to_move, y + 52),
        ):
            if seat is not None:
                canvas.text((x, line_y), words, 13, "muted", anchor="lm")
                _name_chip(canvas, styles[seat], names[seat], (x + 62, line_y))
        words = f"{drawn} of {view.segments_per_round} segments drawn"
        canvas.text((x, y + 76), words, 13, "muted", anchor="lm")

    def _draw_result(
        self,
        canvas: Canvas,
        view: IntersectionsView,
        result: RoundResult,
        styles: Sequence[SeatStyle],
        names: Sequence[str],
    ) -> None:
        """The round that just ended (or the last one): what its offense scored."""
        left, top, right, _ = PANEL
        x, y = left + 14, top + 22
        canvas.rectangle(RESULT_BOX, "paper", outline="win", width=2.5, radius=8)
        points = "point" if result.points == 1 else "points"
        words = f"Round {result.round} of {view.rounds}: {result.points} {points}"
        # Long games ("Round 100 of 120: 11 points") step down a size to stay in the box.
        words_size = 14 if canvas.text_width(words, 14, bold=True) <= right - x - 12 else 12
        canvas.text((x, y), words, words_size, anchor="lm", bold=True)
        canvas.text((x, y + 24), "for", 14, anchor="lm")
        _name_chip(canvas, styles[result.offense], names[result.offense], (x + 28, y + 24))
        if view.outcome is not None:
            words = f"Game over after {view.rounds} rounds"
            canvas.text((x, y + 62), words, 13, "muted", anchor="lm")
        elif view.offense is not None:
            words = f"Next: round {view.round} of {view.rounds}"
            canvas.text((x, y + 62), words, 13, "muted", anchor="lm")
            canvas.text((x, y + 84), "offense", 13, "muted", anchor="lm")
            _name_chip(canvas, styles[view.offense], names[view.offense], (x + 62, y + 84))


def _seat_marker(canvas: Canvas, style: SeatStyle, centre: Point, radius: float) -> None:
    if style.marker == "cross":
        # A cross has no outline of its own: a paper backing keeps it off the line.
        canvas.disc(centre, radius * 1.05, "paper")
        canvas.marker("cross", centre, radius * 0.95, style.colour)
    else:
        # The canvas's square is small beside its circle; even them out.
        scale = 1.25 if style.marker == "square" else 1.0
        canvas.marker(style.marker, centre, radius * scale, style.colour, outline="ink", width=1.2)


@lru_cache(maxsize=1024)
def _fitted(name: str) -> str:
    """The name, shortened with an ellipsis until it fits NAME_WIDTH in the panel."""
    return fit_text(clean_name(name, 16), NAME_SIZE, NAME_WIDTH)


def _name_chip(canvas: Canvas, style: SeatStyle, name: str, at: Point) -> None:
    """A seat's marker followed by its name, vertically centred on `at`."""
    x, y = at
    _seat_marker(canvas, style, (x + 7, y), 7)
    canvas.text((x + 19, y), name, NAME_SIZE, anchor="lm")


def _scoring_ring(canvas: Canvas, centre: Point, radius: float, degree: int, size: float) -> None:
    canvas.marker("circle", centre, radius, "win", outline="ink", width=1.5)
    canvas.text((centre[0], centre[1] + 0.5), str(degree), size, bold=True)


register(IntersectionsRenderer(), gallery={"players": 3})
