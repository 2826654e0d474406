"""What the tests of the service share: the guild and channel of their games, a game started and
under way, the player in a seat, and a refusal awaited."""

from __future__ import annotations

import pytest

from bot.service import GameService, GameSummary, Place, Player, Refused, ServiceCode
from engine import Code
from tests.conftest import ANN, BOB, CAT, DAN

GUILD = 1
PLACE = Place(GUILD, 10)
OUTSIDER = Player(999, "eve")


async def start(
    service: GameService,
    game: str = "hotwire",
    options: dict[str, object] | None = None,
    *,
    opponents: tuple[Player, ...] = (BOB,),
    days: int | None = 3,
    rated: bool = True,
) -> GameSummary:
    """A game with ANN seat 0, her opponents after her, under way."""
    issued = await service.challenges.challenge(
        PLACE, ANN, game, opponents=opponents, options=options or {}, first="challenger",
        days_per_move=days, rated=rated,
    )  # fmt: skip
    game_id = issued.game.id
    result = None
    for opponent in opponents:
        result = await service.challenges.accept(game_id, GUILD, opponent)
    assert result is not None and result.game.status == "active"
    return result.game


def player_at(game: GameSummary, seat: int) -> Player:
    pid = game.seats[seat].player_id
    return next(p for p in (ANN, BOB, CAT, DAN) if p.id == pid)


async def refused(code: Code | ServiceCode, call: object) -> Refused:
    with pytest.raises(Refused) as caught:
        await call  # type: ignore[misc]
    assert caught.value.code == code, str(caught.value)
    return caught.value
