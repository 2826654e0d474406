"""Golden replays: every stored complete game (tests/golden/) replays to the same
outcome, scores and final picture.

A change to the rules or to the drawing that alters one fails here. When the change
is meant, store the goldens again and read their diff before committing it:

    .venv/bin/python -m tests.golden --write

(tests/golden/__init__.py says how the games were played and why the picture is
hashed as pixels.)
"""

from __future__ import annotations

import pytest

import engine
from tests.golden import GOLDENS, Record, replayed, stored

STORED = stored()


def test_every_game_has_goldens_and_intersections_has_two_and_more_players() -> None:
    assert set(STORED) == set(engine.GAMES)
    assert all(len(records) >= 3 for records in STORED.values())
    assert all(record["winners"] is not None for records in STORED.values() for record in records)
    players = {record["options"]["players"] for record in STORED["intersections"]}
    assert 2 in players and max(players) >= 3
    assert sum(map(len, STORED.values())) == len(GOLDENS)  # nothing stored is left over


@pytest.mark.parametrize(
    "record",
    [record for records in STORED.values() for record in records],
    ids=lambda record: f"{record['game']}-{record['source']}",
)
def test_a_stored_game_replays_to_the_same_end_and_picture(record: Record) -> None:
    now = replayed(record)
    assert now["moves"] == record["moves"]
    assert (now["winners"], now["reason"], now["scores"]) == (
        record["winners"],
        record["reason"],
        record["scores"],
    ), "the rules end this game differently now: python -m tests.golden --write if meant"
    assert now["picture"] == record["picture"], (
        "the final picture changed: python -m tests.golden --write if meant"
    )
    assert now == record
