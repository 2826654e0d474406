"""Whole events played to the end through the service with seeded random results, on both
backends: each game ends the quickest way (a resignation; one lost on time, one player
withdraws), and the final tables keep their invariants: the points are the games (and
byes), every pair met as the format says, promotions and relegations applied."""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from collections.abc import Awaitable, Callable

import pytest
import sqlalchemy as sa

from bot.events import Finish, GameResult, round_robin_standings
from bot.service import GameService
from bot.service.events import store
from bot.store.schema import entrants, tournament_rounds
from tests.conftest import Clock
from tests.eventkit import (
    GUILD,
    ORGANIZER,
    PEOPLE,
    all_pairings,
    lose,
    lose_on_time,
    news,
    open_event,
    under_way,
)

#: Called before each pass over the games under way with the pass's number; may end
#: games itself (on time) or withdraw a player.
Hook = Callable[[int], Awaitable[None]]


async def _play(service: GameService, tid: int, seed: int, hook: Hook | None = None) -> int:
    """Play every game of the event as it comes, a random player of each resigning, until
    none is under way; returns the number of passes."""
    rng = random.Random(seed)
    passes = 0
    while True:
        if hook is not None:
            await hook(passes)
        playing = await under_way(service, tid)
        if not playing:
            return passes
        passes += 1
        assert passes < 100
        for game_id, first, second in playing:
            if (await service.lookups.game(game_id, GUILD)).status == "active":
                await lose(service, game_id, rng.choice((first, second)))


async def _byes(service: GameService, tid: int) -> list[int]:
    async with service.records.db.read() as conn:
        rows = await conn.scalars(
            sa.select(tournament_rounds.c.bye_id).where(
                tournament_rounds.c.tournament_id == tid, tournament_rounds.c.bye_id.is_not(None)
            )
        )
        return list(rows.all())


async def _score_sum(service: GameService, tid: int) -> float:
    tables = (await service.event_reads.tournament_standings(tid, GUILD)).tables
    return sum(row.score for table in tables for row in table.rows)


async def test_a_13_player_swiss_with_a_loss_on_time_and_a_withdrawal(
    service: GameService, clock: Clock
) -> None:
    tid = await open_event(service, "swiss", PEOPLE[:13])
    started = await service.events.start_tournament(tid, GUILD, ORGANIZER)
    assert started.tournament.rounds == 5  # ceil(log2 13) + 1
    timed_out: list[int] = []
    leaver = PEOPLE[7]

    async def hook(passes: int) -> None:
        if passes == 1:  # round 2: its first game is lost on time
            game_id = (await under_way(service, tid))[0][0]
            timed_out.append(game_id)
            await lose_on_time(service, clock, game_id)
        if passes == 2:  # round 3 under way: a player leaves, forfeiting their game
            await service.events.leave_tournament(tid, GUILD, leaver)

    assert await _play(service, tid, seed=13, hook=hook) == 5
    summary = await service.event_reads.tournament(tid, GUILD)
    assert summary.status == "finished" and summary.round == 5
    rows = await all_pairings(service, tid)
    byes = await _byes(service, tid)
    assert all(p.done and p.winner_id in (p.first_id, p.second_id) for p in rows)
    by_round = defaultdict(list)
    for p in rows:
        by_round[p.round].append(p)
    assert sorted(by_round) == [1, 2, 3, 4, 5]
    assert [len(by_round[r]) for r in range(1, 6)] == [6, 6, 6, 6, 6]
    assert len(byes) == 3 and len(set(byes)) == 3  # rounds 1-3 of 13; 12 after the leaver
    for number, games in by_round.items():
        seated = [x for p in games for x in (p.first_id, p.second_id)]
        assert len(seated) == len(set(seated))  # nobody twice in a round
        if number > 3:
            assert leaver.id not in seated
    met = Counter(frozenset((p.first_id, p.second_id)) for p in rows if p.finish != "forfeit")
    assert max(met.values()) == 1  # no repeat
    finishes = Counter(p.finish for p in rows)
    assert finishes["time"] == 1 and finishes["forfeit"] == 1
    assert next(p for p in rows if p.game_id == timed_out[0]).finish == "time"
    # the points: one a game, one a bye
    assert await _score_sum(service, tid) == len(rows) + len(byes)
    table = (await service.event_reads.tournament_standings(tid, GUILD)).tables[0]
    assert len(table.rows) == 13
    assert [r.note for r in table.rows].count("withdrawn") == 1
    assert len(await news(service, "final")) == 1
    assert len(await news(service, "round")) == 5


