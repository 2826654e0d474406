"""Making Intersections: every rule, Decision and fact of docs/rules/intersections.md:
the declaration and options, moves and notation, no crossing, no overlap, touching, rounds and
turn order, scoring. The properties checked against a geometric model and the view:
tests/test_intersections.py."""

from __future__ import annotations

import json

import pytest

import engine
from engine import BadOptions, Code, End, IllegalMove
from engine.intersections import INFO, IntersectionsState
from engine.notation import sort_key
from tests.conftest import play
from tests.intersectionskit import all_segments, game, segment_text, view


def refusal(state: IntersectionsState, text: str) -> IllegalMove:
    """The refusal of `text`, checking that it changed nothing."""
    before = (state.moves, state.to_move, state.view(), state.legal_moves())
    with pytest.raises(IllegalMove) as refused:
        state.play(text)
    assert (state.moves, state.to_move, state.view(), state.legal_moves()) == before
    return refused.value


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
    assert legal == sorted((segment_text(s) for s in all_segments(size, size)), key=sort_key)
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
