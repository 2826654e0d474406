"""Hex's opening book (engine/ai/hexbook.py) and its builder (bench/hexbook.py)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

import engine
from bench import hexbook as builder
from bench.ai import PUBLISHED_WINS
from engine import ai
from engine.ai import hexbook
from engine.ai.hexconnections import connected, geometry
from engine.ai.hexsolve import turn
from engine.ai.mcts import Settings
from tests.test_hexsolve import brute_force

#: One memo per board size for the tests of this file (4x4's costs seconds).
solved = cache(brute_force)


def assert_every_move_wins(size: int, table: dict[tuple[int, int], int]) -> None:
    truth = solved(size)
    geo = geometry(size)
    for (black, white), cell in table.items():
        colour = black.bit_count() - white.bit_count()
        own, other = (black, white) if colour == 0 else (white, black)
        assert not (black | white) >> cell & 1
        after = own | 1 << cell
        assert connected(geo, after, colour) or not truth(other, after, colour ^ 1)


def test_every_move_of_a_built_book_wins_and_no_won_opening_is_left_out(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # The builder on 4x4 against brute force: each kept move wins, every opening
    # White wins has its reply (4x4 positions are proven in a few nodes).
    size = 4
    truth = solved(size)
    built = builder.build(size, opening_nodes=2_000, quick_nodes=100, nodes=500, simulations=300)
    book = built.out = tmp_path / "hexbook_4x4.txt"
    limits = "opening_nodes quick_nodes nodes simulations deep_nodes answer_nodes retry_nodes"
    named = {"answers": "every one", "retry_answers": 8, "followed": ""}
    built.limits = dict.fromkeys(limits.split(), 0) | named
    built.save()
    monkeypatch.setitem(hexbook.BOOKS, size, book)
    hexbook.table.cache_clear()
    try:
        table = hexbook.table(size)
        assert len(table) == len(built.entries) > 100
        assert_every_move_wins(size, table)
        for opening in range(size * size):
            white_wins = truth(0, 1 << opening, 1)
            found = hexbook.winning_cell(size, 1 << opening, 0, 1)
            assert (found is not None) == white_wins, opening
    finally:
        hexbook.table.cache_clear()


def test_the_deep_stages_give_a_move_to_every_position_known_won() -> None:
    # Limits of one node leave 4x4 positions unproven. Stage 4 (in a worker process)
    # proves each one the published table or the book's own reply says the mover
    # wins, and only those; stage 5 follows each book move of plies 3-4 with the
    # answers a search likes best, or with every answer, which the mover is known
    # to win too; stage 7 goes a move deeper along the likeliest answers.
    size = 4
    built = builder.build(size, opening_nodes=2_000, quick_nodes=1, nodes=1, simulations=10)
    left = builder.known_wins_left(built)
    assert len(left) > 10
    before = len(built.entries)
    builder.deepen(built, nodes=2_000, workers=1)
    assert builder.known_wins_left(built) == []
    assert len(built.entries) == before + len(left)  # 4x4's openings: all proven in stage 1
    before = len(built.entries)
    builder.extend(built, count=2, simulations=50, nodes=2_000, workers=1)
    assert len(built.entries) > before
    lines = builder.book_lines(built, {2, 3})
    assert lines and all(len(line) in (3, 4) for line in lines)
    for line in lines:
        for answer in builder.likely_answers(size, line, 2, 50):
            assert built.move(builder.played(built.start, (*line, answer))) is not None
    builder.extend(built, count=None, simulations=50, nodes=2_000, workers=1)
    for line in lines:  # all: every answer
        position = builder.played(built.start, line)
        assert builder.likely_answers(size, line, None, 50) == position.legal_moves()
        for answer in position.legal_moves():
            assert built.move(position.play(answer)) is not None
    builder.follow(built, width=2, simulations=50, nodes=2_000, workers=1)
    followed = 0
    for line in lines:  # stage 7: a move deeper along the likeliest lines
        for answer in builder.likely_answers(size, line, 2, 50):
            replied = (*line, answer, built.move(builder.played(built.start, (*line, answer))))
            if builder.played(built.start, replied).outcome is None:
                for second in builder.likely_answers(size, replied, 2, 50):
                    assert built.move(builder.played(built.start, (*replied, second))) is not None
                    followed += 1
    assert followed > 10
    for line in builder.book_lines(built, set(range(1, 8))):  # every move wins (the prover)
        position = builder.played(built.start, line[:-1])
        mover = position.to_move
        after = position.play(line[-1])
        outcome = after.outcome
        solution = ai.solve(after, seconds=10, nodes=2_000, every=False)
        assert (outcome is not None and mover in outcome.winners) or (
            solution is not None and solution.winner == mover
        ), line


def test_the_7x7_book_holds_legal_positions_as_it_keeps_them() -> None:
    table = hexbook.table(7)
    assert len(table) > 1000
    for (black, white), cell in table.items():
        assert not black & white and not (black | white) >> cell & 1
        assert black.bit_count() - white.bit_count() in (0, 1)
        assert hexbook.key_of(7, black, white) == (black, white)


def test_a_position_turned_by_180_degrees_finds_its_entry_turned() -> None:
    (black, white), cell = next(iter(hexbook.table(7).items()))
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


def test_the_analysis_names_the_winner_of_every_7x7_opening_from_the_book() -> None:
    # The book holds White's winning reply to each lost opening and Black's winning
    # answer to every reply of each won one: all 49 settled, in a few simulations.
    empty = engine.new("hex", size=7, swap="off")
    labels = engine.hex.board(7).labels
    for opening in labels:
        analysis = ai.analyse(empty.play(opening), seconds=10.0, nodes=20, seed=1)
        black_wins = opening in PUBLISHED_WINS[7]
        assert analysis.proven_winner == (0 if black_wins else 1), opening
        if black_wins:  # every reply loses: the whole answer
            assert analysis.proven is not None and analysis.proven.winning_moves == ()
        else:  # one winning reply known, not every one
            assert analysis.proven is None and analysis.best[0].chance == 1.0


def test_the_solver_answers_from_the_book_only_what_it_was_asked() -> None:
    lost = engine.new("hex", size=7, swap="off").play("a1")  # White wins with c5
    assert ai.solve(lost, seconds=0.0, every=False) == ai.Solution(1, ("c5",))
    assert ai.solve(lost, seconds=0.0, every=False, first="c5") == ai.Solution(1, ("c5",))
    # Every winning move, or whether g2 wins: more than the book's one move.
    assert ai.solve(lost, seconds=0.0) is None
    assert ai.solve(lost, seconds=0.0, every=False, first="g2") is None
    won = engine.new("hex", size=7, swap="off").play("d4")  # every reply loses
    assert ai.solve(won, seconds=0.0) == ai.Solution(0, ())


def test_after_a_swap_the_book_proves_the_win_for_the_seat_holding_the_colour() -> None:
    swapped = engine.new("hex", size=7, swap="on").play("a1").play("swap")
    assert swapped.to_move == 0  # the first player now has White's stones to place
    analysis = ai.analyse(swapped, seconds=10.0, nodes=20, seed=1)
    assert analysis.proven_winner == 0 and analysis.best[0].move == "c5"
    assert ai.best_move(swapped, seconds=0.01, seed=1) == "c5"
