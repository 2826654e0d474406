"""How a newcomer learns to type a move: which chat lines read as a move attempt (those
get the game's refusal in a thread, the rest stay chat), and the rules cards' notation
with examples the engine plays."""

from __future__ import annotations

import math
import re

import pytest

import engine
from bot.service import rules_card
from engine import BadOptions, Code, GameState, IllegalMove
from engine.core import OptionValue
from engine.options import dims

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


#: Lines no game reads as one of its moves: a refusal of any says what to type instead.
MALFORMED = (
    "x",
    "pass",
    "a1",
    "zz!",
    "d5 g3 h2 k9",
    "r",
    "cap",
    "pop",
    "pop a1",
    "r qq",
    "swap d5",
)


def board_sizes(name: str) -> tuple[OptionValue, OptionValue]:
    """The smallest and the largest board a game's size option allows."""
    parse = engine.GAMES[name].options["size"].parse
    typed: list[object] = [*range(1, 70)]
    typed += [f"{width}x{height}" for width in range(1, 70) for height in range(1, 70)]
    allowed = []
    for size in typed:
        try:
            allowed.append(parse(size))
        except BadOptions:
            continue
    by_area = sorted(allowed, key=lambda size: math.prod(dims(size)))
    return by_area[0], by_area[-1]


def examples_shown(sentence: str) -> list[str]:
    """The moves a refusal offers as examples: "..., like g e5, cap d6 or pop f5 d5."."""
    offered = re.search(r"(?:like|only move is) (.+)\.$", sentence)
    return re.split(r", | or ", offered[1]) if offered else []


@pytest.mark.parametrize(
    ("name", "size"),
    [(name, size) for name in sorted(engine.GAMES) for size in board_sizes(name)],
)
def test_a_malformed_move_is_refused_with_an_example_legal_on_that_board(
    name: str, size: OptionValue
) -> None:
    """On the smallest and the largest board, at the start and after each of the first
    moves, every example a refusal of unreadable text shows is a move the game takes
    there and then (never another game's notation, never a cell off a small board)."""
    state: GameState = engine.new(name, size=size)
    for _ in range(4):
        for text in MALFORMED:
            try:
                state.play(text)
            except IllegalMove as refused:
                if refused.code not in (Code.SYNTAX, Code.NO_PASS):
                    continue  # read, and refused by the rules (an occupied cell...)
                examples = examples_shown(str(refused))
                assert examples or refused.code == Code.NO_PASS, str(refused)
                for example in examples:
                    assert example in state.legal_moves(), (text, str(refused))
                    state.play(example)
        example = state.example_move()
        if example is None:
            break
        state = state.play(example)


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
