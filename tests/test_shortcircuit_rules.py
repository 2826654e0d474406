"""Short Circuit: every rule and Decision of docs/rules/shortcircuit.md.

Hand-made positions are set on the board directly (`position`); whole games go through the
public `play`. The search and the playouts: tests/test_shortcircuit.py."""

from __future__ import annotations

import json

import pytest

import engine
import engine.shortcircuit
from engine import BadOptions, Code, End, IllegalMove
from engine.notation import point
from engine.shortcircuit import ShortCircuitState
from engine.shortcircuitboard import _direct_placement
from tests.shortcircuitkit import BOXED, LOOP_GAME, POP_LAST_GAME, new, played, position


def _bit(state: ShortCircuitState, cell: str) -> int:
    return state._board.bit_at[point(cell)]


def refused(state: ShortCircuitState, text: str) -> IllegalMove:
    """Play `text`, expecting a refusal that changes nothing."""
    before = (state.moves, state.to_move, state.view(), state.legal_moves())
    with pytest.raises(IllegalMove) as caught:
        state.play(text)
    assert (state.moves, state.to_move, state.view(), state.legal_moves()) == before
    return caught.value


def connectors(state: ShortCircuitState) -> dict[str, str]:
    return {engine.notation.label(p): colour for p, colour in state.view().connectors}


# -- options ----------------------------------------------------------------------


def test_defaults() -> None:
    state = new()
    assert state.options == {"players": 2, "size": 5, "capacitors": "unlimited", "max_turns": 300}
    view = state.view()
    assert view.side == 5 and len(view.cells) == 61
    assert view.centre == (4, 4)
    assert view.capacitors_left == (None, None)
    assert view.max_turns == 300 and state.max_turns == 300
    assert state.info.title == "Short Circuit"
    assert state.info.seat_names[0].startswith("Player 1")


@pytest.mark.parametrize("side", [3, 4, 7, 10])
def test_board_sizes_are_hex_hex(side: int) -> None:
    cells = new(size=str(side)).view().cells
    assert len(cells) == 3 * side * (side - 1) + 1
    assert all(abs(q - r) <= side - 1 for q, r in cells)


def test_typed_options_become_canonical() -> None:
    state = new(size="7", capacitors="12", max_turns="50")
    assert state.options == {"players": 2, "size": 7, "capacitors": 12, "max_turns": 50}
    assert new(capacitors="UNLIMITED").options["capacitors"] == "unlimited"
    assert new(capacitors=0).view().capacitors_left == (0, 0)


@pytest.mark.parametrize(
    ("key", "value", "words"),
    [
        ("size", 2, "3 to 10"),
        ("size", 11, "3 to 10"),
        ("size", "big", "3 to 10"),
        ("capacitors", -1, "0 to 999 or unlimited"),
        ("capacitors", 1000, "0 to 999 or unlimited"),
        ("capacitors", "lots", "0 to 999 or unlimited"),
        ("capacitors", True, "0 to 999 or unlimited"),
        ("max_turns", 9, "10 to 9999"),
        ("max_turns", 10_000, "10 to 9999"),
    ],
)
def test_refused_options_name_the_constraint(key: str, value: object, words: str) -> None:
    with pytest.raises(BadOptions, match=words):
        new(**{key: value})


def test_options_round_trip_through_json() -> None:
    state = played(LOOP_GAME[:5], capacitors=4, max_turns=99)
    options = json.loads(json.dumps(state.options))
    assert engine.replay("shortcircuit", options, state.moves) == state


# -- setup ------------------------------------------------------------------------


def test_player_2_places_first_on_the_centre_then_player_1_next_to_it_twice() -> None:
    state = new()
    assert state.to_move == 1
    assert state.legal_moves() == ["b e5", "g e5"]
    state = state.play("Green E5")
    assert state.moves == ("g e5",)
    assert state.to_move == 0
    assert state.legal_moves() == [f"{c} {cell}" for c in "ry" for cell in NEXT_TO_E5]
    state = state.play("yellow f6")
    assert state.to_move == 0  # Player 1 also starts the normal turns
    assert state.turns_played == 2


NEXT_TO_E5 = ["d4", "d5", "e4", "e6", "f5", "f6"]


