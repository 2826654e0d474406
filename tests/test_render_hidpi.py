"""The picture at twice the pixels, for high-DPI screens (`render_png(..., scale=2)`):
the same drawing as the 1x picture, not reduced, in every game; the 1x picture the
same bytes whether or not a 2x was drawn; a tap's fractions on the same place."""

from __future__ import annotations

import io
import random

import pytest
from PIL import Image, ImageChops, ImageStat

import engine
from bot.render import render_png, tap_targets
from engine import GameState

NAMES = ("ann", "bob", "cat", "dan", "eve")
#: The 2x picture reduced differs from the 1x by this much at most, on average over its
#: pixels and channels (out of 255): edges and text fall on other pixels, nothing more.
MOST_MEAN_DIFFERENCE = 4.0


def position(game: str, moves: int = 8) -> GameState:
    """A game some random moves in."""
    state = engine.new(game)
    rng = random.Random(0)
    for _ in range(moves):
        if state.outcome is not None:
            break
        state = state.play(rng.choice(list(state.legal_moves())))
    return state


def picture(png: bytes) -> Image.Image:
    return Image.open(io.BytesIO(png)).convert("RGB")


@pytest.mark.parametrize("game", list(engine.GAMES))
def test_the_2x_picture_is_the_1x_drawing_at_twice_the_pixels(game: str) -> None:
    state = position(game)
    names = NAMES[: state.players]
    once = picture(render_png(state, players=names, caption="due in 2 days"))
    twice = picture(render_png(state, players=names, caption="due in 2 days", scale=2))
    assert twice.size == (2 * once.width, 2 * once.height)
    difference = ImageChops.difference(once, twice.reduce(2))
    assert sum(ImageStat.Stat(difference).mean) / 3 < MOST_MEAN_DIFFERENCE


@pytest.mark.parametrize("game", ["hex", "hotwire"])
def test_a_suggestion_is_drawn_at_2x_too(game: str) -> None:
    state = position(game)
    move = random.Random(1).choice(list(state.legal_moves()))
    plain = picture(render_png(state, scale=2))
    hinted = picture(render_png(state, suggestion=move, scale=2))
    assert hinted.size == plain.size
    changed = ImageChops.difference(plain, hinted).getbbox()
    assert changed is not None and changed[3] > 0


def test_the_1x_picture_is_the_same_bytes_after_a_2x_is_drawn() -> None:
    """The backgrounds, sprites and words kept for either scale never reach the other."""
    for game in engine.GAMES:
        state = position(game, moves=5)
        first = render_png(state, players=NAMES[: state.players])
        render_png(state, players=NAMES[: state.players], scale=2)
        assert render_png(state, players=NAMES[: state.players]) == first
        assert render_png(state, players=NAMES[: state.players], scale=1) == first


def test_a_tap_lands_on_the_same_place_at_either_scale() -> None:
    state = engine.new("hex", size=5).play("c3").play("a1")
    targets = {target.name: target for target in tap_targets(state)}
    seen = {}
    for scale in (1, 2):
        image = picture(render_png(state, scale=scale))
        for cell in ("c3", "e5"):  # a stone, an empty cell
            target = targets[cell]
            pixel = image.getpixel((int(target.x * image.width), int(target.y * image.height)))
            assert isinstance(pixel, tuple)
            seen[cell, scale] = pixel
    for cell in ("c3", "e5"):
        assert max(abs(a - b) for a, b in zip(seen[cell, 1], seen[cell, 2], strict=True)) < 8
    assert seen["c3", 2] != seen["e5", 2]


def test_only_1x_and_2x_are_drawn() -> None:
    with pytest.raises(ValueError, match="1 or 2"):
        render_png(engine.new("hex", size=5), scale=3)
