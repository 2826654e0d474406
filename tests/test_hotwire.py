"""Hot Wire: every rule, Decision and fact of docs/RULES.md, "Hot Wire"."""

from __future__ import annotations

import json
import random
import time
from collections import Counter
from math import gcd

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine import BadOptions, Code
from engine.core import End, IllegalMove
from engine.hotwire import (
    INFO,
    HotWireState,
    HotWireView,
    WireGroup,
    length_set,
    wire_text,
    wires_of,
)
from engine.notation import Point, label, point, sort_key
from tests.conftest import game, play

# -- independent brute force: docs/RULES.md read literally ---------------------------


def turn(a: Point, b: Point, c: Point) -> int:
    value = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
    return (value > 0) - (value < 0)


def properly_cross(p: Point, q: Point, r: Point, s: Point) -> bool:
    return turn(p, q, r) * turn(p, q, s) < 0 and turn(r, s, p) * turn(r, s, q) < 0


def on_closed_segment(a: Point, b: Point, c: Point) -> bool:
    return (
        turn(a, b, c) == 0
        and min(a[0], b[0]) <= c[0] <= max(a[0], b[0])
        and min(a[1], b[1]) <= c[1] <= max(a[1], b[1])
    )


def interact(one: tuple[Point, Point], other: tuple[Point, Point]) -> bool:
    return bool(set(one) & set(other)) or properly_cross(*one, *other)


def pins_of(text: str) -> tuple[Point, Point]:
    first, second = text.split("-")
    return point(first), point(second)


def brute_legal(
    width: int, height: int, lengths: frozenset[int] | None, drawn: list[str]
) -> list[str]:
    wires = [pins_of(text) for text in drawn]
    used = {pin for wire in wires for pin in wire}
    pins = [(x, y) for x in range(width) for y in range(height)]
    legal = []
    for p in pins:
        for q in pins:
            dx, dy = abs(q[0] - p[0]), abs(q[1] - p[1])
            if (
                p < q
                and p not in used
                and q not in used
                and (lengths is None or dx + dy in lengths)
                and gcd(dx, dy) == 1
                and not any(properly_cross(p, q, *wire) for wire in wires)
            ):
                legal.append(wire_text(p, q))
    return sorted(legal, key=sort_key)


def brute_groups(legal: list[str]) -> list[list[str]]:
    """Connected components of the interaction graph, in order of first wire."""
    wires = {text: pins_of(text) for text in legal}
    seen: set[str] = set()
    groups = []
    for start in legal:
        if start in seen:
            continue
        component, frontier = [start], [start]
        seen.add(start)
        while frontier:
            current = frontier.pop()
            for other in legal:
                if other not in seen and interact(wires[current], wires[other]):
                    seen.add(other)
                    component.append(other)
                    frontier.append(other)
        groups.append(sorted(component, key=sort_key))
    return groups


def wire_counts(state: HotWireState, group: WireGroup) -> set[int]:
    """How many wires the group takes, over every way of filling it up."""
    counts: set[int] = set()

    def fill(current: HotWireState, taken: int) -> None:
        moves = [move for move in current.legal_moves() if move in group.wires]
        if not moves:
            counts.add(taken)
        for move in moves:
            fill(current.play(move), taken + 1)

    fill(state, 0)
    return counts


def player_to_move_wins(state: HotWireState, memo: dict[tuple[str, ...], bool]) -> bool:
    moves = tuple(state.legal_moves())
    if moves not in memo:
        memo[moves] = not moves or any(
            not player_to_move_wins(state.play(move), memo) for move in moves
        )
    return memo[moves]


def new(**options: object) -> HotWireState:
    return game(HotWireState, **options)


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


# -- states behave as values; playouts -------------------------------------------------------


def test_play_leaves_the_state_unchanged() -> None:
    state = new()
    after = state.play("d5 g3")
    assert state.moves == () and len(state.legal_moves()) == 572
    assert after.moves == ("d5-g3",) and after.to_move == 1
    copied = after.copy()
    assert copied == after and copied is not after
    assert copied.play("a1 a2") != after


