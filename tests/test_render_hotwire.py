"""Hot Wire's picture: size, and pixel probes at the computed places of wires, their
ends, the coordinates, the last and the hot wire, and the groups overlay."""

from __future__ import annotations

import io
import math
import random

import pytest
from PIL import Image

import engine
from bot.render import RENDERERS, render_gif, render_png
from bot.render.hotwire import (
    FILL_TINT,
    LEGEND_HEIGHT,
    WIDTH,
    Layout,
    group_shape,
    layout,
    state_layout,
    tinted,
)
from bot.render.theme import DEFAULT_THEME, MAX_SIDE
from engine import GameState
from engine.hotwire import HotWireState, HotWireView
from engine.notation import Point as Pin
from engine.notation import point
from tests.conftest import game
from tests.render_probes import closest, rgb

MAX_BYTES = 300 * 1024
#: Red a1-b1, then Black d4-e6 (the last wire).
TWO_WIRES = ["a1-b1", "d4-e6"]


def play(moves: list[str], **options: str) -> HotWireState:
    return game(HotWireState, *moves, **options)


def random_state(rng: random.Random, plies: int, **options: str) -> GameState:
    state = engine.new("hotwire", **options)
    for _ in range(plies):
        if state.outcome is not None:
            break
        state = state.play(rng.choice(state.legal_moves()))
    return state


def picture(state: GameState, *, groups: bool = False) -> Image.Image:
    png = render_png(state, players=["ann", "bob"], groups=groups)
    return Image.open(io.BytesIO(png)).convert("RGB")


def place_of(state: GameState) -> Layout:
    view = state.view()
    assert isinstance(view, HotWireView)
    return layout(view.width, view.height)


def along(place: Layout, p: Pin, q: Pin, t: float, side: float = 0) -> tuple[float, float]:
    """The point a fraction `t` along the wire p-q, `side` pixels off it to the left."""
    (x1, y1), (x2, y2) = place.centre(p), place.centre(q)
    length = math.hypot(x2 - x1, y2 - y1)
    normal = (-(y2 - y1) / length, (x2 - x1) / length)
    return x1 + (x2 - x1) * t + normal[0] * side, y1 + (y2 - y1) * t + normal[1] * side


def ink_pixels(image: Image.Image, box: tuple[float, float, float, float]) -> int:
    """Pixels in `box` clearly darker than the paper: drawn text or shapes."""
    left, top, right, bottom = (round(v) for v in box)
    levels = image.crop((left, top, right, bottom)).convert("L").histogram()
    darkest = round(sum(rgb("paper")) / 3) - 60
    return sum(levels[:darkest])


# -- size ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "options",
    [{}, {"size": "2x2"}, {"size": "26x26"}, {"size": "2x26"}, {"size": "26x2"}, {"size": "5x9"}],
)
def test_sizes_fit_discord(options: dict[str, str]) -> None:
    rng = random.Random(3)
    start = engine.new("hotwire", **options)
    middle = random_state(rng, 8, **options)
    for state, groups in [(start, False), (middle, True), (start.random_playout(rng), False)]:
        png = render_png(state, players=["ann", "bob"], groups=groups)
        assert png.startswith(b"\x89PNG")
        assert len(png) <= MAX_BYTES
        image = Image.open(io.BytesIO(png))
        assert max(image.size) <= MAX_SIDE
        assert image.size[0] == WIDTH


def test_every_board_shape_keeps_its_pins_inside_the_picture() -> None:
    for columns, rows in [(2, 2), (7, 7), (26, 26), (2, 26), (26, 2), (13, 4)]:
        place = layout(columns, rows)
        assert place.left - place.pad > 20 and place.right + place.pad < WIDTH - 20
        assert place.top - place.pad > LEGEND_HEIGHT
        assert place.height + 84 <= MAX_SIDE


# -- wires, ends, coordinates --------------------------------------------------------


def test_wire_ends_and_bodies_have_their_players_colours() -> None:
    state = play(TWO_WIRES)
    image, place = picture(state), place_of(state)
    a1, b1, d4, e6 = (point(text) for text in ("a1", "b1", "d4", "e6"))
    assert closest(image, place.centre(a1), "vermillion", "black", "faint") == "vermillion"
    assert closest(image, place.centre(b1), "vermillion", "black", "faint") == "vermillion"
    assert closest(image, place.centre(d4), "vermillion", "black", "faint") == "black"
    assert closest(image, along(place, a1, b1, 0.3), "vermillion", "black", "faint") == "vermillion"
    assert closest(image, along(place, d4, e6, 0.3), "vermillion", "black", "last") == "black"


