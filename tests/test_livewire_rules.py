"""Livewire (reconstructed): every rule and Decision of docs/rules/livewire.md.

Most positions are on the smallest board, 17x14 squares: columns a..r, rows 1..15, bases on rows
4, 7, 9 and 12 (Player 1 on column a, Player 2 on r). The API and the surface a search uses:
tests/test_livewire.py."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine import BadOptions, Code
from engine.core import End, GameState, IllegalMove
from engine.livewire import Dot, Line, LivewireState
from engine.livewireboard import base_rows
from tests.livewirekit import P2_FILLER, SMALL, dots_at, game, meeting, only_dot, toward_r4, view_of


def player1(*moves: str) -> LivewireState:
    """Player 1 plays `moves`, Player 2 answers each with filler; Player 1 to move."""
    state = game()
    for move, filler in zip(moves, P2_FILLER, strict=False):
        state = state.play(move).play(filler)
    assert state.ply == 2 * len(moves)
    return state


def refused(state: GameState, move: str, code: Code, *named: str) -> IllegalMove:
    """Assert `move` is refused with `code`, naming `named`, and changes nothing."""
    before = (state.moves, state.view())
    with pytest.raises(IllegalMove) as caught:
        state.play(move)
    assert caught.value.code == code, str(caught.value)
    for element in named:
        assert element in str(caught.value), (element, str(caught.value))
    assert (state.moves, state.view()) == before
    return caught.value


# -- the declaration and options ---------------------------------------------------


def test_info() -> None:
    info = engine.GAMES["livewire"]
    assert info.title == "Livewire"
    assert (info.min_players, info.max_players) == (2, 2)
    assert info.seat_names == ("Player 1", "Player 2")
    assert "Charlie Fish" in info.credit and "James Folkard" in info.credit
    assert "reconstruct" in info.summary.lower()


def test_default_options() -> None:
    state = engine.new("livewire")
    assert state.options == {"players": 2, "size": "42x34", "lengths": "2,1"}
    view = view_of(state)
    assert (view.width, view.height) == (42, 34)
    assert state.to_move == 0


@pytest.mark.parametrize(
    ("typed", "canonical"),
    [
        ({"size": "20x15"}, {"size": "20x15"}),
        ({"size": " 20 X 15 "}, {"size": "20x15"}),
        ({"size": "60"}, {"size": "60x60"}),
        ({"lengths": "3, 1"}, {"lengths": "3,1"}),
        ({"lengths": "1 2"}, {"lengths": "1,2"}),
        ({"lengths": "10,1"}, {"lengths": "10,1"}),
    ],
)
def test_typed_options(typed: dict[str, str], canonical: dict[str, str]) -> None:
    state = engine.new("livewire", **typed)
    for key, value in canonical.items():
        assert state.options[key] == value


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"size": "16x14"}, ["17x14 to 60x60", "16x14"]),
        ({"size": "17x13"}, ["17x14 to 60x60"]),
        ({"size": "61x40"}, ["17x14 to 60x60"]),
        ({"size": "big"}, ["7x7"]),
        ({"lengths": "2,2"}, ["must differ", "2,2"]),
        ({"lengths": "1,1"}, ["must differ"]),
        ({"lengths": "0,1"}, ["from 1 to 10", "0,1"]),
        ({"lengths": "2,-1"}, ["from 1 to 10", "2,-1"]),
        ({"lengths": "11,1"}, ["from 1 to 10"]),
        ({"lengths": "2"}, ["like 2,1"]),
        ({"lengths": "2,1,3"}, ["like 2,1"]),
        ({"lengths": "a,b"}, ["like 2,1"]),
        ({"lengths": "²,1"}, ["like 2,1"]),
    ],
)
def test_refused_options(options: dict[str, str], words: list[str]) -> None:
    with pytest.raises(BadOptions) as caught:
        engine.new("livewire", **options)
    assert not isinstance(caught.value, IllegalMove)
    for word in words:
        assert word in str(caught.value)


def test_two_players_only() -> None:
    with pytest.raises(BadOptions, match="exactly 2"):
        engine.new("livewire", players=3)


def test_json_round_trip() -> None:
    state = game("a4-d4", "u4-r4", "d4-d5", size="20x15", lengths="3,1")
    assert state.view().bases[1][0] == (20, 3)
    options = json.loads(json.dumps(state.options))
    assert engine.replay("livewire", options, state.moves) == state


# -- the board -------------------------------------------------------------------------


def test_base_rows_default_board() -> None:
    assert [row + 1 for row in base_rows(34)] == [8, 15, 21, 28]
    view = view_of(engine.new("livewire"))
    assert view.bases == (
        ((0, 7), (0, 14), (0, 20), (0, 27)),
        ((42, 7), (42, 14), (42, 20), (42, 27)),
    )
    assert [dot.kind for dot in view.dots] == ["base"] * 8
    assert all(dot.live and not dot.used and dot.parent is None for dot in view.dots)


@pytest.mark.parametrize("height", range(14, 61))
def test_base_rows_are_rounded_like_the_rules(height: int) -> None:
    # H * k / 5 is never a half, so Python's banker's round agrees with half-up.
    assert base_rows(height) == tuple(round(height * k / 5) for k in range(1, 5))


def test_small_board_and_labels() -> None:
    assert [row + 1 for row in base_rows(14)] == [4, 7, 9, 12]
    state = engine.new("livewire")
    # 42 squares wide: columns a..aq; 34 high: rows 1..35.
    assert "aq8-ao8" in state.play("a8-c8").legal_moves()
    refused(state, "a8 a36", Code.OFF_BOARD, "a36", "aq35")
    refused(state, "ar8 ap8", Code.OFF_BOARD, "ar8")


def test_opening_moves() -> None:
    state = engine.new("livewire")
    moves = state.legal_moves()
    assert len(moves) == 32
    a8 = [move for move in moves if move.startswith("a8-")]
    assert sorted(a8) == sorted(
        ["a8-a10", "a8-a6", "a8-c8", "a8-a9", "a8-a7", "a8-b8", "a8-b9", "a8-b7"]
    )
    assert moves == sorted(moves, key=engine.notation.sort_key)
    second = state.play("a8 c8").legal_moves()
    assert len(second) == 32
    assert {"aq8-ao8", "aq8-ap8", "aq8-ap9", "aq8-ap7", "aq8-aq10", "aq8-aq6"} < set(second)


# -- notation ----------------------------------------------------------------------------


@pytest.mark.parametrize("typed", ["a9 c9", "a9-c9", "A9C9", "  a9   C9 ", "a9 c9 straight"])
def test_spellings(typed: str) -> None:
    assert game(typed).moves == ("a9-c9",)


def test_kind_words() -> None:
    assert game("a9 a10 branch").moves == ("a9-a10",)
    assert game("a9 b10 diagonal").moves == ("a9-b10",)
    state = game()
    refused(state, "a9 a10 straight", Code.WRONG_KIND, "a9-a10", "branch", "straight line")
    refused(state, "a9 b10 branch", Code.WRONG_KIND, "a9-b10", "diagonal")


@pytest.mark.parametrize(
    "typed", ["hello", "a9", "a9 c9 e9", "a9 c9 sideways", "branch", "a9-c9-branch", "a99999 a1"]
)
def test_syntax(typed: str) -> None:
    refused(game(), typed, Code.SYNTAX)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=40))
def test_any_text_is_refused_or_played(text: str) -> None:
    state = game("a9-c9", "r9-p9")
    try:
        after = state.play(text)
    except IllegalMove as exc:
        assert exc.code and str(exc)
    else:
        assert after.moves[-1] in state.legal_moves()


def test_typed_pass_is_refused() -> None:
    refused(game(), "pass", Code.NO_PASS, "automatic")


def test_empty_and_long_input() -> None:
    refused(game(), "", Code.EMPTY)
    refused(game(), "a" * 10_000, Code.TOO_LONG)


def test_off_board() -> None:
    refused(game(), "zzz1 a1", Code.OFF_BOARD, "zzz1")
    refused(game(), "a4 a0", Code.OFF_BOARD, "a0", "r15")
    refused(game(), "a12 a16", Code.OFF_BOARD, "a16")
    refused(game(), "s4 q4", Code.OFF_BOARD, "s4")
    state = game("a9-c9", "r9-p9")
    refused(state, "c9 c9999", Code.OFF_BOARD, "c9999")


# -- the source dot ---------------------------------------------------------------------------


def test_no_dot_and_not_your_dot() -> None:
    refused(game(), "c5 c7", Code.NO_DOT, "c5")
    refused(game(), "r9 p9", Code.NOT_YOURS, "r9", "Player 2")
    refused(game("a9-c9"), "c9 e9", Code.NOT_YOURS, "c9", "Player 1")


def test_used_dot_and_reusable_base() -> None:
    state = player1("a9-c9", "c9-e9", "a9-a10", "a9-b8")  # the base a9 three times
    refused(state, "c9 c10", Code.USED_DOT, "c9")
    view = state.view()
    assert only_dot(view, (2, 8)).used and not only_dot(view, (4, 8)).used
    assert not only_dot(view, (0, 8)).used  # a base is never used up
    assert "a9-a8" in state.legal_moves()


def test_dead_dot_cannot_start_a_line() -> None:
    refused(_own_dot_landing(), "c8 c9", Code.DEAD_DOT, "c8")
    refused(_own_dot_landing(), "c7 c9", Code.DEAD_DOT, "c7")


# -- move vectors ------------------------------------------------------------------------------


def test_backward() -> None:
    state = game("a9-c9", "r9-q9")
    refused(state, "c9 b9", Code.BACKWARD, "c9-b9", "right edge")
    refused(state, "c9 a9", Code.BACKWARD, "c9-a9")
    state = state.play("c9-e9")
    refused(state, "q9 r10", Code.BACKWARD, "q9-r10", "left edge")


def test_not_a_move_vector() -> None:
    error = refused(game(), "a9 d9", Code.BAD_LINE, "a9-d9")
    assert "straight line goes 2" in str(error) and "branch 1" in str(error)
    refused(game(), "a9 b11", Code.BAD_LINE, "a9-b11")
    refused(game(), "a9 a9", Code.BAD_LINE, "a9-a9")
    refused(game(), "a9 c11", Code.BAD_LINE, "a9-c11")


def test_player_2_moves_toward_the_left() -> None:
    state = game("a9-c9", "r9 q9", "c9-e9", "q9 p10")
    assert state.moves == ("a9-c9", "r9-q9", "c9-e9", "q9-p10")
    assert state.view().lines[-1] == Line((16, 8), (15, 9), 1, "diagonal")
    refused(state.play("e9-g9"), "p10 q11", Code.BACKWARD, "p10-q11")


def test_diagonals_start_from_bases_branches_and_diagonals_only() -> None:
    state = game("a9-c9", "r9-p9")
    refused(state, "c9 d10", Code.DIAGONAL_FROM_STRAIGHT, "c9")
    refused(state, "c9 d8", Code.DIAGONAL_FROM_STRAIGHT, "c9")
    assert game("a9-b9", "r9-q9", "b9-c10").moves[-1] == "b9-c10"  # from a branch dot
    assert game("a9-b10", "r9-q10", "b10-c9").moves[-1] == "b10-c9"  # from a diagonal dot
    assert game("a9-b10").moves == ("a9-b10",)  # from a base
    assert only_dot(game("a9-b10").view(), (1, 9)).kind == "diagonal"


def test_lengths_option() -> None:
    state = game(lengths="3,1")
    assert "a9-d9" in state.legal_moves() and "a9-c9" not in state.legal_moves()
    refused(state, "a9 c9", Code.BAD_LINE, "goes 3")
    swapped = game("a9-c9", "r9-q9", lengths="1,2")  # straight 1, branch 2
    assert only_dot(swapped.view(), (2, 8)).kind == "branch"
    assert "c9-d10" in swapped.legal_moves()
    swapped = game("a9-b9", "r9-p9", lengths="1,2")
    assert only_dot(swapped.view(), (1, 8)).kind == "straight"
    refused(swapped, "b9 c10", Code.DIAGONAL_FROM_STRAIGHT, "b9")


# -- rule 2: landing on a line; rule 3: going through a line -------------------------------


def test_lands_on_a_line() -> None:
    refused(meeting(), "i9 k9", Code.LANDS_ON_LINE, "i9-k9", "l9-j9", "k9")
    refused(player1("a9-a11"), "a11 a10", Code.LANDS_ON_LINE, "a11-a10", "a9-a11", "a10")


def _crossing_chains() -> LivewireState:
    """Player 1 at k9 (unused) below Player 2's chain m7-l8-l10; Player 1 to move."""
    return game(
        *("a9-c9", "r7-p7", "c9-e9", "p7-n7", "e9-g9", "n7-m7"),
        *("g9-i9", "m7-l8", "i9-k9", "l8-l10"),
    )


