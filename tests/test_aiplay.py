"""The bot as an opponent: challenges, whole games of every game at a tiny search budget, undo
and rematch against it, and challenging it on the fake Discord. Its moves exactly once after a
restart or a kill -9 and with two processes: tests/test_aiplay_once.py; analyses and hints:
tests/test_aiplay_analysis.py."""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import pytest
import sqlalchemy as sa

from bot.schedule.airunner import AiRunner
from bot.service import (
    BotThinking,
    Code,
    GameService,
    GameSummary,
    Player,
    Refused,
    Result,
    ServiceCode,
    UndoAnswered,
    bot_record_lines,
    describe,
    local_time,
    taken_back_text,
)
from bot.service.core import levels
from bot.service.core.levels import LEVELS, Level, bot_name, bot_player
from bot.service.play.aiplayer import think
from bot.settings import Settings
from bot.store import Database
from bot.store.schema import ai_jobs
from tests.aiplaykit import GUILD, NODES, PLACE, Delivered, ai_world, bot_game, bot_moves
from tests.aiplaykit import runner as runner
from tests.conftest import ANN, BOB, PATIENCE_SECONDS, Clock, cpu_clock, kept_time
from tests.discordkit import play_typed, settled_game
from tests.fakediscord import FakeDiscord
from tests.fakediscord.fixtures import fake_discord_fixture  # noqa: F401  (the fixture)


async def play_out(service: GameService, runner: AiRunner, game_id: int, seed: int) -> GameSummary:
    """Ann plays random legal moves, the bot answers, until the game ends."""
    rng = random.Random(seed)
    for _ in range(2_000):
        game = await service.lookups.game(game_id, GUILD)
        if game.status != "active":
            return game
        assert game.to_move is not None
        if game.seats[game.to_move].bot is None:
            state = await service.lookups.state(game_id, GUILD)
            await service.play.move(game_id, GUILD, ANN, rng.choice(state.legal_moves()))
        else:
            assert await runner.run_once() == 1
    raise AssertionError("the game did not end")


# -- challenging the bot ----------------------------------------------------------------------


async def test_the_bot_takes_its_seat_at_once_and_the_game_is_casual(service: GameService) -> None:
    game = await bot_game(service, "hex", {"size": 5, "swap": "off"}, level="hard")
    assert game.status == "active" and not game.rated
    assert [s.bot for s in game.seats] == [None, "hard"]
    assert (
        game.seats[1].player_id == LEVELS["hard"].id and game.seats[1].name == "Paperboard (hard)"
    )


