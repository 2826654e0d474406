"""Making Intersections: every rule, Decision and fact of docs/RULES.md,
"Making Intersections"."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine import BadOptions, Code, End, IllegalMove
from engine.intersections import INFO, IntersectionsState, IntersectionsView
from engine.notation import Point, label, sort_key
from tests.conftest import game as new_game
from tests.conftest import play

Segment = tuple[Point, Point]


def game(players: int = 2, **options: object) -> IntersectionsState:
    return new_game(IntersectionsState, players=players, **options)


def refusal(state: IntersectionsState, text: str) -> IllegalMove:
    """The refusal of `text`, checking that it changed nothing."""
    before = (state.moves, state.to_move, state.view(), state.legal_moves())
    with pytest.raises(IllegalMove) as refused:
        state.play(text)
    assert (state.moves, state.to_move, state.view(), state.legal_moves()) == before
    return refused.value


def view(state: IntersectionsState) -> IntersectionsView:
    picture = state.view()
    assert isinstance(picture, IntersectionsView)
    return picture


def largest_segments(size: int, players: int) -> int:
    return ((size - 1) ** 2 + 2) // players * players


# -- an independent geometric model of the rules ------------------------------------


def all_segments(columns: int, rows: int) -> Iterator[Segment]:
    """Every pair of dots of one row or column, lower dot first."""
    dots = [(c, r) for c in range(columns) for r in range(rows)]
    for a, b in combinations(sorted(dots), 2):
        if a[0] == b[0] or a[1] == b[1]:
            yield a, b


def clash(s: Segment, t: Segment) -> bool:
    """Rules 1 and 2: a crossing (a point inside both) or a collinear overlap."""
    (a, b), (c, d) = s, t
    s_flat, t_flat = a[1] == b[1], c[1] == d[1]
    if s_flat == t_flat:
        axis = 0 if s_flat else 1
        if a[1 - axis] != c[1 - axis]:
            return False  # parallel lines
        return max(a[axis], c[axis]) < min(b[axis], d[axis])
    (x1, y), (x2, _) = s if s_flat else t
    (x, y1), (_, y2) = t if s_flat else s
    return x1 < x < x2 and y1 < y < y2


def unit_edges(columns: int, rows: int) -> list[Segment]:
    return [
        s
        for s in all_segments(columns, rows)
        if abs(s[0][0] - s[1][0]) + abs(s[0][1] - s[1][1]) == 1
    ]


def covers(s: Segment, edge: Segment) -> bool:
    return clash(s, edge)  # a unit edge can only be overlapped, never crossed


def text(s: Segment) -> str:
    return f"{label(s[0])}-{label(s[1])}"


def current_segments(state: IntersectionsState) -> list[Segment]:
    return [(seg.start, seg.end) for seg in view(state).segments]


# -- the game's declaration and options ------------------------------------------


def test_info() -> None:
    assert engine.GAMES["intersections"] is INFO
    assert INFO.title == "Making Intersections"
    assert (INFO.min_players, INFO.max_players) == (2, 8)
    assert INFO.seat_name(0) == "Player 1"
    assert INFO.seat_name(7) == "Player 8"
    assert "Leroy Quet" in INFO.credit and "2009" in INFO.credit


@pytest.mark.parametrize(
    ("players", "size", "segments"),
    [
        (2, 6, 12),
        (3, 6, 12),
        (4, 6, 12),
        (6, 6, 12),
        (5, 6, 10),
        (7, 6, 7),
        (8, 6, 8),
        (2, 3, 6),
        (4, 3, 4),
        (5, 3, 5),
        (6, 3, 6),
        (8, 4, 8),
        (2, 12, 24),
    ],
)
def test_derived_defaults(players: int, size: int, segments: int) -> None:
    state = game(players, size=size)
    assert state.options == {
        "players": players,
        "size": size,
        "segments": segments,
        "rounds": players,
    }
    assert (state.size, state.segments_per_round, state.rounds) == (size, segments, players)


def test_default_size_is_six() -> None:
    state = game()
    assert state.size == 6
    assert state.legal_moves()[0] == "a1-a2" and state.legal_moves()[-1] == "f5-f6"


@pytest.mark.parametrize(("typed", "size"), [("6", 6), ("6x6", 6), ("7 x 7", 7), (" 3X3 ", 3)])
def test_size_typed(typed: str, size: int) -> None:
    assert game(size=typed).options["size"] == size


def test_typed_segments_and_rounds() -> None:
    state = game(3, segments="9", rounds="6")
    assert (state.options["segments"], state.options["rounds"]) == (9, 6)


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"size": "6x7"}, ["square", "6x7"]),
        ({"size": 2}, ["3x3 to 12x12", "2x2"]),
        ({"size": 13}, ["3x3 to 12x12", "13x13"]),
        ({"size": "big"}, ["big"]),
        ({"segments": 0}, ["segments", "1 to 123", "0"]),
        ({"rounds": 0}, ["rounds", "1 to 120", "0"]),
        ({"rounds": "many"}, ["rounds", "many"]),
    ],
)
def test_refused_option_values(options: dict[str, object], words: list[str]) -> None:
    with pytest.raises(BadOptions) as refused:
        game(2, **options)
    for word in words:
        assert word in str(refused.value)


def test_segments_must_be_a_multiple_of_the_players() -> None:
    with pytest.raises(
        BadOptions, match=r"^Segments must be a multiple of 3 players: 9 or 12, not 10\.$"
    ):
        game(3, segments=10)
    with pytest.raises(BadOptions, match=r"multiple of 3 players: 3, not 1\.$"):
        game(3, segments=1)
    # the upper neighbour would break the size limit: only the lower one is offered
    with pytest.raises(BadOptions, match=r"multiple of 4 players: 8, not 9\.$"):
        game(4, size=4, segments=9)


def test_segments_must_be_fewer_than_the_fewest_covering_segments() -> None:
    # 4x4: (4 - 1)² + 3 = 12; the largest multiple of 2 below is 10
    assert game(2, size=4, segments=10).segments_per_round == 10
    with pytest.raises(BadOptions) as refused:
        game(2, size=4, segments=12)
    message = str(refused.value)
    assert "fewer than (size - 1)² + 3 = 12" in message
    assert "at most 10" in message and "not 12" in message
    assert game(3, size=4, segments=9).segments_per_round == 9
    with pytest.raises(BadOptions, match="at most 9"):
        game(3, size=4, segments=12)


def test_rounds_must_be_a_multiple_of_the_players() -> None:
    assert game(3, rounds=6).rounds == 6
    with pytest.raises(
        BadOptions, match=r"^Rounds must be a multiple of 3 players: 3 or 6, not 4\.$"
    ):
        game(3, rounds=4)
    with pytest.raises(BadOptions, match=r"multiple of 7 players: 119, not 120\.$"):
        game(7, rounds=120)


@pytest.mark.parametrize("players", [7, 8])
def test_no_valid_segments_is_refused(players: int) -> None:
    # 3x3: m < 7 and a multiple of 7 or 8 is impossible
    with pytest.raises(BadOptions) as refused:
        game(players, size=3)
    message = str(refused.value)
    assert "3x3" in message and f"{players} players" in message
    assert "at most 6 players" in message and "4x4" in message


def test_options_round_trip_through_json() -> None:
    state = play(game(3, size="5x5", rounds="6"), "a1 a3", "b2-d2")
    options = json.loads(json.dumps(state.options))
    assert options == {"players": 3, "size": 5, "segments": 9, "rounds": 6}
    assert engine.replay("intersections", options, state.moves) == state


# -- moves and notation ---------------------------------------------------------


@pytest.mark.parametrize("size", range(3, 13))
def test_legal_first_moves(size: int) -> None:
    legal = game(size=size).legal_moves()
    assert len(legal) == size * size * (size - 1)
    assert legal == sorted((text(s) for s in all_segments(size, size)), key=sort_key)
    assert legal == sorted(legal, key=sort_key)


@pytest.mark.parametrize("typed", ["b2 b5", "b5 b2", "B5-b2", "b2-b5", "b2b5", " b5  - B2 "])
def test_either_order_records_the_lower_dot_first(typed: str) -> None:
    assert game().play(typed).moves == ("b2-b5",)


def test_horizontal_record_starts_at_the_left_dot() -> None:
    assert game().play("e3 a3").moves == ("a3-e3",)


@pytest.mark.parametrize("typed", ["b2", "b2 b3 b4", "hello", "a99999-a1", "b2-", "-1 -2"])
def test_unreadable(typed: str) -> None:
    state = game()
    refused = refusal(state, typed)
    assert refused.code == Code.SYNTAX
    assert str(refused).endswith(f"like {state.example_move()}.")  # a legal segment


@pytest.mark.parametrize(
    ("typed", "named"), [("a1-a7", "a7"), ("g1 a1", "g1"), ("zzz1 a1", "zzz1"), ("a0-a1", "a0")]
)
def test_off_board(typed: str, named: str) -> None:
    refused = refusal(game(), typed)
    assert refused.code == Code.OFF_BOARD
    assert str(refused).startswith(f"{named} is off the board") and "a1 to f6" in str(refused)


def test_same_dot() -> None:
    refused = refusal(game(), "c4 C4")
    assert refused.code == Code.SAME_POINT
    assert "c4" in str(refused)


@pytest.mark.parametrize(
    ("typed", "named"), [("b2-c4", "b2-c4"), ("c4 b2", "b2-c4"), ("a1 f6", "a1-f6")]
)
def test_not_along_a_row_or_a_column(typed: str, named: str) -> None:
    refused = refusal(game(), typed)
    assert refused.code == Code.BAD_LINE
    assert str(refused) == f"{named} is not along a row or a column."


# -- rule 1: no crossing --------------------------------------------------------


def test_crossing_is_refused_naming_both_segments() -> None:
    state = play(game(), "c3-a3")
    refused = refusal(state, "b5 b2")
    assert refused.code == Code.CROSSING
    assert str(refused) == "b2-b5 crosses a3-c3."
    assert "b2-b5" not in state.legal_moves()


def test_crossing_names_the_earliest_segment_it_meets() -> None:
    state = play(game(), "a4-f4", "a2-f2")
    assert str(refusal(state, "c1-c6")) == "c1-c6 crosses a4-f4."


# -- rule 2: no overlap ---------------------------------------------------------


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("b3-b6", "b2-b5"),  # partial overlap
        ("b1-b6", "b2-b3"),  # inside
        ("b3-b4", "b2-b5"),  # around
        ("b2-b4", "b2-b5"),  # a shared end and more
        ("a2-d2", "c2-f2"),  # horizontal
    ],
)
def test_overlap_is_refused_naming_both_segments(first: str, second: str) -> None:
    refused = refusal(play(game(), first), second)
    assert refused.code == Code.OVERLAP
    assert str(refused) == f"{second} overlaps {first}."


def test_drawing_the_same_segment_again_is_refused() -> None:
    refused = refusal(play(game(), "b2-b5"), "b5 b2")
    assert refused.code == Code.OVERLAP
    assert str(refused) == "b2-b5 is already drawn in this round."


# -- touching is always allowed ---------------------------------------------------


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("a1-a3", "a3-a5"),  # collinear, end to end
        ("a1-a3", "a3-c3"),  # a corner
        ("a1-c1", "b1-b3"),  # a T: an end on the middle of another
        ("b1-b3", "a2-b2"),  # a T from the side
        ("a2-b2", "b1-b3"),  # passing through a dot where another segment ends
        ("a1-a2", "c3-c4"),  # apart
        ("a1-f1", "a2-f2"),  # parallel, adjacent
    ],
)
def test_touching_is_allowed(first: str, second: str) -> None:
    state = play(game(), first, second)
    assert state.moves == (first, second)


def test_four_ends_and_a_pass_through_at_one_dot() -> None:
    state = play(game(), "a2-b2", "b2-c2", "b1-b3")
    assert dict(view(state).degrees)[(1, 1)] == 4


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
            text(s) for s in all_segments(size, size) if not any(clash(s, d) for d in drawn)
        ]
        assert legal == sorted(expected, key=sort_key)
        uncovered = [e for e in unit_edges(size, size) if not any(covers(d, e) for d in drawn)]
        assert uncovered, "m is below the fewest covering segments"
        assert {text(e) for e in uncovered} <= set(legal)
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
    state = play(state, *(text(s) for s in cover))  # every one is legal
    legal = set(state.legal_moves())
    for edge in unit_edges(columns, rows):
        assert text(edge) not in legal  # covered
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


# -- rounds and turn order --------------------------------------------------------


def test_offense_draws_first_then_seat_order_and_rounds_rotate() -> None:
    state = game(3, size=4, segments=3, rounds=6)
    moves = ["a1-a2", "b1-b2", "c1-c2"]
    seen: list[tuple[int, int | None, int | None]] = []
    while state.outcome is None:
        seen.append((state.round, state.offense, state.to_move))
        state = state.play(moves[state.ply % 3])
    assert seen == [
        (1, 0, 0), (1, 0, 1), (1, 0, 2),
        (2, 1, 1), (2, 1, 2), (2, 1, 0),
        (3, 2, 2), (3, 2, 0), (3, 2, 1),
        (4, 0, 0), (4, 0, 1), (4, 0, 2),
        (5, 1, 1), (5, 1, 2), (5, 1, 0),
        (6, 2, 2), (6, 2, 0), (6, 2, 1),
    ]  # fmt: skip
    assert (state.offense, state.to_move, state.round) == (None, None, 6)


def test_a_player_may_draw_twice_in_a_row_across_a_round_boundary() -> None:
    state = play(game(2, size=4, segments=2), "a1-a2")
    assert state.to_move == 1
    state = state.play("b1-b2")  # the last segment of round 1
    assert (state.round, state.offense, state.to_move) == (2, 1, 1)


def test_each_round_starts_on_an_empty_array() -> None:
    state = play(game(2, size=4, segments=2), "a2-c2")
    assert refusal(state, "b1-b3").code == Code.CROSSING
    assert refusal(state, "a2-c2").code == Code.OVERLAP
    state = state.play("d1-d2")  # round 1 ends
    assert len(state.legal_moves()) == 4 * 4 * 3
    state = play(state, "b1-b3", "d1-d2")  # a crossing and a repeat of round 1
    assert state.moves == ("a2-c2", "d1-d2", "b1-b3", "d1-d2")
    assert state.outcome is not None


# -- scoring ----------------------------------------------------------------------


def test_degrees_and_scoring_dots_of_a_hand_made_round() -> None:
    # Round 1, offense seat 0; seat 1 draws the 2nd and 4th segments.
    state = play(game(2, size=4, segments=4), "a2-c2", "b1-b2", "b2-b3")
    picture = view(state)
    assert dict(picture.degrees) == {
        (0, 1): 1,  # a2: an end
        (1, 1): 4,  # b2: passed through (2) + two ends
        (2, 1): 1,  # c2
        (1, 0): 1,
        (1, 2): 1,
    }
    assert picture.scoring_dots == ((1, 1),)
    assert state.scores == (0, 0)  # nothing is scored before the m-th segment
    state = state.play("c1-c3")  # passes through c2, where a2-c2 ends: degree 3
    assert state.scores == (2, 0)  # the offense scores, whoever drew
    assert state.round_points == (2,)
    finished = view(state).finished_round
    assert finished is not None
    assert (finished.round, finished.offense, finished.points) == (1, 0, 2)
    assert finished.scoring_dots == ((1, 1), (2, 1))
    assert [(s.text, s.seat) for s in finished.segments] == [
        ("a2-c2", 0),
        ("b1-b2", 1),
        ("b2-b3", 0),
        ("c1-c3", 1),
    ]
    assert dict(finished.degrees)[(2, 1)] == 3


@pytest.mark.parametrize(
    ("moves", "points"),
    [
        (["a1-a2", "a2-a3", "c1-c2", "c3-c4"], 0),  # two ends in line: degree 2
        (["a1-a3", "c1-c2", "c3-c4", "d1-d2"], 0),  # passing through: degree 2
        (["a1-a2", "a2-a3", "a2-b2", "d1-d2"], 1),  # three ends: degree 3
        (["b1-b2", "b2-b3", "a2-b2", "b2-c2"], 1),  # four ends: degree 4
        (["a1-a3", "a2-b2", "c1-c3", "c2-d2"], 2),  # a pass and an end: degree 3, twice
        (["a1-a2", "a2-b2", "b2-b1", "d4-c4"], 0),  # corners only
    ],
)
def test_points_of_a_round(moves: list[str], points: int) -> None:
    state = play(game(2, size=4, segments=4), *moves)
    assert state.scores == (points, 0)


def test_the_highest_total_wins() -> None:
    state = play(
        game(2, size=4, segments=4),
        *["a2-c2", "b1-b2", "b2-b3", "c1-c3"],  # round 1: seat 0 scores 2
        *["a1-a3", "a2-b2", "c1-c4", "d4-d3"],  # round 2: seat 1 scores 1 (a2)
    )
    assert state.outcome == engine.Outcome(
        winners=(0,), reason=End.POINTS, scores=(2, 1), path=("a2",)
    )
    assert state.to_move is None and state.legal_moves() == []
    assert refusal(state, "a1-a2").code == Code.GAME_OVER


def test_equal_highest_totals_share_the_win() -> None:
    one_point = ["a1-a3", "a2-b2", "d1-d2"]
    no_point = ["a1-a2", "c1-c2", "d3-d4"]
    state = play(game(3, size=4, segments=3), *one_point, *one_point, *no_point)
    assert state.outcome is not None
    assert state.outcome.scores == (1, 1, 0)
    assert state.outcome.winners == (0, 1)
    assert state.outcome.reason is End.POINTS


@pytest.mark.parametrize(("moves", "total"), [(["a1-a3", "a2-b2"], 1), (["a1-a2", "c1-c2"], 0)])
def test_all_equal_totals_all_share_the_win(moves: list[str], total: int) -> None:
    state = play(game(2, size=3, segments=2), *moves, *moves)
    assert state.outcome == engine.Outcome(
        winners=(0, 1),
        reason=End.POINTS,
        scores=(total, total),
        path=("a2",) if total else (),
    )


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