def test_goes_through_a_line() -> None:
    refused(_crossing_chains(), "k9 m9", Code.THROUGH_LINE, "k9-m9", "l8-l10", "l9")


def test_runs_along_a_line() -> None:
    # Sharing a stretch of line, even between two dots, goes through that line.
    refused(player1("a9-a10"), "a9 a11", Code.OVERLAP, "a9-a11", "a9-a10")
    refused(player1("a9-b10"), "a9 b10", Code.OVERLAP, "a9-b10")
    refused(player1("a9-c9", "c9-c10"), "c10 c9", Code.OVERLAP, "c10-c9", "c9-c10")


def test_two_diagonals_in_one_square_cross() -> None:
    refused(player1("a4-b5", "a4-a5"), "a5 b4", Code.CROSSING, "a5-b4", "a4-b5")
    state = game(
        *("a9-c9", "r9-p9", "c9-e9", "p9-n9", "e9-g9", "n9-l9", "g9-h9", "l9-k9"),
        *("h9-i10", "k9-j9", "a4-a3", "j9-i9", "a3-b2"),
    )
    refused(state, "i9 h10", Code.CROSSING, "i9-h10", "h9-i10")
    assert "i9-h8" in state.legal_moves()  # the other square is free


def test_line_may_start_where_its_source_dot_stands() -> None:
    # Decision: a line may start at the end point of the line that made its dot.
    state = player1("a9-c9", "c9-e9", "e9-e10", "e10-f11")
    assert state.view().lines[-2] == Line((4, 9), (5, 10), 0, "diagonal")
    # Every line from a base shares the base point.
    assert player1("a9-c9", "a9-a10", "a9-b8").moves[-2] == "a9-b8"


