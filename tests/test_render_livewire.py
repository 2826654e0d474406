"""Livewire's picture: sizes, and pixel probes at the computed places of bases, lines,
dots, labels, the last move and the winning path; many random positions render."""

from __future__ import annotations

import io
import itertools
import math
import random

import pytest
from PIL import Image

import engine
from bot.render import render_png, render_text
from bot.render.livewire import (
    BOTTOM_MARGIN,
    DEAD_TINT,
    LEGEND_HEIGHT,
    SEATS,
    STAR_SCALE,
    Layout,
    LivewireRenderer,
    is_guide,
    labelled,
    layout,
    state_layout,
    tinted,
)
from bot.render.theme import DEFAULT_THEME, MAX_SIDE
from engine import GameState
from engine.core import End
from engine.livewire import LivewireState, LivewireView
from engine.livewireboard import base_rows
from engine.notation import column_label, label
from tests.conftest import game
from tests.render_probes import closest, rgb

MAX_BYTES = 300 * 1024
SIZES = ["42x34", "17x14", "60x60", "17x60", "60x14"]


def picture(state: GameState) -> Image.Image:
    png = render_png(state, players=["ann", "bob"])
    assert png.startswith(b"\x89PNG") and len(png) <= MAX_BYTES
    image = Image.open(io.BytesIO(png)).convert("RGB")
    assert max(image.size) <= MAX_SIDE
    return image


def view_of(state: GameState) -> LivewireView:
    view = state.view()
    assert isinstance(view, LivewireView)
    return view


def dark_pixels(image: Image.Image, box: tuple[float, float, float, float]) -> int:
    """Pixels in `box` clearly darker than the paper: drawn text or shapes."""
    left, top, right, bottom = (round(v) for v in box)
    levels = image.crop((left, top, right, bottom)).convert("L").histogram()
    return sum(levels[: round(sum(rgb("paper")) / 3) - 60])


def offset(point: tuple[float, float], dx: float, dy: float) -> tuple[float, float]:
    return point[0] + dx, point[1] + dy


def play(moves: list[str], **options: object) -> LivewireState:
    return game(LivewireState, *moves, **options)


def race(runner: int, **options: object) -> GameState:
    """`runner` draws straight along its lowest base row into the opponent's base while
    the other player draws far from that row: a won game."""
    state: GameState = engine.new("livewire", **options)
    view = view_of(state)
    row = view.bases[runner][0][1]
    column, goal = view.bases[runner][0][0], view.bases[1 - runner][0][0]
    step = 1 if goal > column else -1
    while state.outcome is None:
        if state.to_move == runner:
            length = 2 if abs(goal - column) >= 2 else 1
            here, column = (column, row), column + step * length
            state = state.play(f"{label(here)} {label((column, row))}")
        else:
            state = state.play(far_move(state, row))
    return state


def far_move(state: GameState, row: int) -> str:
    """A legal move more than two rows away from `row`."""
    return next(
        move
        for move in state.legal_moves()
        if all(abs(p[1] - row) > 2 for p in engine.notation.points(move))
    )


# -- sizes ---------------------------------------------------------------------------


@pytest.mark.parametrize("size", SIZES)
def test_every_size_fits_discord(size: str) -> None:
    rng = random.Random(7)
    start = engine.new("livewire", size=size)
    middle = start
    for _ in range(30):
        middle = middle.play(rng.choice(middle.legal_moves()))
    place = state_layout(start)
    for state in (start, middle, start.random_playout(rng)):
        image = picture(state)
        assert image.size == (place.picture_width, place.board_height + 84)
    assert 720 <= place.picture_width <= 820
    assert (
        place.left - place.base_gap > 30 and place.right + place.base_gap < place.picture_width - 30
    )


def test_the_default_board_has_a_whole_pixel_pitch() -> None:
    place = layout(42, 34)
    assert place.pitch == 16 and isinstance(place.left, int)
    assert place.centre((0, 0)) == (place.left, place.bottom)
    assert place.centre((42, 34)) == (place.right, place.top)


# -- the static board ----------------------------------------------------------------


def test_labels_every_guide_end_and_base_without_collisions() -> None:
    columns = labelled(42, 19, 16, (0, 42))
    assert {0, 42} <= set(columns)
    assert all(b - a >= 2 for a, b in itertools.pairwise(columns))
    assert all(index in columns for index in range(43) if is_guide(index))
    rows = labelled(34, 14, 16, (0, 34, *base_rows(34)))
    assert rows == list(range(35))  # 16 px rows have room for every number
    crowded = labelled(60, 14, 11, (0, 60, *base_rows(60)))
    assert {0, 60, *base_rows(60)} <= set(crowded)
    assert all(b - a >= 2 for a, b in itertools.pairwise(crowded))


