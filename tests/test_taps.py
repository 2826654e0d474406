"""Tap to move: where each game's picture draws its targets (bot/render, `tap_targets`),
and how the engine writes taps as a move (`GameState.tapped`), for every game at its
smallest and largest board."""

from __future__ import annotations

import random
from typing import Any

import pytest

import engine
from bot.render import RENDERERS, render_image, tap_targets
from bot.render.caption import CAPTION_HEIGHT
from engine import GameState, IllegalMove

EXTREMES: list[tuple[str, dict[str, Any]]] = [
    ("hex", {"size": 2}),
    ("hex", {"size": 19}),
    ("disthex", {"size": 2, "swap": "on"}),
    ("disthex", {"size": 19}),
    ("hotwire", {"size": "2x2"}),
    ("hotwire", {"size": "26x26"}),
    ("shortcircuit", {"size": 3}),
    ("shortcircuit", {"size": 10}),
    ("livewire", {"size": "17x14"}),
    ("livewire", {"size": "60x60"}),
    ("intersections", {"size": 3}),
    ("intersections", {"size": 12}),
]
IDS = [f"{name}-{next(iter(options.values()))}" for name, options in EXTREMES]
#: Short Circuit's tools for an action's word in the record ("r d4": red).
WORDS = {"r": "red", "y": "yellow", "b": "blue", "g": "green"}


def taps_of(move: str) -> list[str]:
    """The taps a player makes for `move` as the record writes it: its words (Short
    Circuit's colour initial as the colour's tool), each coordinate a target."""
    words = move.replace("-", " ").split()
    return [WORDS.get(words[0], words[0]), *words[1:]] if words[0] in WORDS else words


def positions(name: str, options: dict[str, Any]) -> list[GameState]:
    """The start and a few random moves on."""
    state = engine.new(name, **options)
    found, rng = [state], random.Random(7)
    for _ in range(5):
        legal = state.legal_moves()
        if state.outcome is not None or not legal:
            break
        state = state.play(rng.choice(legal))
        found.append(state)
    return found


def test_every_game_is_tapped_here() -> None:
    """A new game's renderer and engine are checked below at both ends of its options."""
    assert set(RENDERERS) == {name for name, _ in EXTREMES} == set(engine.GAMES)


@pytest.mark.parametrize(("name", "options"), EXTREMES, ids=IDS)
def test_targets_lie_on_the_board_and_taps_make_each_legal_move(
    name: str, options: dict[str, Any]
) -> None:
    for state in positions(name, options):
        targets = tap_targets(state)
        names = {target.name for target in targets}
        assert len(names) == len(targets)
        _, height = RENDERERS[name].board_size(state)
        board_bottom = height / (height + CAPTION_HEIGHT)
        for target in targets:
            assert 0 < target.x < 1 and 0 < target.y < board_bottom
            assert 0 < target.r < 0.5
        tools = set(state.tap_tools())
        for move in state.legal_moves():
            taps = taps_of(move)
            assert all(tap in names or tap in tools for tap in taps), move
            tapped = state.tapped(taps)
            assert tapped.whole != move.startswith("pop"), move  # a pop leaves the turn open
            assert state.play(tapped.text).moves == state.play(move).moves


@pytest.mark.parametrize(("name", "options"), EXTREMES[::2], ids=IDS[::2])
def test_a_move_changes_the_picture_at_its_targets(name: str, options: dict[str, Any]) -> None:
    """The targets are where the picture draws: the point a move ends on changes colour
    (where it starts may be a base, drawn the same after)."""
    state = engine.new(name, **options)
    move = next(m for m in state.legal_moves() if m != "swap")
    after = state.play(move)
    before_image, after_image = render_image(state), render_image(after)
    where = {target.name: target for target in tap_targets(state)}
    target = where[taps_of(move)[-1]]
    pixel = (round(target.x * before_image.width), round(target.y * before_image.height))
    assert before_image.getpixel(pixel) != after_image.getpixel(pixel), move


def test_short_circuit_turn_of_pops_and_a_piece() -> None:
    state = engine.new("shortcircuit", size=3)
    for move in ("b c3", "r b2", "cap c3"):
        state = state.play(move)
    state = state.play("y d4" if "y d4" in state.legal_moves() else state.legal_moves()[0])
    pops = [m for m in state.legal_moves() if m.startswith("pop")]
    if pops:
        after_pop = state.play(pops[0])
        piece = next(m for m in after_pop.legal_moves() if not m.startswith("pop"))
        tapped = state.tapped([*taps_of(pops[0]), *taps_of(piece)])
        assert tapped == engine.Tapped(f"{pops[0]}, {piece}", True)
        half = state.tapped(taps_of(pops[0]))
        assert not half.whole and half.text == pops[0]
    with pytest.raises(IllegalMove, match="tap a colour first"):
        engine.new("shortcircuit", size=3).tapped(["c3"])


def test_taps_refused_in_one_sentence() -> None:
    hex_state = engine.new("hex", size=5)
    assert hex_state.tapped(["c3"]) == engine.Tapped("c3", True)
    assert hex_state.tap_tools() == ()
    assert hex_state.play("c3").tap_tools() == ("swap",)
    wire = engine.new("hotwire", size="5x5")
    assert wire.tapped(["a1"]) == engine.Tapped("a1", False)
    for taps in (["a1", "b2", "c3"], ["swap"], ["<b>"], ["a1"] * 61):
        with pytest.raises(IllegalMove):
            wire.tapped(taps)