def test_passing_through_a_dot_is_allowed() -> None:
    state = _crossing_chains().play("k9-k8").play("l10-k10")
    assert state.play("k8 m8").moves[-1] == "k8-m8"  # through Player 2's dot l8


# -- rule 4: the landing point; rule 5: bases -------------------------------------------


def test_cannot_land_on_a_dead_dot() -> None:
    state = _own_dot_landing().play("a9 c9").play(P2_FILLER[5])
    refused(state, "c9 c8", Code.LANDS_ON_DEAD, "c9-c8", "c8")


def test_cannot_land_on_own_base() -> None:
    refused(game(), "a7 a9", Code.OWN_BASE, "a7-a9", "a9")
    refused(player1("a7-a8"), "a8 a9", Code.OWN_BASE, "a8-a9", "a9")


def test_cannot_pass_through_a_base() -> None:
    refused(player1("a7-a8"), "a8 a10", Code.THROUGH_BASE, "a8-a10", "a9")
    refused(game(lengths="3,1"), "a7 a10", Code.THROUGH_BASE, "a7-a10", "a9")
    # The opponent's bases too: Player 1 reaches r8 between Player 2's r7 and r9.
    state = player1(
        *("a7-b8", "b8-d8", "d8-f8", "f8-h8", "h8-j8", "j8-l8", "l8-n8", "n8-p8", "p8-r8")
    )
    refused(state, "r8 r10", Code.THROUGH_BASE, "r8-r10", "r9")
    refused(state, "r8 r6", Code.THROUGH_BASE, "r8-r6", "r7")
    assert state.play("r8 r9").outcome == engine.Outcome(
        (0,),
        End.BASE_REACHED,
        path=("a7", "b8", "d8", "f8", "h8", "j8", "l8", "n8", "p8", "r8", "r9"),
    )