def test_coordinates_are_written_on_the_edges() -> None:
    state = engine.new("livewire")
    image = picture(state)
    place = state_layout(state)
    size = place.label_size
    for column in (0, 4, 42):  # a, e (a guide) and aq
        x, _ = place.centre((column, 0))
        for y in (place.top - size, place.bottom + size):
            assert dark_pixels(image, (x - 8, y - 6, x + 8, y + 6)) > 5, column_label(column)
    for row in (0, 4, 34):
        _, y = place.centre((0, row))
        right = place.left - place.base_gap
        assert dark_pixels(image, (right - 14, y - 6, right, y + 6)) > 5, row + 1


def test_bases_are_marked_in_their_players_colours_with_their_coordinates() -> None:
    state = engine.new("livewire")
    image = picture(state)
    place = state_layout(state)
    view = view_of(state)
    assert [y for _, y in view.bases[0]] == list(base_rows(34))
    for seat, bases in enumerate(view.bases):
        colour = SEATS[seat][0]
        for base in bases:
            centre = place.centre(base)
            assert closest(image, centre, "white", colour, "ink") == "white"
            ring = offset(centre, 0, place.base_radius * 0.7)
            assert closest(image, ring, "paper", colour, "ink", "grid") == colour
            x = centre[0] - place.base_gap - 12 if seat == 0 else centre[0] + place.base_gap + 12
            words = image.crop(
                (round(x) - 12, round(centre[1]) - 6, round(x) + 12, round(centre[1]) + 6)
            )
            colours = words.getcolors(1024)
            assert colours is not None
            assert any(math.dist(found, rgb(colour)) < 40 for _, found in colours)


# -- lines and dots ------------------------------------------------------------------


def test_lines_dots_and_the_last_move() -> None:
    # Player 1: a straight a8-c8, then a branch c8-d8; Player 2 a straight aq8-aq10.
    state = play(["a8 c8", "aq8 aq10", "c8 d8"])
    image = picture(state)
    place = state_layout(state)
    centre = place.centre
    assert closest(image, centre((1, 7)), "blue", "paper", "last") == "blue"  # mid straight
    assert closest(image, centre((41.9, 8.4)), "vermillion", "paper") == "paper"  # off the line
    assert closest(image, centre((42, 8)), "vermillion", "paper") == "vermillion"
    # c8 was drawn from: a small dot; aq10 can still be: solid with an ink rim.
    used = centre((2, 7))
    assert closest(image, used, "blue", "paper") == "blue"
    assert closest(image, offset(used, 0, place.dot_radius * 0.85), "blue", "paper") == "paper"
    solid = centre((42, 9))
    assert closest(image, solid, "vermillion", "paper", "ink") == "vermillion"
    rim = offset(solid, -place.dot_radius * 1.35 * 0.62, 0)
    assert closest(image, rim, "vermillion", "paper", "ink") == "ink"
    # d8, the last move's new branch dot: hollow, on the last band and diamond.
    new = centre((3, 7))
    assert closest(image, new, "blue", "paper", "last") == "paper"
    assert closest(image, offset(new, 0, place.last_radius * 0.75), "last", "paper") == "last"


def test_dead_dots_are_grey_crosses_and_their_lines_fade() -> None:
    """Player 1 draws a4-c4; Player 2 runs along row 4 and lands on c4: both dots die."""
    state: GameState = play(["a4 c4"], size="17x14")
    for column in (17, 15, 13, 11, 9, 7, 5, 3):
        length = 2 if column > 3 else 1
        state = state.play(f"{label((column, 3))} {label((column - length, 3))}")
        if column > 3:
            state = state.play(far_move(state, 3))
    view = view_of(state)
    assert (2, 3) in {dot.point for dot in view.dots if not dot.live}
    image = picture(state)
    place = state_layout(state)
    cross = place.centre((2, 3))
    assert closest(image, cross, "muted", "blue", "vermillion", "paper", "last") == "muted"
    faded = tinted(DEFAULT_THEME, "blue", DEAD_TINT)
    assert closest(image, place.centre((1, 3)), faded, "blue", "paper", "last") == faded
    # The landing line, d4-c4, is the last move: faded too, on the last move's band.
    faded = tinted(DEFAULT_THEME, "vermillion", DEAD_TINT)
    assert closest(image, place.centre((2.8, 3)), faded, "vermillion", "last") == faded


def test_random_dead_dots_are_grey() -> None:
    state = engine.new("livewire", size="17x14").random_playout(random.Random(3))
    view = view_of(state)
    live_points = {dot.point for dot in view.dots if dot.live}
    dead = {dot.point for dot in view.dots if not dot.live} - live_points
    assert dead, "a random game kills dots"
    image = picture(state)
    place = state_layout(state)
    for point in dead:
        centre = place.centre(point)
        assert closest(image, centre, "muted", "blue", "vermillion", "paper", "last") in (
            "muted",
            "last",  # the diamond under the last move's new dot shows between the arms
        ), label(point)


