"""Hex's picture: the last move is easy to find on the usual and the largest boards."""

from __future__ import annotations

import io
import math

import pytest
from PIL import Image

import engine
from bot.render import RENDERERS, render_png
from bot.render.hex import HexRenderer
from tests.render_probes import closest


@pytest.mark.parametrize("size", [11, 19])
def test_the_last_move_is_framed_round_its_cell(size: int) -> None:
    state = engine.new("hex", size=size).play("f6").play("g6")
    image = Image.open(io.BytesIO(render_png(state))).convert("RGB")
    renderer = RENDERERS["hex"]
    assert isinstance(renderer, HexRenderer)
    radius = renderer._radius(size)
    apothem = (radius - max(3.0, radius * 0.18) / 2) * math.cos(math.radians(30))
    x, y = renderer._centre(size, 6, 5)  # g6: the last move, framed on both sides
    assert {
        closest(image, (x + dx * apothem, y), "last", "faint", "grid", "black") for dx in (-1, 1)
    } == {"last"}
    x, y = renderer._centre(size, 2, 2)  # an empty cell: no frame
    assert closest(image, (x - apothem, y), "last", "faint", "grid", "black") != "last"
