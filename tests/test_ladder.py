"""A ladder's challenges through the service and the console: issued within reach,
accepted, won (the winner takes the loser's place), refused with one plain sentence,
declined or left unaccepted (a forfeit), and accepted twice at once (one game)."""

from __future__ import annotations

import asyncio
import re
from datetime import timedelta
from pathlib import Path

import pytest
import sqlalchemy as sa

from bot.service import GameService, Player, Refused, ServiceCode
from bot.store.schema import outbox
from tests.conftest import Clock
from tests.consolekit import transcript_of
from tests.eventkit import GUILD, ORGANIZER, PEOPLE, lose, news, open_event, services, under_way

P1, P2, P3, P4, P5, P6 = PEOPLE[:6]


async def _ladder(service: GameService, count: int = 6) -> int:
    """A started ladder of PEOPLE[:count], in entry order (p1 first)."""
    tid = await open_event(service, "ladder", PEOPLE[:count])
    await service.events.start_tournament(tid, GUILD, ORGANIZER)
    return tid


async def _order(service: GameService, tid: int) -> list[str]:
    tables = await service.event_reads.tournament_standings(tid, GUILD)
    text = tables.text
    return re.findall(r"\bp\d+\b", text.split("\n", 1)[1] if "\n" in text else text)


def _plain(refused: Refused) -> str:
    text = str(refused)
    assert text.endswith(".") and "\n" not in text, text
    return text


async def test_a_challenge_within_reach_accepted_and_won_moves_the_winner_up(
    service: GameService,
) -> None:
    tid = await _ladder(service)
    issued = await service.ladders.ladder_challenge(tid, GUILD, P5, P2)  # three places above
    assert "p5 challenges p2" in issued.note
    assert await under_way(service, tid) == []  # open until accepted
    accepted = await service.ladders.accept_ladder_challenge(tid, GUILD, P2)
    assert "has started" in accepted.note
    ((game_id, first, second),) = await under_way(service, tid)
    assert (first, second) == (P5.id, P2.id)
    assert (await service.lookups.game(game_id, GUILD)).event == "Ladder Hex · challenge"
    await lose(service, game_id, P2.id)
    assert await _order(service, tid) == ["p1", "p5", "p2", "p3", "p4", "p6"]
    assert [n.text for n in await news(service, "ladder")] == ["p5 takes p2's place: 2nd."]
    # the challenge is over: both may challenge again
    await service.ladders.ladder_challenge(tid, GUILD, P2, P1)


async def test_a_lost_challenge_changes_nothing(service: GameService) -> None:
    tid = await _ladder(service)
    await service.ladders.ladder_challenge(tid, GUILD, P4, P3)
    await service.ladders.accept_ladder_challenge(tid, GUILD, P3)
    ((game_id, _, _),) = await under_way(service, tid)
    await lose(service, game_id, P4.id)
    assert await _order(service, tid) == ["p1", "p2", "p3", "p4", "p5", "p6"]
    assert await news(service, "ladder") == []


async def test_challenges_beyond_reach_below_or_while_busy_are_refused(
    service: GameService,
) -> None:
    tid = await _ladder(service)
    with pytest.raises(Refused) as refused:
        await service.ladders.ladder_challenge(tid, GUILD, P6, P2)  # four places above
    assert refused.value.code == ServiceCode.OUT_OF_REACH
    assert _plain(refused.value) == (
        "p2 is out of reach: you may challenge up to 3 places above you."
    )
    with pytest.raises(Refused) as refused:
        await service.ladders.ladder_challenge(tid, GUILD, P2, P4)
    assert refused.value.code == ServiceCode.OUT_OF_REACH
    with pytest.raises(Refused) as refused:
        await service.ladders.ladder_challenge(tid, GUILD, P2, P2)
    assert refused.value.code == ServiceCode.SELF_CHALLENGE
    await service.ladders.ladder_challenge(tid, GUILD, P4, P2)
    with pytest.raises(Refused) as refused:
        await service.ladders.ladder_challenge(tid, GUILD, P4, P3)  # a second open challenge
    assert refused.value.code == ServiceCode.BUSY
    assert "open ladder challenge already" in _plain(refused.value)
    with pytest.raises(Refused) as refused:
        await service.ladders.ladder_challenge(tid, GUILD, P3, P2)  # p2 has one to answer
    assert _plain(refused.value) == "p2 has an open ladder challenge already."
    with pytest.raises(Refused) as refused:
        await service.ladders.accept_ladder_challenge(tid, GUILD, P3)
    assert refused.value.code == ServiceCode.NOT_INVITED
    assert len(await news(service, "ladder")) == 0 and await under_way(service, tid) == []


async def test_an_unaccepted_challenge_expires_and_is_forfeited(
    service: GameService, clock: Clock
) -> None:
    tid = await _ladder(service)
    issued = await service.ladders.ladder_challenge(tid, GUILD, P4, P1)
    game_id = issued.results[0].game.id
    clock.advance(days=6, hours=23)
    assert await service.schedule.claim_deadlines("tests", timedelta(seconds=1)) == []
    clock.advance(hours=2)
    claims = await service.schedule.claim_deadlines("tests", timedelta(seconds=1))
    assert [(c.game_id, c.kind) for c in claims] == [(game_id, "expire")]
    assert await service.schedule.act_on_deadline(claims[0], "tests") is not None
    assert (await service.lookups.game(game_id, GUILD)).status == "expired"
    assert await _order(service, tid) == ["p4", "p1", "p2", "p3", "p5", "p6"]
    assert [n.text for n in await news(service, "ladder")] == ["p4 takes p1's place: 1st."]
    # claimed once: acting again does nothing
    assert await service.schedule.act_on_deadline(claims[0], "tests") is None
    assert await _order(service, tid) == ["p4", "p1", "p2", "p3", "p5", "p6"]