def test_bases_run_along_the_home_edge() -> None:
    # Decision: up and down along the home edge from a base are not backward.
    state = game()
    assert {"a7-a5", "a7-a6", "a12-a14", "a12-a13"} <= set(state.legal_moves())
    assert game("a7-a5").view().lines == (Line((0, 6), (0, 4), 0, "straight"),)


# -- what a move does ---------------------------------------------------------------------


def test_landing_on_an_opponent_dot_kills_both() -> None:
    state = meeting().play("i9 j9")
    view = state.view()
    theirs, mine = dots_at(view, (9, 8))
    assert (theirs.owner, theirs.live) == (1, False)
    assert mine == Dot((9, 8), 0, "branch", False, False, (8, 8))
    assert only_dot(view, (11, 8)).live  # Player 2's l9, the parent, lives on
    assert only_dot(view, (8, 8)).used and only_dot(view, (8, 8)).live
    assert view.lines[-1] == Line((8, 8), (9, 8), 0, "branch")
    assert view.last_points == ((8, 8), (9, 8))
    refused(state.play("r12-r13"), "i9 j10", Code.USED_DOT, "i9")


def _own_dot_landing() -> LivewireState:
    """Player 1's c5-c7 lands on its own dot c7 (child c8); Player 1 to move."""
    return player1("a7-c7", "c7-c8", "a4-b5", "b5-c5", "c5-c7")