def test_random_playout_replays_and_leaves_the_state_unchanged() -> None:
    rng = random.Random(5)
    for options in ({}, {"size": "9x5", "lengths": "any"}, {"size": "26x4", "lengths": "2"}):
        start = play(new(**options), *new(**options).legal_moves()[:1])
        final = start.random_playout(rng)
        assert final.outcome is not None and final.legal_moves() == []
        assert final.moves[: start.ply] == start.moves
        assert engine.replay("hotwire", final.options, final.moves) == final
        assert final.outcome.winners == (final.ply % 2,)
        assert final.outcome.path == (final.moves[-1],)
        assert start.outcome is None
    finished = new(size="2x2", lengths="5")
    assert finished.random_playout(rng) == finished


def test_random_playout_picks_uniformly() -> None:
    rng = random.Random(11)
    start = new(size="3x3")
    first_moves = start.legal_moves()
    counts = Counter(start.random_playout(rng).moves[0] for _ in range(6000))
    assert set(counts) == set(first_moves)
    expected = 6000 / len(first_moves)
    assert all(abs(count - expected) < 0.3 * expected for count in counts.values())
    after = start.play("a1 b2")
    counts = Counter(after.random_playout(rng).moves[1] for _ in range(4000))
    assert set(counts) == set(after.legal_moves())
    expected = 4000 / len(after.legal_moves())
    assert all(abs(count - expected) < 0.3 * expected for count in counts.values())


def test_random_game_on_the_default_board_is_fast() -> None:
    rng = random.Random(3)
    state = new()
    state.random_playout(rng)  # warm the shared table
    started = time.thread_time()  # the work's CPU time: the same on a loaded machine
    for _ in range(200):
        state.random_playout(rng)
    assert (time.thread_time() - started) / 200 < 0.005


# -- the view --------------------------------------------------------------------------------


def test_view() -> None:
    state = play(new(size="7x5", lengths="1,3,5"), "c3 e4", "a1 b1")
    view = state.view()
    assert isinstance(view, HotWireView) and isinstance(view, engine.View)
    assert (view.game, view.ply, view.to_move, view.players) == ("hotwire", 2, 0, 2)
    assert view.last_move == "a1-b1" and view.outcome is None
    assert (view.width, view.height, view.lengths) == (7, 5, "1,3,5")
    assert view.wires == (((2, 2), (4, 3), 0), ((0, 0), (1, 0), 1))
    assert view.used_pins == ((0, 0), (1, 0), (2, 2), (4, 3))
    assert view.last_wire == ((0, 0), (1, 0))
    assert view.legal_count == len(state.legal_moves())
    assert [label(pin) for pin in view.used_pins] == ["a1", "b1", "c3", "e4"]
    empty = new().view()
    assert empty.wires == () and empty.last_wire is None and empty.legal_count == 572
    with pytest.raises(AttributeError):
        view.width = 3  # type: ignore[misc]


# -- groups: the game is a sum of independent parts ------------------------------------------

# After seven wires each, Red to move: the source's puzzle shape.
PUZZLE: tuple[str, ...] = ("d5-e6", "b6-e7", "c3-d3", "a4-d6", "f4-g2", "e2-g1", "c4-g5")
PUZZLE += ("a2-a3", "b2-c1", "a6-b5", "c5-f7", "d1-e4", "b3-c2", "b4-e5")


def test_groups_of_the_empty_board() -> None:
    (group,) = new().groups()
    assert group.kind == "larger"
    assert len(group.pins) == 49 and len(group.wires) == 572
    assert list(group.wires) == new().legal_moves()


def test_groups_of_a_finished_game_are_empty() -> None:
    assert play(new(size="2x2", lengths="1"), "a1 a2", "b1 b2").groups() == ()


def test_walled_off_regions_play_apart() -> None:
    """Unit wires never cross, so regions are the components of the free pins."""
    state = play(new(size="4x3", lengths="1"), "b1 b2", "b3 c3")
    assert state.groups() == (
        WireGroup(pins=((0, 0), (0, 1), (0, 2)), wires=("a1-a2", "a2-a3"), kind="one-wire"),
        WireGroup(
            pins=((2, 0), (2, 1), (3, 0), (3, 1), (3, 2)),
            wires=("c1-c2", "c1-d1", "c2-d2", "d1-d2", "d2-d3"),
            kind="larger",
        ),
    )


