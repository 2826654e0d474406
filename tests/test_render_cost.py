"""What drawing a position costs, counted in work rather than time (so that no test
depends on how busy the machine is): pixels blended, text measured. bench/render.py
times it."""

from __future__ import annotations

from typing import Any

import pytest
from PIL import Image, ImageFont

import engine
from bot.render import fonts, render_image
from bot.render.canvas import SpriteCanvas
from bot.render.theme import DEFAULT_THEME


class PasteCounter:
    """An image core that counts the pixels pasted on it, then pastes them."""

    def __init__(self, core: Any) -> None:
        self.core = core
        self.pixels = 0

    def paste(self, source: Any, box: tuple[int, int, int, int], mask: Any = None) -> None:
        self.pixels += (box[2] - box[0]) * (box[3] - box[1])
        self.core.paste(source, box, mask)


def test_a_long_wire_blends_the_pixels_it_covers_not_its_whole_box() -> None:
    """A sprite is pasted without its wholly transparent parts: a diagonal wire's box
    is mostly empty, and a paste costs per pixel of its box (a finished Hot Wire
    board blended more pixels than the picture has)."""
    canvas = SpriteCanvas(Image.new("RGB", (400, 400), DEFAULT_THEME["paper"]), DEFAULT_THEME)
    counter = PasteCounter(canvas._core)
    canvas._core = counter
    canvas.line([(20.25, 30.5), (340.75, 370.0)], "vermillion", 8)
    box_area = (340 - 20) * (370 - 30)
    assert 0 < counter.pixels < box_area / 5
    drawn = canvas.image.getpixel((180, 200))  # on the wire, half way
    assert drawn == Image.new("RGB", (1, 1), DEFAULT_THEME["vermillion"]).getpixel((0, 0))


@pytest.fixture
def measured(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The words FreeType lays out to measure them, from now on."""
    words: list[str] = []
    getlength = ImageFont.FreeTypeFont.getlength

    def counting(face: ImageFont.FreeTypeFont, text: str, *args: Any, **kwargs: Any) -> float:
        words.append(text)
        return getlength(face, text, *args, **kwargs)

    monkeypatch.setattr(ImageFont.FreeTypeFont, "getlength", counting)
    return words


def test_words_are_measured_once(measured: list[str]) -> None:
    """The caption measures its status twice and the players' names on every move:
    each is laid out once."""
    fonts._width.cache_clear()  # what other tests drew in this process is measured already
    state = engine.replay("hex", {"size": 5, "swap": False}, ["c3"])
    render_image(state, players=["ann", "bob"])
    first = list(measured)
    render_image(state, players=["ann", "bob"])
    assert first and len(first) == len(set(first))
    assert measured == first
