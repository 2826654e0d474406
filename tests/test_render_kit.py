"""What every picture shares: names in any script without boxes, a caption whose status
never runs into its title, player names in place of "Player 1", and each renderer
drawing only its own game."""

from __future__ import annotations

import io

import pytest
from PIL import Image, ImageChops, ImageDraw

import engine
from bot.render import RENDERERS, render_png, render_text
from bot.render.board import Extras
from bot.render.caption import CAPTION_HEIGHT, chip_label
from bot.render.fonts import clean_name, font, text_mask, text_width
from bot.render.theme import DEFAULT_THEME
from tests.render_probes import closest

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


@pytest.mark.parametrize("names", [("$_$", "a$^$b"), ("王小明 🎉", "x" * 100)])
def test_the_analysis_chart_takes_any_name(names: tuple[str, str]) -> None:
    """matplotlib reads text between two `$` as mathematics: "$_$" failed the chart
    (and with it the whole analysis, tried again for ever); long names ran off it."""
    from bot.render.chart import win_chart

    styles = RENDERERS["hex"].seat_styles(engine.new("hex", size=5))
    png = win_chart("Hex #1", [(0.5, 0.5), (0.7, 0.3)], styles, names)
    assert Image.open(io.BytesIO(png)).size == (800, 360)
