"""Hex's opening book (engine/ai/hexbook.py) and its builder (bench/hexbook.py)."""

from __future__ import annotations

import pytest

import engine
from bench import hexbook as builder
from engine import ai
from engine.ai import hexbook
from engine.ai.hexconnections import connected, geometry
from engine.ai.hexsolve import turn
from engine.ai.mcts import Settings
from tests.test_hexsolve import brute_force


def test_every_move_of_a_built_book_wins_and_no_won_opening_is_left_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The builder on 4x4 against brute force: each kept move wins, every opening
    # White wins has its reply (4x4 positions are proven in a few nodes).
    size = 4
    truth = brute_force(size)
    geo = geometry(size)
    built = builder.build(size, opening_nodes=2_000, quick_nodes=100, nodes=500, simulations=300)
    monkeypatch.setitem(hexbook._SOURCES, size, built.text())
    hexbook._table.cache_clear()
    try:
        table = hexbook._table(size)
        assert len(table) == len(built.entries) > 100
        for (black, white), cell in table.items():
            colour = black.bit_count() - white.bit_count()
            own, other = (black, white) if colour == 0 else (white, black)
            assert not (black | white) >> cell & 1
            after = own | 1 << cell
            assert connected(geo, after, colour) or not truth(other, after, colour ^ 1)
        for opening in range(geo.cells):
            white_wins = truth(0, 1 << opening, 1)
            found = hexbook.winning_cell(size, 1 << opening, 0, 1)
            assert (found is not None) == white_wins, opening
    finally:
        hexbook._table.cache_clear()


def test_the_7x7_book_holds_legal_positions_as_it_keeps_them() -> None:
    table = hexbook._table(7)
    assert len(table) > 1000
    for (black, white), cell in table.items():
        assert not black & white and not (black | white) >> cell & 1
        assert black.bit_count() - white.bit_count() in (0, 1)
        assert hexbook.key_of(7, black, white) == (black, white)


def test_a_position_turned_by_180_degrees_finds_its_entry_turned() -> None:
    (black, white), cell = next(iter(hexbook._table(7).items()))
    colour = black.bit_count() - white.bit_count()
    assert hexbook.winning_cell(7, black, white, colour) == cell
    assert hexbook.winning_cell(7, turn(black, 49), turn(white, 49), colour) == 48 - cell
    assert hexbook.winning_cell(7, black, white, colour ^ 1) is None  # not that mover's


def test_the_ai_answers_a_lost_opening_from_the_book_at_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    state = engine.new("hex", size=7, swap="off").play("a1")
    reply = hexbook.winning_cell(7, 1, 0, 1)
    assert reply is not None, "a1 loses: the book has White's winning reply"
    # A hundredth of a second is no time to search: the answer is the book's.
    assert ai.best_move(state, seconds=0.01, seed=1) == engine.hex.board(7).labels[reply]
    # Plain UCT (the benchmarks' baseline, no knowledge) never reads it.
    asked: list[int] = []
    monkeypatch.setattr(hexbook, "winning_cell", lambda *position: asked.append(1))
    ai.best_move(state, seconds=0.01, seed=1, settings=Settings.plain())
    assert not asked
    ai.best_move(state, seconds=0.01, seed=1)
    assert asked
