"""The use cases, on SQLite and PostgreSQL: challenge to result, refusals, hostile moves and
ids, ending early, undo. Rematches, listing, settings and the leaderboard:
tests/test_service_settings.py."""

from __future__ import annotations

import io

import pytest
from PIL import Image

import engine
from bot.service import (
    ChallengeClosed,
    GameOver,
    GameService,
    GameStarted,
    MovePlayed,
    Refused,
    ServiceCode,
    TurnStarted,
    UndoAnswered,
    describe,
)
from engine import Code
from tests.conftest import ANN, BOB, CAT, DAN, Clock
from tests.servicekit import GUILD, OUTSIDER, PLACE, player_at, refused, start

# -- challenges ----------------------------------------------------------------------------


async def test_a_direct_challenge_starts_when_accepted(service: GameService) -> None:
    issued = await service.challenges.challenge(
        PLACE, ANN, "hex", opponents=[BOB], options={"size": "5"}
    )
    assert issued.game.status == "open" and issued.game.options["size"] == 5
    assert [s.player_id for s in issued.game.seats] == [ANN.id, BOB.id]
    started = await service.challenges.accept(issued.game.id, GUILD, BOB)
    assert started.game.status == "active"
    kinds = [type(e) for e in started.events]
    assert GameStarted in kinds and TurnStarted in kinds
    turn = next(e for e in started.events if isinstance(e, TurnStarted))
    assert turn.player_id == started.game.player_to_move
    assert turn.deadline is not None and started.game.deadline == turn.deadline


async def test_open_challenge_fills_seats_with_join(service: GameService) -> None:
    issued = await service.challenges.challenge(PLACE, ANN, "intersections", open_seats=2)
    assert len(issued.game.seats) == 3
    await service.challenges.join(issued.game.id, GUILD, BOB)
    await refused(ServiceCode.ALREADY_SEATED, service.challenges.join(issued.game.id, GUILD, BOB))
    done = await service.challenges.join(issued.game.id, GUILD, CAT)
    assert done.game.status == "active"
    assert sorted(done.game.player_ids()) == [ANN.id, BOB.id, CAT.id]
    await refused(ServiceCode.NOT_OPEN, service.challenges.join(issued.game.id, GUILD, DAN))


async def test_challenge_refusals_change_nothing(service: GameService) -> None:
    await refused(
        ServiceCode.SELF_CHALLENGE, service.challenges.challenge(PLACE, ANN, "hex", opponents=[ANN])
    )
    await refused(
        Code.UNKNOWN_GAME, service.challenges.challenge(PLACE, ANN, "chess", opponents=[BOB])
    )
    await refused(
        Code.BAD_OPTION,
        service.challenges.challenge(PLACE, ANN, "hex", opponents=[BOB], options={"size": "40"}),
    )
    await refused(
        Code.PLAYER_COUNT, service.challenges.challenge(PLACE, ANN, "hex", opponents=[BOB, CAT])
    )
    await refused(
        Code.BAD_OPTION,
        service.challenges.challenge(PLACE, ANN, "hex", opponents=[BOB], days_per_move=4),
    )
    await refused(
        Code.BAD_OPTION,
        service.challenges.challenge(PLACE, ANN, "hex", opponents=[BOB], first="me"),
    )
    assert await service.lookups.games(GUILD) == []


