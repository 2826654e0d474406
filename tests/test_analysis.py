"""The analysis' words and chances (bot/service/looks/analysis.py, in the worker): what was
proven is said to be, what was estimated is said to be, a move in a position already
lost is no blunder, and the searches' lean towards or against their mover is taken out."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

import engine
from bot.service.looks.analysis import JudgedPosition, Judgement, judge, report, unbiased
from engine.ai import hexbook, hexsolve

HOTWIRE = {"size": 5}
PLAYERS = ["ann", "bob"]


def hotwire_record(plies: int) -> list[str]:
    """A few legal Hot Wire moves (the first legal wire each time)."""
    state = engine.new("hotwire", **HOTWIRE)
    record = []
    for _ in range(plies):
        move = state.legal_moves()[0]
        record.append(move)
        state = state.play(move)
    return record


def words(record: Sequence[str], verdicts: Sequence[Judgement]) -> list[str]:
    result, png = report("hotwire", HOTWIRE, record, verdicts, PLAYERS, "Hot Wire #1")
    assert png.startswith(b"\x89PNG")
    return str(result["text"]).splitlines()


def even(best: str) -> Judgement:
    return Judgement((0.5, 0.5), best, best_chance=0.5)


LOST = Judgement((0.0, 1.0), None, proven=True)  # Black (seat 1) wins


def test_the_best_move_found_in_a_lost_position_is_not_called_a_swing() -> None:
    """The hint suggested a wire; the analysis later called the same wire "Red 43% -> 0%"
    with no better move named. The position was lost already: the words say so."""
    record = hotwire_record(4)
    verdicts = [
        even(record[0]),
        even(record[1]),
        Judgement((0.43, 0.57), record[2], best_chance=0.43),  # Red's best: the move played
        LOST,
        LOST,
    ]
    lines = words(record, verdicts)
    assert lines == [
        f"move 3 {record[2]}: Red's position was already lost: no move found was better "
        "(estimated 43% before, lost after it, proven)",
        "Black had a forced win from move 3 (proven)",
    ]


def test_a_move_in_a_position_proven_lost_is_not_named() -> None:
    record = hotwire_record(4)
    verdicts = [even(record[0]), even(record[1]), LOST, LOST, LOST]
    assert words(record, verdicts) == [
        "no move changed the chances much",
        "Black had a forced win from move 2 (proven)",
    ]


def test_a_forced_win_thrown_away_is_proven_and_names_the_winning_move() -> None:
    record = hotwire_record(4)
    won = Judgement((1.0, 0.0), "a1-b3", proven=True, refuted=True)  # Red's, not the move played
    verdicts = [even(record[0]), even(record[1]), won, LOST, LOST]
    assert f"move 3 {record[2]}: Red threw away a forced win (proven); a1-b3 won" in words(
        record, verdicts
    )


def test_estimates_are_called_estimates() -> None:
    record = hotwire_record(4)
    verdicts = [
        even(record[0]),
        even(record[1]),
        Judgement((0.6, 0.4), "a1-b3", best_chance=0.6),
        Judgement((0.3, 0.7), record[3], best_chance=0.7),
        Judgement((0.3, 0.7), None),
    ]
    assert words(record, verdicts) == [
        f"move 3 {record[2]}: Red's chances, estimated: 60% -> 30%; better was a1-b3",
    ]


def alternation(chances: Sequence[float], movers: Sequence[int | None]) -> float:
    """The zigzag: the mean of each chance's excess over its neighbours' mean, counted
    for the seat to move (0 when a search neither favours nor disfavours its mover)."""
    excess = [
        (1 if movers[ply] == 0 else -1) * (chances[ply] - (chances[ply - 1] + chances[ply + 1]) / 2)
        for ply in range(1, len(chances) - 1)
    ]
    return sum(excess) / len(excess)


def test_a_quiet_game_draws_a_quiet_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """A quiet game: each move the search's own choice, so no move should change the
    chances. The searches' chances still zigzagged by who was to move (each mean of a
    search counts the moves it tried and dropped, and reads low for its mover); taken
    out, the zigzag is gone. Node budgets: deterministic. Without the compiled
    connections, which prove these 7x7 positions from the fifth move, and without
    the opening book, which proves the first ones."""
    monkeypatch.setattr(hexsolve, "compiled_for", lambda size: None)
    options = {"size": 7, "swap": False}
    record: list[str] = []
    verdicts = []
    with hexbook.set_aside(7):
        for _ in range(11):
            verdict = judge("hex", options, record, 60.0, 400)
            assert not verdict.proven and verdict.best is not None
            verdicts.append(verdict)
            record.append(verdict.best)
    record.pop()  # the last position's move is not played
    movers = [engine.replay("hex", options, record[:ply]).to_move for ply in range(11)]
    positions = [JudgedPosition(v, mover, None) for v, mover in zip(verdicts, movers, strict=True)]
    raw = [v.chances[0] for v in verdicts]
    fixed = [p.verdict.chances[0] for p in unbiased(positions, record)]
    assert alternation(raw, movers) < -0.03  # measured -0.062
    assert abs(alternation(fixed, movers)) < 0.02  # measured 0.007
