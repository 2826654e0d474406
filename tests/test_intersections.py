"""Making Intersections against an independent geometric model (tests/intersectionskit.py): the
property behind the size limit, the fewest covering segments (jk - j - k + 4), and the view
through a game. The rules one by one: tests/test_intersections_rules.py."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine.intersections import IntersectionsState
from engine.notation import sort_key
from tests.conftest import play
from tests.intersectionskit import (
    Segment,
    all_segments,
    clash,
    covers,
    current_segments,
    game,
    largest_segments,
    segment_text,
    unit_edges,
    view,
)

# -- the property behind the size limit -------------------------------------------


@settings(max_examples=60, deadline=None)
@given(size=st.integers(3, 7), seed=st.integers(0, 2**32 - 1))
def test_legal_moves_follow_the_geometry_and_uncovered_unit_edges_stay_legal(
    size: int, seed: int
) -> None:
    """Whole games with the largest m: at every step the legal list is exactly the
    segments clashing with none of this round's, and every uncovered unit edge is in it."""
    rng = random.Random(seed)
    state = game(2, size=size, segments=largest_segments(size, 2), rounds=2)
    while state.outcome is None:
        drawn = current_segments(state)
        legal = state.legal_moves()
        expected = [
            segment_text(s) for s in all_segments(size, size) if not any(clash(s, d) for d in drawn)
        ]
        assert legal == sorted(expected, key=sort_key)
        uncovered = [e for e in unit_edges(size, size) if not any(covers(d, e) for d in drawn)]
        assert uncovered, "m is below the fewest covering segments"
        assert {segment_text(e) for e in uncovered} <= set(legal)
        state = state.play(rng.choice(legal))


@pytest.mark.parametrize(
    ("size", "players"), [(3, 2), (3, 3), (3, 6), (4, 2), (4, 5), (5, 2), (6, 4)]
)
def test_rounds_with_the_largest_segments_never_get_stuck(size: int, players: int) -> None:
    start = game(players, size=size, segments=largest_segments(size, players))
    rng = random.Random(size * 10 + players)
    for _ in range(30):
        final = start.random_playout(rng)
        assert final.outcome is not None
        assert final.ply == start.segments_per_round * start.rounds
        assert "pass" not in final.moves
        assert engine.replay("intersections", final.options, final.moves) == final


# -- the fewest covering segments: jk - j - k + 4 -----------------------------------


def cover_construction(columns: int, rows: int) -> list[Segment]:
    """Every row whole, the two outer columns whole, inner columns by unit edges."""
    top, right = rows - 1, columns - 1
    cover = [((0, r), (right, r)) for r in range(rows)]
    cover += [((0, 0), (0, top)), ((right, 0), (right, top))]
    cover += [((c, r), (c, r + 1)) for c in range(1, right) for r in range(top)]
    return cover


@pytest.mark.parametrize(
    ("columns", "rows"), [(2, 2), (2, 5), (3, 3), (3, 4), (5, 2), (4, 6), (6, 6), (7, 5)]
)
def test_a_cover_of_the_stated_size_is_a_legal_round(columns: int, rows: int) -> None:
    cover = cover_construction(columns, rows)
    assert len(cover) == columns * rows - columns - rows + 4
    size = max(columns, rows) + 1  # room for m above the cover size
    state = game(2, size=size, segments=largest_segments(size, 2))
    assert len(cover) < state.segments_per_round
    state = play(state, *(segment_text(s) for s in cover))  # every one is legal
    legal = set(state.legal_moves())
    for edge in unit_edges(columns, rows):
        assert segment_text(edge) not in legal  # covered
        assert any(covers(s, edge) for s in cover)


def fewest_cover(columns: int, rows: int) -> int:
    """Branch and bound over non-clashing segments covering every unit edge."""
    edges = unit_edges(columns, rows)
    segments = sorted(
        all_segments(columns, rows), key=lambda s: -abs(s[1][0] - s[0][0] - s[1][1] + s[0][1])
    )
    covering = {e: [s for s in segments if covers(s, e)] for e in edges}

    def line(edge: Segment) -> tuple[bool, int]:
        flat = edge[0][1] == edge[1][1]
        return flat, edge[0][1] if flat else edge[0][0]

    best = len(edges)  # the unit edges themselves never clash

    def search(chosen: list[Segment], uncovered: list[Segment]) -> None:
        nonlocal best
        if not uncovered:
            best = min(best, len(chosen))
            return
        # one segment covers edges of one line only
        if len(chosen) + len({line(e) for e in uncovered}) >= best:
            return
        for s in covering[uncovered[0]]:
            if not any(clash(s, c) for c in chosen):
                search([*chosen, s], [e for e in uncovered if not covers(s, e)])

    search([], edges)
    return best


