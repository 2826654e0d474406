"""Events where faults hide: requests that race (two services on one database, each with
its own pool, as two bot processes: real concurrency on PostgreSQL), and bad input, each
refused with one plain sentence and nothing half-made. Both backends (tests/conftest.py)."""

from __future__ import annotations

import asyncio
import re
from collections import Counter
from collections.abc import Awaitable

import pytest
import sqlalchemy as sa

from bot.service import GameService, Player, Refused, ServiceCode
from bot.service.core.models import TournamentResult
from bot.store.schema import entrants, games, pairings, players, tournament_rounds, tournaments
from engine import Code
from tests.conftest import Clock
from tests.eventkit import (
    GUILD,
    ORGANIZER,
    PEOPLE,
    PLACE,
    all_pairings,
    count,
    lose,
    news,
    open_event,
    services,
    under_way,
)


def _plain(refused: Refused) -> str:
    """The refusal's text, checked to be one plain sentence."""
    text = str(refused)
    assert text.endswith(".") and "\n" not in text and len(text) < 200, text
    assert re.search(r"[.!?] [A-Z]", text) is None, text
    return text


async def _once(*presses: Awaitable[object]) -> Refused:
    """The same request pressed at once (on different services): exactly one does it,
    the others are refused; returns a refusal."""
    outcomes = await asyncio.gather(*presses, return_exceptions=True)
    assert not [o for o in outcomes if isinstance(o, BaseException) and not isinstance(o, Refused)]
    assert [isinstance(o, Refused) for o in outcomes].count(False) == 1, outcomes
    return next(o for o in outcomes if isinstance(o, Refused))


# == the next round, once ===================================================================


async def test_a_round_whose_games_all_end_at_once_is_followed_once(
    database_url: str, clock: Clock
) -> None:
    """An 8-player Swiss: every game of rounds 1 and 2 ends at the same instant, each on
    another service; each next round is paired once (its row, its 4 games, one
    announcement)."""
    async with services(database_url, clock, 4) as fleet:
        tid = await open_event(fleet[0], "swiss", PEOPLE[:8], rounds=3)
        await fleet[0].events.start_tournament(tid, GUILD, ORGANIZER)
        for number in (1, 2):
            playing = await under_way(fleet[0], tid)
            assert len(playing) == 4
            await asyncio.gather(
                *(lose(fleet[i], game_id, second) for i, (game_id, _, second) in enumerate(playing))
            )
            rows = await all_pairings(fleet[0], tid)
            assert Counter(p.round for p in rows) == {r: 4 for r in range(1, number + 2)}
            assert await count(fleet[0], tournament_rounds) == number + 1
            assert (await fleet[0].event_reads.tournament(tid, GUILD)).round == number + 1
            told = [n for n in await news(fleet[0], "round") if f"round {number + 1} of" in n.text]
            assert len(told) == 1
            # each player is in exactly one game of the new round
            fresh = [p for p in rows if p.round == number + 1]
            assert len({x for p in fresh for x in (p.first_id, p.second_id)}) == 8


async def test_the_last_games_of_a_round_robin_end_at_once_and_it_ends_once(
    database_url: str, clock: Clock
) -> None:
    async with services(database_url, clock, 3) as fleet:
        tid = await open_event(fleet[0], "roundrobin", PEOPLE[:3])
        await fleet[0].events.start_tournament(tid, GUILD, ORGANIZER)
        playing = await under_way(fleet[0], tid)
        assert len(playing) == 3
        await asyncio.gather(
            *(lose(fleet[i], game_id, second) for i, (game_id, _, second) in enumerate(playing))
        )
        assert (await fleet[0].event_reads.tournament(tid, GUILD)).status == "finished"
        assert len(await news(fleet[0], "final")) == 1


# == racing requests ========================================================================


