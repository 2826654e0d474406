"""The Livewire picture: size, what is drawn where, and robustness."""

from __future__ import annotations

import io
import random

import pytest
from PIL import Image

import engine
from bot.render import render_png, render_text
from bot.render.kit import DEFAULT_THEME, MAX_SIDE
from bot.render.livewire import COLOURS, MARGIN, layout
from engine.livewire import LivewireView

MAX_BYTES = 300_000


def picture(state: engine.GameState) -> Image.Image:
    data = render_png(state, players=["ann", "bob"])
    assert len(data) <= MAX_BYTES
    image = Image.open(io.BytesIO(data)).convert("RGB")
    assert max(image.size) <= MAX_SIDE
    return image


def rgb(key: str) -> tuple[int, int, int]:
    value = DEFAULT_THEME[key].lstrip("#")
    return (int(value[0:2], 16), int(value[2:4], 16), int(value[4:6], 16))


def near(found: tuple[int, ...], key: str, tolerance: int = 24) -> bool:
    return all(abs(a - b) <= tolerance for a, b in zip(found, rgb(key), strict=False))


def pixel(state: engine.GameState, point: tuple[float, float]) -> tuple[int, int]:
    grid = layout(*engine.core.dims(state.options["size"]))
    x, y = grid.at(point)
    return round(x), round(y)


def view_of(state: engine.GameState) -> LivewireView:
    view = state.view()
    assert isinstance(view, LivewireView)
    return view


@pytest.mark.parametrize("size", ["17x14", "42x34", "60x60", "60x14"])
def test_sizes_and_bases_in_their_players_colours(size: str) -> None:
    state = engine.new("livewire", size=size)
    image = picture(state)
    assert image.width == 760
    pitch = layout(*engine.core.dims(size)).pitch
    reach = round(max(4.0, pitch * 0.42))  # a base marker's radius
    for seat, bases in enumerate(view_of(state).bases):
        for base in bases:
            x, y = pixel(state, base)
            across = [
                image.getpixel((x + dx, y)) for dx in range(-reach, reach + 1) if 0 <= x + dx < 760
            ]
            assert any(near(colour, COLOURS[seat], 30) for colour in across)


def test_a_line_is_drawn_in_its_owners_colour_and_the_last_move_is_marked() -> None:
    state = engine.new("livewire")
    view = view_of(state)
    base = view.bases[0][0]
    move = f"{engine.notation.label(base)} {engine.notation.label((base[0] + 2, base[1]))}"
    after = state.play(move)
    image = picture(after)
    halfway = pixel(after, (base[0] + 1.5, base[1]))
    assert near(image.getpixel(halfway), COLOURS[0], 40)
    end = pixel(after, (base[0] + 2, base[1]))
    ring = [image.getpixel((end[0] + dx, end[1])) for dx in range(-8, 9)]
    assert any(near(colour, "last", 40) for colour in ring)


def test_dead_dots_are_grey_crosses_not_player_colours() -> None:
    state = engine.new("livewire", size="17x14").random_playout(random.Random(3))
    view = view_of(state)
    marked = view.last_points[-1:]  # the last move's ring covers its point
    dead = [d for d in view.dots if not d.live and d.kind != "base" and d.point not in marked]
    assert dead, "a random game kills dots"
    image = picture(state)
    crosses = [image.getpixel(pixel(state, d.point)) for d in dead]
    assert all(near(colour, "muted", 40) for colour in crosses)


def test_labels_are_on_the_edges() -> None:
    state = engine.new("livewire")
    image = picture(state)
    grid = layout(42, 34)
    strip = [image.getpixel((x, MARGIN // 2)) for x in range(MARGIN - 6, MARGIN + 6)]
    assert any(sum(c) < 600 for c in strip), "the column letter a"
    assert grid.height + 84 == image.height


@pytest.mark.parametrize("seed", range(6))
def test_random_positions_render(seed: int) -> None:
    rng = random.Random(seed)
    state: engine.GameState = engine.new("livewire", size=rng.choice(["17x14", "42x34", "25x20"]))
    for _ in range(rng.randrange(0, 200)):
        if state.outcome is not None:
            break
        state = state.play(rng.choice(state.legal_moves()))
    picture(state)
    text = render_text(state)
    assert "A" in text and "B" in text and text.count("\n") > 10


def test_a_won_game_highlights_the_path_to_the_base() -> None:
    """Player 1 runs straight along a base row to Player 2's base while Player 2 plays far away."""
    state: engine.GameState = engine.new("livewire", size="17x14")
    start, target = view_of(state).bases[0][0], view_of(state).bases[1][0]
    assert start[1] == target[1]
    column = start[0]
    while state.outcome is None:
        if state.to_move == 0:
            step = 2 if column + 2 <= target[0] else 1
            here = engine.notation.label((column, start[1]))
            there = engine.notation.label((column + step, start[1]))
            state = state.play(f"{here} {there}")
            column += step
        else:
            far = [
                m
                for m in state.legal_moves()
                if all(abs(p[1] - start[1]) > 2 for p in engine.notation.points(m))
            ]
            state = state.play(far[0])
    assert state.outcome.winners == (0,) and state.outcome.reason == engine.End.BASE_REACHED
    image = picture(state)
    path = view_of(state).winning_path
    middle = ((path[0][0] + path[1][0]) / 2, path[0][1])
    assert near(image.getpixel(pixel(state, middle)), "win", 50) or near(
        image.getpixel(pixel(state, (middle[0], middle[1] + 0.18))), "win", 50
    )
