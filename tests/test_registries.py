"""Every game in engine.GAMES is registered in every layer, under its name: a renderer
and the options the gallery draws it with (bot/render/<game>.py), its AI (an adapter,
and a solver of its own where it has one: engine/ai/<game>ai.py), and words for every
way it can end (bot/service/core/messages.py). A game that misses one fails here, named."""

from __future__ import annotations

import pytest

import engine
from bot.render.board import GALLERY, RENDERERS
from bot.render.board import register as register_renderer
from bot.service.core.messages import DRAWS, REASONS
from engine.ai.registry import ADAPTERS, SOLVERS, adapter_for
from engine.ai.registry import register as register_ai
from engine.core import SERVICE_ENDS, End

#: The games without a solver of their own: `minimax_solve` proves their small
#: positions over their adapter.
WITHOUT_SOLVER = {"intersections", "livewire", "shortcircuit"}

GAMES = sorted(engine.GAMES)


def test_no_layer_registers_a_game_the_engine_does_not_know() -> None:
    assert set(RENDERERS) == set(GALLERY) == set(ADAPTERS) == set(engine.GAMES)
    assert set(SOLVERS) == set(engine.GAMES) - WITHOUT_SOLVER


@pytest.mark.parametrize("name", GAMES)
def test_each_game_has_its_renderer_and_gallery_options(name: str) -> None:
    assert name in RENDERERS, f"bot/render has no renderer registered for {name}"
    assert name in GALLERY, f"bot/render has no gallery options registered for {name}"
    state = engine.new(name, **GALLERY[name])
    renderer = RENDERERS[name]
    assert renderer.game == name
    own, _ = renderer.typed(state)  # the renderer takes its own game's positions
    assert own is state


@pytest.mark.parametrize("name", GAMES)
def test_each_game_has_its_ai(name: str) -> None:
    assert name in ADAPTERS, f"engine/ai registers no adapter for {name}"
    has_solver = name not in WITHOUT_SOLVER
    assert (name in SOLVERS) == has_solver, f"{name}: a solver, or a place in WITHOUT_SOLVER"
    state = engine.new(name)
    adapter = adapter_for(state)
    root = adapter.root(state)
    moves = adapter.moves(root)
    assert sorted(adapter.text(root, move) for move in moves) == sorted(state.legal_moves())


@pytest.mark.parametrize("name", GAMES)
def test_every_way_a_game_can_end_has_words(name: str) -> None:
    for end in engine.GAMES[name].ends | SERVICE_ENDS:
        assert end in REASONS or end in DRAWS, f"{name} can end by {end}: messages.py has no words"
    assert not set(REASONS) & DRAWS


def test_every_end_is_some_game_s_and_has_words() -> None:
    produced = set(SERVICE_ENDS).union(*(info.ends for info in engine.GAMES.values()))
    assert produced == set(End) == set(REASONS) | DRAWS


def test_registering_a_second_renderer_or_ai_for_a_game_raises() -> None:
    with pytest.raises(ValueError, match="already registered"):
        register_renderer(RENDERERS["hex"], gallery={})
    with pytest.raises(ValueError, match="already registered"):
        register_ai("hex", ADAPTERS["hex"])
    assert GALLERY["hex"] == {} and SOLVERS["hex"]  # unchanged
