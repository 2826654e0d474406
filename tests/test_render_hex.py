"""Hex's picture: the last move is easy to find on the usual and the largest boards;
Disthex crosses out the cells next to the opponent's last stone, and only those."""

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


def neighbours(column: int, row: int, size: int) -> set[tuple[int, int]]:
    """The six cells touching (column, row) on the rhombus (rows shifted right)."""
    steps = ((-1, 0), (1, 0), (0, -1), (1, -1), (-1, 1), (0, 1))
    return {
        (column + dc, row + dr)
        for dc, dr in steps
        if 0 <= column + dc < size and 0 <= row + dr < size
    }


def crossed(image: Image.Image, renderer: HexRenderer, size: int, cell: tuple[int, int]) -> bool:
    """Whether the cell shows the forbidden cross: both diagonals through its centre in
    the muted ink, and the cell's own colour beside them (a cross, not a blot)."""
    x, y = renderer._centre(size, *cell)
    arm = renderer._radius(size) * 0.28 * 0.7
    on_arms = [(x, y), *((x + dx * arm, y + dy * arm) for dx in (-1, 1) for dy in (-1, 1))]
    beside = [(x + arm, y), (x - arm, y), (x, y + arm), (x, y - arm)]
    return all(muted_near(image, at) for at in on_arms) and all(
        closest(image, at, "muted", "faint") == "faint" for at in beside
    )


def muted_near(image: Image.Image, at: tuple[float, float]) -> bool:
    """Whether a pixel within one of `at` is the muted ink rather than the cell's fill
    (a thin diagonal line and a rounded probe may miss each other by a pixel)."""
    return any(
        closest(image, (at[0] + dx, at[1] + dy), "muted", "faint") == "muted"
        for dx in (-1, 0, 1)
        for dy in (-1, 0, 1)
    )


@pytest.mark.parametrize("size", [7, 11])
def test_disthex_crosses_out_the_cells_next_to_the_opponents_last_stone(size: int) -> None:
    renderer = RENDERERS["disthex"]
    assert isinstance(renderer, HexRenderer)
    black = engine.new("disthex", size=size).play("d4")  # (3, 3): White may not touch it
    both = black.play("c3")  # (2, 2), not touching d4: now Black may not touch c3
    for state, last in ((black, (3, 3)), (both, (2, 2))):
        taken = {point for point, _ in state.view().stones}
        forbidden = neighbours(*last, size) - taken
        assert set(state.view().forbidden) == forbidden  # the rule, as the test reads it
        image = Image.open(io.BytesIO(render_png(state))).convert("RGB")
        empty = {(c, r) for c in range(size) for r in range(size)} - taken
        drawn = {cell for cell in empty if crossed(image, renderer, size, cell)}
        assert drawn == forbidden
    # the cells only d4 touched are free again once White has moved away
    assert {(4, 3), (4, 2), (2, 4), (3, 4)} <= set(empty) - drawn


def test_hex_crosses_out_nothing() -> None:
    renderer = RENDERERS["hex"]
    assert isinstance(renderer, HexRenderer)
    state = engine.new("hex", size=7, swap=False).play("d4").play("c3")
    image = Image.open(io.BytesIO(render_png(state))).convert("RGB")
    stones = {point for point, _ in state.view().stones}
    free = {(c, r) for c in range(7) for r in range(7)} - stones
    assert not {cell for cell in free if crossed(image, renderer, 7, cell)}
