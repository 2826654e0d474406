"""Short Circuit's picture: size, and pixel probes at the computed places of pieces,
capacitors, labels, the last turn and the winning loop."""

from __future__ import annotations

import io
import random
from collections.abc import Iterable

import pytest
from PIL import Image, ImageColor

import engine
from bot.render import RENDERERS, render_png
from bot.render.shortcircuit import (
    BADGE_ALONE,
    BADGE_SHARED,
    FRAME_RADIUS,
    GHOST_RADIUS,
    HALO_RADIUS,
    Layout,
    board_text,
    layout,
)
from bot.render.theme import DEFAULT_THEME, MAX_SIDE
from engine import GameState
from engine.notation import column_label, point
from engine.shortcircuit import ShortCircuitState, ShortCircuitView
from tests.conftest import game

RGB = tuple[int, int, int]
Cell = tuple[int, int]

#: Player 1 closes the ring d4 c4 b3 b2 c2 d3 around c3 (side 5) with y d3.
LOOP_GAME = ["b e5", "r d4", "y c4", "g f5", "r b3", "b g5", "y b2", "g h5", "r c2", "b i5", "y d3"]
#: Side 3: Player 2 pops d3 (Player 1's yellow) with the capacitor on c3, then places b2.
POP_GAME = ["g c3", "r d4", "y d3", "cap c3", "cap d3", "pop c3 d3", "b b2"]
DISC_EDGE = 0.66  # just past Player 1's disc and its outline, in circumradii
FILL = {"red": "vermillion", "yellow": "yellow", "blue": "blue", "green": "green"}


def play(moves: Iterable[str], **options: int) -> GameState:
    return game(ShortCircuitState, *moves, **options)


def picture(state: GameState) -> Image.Image:
    return Image.open(io.BytesIO(render_png(state, players=["ann", "bob"]))).convert("RGB")


def colour(key: str) -> RGB:
    red, green, blue = ImageColor.getrgb(DEFAULT_THEME[key])[:3]
    return red, green, blue


def near(image: Image.Image, where: tuple[float, float], key: str, reach: int = 1) -> bool:
    """Some pixel within `reach` of `where` has the theme colour `key` (give or take a little)."""
    want = colour(key)
    x, y = round(where[0]), round(where[1])
    for dx in range(-reach, reach + 1):
        for dy in range(-reach, reach + 1):
            pixel = image.getpixel((x + dx, y + dy))
            assert isinstance(pixel, tuple)
            if all(abs(a - b) <= 6 for a, b in zip(pixel, want, strict=True)):
                return True
    return False


def view_of(state: GameState) -> ShortCircuitView:
    view = state.view()
    assert isinstance(view, ShortCircuitView)
    return view


def offset(grid: Layout, cell: Cell, dx: float, dy: float) -> tuple[float, float]:
    """A point `dx`, `dy` circumradii from a cell's centre."""
    x, y = grid.centre(*cell)
    return x + dx * grid.radius, y + dy * grid.radius


# -- geometry -------------------------------------------------------------------------


@pytest.mark.parametrize("side", [3, 5, 10])
def test_geometry_follows_the_rules(side: int) -> None:
    grid = layout(side)
    x, y = grid.centre(2, 2)
    up_right = grid.centre(3, 3)
    assert up_right[0] > x and up_right[1] < y  # (q+1, r+1) is up and to the right
    right = grid.centre(3, 2)
    assert right[1] == pytest.approx(y) and right[0] > x  # a row runs left to right
    assert grid.centre(0, 0)[1] > grid.centre(0, 1)[1]  # row 1 at the bottom
    assert grid.centre(side - 1, side - 1) == pytest.approx((grid.width / 2, grid.height / 2))
    cells = grid.cells()
    assert len(cells) == 3 * side * (side - 1) + 1
    for cell in cells:
        cx, cy = grid.centre(*cell)
        assert grid.radius <= cx <= grid.width - grid.radius
        assert grid.radius <= cy <= grid.height - grid.radius


