"""Livewire (reconstructed): states as values, the legal moves, and the surface a search uses
(legal and landing lines, the pass check, threats and their answers). The rules one by one:
tests/test_livewire_rules.py."""

from __future__ import annotations

import math
import random
from collections import Counter

import engine
from engine.core import End, IllegalMove
from engine.livewire import Dot, Line, LivewireState
from tests.livewirekit import SMALL, game, meeting, only_dot, toward_r4, view_of

# -- the API -------------------------------------------------------------------------------


def test_play_returns_a_new_state() -> None:
    state = meeting()
    before = state.view()
    after = state.play("i9 j9")
    assert state.view() == before and state.moves == meeting().moves
    assert after.ply == state.ply + 1


def test_view_records() -> None:
    view = game("a9-c9", "r9-q10", "c9-c10").view()
    assert view.game == "livewire" and view.ply == 3 and view.to_move == 1
    assert view.last_move == "c9-c10" and view.last_points == ((2, 8), (2, 9))
    assert view.lines == (
        Line((0, 8), (2, 8), 0, "straight"),
        Line((17, 8), (16, 9), 1, "diagonal"),
        Line((2, 8), (2, 9), 0, "branch"),
    )
    assert only_dot(view, (2, 8)) == Dot((2, 8), 0, "straight", True, True, (0, 8))
    assert only_dot(view, (2, 9)) == Dot((2, 9), 0, "branch", True, False, (2, 8))
    assert only_dot(view, (16, 9)) == Dot((16, 9), 1, "diagonal", True, False, (17, 8))
    assert view.winning_path == () and view.outcome is None


def test_legal_moves_are_exactly_what_play_accepts() -> None:
    rng = random.Random(7)
    final = engine.new("livewire", size=SMALL).random_playout(rng)
    for ply in sorted(rng.sample(range(final.ply - 2), 10)):
        state = engine.replay("livewire", final.options, final.moves[:ply])
        if state.to_move is None:
            continue
        legal = set(state.legal_moves())
        view = view_of(state)
        accepted = set()
        for dot in view.dots:
            for dx in range(-2, 3):
                for dy in range(-2, 3):
                    x, y = dot.point[0] + dx, dot.point[1] + dy
                    if not (0 <= x <= view.width and 0 <= y <= view.height):
                        continue
                    text = f"{engine.notation.label(dot.point)}-{engine.notation.label((x, y))}"
                    try:
                        state.play(text)
                    except IllegalMove:
                        continue
                    accepted.add(text)
        assert accepted == legal


def test_random_playouts_replay() -> None:
    start = engine.new("livewire")
    for seed in range(4):
        final = start.random_playout(random.Random(seed))
        assert final.outcome is not None
        assert engine.replay("livewire", final.options, final.moves) == final
    assert start.ply == 0


# -- the surface a search uses -------------------------------------------------------


def test_legal_lines_are_the_legal_moves_and_draw_like_them() -> None:
    state = toward_r4()
    lines = state.legal_lines()
    assert sorted(map(state.move_text, lines)) == sorted(state.legal_moves())
    for line in lines[:12]:
        drawn = state.copy()
        drawn.draw_line(line)
        assert drawn == state.play(state.move_text(line))


def test_base_landings_are_the_winning_lines() -> None:
    state = toward_r4()
    landings = state.base_landings(state.legal_lines())
    assert [state.move_text(line) for line in landings] == ["p4-r4"]
    assert game().base_landings(game().legal_lines()) == []


def test_random_and_landing_lines_play_whole_games_by_the_rules() -> None:
    # Games to the end by random_line at three sets of weights, landing whenever
    # landing_line offers: every line legal, landing_line's answer exactly whether a
    # legal line lands on a base, and the record replays to the same end.
    rng = random.Random(3)
    ends = Counter()
    for weights in [(1,) * 8, (1, 1, 6, 1, 1, 3, 3, 3), (1, 1, 40, 1, 1, 20, 20, 20)]:
        for _ in range(6):
            state = game()
            while state.outcome is None:
                lines = state.legal_lines()
                landing = state.landing_line()
                assert (landing is None) == (not state.base_landings(lines))
                line = landing or state.random_line(rng, weights)
                assert line in lines and (landing is None or line in state.base_landings(lines))
                state.draw_line(line)
            assert engine.replay("livewire", state.options, state.moves) == state
            ends[state.outcome.reason] += 1
    assert set(ends) == {End.BASE_REACHED, End.PASSES}


