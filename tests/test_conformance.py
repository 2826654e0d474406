"""One conformance suite over every registered game and several option sets.

Random playouts end with a valid outcome; every listed move plays; anything
else typed is refused with IllegalMove only and changes nothing; a record
replays (through JSON) to an equal state.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine import Code, End, GameState, IllegalMove

#: (game, options) pairs: defaults plus small, odd and extreme settings.
OPTION_SETS: list[tuple[str, dict[str, Any]]] = [
    ("hotwire", {}),
    ("hotwire", {"size": "5x5"}),
    ("hotwire", {"size": "4x6", "lengths": "1,3,5"}),
    ("hotwire", {"size": "3x3", "lengths": "any"}),
    ("hotwire", {"size": "2x2", "lengths": "2"}),
    ("hex", {}),
    ("hex", {"size": 5}),
    ("hex", {"size": "2", "swap": "off"}),
    ("disthex", {}),
    ("disthex", {"size": 4, "swap": "on"}),
    ("disthex", {"size": 2}),
    ("shortcircuit", {}),
    ("shortcircuit", {"size": 3, "capacitors": 2}),
    ("shortcircuit", {"size": 4, "max_turns": 40}),
    ("livewire", {}),
    ("livewire", {"size": "17x14"}),
    ("livewire", {"size": "20x15", "lengths": "3,1"}),
    ("intersections", {}),
    ("intersections", {"players": 3}),
    ("intersections", {"players": 2, "size": 3}),
    ("intersections", {"players": 4, "size": 5, "rounds": 8}),
]
IDS = [f"{name}({','.join(f'{k}={v}' for k, v in opts.items())})" for name, opts in OPTION_SETS]
SLOW_GAMES = {"livewire", "shortcircuit"}

FAST = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def fresh(name: str, options: dict[str, Any]) -> GameState:
    return engine.new(name, **options)


def assert_valid_end(state: GameState) -> None:
    outcome = state.outcome
    assert outcome is not None
    assert state.to_move is None
    assert state.legal_moves() == []
    assert isinstance(outcome.reason, End)
    assert outcome.reason in engine.GAMES[state.name].ends  # the ways the game declares
    assert len(set(outcome.winners)) == len(outcome.winners)
    assert all(0 <= seat < state.players for seat in outcome.winners)
    if outcome.scores is not None:
        assert len(outcome.scores) == state.players
    with pytest.raises(IllegalMove) as refused:
        state.play(state.moves[-1] if state.moves else "a1")
    assert refused.value.code == Code.GAME_OVER


def same_position(a: GameState, b: GameState) -> None:
    assert a == b
    assert a.moves == b.moves
    assert a.actors == b.actors  # replay knows who made each entry, as play did
    assert a.to_move == b.to_move
    assert a.outcome == b.outcome
    assert a.legal_moves() == b.legal_moves()
    assert a.view() == b.view()


@pytest.mark.parametrize(("name", "options"), OPTION_SETS, ids=IDS)
@FAST
@given(seed=st.integers(0, 2**32 - 1))
def test_random_playouts_end_with_a_valid_outcome_and_replay(
    name: str, options: dict[str, Any], seed: int
) -> None:
    start = fresh(name, options)
    final = start.random_playout(random.Random(seed))
    assert_valid_end(final)
    info = engine.GAMES[name]
    if not info.renames_seats:  # the web pages name the seats without a replay
        assert [final.seat_name(s) for s in range(final.players)] == [
            info.seat_name(s) for s in range(final.players)
        ]
    assert start.ply == 0  # the start state is untouched
    record = json.loads(json.dumps({"options": final.options, "moves": final.moves}))
    same_position(engine.replay(name, record["options"], record["moves"]), final)


@pytest.mark.parametrize(("name", "options"), OPTION_SETS, ids=IDS)
def test_every_listed_move_is_accepted_and_play_never_mutates(
    name: str, options: dict[str, Any]
) -> None:
    """Walk random games through the public `play`, trying a sample of the legal
    list at every step (all of it on small boards)."""
    rng = random.Random(f"{name}{options}")
    games = 2 if name in SLOW_GAMES else 5
    for _ in range(games):
        state = fresh(name, options)
        steps = 0
        while state.outcome is None and steps < 400:
            legal = state.legal_moves()
            assert legal, "a running game must offer a move"
            assert legal == sorted(set(legal), key=engine.notation.sort_key)
            before = (state.moves, state.to_move, state.view())
            for move in rng.sample(legal, min(len(legal), 12)):
                after = state.play(move)
                assert after.ply > state.ply
                assert after.moves[state.ply] == move  # canonical text is recorded as listed
                assert_actors(state, after)
            assert (state.moves, state.to_move, state.view()) == before
            state = state.play(rng.choice(legal))
            steps += 1


@pytest.mark.parametrize(("name", "options"), OPTION_SETS, ids=IDS)
def test_the_example_move_is_a_legal_move_until_the_end(name: str, options: dict[str, Any]) -> None:
    state = fresh(name, options)
    while state.outcome is None:
        example = state.example_move()
        assert example in state.legal_moves()
        state = state.play(random.Random(state.ply).choice(state.legal_moves()))
    assert state.example_move() is None


def assert_actors(before: GameState, after: GameState) -> None:
    """The engine says who made each new record entry: the mover for every action of
    the move (a whole turn may be several), another seat for each forced pass."""
    assert len(after.actors) == len(after.moves)
    assert after.actors[: before.ply] == before.actors
    for text, seat in zip(after.moves[before.ply :], after.actors[before.ply :], strict=True):
        assert (seat == before.to_move) != (text == "pass") or after.outcome, after.actors
    if after.mid_turn:
        assert after.to_move == after.actors[-1] == before.to_move


HOSTILE = [
    "",
    " ",
    "\x00",
    "\n\r\t",
    "pass",
    "PASS",
    "swap",
    "resign",
    "a0",
    "a1 a1",
    "a99999 b1",
    "zzz1 a1",
    "zzzzzzzzzzzz99999999",
    "a1" * 50,
    "x" * 10_000,
    "é5 ü3",
    "d5 🎲 g3",
    "a1; DROP TABLE games; --",
    "pop",
    "pop a1",
    "r",
    "cap",
    "a1 b2 branch diagonal",
    "-1 -1",
    "1a 2b",
    "\u202ea1 b2",
]


@pytest.mark.parametrize(("name", "options"), OPTION_SETS, ids=IDS)
def test_hostile_input_is_refused_with_illegal_move_only(
    name: str, options: dict[str, Any]
) -> None:
    state = fresh(name, options)
    for text in HOSTILE:
        try:
            after = state.play(text)
        except IllegalMove as refused:
            sentence = str(refused)
            assert sentence.strip() and "\n" not in sentence and len(sentence) < 300
        else:
            assert after.ply > state.ply  # it was a move after all
        assert state.ply == 0


@pytest.mark.parametrize(("name", "options"), OPTION_SETS, ids=IDS)
@settings(max_examples=60, deadline=None)
@given(text=st.text(max_size=40) | st.from_regex(r"[a-z]{1,3}\d{1,3}[ -]?[a-z]{0,3}\d{0,3}"))
def test_random_strings_are_accepted_or_refused_with_illegal_move(
    name: str, options: dict[str, Any], text: str
) -> None:
    state = fresh(name, options)
    if state.outcome is not None:
        return
    try:
        after = state.play(text)
    except IllegalMove:
        return
    assert after.ply > state.ply
    assert after.moves[0] in state.legal_moves() or after.moves[0] == "pass"


@pytest.mark.parametrize("name", sorted(engine.GAMES))
def test_a_bad_record_is_refused(name: str) -> None:
    options = fresh(name, {}).options
    with pytest.raises(IllegalMove):
        engine.replay(name, options, ["not a move"])