def test_unused_pins_are_dots_and_ends_cover_used_ones() -> None:
    state = play(TWO_WIRES)
    image, place = picture(state), place_of(state)
    assert closest(image, place.centre(point("g7")), "muted", "faint", "black") == "muted"
    # Just outside the dot, inside where an end would be: the bare panel.
    beside = (
        place.centre(point("g7"))[0] + place.terminal_radius * 0.8,
        place.centre(point("g7"))[1],
    )
    assert closest(image, beside, "muted", "faint", "paper", "vermillion") != "vermillion"


def test_seats_differ_by_shape_as_well_as_colour() -> None:
    styles = RENDERERS["hotwire"].seat_styles(play([]))
    assert [style.name for style in styles] == ["Red", "Black"]
    assert [style.colour for style in styles] == ["vermillion", "black"]
    assert styles[0].marker != styles[1].marker


@pytest.mark.parametrize("size", ["7x7", "2x2", "26x26", "4x11"])
def test_coordinates_are_drawn_on_the_edges(size: str) -> None:
    state = engine.new("hotwire", size=size)
    image, place = picture(state), place_of(state)
    pad = place.pad
    x, _ = place.centre((0, 0))  # column a, under the panel
    assert ink_pixels(image, (x - 7, place.bottom + pad + 2, x + 7, place.height - 1)) > 5
    x, _ = place.centre((place.columns - 1, 0))  # the last column, above the panel
    assert ink_pixels(image, (x - 7, LEGEND_HEIGHT, x + 7, place.top - pad - 2)) > 5
    _, y = place.centre((0, 0))  # row 1, left of the panel
    assert ink_pixels(image, (place.left - pad - 40, y - 8, place.left - pad - 2, y + 8)) > 5


def test_label_area_is_blank_without_labels() -> None:
    """The probe above is meaningful: the paper between labels is blank."""
    state = engine.new("hotwire")
    image, place = picture(state), place_of(state)
    x = (place.centre((0, 0))[0] + place.centre((1, 0))[0]) / 2
    assert ink_pixels(image, (x - 4, place.bottom + place.pad + 2, x + 4, place.height - 1)) == 0


# -- the last wire and the hot wire --------------------------------------------------


def test_last_wire_has_a_halo_and_a_marker() -> None:
    state = play(TWO_WIRES)
    image, place = picture(state), place_of(state)
    d4, e6 = point("d4"), point("e6")
    assert closest(image, along(place, d4, e6, 0.5), "last", "black", "faint", "win") == "last"
    halo = place.wire_width / 2 + (place.halo_width - place.wire_width) / 4
    for side in (halo, -halo):
        probe = along(place, d4, e6, 0.25, side)
        assert closest(image, probe, "last", "black", "faint", "win") == "last"
    # The earlier wire has no halo.
    probe = along(place, point("a1"), point("b1"), 0.25, halo)
    assert closest(image, probe, "last", "vermillion", "faint") == "faint"


def test_the_hot_wire_is_highlighted_at_the_end() -> None:
    final = engine.new("hotwire").random_playout(random.Random(11))
    view = final.view()
    assert isinstance(view, HotWireView) and view.outcome is not None
    assert view.last_wire is not None
    p, q = view.last_wire
    image, place = picture(final), place_of(final)
    assert closest(image, along(place, p, q, 0.5), "win", "last", "black", "vermillion") == "win"
    halo = place.wire_width / 2 + (place.halo_width - place.wire_width) / 4
    for side in (halo, -halo):
        assert closest(image, along(place, p, q, 0.25, side), "win", "last", "faint") == "win"
    loser = ("Red", "Black")[view.wires[-1][2]]
    winner = ("Red", "Black")[view.outcome.winners[0]]
    words = RENDERERS["hotwire"].status_line(final, view)
    assert words == f"{winner} wins: {loser} connected the hot wire"


def test_status_words() -> None:
    renderer = RENDERERS["hotwire"]
    start = play([])
    assert renderer.status_line(start, start.view()) == "Red to move · 572 legal wires"
    after = play(["a1-b1"])
    assert renderer.status_line(after, after.view()).startswith("Black to move · ")
    no_wire = play([], size="2x2", lengths="3")  # the first player has no move and wins
    assert renderer.status_line(no_wire, no_wire.view()) == "Red wins: no wire fits"
    picture(no_wire)


# -- the groups overlay ----------------------------------------------------------------


def shade(image: Image.Image, where: tuple[float, float]) -> str:
    """Which group tint (or the bare panel) the pixel at `where` shows."""
    tints = {tinted(DEFAULT_THEME, key, FILL_TINT): key for key in ("sky", "green", "muted")}
    found = closest(image, where, "faint", *tints)
    return tints.get(found, found)


def inside_blob(place: Layout, p: Pin, q: Pin) -> tuple[float, float]:
    """A point in the shading beside the wire p-q, clear of its tag and faint line."""
    return along(place, p, q, 0.5, place.blob_radius * 0.65)