async def test_a_6_player_double_round_robin_with_a_loss_on_time(
    service: GameService, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    tid = await open_event(service, "roundrobin", PEOPLE[:6], double=True)
    await service.events.start_tournament(tid, GUILD, ORGANIZER)
    assert len(await under_way(service, tid)) == 30  # every game at once

    async def hook(passes: int) -> None:
        if passes == 0:
            await lose_on_time(service, clock, (await under_way(service, tid))[-1][0])

    assert await _play(service, tid, seed=6, hook=hook) == 1
    assert (await service.event_reads.tournament(tid, GUILD)).status == "finished"
    rows = await all_pairings(service, tid)
    assert len(rows) == 30
    # each pair met twice, once in each seat
    assert Counter((p.first_id, p.second_id) for p in rows) == {
        (a.id, b.id): 1 for a in PEOPLE[:6] for b in PEOPLE[:6] if a != b
    }
    assert Counter(p.finish for p in rows) == {"played": 29, "time": 1}
    assert await _score_sum(service, tid) == 30
    standings = await service.event_reads.tournament_standings(tid, GUILD)
    cross = standings.crosstables[0]
    assert all(cross.cells[i][i] == "×" for i in range(6))
    assert all(len(cross.cells[i][j]) == 2 for i in range(6) for j in range(6) if i != j)
    points = [row.score for row in standings.tables[0].rows]
    assert points == sorted(points, reverse=True)
    # the crosstable's rows in the table's order, each row's points its row's cells
    assert cross.names == tuple(row.name for row in standings.tables[0].rows)
    assert [sum(_points(c) for c in cells) for cells in cross.cells] == points
    assert len(await news(service, "final")) == 1
    # a big event's tables are scored in a thread: the same tables
    monkeypatch.setattr(store, "BIG_EVENT", 0)
    assert await service.event_reads.tournament_standings(tid, GUILD) == standings


async def test_an_8_player_knockout_of_3_game_matches(service: GameService) -> None:
    tid = await open_event(service, "knockout", PEOPLE[:8], match=3)
    await service.events.start_tournament(tid, GUILD, ORGANIZER)
    await _play(service, tid, seed=8)
    assert (await service.event_reads.tournament(tid, GUILD)).status == "finished"
    async with service.records.db.read() as conn:
        stored = (
            await conn.execute(
                sa.select(tournament_rounds.c.number, tournament_rounds.c.matches)
                .where(tournament_rounds.c.tournament_id == tid)
                .order_by(tournament_rounds.c.number)
            )
        ).all()
    assert [len(r.matches) for r in stored] == [4, 2, 1]
    rows = await all_pairings(service, tid)
    through: dict[int, list[int]] = {}
    for number, matches in stored:
        winners = []
        for index, (high, low) in enumerate(matches):
            played = [p for p in rows if p.round == number and p.match == index]
            assert 2 <= len(played) <= 3
            assert all({p.first_id, p.second_id} == {high, low} for p in played)
            # seats alternate, the higher seed first in game 1
            assert [p.first_id for p in played] == [high, low, high][: len(played)]
            wins = Counter(p.winner_id for p in played)
            winner, most = wins.most_common(1)[0]
            assert most == 2 and (len(played) == 3) == (len(wins) == 2)
            winners.append(winner)
        through[number] = winners
    # the winners of a round are the players of the next
    for number in (2, 3):
        players_next = {x for pair in stored[number - 1].matches for x in pair}
        assert players_next == set(through[number - 1])
    champion = through[3][0]
    standings = await service.event_reads.tournament_standings(tid, GUILD)
    assert standings.bracket is not None and len(standings.bracket.rounds) == 3
    top = standings.tables[0].rows[0]
    assert top.place == "1" and top.name == next(p.name for p in PEOPLE if p.id == champion)
    assert [r.place for r in standings.tables[0].rows] == ["1", "2", "=3", "=3"] + ["=5"] * 4
    assert len(await news(service, "final")) == 1


async def _divisions(service: GameService, tid: int) -> list[list[int]]:
    """The league's divisions now, each in its table order."""
    async with service.records.db.read() as conn:
        rows = (
            await conn.execute(
                sa.select(entrants.c.player_id, entrants.c.division, entrants.c.place).where(
                    entrants.c.tournament_id == tid
                )
            )
        ).all()
    assert all(r.division is not None for r in rows)  # every entrant enrolled
    found: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for r in rows:
        found[r.division].append((r.place, r.player_id))
    return [[p for _, p in sorted(found[d])] for d in sorted(found)]


async def test_a_league_plays_two_seasons_with_promotion_and_relegation(
    service: GameService,
) -> None:
    tid = await open_event(service, "league", PEOPLE[:12])
    await service.events.start_tournament(tid, GUILD, ORGANIZER)
    for season in (1, 2):
        divisions = await _divisions(service, tid)
        assert [len(d) for d in divisions] == [6, 6]
        playing = await under_way(service, tid)
        assert len(playing) == 30
        rng = random.Random(season)
        for game_id, first, second in playing[:-1]:
            await lose(service, game_id, rng.choice((first, second)))
        assert (await service.event_reads.tournament(tid, GUILD)).round == season
        last = playing[-1]
        await lose(service, last[0], last[2])  # the season's last game: the next starts
        assert (await service.event_reads.tournament(tid, GUILD)).round == season + 1
        rows = [p for p in await all_pairings(service, tid) if p.round == season]
        assert len(rows) == 30 and all(p.done for p in rows)
        finals = []
        for index, division in enumerate(divisions):
            mine = [p for p in rows if p.division == index]
            met = Counter(frozenset((p.first_id, p.second_id)) for p in mine)
            assert len(met) == 15 and set(met.values()) == {1}  # every pair once
            results = [
                GameResult(p.round, p.first_id, p.second_id, p.winner_id, Finish(p.finish))
                for p in mine
            ]
            table = round_robin_standings(division, results)
            assert sum(s.points for s in table.rows) == 15
            finals.append([s.player for s in table.rows])
        top, bottom = finals
        moved = await _divisions(service, tid)
        assert set(moved[0]) == set(top[:4]) | set(bottom[:2])  # the top 2 go up
        assert set(moved[1]) == set(top[4:]) | set(bottom[2:])  # the bottom 2 go down
        told = await news(service, "season")
        assert len(told) == season and "up to division 1" in told[-1].text
        assert len(await under_way(service, tid)) == 30  # the next season is under way
    assert (
        await service.event_reads.tournament(tid, GUILD)
    ).status == "active"  # a league plays on


def _points(cell: str) -> float:
    """A crosstable cell's points: "1½" is 1.5, "×" none."""
    return sum({"1": 1.0, "½": 0.5}.get(ch, 0.0) for ch in cell)
