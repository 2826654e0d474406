"""What every picture shares: names in any script without boxes, a caption whose status
never runs into its title, player names in place of "Player 1", and each renderer
drawing only its own game."""

from __future__ import annotations

import io
from typing import Any

import matplotlib.pyplot as plt
import pytest
from PIL import Image, ImageChops, ImageDraw

import engine
from bot.render import RENDERERS, render_png, render_text
from bot.render import board as board_module
from bot.render.board import Extras
from bot.render.caption import CAPTION_HEIGHT, chip_label
from bot.render.chart import chart_figure
from bot.render.fonts import clean_name, font, text_mask, text_width
from bot.render.hex import HexRenderer
from bot.render.theme import DEFAULT_THEME
from tests.render_probes import closest, rgb

#: Side 3: Player 2 pops d3 with the capacitor on c3; Player 2 must now place a connector.
POPPED = ["g c3", "r d4", "y d3", "cap c3", "cap d3", "pop c3 d3"]


def boxes(words: str, pixels: int = 28) -> Image.Image:
    """The words as DejaVu alone draws them: a box for each character it lacks."""
    face = font(pixels)
    left, top, right, bottom = (round(v) for v in face.getbbox(words, anchor="lm"))
    mask = Image.new("L", (right - left, bottom - top), 0)
    ImageDraw.Draw(mask).text((-left, -top), words, font=face, fill=255, anchor="lm")
    return mask


def test_names_in_chinese_japanese_and_korean_are_drawn_not_boxes() -> None:
    for name in ("王小明", "ゆき", "김민준"):
        drawn, _ = text_mask(name, 28, False, "lm")
        tofu = boxes(name)
        same = drawn.size == tofu.size and not ImageChops.difference(drawn, tofu).getbbox()
        assert not same, name
        assert drawn.getbbox() is not None
        assert text_width(name, 14) > 10 * len(name)  # full-width glyphs, not empty ones


def test_characters_no_font_has_become_one_clean_placeholder() -> None:
    assert clean_name("ann 🎲") == "ann ◇"
    assert clean_name("🎲🎲") == "◇"
    assert clean_name("Ärger Ωmega 王") == "Ärger Ωmega 王"
    # combining marks go with their base: Thai and Devanagari (no font here) are one ◇,
    # not ◇ and boxes; an accent typed as a mark stays on its letter
    assert clean_name("สวัสดีครับ") == "◇" and clean_name("नमस्ते") == "◇"
    assert clean_name("Zoe\u0308") == "Zoe\u0308"
    assert clean_name("ann\tlee\nsmith\x00") == "ann lee smith"


def test_the_status_never_runs_into_the_title() -> None:
    state = engine.new("shortcircuit", size=3)
    for move in POPPED:
        state = state.play(move)
    caption = "due 25 Nov 12:00 UTC, your clock is running"
    image = Image.open(io.BytesIO(render_png(state, players=["ann", "bob"], caption=caption)))
    image = image.convert("RGB")
    top = image.height - CAPTION_HEIGHT
    heading = f"{engine.GAMES['shortcircuit'].title} · move {state.ply}"
    gap_from = 16 + text_width(heading, 17, bold=True) + 3
    for x in range(round(gap_from), round(gap_from) + 14):
        for y in range(top + 10, top + 31):
            assert closest(image, (x, y), "caption", "ink") == "caption", (x, y)


def test_numbered_seats_are_called_by_the_players_names() -> None:
    state = engine.new("intersections", players=3)
    renderer = RENDERERS["intersections"]
    assert renderer.status_line(state, state.view(), ["ann", "bob", "cat"]).startswith(
        "ann to move"
    )
    short = engine.new("shortcircuit", size=3)
    assert (
        RENDERERS["shortcircuit"]
        .status_line(short, short.view(), ["ann", "bob"])
        .startswith(
            "bob to move"  # Player 2 opens Short Circuit
        )
    )
    assert "(columns run up-left)" in render_text(short)


def test_a_seat_chip_says_the_colour_then_the_player() -> None:
    """Not "Paperboard (easy) (White)": the colour first, as the sentences write it."""
    assert chip_label("Paperboard (easy)", "White", 2) == "White: Paperboard (easy)"
    assert chip_label("Red team", "Red", 2) == "Red team"  # says its colour already
    assert chip_label("ann", "Player 4", 4) == "ann"  # four chips: the marker says the seat