async def test_a_join_racing_the_start_is_in_the_first_round_or_refused(
    database_url: str, clock: Clock
) -> None:
    async with services(database_url, clock, 2) as (one, two):
        for attempt in range(3):
            tid = await open_event(one, "swiss", PEOPLE[:4])
            late = PEOPLE[4 + attempt]
            outcomes = await asyncio.gather(
                one.events.start_tournament(tid, GUILD, ORGANIZER),
                two.events.join_tournament(tid, GUILD, late),
                return_exceptions=True,
            )
            started, joined = outcomes
            assert isinstance(started, TournamentResult), started
            rows = await all_pairings(one, tid)
            paired = {x for p in rows for x in (p.first_id, p.second_id)}
            async with one.records.db.read() as conn:
                bye = await conn.scalar(
                    sa.select(tournament_rounds.c.bye_id).where(
                        tournament_rounds.c.tournament_id == tid
                    )
                )
            listed = {e.player_id for e in (await one.event_reads.tournament(tid, GUILD)).entrants}
            if isinstance(joined, Refused):  # the start came first
                assert joined.code == ServiceCode.NOT_OPEN
                assert late.id not in listed
                assert _plain(joined) == "Swiss Hex is under way."
            else:
                assert isinstance(joined, TournamentResult), joined
                assert late.id in listed
            # whoever is entered plays round 1 (or has its bye); nobody else does
            assert paired | ({bye} if bye else set()) == listed


async def test_two_presses_of_start_on_two_services_start_it_once(
    database_url: str, clock: Clock
) -> None:
    async with services(database_url, clock, 2) as (one, two):
        tid = await open_event(one, "roundrobin", PEOPLE[:5])
        refused = await _once(
            one.events.start_tournament(tid, GUILD, ORGANIZER),
            two.events.start_tournament(tid, GUILD, ORGANIZER),
        )
        assert refused.code == ServiceCode.NOT_OPEN
        assert _plain(refused) == "Round robin Hex has started already."
        assert await count(one, games) == 10 and await count(one, pairings) == 10
        assert await count(one, tournament_rounds) == 1
        assert len(await news(one, "round")) == 1


async def test_two_presses_of_join_on_two_services_enter_once(
    database_url: str, clock: Clock
) -> None:
    async with services(database_url, clock, 2) as (one, two):
        tid = await open_event(one, "knockout", ())
        for person in PEOPLE[1:4]:
            refused = await _once(
                one.events.join_tournament(tid, GUILD, person),
                two.events.join_tournament(tid, GUILD, person),
            )
            assert refused.code == ServiceCode.ENTERED and _plain(refused)
        summary = await one.event_reads.tournament(tid, GUILD)
        assert [e.player_id for e in summary.entrants] == [p.id for p in PEOPLE[1:4]]
        async with one.records.db.read() as conn:
            seqs = (await conn.scalars(sa.select(entrants.c.seq).order_by(entrants.c.seq))).all()
        assert seqs == [1, 2, 3]


async def test_a_withdrawal_racing_a_result_ends_the_game_once(
    database_url: str, clock: Clock
) -> None:
    """In a Swiss round, one player resigns the last game of the round while their
    opponent leaves the event: the game ends once (by resignation or by forfeit), the
    leaver is never paired again and round 2 is paired once."""
    async with services(database_url, clock, 2) as (one, two):
        tid = await open_event(one, "swiss", PEOPLE[:6])
        await one.events.start_tournament(tid, GUILD, ORGANIZER)
        playing = await under_way(one, tid)
        for game_id, _, second in playing[:-1]:
            await lose(one, game_id, second)
        last, first, second = playing[-1]
        leaver = next(p for p in PEOPLE if p.id == first)
        outcomes = await asyncio.gather(
            lose(one, last, second),  # the leaver wins it by resignation...
            two.events.leave_tournament(tid, GUILD, leaver),  # ...or forfeits it by leaving
            return_exceptions=True,
        )
        resigned, left = outcomes
        assert isinstance(left, TournamentResult), left
        if isinstance(resigned, Refused):  # the leave came first: the game was over
            assert resigned.code == Code.GAME_OVER, resigned
        else:
            assert resigned is None
        game = await one.lookups.game(last, GUILD)
        assert game.status == "finished"
        rows = await all_pairings(one, tid)
        done = next(p for p in rows if p.game_id == last)
        assert done.done and done.winner_id in (first, second)
        assert done.finish == ("played" if resigned is None else "forfeit")
        second_round = [p for p in rows if p.round == 2]
        theirs = [p for p in second_round if leaver.id in (p.first_id, p.second_id)]
        if resigned is None:  # round 2 was paired with them in it, then they forfeited it
            assert len(second_round) == 3 and len(theirs) == 1
            assert theirs[0].done and theirs[0].finish == "forfeit"
        else:  # five play on: two games and a bye
            assert len(second_round) == 2 and not theirs
        assert len(await under_way(one, tid)) == 2
        assert await count(one, tournament_rounds) == 2
        assert len(await news(one, "withdrawn")) == 1