async def test_a_challenge_refuses_bad_options_only_not_any_value_error(
    service: GameService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The engine's `BadOptions` becomes the player's sentence; another ValueError is a
    bug, and is not dressed up as a refusal."""

    def broken(*args: object, **kwargs: object) -> engine.GameState:
        raise ValueError("a bug, not a refusal")

    monkeypatch.setattr(engine, "new", broken)
    with pytest.raises(ValueError, match="a bug") as caught:
        await service.challenges.challenge(PLACE, ANN, "hex", opponents=[BOB])
    assert not isinstance(caught.value, Refused)


async def test_decline_cancel_and_expiry(service: GameService, clock: Clock) -> None:
    first = await service.challenges.challenge(PLACE, ANN, "hex", opponents=[BOB])
    await refused(ServiceCode.NOT_INVITED, service.challenges.decline(first.game.id, GUILD, CAT))
    declined = await service.challenges.decline(first.game.id, GUILD, BOB)
    assert declined.game.status == "declined"
    assert isinstance(declined.events[0], ChallengeClosed)
    second = await service.challenges.challenge(PLACE, ANN, "hex", opponents=[BOB])
    await refused(ServiceCode.NOT_CHALLENGER, service.challenges.cancel(second.game.id, GUILD, BOB))
    assert (await service.challenges.cancel(second.game.id, GUILD, ANN)).game.status == "cancelled"
    third = await service.challenges.challenge(PLACE, ANN, "hex", opponents=[BOB])
    clock.advance(hours=25)
    await refused(ServiceCode.EXPIRED, service.challenges.accept(third.game.id, GUILD, BOB))
    assert (await service.lookups.game(third.game.id, GUILD)).status == "expired"


async def test_limits_on_open_challenges(service: GameService) -> None:
    service.records.settings.max_open_challenges = 2
    await service.challenges.challenge(PLACE, ANN, "hex", opponents=[BOB])
    await service.challenges.challenge(PLACE, ANN, "hex", opponents=[CAT])
    error = await refused(
        ServiceCode.LIMIT, service.challenges.challenge(PLACE, ANN, "hex", opponents=[DAN])
    )
    assert "2 open challenges" in str(error)


async def test_first_player_choices(service: GameService) -> None:
    issued = await service.challenges.challenge(
        PLACE, ANN, "hex", opponents=[BOB], first="opponent"
    )
    game = (await service.challenges.accept(issued.game.id, GUILD, BOB)).game
    assert game.seats[0].player_id == BOB.id and game.player_to_move == BOB.id


# -- moves -------------------------------------------------------------------------------


@pytest.mark.both_backends
async def test_a_whole_game_to_its_result(service: GameService) -> None:
    game = await start(service, "hotwire", {"size": "3x3"})
    state = engine.new("hotwire", size="3x3")
    plies = 0
    result = None
    while state.outcome is None:
        text = state.legal_moves()[0]
        mover = player_at(game, state.to_move or 0)
        result = await service.play.move(game.id, GUILD, mover, text, expected_ply=state.ply)
        state = state.play(text)
        plies += 1
        image = Image.open(io.BytesIO(result.png))
        assert image.format == "PNG" and max(image.size) <= 1024
    assert result is not None and result.game.status == "finished"
    over = next(e for e in result.events if isinstance(e, GameOver))
    assert state.outcome is not None
    assert over.winners == tuple(result.game.seats[s].player_id for s in state.outcome.winners)
    line = describe(over, result.game, lambda pid: f"@{pid}", str)
    assert "wins" in line and f"@{over.winners[0]}" in line
    record = await service.lookups.record(game.id, GUILD)
    assert record.text.count("\n") >= plies and "Result:" in record.text
    ratings = await service.lookups.leaderboard(GUILD, "hotwire")
    assert {line.player_id for line in ratings} == {ANN.id, BOB.id}
    assert ratings[0].player_id == over.winners[0] and ratings[0].wins == 1


async def test_move_refusals_change_nothing(service: GameService) -> None:
    game = await start(service, "hotwire")
    to_move, waiting = player_at(game, 0), player_at(game, 1)
    await refused(ServiceCode.NOT_YOUR_TURN, service.play.move(game.id, GUILD, waiting, "a1 b2"))
    await refused(ServiceCode.NOT_SEATED, service.play.move(game.id, GUILD, OUTSIDER, "a1 b2"))
    illegal = await refused(Code.PASSES_OVER, service.play.move(game.id, GUILD, to_move, "a1 a3"))
    assert str(illegal) == "a1-a3 passes over pin a2."
    await refused(
        ServiceCode.STALE, service.play.move(game.id, GUILD, to_move, "a1 b2", expected_ply=3)
    )
    await refused(ServiceCode.NO_GAME, service.play.move(game.id, GUILD + 1, to_move, "a1 b2"))
    after = await service.lookups.game(game.id, GUILD)
    assert after.ply == 0 and after.player_to_move == to_move.id
    played = await service.play.move(game.id, GUILD, to_move, "A1-b2")
    assert played.game.ply == 1
    assert isinstance(played.events[0], MovePlayed) and played.events[0].texts == ("a1-b2",)
    await refused(ServiceCode.NOT_YOUR_TURN, service.play.move(game.id, GUILD, to_move, "c1 d2"))


HOSTILE = [
    "",
    "x" * 10_000,
    "'; DROP TABLE games; --",
    "a1\x00b2",
    "🎲🎲",
    "\u202eb2 a1",
    "pass",
    "resign",
]


@pytest.mark.parametrize("text", HOSTILE)
async def test_hostile_moves_are_refused(service: GameService, text: str) -> None:
    game = await start(service, "hotwire")
    with pytest.raises(Refused):
        await service.play.move(game.id, GUILD, player_at(game, 0), text)
    assert (await service.lookups.game(game.id, GUILD)).ply == 0


@pytest.mark.both_backends
@pytest.mark.parametrize(
    "bad_id", [-1, 0, 2**63, 10**30, 12345, pytest.param(10**5000, id="5001 digits")]
)
async def test_hostile_ids_are_refused(service: GameService, bad_id: int) -> None:
    game = await start(service, "hotwire")
    for call in (
        service.play.move(bad_id, GUILD, ANN, "a1 b2"),
        service.lookups.board(bad_id, GUILD),
        service.play.resign(bad_id, GUILD, ANN),
        service.lookups.game(bad_id, GUILD),
        service.challenges.accept(bad_id, GUILD, BOB),
        service.lookups.record(bad_id, GUILD),
        service.play.move(game.id, bad_id, ANN, "a1 b2"),
    ):
        with pytest.raises(Refused) as refusal:
            await call
        assert len(str(refusal.value)) < 100
    assert (await service.lookups.game(game.id, GUILD)).ply == 0


async def test_another_guilds_game_does_not_exist_here(service: GameService) -> None:
    game = await start(service, "hex", {"size": 5})
    await refused(ServiceCode.NO_GAME, service.lookups.board(game.id, GUILD + 7))
    await refused(ServiceCode.NO_GAME, service.lookups.record(game.id, GUILD + 7))
    assert await service.lookups.games(GUILD + 7) == []


async def test_board_at_any_ply_and_groups(service: GameService) -> None:
    game = await start(service, "hotwire", {"size": "4x4"})
    await service.play.move(game.id, GUILD, player_at(game, 0), "a1 b2")
    await service.play.move(game.id, GUILD, player_at(game, 1), "c3 d4")
    now = await service.lookups.board(game.id, GUILD)
    start_board = await service.lookups.board(game.id, GUILD, ply=0)
    groups = await service.lookups.board(game.id, GUILD, groups=True)
    assert now.ply == 2 and start_board.ply == 0
    assert now.png != start_board.png and groups.png != now.png
    await refused(ServiceCode.BAD_PLY, service.lookups.board(game.id, GUILD, ply=5))


# -- ending early ------------------------------------------------------------------------


async def test_resign_and_abort(service: GameService) -> None:
    game = await start(service, "hex", {"size": 5})
    first = player_at(game, 0)
    aborted = await service.play.abort(game.id, GUILD, first)
    assert aborted.game.status == "aborted"
    game = await start(service, "hex", {"size": 5})
    first, second = player_at(game, 0), player_at(game, 1)
    await service.play.move(game.id, GUILD, first, "c3")
    await service.play.move(game.id, GUILD, second, "b2")
    await refused(ServiceCode.TOO_LATE, service.play.abort(game.id, GUILD, first))
    over = await service.play.resign(game.id, GUILD, first)
    assert over.game.status == "finished" and over.game.reason == "resignation"
    assert over.game.winners == (1,)
    await refused(Code.GAME_OVER, service.play.move(game.id, GUILD, second, "d4"))


async def test_multiplayer_resignation_ranks_the_resigner_last(service: GameService) -> None:
    game = await start(service, "intersections", {"size": 4}, opponents=(BOB, CAT))
    over = await service.play.resign(game.id, GUILD, player_at(game, 0))
    assert over.game.winners == (1, 2)  # nobody has scored: the others share the win
    ranks = {
        line.player_id: line for line in await service.lookups.leaderboard(GUILD, "intersections")
    }
    assert ranks[ANN.id].rating < ranks[BOB.id].rating


# -- undo ----------------------------------------------------------------------------------


async def test_undo_by_consent(service: GameService) -> None:
    game = await start(service, "hotwire")
    first, second = player_at(game, 0), player_at(game, 1)
    taken_back = await service.play.move(game.id, GUILD, first, "a1 b2")
    await refused(ServiceCode.NOTHING_TO_UNDO, service.play.request_undo(game.id, GUILD, second))
    asked = await service.play.request_undo(game.id, GUILD, first)
    assert asked.events[0].waiting_for == (second.id,)  # type: ignore[attr-defined]
    await refused(
        ServiceCode.OWN_UNDO, service.play.answer_undo(game.id, GUILD, first, accept=True)
    )
    done = await service.play.answer_undo(game.id, GUILD, second, accept=True)
    assert isinstance(done.events[0], UndoAnswered) and done.events[0].done
    assert done.game.ply == 0 and done.game.player_to_move == first.id
    played = await service.play.move(game.id, GUILD, first, "c3 d4")
    assert played.png != taken_back.png  # the same ply, another position: its own picture
    assert (await service.lookups.board(game.id, GUILD)).png == played.png
    await service.play.request_undo(game.id, GUILD, first)
    declined = await service.play.answer_undo(game.id, GUILD, second, accept=False)
    assert declined.game.ply == 1
    await refused(
        ServiceCode.NO_UNDO, service.play.answer_undo(game.id, GUILD, second, accept=True)
    )


async def test_an_undo_request_goes_stale_when_the_game_moves(service: GameService) -> None:
    game = await start(service, "hotwire")
    first, second = player_at(game, 0), player_at(game, 1)
    await service.play.move(game.id, GUILD, first, "a1 b2")
    await service.play.request_undo(game.id, GUILD, first)
    await service.play.move(game.id, GUILD, second, "c3 d4")
    await refused(
        ServiceCode.NO_UNDO, service.play.answer_undo(game.id, GUILD, second, accept=True)
    )


async def test_undo_takes_back_a_whole_short_circuit_turn(service: GameService) -> None:
    game = await start(service, "shortcircuit", {"size": 3})
    p1, p2 = player_at(game, 0), player_at(game, 1)
    await service.play.move(game.id, GUILD, p2, "b c3")
    await service.play.move(game.id, GUILD, p1, "r c2")
    await service.play.move(game.id, GUILD, p1, "cap c2")
    await service.play.move(game.id, GUILD, p2, "g d3")
    await service.play.move(game.id, GUILD, p1, "pop c2 c3")  # Player 2 keeps d3
    mid = await service.lookups.state(game.id, GUILD)
    assert mid.mid_turn and mid.to_move == 0
    place = mid.legal_moves()[0]
    await service.play.move(game.id, GUILD, p1, place)
    await service.play.request_undo(game.id, GUILD, p1)
    done = await service.play.answer_undo(game.id, GUILD, p2, accept=True)
    assert done.game.ply == 4  # both the pop and the placement are gone


async def test_a_whole_short_circuit_turn_on_one_line_is_the_movers(service: GameService) -> None:
    game = await start(service, "shortcircuit", {"size": 3})
    p1, p2 = player_at(game, 0), player_at(game, 1)
    for player, text in ((p2, "b c3"), (p1, "r c2"), (p1, "cap c2"), (p2, "g d3")):
        await service.play.move(game.id, GUILD, player, text)
    place = (await service.lookups.state(game.id, GUILD)).play("pop c2 c3").legal_moves()[0]
    played = await service.play.move(game.id, GUILD, p1, f"pop c2 c3, {place}")
    event = played.events[0]
    assert isinstance(event, MovePlayed) and event.player_id == p1.id
    assert event.texts == ("pop c2 c3", place) and event.passes == 0
    sentence = describe(event, played.game, lambda pid: f"@{pid}", str)
    assert sentence == f"@{p1.id} played pop c2 c3, {place}." and "passed" not in sentence
    assert played.game.player_to_move == p2.id
    record = (await service.lookups.record(game.id, GUILD)).text.splitlines()
    assert record[-2].split()[-4:] == [p1.name, "pop", "c2", "c3"]
    assert record[-1].split()[-3:] == [p1.name, *place.split()]
    await service.play.request_undo(game.id, GUILD, p1)
    done = await service.play.answer_undo(game.id, GUILD, p2, accept=True)
    assert done.game.ply == 4 and done.game.player_to_move == p1.id  # the whole turn is gone
