"""Truly concurrent clicks: two services (two connection pools, as two processes have)
on one database fire the same use cases at once. The winner of each race does what
it says, the loser gets a `Refused` with a stable code, never another exception, and
nothing is done twice. On SQLite the single writer serialises them; on PostgreSQL the
row locks must (docs/ARCHITECTURE.md, "Locks")."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from datetime import timedelta
from typing import Any

import pytest

from bot.service import (
    GameOver,
    GameService,
    GameStarted,
    GameSummary,
    Place,
    Player,
    Refused,
    Result,
    ServiceCode,
    TimedOut,
    UndoAnswered,
)
from bot.settings import Settings
from bot.store import Database
from engine import Code
from tests.conftest import ANN, BOB, CAT, DAN, Clock, postgres_schema, run_together

pytestmark = pytest.mark.both_backends

TRIALS = 12  # races per scenario: enough to lose some on PostgreSQL without the locks
HEX_TO_WIN = ("b3", "c2", "b1", "a2")  # hex 3x3: ANN (seat 0) wins with b2 after these


async def open_service(url: str, clock: Clock | None = None, limit: int = 100) -> GameService:
    settings = Settings(  # type: ignore[call-arg]
        database_url=url,
        render_processes=0,
        max_open_challenges=limit,
        max_active_games=limit,
        _env_file=None,
    )
    return GameService(await Database.open(url), settings, **({"clock": clock} if clock else {}))


@pytest.fixture
async def one(database_url: str, clock: Clock) -> AsyncIterator[GameService]:
    service = await open_service(database_url, clock)
    yield service
    await service.close()


@pytest.fixture
async def two(one: GameService, database_url: str, clock: Clock) -> AsyncIterator[GameService]:
    """A second service on the same database, with a pool of its own."""
    service = await open_service(database_url, clock)
    yield service
    await service.close()


async def race(*calls: Awaitable[Any]) -> tuple[list[Any], list[Refused]]:
    """Run the calls at once: what succeeded, and the refusals (any other error fails)."""
    outcomes = await asyncio.gather(*calls, return_exceptions=True)
    for outcome in outcomes:
        if isinstance(outcome, BaseException) and not isinstance(outcome, Refused):
            raise outcome
    won = [o for o in outcomes if not isinstance(o, BaseException)]
    return won, [o for o in outcomes if isinstance(o, Refused)]


async def one_wins(code: Code | ServiceCode, *calls: Awaitable[Any]) -> Any:
    """Exactly one of the calls succeeds, the others are refused with `code`: the winner."""
    won, lost = await race(*calls)
    assert len(won) == 1 and [r.code for r in lost] == [code] * (len(calls) - 1), lost
    return won[0]


async def in_each_place(trial: Callable[[Place], Awaitable[None]]) -> None:
    """TRIALS races at once, each on a server of its own (ratings do not mix)."""
    async with asyncio.TaskGroup() as group:  # a failure cancels the others
        for i in range(TRIALS):
            group.create_task(trial(place(i)))


def place(trial: int) -> Place:
    return Place(1000 + trial, 10)


async def challenge(
    service: GameService, where: Place, first: str = "challenger", **kwargs: Any
) -> GameSummary:
    kwargs.setdefault("opponents", [BOB])
    issued = await service.challenges.challenge(
        where, ANN, "hex", options={"size": 3, "swap": "off"}, first=first, **kwargs
    )
    return issued.game


async def started(service: GameService, where: Place, days: int | None = 3) -> GameSummary:
    """ANN (seat 0) against BOB, under way."""
    game = await challenge(service, where, days_per_move=days)
    return (await service.challenges.accept(game.id, where.guild_id, BOB)).game


def events(results: Sequence[Result], kind: type) -> list[Any]:
    return [e for r in results for e in r.events if isinstance(e, kind)]


async def rated(service: GameService, where: Place) -> list[tuple[int, int]]:
    """(games, wins) of ANN and BOB on that server."""
    lines = [
        line
        for player in (ANN, BOB)
        for line in await service.lookups.ratings(where.guild_id, player.id, "hex")
    ]
    return [(line.games, line.wins) for line in lines]


# -- challenges ------------------------------------------------------------------------------


async def test_a_double_accept_starts_the_game_once(one: GameService, two: GameService) -> None:
    async def trial(where: Place) -> None:
        game = await challenge(one, where, first="random")
        accepts = (s.challenges.accept(game.id, where.guild_id, BOB) for s in (one, two))
        won = await one_wins(ServiceCode.NOT_OPEN, *accepts)
        (begins,) = events([won], GameStarted)
        stored = await two.lookups.game(game.id, where.guild_id)
        assert stored.status == "active" and stored.player_ids() == begins.players

    await in_each_place(trial)


async def test_the_loser_of_an_accept_race_is_told_why(one: GameService, two: GameService) -> None:
    game = await challenge(one, place(0))
    _, lost = await race(*(s.challenges.accept(game.id, game.guild_id, BOB) for s in (one, two)))
    assert str(lost[0]) == "This challenge was already accepted: the game is under way."


@pytest.mark.parametrize("closing", ["cancel", "decline"])
async def test_accept_racing_cancel_or_decline_does_one(
    one: GameService, two: GameService, closing: str
) -> None:
    async def trial(where: Place) -> None:
        game = await challenge(one, where)
        close = (
            two.challenges.cancel(game.id, where.guild_id, ANN)
            if closing == "cancel"
            else two.challenges.decline(game.id, where.guild_id, BOB)
        )
        won = await one_wins(
            ServiceCode.NOT_OPEN, one.challenges.accept(game.id, where.guild_id, BOB), close
        )
        stored = await one.lookups.game(game.id, where.guild_id)
        closed = {"cancel": "cancelled", "decline": "declined"}[closing]
        assert stored.status == ("active" if events([won], GameStarted) else closed)

    await in_each_place(trial)


async def test_two_joins_for_the_last_seat_seat_one(one: GameService, two: GameService) -> None:
    async def trial(where: Place) -> None:
        game = await challenge(one, where, opponents=[], open_seats=1)
        won = await one_wins(
            ServiceCode.NOT_OPEN,
            one.challenges.join(game.id, where.guild_id, CAT),
            two.challenges.join(game.id, where.guild_id, DAN),
        )
        stored = await one.lookups.game(game.id, where.guild_id)
        assert stored.status == "active"
        assert set(stored.player_ids()) == {ANN.id, won.events[0].player.id}

    await in_each_place(trial)


async def test_crossed_challenges_issued_and_accepted_at_once(
    one: GameService, two: GameService
) -> None:
    """A challenges B while B challenges A, then both accept: no deadlock, both start."""

    async def trial(where: Place) -> None:
        options = {"size": 3}
        (a_to_b, b_to_a), lost = await race(
            one.challenges.challenge(where, ANN, "hex", opponents=[BOB], options=options),
            two.challenges.challenge(where, BOB, "hex", opponents=[ANN], options=options),
        )
        assert not lost
        both, lost = await race(
            one.challenges.accept(a_to_b.game.id, where.guild_id, BOB),
            two.challenges.accept(b_to_a.game.id, where.guild_id, ANN),
        )
        assert not lost and [r.game.status for r in both] == ["active", "active"]

    await in_each_place(trial)


# -- the end of a game -----------------------------------------------------------------------


async def test_a_players_limits_hold_when_two_requests_come_at_once(
    database_url: str, clock: Clock
) -> None:
    """At most one open challenge and one game each: two challenges of one player at once,
    or two accepts of one player's invitations at once, must not both pass the count."""
    tight = [await open_service(database_url, clock, limit=1) for _ in range(2)]
    try:
        for trial in range(TRIALS):
            challenger = Player(3000 + 2 * trial, f"c{trial}")
            opponent = Player(3001 + 2 * trial, f"o{trial}")
            one_of_two = await one_wins(
                ServiceCode.LIMIT,
                tight[0].challenges.challenge(place(trial), challenger, "hex", opponents=[BOB]),
                tight[1].challenges.challenge(place(trial), challenger, "hex", opponents=[CAT]),
            )
            assert one_of_two.game.status == "open"
            invitations = [
                (
                    await service.challenges.challenge(
                        place(trial), inviter, "hex", opponents=[opponent]
                    )
                ).game
                for service, inviter in zip(
                    tight,
                    (Player(5000 + 2 * trial, "i"), Player(5001 + 2 * trial, "j")),
                    strict=True,
                )
            ]
            await one_wins(
                ServiceCode.LIMIT,
                *(
                    service.challenges.accept(game.id, game.guild_id, opponent)
                    for service, game in zip(tight, invitations, strict=True)
                ),
            )
    finally:
        for service in tight:
            await service.close()