# == bad input ==============================================================================


async def test_bad_events_are_refused_with_one_sentence_and_nothing_made(
    service: GameService,
) -> None:
    bad: list[tuple[dict[str, object], Code, str]] = [
        ({"format": "marathon"}, Code.BAD_OPTION, "There is no format “marathon”"),
        ({"format": ""}, Code.BAD_OPTION, "There is no format"),
        ({"format": "swiss", "rounds": 0}, Code.BAD_OPTION, "A Swiss tournament has 1 to"),
        ({"format": "swiss", "rounds": -3}, Code.BAD_OPTION, "A Swiss tournament has 1 to"),
        ({"format": "swiss", "rounds": 10**9}, Code.BAD_OPTION, "A Swiss tournament has 1 to"),
        ({"format": "swiss", "rounds": True}, Code.BAD_OPTION, "A Swiss tournament has 1 to"),
        ({"format": "swiss", "rounds": 2.0}, Code.BAD_OPTION, "A Swiss tournament has 1 to"),
        ({"format": "knockout", "match": 10**9}, Code.BAD_OPTION, "A knockout's matches"),
        ({"format": "league", "double": True}, Code.BAD_OPTION, "double= is for"),
        ({"format": "swiss", "name": "x" * 5000}, Code.TOO_LONG, "An event's name has at most"),
        ({"format": "swiss", "name": "Spring\x00"}, Code.BAD_OPTION, "An event's name cannot"),
        ({"format": "swiss", "name": "a\u202eb"}, Code.BAD_OPTION, "An event's name cannot"),
        ({"format": "swiss", "name": "a\nb"}, Code.BAD_OPTION, "An event's name cannot"),
        ({"format": "swiss", "name": "\t"}, Code.BAD_OPTION, "An event needs a name"),
        ({"format": "swiss", "rated": "yes"}, Code.BAD_OPTION, "Rated is yes or no"),
    ]
    for kwargs, code, words in bad:
        with pytest.raises(Refused) as refused:
            await service.events.create_tournament(
                PLACE,
                ORGANIZER,
                "hex",
                options={"size": "5"},
                manages=True,
                **kwargs,  # type: ignore[arg-type]
            )
        assert refused.value.code == code, kwargs
        assert _plain(refused.value).startswith(words), kwargs
    assert await count(service, tournaments) == 0
    assert await count(service, players) == 0  # the organizer not even remembered


@pytest.mark.parametrize(
    ("fmt", "entered", "words"),
    [
        ("roundrobin", 2, "A round robin needs at least 3 players; this one has 2."),
        ("swiss", 3, "A Swiss tournament needs at least 4 players; this one has 3."),
        ("knockout", 1, "A knockout needs at least 4 players; this one has 1."),
        ("league", 5, "A league needs at least 6 players; this one has 5."),
        ("ladder", 0, "A ladder needs at least 2 players; this one has 0."),
    ],
)
async def test_starting_too_few_is_refused_and_starts_nothing(
    service: GameService, fmt: str, entered: int, words: str
) -> None:
    tid = await open_event(service, fmt, PEOPLE[:entered])
    with pytest.raises(Refused) as refused:
        await service.events.start_tournament(tid, GUILD, ORGANIZER)
    assert refused.value.code == ServiceCode.EVENT_SIZE
    assert _plain(refused.value) == words
    summary = await service.event_reads.tournament(tid, GUILD)
    assert summary.status == "open" and summary.round == 0
    for table in (games, pairings, tournament_rounds):
        assert await count(service, table) == 0
    assert len(await news(service)) == 0


async def test_a_10000_player_swiss_is_refused(service: GameService) -> None:
    """10,000 entrants (written straight into the tables: joining stops at 1,000): the
    start is refused and changes nothing; a join past the most is refused too."""
    tid = await open_event(service, "swiss", ())
    many = range(100_000, 110_000)
    async with service.records.db.write() as conn:
        await conn.execute(
            players.insert(),
            [{"id": i, "name": f"n{i}", "created_at": service.records.clock()} for i in many],
        )
        await conn.execute(
            entrants.insert(),
            [
                {
                    "tournament_id": tid,
                    "player_id": i,
                    "seq": n,
                    "joined_at": service.records.clock(),
                }
                for n, i in enumerate(many, 1)
            ],
        )
    with pytest.raises(Refused) as refused:
        await service.events.start_tournament(tid, GUILD, ORGANIZER)
    assert refused.value.code == ServiceCode.EVENT_SIZE
    assert (
        _plain(refused.value)
        == "A Swiss tournament takes at most 1,000 players; this one has 10,000."
    )
    with pytest.raises(Refused) as refused:
        await service.events.join_tournament(tid, GUILD, PEOPLE[1])
    assert refused.value.code == ServiceCode.EVENT_SIZE
    assert _plain(refused.value) == "Swiss Hex is full: 1,000 players."
    assert await count(service, entrants) == 10_000
    assert await count(service, games) == 0 and await count(service, tournament_rounds) == 0
    assert (await service.event_reads.tournament(tid, GUILD)).status == "open"