def test_setup_refusals() -> None:
    start = new()
    error = refused(start, "b d4")
    assert error.code == Code.SETUP and "e5" in str(error) and "d4" in str(error)
    error = refused(start, "r e5")
    assert error.code == Code.NOT_YOURS and str(error) == "Red is Player 1's colour."
    for text in ("cap e5", "c e5"):
        error = refused(start, text)
        assert error.code == Code.SETUP and "e5" in str(error)
    error = refused(start, "pop e5 e5")
    assert error.code == Code.SETUP and "e5" in str(error)
    second = start.play("b e5")
    error = refused(second, "r c3")
    assert error.code == Code.SETUP and "c3" in str(error) and "e5" in str(error)
    error = refused(second, "y e5")
    assert error.code == Code.OCCUPIED and "e5" in str(error)
    error = refused(second, "g d4")
    assert error.code == Code.NOT_YOURS and str(error) == "Green is Player 2's colour."
    error = refused(second, "cap d4")
    assert error.code == Code.SETUP


def test_setup_pieces_are_exempt_from_the_placement_rules() -> None:
    # Player 1's first piece touches none of their own connectors.
    state = played(["b e5", "r d4"])
    assert connectors(state) == {"e5": "blue", "d4": "red"}


# -- placing connectors -----------------------------------------------------------


def test_a_connector_must_touch_your_other_colour() -> None:
    state = position(red="c3", blue="e5")
    assert state.play("y d3").moves == ("y d3",)
    error = refused(state, "r a1")
    assert error.code == Code.NO_OTHER_COLOUR and "r a1" in str(error) and "yellow" in str(error)
    error = refused(state, "y a1")
    assert error.code == Code.NO_OTHER_COLOUR and "red" in str(error)


def test_a_connector_may_not_touch_your_same_colour() -> None:
    state = position(size=5, red="d5", yellow="c4")
    error = refused(state, "r d4")
    assert error.code == Code.SAME_COLOUR
    assert str(error) == "r d4 touches your red connector at d5."


def test_same_colour_means_your_exact_colour() -> None:
    # Red d4 may touch Player 2's blue and green: only your own red blocks it.
    state = position(size=5, yellow="d3", blue="c3 e4", green="c4")
    state = state.play("r d4")
    assert connectors(state)["d4"] == "red"


def test_connector_on_an_occupied_cell_or_off_the_board() -> None:
    state = position(red="c3", blue="d3")
    error = refused(state, "y d3")
    assert error.code == Code.OCCUPIED and str(error) == "d3 already has a blue connector."
    error = refused(state, "y f1")
    assert error.code == Code.OFF_BOARD and "f1" in str(error)
    error = refused(state, "b b3")
    assert error.code == Code.NOT_YOURS and str(error) == "Blue is Player 2's colour."


def test_colour_by_name_or_initial_is_recorded_by_initial() -> None:
    state = position(red="c3", blue="e5")
    for text in ("yellow d3", "Y D3", "y  d3"):
        assert state.play(text).moves == ("y d3",)


# -- capacitors -------------------------------------------------------------------


def test_capacitor_on_or_next_to_your_connector_and_sharing_a_cell() -> None:
    state = position(red="c3", blue="d3")
    after = state.play("c c3")  # on your own connector
    assert after.moves == ("cap c3",) and after.view().capacitors == ((2, 2),)
    after = state.play("cap d3")  # on the opponent's connector next to yours
    assert after.view().capacitors == ((3, 2),)
    assert after.to_move == 1
    error = refused(state, "cap a1")
    assert error.code == Code.CAPACITOR_NOT_NEAR and "a1" in str(error)


def test_capacitor_refusals() -> None:
    state = position(red="c3", blue="e5", caps="c3")
    error = refused(state, "cap c3")
    assert error.code == Code.OCCUPIED and str(error) == "c3 already has a capacitor."


def test_capacitor_supply_is_per_player() -> None:
    state = position(red="c3", blue="a1", capacitors=1)
    assert state.view().capacitors_left == (1, 1)
    state = state.play("cap c3")
    assert state.view().capacitors_left == (0, 1)
    state = state.play("cap a1")  # Player 2 still has theirs
    assert state.view().capacitors_left == (0, 0)
    error = refused(state, "cap d3")
    assert error.code == Code.NO_SUPPLY and "d3" in str(error)
    assert not any(move.startswith("cap") for move in state.legal_moves())
    no_supply = position(red="c3", blue="e5", capacitors=0)
    assert not any(move.startswith("cap") for move in no_supply.legal_moves())