async def test_a_double_resign_ends_the_game_once(one: GameService, two: GameService) -> None:
    async def trial(where: Place) -> None:
        game = await started(one, where)
        resigns = (s.play.resign(game.id, where.guild_id, ANN) for s in (one, two))
        won = await one_wins(Code.GAME_OVER, *resigns)
        assert len(events([won], GameOver)) == 1
        assert await rated(one, where) == [(1, 0), (1, 1)]

    await in_each_place(trial)


async def test_a_winning_move_racing_a_resignation(one: GameService, two: GameService) -> None:
    async def trial(where: Place) -> None:
        game = await started(one, where, days=None)
        for ply, text in enumerate(HEX_TO_WIN):
            await one.play.move(game.id, where.guild_id, (ANN, BOB)[ply % 2], text)
        won = await one_wins(
            Code.GAME_OVER,
            one.play.move(game.id, where.guild_id, ANN, "b2"),
            two.play.resign(game.id, where.guild_id, BOB),
        )
        (over,) = events([won], GameOver)
        stored = await one.lookups.game(game.id, where.guild_id)
        assert stored.reason == over.reason and stored.winners == (0,)
        assert await rated(one, where) == [(1, 1), (1, 0)]

    await in_each_place(trial)


async def test_two_games_ending_at_once_rate_both(one: GameService, two: GameService) -> None:
    """The same two players, the same server and game: no lost rating update, no
    collision on a new rating row."""

    async def trial(where: Place) -> None:
        first, second = await started(one, where), await started(two, where)
        both, lost = await race(
            one.play.resign(first.id, where.guild_id, ANN),
            two.play.resign(second.id, where.guild_id, BOB),
        )
        assert not lost and len(events(both, GameOver)) == 2
        assert await rated(one, where) == [(2, 1), (2, 1)]

    await in_each_place(trial)