def test_a_renderer_refuses_another_games_position() -> None:
    hex_state = engine.new("hex", size=5)
    with pytest.raises(TypeError, match="the hotwire renderer cannot draw a hex position"):
        RENDERERS["hotwire"].image(hex_state, Extras(), DEFAULT_THEME)
    with pytest.raises(TypeError, match="cannot draw a hex position"):
        RENDERERS["livewire"].describe(hex_state)


def chart_parts(figure: Any) -> tuple[list[Any], list[Any], list[Any], list[str]]:
    """A chart's curves, swing rings, proven spans and words (what a test can check
    rather than pixels)."""
    axes = figure.axes[0]
    lines = axes.get_lines()
    curves = [
        line for line in lines if line.get_label() in ("_chance",) or line.get_label()[0] != "_"
    ]
    rings = [line for line in lines if line.get_label() == "_swing"]
    spans = [patch for patch in axes.patches if patch.get_label() == "_proven"]
    legend = axes.get_legend()
    words = [text.get_text() for text in axes.texts]
    words += [axes.get_title(loc=side) for side in ("left", "right")]
    words += [text.get_text() for text in legend.get_texts()] if legend else []
    return curves, rings, spans, words


def test_a_two_player_chart_draws_one_curve_with_the_swings_and_the_proven_part() -> None:
    """Two curves mirrored each other; the swings named in the text were not marked,
    proven positions looked like estimates, and the legend cut "Paperboard (mediu...".
    Now: the first seat's chance alone, each half of the chart a seat's (its name in
    full), the named moves ringed with their numbers, the proven stretch hatched."""
    styles = RENDERERS["hex"].seat_styles(engine.new("hex", size=5))
    chances = [(0.5, 0.5), (0.6, 0.4), (0.3, 0.7), (0.0, 1.0), (0.0, 1.0)]
    figure = chart_figure(
        "Hex #1", chances, styles, ["ann", "Paperboard (medium)"],
        proven=[False, False, False, True, True], marked=[(2, 0)],
    )  # fmt: skip
    try:
        curves, rings, spans, words = chart_parts(figure)
        assert len(curves) == 1 and list(curves[0].get_ydata()) == [50, 60, 30, 0, 0]
        assert [(ring.get_xdata()[0], ring.get_ydata()[0]) for ring in rings] == [(2, 30)]
        assert "2" in words  # the ring's move number, as the text names it
        assert len(spans) == 1 and spans[0].get_x() == 2.5  # from the first proven position
        assert "▲ Black: ann" in words and "▼ White: Paperboard (medium)" in words
        assert figure.axes[0].get_xlabel() == "move (hatched: proven)"
    finally:
        plt.close(figure)


def test_a_chart_of_more_players_draws_each_seat_and_a_legend_of_whole_names() -> None:
    state = engine.new("intersections", players=4)
    styles = RENDERERS["intersections"].seat_styles(state)
    names = ["ann", "Paperboard (medium)", "a rather long name here", "cy"]
    chances = [(0.25, 0.25, 0.25, 0.25), (0.4, 0.2, 0.2, 0.2), (0.1, 0.3, 0.3, 0.3)]
    figure = chart_figure("Making Intersections #3", chances, styles, names, marked=[(2, 0)])
    try:
        curves, rings, spans, words = chart_parts(figure)
        assert len(curves) == 4 and len(rings) == 1 and not spans
        assert [(ring.get_xdata()[0], ring.get_ydata()[0]) for ring in rings] == [(2, 10)]
        for style, name in zip(styles, names, strict=True):
            assert f"{style.name}: {name}" in words
    finally:
        plt.close(figure)


@pytest.mark.parametrize("names", [("$_$", "a$^$b"), ("王小明 🎉", "x" * 100)])
def test_the_analysis_chart_takes_any_name(names: tuple[str, str]) -> None:
    """matplotlib reads text between two `$` as mathematics: "$_$" failed the chart
    (and with it the whole analysis, tried again for ever); long names ran off it."""
    from bot.render.chart import win_chart

    styles = RENDERERS["hex"].seat_styles(engine.new("hex", size=5))
    png = win_chart("Hex #1", [(0.5, 0.5), (0.7, 0.3)], styles, names)
    assert Image.open(io.BytesIO(png)).size == (800, 360)


# -- a suggested move (hint) -----------------------------------------------------------------------