async def test_declining_is_a_forfeit(service: GameService) -> None:
    tid = await _ladder(service)
    await service.ladders.ladder_challenge(tid, GUILD, P3, P2)
    declined = await service.ladders.decline_ladder_challenge(tid, GUILD, P2)
    assert "forfeits" in declined.note
    assert await _order(service, tid) == ["p1", "p3", "p2", "p4", "p5", "p6"]
    with pytest.raises(Refused) as refused:
        await service.ladders.decline_ladder_challenge(tid, GUILD, P2)
    assert refused.value.code == ServiceCode.NOT_INVITED


async def test_a_challenge_on_other_formats_is_refused(service: GameService) -> None:
    tid = await open_event(service, "roundrobin", PEOPLE[:3])
    with pytest.raises(Refused) as refused:
        await service.ladders.ladder_challenge(tid, GUILD, P2, P1)
    assert refused.value.code == ServiceCode.NOT_LADDER
    _plain(refused.value)


@pytest.mark.both_backends
async def test_two_accepts_at_once_start_one_game(database_url: str, clock: Clock) -> None:
    async with services(database_url, clock, 2) as (one, two):
        tid = await _ladder(one)
        await one.ladders.ladder_challenge(tid, GUILD, P3, P1)
        outcomes = await asyncio.gather(
            one.ladders.accept_ladder_challenge(tid, GUILD, P1),
            two.ladders.accept_ladder_challenge(tid, GUILD, P1),
            return_exceptions=True,
        )
        refused = [o for o in outcomes if isinstance(o, Refused)]
        assert len(refused) == 1 and refused[0].code == ServiceCode.NOT_INVITED
        assert len(await under_way(one, tid)) == 1


async def test_the_console_runs_a_ladder_challenge(service: GameService, tmp_path: Path) -> None:
    lines = [
        "as ann",
        "tournament create hex format=ladder size=5",
        "tournament join 1",
        "as bob",
        "tournament join 1",
        "as cat",
        "tournament join 1",
        "as ann",
        "tournament start 1",
        "as cat",
        "tournament challenge 1 @ann",
        "tournament challenge 1 @bob",
        "as ann",
        "tournament accept 1",
        "tournament decline 1",
    ]
    said = "\n".join(await transcript_of(service, tmp_path, lines))
    assert "cat challenges ann on Ladder Hex" in said
    assert "You have an open ladder challenge already" in said
    assert "ann accepted the challenge" in said
    assert "No challenge on Ladder Hex is waiting for you." in said


async def test_a_challenge_withdrawn_by_its_challenger_changes_nothing(
    service: GameService,
) -> None:
    """The ordinary challenge commands work on a ladder's challenge game too: its
    challenger cancels it (no forfeit), then their next one is accepted by game number."""
    tid = await _ladder(service)
    issued = await service.ladders.ladder_challenge(tid, GUILD, P3, P2)
    await service.challenges.cancel(issued.results[0].game.id, GUILD, P3)
    assert await _order(service, tid) == ["p1", "p2", "p3", "p4", "p5", "p6"]
    again = await service.ladders.ladder_challenge(tid, GUILD, P3, P1)  # no longer busy
    await service.challenges.accept(again.results[0].game.id, GUILD, P1)
    assert len(await under_way(service, tid)) == 1


async def test_a_player_who_leaves_calls_off_their_waiting_challenge(
    service: GameService,
) -> None:
    tid = await _ladder(service)
    issued = await service.ladders.ladder_challenge(tid, GUILD, P3, P2)
    left = await service.events.leave_tournament(tid, GUILD, P2)
    game_id = issued.results[0].game.id
    assert (await service.lookups.game(game_id, GUILD)).status == "cancelled"
    assert [r.game.id for r in left.results] == [game_id]
    async with service.records.db.read() as conn:  # its closing is written to the outbox once
        written = (await conn.scalars(sa.select(outbox.c.events))).all()
    closed = [e for events in written for e in events if e.get("type") == "ChallengeClosed"]
    assert len(closed) == 1, written
    assert await _order(service, tid) == ["p1", "p3", "p4", "p5", "p6"]
    await service.ladders.ladder_challenge(tid, GUILD, P3, P1)  # p3 is free to challenge again


async def test_the_bot_on_a_ladder_accepts_a_challenge_at_once(service: GameService) -> None:
    tid = await open_event(service, "ladder", PEOPLE[:1])
    added = await service.events.add_bot_to_tournament(tid, GUILD, ORGANIZER, "easy", manages=True)
    await service.events.join_tournament(tid, GUILD, P2)
    await service.events.start_tournament(tid, GUILD, ORGANIZER)
    bot = added.tournament.entrants[-1]
    issued = await service.ladders.ladder_challenge(tid, GUILD, P2, Player(bot.player_id, bot.name))
    assert issued.results[0].game.status == "active"
    assert [(first, second) for _, first, second in await under_way(service, tid)] == [
        (P2.id, bot.player_id)
    ]