@pytest.mark.parametrize("action", ["move", "resign"])
async def test_a_timeout_racing_a_move_or_a_resignation(
    one: GameService, two: GameService, clock: Clock, action: str
) -> None:
    """ANN's time runs out as she moves, or as BOB resigns: one of them counts."""
    games = {i: await started(one, place(i), days=1) for i in range(TRIALS)}
    clock.advance(days=1, seconds=1)
    claimed = await two.schedule.claim_deadlines("w", timedelta(minutes=5))
    timeouts = {c.game_id: c for c in claimed if c.kind == "timeout"}

    async def trial(where: Place) -> None:
        game = games[where.guild_id - 1000]
        won, lost = await race(
            one.play.move(game.id, where.guild_id, ANN, "b2")
            if action == "move"
            else one.play.resign(game.id, where.guild_id, BOB),
            two.schedule.act_on_deadline(timeouts[game.id], "w"),
        )
        stored = await one.lookups.game(game.id, where.guild_id)
        if lost:  # the timeout came first: the other is refused
            assert [r.code for r in lost] == [Code.GAME_OVER] and len(events(won, TimedOut)) == 1
            assert stored.reason == "time" and stored.ply == 0
        else:  # the other came first: the timeout is stale and says nothing
            assert won[1] is None and stored.reason == (None if action == "move" else "resignation")
        assert [played for played, _ in await rated(one, where)] == ([] if stored.ply else [1, 1])

    await in_each_place(trial)


# -- undo and settings -----------------------------------------------------------------------


async def test_a_double_accept_undo_refuses_the_second(one: GameService, two: GameService) -> None:
    async def trial(where: Place) -> None:
        game = await started(one, where)
        await one.play.move(game.id, where.guild_id, ANN, "b3")
        await one.play.request_undo(game.id, where.guild_id, ANN)
        answers = (
            s.play.answer_undo(game.id, where.guild_id, BOB, accept=True) for s in (one, two)
        )
        won = await one_wins(ServiceCode.NO_UNDO, *answers)
        (answer,) = events([won], UndoAnswered)
        assert answer.done and (await one.lookups.game(game.id, where.guild_id)).ply == 0

    await in_each_place(trial)


async def test_two_settings_calls_at_once_keep_both(one: GameService, two: GameService) -> None:
    async def trial(where: Place) -> None:
        await race(
            one.preferences.guild_settings(where.guild_id, channels=[where.channel_id]),
            two.preferences.guild_settings(where.guild_id, rated=False),
        )
        now = await one.preferences.guild_settings(where.guild_id)
        assert now.channels == (where.channel_id,) and now.rated is False
        player = Player(where.guild_id, "pat")
        await race(
            one.preferences.player_settings(player, reminders="dm"),
            two.preferences.player_settings(player, time_zone="Europe/Paris"),
        )
        mine = await one.preferences.player_settings(player)
        assert (mine.reminders, mine.time_zone) == ("dm", "Europe/Paris")

    await in_each_place(trial)