# -- pops -------------------------------------------------------------------------


def test_pop_removes_the_capacitor_and_the_connector_and_keeps_the_turn() -> None:
    # X = c3 (red) is on the capacitor's cell; Y = d3 (Player 2's blue) is next to X.
    state = position(red="c3", yellow="b2", blue="d3 a1", caps="c3")
    after = state.play("pop c3 d3")
    assert after.moves == ("pop c3 d3",)
    assert after.to_move == 0
    assert after.view().popped and after.view().turn_actions == ("pop c3 d3",)
    assert after.view().capacitors == ()
    assert "d3" not in connectors(after)
    assert after.turns_played == state.turns_played  # pops do not count as turns
    done = after.play("y d3")
    assert done.to_move == 1 and done.turns_played == state.turns_played + 1
    assert done.view().last_turn == ("pop c3 d3", "y d3")
    assert done.view().turn_actions == () and not done.view().popped


def test_the_linking_connector_may_be_next_to_the_capacitor() -> None:
    # Capacitor on a1 next to X = b2 (yellow); Y = c3 (Player 2's) next to b2.
    state = position(yellow="b2", red="b1", green="c3 e5", caps="a1")
    assert "pop a1 c3" in state.legal_moves()
    state.play("pop a1 c3")


def test_the_popped_connector_may_stand_on_the_capacitor_and_be_your_own() -> None:
    state = position(red="c3", yellow="d3", blue="a1", caps="d3")
    after = state.play("pop d3 d3")  # Y = own yellow d3, on C, next to X = c3
    assert "d3" not in connectors(after) and after.view().capacitors == ()
    assert "y d3" in after.legal_moves()


def test_pop_refusals_name_the_cells() -> None:
    state = position(red="c3", yellow="b2", blue="d3 a1", green="e5", caps="c3 e3")
    error = refused(state, "pop d3 d3")
    assert error.code == Code.NO_CAPACITOR and str(error) == "There is no capacitor on d3 to pop."
    error = refused(state, "pop c3 d4")
    assert error.code == Code.NO_CONNECTOR and str(error) == "There is no connector on d4 to pop."
    # e5 is next to no connector of Player 1 that is on or next to e3.
    error = refused(state, "pop e3 e5")
    assert error.code == Code.POP_NOT_LINKED and "e5" in str(error) and "e3" in str(error)
    # d3 is next to Player 1's c3, but c3 is neither on nor next to e3.
    error = refused(state, "pop e3 d3")
    assert error.code == Code.POP_NOT_LINKED
    error = refused(state, "pop c3")
    assert error.code == Code.SYNTAX


def test_the_popped_connector_cannot_be_its_own_link() -> None:
    # Only red c3 is next to the capacitor b2: it cannot pop itself, but it links d3.
    state = position(red="c3", yellow="d3", blue="a1", caps="b2")
    error = refused(state, "pop b2 c3")
    assert error.code == Code.POP_NOT_LINKED and "c3" in str(error) and "b2" in str(error)
    assert "pop b2 d3" in state.legal_moves()


def test_the_linking_connector_must_be_yours() -> None:
    # Blue d3 sits on the capacitor next to green e3: only Player 2 can pop e3 with it.
    pieces = {"red": "c3", "yellow": "c2", "blue": "d3", "green": "e3 a1", "caps": "d3"}
    error = refused(position(mover=0, **pieces), "pop d3 e3")
    assert error.code == Code.POP_NOT_LINKED and "e3" in str(error)
    assert "pop d3 e3" in position(mover=1, **pieces).legal_moves()


def test_a_pop_that_leaves_no_way_to_finish_the_turn_is_refused() -> None:
    state = position(caps="c3", **BOXED)
    error = refused(state, "pop c3 d4")
    assert error.code == Code.DEAD_END and "pop c3 d4" in str(error)
    # Popping your own yellow frees d3, where yellow fits again.
    assert "pop c3 d3" in state.legal_moves()
    assert "pop c3 d4" not in state.legal_moves()
    assert "pop c3 c2" not in state.legal_moves()


def test_a_pop_is_legal_when_further_pops_open_a_placement() -> None:
    # A second capacitor (b2, next to c3) can then pop yellow d3.
    state = position(caps="c3 b2", **BOXED)
    colours = state._colours_without(_bit(state, "d4"))
    assert not _direct_placement(state._board, 0, colours)
    after = state.play("pop c3 d4")
    assert "pop b2 d3" in after.legal_moves()
    error = refused(after, "pop b2 c2")  # the last capacitor spent on a dead end
    assert error.code == Code.DEAD_END
    done = after.play("pop b2 d3, y d3")
    assert done.to_move == 1 and done.view().last_turn == ("pop c3 d4", "pop b2 d3", "y d3")