async def test_an_event_whose_organizer_left_the_server_is_run_by_a_manager(
    service: GameService,
) -> None:
    """The organizer is gone (the adapter no longer finds them): another member cannot
    run the event, a manager can; the organizer's own entry is an ordinary entrant's."""
    tid = await open_event(service, "roundrobin", PEOPLE[:4])
    member, manager = PEOPLE[5], PEOPLE[6]
    for attempt in (service.events.start_tournament, service.events.cancel_tournament):
        with pytest.raises(Refused) as refused:
            await attempt(tid, GUILD, member)
        assert refused.value.code == ServiceCode.NOT_ADMIN
        assert _plain(refused.value) == (
            "Only the organizer of Round robin Hex or a member who can manage the server runs it."
        )
    with pytest.raises(Refused) as refused:
        await service.events.withdraw_from_tournament(tid, GUILD, member, PEOPLE[1])
    assert refused.value.code == ServiceCode.NOT_ADMIN
    assert await count(service, games) == 0
    # the organizer, entered as a player, leaves: the event stays, with three players
    await service.events.leave_tournament(tid, GUILD, ORGANIZER)
    started = await service.events.start_tournament(tid, GUILD, manager, manages=True)
    assert started.tournament.status == "active"
    assert await count(service, games) == 3
    await service.events.withdraw_from_tournament(tid, GUILD, manager, PEOPLE[1], manages=True)
    cancelled = await service.events.cancel_tournament(tid, GUILD, manager, manages=True)
    assert cancelled.tournament.status == "cancelled"


async def test_a_game_of_an_event_is_never_aborted_and_the_round_goes_on(
    service: GameService,
) -> None:
    """Aborting a game of an event mid-round is refused (docs/TOURNAMENTS.md): neither
    player may call it off; it is resigned or forfeited, and the round goes on."""
    tid = await open_event(service, "swiss", PEOPLE[:4])
    await service.events.start_tournament(tid, GUILD, ORGANIZER)
    (a, _, a2), (b, b1, b2) = await under_way(service, tid)
    await lose(service, a, a2)  # one game of the round over
    for who in (b1, b2):
        with pytest.raises(Refused) as refused:
            await service.play.abort(b, GUILD, next(p for p in PEOPLE if p.id == who))
        assert refused.value.code == ServiceCode.EVENT_GAME
        assert _plain(refused.value).endswith("resign it, or leave the event.")
    assert (await service.lookups.game(b, GUILD)).status == "active"
    assert (await service.event_reads.tournament(tid, GUILD)).round == 1
    await lose(service, b, b1)
    assert (await service.event_reads.tournament(tid, GUILD)).round == 2
    assert len(await under_way(service, tid)) == 2


async def test_refusals_on_an_unknown_or_foreign_event(service: GameService) -> None:
    tid = await open_event(service, "swiss", PEOPLE[:4])
    stranger = Player(9999, "stranger")
    for bad_id, guild in ((tid + 1, GUILD), (tid, GUILD + 1)):
        with pytest.raises(Refused) as refused:
            await service.events.join_tournament(bad_id, guild, stranger)
        assert refused.value.code == ServiceCode.NO_EVENT
        assert _plain(refused.value) == f"There is no event #{bad_id} here."
    with pytest.raises(Refused) as refused:
        await service.events.add_bot_to_tournament(tid, GUILD, ORGANIZER, "grandmaster")
    assert refused.value.code == Code.BAD_OPTION and _plain(refused.value)
    assert len((await service.event_reads.tournament(tid, GUILD)).entrants) == 4