@pytest.mark.parametrize(
    ("columns", "rows"), [(2, 2), (2, 3), (3, 2), (2, 4), (3, 3), (3, 4), (4, 4), (5, 4)]
)
def test_the_fewest_covering_segments_by_search(columns: int, rows: int) -> None:
    assert fewest_cover(columns, rows) == columns * rows - columns - rows + 4


# -- the view ---------------------------------------------------------------------


def test_view_through_a_game() -> None:
    start = view(game(2, size=4, segments=2))
    assert (start.size, start.round, start.rounds, start.segments_per_round) == (4, 1, 2, 2)
    assert (start.offense, start.to_move, start.players) == (0, 0, 2)
    assert start.segments == () and start.degrees == () and start.scoring_dots == ()
    assert start.scores == (0, 0) and start.history == () and start.finished_round is None

    state = play(game(2, size=4, segments=2), "a1-a3")
    middle = view(state)
    assert [(s.text, s.start, s.end, s.seat) for s in middle.segments] == [
        ("a1-a3", (0, 0), (0, 2), 0)
    ]
    assert middle.last_move == "a1-a3" and middle.finished_round is None

    state = state.play("a2-b2")  # round 1 ends: the array is empty again
    boundary = view(state)
    assert boundary.segments == () and boundary.round == 2 and boundary.offense == 1
    assert boundary.scores == (1, 0)
    assert boundary.finished_round is not None
    assert boundary.finished_round == boundary.history[-1]
    assert [s.text for s in boundary.finished_round.segments] == ["a1-a3", "a2-b2"]
    assert boundary.finished_round.scoring_dots == ((0, 1),)

    state = state.play("c1-c2")
    next_round = view(state)
    assert next_round.finished_round is None
    assert len(next_round.history) == 1
    assert [(s.text, s.seat) for s in next_round.segments] == [("c1-c2", 1)]

    final = view(state.play("c3-c2"))
    assert final.outcome is not None and final.to_move is None and final.offense is None
    assert final.round == 2 and final.segments == ()
    assert final.finished_round is not None and final.finished_round.round == 2
    assert final.finished_round.offense == 1 and final.finished_round.points == 0
    assert [r.points for r in final.history] == [1, 0]


def test_play_leaves_the_state_it_was_given_unchanged() -> None:
    state = play(game(2, size=4, segments=2), "a1-a3")
    before = (state.moves, view(state), state.legal_moves(), state.scores)
    state.play("a2-b2")
    assert (state.moves, view(state), state.legal_moves(), state.scores) == before


def test_random_playout_replays_to_an_equal_state() -> None:
    rng = random.Random(7)
    for players in range(2, 9):
        final = game(players).random_playout(rng)
        assert final.outcome is not None
        assert final.outcome.scores == final.scores
        assert sum(final.scores) == sum(final.round_points)
        again = engine.replay("intersections", json.loads(json.dumps(final.options)), final.moves)
        assert again == final and again.view() == final.view()


def test_segment_gain_counts_the_dots_a_segment_takes_to_degree_three_or_four() -> None:
    candidates = engine.new("intersections", 2).legal_moves()  # every candidate, by index
    state = play(game(2), "a1-a3")  # a2 passed through: degree 2
    assert isinstance(state, IntersectionsState)
    assert state.segment_gain(candidates.index("a2-c2")) == 1  # a T at a2
    assert state.segment_gain(candidates.index("b1-b3")) == 0  # parallel: nothing reaches 3
    rng = random.Random(5)
    for _ in range(40):
        state = game(3)
        for _ in range(rng.randrange(state.segments_per_round - 1)):
            state.draw_segment(state.random_segment(rng))
        before = len(state.view().scoring_dots)
        for text in state.legal_moves():
            after = len(state.play(text).view().scoring_dots)
            assert state.segment_gain(candidates.index(text)) == after - before, text


def test_draw_segment_is_play_of_its_text() -> None:
    candidates = engine.new("intersections", 3).legal_moves()
    rng = random.Random(6)
    state = game(3)
    while state.outcome is None:
        index = state.random_segment(rng)
        assert candidates[index] in state.legal_moves()
        played = state.play(candidates[index])
        state.draw_segment(index)
        assert state.moves == played.moves and state.view() == played.view()


def test_position_key_ignores_the_order_segments_were_drawn_in() -> None:
    one = engine.new("intersections", 3).play("a1-a3").play("c1-c3")
    other = engine.new("intersections", 3).play("c1-c3").play("a1-a3")
    assert isinstance(one, IntersectionsState) and isinstance(other, IntersectionsState)
    assert one.position_key() == other.position_key()
    assert one.position_key() != one.play("e1-e3").position_key()