# -- the end -------------------------------------------------------------------------


@pytest.mark.parametrize(("runner", "size"), [(0, "17x14"), (1, "42x34"), (0, "60x60")])
def test_a_won_game_highlights_the_path_and_the_base_reached(runner: int, size: str) -> None:
    state = race(runner, size=size)
    outcome = state.outcome
    assert outcome is not None and outcome.winners == (runner,)
    assert outcome.reason == End.BASE_REACHED
    view = view_of(state)
    image = picture(state)
    place = state_layout(state)
    colour = SEATS[runner][0]
    path = [place.centre(point) for point in view.winning_path]
    for (x1, y1), (x2, y2) in itertools.pairwise(path):
        middle = ((x1 + x2) / 2, (y1 + y2) / 2)
        assert closest(image, middle, colour, "win", "paper") == colour
        beside = offset(middle, 0, place.straight_width / 2 + 1.5)
        assert closest(image, beside, colour, "win", "paper") == "win"
    landed = path[-1]
    star_point = offset(landed, 0, -place.base_radius * STAR_SCALE * 0.8)
    assert closest(image, star_point, "win", "paper", "ink") == "win"
    renderer = LivewireRenderer()
    words = renderer.status_line(state, view)
    assert words == f"Player {runner + 1} wins: reached the base {outcome.path[-1]}"


def test_a_draw_by_passes_says_so() -> None:
    state = engine.new("livewire", size="17x14").random_playout(random.Random(5))
    assert state.outcome is not None and state.outcome.reason == End.PASSES
    assert LivewireRenderer().status_line(state, view_of(state)).startswith("Draw")
    picture(state)


# -- robustness ----------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(8))
def test_random_positions_render(seed: int) -> None:
    rng = random.Random(seed)
    options = rng.choice(
        [
            {},
            {"size": "17x14"},
            {"size": "25x20", "lengths": "3,1"},
            {"size": "30x17", "lengths": "1,2"},
        ]
    )
    state: GameState = engine.new("livewire", **options)
    for _ in range(rng.randrange(0, 120)):
        if state.outcome is not None:
            break
        state = state.play(rng.choice(state.legal_moves()))
    picture(state)
    picture(state.random_playout(rng))
    text = render_text(state)
    assert "A" in text and "B" in text and text.count("\n") > 10


def test_layouts_keep_the_grid_inside_the_picture() -> None:
    for width, height in [(17, 14), (42, 34), (60, 60), (17, 60), (60, 14), (33, 47)]:
        place: Layout = layout(width, height)
        assert place.top > 20 and place.board_height + 84 <= MAX_SIDE
        assert place.left >= 40 and place.right <= place.picture_width - 40


def test_labels_stand_at_an_even_step_on_large_boards() -> None:
    for count, pitch in ((42, 16), (60, 11)):
        columns = labelled(count, 19, pitch, (0, count))
        steps = {b - a for a, b in itertools.pairwise(columns[1:-1])}
        assert steps == {5}, (count, columns)
        assert all(is_guide(index) for index in columns[1:-1])


def test_a_legend_under_the_board_says_what_the_marks_mean() -> None:
    state = engine.new("livewire")
    image = picture(state)
    place = state_layout(state)
    band = range(place.bottom + BOTTOM_MARGIN + 4, place.bottom + BOTTOM_MARGIN + LEGEND_HEIGHT - 4)
    seen = {
        closest(image, (x, y), "paper", "blue", "last", "muted", "ink")
        for y in band
        for x in range(0, place.picture_width, 2)
    }
    assert {"blue", "last", "muted", "ink"} <= seen


@pytest.mark.parametrize("runner", [0, 1])
def test_the_text_board_marks_the_base_reached_with_a_mark_of_its_key(runner: int) -> None:
    """Every mark of a dot on the text board is in the key under it, and the base reached
    has a mark of its own (not a dead dot's *)."""
    state = race(runner, size="17x14")
    view = view_of(state)
    lines = render_text(state).splitlines()
    (key,) = [line for line in lines if " · " in line and "bases" in line]
    keyed = {mark for part in key.split(" · ") for mark in part.split() if len(mark) == 1}
    rows = {line[:3].strip(): line for line in lines if line[:3].strip().isdigit()}

    def mark(point: tuple[int, int]) -> str:
        return rows[str(point[1] + 1)][3 + 2 * point[0]]

    reached = mark(view.winning_path[-1])
    assert reached not in ".*" and reached in keyed, (reached, key)
    assert {mark(dot.point) for dot in view.dots} <= keyed