#: A position of each game after a move or two, and a legal move to suggest there.
SUGGESTIONS = [
    ("hex", {"size": 7, "swap": False}, ["d4", "c5"], "c4"),
    ("disthex", {"size": 7}, ["d4", "b2"], "f6"),
    ("hotwire", {}, ["a1-b5"], "c7-d4"),
    ("livewire", {}, [], None),
    ("shortcircuit", {}, [], "g e5"),
    ("intersections", {"players": 3}, [], None),
]


def _hue_pixels(image: Image.Image, colour: str) -> int:
    """How many pixels are within a few levels of `colour` (a theme key)."""
    target = rgb(colour)
    return sum(
        count
        for count, pixel in image.getcolors(2**20) or []
        if isinstance(pixel, tuple)
        and max(abs(a - b) for a, b in zip(pixel, target, strict=True)) <= 12
    )


@pytest.mark.parametrize(("game", "options", "moves", "move"), SUGGESTIONS)
def test_a_suggestion_is_drawn_as_a_suggestion_in_every_game(
    game: str, options: dict[str, object], moves: list[str], move: str | None
) -> None:
    """A hint used to be the position after the move, its stone carrying the last-move
    marker and "hint: c2" in the caption: it looked played. Now the picture is the
    position as it is (its own last move marked), the suggested piece half transparent
    and ringed in the hint colour, and the caption says "suggestion"."""
    state = engine.replay(game, options, moves)
    move = move or state.legal_moves()[0]
    plain = Image.open(io.BytesIO(render_png(state, players=["ann", "bob", "cy"][: state.players])))
    hinted = Image.open(
        io.BytesIO(
            render_png(state, players=["ann", "bob", "cy"][: state.players], suggestion=move)
        )
    )
    plain, hinted = plain.convert("RGB"), hinted.convert("RGB")
    board = (0, 0, plain.width, plain.height - CAPTION_HEIGHT)
    assert _hue_pixels(plain, "hint") == 0
    assert _hue_pixels(hinted.crop(board), "hint") > 40  # the ring
    # the last-move marker is the real last move's, as without the suggestion
    assert _hue_pixels(hinted.crop(board), "last") == _hue_pixels(plain.crop(board), "last")
    caption = (0, plain.height - CAPTION_HEIGHT, plain.width, plain.height)
    assert ImageChops.difference(plain.crop(caption), hinted.crop(caption)).getbbox()


def test_a_suggested_stone_is_half_transparent_and_not_marked_as_played() -> None:
    state = engine.replay("hex", {"size": 7, "swap": False}, ["d4", "c5"])
    renderer = RENDERERS["hex"]
    assert isinstance(renderer, HexRenderer)
    image = renderer.image(state, Extras(suggestion="c4"), DEFAULT_THEME)
    centre = renderer._centre(7, 2, 3)  # c4
    # Black's stone over the cell, half of each: neither the stone nor the empty cell
    pairs = zip(rgb("black"), rgb("faint"), strict=True)
    half = "#" + "".join(f"{(a + b) // 2:02x}" for a, b in pairs)
    assert closest(image, centre, "black", "faint", half) == half
    assert closest(image, renderer._centre(7, 2, 4), "white", "last") == "last"  # c5, played


def test_the_hint_caption_says_suggestion() -> None:
    state = engine.replay("hex", {"size": 5, "swap": False}, ["c3"])
    seen: list[str] = []
    original = board_module.draw_caption

    def spy(canvas: Any, heading: str, status: str, *rest: Any) -> None:
        seen.append(status)
        original(canvas, heading, status, *rest)

    board_module.draw_caption = spy  # type: ignore[assignment]
    try:
        RENDERERS["hex"].image(state, Extras(suggestion="c2"), DEFAULT_THEME)
    finally:
        board_module.draw_caption = original
    assert seen == ["White to move · suggestion: c2"]


def test_the_hint_colour_is_in_the_palette_of_a_suggestion_only() -> None:
    """A new colour in the theme changes every picture's palette (docs/img's bytes, and
    a pixel of a Livewire board): only a picture with a suggestion has it."""
    state = engine.replay("hex", {"size": 5, "swap": False}, ["c3"])
    colours = []
    for png in (render_png(state), render_png(state, suggestion="c2")):
        palette = Image.open(io.BytesIO(png)).getpalette() or []
        colours.append({tuple(palette[i : i + 3]) for i in range(0, len(palette), 3)})
    assert rgb("hint") not in colours[0] and rgb("hint") in colours[1]
