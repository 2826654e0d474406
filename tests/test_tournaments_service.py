"""Events through the service: created, entered, started, played to the end through ordinary
games, and each bad request refused with nothing made. Both backends (tests/conftest.py)."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import sqlalchemy as sa

from bot.console.session import GUILD as CONSOLE_GUILD
from bot.service import GameService, Place, Player, Refused, ServiceCode
from bot.service.core.models import TournamentNews
from bot.settings import Settings
from bot.store import Database
from bot.store.schema import entrants, games, outbox, pairings, tournament_rounds, tournaments
from engine import Code
from tests.conftest import ANN, BOB, CAT, Clock
from tests.consolekit import transcript_of

GUILD = 1
PLACE = Place(GUILD, 10)
DAN, EVE = Player(9004, "dan"), Player(9005, "eve")
PEOPLE = (ANN, BOB, CAT, DAN, EVE)


async def _count(service: GameService, table: sa.Table) -> int:
    async with service.records.db.read() as conn:
        return int(await conn.scalar(sa.select(sa.func.count()).select_from(table)) or 0)


async def _event(
    service: GameService, fmt: str, people: tuple[Player, ...], **kwargs: object
) -> int:
    created = await service.events.create_tournament(
        PLACE, ANN, "hex", format=fmt, options={"size": "5"}, manages=True, **kwargs
    )
    for person in people:
        await service.events.join_tournament(created.tournament.id, GUILD, person)
    return created.tournament.id


async def _under_way(service: GameService, tournament_id: int) -> list[tuple[int, int, int]]:
    """(game, first player, round) of each game of the event under way, by game id."""
    async with service.records.db.read() as conn:
        rows = await conn.execute(
            sa.select(pairings.c.game_id, pairings.c.first_id, pairings.c.round)
            .select_from(pairings.join(games, games.c.id == pairings.c.game_id))
            .where(pairings.c.tournament_id == tournament_id, games.c.status == "active")
            .order_by(pairings.c.game_id)
        )
        return [(r.game_id, r.first_id, r.round) for r in rows]


async def _news(service: GameService) -> list[TournamentNews]:
    from bot.service.core.outbox import event_from_json

    async with service.records.db.read() as conn:
        rows = (await conn.scalars(sa.select(outbox.c.events).order_by(outbox.c.id))).all()
    found = [event_from_json(e) for events in rows for e in events]
    return [e for e in found if isinstance(e, TournamentNews)]


def _person(player_id: int) -> Player:
    return next(p for p in PEOPLE if p.id == player_id)


async def test_a_round_robin_is_played_to_the_end(service: GameService) -> None:
    tid = await _event(service, "roundrobin", (ANN, BOB, CAT, DAN), name="Spring", days_per_move=3)
    started = await service.events.start_tournament(tid, GUILD, ANN)
    assert started.tournament.status == "active"
    playing = await _under_way(service, tid)
    assert len(playing) == 6  # every game at once
    summary = started.results[0].game
    assert summary.event == "Spring Hex · round 1" and summary.event_id == tid
    assert summary.days_per_move == 3
    for game_id, first, _ in playing:  # the first seat wins every game
        game = await service.lookups.game(game_id, GUILD)
        loser = game.seats[1].player_id
        assert loser is not None and game.seats[0].player_id == first
        await service.play.resign(game_id, GUILD, _person(loser))
    finished = await service.event_reads.tournament(tid, GUILD)
    assert finished.status == "finished"
    standings = await service.event_reads.tournament_standings(tid, GUILD)
    table = standings.tables[0]
    assert sum(row.score for row in table.rows) == 6
    assert all(row.games_left == 0 for row in table.rows)
    assert standings.crosstables[0].cells[0][0] == "×"
    assert "Spring Hex" in standings.text
    news = await _news(service)
    assert [n.kind for n in news][-1] == "final"
    assert "Final standings" in news[-1].text


async def test_a_swiss_pairs_each_round_when_the_last_game_ends(service: GameService) -> None:
    tid = await _event(service, "swiss", (ANN, BOB, CAT, DAN, EVE))
    started = await service.events.start_tournament(tid, GUILD, ANN)
    assert started.tournament.rounds == 4  # ceil(log2 5) + 1, at most N - 1
    for number in range(1, (started.tournament.rounds or 0) + 1):
        playing = await _under_way(service, tid)
        assert playing and {r for _, _, r in playing} == {number}
        assert len(playing) == 2  # five players: two games and a bye
        for game_id, _, _ in playing:
            game = await service.lookups.game(game_id, GUILD)
            await service.play.resign(game_id, GUILD, _person(game.seats[1].player_id or 0))
    assert (await service.event_reads.tournament(tid, GUILD)).status == "finished"
    async with service.records.db.read() as conn:
        byes = (await conn.scalars(sa.select(tournament_rounds.c.bye_id))).all()
    assert len(set(byes)) == len(byes) == 4  # a different player sits out each round
    standings = await service.event_reads.tournament_standings(tid, GUILD)
    assert sum(row.score for row in standings.tables[0].rows) == 2 * 4 + 4  # games + byes
    kinds = [n.kind for n in await _news(service)]
    assert kinds.count("round") == 4 and kinds[-1] == "final"


async def test_a_knockout_plays_its_matches_to_a_champion(service: GameService) -> None:
    tid = await _event(service, "knockout", (ANN, BOB, CAT, DAN, EVE), match=3)
    await service.events.start_tournament(tid, GUILD, ANN)
    for _ in range(40):
        playing = await _under_way(service, tid)
        if not playing:
            break
        for game_id, _, _ in playing:
            game = await service.lookups.game(game_id, GUILD)
            await service.play.resign(game_id, GUILD, _person(game.seats[1].player_id or 0))
    assert (await service.event_reads.tournament(tid, GUILD)).status == "finished"
    standings = await service.event_reads.tournament_standings(tid, GUILD)
    assert standings.bracket is not None and len(standings.bracket.rounds) == 3
    assert [row.place for row in standings.tables[0].rows][:2] == ["1", "2"]


async def test_bad_requests_are_refused_and_make_nothing(service: GameService) -> None:
    bad: list[tuple[dict[str, object], Code]] = [
        ({"format": "marathon"}, Code.BAD_OPTION),
        ({"format": "swiss", "rounds": 0}, Code.BAD_OPTION),
        ({"format": "swiss", "rounds": 10**9}, Code.BAD_OPTION),
        ({"format": "roundrobin", "rounds": 3}, Code.BAD_OPTION),
        ({"format": "knockout", "match": 2}, Code.BAD_OPTION),
        ({"format": "swiss", "name": "x" * 5000}, Code.TOO_LONG),
        ({"format": "swiss", "name": "Spring\x1b[31m"}, Code.BAD_OPTION),
        ({"format": "swiss", "name": "  "}, Code.BAD_OPTION),
        ({"format": "swiss", "days_per_move": 4}, Code.BAD_OPTION),
        ({"format": "swiss", "options": {"size": "99"}}, Code.BAD_OPTION),
    ]
    for kwargs, code in bad:
        options = kwargs.pop("options", {"size": "5"})
        with pytest.raises(Refused) as refused:
            await service.events.create_tournament(
                PLACE,
                ANN,
                "hex",
                options=options,  # type: ignore[arg-type]
                manages=True,
                **kwargs,  # type: ignore[arg-type]
            )
        assert refused.value.code == code, kwargs
        assert "\n" not in str(refused.value) and len(str(refused.value)) < 200
    with pytest.raises(Refused) as refused:
        await service.events.create_tournament(PLACE, ANN, "chess", format="swiss", manages=True)
    assert refused.value.code == Code.UNKNOWN_GAME
    with pytest.raises(Refused) as refused:  # only managers, by default
        await service.events.create_tournament(PLACE, BOB, "hex", format="swiss")
    assert refused.value.code == ServiceCode.NOT_ADMIN
    assert await _count(service, tournaments) == 0
    await service.preferences.guild_settings(GUILD, tournaments="everyone")
    assert (await service.events.create_tournament(PLACE, BOB, "hex", format="swiss")).tournament.id


async def test_starting_too_small_or_twice_and_joining_twice(service: GameService) -> None:
    tid = await _event(service, "swiss", (ANN, BOB, CAT))
    with pytest.raises(Refused) as refused:
        await service.events.start_tournament(tid, GUILD, ANN)
    assert str(refused.value) == "A Swiss tournament needs at least 4 players; this one has 3."
    assert await _count(service, games) == 0 and await _count(service, tournament_rounds) == 0
    with pytest.raises(Refused) as refused:
        await service.events.join_tournament(tid, GUILD, BOB)
    assert refused.value.code == ServiceCode.ENTERED
    with pytest.raises(Refused) as refused:  # only the organizer or a manager starts it
        await service.events.start_tournament(tid, GUILD, BOB)
    assert refused.value.code == ServiceCode.NOT_ADMIN
    await service.events.join_tournament(tid, GUILD, DAN)
    # two presses of Start at once: one start, one refusal
    first, second = await asyncio.gather(
        service.events.start_tournament(tid, GUILD, ANN),
        service.events.start_tournament(tid, GUILD, BOB, manages=True),  # the organizer may be gone
        return_exceptions=True,
    )
    outcomes = sorted(type(x).__name__ for x in (first, second))
    assert outcomes == ["Refused", "TournamentResult"]
    assert await _count(service, games) == 2 and await _count(service, tournament_rounds) == 1
    # two presses of Join at once: one entry
    other = await _event(service, "roundrobin", ())
    joined = await asyncio.gather(
        service.events.join_tournament(other, GUILD, EVE),
        service.events.join_tournament(other, GUILD, EVE),
        return_exceptions=True,
    )
    assert sorted(type(x).__name__ for x in joined) == ["Refused", "TournamentResult"]
    summary = await service.event_reads.tournament(other, GUILD)
    assert [e.player_id for e in summary.entrants] == [EVE.id]


async def test_a_game_of_an_event_cannot_be_aborted(service: GameService) -> None:
    tid = await _event(service, "roundrobin", (ANN, BOB, CAT))
    await service.events.start_tournament(tid, GUILD, ANN)
    game_id, first, _ = (await _under_way(service, tid))[0]
    with pytest.raises(Refused) as refused:
        await service.play.abort(game_id, GUILD, _person(first))
    assert refused.value.code == ServiceCode.EVENT_GAME
    assert (await service.lookups.game(game_id, GUILD)).status == "active"


async def test_a_leaver_forfeits_and_a_round_robin_annuls_their_results(
    service: GameService,
) -> None:
    tid = await _event(service, "roundrobin", (ANN, BOB, CAT, DAN))
    await service.events.start_tournament(tid, GUILD, ANN)
    left = await service.events.leave_tournament(tid, GUILD, DAN)
    assert "withdrew" in left.note
    assert len(await _under_way(service, tid)) == 3  # DAN's three games are forfeited
    news = [e for r in left.results for e in r.events if isinstance(e, TournamentNews)]
    assert news and "annulled" in news[0].text
    standings = await service.event_reads.tournament_standings(tid, GUILD)
    assert standings.tables[0].rows[-1].note == "annulled"
    with pytest.raises(Refused) as refused:
        await service.events.leave_tournament(tid, GUILD, DAN)
    assert refused.value.code == ServiceCode.NOT_ENTERED


async def test_the_next_round_is_paired_once_when_two_games_end_at_once(
    database_url: str, clock: Clock
) -> None:
    """Two services (two pools, as two processes) end the last two games of a round at
    once: round 2 is paired exactly once."""
    services: list[GameService] = []
    for seed in (1, 2):
        settings = Settings(database_url=database_url, render_processes=0, _env_file=None)  # type: ignore[call-arg]
        database = await Database.open(database_url)
        services.append(GameService(database, settings, clock=clock, rng=random.Random(seed)))
    one, two = services
    try:
        tid = await _event(one, "swiss", (ANN, BOB, CAT, DAN))
        await one.events.start_tournament(tid, GUILD, ANN)
        (a, _, _), (b, _, _) = await _under_way(one, tid)
        losers = []
        for game_id in (a, b):
            game = await one.lookups.game(game_id, GUILD)
            losers.append(_person(game.seats[1].player_id or 0))
        await asyncio.gather(
            one.play.resign(a, GUILD, losers[0]), two.play.resign(b, GUILD, losers[1])
        )
        playing = await _under_way(one, tid)
        assert len(playing) == 2 and {r for _, _, r in playing} == {2}
        assert (await one.event_reads.tournament(tid, GUILD)).round == 2
        async with one.records.db.read() as conn:
            rounds = (await conn.scalars(sa.select(tournament_rounds.c.number))).all()
        assert sorted(rounds) == [1, 2]
    finally:
        for service in services:
            await service.close()


@pytest.fixture
async def spare(service: GameService) -> AsyncIterator[GameService]:
    yield service


async def test_entrants_are_listed_in_entry_order(spare: GameService) -> None:
    tid = await _event(spare, "league", (CAT, ANN, BOB))
    summary = await spare.event_reads.tournament(tid, GUILD)
    assert [e.name for e in summary.entrants] == ["cat", "ann", "bob"]
    assert await _count(spare, entrants) == 3
    listed = await spare.event_reads.list_tournaments(GUILD)
    assert [t.id for t in listed] == [tid]


async def test_the_console_runs_an_event_with_the_documented_lines(
    service: GameService, tmp_path: Path
) -> None:
    """The console's syntax end to end: a round robin of three created, entered, started,
    played (each game resigned) and its standings printed; then the other formats and
    the refusals."""
    lines = [
        "as ann",
        "tournament create hex format=roundrobin size=5 days=3 name=Spring",
        "tournament join 1",
        "as bob",
        "tournament join 1",
        "tournament join 1",
        "as cat",
        "tournament join 1",
        "as ann",
        "tournament withdraw 1 @cat",
        "as cat",
        "tournament join 1",
        "as ann",
        "tournament start 1",
        "tournament start 1",
        "tournament pairings 1",
        "tournament list",
        "tournament create hex format=swiss rounds=4",
        "tournament create hex format=knockout match=3",
        "tournament create hex format=league",
        "tournament create hex format=ladder",
        "tournament create hex format=marathon",
        "tournament create hex format=swiss rounds=0",
        "tournament frobnicate 1",
        "tournament add-bot 2 level=easy",
        "tournament cancel 2",
        "tournament standings 1",
    ]
    said = "\n".join(await transcript_of(service, tmp_path, lines))
    assert "Spring Hex (#1), a round robin, is open for entries: tournament join 1." in said
    assert "You are in Spring Hex already." in said
    assert "Spring Hex has started." in said and "Spring Hex has started already." in said
    assert "Spring Hex: all 3 games start now." in said
    assert "Spring Hex, every game:" in said  # pairings
    assert "#1 Spring Hex: round robin, active, 3 players" in said
    assert "There is no format “marathon”; the formats are roundrobin" in said
    assert "A Swiss tournament has 1 to 999 rounds." in said
    assert "Say what to do: tournament create, join, leave, start" in said
    assert "cat left Spring Hex." in said
    assert "Paperboard (easy) joined Swiss Hex (1 player)." in said
    assert "Swiss Hex is called off." in said
    assert "Sonneborn-Berger" in said or "SB" in said
    # play it out: each game's second seat resigns; the last game's end finishes the event
    playing = await _under_way(service, 1)
    resigning = []
    for game_id, _, _ in playing:
        game = await service.lookups.game(game_id, CONSOLE_GUILD)
        resigning += [f"as {game.seats[1].name}", f"resign {game_id}", "y"]
    said = "\n".join(await transcript_of(service, tmp_path, [*resigning, "tournament standings 1"]))
    assert "Spring Hex is over. Final standings:" in said
    assert (await service.event_reads.tournament(1, CONSOLE_GUILD)).status == "finished"


FRED, GIL = Player(9006, "fred"), Player(9007, "gil")


async def test_a_league_starts_its_next_season_when_the_last_game_ends(
    service: GameService,
) -> None:
    everyone = (*PEOPLE, FRED, GIL)
    tid = await _event(service, "league", everyone[:6])
    await service.events.start_tournament(tid, GUILD, ANN)
    assert len(await _under_way(service, tid)) == 15  # one division of six
    late = await service.events.join_tournament(tid, GUILD, GIL)  # a newcomer waits for next season
    assert "next season" in late.note
    for game_id, _, _ in await _under_way(service, tid):
        game = await service.lookups.game(game_id, GUILD)
        loser = next(p for p in everyone if p.id == game.seats[1].player_id)
        await service.play.resign(game_id, GUILD, loser)
    season = await service.event_reads.tournament(tid, GUILD)
    assert season.status == "active" and season.round == 2
    playing = await _under_way(service, tid)
    assert len(playing) == 21 and {r for _, _, r in playing} == {2}  # seven now
    assert "season" in [n.kind for n in await _news(service)]


async def test_two_losses_on_time_in_a_row_withdraw_a_player(
    service: GameService, clock: Clock
) -> None:
    from datetime import timedelta

    tid = await _event(service, "swiss", (ANN, BOB, CAT, DAN), days_per_move=1, rounds=3)
    await service.events.start_tournament(tid, GUILD, ANN)
    for _ in range(2):  # every player to move runs out of time, twice
        clock.advance(days=2)
        for claim in await service.schedule.claim_deadlines("test", timedelta(minutes=5)):
            await service.schedule.act_on_deadline(claim, "test")
    summary = await service.event_reads.tournament(tid, GUILD)
    out = [e.name for e in summary.entrants if e.withdrawn]
    assert out, "nobody was withdrawn after two losses on time"
    news = [n for n in await _news(service) if n.kind == "withdrawn"]
    assert news and "lost two games on time in a row" in news[0].text
    for game_id, _, _ in await _under_way(service, tid):  # never paired again
        game = await service.lookups.game(game_id, GUILD)
        assert not {s.name for s in game.seats} & set(out)


async def test_pairings_and_thread_titles_name_the_event(service: GameService) -> None:
    from bot.service.core.messages import thread_title

    tid = await _event(service, "roundrobin", (ANN, BOB, CAT, DAN), name="Spring")
    await service.events.start_tournament(tid, GUILD, ANN)
    listed = await service.event_reads.tournament_pairings(tid, GUILD)
    assert listed.count("under way") == 6  # a round robin lists every game
    game_id, _, number = (await _under_way(service, tid))[-1]
    game = await service.lookups.game(game_id, GUILD)
    names = " v ".join(s.name or "" for s in game.seats)
    assert thread_title(game) == f"Spring Hex · round {number} · {names}"


async def test_an_event_may_keep_its_clocks_running_through_vacations(
    service: GameService, clock: Clock
) -> None:
    from datetime import timedelta

    for vacations, status in ((True, "active"), (False, "finished")):
        tid = await _event(
            service, "roundrobin", (ANN, BOB, CAT), days_per_move=1, vacations=vacations
        )
        await service.events.start_tournament(tid, GUILD, ANN)
        game_id, first, _ = (await _under_way(service, tid))[0]
        await service.preferences.player_settings(_person(first), vacation=True)
        clock.advance(hours=30)
        for claim in await service.schedule.claim_deadlines("test", timedelta(minutes=5)):
            await service.schedule.act_on_deadline(claim, "test")
        assert (await service.lookups.game(game_id, GUILD)).status == status, vacations
        await service.preferences.player_settings(_person(first), vacation=False)


async def test_a_swiss_of_ten_thousand_is_refused_at_its_start(service: GameService) -> None:
    """Entries stop at the format's most (LIMITS); entrants beyond it (written here
    directly) are refused at the start, with nothing made."""
    from datetime import UTC, datetime

    from bot.store.schema import players

    tid = await _event(service, "swiss", ())
    now = datetime.now(UTC)
    people = [{"id": 100_000 + i, "name": f"p{i}", "created_at": now} for i in range(10_000)]
    async with service.records.db.write() as conn:
        await conn.execute(players.insert(), people)
        await conn.execute(
            entrants.insert(),
            [
                {"tournament_id": tid, "player_id": p["id"], "seq": i, "joined_at": now}
                for i, p in enumerate(people)
            ],
        )
    with pytest.raises(Refused) as refused:
        await service.events.join_tournament(tid, GUILD, ANN)
    assert str(refused.value) == "Swiss Hex is full: 1,000 players."
    with pytest.raises(Refused) as refused:
        await service.events.start_tournament(tid, GUILD, ANN)
    assert str(refused.value) == (
        "A Swiss tournament takes at most 1,000 players; this one has 10,000."
    )
    assert (await service.event_reads.tournament(tid, GUILD)).status == "open"
    assert await _count(service, games) == 0 and await _count(service, pairings) == 0