async def test_a_stored_game_keeps_its_level_when_levels_are_reordered_or_added(
    service: GameService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Seats hold the bot's player id: a level's own id, so a new level first and the
    others reversed hand no stored game to another level."""
    stored = {
        level: await bot_game(service, "hex", {"size": 5, "swap": "off"}, level=level)
        for level in LEVELS
    }
    newcomer = Level(6, "novice", 1.0, 10, 0.5, "a few simulations, and many random moves")
    monkeypatch.setattr(levels, "LEVELS", levels.levels_of(newcomer, *reversed(LEVELS.values())))
    for level, game in stored.items():
        seat = (await service.lookups.game(game.id, GUILD)).seats[1]
        assert seat.bot == level, level
        assert bot_name(seat.player_id or 0) == seat.name == f"Paperboard ({level})", level
        assert bot_player(level).id == seat.player_id, level  # new games: the same player
    assert bot_name(bot_player("novice").id) == "Paperboard (novice)"


def test_each_level_has_a_name_and_an_id_of_its_own_in_the_bots_range() -> None:
    easy = LEVELS["easy"]
    for clash in (
        dataclasses.replace(easy, name="easier"),  # easy's id
        dataclasses.replace(easy, id=7),  # easy's name
        dataclasses.replace(easy, id=100, name="far"),  # a person's id
    ):
        with pytest.raises(ValueError):
            levels.levels_of(*LEVELS.values(), clash)


async def test_no_person_takes_an_id_in_the_bots_range(service: GameService) -> None:
    """Discord's and the console's ids are far above it; one there would read as the bot."""
    for person in (Player(LEVELS["easy"].id, "mallory"), Player(50, "mallory")):
        with pytest.raises(Refused) as refused:
            await service.challenges.challenge(PLACE, person, "hex", opponents=[BOB])
        assert refused.value.code == ServiceCode.BAD_ID
        with pytest.raises(Refused):
            await service.preferences.player_settings(person, reminders="dm")


async def test_the_bot_refuses_rated_games_and_unknown_levels(service: GameService) -> None:
    with pytest.raises(Refused) as rated:
        await service.challenges.challenge(PLACE, ANN, "hex", bots=["easy"], rated=True)
    assert rated.value.code == ServiceCode.UNRATED
    with pytest.raises(Refused) as level:
        await service.challenges.challenge(PLACE, ANN, "hex", bots=["grandmaster"])
    assert level.value.code == Code.BAD_OPTION and "beginner" in str(level.value)
    assert await service.lookups.games(GUILD) == []


GAMES = [
    ("hex", {"size": 4, "swap": "off"}, 1),
    ("hex", {"size": 3}, 1),  # the swap: the bot may take it
    ("disthex", {"size": 4}, 1),
    ("hotwire", {"size": "4x4"}, 1),
    ("shortcircuit", {"size": 3, "max_turns": 16}, 1),
    ("livewire", {"size": "17x14"}, 1),
    ("intersections", {"size": 3}, 2),  # bot seats next to a person
]


@pytest.mark.parametrize(("game", "options", "bots"), GAMES)
async def test_a_whole_game_against_the_bot(
    tmp_path: Any, game: str, options: dict[str, Any], bots: int
) -> None:
    url = f"sqlite:///{tmp_path / 'pb.db'}"
    settings = Settings(database_url=url, render_processes=0, _env_file=None)  # type: ignore[call-arg]
    service = GameService(await Database.open(url), settings, clock=Clock(), rng=random.Random(3))
    delivered = Delivered(service)
    ai = AiRunner(service, delivered, processes=0, nodes=NODES)
    try:
        started = await bot_game(service, game, options, bots=bots)
        over = await play_out(service, ai, started.id, seed=5)
        assert over.status == "finished"
        record = await bot_moves(service)
        bot_seats = {s.seat for s in over.seats if s.bot is not None}
        played = [r for r in record if r.seat in bot_seats and r.text != "pass"]
        assert played, "the bot made moves"
        # each bot turn was announced once, as a move with the board after it
        announced = [
            e for r in delivered.results for e in r.events if type(e).__name__ == "MovePlayed"
        ]
        assert 0 < len(announced) <= len(played)
        async with service.records.db.read() as conn:
            waiting = await conn.scalar(
                sa.select(sa.func.count()).select_from(ai_jobs).where(ai_jobs.c.done == sa.false())
            )
        assert waiting == 0
    finally:
        await ai.stop()
        await service.close()


async def test_the_bot_moves_first_when_it_has_the_first_seat(
    service: GameService, runner: AiRunner
) -> None:
    result = await service.challenges.challenge(
        PLACE, ANN, "hex", options={"size": 4, "swap": "off"}, bots=["easy"], first="opponent"
    )
    assert result.game.seats[0].bot == "easy" and result.game.to_move == 0
    assert await runner.run_once() == 1
    game = await service.lookups.game(result.game.id, GUILD)
    assert game.ply == 1 and game.to_move == 1


async def test_the_record_keeps_the_bots_name_apart_from_its_move(
    service: GameService, runner: AiRunner
) -> None:
    """ "Paperboard (beginner)" is longer than most names: the moves still stand in a
    column of their own, two spaces after the longest name."""
    game = await bot_game(service, "hex", {"size": 4, "swap": "off"}, level="beginner")
    await service.play.move(game.id, GUILD, ANN, "b2")
    assert await runner.run_once() == 1
    *_, first, second = (await service.lookups.record(game.id, GUILD)).text.splitlines()
    played = [row.text for row in await bot_moves(service)]
    names = [seat.name or "" for seat in game.seats]
    assert names[1] == "Paperboard (beginner)"
    column = first.rindex(played[0])
    for line, name, move in zip((first, second), names, played, strict=True):
        assert line.endswith(move) and line.rindex(move) == column, (first, second)
        assert line[:column].rstrip().endswith(name) and line[:column].endswith("  ")


async def test_undo_against_the_bot_is_granted_at_once(
    service: GameService, runner: AiRunner
) -> None:
    game = await bot_game(service, "hex", {"size": 4, "swap": "off"})
    await service.play.move(game.id, GUILD, ANN, "b2")
    await runner.run_once()
    assert (await service.lookups.game(game.id, GUILD)).ply == 2
    reply = (await service.lookups.state(game.id, GUILD)).moves[1]
    result = await service.play.request_undo(game.id, GUILD, ANN)
    names = [type(e).__name__ for e in result.events]
    assert names[0] == "UndoAnswered" and result.game.ply == 0
    assert result.game.to_move == 0  # Ann's move and the bot's answer are taken back
    undone = result.events[0]
    assert isinstance(undone, UndoAnswered)
    said = describe(undone, result.game, lambda pid: f"@{pid}", local_time)
    assert said == f"@{ANN.id}'s move b2 and the bot's reply {reply} in Hex #1 were taken back."
    assert taken_back_text(undone, result.game, str, you=ANN.id) == (
        f"Your move b2 and the bot's reply {reply} were taken back."
    )
    assert await runner.run_once() == 0  # the old job is stale: nothing for the bot to do


async def test_an_undo_with_people_and_the_bot_waits_for_the_people_only(
    service: GameService, runner: AiRunner
) -> None:
    """The bot agrees in the request itself: the request (with its buttons) is what is
    announced, waiting for Bob alone; his answer takes the move back."""
    issued = await service.challenges.challenge(
        PLACE, ANN, "intersections", opponents=[BOB], options={"size": 4}, bots=["easy"],
        first="challenger",
    )  # fmt: skip
    game = (await service.challenges.accept(issued.game.id, GUILD, BOB)).game
    ann_seat = game.seat_of(ANN.id)
    while (await service.lookups.game(game.id, GUILD)).to_move != ann_seat:  # to Ann's first move
        await take_turn(service, runner, game.id)
    state = await service.lookups.state(game.id, GUILD)
    await service.play.move(game.id, GUILD, ANN, state.legal_moves()[0])
    asked = await service.play.request_undo(game.id, GUILD, ANN)
    [request] = asked.events
    assert type(request).__name__ == "UndoRequested"
    assert request.waiting_for == (BOB.id,)  # type: ignore[attr-defined]
    ply = asked.game.ply
    done = await service.play.answer_undo(game.id, GUILD, BOB, accept=True)
    assert done.events[0].done and done.game.ply < ply  # type: ignore[attr-defined]
    said = describe(done.events[0], done.game, lambda pid: f"@{pid}", local_time)
    assert said.startswith(f"@{ANN.id}'s move ") and said.endswith(" taken back by agreement.")


async def take_turn(service: GameService, runner: AiRunner, game_id: int) -> None:
    """Whoever is to move plays: the bot by its runner, a person their first legal move."""
    game = await service.lookups.game(game_id, GUILD)
    seat = game.seats[game.to_move or 0]
    if seat.bot is not None:
        assert await runner.run_once() == 1
        return
    person = Player(seat.player_id or 0, seat.name or "")
    state = await service.lookups.state(game_id, GUILD)
    await service.play.move(game_id, GUILD, person, state.legal_moves()[0])


async def test_an_undo_the_bots_move_overtook_is_refused_and_never_posted(
    service: GameService, runner: AiRunner, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = await bot_game(service, "hex", {"size": 6, "swap": "off"})
    await service.play.move(game.id, GUILD, ANN, "b2")

    async def overtaken(*args: Any, **kwargs: Any) -> Result:
        assert await runner.run_once() == 1  # the bot's move lands between the two
        raise Refused("There is no undo request waiting for an answer.", code=ServiceCode.NO_UNDO)

    monkeypatch.setattr(service.play, "answer_undo", overtaken)
    with pytest.raises(Refused) as refused:
        await service.play.request_undo(game.id, GUILD, ANN)
    assert str(refused.value) == "The bot moved while you asked; ask for the undo again."
    clock.advance(minutes=5)
    posted: list[Result] = []

    async def keep(result: Result) -> None:
        posted.append(result)

    await service.outbox.redeliver(keep)
    assert not any(type(e).__name__ == "UndoRequested" for r in posted for e in r.events)


def test_the_levels_counted_in_simulations_answer_in_their_time_on_any_board() -> None:
    """easy's 1,000 simulations took minutes on Hot Wire 19x19 with any lengths (0.4 s a
    simulation): the level's second stops it there; a lone legal move is not searched."""
    for level in ("beginner", "easy"):
        with cpu_clock() as clock:
            began = clock()
            decision = think("hotwire", {"size": "19x19", "lengths": "any"}, [], level, seed=1)
            took = clock() - began
        assert kept_time(took, LEVELS[level].seconds)  # not 1,000 simulations' 400 s
        assert len(decision.texts) == 1 and not decision.resign