def test_the_pass_check_answers_as_a_look_at_every_line_would() -> None:
    # _has_move starts from the line it found last, and remembers a player left with none
    rng = random.Random(8)
    for _ in range(8):
        state = game()
        while state.outcome is None:
            for seat in (0, 1):
                assert state._has_move(seat) == any(True for _ in state._legal(seat))
            state.draw_line(state.random_line(rng, (1,) * 8))


def test_random_lines_are_drawn_in_proportion_to_their_weights() -> None:
    state = toward_r4()
    lines = state.legal_lines()
    weights = (1, 2, 6, 1, 2, 3, 4, 3)
    total = sum(weights[move] for _, move in lines)
    rng = random.Random(5)
    draws = 60 * total
    counts = Counter(state.random_line(rng, weights) for _ in range(draws))
    assert set(counts) == set(lines)
    for (start, move), count in counts.items():
        expected = 60 * weights[move]
        assert abs(count - expected) < 5 * math.sqrt(expected), (start, move)


def test_can_land_sees_a_threat_whoever_is_to_move() -> None:
    assert not game().can_land(0) and not game().can_land(1)
    threat = toward_r4()  # Player 1's p4 can land on r4
    assert threat.can_land(0) and not threat.can_land(1)
    moved_on = threat.play("p4 p6")  # a straight dot two rows up: no base in reach
    assert not moved_on.can_land(0) and not moved_on.can_land(1)


def test_every_threat_can_be_answered_with_one_line() -> None:
    """The defender kills a new threatening dot with its line drawn the other way
    (docs/AI.md, Livewire: why a defender who answers every threat never loses)."""
    threats = 0
    for seed in range(60):
        rng = random.Random(seed)
        state = game()
        while state.outcome is None and state.ply < 120:
            seat = state.ply % 2
            if state.can_land(1 - seat):
                threats += 1
                answers = [line for line in state.legal_lines() if _answers(state, line)]
                assert answers, " ".join(state.moves)
            lines = state.legal_lines()
            landings = state.base_landings(lines)
            forward = [line for line in lines if line[1] == 2]  # straight forward
            if landings:
                line = landings[0]
            elif forward and rng.random() < 0.8:
                line = rng.choice(forward)
            else:
                line = rng.choice(lines)
            state.draw_line(line)
    assert threats >= 30


def _answers(state: LivewireState, line: tuple[int, int]) -> bool:
    after = state.copy()
    after.draw_line(line)
    return after.outcome is None and not after.can_land(1 - state.ply % 2)


def test_a_base_closed_on_every_side_is_no_goal() -> None:
    start = game()
    assert start.open_bases(1) == [(17, 3), (17, 6), (17, 8), (17, 11)]
    assert start.lines_to_goal(0)[((0, 3), False)] == 9  # 17 squares: 8 straight lines, a branch
    assert start.lines_to_goal(0)[((15, 3), True)] == 1  # p4-r4
    assert start.lines_to_goal(0)[((16, 4), False)] == 1  # a branch or diagonal dot: q5-r4
    assert start.lines_to_goal(0)[((16, 4), True)] == 2  # a straight one: q5-q4-r4
    # Player 2 draws every line into its base r4 from its side: up, down, forward, diagonals.
    closed = game("a9-b9", "r4-r6", "b9-c9", "r4-r2", "c9-d9", "r4-q4", "d9-e9", "r4-q5")
    assert (17, 3) in closed.open_bases(1)  # the diagonal from below is still open
    closed = closed.play("e9-f9").play("r4-q3")
    assert closed.open_bases(1) == [(17, 6), (17, 8), (17, 11)]
    assert closed.lines_to_goal(0)[((15, 3), False)] == 3  # p4 must now go round to r7
