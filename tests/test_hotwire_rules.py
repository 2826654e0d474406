"""Hot Wire: every rule, Decision and fact of docs/rules/hotwire.md: the declaration and
options, a move (its notation and the four conditions), the end. States as values, playouts, the
view and the groups: tests/test_hotwire.py."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine import BadOptions, Code
from engine.core import End, IllegalMove
from engine.hotwire import INFO, HotWireState, length_set, wire_text
from engine.notation import sort_key
from tests.conftest import play
from tests.hotwirekit import brute_legal, new, on_closed_segment, pins_of


def refused(state: HotWireState, text: str, code: Code, *named: str) -> IllegalMove:
    """Assert `text` is refused with `code`, naming every element, and changes nothing."""
    before = (state.moves, state.legal_moves(), state.view(), state.outcome)
    with pytest.raises(IllegalMove) as caught:
        state.play(text)
    assert caught.value.code == code, str(caught.value)
    for element in named:
        assert element in str(caught.value), (element, str(caught.value))
    assert (state.moves, state.legal_moves(), state.view(), state.outcome) == before
    return caught.value


# -- the game declaration and options --------------------------------------------------


def test_info() -> None:
    assert INFO.name == "hotwire"
    assert INFO.title == "Hot Wire"
    assert INFO.seat_names == ("Red", "Black")
    assert (INFO.min_players, INFO.max_players) == (2, 2)
    assert "Phil Leduc" in INFO.credit and "2010" in INFO.credit
    assert "permission" in INFO.credit
    assert engine.GAMES["hotwire"] is INFO


def test_defaults() -> None:
    state = new()
    assert state.options == {"players": 2, "size": "7x7", "lengths": "1-6"}
    assert state.to_move == 0
    assert state.ply == 0 and state.outcome is None


@pytest.mark.parametrize(
    ("typed", "canonical"),
    [
        ("7x7", "7x7"),
        ("5 x 9", "5x9"),
        ("9", "9x9"),
        ("2x2", "2x2"),
        ("26x26", "26x26"),
        ("26x3", "26x3"),
    ],
)
def test_size_option(typed: str, canonical: str) -> None:
    assert new(size=typed).options["size"] == canonical


@pytest.mark.parametrize("typed", ["1x9", "27x27", "7x1", "axb", "", "7x7x7"])
def test_size_option_refused(typed: str) -> None:
    with pytest.raises(BadOptions, match="size") as caught:
        new(size=typed)
    assert not isinstance(caught.value, IllegalMove)


@pytest.mark.parametrize(
    ("typed", "canonical"),
    [
        ("1-6", "1-6"),
        ("1,3,5", "1,3,5"),
        ("2", "2"),
        (2, "2"),
        ("any", "any"),
        (" ANY ", "any"),
        ("1-3,5", "1-3,5"),
        ("5, 1-3", "1-3,5"),
        ("1 3 5", "1,3,5"),
        ("1 - 6", "1-6"),
        ("1–6", "1-6"),
        ("1-2", "1,2"),
        ("3-3", "3"),
        ("1-4,3-6", "1-6"),
        ("6,5,4,3,2,1", "1-6"),
        ("50", "50"),
    ],
)
def test_lengths_option(typed: object, canonical: str) -> None:
    assert new(lengths=typed).options["lengths"] == canonical


@pytest.mark.parametrize(
    ("typed", "reason"),
    [
        ("0", "at least 1"),
        ("0-3", "at least 1"),
        ("-1", "negative"),
        ("1,-3", "negative"),
        ("", "at least one length"),
        (" , ", "at least one length"),
        ("abc", "“abc”"),
        ("1-", "“1-”"),
        ("1.5", "“1.5”"),
        ("1-2-3", "“1-2-3”"),
        ("6-1", "backwards"),
        ("51", "51"),
        ("1-999999", "999999"),
        (True, "True"),
    ],
)
def test_lengths_option_refused(typed: object, reason: str) -> None:
    with pytest.raises(BadOptions) as caught:
        new(lengths=typed)
    message = str(caught.value)
    assert message.startswith("Hot Wire option lengths:")
    assert reason in message
    if reason != "backwards":
        assert '"1-6", "1,3,5", "2" or "any"' in message  # what is allowed


def test_unknown_option_refused() -> None:
    with pytest.raises(BadOptions, match="size, lengths"):
        new(colour="red")


def test_options_round_trip_through_json() -> None:
    state = play(new(size="5 x 6", lengths="5,1-3"), "a1 b2", "c3 d3", "e6 e5")
    options = json.loads(json.dumps(state.options))
    assert options == {"players": 2, "size": "5x6", "lengths": "1-3,5"}
    assert engine.replay("hotwire", options, state.moves) == state


# -- a move: notation --------------------------------------------------------------------


@pytest.mark.parametrize("typed", ["d5 g3", "g3-d5", "d5g3", "G3 D5", "  d5 -  g3 ", "g3d5"])
def test_either_order_and_separator(typed: str) -> None:
    assert new().play(typed).moves == ("d5-g3",)


def test_record_is_column_then_row_lower_first() -> None:
    assert new().play("a2 a1").moves == ("a1-a2",)
    assert new().play("b1 a2").moves == ("a2-b1",)
    assert new(size="26x26").play("z26 y22").moves == ("y22-z26",)
    assert wire_text((6, 2), (3, 4)) == "d5-g3"


def test_legal_moves_sorted_and_canonical() -> None:
    for options in ({}, {"size": "26x3", "lengths": "any"}, {"size": "3x12"}):
        moves = new(**options).legal_moves()
        assert moves == sorted(moves, key=sort_key)
        for move in moves[:: max(1, len(moves) // 40)]:
            assert new(**options).play(move).moves == (move,)


# -- a move: the four conditions ---------------------------------------------------------


def test_fact_first_move_counts() -> None:
    assert len(new().legal_moves()) == 572
    assert len(new(lengths="1,3,5").legal_moves()) == 356
    assert len(new(lengths="any").legal_moves()) == 748


@pytest.mark.parametrize(
    ("size", "lengths"), [("7x7", "1-6"), ("7x7", "1,3,5"), ("5x8", "any"), ("4x4", "2")]
)
def test_first_moves_match_the_rules_read_literally(size: str, lengths: str) -> None:
    width, height = (int(n) for n in size.split("x"))
    allowed = length_set(lengths)
    assert new(size=size, lengths=lengths).legal_moves() == brute_legal(width, height, allowed, [])


def test_shapes_up_to_symmetry_on_the_default_board() -> None:
    shapes = set()
    for move in new().legal_moves():
        p, q = pins_of(move)
        dx, dy = abs(q[0] - p[0]), abs(q[1] - p[1])
        shapes.add((max(dx, dy), min(dx, dy)))
    assert shapes == {(1, 0), (1, 1), (2, 1), (3, 1), (3, 2), (4, 1), (5, 1)}


def test_mirror_images_are_legal() -> None:
    """Decision: reflections count, not only rotations."""
    state = new(size="13x13")
    legal = set(state.legal_moves())
    centre = (6, 6)
    for a, b in [(1, 0), (1, 1), (2, 1), (3, 1), (3, 2), (4, 1), (5, 1)]:
        for dx, dy in {(a, b), (b, a)}:
            for sx in (1, -1):
                for sy in (1, -1):
                    far = (centre[0] + sx * dx, centre[1] + sy * dy)
                    assert wire_text(centre, far) in legal
    # a chiral pair, both legal on the small board too
    assert new().play("d4 f5").moves == ("d4-f5",)
    assert new().play("d4 b5").moves == ("b5-d4",)


def test_a1_c2_legal_a1_a3_and_a1_c3_pass_over_a_pin() -> None:
    state = new()
    assert state.play("a1 c2").moves == ("a1-c2",)
    refused(state, "a1 a3", Code.PASSES_OVER, "a1-a3 passes over pin a2.")
    refused(state, "c3 a1", Code.PASSES_OVER, "a1-c3 passes over pin b2.")
    refused(state, "a1 a4", Code.PASSES_OVER, "a1-a4 passes over pins a2 and a3.")
    refused(state, "b2 e5", Code.PASSES_OVER, "b2-e5 passes over pins c3 and d4.")
    refused(state, "a1 e3", Code.PASSES_OVER, "pin c2")


def test_passes_over_used_and_unused_pins_alike() -> None:
    state = new().play("a2 b1")
    refused(state, "a1 a3", Code.PASSES_OVER, "pin a2")
    refused(state, "b3 b5", Code.PASSES_OVER, "pin b4")


def test_length_is_horizontal_plus_vertical_steps() -> None:
    odd = new(lengths="1,3,5")
    refused(odd, "a1 e1", Code.LENGTH, "a1-e1 has length 4; the allowed lengths are 1,3,5.")
    refused(odd, "a1 b2", Code.LENGTH, "a1-b2 has length 2")
    assert odd.play("a1 c2").moves == ("a1-c2",)
    assert odd.play("a1 d3").moves == ("a1-d3",)  # 3 + 2
    two = new(lengths="2")
    refused(two, "a1 a2", Code.LENGTH, "a1-a2 has length 1; the allowed length is 2.")
    refused(new(), "a1 g2", Code.LENGTH, "a1-g2 has length 7; the allowed lengths are 1-6.")
    assert new(lengths="any").play("a1 g6").moves == ("a1-g6",)
    refused(new(lengths="any"), "a1 g7", Code.PASSES_OVER, "a1-g7", "b2")


def test_one_wire_per_pin() -> None:
    state = new().play("c3 e4")
    refused(state, "c3 d3", Code.OCCUPIED, "Pin c3 already has a wire (c3-e4).")
    refused(state, "e4 f6", Code.OCCUPIED, "Pin e4 already has a wire (c3-e4).")
    refused(state, "e4 c3", Code.OCCUPIED, "Pin c3 already has a wire (c3-e4).")
    assert "c3" not in " ".join(state.legal_moves()).replace("-", " ").split()


def test_crossing_x_diagonals_of_a_square() -> None:
    state = new().play("a1 b2")
    refused(state, "a2 b1", Code.CROSSING, "a2-b1 crosses the wire a1-b2.")
    refused(state.play("a2 b3"), "a3 b2", Code.OCCUPIED, "Pin b2")
    assert state.play("b1 c2").moves == ("a1-b2", "b1-c2")  # parallel neighbour


def test_longer_crossings() -> None:
    state = new().play("e4 f6")
    refused(state, "d5 g3", Code.CROSSING, "d5-g3 crosses the wire e4-f6.")
    state = new().play("a1 f2")
    refused(state, "c2 d1", Code.CROSSING, "c2-d1 crosses the wire a1-f2.")
    state = new().play("a1 c2")
    refused(state, "b1 b2", Code.CROSSING, "b1-b2 crosses the wire a1-c2.")
    assert state.play("b2 b3").moves == ("a1-c2", "b2-b3")
    # the crossed wire named is the first drawn one it crosses
    state = play(new(), "b1 b2", "c1 c2")
    refused(state, "a2 d1", Code.CROSSING, "a2-d1 crosses the wire b1-b2.")


def test_hidden_diagonal_slips_between_wires() -> None:
    """The source's example: d5-g3 still joins pins that look walled apart."""
    state = play(new(), "e3 e4", "f4 f5")
    assert state.play("d5 g3").moves[-1] == "d5-g3"
    refused(state, "d4 f3", Code.CROSSING, "d4-f3 crosses the wire e3-e4.")


