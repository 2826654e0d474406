"""Short Circuit: the legal moves listed, the view, the completion search against brute force,
and the random playouts (Python and compiled, side by side, on bitboards) keeping the rules. The
rules one by one: tests/test_shortcircuit_rules.py."""

from __future__ import annotations

import contextlib
import itertools
import math
import random
from collections import Counter
from collections.abc import Iterator
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
import engine.shortcircuitplayout
from engine import End, IllegalMove
from engine.notation import point
from engine.shortcircuit import CONNECTOR, ShortCircuitState, ShortCircuitView
from engine.shortcircuitboard import _direct_placement, connector_reachable, pop_links
from engine.shortcircuitplayout import RandomPlayout
from tests.conftest import skip_without_a_c_compiler
from tests.shortcircuitkit import BOXED, LOOP_GAME, POP_LAST_GAME, new, played, position

# -- listing moves ------------------------------------------------------------------


def test_legal_moves_are_exactly_the_accepted_single_actions() -> None:
    for state in (position(caps="c3 b2", **BOXED), played(POP_LAST_GAME[:5])):
        board = state._board
        labels = [board.label(cell) for cell in board.order]
        candidates = [f"{kind} {cell}" for kind in ("r", "y", "b", "g", "cap") for cell in labels]
        candidates += [f"pop {c} {y}" for c in labels for y in labels]
        accepted = []
        for text in candidates:
            with contextlib.suppress(IllegalMove):
                accepted.append(state.play(text).moves[state.ply])
        assert sorted(accepted) == sorted(state.legal_moves())


def test_view_fields() -> None:
    state = played(POP_LAST_GAME[:6])
    view = state.view()
    assert isinstance(view, ShortCircuitView)
    assert view.colours == (("red", "yellow"), ("blue", "green"))
    assert dict(view.connectors) == {(3, 4): "green", (4, 4): "blue"}
    assert view.capacitors == ((5, 4),)
    assert view.popped and view.turn_actions == ("pop e4 f5",)
    assert view.last_turn == ("cap e4",)
    assert view.to_move == 1 and view.last_move == "pop e4 f5"


# -- the completion search against a brute force --------------------------------------


def _reference_reachable(state: ShortCircuitState) -> bool:
    """Brute force: some sequence of pops (any shape-legal pop) ends in a placement."""
    board, mover = state._board, state._mover

    @cache
    def search(colours: tuple[int, ...], caps: int) -> bool:
        if _direct_placement(board, mover, list(colours)):
            return True
        own = colours[2 * mover] | colours[2 * mover + 1]
        occupied = colours[0] | colours[1] | colours[2] | colours[3]
        for capacitor in board.order:
            if not caps >> capacitor & 1:
                continue
            for target in board.order:
                if occupied >> target & 1 and pop_links(board, own, capacitor, target):
                    keep = ~(1 << target)
                    if search(tuple(m & keep for m in colours), caps & ~(1 << capacitor)):
                        return True
        return False

    return search(tuple(state._colours), state._caps)


def test_completion_search_matches_brute_force() -> None:
    """Random crowded positions, both movers: placement now, only after pops, never."""
    kinds: set[tuple[bool, bool]] = set()
    for seed in range(800):
        rng = random.Random(seed)
        state = new(size=rng.choice([3, 4]))
        board = state._board
        state._turns = 2
        fill, cap_rate = rng.choice([0.7, 0.85, 0.95]), rng.choice([0.1, 0.25, 0.4])
        colours = [0, 0, 0, 0]
        for cell in board.order:
            if rng.random() < fill:
                colours[rng.randrange(4)] |= 1 << cell
            if rng.random() < cap_rate:
                state._caps |= 1 << cell
        state._colours = colours
        for mover in (0, 1):
            state._mover = mover
            expected = _reference_reachable(state)
            assert connector_reachable(board, mover, colours, state._caps) == expected
            kinds.add((_direct_placement(board, mover, colours), expected))
    assert kinds == {(True, True), (False, True), (False, False)}


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_random_playouts_replay_through_play(seed: int) -> None:
    start = new(size=4, max_turns=60)
    final = start.random_playout(random.Random(seed))
    assert final.outcome is not None and start.ply == 0
    assert engine.replay("shortcircuit", final.options, final.moves) == final