def test_one_wire_groups_are_shaded_and_tagged() -> None:
    # 3x2 pins, lengths 1: b1-b2 leaves a1-a2 and c1-c2, two one-wire groups.
    state = play(["b1-b2"], size="3x2", lengths="1")
    groups = state.groups()
    assert [group.kind for group in groups] == ["one-wire", "one-wire"]
    place = place_of(state)
    plain, overlay = picture(state), picture(state, groups=True)
    a1, a2, c1, c2 = (point(text) for text in ("a1", "a2", "c1", "c2"))
    assert shade(plain, inside_blob(place, a1, a2)) == "faint"
    assert shade(overlay, inside_blob(place, a1, a2)) == "sky"
    assert shade(overlay, inside_blob(place, c1, c2)) == "sky"
    for group in groups:  # each tag is a white box with an ink letter
        x, y = group_shape(group, place).tag
        assert closest(overlay, (x - place.tag_size * 0.45, y), "white", "sky", "faint") == "white"
        assert ink_pixels(overlay, (x - 4, y - 6, x + 4, y + 6)) > 3


def test_a_switch_and_a_larger_group_have_their_own_tints() -> None:
    a1, b1 = point("a1"), point("b1")
    switch = play([], size="2x2", lengths="1-2")  # four pins, six wires: a switch
    assert [group.kind for group in switch.groups()] == ["switch"]
    place = place_of(switch)
    inside = along(place, a1, b1, 0.3, -place.blob_radius * 0.5)  # up, into the board
    assert shade(picture(switch), inside) == "faint"
    assert shade(picture(switch, groups=True), inside) == "green"
    larger = play([])  # the opening board is one larger group
    assert [group.kind for group in larger.groups()] == ["larger"]
    place = place_of(larger)
    inside = along(place, a1, b1, 0.3, -place.blob_radius * 0.5)
    assert shade(picture(larger, groups=True), inside) == "muted"


def test_the_groups_legend_appears_only_when_asked() -> None:
    state = play(["b1-b2"], size="3x2", lengths="1")
    band = (WIDTH / 2, 0, WIDTH - 4, LEGEND_HEIGHT)
    assert ink_pixels(picture(state), band) == 0
    assert ink_pixels(picture(state, groups=True), band) > 20


def test_no_groups_after_the_end() -> None:
    final = engine.new("hotwire", size="5x5").random_playout(random.Random(2))
    band = (WIDTH / 2, 0, WIDTH - 4, LEGEND_HEIGHT)
    assert ink_pixels(picture(final, groups=True), band) == 0


# -- many positions ----------------------------------------------------------------------

OPTION_SETS: list[dict[str, str]] = [
    {},
    {"size": "2x2"},
    {"size": "3x5", "lengths": "1,3,5"},
    {"size": "9x9", "lengths": "any"},
    {"size": "26x26"},
    {"size": "2x26"},
    {"size": "26x3", "lengths": "2"},
]


@pytest.mark.parametrize("options", OPTION_SETS)
def test_random_positions_render(options: dict[str, str]) -> None:
    rng = random.Random(str(options))
    for plies in (0, 3, 15, 60, 400):
        state = random_state(rng, plies, **options)
        for groups in (False, True):
            image = picture(state, groups=groups)
            assert max(image.size) <= MAX_SIDE


def test_a_replay_gif_renders() -> None:
    final = engine.new("hotwire", size="4x4").random_playout(random.Random(5))
    gif = render_gif("hotwire", final.options, final.moves, players=["ann", "bob"])
    assert gif.startswith(b"GIF8")


def test_a_group_split_by_crossing_wires_is_still_one_blob() -> None:
    # b2-b3 and c3-d4 cross drawn wires: the one large group's neighbour wires fall
    # into two pieces (the bottom rows, and the rest), joined by its wire c4-d3.
    state = play(["d4-f3", "e6-f7", "c1-f2", "a2-c3"])
    (group,) = [g for g in state.groups() if g.kind == "larger"]
    shape = group_shape(group, state_layout(state))
    pieces = {pin: {pin} for pin in shape.pins}
    for stroke in shape.strokes:
        joined = set().union(*(pieces.get(spot, {spot}) for spot in stroke))
        for pin in joined:
            pieces[pin] = joined
    assert all(pieces[pin] == pieces[shape.pins[0]] for pin in shape.pins)
    image = Image.open(io.BytesIO(render_png(state, groups=True))).convert("RGB")
    fill = tinted(DEFAULT_THEME, "muted", FILL_TINT)
    between = state_layout(state).centre((2.25, 2.75))  # on c4-d3, beside the tag
    assert closest(image, between, fill, "paper") == fill