async def test_a_rematch_against_the_bot_starts_at_once(
    service: GameService, runner: AiRunner
) -> None:
    game = await bot_game(service, "hex", {"size": 3, "swap": "off"}, level="easy")
    await service.play.move(game.id, GUILD, ANN, "b2")
    await runner.run_once()  # the bot resigns a proven loss
    again = await service.challenges.rematch(game.id, GUILD, ANN)
    assert again.game.status == "active" and [s.bot for s in again.game.seats] == ["easy", None]
    assert await runner.run_once() == 1  # the seats rotated: the bot moves first now
    assert (await service.lookups.game(again.game.id, GUILD)).ply == 1


async def test_the_bot_resigns_only_a_proven_loss() -> None:
    # Hex 3x3 with Black in the centre is a proven win for Black
    lost = think("hex", {"size": 3, "swap": "off"}, ["b2"], "medium", nodes=50, seed=1)
    assert lost.resign and lost.texts == ()
    fine = think("hex", {"size": 5, "swap": "off"}, ["a1"], "medium", nodes=50, seed=1)
    assert not fine.resign and len(fine.texts) == 1
    # 9x9, far too big for the solver: Black's chain down column a lacks a5 and
    # holds b4, so a5 and b5 each complete it; the search's tree proves the loss.
    record = [move for row in (1, 2, 3, 4, 6, 7, 8, 9) for move in (f"a{row}", f"c{row}")]
    doubled = think("hex", {"size": 9, "swap": "off"}, [*record, "b4"], "medium", nodes=50, seed=1)
    assert doubled.resign and doubled.texts == ()