def test_no_capacitor_in_a_turn_with_a_pop() -> None:
    state = position(red="c3", yellow="b2", blue="d3 a1", caps="c3").play("pop c3 d3")
    error = refused(state, "cap c3")
    assert error.code == Code.CAPACITOR_AFTER_POP and "c3" in str(error)
    assert not any(move.startswith("cap") for move in state.legal_moves())


def test_either_player_may_pop_any_capacitor() -> None:
    # Player 1 placed the capacitor on e4; Player 2 pops it (POP_LAST_GAME).
    state = played(POP_LAST_GAME[:5])
    assert state.to_move == 1
    assert {"pop e4 f5", "pop e4 d5", "pop f5 f5"} <= set(state.legal_moves())


# -- the end ----------------------------------------------------------------------


def test_a_loop_of_your_connectors_wins() -> None:
    before = played(LOOP_GAME[:-1])
    assert before.outcome is None
    state = before.play(LOOP_GAME[-1])
    assert state.outcome is not None
    assert state.outcome.winners == (0,) and state.outcome.reason is End.LOOP
    path = state.outcome.path
    assert path[0] == "d3" and sorted(path) == sorted(["d4", "c4", "b3", "b2", "c2", "d3"])
    cells = [point(cell) for cell in path]
    for a, b in zip(cells, cells[1:] + cells[:1], strict=True):
        assert (b[0] - a[0], b[1] - a[1]) in {(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1)}
    assert state.to_move is None and state.legal_moves() == []
    assert state.view().outcome == state.outcome


def test_a_loop_is_only_the_movers_and_needs_a_cycle() -> None:
    # An open chain of five of the six ring cells does not win.
    state = played(LOOP_GAME[:-2])
    assert state.outcome is None


def test_the_loop_is_a_cycle_even_with_branches() -> None:
    # A chain with a branch closes into a ring around c3 only when it is a cycle.
    state = position(size=5, red="d4 b3 c2 e6", yellow="c4 b2 e5")
    after = state.play("y d3")
    assert after.outcome is not None and after.outcome.reason is End.LOOP
    assert set(after.outcome.path) == {"d3", "d4", "c4", "b3", "b2", "c2"}


def test_a_player_whose_last_connector_is_popped_loses() -> None:
    before = played(POP_LAST_GAME[:5])
    mid = before.play("pop e4 f5")
    assert mid.outcome is None  # only at the end of the turn
    state = mid.play("g f6")
    assert state.outcome is not None
    assert state.outcome.winners == (1,) and state.outcome.reason is End.NO_CONNECTORS
    assert state.outcome.path == ()
    assert before.play("pop e4 f5; g f6") == state


def test_the_turn_limit_draws_counting_setup_and_turns_not_pops() -> None:
    moves = ["b e5", "r d4", "cap d4", "cap f5", "cap c3", "cap f6", "cap c4", "cap e6"]
    state = played(moves, max_turns=10)
    assert state.turns_played == 8 and state.view().turns_played == 8
    state = state.play("cap d3")
    assert state.outcome is None
    state = state.play("cap e4")
    assert state.outcome is not None
    assert state.outcome.winners == () and state.outcome.reason is End.TURN_LIMIT
    assert state.turns_played == 10


def test_pops_do_not_count_towards_the_turn_limit() -> None:
    state = played(POP_LAST_GAME[:5], max_turns=10)
    assert state.turns_played == 5
    assert state.play("pop e4 f5").turns_played == 5


def test_a_loop_on_the_last_allowed_turn_still_wins() -> None:
    state = played(LOOP_GAME, max_turns=11)
    assert state.outcome is not None and state.outcome.reason is End.LOOP
    drawn = played(LOOP_GAME[:-1], max_turns=10)
    assert drawn.outcome is not None and drawn.outcome.reason is End.TURN_LIMIT


