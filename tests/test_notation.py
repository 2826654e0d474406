"""How a newcomer learns to type a move: which chat lines read as a move attempt (those
get the game's refusal in a thread, the rest stay chat), and the rules cards' notation
with examples the engine plays."""

from __future__ import annotations

import pytest

import engine
from bot.service import rules_card

#: Real chat in a game's thread: none of it is an attempt at a move.
CHAT = (
    "gg",
    "GG!",
    "nice move!",
    "d'oh",
    "lol",
    "lol 123",
    "I think e5 was a mistake",
    "brb",
    "brb 5 min",
    "g2g",
    "ok",
    "pass",
    "hello there",
    "r u there?",
    "b right back",
    "c u later",
    "y not",
    "pop quiz tomorrow",
    "cap'n",
    "https://example.org/game/a1",
    "<https://discord.com/channels/1/2>",
    "😀",
    "👍 d5",
    "2nd game?",
    "1v1 me",
    "good luck, have fun",
    "what does swap do?",
    "hmm",
    "...",
    "",
    "   ",
    "@bob your move",
    "thanks for the game",
    "resigning soon lol",
)

#: Attempts at a move, right or wrong in some game: each gets the game's refusal.
NEAR_MOVES = (
    "d5 g3",
    "d5",
    "D5",
    "d5g3",
    "d5-g3",
    "a1-b2",
    "e44",
    "z9",
    "aq21 ao21",
    "d5!",
    "f6?",
    "swap",
    "Swap",
    "swap.",
    "pop e5",
    "pop e5 f6",
    "cap d4",
    "c d4",
    "r d4",
    "red d4",
    "Y c3",
    "green e5",
    "b2 b5 please",
    "a8 c8 branch",
)


@pytest.mark.parametrize("line", CHAT)
def test_chat_does_not_read_as_a_move(line: str) -> None:
    assert not engine.reads_as_move(line)


@pytest.mark.parametrize("line", NEAR_MOVES)
def test_a_near_move_reads_as_a_move(line: str) -> None:
    assert engine.reads_as_move(line)


@pytest.mark.parametrize("name", sorted(engine.GAMES))
def test_every_legal_first_move_reads_as_a_move(name: str) -> None:
    """No move a game takes is ever mistaken for chat."""
    state = engine.new(name)
    assert all(engine.reads_as_move(move) for move in state.legal_moves())
    for example in engine.notation_examples(name):
        assert engine.reads_as_move(example.move)


@pytest.mark.parametrize("name", sorted(engine.GAMES))
def test_each_notation_example_is_legal_on_the_default_board(name: str) -> None:
    examples = engine.notation_examples(name)
    assert 2 <= len(examples) <= 3
    for example in examples:
        before = engine.replay(name, engine.new(name).options, example.before)
        assert example.move in before.legal_moves()
        before.play(example.move)


def test_the_examples_show_each_kind_of_move() -> None:
    shown = [example.move.split()[0] for example in engine.notation_examples("shortcircuit")]
    assert "cap" in shown and "pop" in shown
    assert "swap" in [example.move for example in engine.notation_examples("hex")]


@pytest.mark.parametrize("name", sorted(engine.GAMES))
def test_every_rules_card_teaches_the_notation_with_its_examples(name: str) -> None:
    card = rules_card(name)
    assert "How to type a move" in card
    assert engine.GAMES[name].notation in card
    for example in engine.notation_examples(name):
        assert example.move in card


def test_the_short_circuit_card_names_every_kind_of_action() -> None:
    card = rules_card("shortcircuit")
    for word in ("red or r", "cap", "pop"):
        assert word in card
