"""Hot Wire: states behave as values, random playouts, the view, and the groups (the game as a
sum of independent parts, against a brute force). The rules one by one:
tests/test_hotwire_rules.py."""

from __future__ import annotations

import random
import time
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine.hotwire import HotWireState, HotWireView, WireGroup, wires_of
from engine.notation import label
from tests.conftest import play
from tests.hotwirekit import brute_groups, new, pins_of, player_to_move_wins, wire_counts

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