def test_wires_only_ever_cross_or_share_a_pin() -> None:
    """Rules 1 and 3: distinct pins and no pin passed over leave no touching or overlap."""
    wires = [pins_of(move) for move in new(size="6x6", lengths="any").legal_moves()]
    for index, one in enumerate(wires):
        for other in wires[index + 1 :]:
            if set(one) & set(other):
                continue
            for end in one:
                assert not on_closed_segment(*other, end)
            for end in other:
                assert not on_closed_segment(*one, end)


def test_refusals_priority() -> None:
    """board, same pin, used pin, length, passes over, crossing."""
    state = play(new(lengths="1,3,5"), "a1 a2", "c3 c4")
    refused(state, "k9 k9", Code.OFF_BOARD, "There is no pin k9 on a 7x7 board.")
    refused(state, "a1 h1", Code.OFF_BOARD, "There is no pin h1 on a 7x7 board.")
    refused(state, "c3 c3", Code.SAME_POINT, "c3")
    refused(state, "a1 e1", Code.OCCUPIED, "Pin a1 already has a wire (a1-a2).")
    refused(state, "c5 c1", Code.LENGTH, "c1-c5 has length 4")  # and passes over c3, c4
    refused(state, "b1 b4", Code.PASSES_OVER, "b1-b4 passes over pins b2 and b3.")
    state = new().play("a2 c3")
    refused(state, "b1 b3", Code.PASSES_OVER, "pin b2")  # and crosses a2-c3