def test_the_bot_plays_a_lost_opening_on_that_only_the_book_proves_lost() -> None:
    # 7x7: d4 wins for Black, and the opening book holds a winning answer to every reply
    # of White's. Theory the opponent may not know: the bot plays on, and a won
    # opening it answers with the book's winning reply.
    lost = think("hex", {"size": 7, "swap": "off"}, ["d4"], "medium", nodes=50, seed=1)
    assert not lost.resign and len(lost.texts) == 1
    won = think("hex", {"size": 7, "swap": "off"}, ["a1"], "medium", nodes=50, seed=1)
    assert won.texts == ("c5",)


async def test_each_level_keeps_its_own_record(service: GameService, runner: AiRunner) -> None:
    game = await bot_game(service, "hex", {"size": 3, "swap": "off"}, level="easy")
    await service.play.move(game.id, GUILD, ANN, "b2")
    await runner.run_once()  # proven lost: the bot resigns
    over = await service.lookups.game(game.id, GUILD)
    assert over.status == "finished" and over.reason == "resignation"
    assert await service.play.bot_records(GUILD) == [("easy", "hex", 0, 1, 0)]
    assert bot_record_lines(await service.play.bot_records(GUILD)) == ["Hex: easy 0 won 1 lost"]
    assert await service.lookups.leaderboard(GUILD, "hex") == []  # casual: no ratings