def test_a_player_with_no_possible_turn_passes_automatically() -> None:
    # Player 2's blue a1 is walled in by b1, a2 and (after this move) b2; no capacitors.
    state = position(red="b1 a2", blue="a1", green="", capacitors=0)
    state = state.play("y b2")
    assert state.moves == ("y b2", "pass")
    assert state.outcome is None and state.to_move == 0
    assert state.turns_played == 4
    assert state.view().last_turn == ("pass",)
    assert state.view().last_move == "pass"
    # The pass run resets with a real turn: Player 2 passes again, no draw yet.
    state = state.play("y c1")
    assert state.moves[-2:] == ("y c1", "pass") and state.outcome is None


def test_two_passes_in_a_row_draw() -> None:
    # Every cell but c3 is taken; no capacitors. After y c3 nobody can play.
    filler = "a1 a3 b1 b3 c1 c5 d2 d4 e3 e5"
    state = position(red="b2 d3 c4", yellow="", blue=filler, green="a2 c2 b4 d5 e4", capacitors=0)
    state = state.play("y c3")
    assert state.moves == ("y c3", "pass", "pass")
    assert state.outcome is not None
    assert state.outcome.winners == () and state.outcome.reason is End.PASSES
    assert state.turns_played == 5


def test_pass_cannot_be_typed() -> None:
    error = refused(position(red="c3", blue="e5"), "pass")
    assert error.code == Code.NO_PASS and "pass" in str(error)


# -- a whole turn typed as one string ------------------------------------------------


def test_a_whole_turn_plays_as_separate_record_entries() -> None:
    state = position(caps="c3 b2", **BOXED)
    after = state.play("pop c3 d4, pop b2 d3; y d3")
    assert after.moves == ("pop c3 d4", "pop b2 d3", "y d3")
    assert after.to_move == 1


def test_a_turn_string_is_all_or_nothing_and_names_the_failing_action() -> None:
    state = position(caps="c3 b2", **BOXED)
    error = refused(state, "pop c3 d4, pop b2 c2, y c2")
    assert error.code == Code.DEAD_END
    assert str(error).startswith("Action 2 (“pop b2 c2”)") and "pop b2 c2" in str(error)
    error = refused(state, "pop c3 d4, cap a1")
    assert error.code == Code.CAPACITOR_AFTER_POP and "Action 2" in str(error)


def test_a_turn_string_cannot_run_into_the_next_turn() -> None:
    state = position(caps="c3 b2", **BOXED)
    error = refused(state, "pop c3 d3, y d3, b a1")
    assert error.code == Code.AFTER_PIECE
    assert "y d3" in str(error) and "b a1" in str(error)
    # Not even when the other player's forced pass hands the turn straight back.
    walled = position(red="b1 a2", blue="a1", capacitors=0)
    error = refused(walled, "y b2, y c1")
    assert error.code == Code.AFTER_PIECE


def test_syntax_refusals() -> None:
    state = position(red="c3", blue="e5")
    for text in ("x c3", "r", "cap", "pop", "r c3 d3", "pop c3 d3 e3", "a1", ",", "r a99999"):
        assert refused(state, text).code == Code.SYNTAX
    for text in ("r a9", "r zz99", "pop a1 e1"):
        error = refused(state, text)
        assert error.code == Code.OFF_BOARD and text.split()[-1] in str(error)


def test_a_refusal_shows_legal_actions_of_each_kind_open_to_the_mover() -> None:
    blue_to_move = new()  # Player 2 places the centre piece: a connector, nothing else
    assert str(refused(blue_to_move, "c3")) == "I can't read “c3”: play like g e5."
    assert str(refused(blue_to_move, "g")) == "Name the cell too, like g e5."
    assert str(refused(blue_to_move, "pop")) == (
        "A pop names two cells, the capacitor then the connector, but none is possible "
        "now: play like g e5."
    )
    red_to_move = played(["b e5"])
    assert str(refused(red_to_move, "r c3 d3")) == "I can't read “r c3 d3”: play like y d4."
    assert blue_to_move.example_move() == "g e5" and red_to_move.example_move() == "y d4"
    with_a_capacitor = played(POP_LAST_GAME[:5])
    assert str(refused(with_a_capacitor, "x")) == (
        "I can't read “x”: play like b d6, cap d6 or pop f5 d5."
    )
    assert str(refused(with_a_capacitor, "pop e4")) == (
        "A pop names two cells, the capacitor then the connector, like pop f5 d5."
    )
    for example in ("b d6", "cap d6", "pop f5 d5"):
        assert example in with_a_capacitor.legal_moves()