async def test_a_double_vacation_end_shifts_the_clock_once(
    one: GameService, two: GameService, clock: Clock
) -> None:
    games = [await started(one, place(i), days=3) for i in range(TRIALS)]
    await one.preferences.player_settings(ANN, vacation=True)
    clock.advance(days=1)
    await race(*(s.preferences.player_settings(ANN, vacation=False) for s in (one, two)))
    for game in games:
        stored = await one.lookups.game(game.id, game.guild_id)
        assert game.deadline is not None
        assert stored.deadline == game.deadline + timedelta(days=1)
    assert (await one.preferences.player_settings(ANN)).vacation_days_left == 13


async def test_a_vacation_running_out_while_its_player_wins(
    one: GameService, two: GameService, clock: Clock
) -> None:
    """The vacation's end moves the player's clocks while their winning move rates them:
    both take the game's row before the player's, so neither waits for the other."""
    away = [Player(300 + i, f"p{i}") for i in range(TRIALS)]
    games = []
    for i, player in enumerate(away):
        issued = await one.challenges.challenge(
            place(i), player, "hex", opponents=[BOB], options={"size": 3, "swap": "off"},
            first="challenger",
        )  # fmt: skip
        await one.challenges.accept(issued.game.id, issued.game.guild_id, BOB)
        for ply, text in enumerate(HEX_TO_WIN):
            await one.play.move(issued.game.id, issued.game.guild_id, (player, BOB)[ply % 2], text)
        await one.preferences.player_settings(player, vacation=True)
        games.append(issued.game)
    clock.advance(days=15)  # their 14 days have run out
    ended, lost = await race(
        one.schedule.end_vacations(),
        *(two.play.move(g.id, g.guild_id, p, "b2") for g, p in zip(games, away, strict=True)),
    )
    assert not lost and ended[0] == TRIALS
    assert all(r.game.status == "finished" for r in ended[1:])


# -- two processes ---------------------------------------------------------------------------

ACCEPT_ALL = """
import asyncio, sys
from bot.service import GameService, GameStarted, Player, Refused
from bot.settings import Settings
from bot.store import Database

async def main(url, guild, game_ids):
    settings = Settings(database_url=url, render_processes=0, _env_file=None)
    service = GameService(await Database.open(url), settings)
    print("ready", flush=True)
    await asyncio.to_thread(sys.stdin.readline)  # the go: both processes click at once

    async def accept(game_id):
        try:
            result = await service.challenges.accept(game_id, guild, Player(9002, "bob"))  # BOB
        except Refused as refusal:
            return f"refused {game_id} {refusal.code}"
        except Exception as error:
            return f"error {game_id} {type(error).__name__}"
        begins = [e.players for e in result.events if isinstance(e, GameStarted)]
        if not begins:
            return f"seated {game_id}"
        return f"started {game_id} {' '.join(map(str, begins[0]))}"

    for line in await asyncio.gather(*map(accept, game_ids)):
        print(line, flush=True)
    await service.close()

asyncio.run(main(sys.argv[1], int(sys.argv[2]), [int(a) for a in sys.argv[3:]]))
"""


async def test_two_processes_accepting_the_same_challenges_start_each_once() -> None:
    async with postgres_schema() as url:
        service = await open_service(url)
        try:
            where = place(0)
            ids = [(await challenge(service, where, first="random")).id for _ in range(30)]
            arguments = [url, str(where.guild_id), *map(str, ids)]
            outputs = await run_together(ACCEPT_ALL, [arguments, arguments])
            lines = [line.split() for out in outputs for line in out.splitlines()]
            assert sorted(int(words[1]) for words in lines) == sorted(ids * 2)
            starts = [w for w in lines if w[0] == "started"]
            assert sorted(int(w[1]) for w in starts) == sorted(ids)  # exactly one start each
            assert {(w[0], w[2]) for w in lines if w not in starts} == {("refused", "not_open")}
            for game_id, players in ((int(w[1]), tuple(map(int, w[2:]))) for w in starts):
                stored = await service.lookups.game(game_id, where.guild_id)
                assert stored.status == "active" and stored.player_ids() == players
        finally:
            await service.close()