def test_switch_takes_one_or_two_wires() -> None:
    state = new(size="2x2")
    (group,) = state.groups()
    assert group.kind == "switch" and len(group.pins) == 4
    assert wire_counts(state, group) == {1, 2}
    assert len(state.play("a1 b2").moves) == 1 and state.play("a1 b2").outcome is not None
    assert state.play("a1 a2").groups()[0].kind == "one-wire"


def test_source_puzzle_four_one_wire_groups_and_two_switches() -> None:
    state = play(new(), *PUZZLE)
    assert state.to_move == 0  # Red, after seven wires each
    groups = state.groups()
    assert sorted(group.kind for group in groups) == ["one-wire"] * 4 + ["switch"] * 2
    assert groups[1] == WireGroup(
        pins=((0, 6), (1, 6), (2, 6), (3, 6)), wires=("a7-b7", "b7-c7", "c7-d7"), kind="switch"
    )
    # a region walled off by long wires: f5 f6 g6 g7
    assert groups[4].pins == ((5, 4), (5, 5), (6, 5), (6, 6))
    assert groups[3] == WireGroup(
        pins=((4, 2), (5, 1), (5, 2)), wires=("e3-f2", "e3-f3", "f2-f3"), kind="one-wire"
    )
    for group in groups:
        expected = {1} if group.kind == "one-wire" else {1, 2}
        assert wire_counts(state, group) == expected
    # Black wins with correct play: Red, to move, cannot force a win.
    assert not player_to_move_wins(state, {})


def test_playing_in_one_group_leaves_the_others_alone() -> None:
    state = play(new(), *PUZZLE)
    before = state.groups()
    for index, group in enumerate(before):
        for move in group.wires:
            after = state.play(move).groups()
            others = before[:index] + before[index + 1 :]
            assert [g for g in after if g in others] == list(others)


@settings(max_examples=100, deadline=None)
@given(
    size=st.sampled_from(["3x3", "4x4", "5x5", "7x7", "6x3"]),
    lengths=st.sampled_from(["1-6", "any", "1,3,5", "2"]),
    seed=st.integers(0, 10**6),
    depth=st.integers(3, 20),
)
def test_groups_are_the_components_of_the_interaction_graph(
    size: str, lengths: str, seed: int, depth: int
) -> None:
    rng = random.Random(seed)
    state = new(size=size, lengths=lengths)
    for _ in range(depth):
        if state.outcome is not None:
            break
        state = state.play(rng.choice(state.legal_moves()))
    groups = state.groups()
    assert [list(group.wires) for group in groups] == brute_groups(state.legal_moves())
    for group in groups:
        pins = sorted({pin for wire in group.wires for pin in pins_of(wire)})
        assert list(group.pins) == pins
        expected_kind = {2: "one-wire", 3: "one-wire", 4: "switch"}.get(len(pins), "larger")
        assert group.kind == expected_kind
        if group.kind == "one-wire":
            assert wire_counts(state, group) == {1}
        elif group.kind == "switch":
            assert wire_counts(state, group) <= {1, 2}


def test_groups_on_the_largest_board_stay_cheap() -> None:
    state = new(size="26x26")
    rng = random.Random(8)
    state = play(state, *state.random_playout(rng).moves[:150])
    started = time.thread_time()  # the work's CPU time: the same on a loaded machine
    groups = state.groups()
    assert time.thread_time() - started < 2
    assert sum(len(group.wires) for group in groups) == len(state.legal_moves())


def test_the_available_mask_names_the_legal_wires() -> None:
    state = engine.new("hotwire", size="4x4").play("a1-b1")
    assert isinstance(state, HotWireState)
    table = state.wire_table
    assert [table.names[wire] for wire in wires_of(state.available)] == state.legal_moves()
    wire = wires_of(state.available)[0]
    after = state.play(table.names[wire])
    assert isinstance(after, HotWireState)
    assert after.available == state.available & ~table.conflict(wire)