def test_landing_on_an_own_dot_kills_it_its_descendants_and_the_new_dot() -> None:
    view = _own_dot_landing().view()
    old, new = dots_at(view, (2, 6))
    assert (old.parent, old.live, old.used) == ((0, 6), False, True)
    assert (new.parent, new.live, new.kind) == ((2, 4), False, "straight")
    assert not only_dot(view, (2, 7)).live  # c8, drawn from c7
    assert only_dot(view, (2, 4)).live  # c5 drew the line and lives
    assert only_dot(view, (0, 6)).live  # the base a7 never dies
    assert "a7-a5" in _own_dot_landing().legal_moves()


def test_passing_through_a_live_dot_kills_it_and_all_its_descendants() -> None:
    state = _crossing_chains().play("k9-k8").play("l10-k10").play("k8 m8")
    view = state.view()
    assert not only_dot(view, (11, 7)).live  # l8, passed through
    assert not only_dot(view, (11, 9)).live  # l10, its child
    assert not only_dot(view, (10, 9)).live  # k10, its grandchild
    assert only_dot(view, (12, 6)).live  # m7, its parent, lives
    assert only_dot(view, (12, 7)).live  # the new dot m8
    assert len(view.lines) == 13  # lines stay drawn
    refused(state, "k10 j10", Code.DEAD_DOT, "k10")


def test_dead_dots_stay_and_can_be_passed_through() -> None:
    # c8 died with c7; no line passes through it, so b8-d8 may pass it.
    state = _own_dot_landing().play("a7-b8").play(P2_FILLER[5])
    after = state.play("b8 d8")
    assert not only_dot(after.view(), (2, 7)).live
    # ...and the dead dot's line still blocks: c9-c7 would run along c7-c8.
    state = state.play("a9-c9").play(P2_FILLER[6])
    refused(state, "c9 c7", Code.OVERLAP, "c7-c8")


# -- the end ------------------------------------------------------------------------------


def test_landing_on_an_opponent_base_wins_and_kills_what_it_passes() -> None:
    state = toward_r4("r4-q5", "q5-q4").play("p4 r4")  # passes Player 2's live q4
    assert state.outcome is not None
    assert state.outcome.winners == (0,)
    assert state.outcome.reason == End.BASE_REACHED
    path = ("a4", "c4", "e4", "g4", "i4", "k4", "m4", "o4", "p4", "r4")
    assert state.outcome.path == path
    view = state.view()
    assert view.winning_path == tuple(engine.notation.point(cell) for cell in path)
    assert not only_dot(view, (16, 3)).live  # q4 died
    base, landed = dots_at(view, (17, 3))
    assert base.kind == "base" and base.live  # bases never die
    assert (landed.owner, landed.parent) == (0, (15, 3))
    assert state.to_move is None and state.legal_moves() == []
    refused(state, "r9 p9", Code.GAME_OVER)


def test_a_winning_move_obeys_the_rules() -> None:
    state = toward_r4("r4-q4")
    refused(state, "p4 r4", Code.OVERLAP, "p4-r4", "r4-q4")
    assert "p4-q4" in state.legal_moves()


def test_passes_are_automatic_and_two_in_a_row_draw() -> None:
    start = engine.new("livewire", size=SMALL)
    for seed in range(4):
        final = start.random_playout(random.Random(seed))
        assert final.moves[-2:] == ("pass", "pass")
        assert final.outcome == engine.Outcome((), End.PASSES)
        assert final.to_move is None and final.legal_moves() == []
        for index, move in enumerate(final.moves):
            if move != "pass" or final.moves[index - 1] == "pass":
                continue
            # The pass was forced: the engine makes it after the move before it.
            after = engine.replay("livewire", final.options, final.moves[: index + 1])
            assert engine.replay("livewire", final.options, final.moves[:index]) == after
            assert isinstance(after, LivewireState)
            assert not after._has_move(index % 2)
            if final.moves[index + 1] != "pass":
                # A single pass does not end the game: the other player moves again.
                assert after.outcome is None and after.to_move == (index + 1) % 2
