"""Conditional moves through the service, on SQLite and PostgreSQL: lines checked on entry,
answered in the opponent's move's transaction, dropped by a move that matches none,
cleared by undo, resignation, time-out and the end; private to their owner."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
import sqlalchemy as sa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from bot.service import (
    ConditionalPlayed,
    ConditionalsDropped,
    GameService,
    MovePlayed,
    Refused,
    ServiceCode,
    TurnStarted,
    conditional_text,
    describe,
)
from bot.service.play.conditionals import checked_line, split_line
from bot.store.schema import conditionals
from engine import Code
from tests.conftest import ANN, BOB, CAT, Clock
from tests.consolekit import HEX_WITH_SWAP, transcript_of
from tests.servicekit import GUILD, OUTSIDER, PLACE, start
from tests.test_hostile_input import STRANGE, assert_sentence

HEX = {"size": "5", "swap": "off"}
OPTIONS = {"hex": {"size": 5}, "hotwire": {"size": "5x5"}, "shortcircuit": {"size": 3}}


async def refused(call: object, code: Code | ServiceCode = Code.BAD_LINE) -> str:
    with pytest.raises(Refused) as caught:
        await call  # type: ignore[misc]
    assert caught.value.code == code, str(caught.value)
    return str(caught.value)


async def hex_after_ann_a1(service: GameService) -> int:
    game = await start(service, "hex", HEX)
    await service.play.move(game.id, GUILD, ANN, "a1")
    return game.id


async def test_a_matching_move_is_answered_at_once_and_a_other_move_drops_the_lines(
    service: GameService,
) -> None:
    game = await hex_after_ann_a1(service)
    added = await service.conditionals.conditional(game, GUILD, ANN, line="b2 c3 d4 e5")
    assert added.lines == ("if b2 then c3, if d4 then e5",)
    await service.conditionals.conditional(game, GUILD, ANN, line="b3 c2")
    listed = await service.conditionals.conditional(game, GUILD, ANN)
    assert listed.lines == ("if b2 then c3, if d4 then e5", "if b3 then c2")
    assert conditional_text(listed).startswith("Your conditional lines in Hex #")
    assert (
        await service.conditionals.conditional(game, GUILD, BOB)
    ).lines == ()  # private to their owner

    result = await service.play.move(game, GUILD, BOB, "b2")
    assert [type(e) for e in result.events] == [
        MovePlayed, MovePlayed, TurnStarted, ConditionalPlayed,
    ]  # fmt: skip
    ann_move = result.events[1]
    assert isinstance(ann_move, MovePlayed) and ann_move.player_id == ANN.id
    assert ann_move.texts == ("c3",)
    told = result.events[3]
    assert told == ConditionalPlayed(game, ANN.id, ("b2",), ("c3",), 1)
    turn = result.events[2]
    assert isinstance(turn, TurnStarted) and turn.player_id == BOB.id
    state = await service.lookups.state(game, GUILD)
    assert list(state.moves) == ["a1", "b2", "c3"] and result.game.ply == 3
    assert (await service.conditionals.conditional(game, GUILD, ANN)).lines == ("if d4 then e5",)

    result = await service.play.move(game, GUILD, BOB, "a5")  # not d4: the lines are dropped
    assert [type(e) for e in result.events] == [MovePlayed, TurnStarted, ConditionalsDropped]
    dropped = result.events[2]
    assert dropped == ConditionalsDropped(game, ANN.id, ("a5",))
    assert describe(dropped, result.game, lambda p: f"<@{p}>", str) == (
        f"<@{ANN.id}>, in Hex #{game} your opponent played a5, which none of your conditional "
        "lines expected: they are cleared."
    )
    assert (await service.conditionals.conditional(game, GUILD, ANN)).lines == ()
    assert (await service.lookups.state(game, GUILD)).to_move == 0


async def test_lines_are_checked_on_entry_and_refusals_say_which_move_and_why(
    service: GameService,
) -> None:
    game = await hex_after_ann_a1(service)
    said = await refused(service.conditionals.conditional(game, GUILD, ANN, line="b2 a1"))
    assert said == "Move 2 of the line, “a1”, cannot be played: a1 is already taken."
    said = await refused(service.conditionals.conditional(game, GUILD, ANN, line="b2 zz9"))
    assert said.startswith("Move 2 of the line, “zz9”, cannot be played:")
    said = await refused(service.conditionals.conditional(game, GUILD, ANN, line="b2 c3 d4"))
    assert said == "The line ends with your opponent's move: end it with your reply."
    said = await refused(service.conditionals.conditional(game, GUILD, ANN, line="b2"))
    assert "ends with your opponent's move" in said
    await refused(service.conditionals.conditional(game, GUILD, ANN, line=" , "))
    await service.conditionals.conditional(game, GUILD, ANN, line="b2 c3")
    said = await refused(service.conditionals.conditional(game, GUILD, ANN, line="b2 c4"))
    assert said == "That contradicts your line if b2 then c3: there you play c3."
    assert await refused(service.conditionals.conditional(game, GUILD, ANN, line="b2 c3")) == (
        "You have this line already."
    )
    longer = await service.conditionals.conditional(game, GUILD, ANN, line="b2 c3 d4 e5")
    assert longer.lines == ("if b2 then c3, if d4 then e5",)  # it extends the shorter one
    said = await refused(service.conditionals.conditional(game, GUILD, BOB, line="c3 d4"))
    assert said.startswith("It is your move now")
    await refused(
        service.conditionals.conditional(game, GUILD, OUTSIDER, line="b2 c3"),
        ServiceCode.NOT_SEATED,
    )
    await refused(service.conditionals.conditional(game, GUILD, ANN, "shout"), ServiceCode.USAGE)
    await refused(service.conditionals.conditional(game, GUILD, ANN, "remove"))
    assert (await service.conditionals.conditional(game, GUILD, ANN)).lines == (
        "if b2 then c3, if d4 then e5",
    )


async def test_remove_and_clear(service: GameService) -> None:
    game = await hex_after_ann_a1(service)
    for line in ("b2 c3", "b3 c2", "b4 c4"):
        await service.conditionals.conditional(game, GUILD, ANN, line=line)
    removed = await service.conditionals.conditional(game, GUILD, ANN, "remove", "b3")
    assert removed.lines == ("if b2 then c3", "if b4 then c4") and removed.note == "1 line removed."
    await refused(service.conditionals.conditional(game, GUILD, ANN, "remove", "e5"))
    cleared = await service.conditionals.conditional(game, GUILD, ANN, "clear")
    assert cleared.lines == () and conditional_text(cleared).startswith("Your lines are cleared.")
    result = await service.play.move(game, GUILD, BOB, "b2")
    assert not any(isinstance(e, ConditionalPlayed) for e in result.events)


async def test_hot_wire_lines_take_commas_between_moves(service: GameService) -> None:
    game = await start(service, "hotwire", {"size": "5x5"})
    state = await service.lookups.state(game.id, GUILD)
    first, theirs, mine = state.legal_moves()[0], None, None
    after = state.play(first)
    theirs = after.legal_moves()[0]
    mine = after.play(theirs).legal_moves()[0]
    await service.play.move(game.id, GUILD, ANN, first)
    added = await service.conditionals.conditional(game.id, GUILD, ANN, line=f"{theirs}, {mine}")
    assert added.lines == (f"if {theirs} then {mine}",)
    result = await service.play.move(game.id, GUILD, BOB, theirs)
    assert any(isinstance(e, ConditionalPlayed) and e.texts == (mine,) for e in result.events)


async def test_undo_resignation_and_time_out_clear_the_lines(
    service: GameService, clock: Clock
) -> None:
    game = await hex_after_ann_a1(service)
    await service.play.move(game, GUILD, BOB, "e5")
    await service.play.move(game, GUILD, ANN, "a2")
    await service.conditionals.conditional(game, GUILD, ANN, line="b2 c3")
    await service.play.request_undo(game, GUILD, ANN)
    await service.play.answer_undo(game, GUILD, BOB, accept=True)
    await service.play.move(game, GUILD, ANN, "a3")
    assert (
        await service.conditionals.conditional(game, GUILD, ANN)
    ).lines == ()  # the undo cleared them
    await service.conditionals.conditional(game, GUILD, ANN, line="b2 c3")
    await service.play.resign(game, GUILD, ANN)
    await refused(service.conditionals.conditional(game, GUILD, ANN), Code.GAME_OVER)
    await refused(service.conditionals.conditional(game, GUILD, ANN, "clear"), Code.GAME_OVER)

    timed = await hex_after_ann_a1(service)
    await service.conditionals.conditional(timed, GUILD, ANN, line="b2 c3")
    clock.advance(days=4)
    claims = await service.schedule.claim_deadlines("w", lease=timedelta(minutes=5))
    for claim in claims:
        await service.schedule.act_on_deadline(claim, "w")
    assert (await service.lookups.game(timed, GUILD)).status == "finished"
    async with service.records.db.read() as conn:
        assert await conn.scalar(sa.select(sa.func.count()).select_from(conditionals)) == 0


async def test_games_of_more_than_two_players_refuse_conditional_lines(
    service: GameService,
) -> None:
    game = await start(service, "intersections", {"size": "4"}, opponents=(BOB, CAT))
    said = await refused(
        service.conditionals.conditional(game.id, GUILD, BOB, line="a1 b2"), Code.PLAYER_COUNT
    )
    assert said.startswith("Conditional moves are for two-player games")


async def test_games_against_the_bot_refuse_conditional_lines(service: GameService) -> None:
    result = await service.challenges.challenge(PLACE, ANN, "hex", options=HEX, bots=["easy"])
    said = await refused(
        service.conditionals.conditional(result.game.id, GUILD, ANN, line="a1 b2"),
        ServiceCode.AGAINST_BOT,
    )
    assert said.startswith("Conditional moves are for games between people")


async def test_a_reply_that_wins_ends_the_game_in_the_same_result(service: GameService) -> None:
    game = await start(service, "hex", {"size": "2", "swap": "off"})
    await service.play.move(game.id, GUILD, ANN, "a1")
    await service.conditionals.conditional(game.id, GUILD, ANN, line="b1 a2")
    result = await service.play.move(game.id, GUILD, BOB, "b1")
    assert result.game.status == "finished" and result.game.winners == (0,)
    assert any(isinstance(e, ConditionalPlayed) for e in result.events)


async def test_the_console_adds_lists_and_answers_conditional_lines(
    service: GameService, tmp_path: Path
) -> None:
    said = await transcript_of(
        service,
        tmp_path,
        [*HEX_WITH_SWAP, "as ann", "a1", "conditional 1 b2 c3", "conditional list",
         "as bob", "b2", "as ann", "conditional"],
    )  # fmt: skip
    assert "Line added. Your conditional lines in Hex #1 (only you see them):" in said
    assert said.count("1. if b2 then c3") == 2, said
    assert "@ann played c3." in said
    assert any("your conditional line played c3 for you (no lines left)" in s for s in said)
    assert said[-1] == "You have no conditional lines in Hex #1."


@pytest.mark.both_backends
async def test_the_move_and_its_conditional_reply_commit_together_or_not_at_all(
    service: GameService, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = await hex_after_ann_a1(service)
    await service.conditionals.conditional(game, GUILD, ANN, line="b2 c3")

    async def fail(conn: object, result: object) -> object:
        raise RuntimeError("the transaction fails before its commit")

    with monkeypatch.context() as patched:
        patched.setattr(service.records, "announce", fail)
        with pytest.raises(RuntimeError):
            await service.play.move(game, GUILD, BOB, "b2")
    assert (await service.lookups.game(game, GUILD)).ply == 1  # neither bob's move nor the reply
    assert (await service.conditionals.conditional(game, GUILD, ANN)).lines == ("if b2 then c3",)
    result = await service.play.move(game, GUILD, BOB, "b2")  # and again, now it commits
    assert result.game.ply == 3


@pytest.mark.parametrize("name", ["hex", "hotwire", "shortcircuit"])
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.text(max_size=40) | st.text(alphabet=STRANGE + "abc123 ,-", max_size=60))
def test_any_typed_line_is_checked_or_refused_in_a_sentence(name: str, text: str) -> None:
    state = engine.new(name, **OPTIONS[name])
    state = state.play(state.legal_moves()[0])  # the owner (seat 0) has moved
    try:
        entries, actors = checked_line(state, 0, split_line(text))
    except Refused as refused:
        assert_sentence(refused)
        assert refused.code == Code.BAD_LINE
    else:
        assert engine.replay(name, state.options, [*state.moves, *entries]).ply == (
            state.ply + len(entries)
        )
        assert actors[0] == 1 and 0 in actors