@pytest.mark.parametrize("side", [3, 5, 10])
def test_every_row_and_column_is_labelled_as_typed(side: int) -> None:
    grid = layout(side)
    span = 2 * side - 1
    columns = {text for text, _ in grid.column_labels()}
    rows = {text for text, _ in grid.row_labels()}
    assert columns == {chr(ord("a") + i) for i in range(span)}
    assert rows == {str(i + 1) for i in range(span)}
    places = [where for _, where in (*grid.column_labels(), *grid.row_labels())]
    for i, (x, y) in enumerate(places):  # no two labels crowd each other
        for other_x, other_y in places[i + 1 :]:
            assert (x - other_x) ** 2 + (y - other_y) ** 2 > (1.2 * grid.label_size) ** 2


def test_labels_are_drawn_and_clear_of_the_cells() -> None:
    image = picture(engine.new("shortcircuit"))
    grid = layout(5)
    for text, (x, y) in (*grid.column_labels(), *grid.row_labels()):
        box = image.crop((round(x) - 5, round(y) - 5, round(x) + 6, round(y) + 6))
        darkest, _ = box.convert("L").getextrema()
        assert isinstance(darkest, int) and darkest < 180, text  # ink of a label on the paper
        for cell in grid.cells():
            cx, cy = grid.centre(*cell)
            assert (x - cx) ** 2 + (y - cy) ** 2 > (1.5 * grid.radius) ** 2


# -- size -------------------------------------------------------------------------------


@pytest.mark.parametrize("options", [{}, {"size": 3}, {"size": 10, "capacitors": 20}])
def test_size_and_bytes(options: dict[str, int]) -> None:
    state = engine.new("shortcircuit", **options).random_playout(random.Random(7))
    png = render_png(state, players=["ann", "bob"])
    image = Image.open(io.BytesIO(png))
    assert max(image.size) <= MAX_SIDE
    assert 700 <= image.size[0] <= 800
    assert len(png) <= 300 * 1024


# -- pieces ---------------------------------------------------------------------------------


def test_connectors_show_colour_and_player_shape() -> None:
    state = play(LOOP_GAME[:-1])
    image = picture(state)
    grid = layout(5)
    for cell, name in view_of(state).connectors:
        fill = FILL[name]
        assert near(image, offset(grid, cell, -0.4, 0), fill), (cell, name)
        # Player 2's squares fill their corners, out where Player 1's discs have ended.
        if name in ("blue", "green"):
            assert near(image, offset(grid, cell, 0.45, 0.45), fill, reach=0), (cell, name)
        else:
            assert not near(image, offset(grid, cell, 0.5, 0.5), fill, reach=1), (cell, name)


def test_capacitor_badges_alone_and_beside_a_connector() -> None:
    state = play(POP_GAME, size=3)
    view = view_of(state)
    grid = layout(3)
    image = picture(state)
    assert view.capacitors == ((3, 2),)  # d3: its connector popped, its capacitor kept
    x, y = grid.capacitor_centre((3, 2), shared=False)
    half = BADGE_ALONE * grid.radius
    assert near(image, (x, y), "paper")  # between the plates
    assert near(image, (x + 0.26 * half, y), "ink")  # a plate
    # A capacitor that shares its cell sits on the corner badge, on top of the connector.
    shared = play([*POP_GAME[:4], "cap d4"], size=3)
    x, y = grid.capacitor_centre((3, 3), shared=True)
    half = BADGE_SHARED * grid.radius
    image = picture(shared)
    assert near(image, (x + 0.26 * half, y), "ink")
    assert near(image, (x, y + 0.8 * half), "paper")
    assert near(image, offset(grid, (3, 3), -0.4, 0), "vermillion")


# -- the last turn ---------------------------------------------------------------------------


def test_last_placement_is_framed() -> None:
    state = play(LOOP_GAME[:5])  # ... r b3
    grid = layout(5)
    image = picture(state)
    frame = grid.frame_width
    apothem = FRAME_RADIUS * grid.radius * 3**0.5 / 2
    x, y = grid.centre(*point("b3"))
    assert near(image, (x - apothem + frame / 2, y), "last")
    assert near(image, (x + apothem - frame / 2, y), "last")
    other_x, other_y = grid.centre(*point("c4"))  # an earlier piece: not framed
    assert not near(image, (other_x - apothem + frame / 2, other_y), "last")