async def test_a_late_entrant_racing_a_seasons_end_is_enrolled_once(
    database_url: str, clock: Clock
) -> None:
    """A newcomer joins a league while (on another service) the last game of its season
    ends: they play in the lowest division of the next season, or wait for the one after;
    never both, never lost."""
    async with services(database_url, clock, 2) as (one, two):
        tid = await open_event(one, "league", PEOPLE[:6], rated=False)
        await one.events.start_tournament(tid, GUILD, ORGANIZER)
        playing = await under_way(one, tid)
        for game_id, _, second in playing[:-1]:
            await lose(one, game_id, second)
        last, _, second = playing[-1]
        newcomer = PEOPLE[6]
        ended, joined = await asyncio.gather(
            lose(one, last, second), two.events.join_tournament(tid, GUILD, newcomer)
        )
        assert ended is None and isinstance(joined, TournamentResult)
        assert (await one.event_reads.tournament(tid, GUILD)).round == 2
        async with one.records.db.read() as conn:
            division = await conn.scalar(
                sa.select(entrants.c.division).where(
                    entrants.c.tournament_id == tid, entrants.c.player_id == newcomer.id
                )
            )
        second_season = [p for p in await all_pairings(one, tid) if p.round == 2]
        theirs = [p for p in second_season if newcomer.id in (p.first_id, p.second_id)]
        if division is None:  # joined after the season turned: waits for season 3
            assert len(second_season) == 15 and not theirs
        else:  # seven in one division: each plays six
            assert division == 0 and len(second_season) == 21 and len(theirs) == 6


async def test_calling_an_event_off_racing_the_end_of_its_round(
    database_url: str, clock: Clock
) -> None:
    """The organizer cancels a Swiss while its round's last game ends elsewhere: the event
    is called off either way, and the next round is paired at most once."""
    async with services(database_url, clock, 2) as (one, two):
        tid = await open_event(one, "swiss", PEOPLE[:4])
        await one.events.start_tournament(tid, GUILD, ORGANIZER)
        (a, _, a2), (b, _, b2) = await under_way(one, tid)
        await lose(one, a, a2)
        ended, cancelled = await asyncio.gather(
            lose(one, b, b2), two.events.cancel_tournament(tid, GUILD, ORGANIZER)
        )
        assert ended is None and isinstance(cancelled, TournamentResult)
        summary = await one.event_reads.tournament(tid, GUILD)
        assert summary.status == "cancelled"
        rows = await all_pairings(one, tid)
        assert Counter(p.round for p in rows)[2] in (0, 2)
        assert await count(one, tournament_rounds) == summary.round
        assert len(await news(one, "cancelled")) == 1 and not await news(one, "final")
        # games under way play on as ordinary games; no round follows them
        for game_id, _, second in await under_way(one, tid):
            await lose(one, game_id, second)
        assert (await one.event_reads.tournament(tid, GUILD)).round == summary.round
        assert len(await all_pairings(one, tid)) == len(rows)


async def test_a_knockout_player_who_leaves_mid_match_loses_it_at_once(
    service: GameService,
) -> None:
    tid = await open_event(service, "knockout", PEOPLE[:4], match=3)
    await service.events.start_tournament(tid, GUILD, ORGANIZER)
    (a, _, a2), (b, _, b2) = await under_way(service, tid)
    await lose(service, a, a2)  # 1-0 in match A
    await lose(service, b, b2)  # 1-0 in match B
    (a, a1, a2), (b, _, b2) = await under_way(service, tid)  # their second games
    leaver = next(p for p in PEOPLE if p.id == a1)
    await service.events.leave_tournament(tid, GUILD, leaver)
    assert (await service.lookups.game(a, GUILD)).status == "finished"
    assert (await service.event_reads.tournament(tid, GUILD)).round == 1  # match B goes on
    await lose(service, b, b2)  # seats alternate: game 1's winner loses, 1-1: a third game
    ((c, _, c2),) = await under_way(service, tid)
    await lose(service, c, c2)
    assert (await service.event_reads.tournament(tid, GUILD)).round == 2
    ((_, f1, f2),) = await under_way(service, tid)
    assert leaver.id not in (f1, f2) and a2 in (f1, f2)
    for _ in range(3):  # the final, to its end: the first seat loses each game (1-1, 2-1)
        for game_id, first, _ in await under_way(service, tid):
            await lose(service, game_id, first)
    assert not await under_way(service, tid)
    summary = await service.event_reads.tournament(tid, GUILD)
    assert summary.status == "finished"
    table = (await service.event_reads.tournament_standings(tid, GUILD)).tables[0]
    assert [r.note for r in table.rows].count("withdrawn") == 1
