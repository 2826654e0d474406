"""The sentences both adapters share: a rating, a player's settings, days per move."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bot.service import Code, PlayerSettings, RatingLine, Refused
from bot.service.messages import (
    clock_text,
    closest,
    parse_days,
    rating_line,
    settings_line,
    unknown_game,
)


def test_a_rating_line_names_the_game_and_the_standing() -> None:
    line = RatingLine(7, "ann", "hex", 12.25, 25.0, 4.125, 5, 3, -2, 3)
    assert rating_line(line) == "Hex: rating 12.2 (μ 25.0 ± 4.1) · 3/5 won · streak -2"


def test_a_settings_line_says_every_setting() -> None:
    since = datetime(2026, 3, 1, 9, tzinfo=UTC)
    away = PlayerSettings(7, "dm", "Europe/Paris", (22, 7), 9.5, since)
    assert settings_line(away, lambda moment: f"{moment:%d %b}") == (
        "Reminders: dm · time zone Europe/Paris · quiet hours 22:00-7:00 · "
        "confirm moves off · on vacation since 01 Mar · 9.5 vacation days left this year."
    )
    home = PlayerSettings(7, "off", "UTC", None, 14.0, None)
    assert "quiet hours off · confirm moves off · not on vacation · 14.0 vacation" in settings_line(
        home, str
    )


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
    assert refused.value.code == Code.BAD_SETTING


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
