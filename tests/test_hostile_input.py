"""Hostile input for every game: any options and any move text are a game or a refusal,
and every refusal is one short, printable sentence (it quotes at most an excerpt).
Through the service too: a challenge with any options is a game or `Refused`."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from bot.service import GameService, Place, Player, Refused, ServiceCode
from engine import BadOptions, IllegalMove
from tests.conftest import ANN, BOB

NAMES = sorted(engine.GAMES)
LONGEST_SENTENCE = 300
STRANGE = "²³¹٣５\u202e\x00\n\t é🎲x-,;"

#: Values an option could be given: typed text, numbers of every size, the wrong types.
VALUES = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.sampled_from([2**31, 2**63, -(10**30), 10**5000])
    | st.floats(allow_nan=True)
    | st.text(max_size=12)
    | st.text(alphabet=STRANGE + "0123456789x", max_size=8)
    | st.text(alphabet=STRANGE, min_size=1, max_size=4).map(lambda t: t * 1500)
    | st.lists(st.integers(), max_size=3)
    | st.dictionaries(st.text(max_size=2), st.integers(), max_size=2)
)


def keys(name: str) -> st.SearchStrategy[str]:
    known = [*engine.GAMES[name].options, "players", "name", "Size", "size "]
    return st.sampled_from(known) | st.text(max_size=12) | st.just("x" * 5000)


def assert_sentence(error: BaseException) -> None:
    sentence = str(error)
    assert sentence and len(sentence) <= LONGEST_SENTENCE, sentence[:400]
    assert sentence.isprintable(), sentence


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_any_options_start_a_game_or_are_refused_in_a_sentence(name: str, data: Any) -> None:
    options = data.draw(st.dictionaries(keys(name), VALUES, max_size=4))
    try:
        state = engine.new(name, **options)
    except BadOptions as refused:
        assert_sentence(refused)
    else:
        assert engine.replay(name, state.options, []) == state


MOVE_TEXT = (
    st.text(max_size=200)
    | st.text(alphabet=STRANGE + "abcdefgh12345 ", max_size=200)
    | st.from_regex(r"(pop|r|y|b|g|cap)? ?[a-z]{1,3}\d{1,9}[ ,;-]{0,2}[a-z]{0,3}\d{0,9}")
    | st.text(alphabet=STRANGE + "a1", min_size=1, max_size=3).map(lambda t: t * 2000)
)


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=150, deadline=None)
@given(text=MOVE_TEXT)
def test_any_move_text_is_played_or_refused_in_a_sentence(name: str, text: str) -> None:
    state = engine.new(name)
    try:
        state.play(text)
    except IllegalMove as refused:
        assert_sentence(refused)


def test_a_long_option_value_is_quoted_as_an_excerpt() -> None:
    with pytest.raises(BadOptions) as refused:
        engine.new("hex", size="9" * 5000)
    assert_sentence(refused.value)
    assert "99999…" in str(refused.value)


# -- through the service ------------------------------------------------------------------------


def hostile_options(rng: random.Random, name: str) -> dict[Any, Any]:
    """Option sets like the fuzzing that found ~2,100 crashes in 20,000."""
    pool_keys: list[Any] = [*engine.GAMES[name].options, "players", "name", 7, None, "x" * 300]
    pool_values: list[Any] = [
        None, 2.5, 3.0, True, 2**63, 10**5000, "²", "٣", "５", "²-5", [], [1], {}, "x" * 5000,
        "7", "5x5", "off", "unlimited", "1,3", "\x00", -1,
    ]  # fmt: skip
    return {rng.choice(pool_keys): rng.choice(pool_values) for _ in range(rng.randint(1, 3))}


@pytest.mark.parametrize("name", NAMES)
async def test_a_challenge_with_any_options_is_refused_in_a_sentence(
    service: GameService, name: str
) -> None:
    rng = random.Random(name)
    for attempt in range(60):
        challenger = Player(1_000 + attempt, f"p{attempt}")
        options = hostile_options(rng, name)
        try:
            result = await service.challenges.challenge(
                Place(1, 10), challenger, name, opponents=[BOB], options=options
            )
        except Refused as refused:
            assert_sentence(refused)
        else:
            assert result.game.status == "open"


async def test_the_challenge_settings_refuse_wrong_types(service: GameService) -> None:
    place = Place(1, 10)
    wrong: list[dict[str, Any]] = [
        {"open_seats": 1.0},
        {"open_seats": True},
        {"open_seats": 10**30},
        {"first": ["random"]},
        {"days_per_move": 3.0},
        {"days_per_move": True},
        {"rated": "yes"},
    ]
    for keywords in wrong:
        with pytest.raises(Refused) as refused:
            await service.challenges.challenge(place, ANN, "hex", opponents=[BOB], **keywords)
        assert_sentence(refused.value)


@pytest.mark.parametrize("typed", ["²-5", "22-⁷", "٣-٥5", "9" * 5000 + "-1", "1-1"])
async def test_quiet_hours_refuse_what_is_not_two_hours(service: GameService, typed: str) -> None:
    with pytest.raises(Refused) as refused:
        await service.preferences.player_settings(ANN, quiet_hours=typed)
    assert refused.value.code == ServiceCode.BAD_SETTING


async def test_quiet_hours_read_any_decimal_digits(service: GameService) -> None:
    found = await service.preferences.player_settings(ANN, quiet_hours="٢٢-7")
    assert found.quiet_hours == (22, 7)
