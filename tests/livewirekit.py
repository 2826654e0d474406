"""What the tests of Livewire share: games on the smallest board, a look at the view, the dots
on a point, and positions set up by whole games."""

from __future__ import annotations

from engine.core import GameState
from engine.livewire import Dot, LivewireState, LivewireView
from tests.conftest import game as new_game

SMALL = "17x14"
#: Player 2 moves along the top edge, far from every position below.
P2_FILLER = (
    *("r12-r13", "r13-q14", "q14-q15", "q15-o15", "o15-m15"),
    *("m15-k15", "k15-i15", "i15-g15", "g15-e15"),
)


def game(*moves: str, size: str = SMALL, lengths: str = "2,1") -> LivewireState:
    return new_game(LivewireState, *moves, size=size, lengths=lengths)


def view_of(state: GameState) -> LivewireView:
    view = state.view()
    assert isinstance(view, LivewireView)
    return view


def dots_at(view: LivewireView, point: tuple[int, int]) -> list[Dot]:
    return [dot for dot in view.dots if dot.point == point]


def only_dot(view: LivewireView, point: tuple[int, int]) -> Dot:
    (dot,) = dots_at(view, point)
    return dot


def meeting() -> LivewireState:
    """Chains along row 9: Player 1 ends at i9, Player 2's straight l9-j9 ends at j9."""
    return game("a9-c9", "r9-p9", "c9-e9", "p9-n9", "e9-g9", "n9-l9", "g9-i9", "l9-j9")


def toward_r4(*player2: str) -> LivewireState:
    """Player 1 runs along row 4 to p4 while Player 2 plays `player2`, then filler."""
    player1_moves = ("a4-c4", "c4-e4", "e4-g4", "g4-i4", "i4-k4", "k4-m4", "m4-o4", "o4-p4")
    player2_moves = (*player2, *P2_FILLER)
    state = game()
    for mine, theirs in zip(player1_moves, player2_moves, strict=False):
        state = state.play(mine).play(theirs)
    return state
