"""The sentences both adapters share: a rating, a player's settings, days per move."""

from __future__ import annotations

import math
from datetime import UTC, datetime

import pytest

from bot.service import Code, PlayerSettings, RatingLine, Refused, ServiceCode
from bot.service.core.messages import (
    clock_text,
    closest,
    leaderboard_line,
    parse_days,
    rating_line,
    settings_line,
    unknown_game,
)
from bot.service.core.ratings import ELO_POINTS, MODEL, PROVISIONAL_SIGMA, shown_rating
from bot.service.core.rules import local_time, options_text


def test_a_rating_line_names_the_game_and_the_standing() -> None:
    line = RatingLine(7, "ann", "hex", 1545, 26.5, 4.125, 5, 3, -2, 3)
    assert rating_line(line) == "Hex: rating 1545 · 3/5 won · streak -2"
    new = RatingLine(7, "ann", "hex", 1578, 27.6, 8.07, 1, 1, 1, 1, provisional=True)
    assert rating_line(new) == "Hex: rating 1578? · 1/1 won · streak +1"
    assert leaderboard_line(2, "@ann", new) == "2. @ann 1578? · 1/1 won"


def test_ratings_read_on_the_elo_scale_around_1500() -> None:
    """1500 before the first game and for a player of average strength; 400 points
    between two settled players are the model's 10 to 1, as in Elo; provisional ("?")
    while sigma is above 6.5."""
    fresh = MODEL.rating()
    assert shown_rating(fresh.mu) == 1500
    (won,), (lost,) = MODEL.rate([[fresh], [MODEL.rating()]], ranks=[1, 2])
    assert shown_rating(won.mu) == 1578 and shown_rating(lost.mu) == 1422
    strong, weak = MODEL.rating(mu=25 + 400 / ELO_POINTS, sigma=0.01), MODEL.rating(sigma=0.01)
    assert shown_rating(strong.mu) - shown_rating(weak.mu) == 400
    # Plackett-Luce between two: exp(mu_a / c) / (exp(mu_a / c) + exp(mu_b / c)),
    # c = sqrt(sigma_a^2 + sigma_b^2 + 2 beta^2)
    c = math.sqrt(strong.sigma**2 + weak.sigma**2 + 2 * MODEL.beta**2)
    assert 1 / (1 + math.exp((weak.mu - strong.mu) / c)) == pytest.approx(10 / 11, abs=0.001)
    assert PROVISIONAL_SIGMA == 6.5


def test_a_settings_line_says_every_setting() -> None:
    since = datetime(2026, 3, 1, 9, tzinfo=UTC)
    away = PlayerSettings(7, "dm", "Europe/Paris", (22, 7), 9.5, since)
    assert settings_line(away, local_time) == (
        "Reminders: dm · time zone Europe/Paris · quiet hours 22:00-7:00 · "
        "confirm moves off · on vacation since 01 Mar 10:00 CET · "
        "9.5 vacation days left this year · bank clocks: weekend off, auto-vacation on · "
        "web profile on."
    )
    home = PlayerSettings(7, "off", "UTC", None, 14.0, None)
    assert "quiet hours off · confirm moves off · not on vacation · 14 vacation days left" in (
        settings_line(home, str)
    )
    last = PlayerSettings(7, "off", "UTC", None, 1.0, None)
    assert " · 1 vacation day left this year · " in settings_line(last, str)


@pytest.mark.parametrize(
    ("typed", "unset", "days"),
    [
        (None, "default", "default"),
        (None, "keep", "keep"),
        ("default", "default", "default"),
        ("none", "keep", None),
        (" None ", "default", None),
        ("3", "default", 3),
        ("14", "keep", 14),
    ],
)
def test_parse_days_reads_a_number_none_or_nothing(
    typed: str | None, unset: str, days: int | str | None
) -> None:
    assert parse_days(typed, unset=unset) == days


@pytest.mark.parametrize("typed", ["three", "-1", "2.5", "", "99999999999999", "keep"])
def test_parse_days_refuses_anything_else(typed: str) -> None:
    with pytest.raises(Refused) as refused:
        parse_days(typed, unset="default")
    assert refused.value.code == ServiceCode.BAD_SETTING


@pytest.mark.parametrize(
    ("days", "said"), [(None, "no clock"), (1, "1 day per move"), (3, "3 days per move")]
)
def test_the_clock_is_said_in_days_one_or_more(days: int | None, said: str) -> None:
    assert clock_text(days) == said


def test_an_unknown_game_suggests_the_name_meant() -> None:
    meant = unknown_game("Intersection")
    assert meant.code == Code.UNKNOWN_GAME
    assert str(meant).startswith(
        "There is no game called “Intersection”; did you mean intersections? The games are hex,"
    )
    assert str(unknown_game("chess")).startswith("There is no game called “chess”; the games are")
    assert closest("chalenge", ["challenge", "accept"]) == "challenge"
    assert closest("red", ["record", "rematch"]) is None  # a Short Circuit move, not a command


@pytest.mark.parametrize(
    ("zone", "said"),
    [
        ("Europe/Paris", "29 Nov 06:47 CET"),
        ("Europe/London", "29 Nov 05:47 GMT"),
        ("America/Sao_Paulo", "29 Nov 02:47 UTC-03"),  # a zone known by its offset only
        (None, "29 Nov 05:47 UTC"),
        ("Nowhere/Land", "29 Nov 05:47 UTC"),
    ],
)
def test_a_time_is_written_in_the_readers_zone_and_names_it(zone: str | None, said: str) -> None:
    assert local_time(datetime(2026, 11, 29, 5, 47, tzinfo=UTC), zone) == said


def test_options_are_written_in_full_in_the_words_typed() -> None:
    assert options_text({"players": 2, "size": 5, "swap": True}) == "size=5, swap=on"
    assert options_text({"players": 3, "size": 4, "segments": 6, "rounds": 3}) == (
        "size=4, segments=6, rounds=3"
    )