def test_pops_leave_dashed_rings() -> None:
    grid = layout(3)
    for moves in (POP_GAME[:6], POP_GAME):  # mid-turn (this turn's pop), then the last turn
        image = picture(play(moves, size=3))
        x, y = grid.centre(*point("d3"))  # the popped connector's place
        ring = GHOST_RADIUS * grid.radius - grid.frame_width / 2
        assert near(image, (x + ring * 0.927, y + ring * 0.375), "last")  # a dash at 22 degrees
        # The capacitor popped from c3, beside the green connector still there.
        cx, cy = grid.capacitor_centre(point("c3"), shared=True)
        ring = BADGE_SHARED * 1.3 * grid.radius - grid.frame_width * 0.4
        assert near(image, (cx + ring * 0.927, cy + ring * 0.375), "last")


# -- the end ------------------------------------------------------------------------------


def test_winning_loop_is_highlighted() -> None:
    state = play(LOOP_GAME)
    outcome = view_of(state).outcome
    assert outcome is not None and len(outcome.path) == 6
    grid = layout(5)
    image = picture(state)
    loop = [point(text) for text in outcome.path]
    for cell, following in zip(loop, loop[1:] + loop[:1], strict=True):
        halo = (HALO_RADIUS + DISC_EDGE) / 2
        assert near(image, offset(grid, cell, -halo, 0), "win")
        (x, y), (next_x, next_y) = grid.centre(*cell), grid.centre(*following)
        assert near(image, ((x + next_x) / 2, (y + next_y) / 2), "win")  # the line between
    assert not near(image, grid.centre(*point("c3")), "win")  # the ring's empty middle


# -- caption -----------------------------------------------------------------------------------


def status(state: GameState) -> str:
    return RENDERERS["shortcircuit"].status_line(state, state.view())


def test_status_line() -> None:
    assert status(engine.new("shortcircuit")) == "Player 2 to move · turn 1/300"
    limited = play(POP_GAME[:5], size=3, capacitors=5)
    assert status(limited) == "Player 2 to move · turn 6/300 · capacitors left P1 4, P2 4"
    mid_turn = play(POP_GAME[:6], size=3, max_turns=50)
    assert status(mid_turn).startswith("Player 2 to move (after a pop:")
    assert status(mid_turn).endswith("turn 6/50")
    assert status(play(LOOP_GAME)) == "Player 1 wins (loop) · turn 11/300"


# -- many positions ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "options",
    [{}, {"size": 3, "capacitors": 2}, {"size": 10}, {"size": 6, "max_turns": 10}],
)
def test_random_positions_render(options: dict[str, int]) -> None:
    rng = random.Random(2026)
    for _ in range(3):
        state = engine.new("shortcircuit", **options)
        while state.outcome is None:
            moves = state.legal_moves()
            # Favour pops, so mid-turn positions and dashed rings come up often.
            pops = [move for move in moves if move.startswith("pop")]
            state = state.play(rng.choice(pops if pops and rng.random() < 0.5 else moves))
            if rng.random() < 0.3:
                assert render_png(state).startswith(b"\x89PNG")
        assert render_png(state, players=["ann", "bob"]).startswith(b"\x89PNG")


@pytest.mark.parametrize("size", [3, 5, 10])
def test_the_text_board_labels_every_column_at_its_foot_and_every_row(size: int) -> None:
    """Columns run up-left: each column's letter stands one step below its lowest cell,
    in line with it (a..e under the bottom row, f.. beside the lower right edge)."""
    view = engine.new("shortcircuit", size=size).view()
    assert isinstance(view, ShortCircuitView)
    lines = board_text(view).splitlines()
    span = 2 * size - 1
    rows = {int(line[:3]): line for line in lines[:span]}
    assert sorted(rows) == list(range(1, span + 1))
    labels = {-1: lines[span], **{row - 1: line for row, line in rows.items()}}

    def at(column: int, row: int) -> int:  # the character of cell (column, row)
        return 3 + 4 * column - 2 * row + 2 * (size - 1) + 1

    for column in range(span):
        lowest = min(row for q, row in view.cells if q == column)
        assert labels[lowest - 1][at(column, lowest - 1)] == column_label(column), column
        assert rows[lowest + 1][at(column, lowest)] == "."
    letters = [word for line in lines for word in line[3:].split() if len(word) == 1]
    assert sorted(w for w in letters if w.islower()) == [column_label(q) for q in range(span)]
