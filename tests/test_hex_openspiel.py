"""Hex and Disthex against OpenSpiel's Hex, move by move.

OpenSpiel's action r * n + c is our cell (column c, row r + 1); its player 0
is Black and moves first. Its swap moves the opening stone to the mirror cell
and gives it to player 1, where ours gives player 1 the colour Black instead:
the two are the same game seen across the a1 diagonal, so after a swap our
cell (c, r) is OpenSpiel's action c * n + r. Disthex is checked against
OpenSpiel's legal set minus the cells next to the last stone.
"""

from __future__ import annotations

import random
from functools import cache

import pytest

import engine
from engine.core import End, GameState
from engine.notation import label, point

pyspiel = pytest.importorskip("pyspiel")

# The six neighbours of (c, r), as docs/rules/hex.md lists them.
DIRECTIONS = ((0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1))


@cache  # formatting the labels was most of this file's time
def ours(action: int, size: int, swapped: bool) -> str:
    """Our move text for an OpenSpiel action."""
    if action == size * size:
        return "swap"
    row, column = divmod(action, size)
    return label((row, column) if swapped else (column, row))


def touching(cell: str, size: int) -> set[str]:
    column, row = point(cell)
    return {
        label((column + dc, row + dr))
        for dc, dr in DIRECTIONS
        if 0 <= column + dc < size and 0 <= row + dr < size
    }


def play_both(name: str, size: int, swap: bool, rng: random.Random) -> GameState | None:
    """One random game played on both engines, compared after every move.

    Returns our final state, or None for a Disthex game that reached a
    forced pass (OpenSpiel has no pass; the game is compared up to there).
    """
    spiel = pyspiel.load_game(f"hex(board_size={size},swap={str(swap).lower()})")
    theirs = spiel.new_initial_state()
    state = engine.new(name, size=size, swap=swap)
    swapped = False
    last_stone: str | None = None
    while True:
        assert state.outcome is None
        actions = {ours(action, size, swapped): action for action in theirs.legal_actions()}
        expected = set(actions)
        if name == "disthex" and last_stone is not None:
            expected -= touching(last_stone, size)
        if not expected:
            assert state.last_move == "pass"
            return None
        assert state.to_move == theirs.current_player()
        assert set(state.legal_moves()) == expected
        move = rng.choice(sorted(expected))
        theirs.apply_action(actions[move])
        state = state.play(move)
        if move == "swap":
            swapped = True
        else:
            last_stone = move
        assert (state.outcome is None) == (not theirs.is_terminal())
        if theirs.is_terminal():
            winner = 0 if theirs.returns()[0] > 0 else 1
            assert state.outcome is not None
            assert state.outcome.winners == (winner,)
            assert state.outcome.reason is End.CONNECTION
            assert state.to_move is None
            assert state.legal_moves() == []
            return state


@pytest.mark.parametrize("swap", [False, True])
@pytest.mark.parametrize("size", [2, 3, 4, 5, 7, 9, 11])
def test_hex_matches_openspiel(size: int, swap: bool) -> None:
    rng = random.Random(size * 2 + swap)
    games = max(100, 4800 // size**2)
    for _ in range(games):
        final = play_both("hex", size, swap, rng)
        assert final is not None


@pytest.mark.parametrize("swap", [False, True])
@pytest.mark.parametrize("size", [2, 3, 4, 5, 7, 9, 11])
def test_disthex_matches_openspiel_minus_the_last_stones_neighbours(size: int, swap: bool) -> None:
    rng = random.Random(100 + size * 2 + swap)
    games = max(100, 4800 // size**2)
    compared = 0
    for _ in range(games):
        if play_both("disthex", size, swap, rng) is not None:
            compared += 1
    # Every 2x2 game reaches a pass; on bigger boards most games never do.
    assert compared > games // 2 or size == 2
