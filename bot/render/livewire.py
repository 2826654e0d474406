"""Livewire: the grid of dots, both players' bases, their lines and dots.

A dot that can still move is a solid mark in its player's colour (Player 1 circles,
Player 2 squares); a live dot already drawn from is hollow; a dead dot is a grey
cross. Straight lines are thick, branches thin, diagonals in between. The grid is
faint with a guide line every five squares, so any coordinate reads off the edges.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache

from bot.render.kit import BoardRenderer, Canvas, Extras, Marker, Point, SeatStyle
from engine import GameState, View
from engine.core import dims
from engine.livewire import LivewireView
from engine.notation import column_label

WIDTH = 760
MARGIN = 34  # room for the labels
COLOURS = ("blue", "vermillion")
SHAPES: tuple[Marker, Marker] = ("circle", "square")
LINE_WIDTHS = {"straight": 0.2, "diagonal": 0.15, "branch": 0.1}  # of a square
GUIDE = 5  # a stronger grid line every five squares


@dataclass(frozen=True, slots=True)
class Layout:
    """Where grid points land: (0, 0) is a1, bottom-left."""

    columns: int  # squares
    rows: int
    pitch: float

    def at(self, point: tuple[float, float]) -> Point:
        column, row = point
        return (MARGIN + column * self.pitch, MARGIN + (self.rows - row) * self.pitch)

    @property
    def height(self) -> int:
        return math.ceil(2 * MARGIN + self.rows * self.pitch)


@cache
def layout(columns: int, rows: int) -> Layout:
    pitch = (WIDTH - 2 * MARGIN) / columns
    return Layout(columns, rows, min(pitch, (1024 - 2 * MARGIN - 90) / rows))


def _layout(state: GameState) -> Layout:
    return layout(*dims(state.options["size"]))


class LivewireRenderer(BoardRenderer):
    game = "livewire"

    def board_size(self, state: GameState) -> tuple[int, int]:
        return WIDTH, _layout(state).height

    def draw_board(self, canvas: Canvas, state: GameState) -> None:
        grid = _layout(state)
        view = state.view()
        assert isinstance(view, LivewireView)
        for column in range(grid.columns + 1):
            strong = column % GUIDE == 0 or column == grid.columns
            top, bottom = grid.at((column, grid.rows)), grid.at((column, 0))
            canvas.line([top, bottom], "grid" if strong else "faint", 1.0 if strong else 0.8)
        for row in range(grid.rows + 1):
            strong = row % GUIDE == 0 or row == grid.rows
            left, right = grid.at((0, row)), grid.at((grid.columns, row))
            canvas.line([left, right], "grid" if strong else "faint", 1.0 if strong else 0.8)
        base_rows = {point[1] for points in view.bases for point in points}
        size = min(12.0, max(8.0, grid.pitch * 0.62))
        for column in range(grid.columns + 1):
            if column % GUIDE == 0 or column == grid.columns:
                x, _ = grid.at((column, 0))
                canvas.text((x, MARGIN / 2), column_label(column), size, "muted")
                canvas.text((x, grid.height - MARGIN / 2), column_label(column), size, "muted")
        for row in range(grid.rows + 1):
            if row % GUIDE == GUIDE - 1 or row == 0 or row in base_rows:
                _, y = grid.at((0, row))
                colour = "ink" if row in base_rows else "muted"
                canvas.text((MARGIN / 2, y), str(row + 1), size, colour, bold=row in base_rows)
                canvas.text(
                    (WIDTH - MARGIN / 2, y), str(row + 1), size, colour, bold=row in base_rows
                )
        for seat, points in enumerate(view.bases):
            # a square looks smaller than a circle of the same radius: give it more
            radius = max(5.0, grid.pitch * 0.46) * (1.25 if SHAPES[seat] == "square" else 1.0)
            for point in points:
                centre = grid.at(point)
                canvas.marker(SHAPES[seat], centre, radius, COLOURS[seat], outline="ink", width=1.2)
                canvas.marker(SHAPES[seat], centre, radius * 0.32, "white")

    def draw_position(self, canvas: Canvas, state: GameState, view: View, extras: Extras) -> None:
        assert isinstance(view, LivewireView)
        grid = _layout(state)
        pitch = grid.pitch
        if len(view.winning_path) > 1:
            canvas.line([grid.at(p) for p in view.winning_path], "win", pitch * 0.45)
        if view.last_points:
            canvas.line([grid.at(p) for p in view.last_points], "last", pitch * 0.38)
        # point -> pixel inlined: a finished board has several hundred lines and dots
        left, bottom = MARGIN, MARGIN + grid.rows * pitch
        by_style: dict[tuple[int, str], list[tuple[Point, Point]]] = {}
        for (x0, y0), (x1, y1), owner, kind in view.lines:
            pair = (
                (left + x0 * pitch, bottom - y0 * pitch),
                (left + x1 * pitch, bottom - y1 * pitch),
            )
            by_style.setdefault((owner, kind), []).append(pair)
        for (owner, kind), pairs in by_style.items():
            canvas.segments(pairs, COLOURS[owner], max(1.0, pitch * LINE_WIDTHS[kind]))
        radius = max(2.2, pitch * 0.2)
        dead: dict[tuple[int, int], Point] = {}  # a landed-on point holds two dead dots: one cross
        alive: dict[tuple[int, bool, float], list[Point]] = {}
        for dot in view.dots:
            if dot.kind == "base":
                continue
            x, y = dot.point
            centre = (left + x * pitch, bottom - y * pitch)
            if not dot.live:
                dead[dot.point] = centre
            else:
                size = radius * (1.0 if dot.kind == "straight" else 0.82)
                alive.setdefault((dot.owner, dot.used, size), []).append(centre)
        canvas.markers("cross", dead.values(), radius * 0.85, "muted")
        for (owner, used, size), centres in alive.items():
            shape, colour = SHAPES[owner], COLOURS[owner]
            if used:
                canvas.markers(shape, centres, size, "paper", outline=colour, width=1.2)
            else:
                canvas.markers(shape, centres, size, colour, outline="ink", width=0.8)
        if view.last_points:
            canvas.marker(
                "ring", grid.at(view.last_points[-1]), radius * 1.9, "paper", outline="last"
            )

    def seat_styles(self, state: GameState) -> list[SeatStyle]:
        return [
            SeatStyle(COLOURS[seat], SHAPES[seat], state.info.seat_name(seat)) for seat in range(2)
        ]

    def text(self, state: GameState) -> str:
        """Every point and half-way point: 1 2 dots that can move, a b dots already
        drawn from, A B bases, * dead dots; lines as - | / \\."""
        view = state.view()
        assert isinstance(view, LivewireView)
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
        for dot in view.dots:
            if dot.kind == "base":
                mark = "AB"[dot.owner]
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
        lines.append("1 2 dots that can move · a b used · A B bases · * dead")
        return "\n".join(lines)