# -- through the fake Discord --------------------------------------------------------------------


async def test_challenging_the_bot_on_discord_gets_its_moves_in_the_thread(
    fake_discord: FakeDiscord, tmp_path: Any, clock: Clock
) -> None:
    async with (
        ai_world(fake_discord, f"sqlite:///{tmp_path / 'bot.db'}", clock) as world,
        world.running(),
    ):
        ann = world.users["ann"]
        options = {"game": "hex", "size": "5", "options": "swap=off", "first": "challenger"}
        handle = await world.fake.slash(
            ann, "challenge", {**options, "opponent": world.fake.bot}, channel=world.channel
        )
        message = await handle.reply()
        assert "Paperboard (medium)" in message.content and not message.custom_ids
        [game] = await world.service.lookups.games(world.guild.id, status="active")
        assert game.seats[1].bot == "medium"
        game = await settled_game(world, game.id, lambda g: g.thread_id is not None, "a thread")
        await play_typed(world, game, "a1")
        thread = world.thread(game)
        await world.fake.wait_for(
            lambda: any("Paperboard (medium)** played" in m.content for m in thread.messages),
            timeout=PATIENCE_SECONDS,
            what="the bot's move",
        )
        answer = next(m for m in thread.messages if "** played" in m.content)
        assert answer.files and f"<@{ann.id}>" in answer.content  # the board, Ann's turn
        assert (await world.game(game.id)).ply == 2
        undo = await (await world.fake.slash(ann, "undo", {}, channel=thread)).reply()
        assert undo.content.startswith("Your move a1 and the bot's reply ")  # granted at once
        assert undo.content.endswith(" were taken back.")
        assert (await world.game(game.id)).ply == 0
        await play_typed(world, game, "a1")
        handle = await world.fake.slash(ann, "rating", {"player": world.fake.bot})
        assert "Nobody here has finished a game against me yet." in (await handle.reply()).content
        await world.service.play.resign(game.id, world.guild.id, Player(ann.id, ann.username))
        handle = await world.fake.slash(ann, "rating", {"player": world.fake.bot, "game": "hex"})
        assert "Hex: medium 1 won 0 lost" in (await handle.reply()).content
        mine = (await (await world.fake.slash(ann, "rating", {})).reply()).content
        assert "No rated games here yet.\nHex against the bot: medium 0 won 1 lost" in mine
        # a level without a mention is a game against the bot too
        handle = await world.fake.slash(
            ann, "challenge", {**options, "level": "beginner"}, channel=world.channel
        )
        assert "Paperboard (beginner)" in (await handle.reply()).content
        # other bots still cannot play
        other = world.fake.create_user("otherbot", bot=True)
        handle = await world.fake.slash(
            ann, "challenge", {**options, "opponent": other}, channel=world.channel
        )
        assert "Other bots can't play" in (await handle.reply()).content


async def test_a_player_hears_when_to_expect_the_move_when_the_queue_is_long(
    service: GameService, clock: Clock
) -> None:
    told = []
    for _ in range(3):
        game = await bot_game(service, "hex", {"size": 5, "swap": "off"}, level="hard")
        clock.advance(seconds=1)
        result = await service.play.move(game.id, GUILD, ANN, "a1")
        told.append([e for e in result.events if isinstance(e, BotThinking)])
    assert told[0] == []  # a worker is free (AI_PROCESSES=1): nothing to say
    [notice] = told[2]
    assert notice.ahead == 2 and notice.seconds == 30  # two 10 s searches first, then its own
    line = describe(notice, result.game, str, str)
    assert "2 searches" in line and "30 seconds" in line
