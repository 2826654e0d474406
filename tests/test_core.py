"""The common core: notation, options, the registry, input cleaning."""

from __future__ import annotations

import json

import pytest

import engine
from engine import BadOptions, Code, notation
from engine.core import IllegalMove, clean_text
from engine.options import bool_option, dims_option, int_option


def test_the_registry_holds_each_game_under_its_name() -> None:
    assert engine.GAMES  # every other layer's registry is checked against it: test_registries
    for name, info in engine.GAMES.items():
        assert info.name == name
        assert info.title and info.summary and info.credit and info.ends
        assert 2 <= info.min_players <= info.max_players <= 8
        for key, option in info.options.items():
            assert option.name == key
            assert option.allowed
            if option.default is not None:
                assert option.parse(option.default) == option.default


def test_registering_a_duplicate_name_raises() -> None:
    state_class = type(engine.new("hex"))
    with pytest.raises(ValueError, match="already registered"):
        engine.registry.register(state_class)


def test_unknown_game_and_option_are_refused_with_what_exists() -> None:
    with pytest.raises(BadOptions, match="hotwire"):
        engine.new("chess")
    with pytest.raises(BadOptions, match=r"no option “colour”.*size"):
        engine.new("hex", colour="red")


@pytest.mark.parametrize("name", sorted(engine.GAMES))
def test_player_counts_outside_the_range_are_refused(name: str) -> None:
    info = engine.GAMES[name]
    with pytest.raises(BadOptions, match="played by"):
        engine.new(name, players=info.max_players + 1)
    with pytest.raises(BadOptions, match="played by"):
        engine.new(name, players=1)
    assert engine.new(name, players=["ann", "bob"]).players == 2


@pytest.mark.parametrize("name", sorted(engine.GAMES))
def test_default_options_round_trip_through_json(name: str) -> None:
    state = engine.new(name)
    options = json.loads(json.dumps(state.options))
    assert options == state.options
    assert engine.new(name, **options).options == state.options


def test_column_labels_run_spreadsheet_style() -> None:
    assert [notation.column_label(i) for i in (0, 25, 26, 27, 51, 52, 701, 702)] == [
        "a", "z", "aa", "ab", "az", "ba", "zz", "aaa",
    ]  # fmt: skip
    for i in range(800):
        assert notation.column_index(notation.column_label(i)) == i


@pytest.mark.parametrize("text", ["d5 g3", "d5-g3", "d5g3", "d5 - g3", "d5  -g3"])
def test_separators_are_space_hyphen_or_nothing(text: str) -> None:
    assert notation.points(text) == [(3, 4), (6, 2)]


@pytest.mark.parametrize("text", ["d5,g3", "d", "5", "d5 g", "d5 !", "x", "d5 g3 z"])
def test_unreadable_coordinates_are_refused(text: str) -> None:
    with pytest.raises(IllegalMove) as refused:
        notation.points(text)
    assert refused.value.code == Code.SYNTAX


def test_natural_sort_puts_a2_before_a10() -> None:
    moves = ["a10", "b1", "a2", "aa1", "swap"]
    assert sorted(moves, key=notation.sort_key) == ["a2", "a10", "b1", "aa1", "swap"]


def test_clean_text_lowercases_and_refuses_empty_long_and_non_text() -> None:
    assert clean_text("  D5\t G3 \n") == "d5 g3"
    for bad in ("", "   ", "\n\t", "x" * 10_000, None, 42):
        with pytest.raises(IllegalMove):
            clean_text(bad)


def test_option_parsers_say_what_is_allowed() -> None:
    assert int_option(2, 19)("7") == 7
    with pytest.raises(BadOptions, match="from 2 to 19"):
        int_option(2, 19)("20")
    assert bool_option("ON") is True and bool_option("no") is False
    with pytest.raises(BadOptions, match="on or off"):
        bool_option("maybe")
    size = dims_option((2, 2), (26, 26))
    assert size("7X5") == "7x5" and size("6") == "6x6" and size(" 7 × 7 ") == "7x7"
    with pytest.raises(BadOptions, match="from 2x2 to 26x26"):
        size("1x9")
    with pytest.raises(BadOptions, match="square"):
        dims_option((3, 3), (12, 12), square=True)("4x5")