@pytest.mark.parametrize(
    ("typed", "code", "named"),
    [
        ("hello", Code.SYNTAX, "“hello”"),
        ("a1-", Code.SYNTAX, "“a1-”"),
        ("a1", Code.SYNTAX, "one pin"),
        ("a1 b2 c3", Code.SYNTAX, "3 pins"),
        ("pass", Code.NO_PASS, "passing"),
        ("a99999 a1", Code.SYNTAX, "a99999"),
        ("zzz1 a1", Code.OFF_BOARD, "There is no pin zzz1 on a 7x7 board."),
        ("a0 a1", Code.OFF_BOARD, "There is no pin a0 on a 7x7 board."),
        ("a1 a9999", Code.OFF_BOARD, "a9999"),
        ("é1 a1", Code.SYNTAX, "é1"),
        ("a1\x00b2", Code.SYNTAX, "a1?b2"),
        ("a1 b2!", Code.SYNTAX, "b2!"),
    ],
)
def test_unreadable_moves(typed: str, code: Code, named: str) -> None:
    refused(new(), typed, code, named)


def test_rectangular_board() -> None:
    state = new(size="5x9")
    assert state.play("e9 d8").moves == ("d8-e9",)
    refused(state, "f1 e1", Code.OFF_BOARD, "There is no pin f1 on a 5x9 board.")
    refused(state, "a10 a9", Code.OFF_BOARD, "There is no pin a10 on a 5x9 board.")
    view = state.view()
    assert (view.width, view.height) == (5, 9)


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=30))
def test_any_text_is_refused_or_played(text: str) -> None:
    state = new()
    try:
        after = state.play(text)
    except IllegalMove:
        return
    assert after.moves[0] in state.legal_moves()


