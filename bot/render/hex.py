"""Hex and Disthex: the rhombus, its edges in the owners' colours, the stones.

Rows run top to bottom and each row sits half a cell right of the one above,
as in the rules; pointy-top hexagons. Black's edges (top, bottom) are drawn
as dark bands, White's (left, right) as white bands with an ink outline.
Disthex marks the cells forbidden to the player to move with a faint cross.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

from bot.render.board import BoardRenderer, Extras, register
from bot.render.canvas import Canvas
from bot.render.theme import Marker, Point, SeatStyle
from engine.hex import BLACK, COLOUR_NAMES, HexState, HexView
from engine.notation import column_label, label

MARGIN = 44
LONGEST = 760
STONE: dict[int, tuple[str, Marker]] = {BLACK: ("black", "circle"), 1: ("white", "circle")}
LAST_FRAME_MIN = 3.0  # logical pixels: the last move's frame and diamond at 19x19
LAST_DIAMOND_MIN = 6.0


class HexRenderer(BoardRenderer[HexState, HexView]):
    state_type = HexState  # Disthex's state is a HexState
    view_type = HexView

    def __init__(self, game: str) -> None:
        self.game = game

    # -- geometry -----------------------------------------------------------------

    def _radius(self, size: int) -> float:
        """Hexagon circumradius that fits the rhombus (1.5n - 0.5 cell widths) in LONGEST."""
        width_in_cells = 1.5 * size + 2.5  # the skewed rhombus plus edge bands and labels
        return (LONGEST - 2 * MARGIN) / (width_in_cells * math.sqrt(3))

    def _centre(self, size: int, column: float, row: float) -> Point:
        radius = self._radius(size)
        width = math.sqrt(3) * radius
        return (MARGIN + width * (column + row / 2 + 2.0), MARGIN + radius * (2.5 + 1.5 * row))

    def board_size(self, state: HexState) -> tuple[int, int]:
        size = state.size
        radius = self._radius(size)
        height = 2 * MARGIN + radius * (5 + 1.5 * (size - 1))
        return LONGEST, math.ceil(height)

    def tap_points(self, state: HexState) -> Iterator[tuple[str, Point, float]]:
        size = state.size
        inner = self._radius(size) * math.sqrt(3) / 2  # the hexagon's inscribed circle
        for row in range(size):
            for column in range(size):
                yield label((column, row)), self._centre(size, column, row), inner

    # -- drawing ------------------------------------------------------------------

    def draw_board(self, canvas: Canvas, state: HexState) -> None:
        size = state.size
        radius = self._radius(size)
        self._draw_edges(canvas, size)
        for row in range(size):
            for column in range(size):
                canvas.polygon(
                    _hexagon(self._centre(size, column, row), radius * 1.0),
                    "faint",
                    outline="grid",
                    width=1,
                )
        label_size = max(9.0, min(15.0, radius * 0.7))
        for column in range(size):
            canvas.text(
                self._centre(size, column + 0.55, -1.55), column_label(column), label_size, "muted"
            )
            canvas.text(
                self._centre(size, column - 0.55, size + 0.55),
                column_label(column),
                label_size,
                "muted",
            )
        for row in range(size):
            canvas.text(self._centre(size, -1.5, row), str(row + 1), label_size, "muted")
            canvas.text(self._centre(size, size + 0.5, row), str(row + 1), label_size, "muted")

    def _draw_edges(self, canvas: Canvas, size: int) -> None:
        """Four triangles from the centre, so only a band of each shows around the cells:
        Black's on top and bottom, White's on the sides, split at the corners."""
        low, high, middle = -1.0, size, (size - 1) / 2
        corners = [(low, low), (high, low), (high, high), (low, high)]
        centre = self._centre(size, middle, middle)
        owners = ["black", "white", "black", "white"]  # top, right, bottom, left
        for side, fill in enumerate(owners):
            a, b = corners[side], corners[(side + 1) % 4]
            triangle = [centre, self._centre(size, *a), self._centre(size, *b)]
            canvas.polygon(triangle, fill, outline="ink" if fill == "white" else None, width=2.5)
        inner = [
            (low + 0.45, low + 0.45),
            (high - 0.45, low + 0.45),
            (high - 0.45, high - 0.45),
            (low + 0.45, high - 0.45),
        ]
        canvas.polygon([self._centre(size, *corner) for corner in inner], "paper")

    def draw_position(self, canvas: Canvas, state: HexState, view: HexView, extras: Extras) -> None:
        size = view.size
        radius = self._radius(size)
        for column, row in () if extras.bare else view.forbidden:
            x, y = self._centre(size, column, row)
            arm = radius * 0.28
            canvas.line([(x - arm, y - arm), (x + arm, y + arm)], "muted", 1.6)
            canvas.line([(x - arm, y + arm), (x + arm, y - arm)], "muted", 1.6)
        if len(view.chain) > 1:
            path = [self._centre(size, *point) for point in view.chain]
            canvas.line(path, "win", radius * 0.5)
        for (column, row), colour in view.stones:
            fill, _ = STONE[colour]
            canvas.marker(
                "circle",
                self._centre(size, column, row),
                radius * 0.72,
                fill,
                outline="ink",
                width=1.4,
            )
        for point in view.chain:
            canvas.marker("ring", self._centre(size, *point), radius * 0.3, "win")
        if view.last_point is not None:
            # a frame round the cell and a diamond on the stone, both large enough to
            # find at a glance on the biggest boards
            centre = self._centre(size, *view.last_point)
            colour = dict(view.stones).get(view.last_point, BLACK)
            frame = max(LAST_FRAME_MIN, radius * 0.18)
            canvas.polygon(_hexagon(centre, radius - frame / 2), None, outline="last", width=frame)
            canvas.marker(
                "diamond",
                centre,
                max(LAST_DIAMOND_MIN, radius * 0.3),
                "last",
                outline="white" if colour == BLACK else "ink",
                width=1,
            )

    def seat_styles(self, state: HexState) -> list[SeatStyle]:
        styles = []
        for seat in range(2):
            colour = state.colour_of(seat)
            fill, marker = STONE[colour]
            styles.append(SeatStyle(fill, marker, COLOUR_NAMES[colour]))
        return styles

    def text(self, view: HexView) -> str:
        """Rows shifted right as on the board; X Black, O White, the last stone in
        brackets, ~ the cells Disthex forbids the player to move."""
        size = view.size
        stones = dict(view.stones)
        forbidden = set(view.forbidden)
        header = ("   " + "".join(f" {column_label(c)} " for c in range(size))).rstrip()
        lines = [header]
        for row in range(size):
            cells = []
            for column in range(size):
                point = (column, row)
                mark = (
                    "XO"[stones[point]] if point in stones else "~" if point in forbidden else "."
                )
                cells.append(f"[{mark}]" if point == view.last_point else f" {mark} ")
            lines.append(f"{row + 1:>2} " + " " * row + "".join(cells).rstrip())
        return "\n".join(lines)


def _hexagon(centre: Point, radius: float) -> list[Point]:
    x, y = centre
    return [
        (
            x + radius * math.cos(math.radians(90 + 60 * i)),
            y + radius * math.sin(math.radians(90 + 60 * i)),
        )
        for i in range(6)
    ]


register(HexRenderer("hex"), gallery={})
register(HexRenderer("disthex"), gallery={})