@pytest.fixture(params=["compiled", "python"])
def playout_loop(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Each playout test twice: RandomPlayout's compiled loop, then its Python reference."""
    if request.param == "python":
        monkeypatch.setattr(engine.shortcircuitplayout, "_compiled", None)
    elif engine.shortcircuitplayout._compiled is None:
        pytest.skip("the compiled playouts were not built (no C compiler at install)")
    yield request.param


def test_the_compiled_playouts_are_built_where_a_compiler_is() -> None:
    skip_without_a_c_compiler("the playouts run in Python")
    assert engine.shortcircuitplayout._compiled is not None, "make install builds engine/*.c"


def test_compiled_and_python_playouts_draw_the_same_actions(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Every board size, limited and unlimited capacitors, from random positions, in
    # pieces of any length: the same numbers drawn give the same actions and position.
    compiled = engine.shortcircuitplayout._compiled
    if compiled is None:
        pytest.skip("the compiled playouts were not built (no C compiler at install)")
    rng = random.Random(3)
    for size, take_wins in itertools.product(range(3, 11), (False, True)):
        for capacitors in ("unlimited", 2):
            start = new(size=size, capacitors=capacitors, max_turns=rng.choice([40, 150]))
            for _ in range(rng.randrange(40)):
                if start.outcome is None:
                    start.apply(rng.choice(start.actions()))
            seed = rng.randrange(2**32)
            results = []
            for loop in (compiled, None):
                monkeypatch.setattr(engine.shortcircuitplayout, "_compiled", loop)
                playout = RandomPlayout(start, take_wins=take_wins)
                draws = random.Random(seed)
                while not playout.run(draws, draws.choice([1, 7, 256])):
                    pass
                results.append((playout.played, playout.end, playout.winners, playout._colours))
            assert results[0] == results[1], (size, capacitors, take_wins)


def _replayed(start: ShortCircuitState, playout: RandomPlayout) -> ShortCircuitState:
    """The playout's actions applied to `start` by the engine, each checked to be one of
    `actions()` for the seat the playout says made it."""
    state = start.copy()
    for seat, action in playout.played:
        assert state.to_move == seat and action in state.actions(), (state, action)
        state.apply(action)
    return state


@pytest.mark.parametrize("take_wins", [False, True])
def test_random_playouts_on_bitboards_keep_the_rules(playout_loop: str, take_wins: bool) -> None:
    # From the start and from random positions of crowded and roomy options, played in
    # pieces of any length: every action legal, the game ends where and as the engine
    # ends it, in each of the four ways.
    rng = random.Random(2)
    ends = Counter()
    for options in [
        {"size": 3},
        {"size": 3, "capacitors": 2, "max_turns": 40},
        {"size": 4, "capacitors": 3, "max_turns": 60},
        {"max_turns": 100},
    ]:
        for _ in range(25):
            start = new(**options)
            for _ in range(rng.randrange(40)):
                if start.outcome is None:
                    start.apply(rng.choice(start.actions()))
            playout = RandomPlayout(start, take_wins=take_wins)
            while not playout.run(rng, rng.choice([1, 7, 256])):
                pass
            final = _replayed(start, playout)
            assert final.outcome is not None
            assert (playout.winners, playout.end) == (final.outcome.winners, final.outcome.reason)
            ends[playout.end] += 1
    assert set(ends) == {End.LOOP, End.NO_CONNECTORS, End.PASSES, End.TURN_LIMIT}


def test_random_playouts_on_bitboards_draw_each_legal_action_alike(playout_loop: str) -> None:
    # A position with placements, capacitors and pops, one pop linked by two of the
    # mover's connectors (drawn through one of them only).
    rng = random.Random(4)
    while True:
        state = new(size=4, max_turns=60).random_playout(rng)
        state = engine.replay("shortcircuit", state.options, state.moves[: rng.randrange(20, 60)])
        assert isinstance(state, ShortCircuitState)
        if state.outcome is None and _has_a_doubly_linked_pop(state):
            break
    actions = state.actions()
    assert {kind for kind, _, _ in actions} == {0, 1, 2}
    draws = 300 * len(actions)
    counts = Counter()
    for _ in range(draws):
        playout = RandomPlayout(state, take_wins=False)
        playout.run(rng, 1)
        counts[playout.played[0][1]] += 1
    assert set(counts) == set(actions)
    assert all(abs(count - 300) < 5 * math.sqrt(300) for count in counts.values())


def test_playouts_that_take_wins_close_a_loop_when_they_can(playout_loop: str) -> None:
    # Before Player 1's last piece of LOOP_GAME (side 5) yellow d3 closes the ring;
    # no other action does, and uniform playouts draw it about once in as many
    # actions as there are.
    state = played(LOOP_GAME[:-1], size=5)
    ring = (1, state._board.bit_at[point("d3")])
    rng = random.Random(5)
    for _ in range(20):
        playout = RandomPlayout(state, take_wins=True)
        assert playout.run(rng, 1) and playout.end is End.LOOP
        assert playout.played == [(0, (CONNECTOR, *ring))]
    assert len(state.actions()) > 20


def _has_a_doubly_linked_pop(state: ShortCircuitState) -> bool:
    board, mover = state._board, state.to_move
    assert mover is not None
    own = state._colours[2 * mover] | state._colours[2 * mover + 1]
    return any(
        (own & board.closed[capacitor] & board.neighbours[target]).bit_count() >= 2
        for kind, capacitor, target in state.actions()
        if kind == 0
    )


def test_a_whole_turn_on_one_line_is_the_movers_in_the_record() -> None:
    state = position(red="c3", yellow="b2", blue="d3 a1", caps="c3")
    done = state.play("pop c3 d3, y d3")
    assert done.moves[-2:] == ("pop c3 d3", "y d3")
    assert done.actors[-2:] == (0, 0)  # both Player 1's, though a turn of two actions
    assert done.to_move == 1


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 30))
def test_actions_are_the_legal_moves_and_apply_like_them(seed: int, plies: int) -> None:
    rng = random.Random(seed)
    state = new(size=3, capacitors=2, max_turns=40)
    for _ in range(plies):
        if state.outcome is None:
            state = state.play(rng.choice(state.legal_moves()))
    if state.outcome is not None:
        return
    actions = state.actions()
    assert sorted(map(state.action_text, actions)) == sorted(state.legal_moves())
    for action in actions[:8]:
        applied = state.copy()
        applied.apply(action)
        played_out = state.play(state.action_text(action))
        assert applied == played_out
        assert applied.position_key() == played_out.position_key()