@settings(max_examples=100, deadline=None)
@given(
    size=st.sampled_from(["2x2", "3x3", "4x3", "5x5", "6x4", "7x7"]),
    lengths=st.sampled_from(["1-6", "any", "1,3,5", "2", "1", "2-3"]),
    seed=st.integers(0, 10**6),
)
def test_legal_moves_match_the_rules_read_literally_all_game(
    size: str, lengths: str, seed: int
) -> None:
    rng = random.Random(seed)
    width, height = (int(n) for n in size.split("x"))
    allowed = length_set(lengths)
    state = new(size=size, lengths=lengths)
    while state.outcome is None:
        expected = brute_legal(width, height, allowed, list(state.moves))
        assert state.legal_moves() == expected
        state = state.play(rng.choice(expected))
    assert brute_legal(width, height, allowed, list(state.moves)) == []


# -- end -----------------------------------------------------------------------------------


def test_player_without_a_wire_wins() -> None:
    state = play(new(size="2x2", lengths="1"), "a1 a2")
    assert state.to_move == 1 and state.outcome is None
    state = state.play("b2 b1")
    assert state.outcome is not None
    assert state.outcome.winners == (0,)  # Black connected the hot wire
    assert state.outcome.reason is End.LAST_WIRE
    assert state.outcome.path == ("b1-b2",)
    assert state.to_move is None and state.legal_moves() == []
    refused(state, "a1 b1", Code.GAME_OVER, "over")


def test_crossing_can_end_the_game() -> None:
    state = new(size="2x2").play("b2 a1")
    assert state.outcome is not None
    assert state.outcome.winners == (1,)  # a2-b1 would cross: Red drew the hot wire
    assert state.outcome.path == ("a1-b2",)


def test_board_without_any_wire_is_won_at_once_by_the_first_player() -> None:
    """Decision: no legal first move ends the game at once, won by the player to move."""
    state = new(size="2x2", lengths="5")
    assert state.ply == 0 and state.moves == ()
    assert state.outcome is not None
    assert state.outcome.winners == (0,) and state.outcome.reason is End.LAST_WIRE
    assert state.outcome.path == ()
    assert state.to_move is None and state.legal_moves() == []
    assert engine.replay("hotwire", state.options, []) == state
