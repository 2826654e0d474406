"""The next-game queue through the service and the console: the games where it is your
move, least time left first, each with its board; the button's "after" goes round."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.service import GameService, Refused, ServiceCode
from tests.conftest import ANN, BOB, Clock
from tests.consolekit import transcript_of
from tests.servicekit import GUILD, start


@pytest.mark.both_backends
async def test_the_queue_goes_by_time_left_and_round(service: GameService, clock: Clock) -> None:
    no_clock = await start(service, "hex", {"size": "3"}, days=None)
    slow = await start(service, "hex", {"size": "3"}, days=7)
    fast = await start(service, "hex", {"size": "3"}, days=1)
    theirs = await start(service, "hex", {"size": "3"}, days=1)
    await service.play.move(theirs.id, GUILD, ANN, "a1")  # bob's move there: not in ann's queue
    first = await service.queue.next_game(GUILD, ANN.id)
    assert (first.game.id, first.position, first.waiting) == (fast.id, 1, 3)
    assert first.png.startswith(b"\x89PNG")
    order = [first.game.id]
    for _ in range(3):
        order.append((await service.queue.next_game(GUILD, ANN.id, after=order[-1])).game.id)
    assert order == [fast.id, slow.id, no_clock.id, fast.id]
    # a game no longer waiting for you (you just moved there) leads back to the first
    await service.play.move(fast.id, GUILD, ANN, "b2")
    assert (await service.queue.next_game(GUILD, ANN.id, after=fast.id)).game.id == slow.id
    bob_next = await service.queue.next_game(GUILD, BOB.id)
    assert {bob_next.game.id} <= {theirs.id, fast.id} and bob_next.waiting == 2
    with pytest.raises(Refused) as refused:
        await service.queue.next_game(GUILD + 1, ANN.id)
    assert refused.value.code == ServiceCode.NO_GAME
    assert str(refused.value) == "No game here is waiting for your move."


async def test_the_console_shows_the_next_game_and_the_one_after(
    service: GameService, tmp_path: Path
) -> None:
    said = await transcript_of(
        service,
        tmp_path,
        ["as ann", "challenge hex @bob size=3 days=1 first=challenger", "as bob", "accept",
         "as ann", "challenge hex @bob size=3 days=7 first=challenger", "as bob", "accept",
         "as ann", "next", "next 1"],
    )  # fmt: skip
    shown = [line for line in said if "waiting for you" in line]
    assert shown[0].startswith("#1 Hex: your move, due ") and shown[0].endswith(
        "(1 of 2 waiting for you)"
    )
    assert shown[1].startswith("#2 Hex: your move, due ") and shown[1].endswith(
        "(2 of 2 waiting for you)"
    )
    assert any(line.startswith("Board: ") for line in said)
