"""The misclick guard: with `confirm moves` on, a typed move is shown, not played, until
it is confirmed, and a confirmation for a position that changed is refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.service import GameService, MovePreview, MoveResult, Refused, ServiceCode
from engine import Code
from tests.conftest import ANN, BOB
from tests.consolekit import HEX_WITH_SWAP, transcript_of
from tests.servicekit import GUILD, start


async def test_a_guarded_move_waits_for_its_confirmation(service: GameService) -> None:
    game = await start(service, "hex", {"size": "5"})
    assert (await service.preferences.player_settings(ANN)).confirm_moves is False
    assert (
        await service.preferences.player_settings(ANN, confirm_moves=True)
    ).confirm_moves is True
    preview = await service.play.propose_move(game.id, GUILD, ANN, " C3 ")
    assert isinstance(preview, MovePreview)
    assert (preview.ply, preview.move, preview.played) == (0, "c3", "c3")
    assert preview.png.startswith(b"\x89PNG") and " 3    .  . [X] ." in preview.text
    assert (await service.lookups.game(game.id, GUILD)).ply == 0  # nothing played yet
    with pytest.raises(Refused) as illegal:
        await service.play.propose_move(game.id, GUILD, ANN, "z99")
    assert illegal.value.code == Code.OFF_BOARD
    other = await service.play.propose_move(game.id, GUILD, ANN, "b2")
    assert isinstance(other, MovePreview)
    played = await service.play.move(game.id, GUILD, ANN, other.move, expected_ply=other.ply)
    assert played.game.ply == 1
    with pytest.raises(Refused) as stale:  # the first preview's position is gone
        await service.play.move(game.id, GUILD, ANN, preview.move, expected_ply=preview.ply)
    assert stale.value.code == ServiceCode.STALE
    unguarded = await service.play.propose_move(game.id, GUILD, BOB, "d4")  # bob's guard is off
    assert isinstance(unguarded, MoveResult) and unguarded.game.ply == 2


async def test_the_console_asks_before_a_guarded_move(service: GameService, tmp_path: Path) -> None:
    said = await transcript_of(
        service,
        tmp_path,
        [*HEX_WITH_SWAP, "as ann", "settings confirm=on", "c3", "n", "c3", "y"],
    )
    assert any("confirm moves on" in line for line in said), said
    questions = [line for line in said if line.startswith("Play c3 in game #1?")]
    assert len(questions) == 2 and "Move c3 not played." in said
    assert said.count("@ann played c3.") == 1
    assert (await service.lookups.game(1, 0)).ply == 1
