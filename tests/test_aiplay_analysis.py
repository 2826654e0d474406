"""The bot as an analyst and a helper: analyses stored, proven or estimated, never ahead of the
bot's moves and never of a position taken back; hints only where no other person shares the
game; jobs retried and cleaned up; the console playing the bot; the analysis chart on Discord.
Challenges and whole games: tests/test_aiplay.py."""

from __future__ import annotations

import asyncio
import contextlib
import io
import random
import threading
from collections.abc import AsyncIterator
from typing import Any

import pytest
import sqlalchemy as sa

from bot.console import Console
from bot.console import session as console_place
from bot.schedule import airunner
from bot.schedule.airunner import AiRunner
from bot.service import BotThinking, GameService, GameSummary, Place, Player, Refused, ServiceCode
from bot.service.core import jobs as aiqueue
from bot.service.play.aiplayer import AiPlay, think
from bot.service.play.moves import Play
from bot.settings import Settings
from bot.store import Database
from bot.store.schema import ai_jobs
from tests.aiplaykit import (
    GUILD,
    LATER,
    NODES,
    PLACE,
    Delivered,
    ai_world,
    bot_game,
    playing_the_bot,
)
from tests.aiplaykit import runner as runner
from tests.conftest import ANN, BOB, PATIENCE_SECONDS, Clock
from tests.fakediscord import FakeDiscord
from tests.fakediscord.fixtures import fake_discord_fixture  # noqa: F401  (the fixture)

# -- analysis and hints ----------------------------------------------------------------------------


async def human_game(
    service: GameService, moves: list[str], *, size: int = 4, **extra: Any
) -> GameSummary:
    issued = await service.challenges.challenge(
        PLACE, ANN, "hex", opponents=[BOB], options={"size": size, "swap": "off"},
        first="challenger", **extra,
    )  # fmt: skip
    game = (await service.challenges.accept(issued.game.id, GUILD, BOB)).game
    for i, move in enumerate(moves):
        game = (await service.play.move(game.id, GUILD, (ANN, BOB)[i % 2], move)).game
    return game


async def test_analysis_is_refused_for_a_game_under_way_between_people(
    service: GameService,
) -> None:
    game = await human_game(service, ["b2", "c3"])
    with pytest.raises(Refused) as refused:
        await service.analysis.analysis(game.id, GUILD)
    assert refused.value.code == ServiceCode.ENGINE_HELP and "cheating" in str(refused.value)
    async with service.records.db.read() as conn:
        assert await conn.scalar(sa.select(sa.func.count()).select_from(ai_jobs)) == 0


async def test_a_finished_games_analysis_is_stored_and_instant_the_second_time(
    service: GameService, runner: AiRunner, database_url: str, clock: Clock
) -> None:
    game = await human_game(service, ["a1", "b1", "a2", "b2", "a3", "b3", "a4"])
    assert game.status == "finished"
    first = await service.analysis.analysis(game.id, GUILD)
    assert not first.done and first.total == 8
    assert await runner.run_once() == 1
    done = await service.analysis.analysis(game.id, GUILD)
    assert done.done and done.progress == done.total == 8
    assert done.png.startswith(b"\x89PNG") and len(done.png) <= 200_000
    assert "move " in done.text and "forced win" in done.text
    # a restart: another service on the same database answers at once, with no worker
    settings = Settings(database_url=database_url, render_processes=0, _env_file=None)  # type: ignore[call-arg]
    again = GameService(await Database.open(database_url), settings, clock=clock)
    try:
        stored = await again.analysis.analysis(game.id, GUILD)
        assert stored.done and stored.text == done.text and stored.png == done.png
    finally:
        await again.close()


async def test_an_analysis_proves_what_the_solver_proves_and_calls_the_rest_estimates(
    service: GameService, runner: AiRunner
) -> None:
    """Hex 5x5 after c3: `paperboard ai hex --option size=5 --option swap=off --moves c3
    --solve` proves Black wins, but the analysis said "move 2 d2: White 33% -> 27%;
    better was b5" and "from move 4 Black had a forced win". It proves the positions
    from the last backwards now (the played move tried first, the solver's table kept),
    so the win is proven from the start and White's moves in a lost game are no swings."""
    record = ["c3", "d2", "a2", "c2", "b3", "c4", "a5", "b2", "a3", "e1", "a1", "a4", "b4"]
    game = await human_game(service, record, size=5)
    assert game.status == "finished"
    await service.analysis.analysis(game.id, GUILD)
    await runner.run_once()
    done = await service.analysis.analysis(game.id, GUILD)
    assert done.done
    assert done.text.splitlines() == [
        "no move changed the chances much",
        "Black had a forced win from the start (proven)",
    ]


async def test_the_bots_moves_never_wait_behind_an_analysis(
    service: GameService, runner: AiRunner, clock: Clock
) -> None:
    """An analysis takes a whole game's positions (minutes for a long one); a bot's move
    is seconds and a player waits for it: the two lanes are claimed apart, so the move
    is taken beside an analysis asked for earlier, and its player is told of no wait."""
    finished = await human_game(service, ["a1", "b1", "a2", "b2", "a3", "b3", "a4"])
    assert not (await service.analysis.analysis(finished.id, GUILD)).done
    clock.advance(seconds=1)
    game = await bot_game(service, "hex", {"size": 5, "swap": "off"})
    result = await service.play.move(game.id, GUILD, ANN, "a1")
    assert not [e for e in result.events if isinstance(e, BotThinking)]  # none ahead of it
    assert await runner.run_once() == 2  # one slot in each lane
    assert (await service.lookups.game(game.id, GUILD)).ply == 2  # the bot answered
    assert (await service.analysis.analysis(finished.id, GUILD)).done


@pytest.mark.both_backends
async def test_a_search_of_a_position_an_undo_took_back_is_never_committed(
    service: GameService,
) -> None:
    """A worker is still searching the bot's answer to b2 when Ann takes b2 back and
    plays e5; the same worker claims the new job. The old search must not be played
    (on SQLite a deleted job's id came back with attempts 1: the same claim token)."""
    game = await bot_game(service, "hex", {"size": 5, "swap": "off"})
    await service.play.move(game.id, GUILD, ANN, "b2")
    [old] = await aiqueue.claim(
        service.records.db, service.records.clock(), "worker", 2, analyses=False
    )
    stale = think("hex", {"size": 5, "swap": "off"}, ["b2"], "easy", nodes=NODES, seed=0)
    assert (await service.play.request_undo(game.id, GUILD, ANN)).game.ply == 0
    await service.play.move(game.id, GUILD, ANN, "e5")
    [new] = await aiqueue.claim(
        service.records.db, service.records.clock(), "worker", 2, analyses=False
    )
    assert (new.id, new.attempts) != (old.id, old.attempts)
    assert await service.play.play_for_bot(old, "worker", stale) is None
    assert (await service.lookups.state(game.id, GUILD)).moves == ("e5",)


async def test_a_move_job_a_worker_took_at_once_is_no_queue_for_its_player(
    service: GameService, clock: Clock
) -> None:
    """The runner is woken at the commit and often claims the bot's move before its
    player's answer is made: that job is not a queue ahead of itself."""
    game = await bot_game(service, "hex", {"size": 5, "swap": "off"})
    await service.play.move(game.id, GUILD, ANN, "a1")
    [claimed] = await aiqueue.claim(service.records.db, clock(), "worker-a", 1, analyses=False)
    async with service.records.db.read() as conn:
        row = await aiqueue.job_row(conn, game.id, "move", 1)
        assert row.id == claimed.id and await aiqueue.ahead_of(conn, row, clock()) == 0


async def test_an_analysis_that_keeps_failing_is_put_aside_until_asked_again(
    service: GameService, runner: AiRunner, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    finished = await human_game(service, ["a1", "b1", "a2", "b2", "a3", "b3", "a4"])
    await service.analysis.analysis(finished.id, GUILD)
    work_on = service.analysis.work_on

    async def broken(job: Any) -> Any:
        raise RuntimeError("a bug in the analysis")

    monkeypatch.setattr(service.analysis, "work_on", broken)
    claims = 0
    while await runner.run_once():  # each failed claim's lease runs out, then it is retried
        claims += 1
        clock.advance(seconds=LATER.total_seconds())
    assert claims == airunner.GIVE_UP_ATTEMPTS  # then put aside: no worker spent on it
    monkeypatch.setattr(service.analysis, "work_on", work_on)
    assert not (await service.analysis.analysis(finished.id, GUILD)).done  # asked again: queued
    assert await runner.run_once() == 1
    assert (await service.analysis.analysis(finished.id, GUILD)).done


async def test_hints_only_in_a_casual_game_against_the_bot(
    service: GameService, runner: AiRunner
) -> None:
    rated = await human_game(service, ["b2"], rated=True)
    with pytest.raises(Refused) as refused:
        await service.analysis.hint(rated.id, GUILD, BOB.id)
    assert refused.value.code == ServiceCode.NOT_AGAINST_BOT
    game = await bot_game(service, "hex", {"size": 4, "swap": "off"})
    asked = await service.analysis.hint(game.id, GUILD, ANN.id)
    assert asked.move is None
    assert await runner.run_once() == 1
    hint = await service.analysis.hint(game.id, GUILD, ANN.id)
    state = await service.lookups.state(game.id, GUILD)
    assert hint.move in state.legal_moves() and hint.png.startswith(b"\x89PNG")
    # the game against the bot may be analysed while it runs, by its player
    assert not (await service.analysis.analysis(game.id, GUILD, ANN.id)).done
    for someone in (BOB.id, None):  # anyone else: help for the player against the bot
        with pytest.raises(Refused) as refused:
            await service.analysis.analysis(game.id, GUILD, someone)
        assert refused.value.code == ServiceCode.ENGINE_HELP


async def test_no_help_where_another_person_shares_the_game_with_the_bot(
    service: GameService,
) -> None:
    """Making Intersections with Ann, Bob and the bot: neither hint nor analysis while it
    runs, for either of them or anyone else, and nothing is queued."""
    issued = await service.challenges.challenge(
        PLACE, ANN, "intersections", opponents=[BOB], options={"size": 4}, bots=["easy"],
        first="challenger",
    )  # fmt: skip
    game = (await service.challenges.accept(issued.game.id, GUILD, BOB)).game
    assert game.status == "active" and game.player_to_move == ANN.id
    for asker in (ANN, BOB):
        with pytest.raises(Refused) as refused:
            await service.analysis.hint(game.id, GUILD, asker.id)
        assert refused.value.code == ServiceCode.NOT_AGAINST_BOT
    for someone in (ANN.id, BOB.id, 999, None):
        with pytest.raises(Refused) as refused:
            await service.analysis.analysis(game.id, GUILD, someone)
        assert refused.value.code == ServiceCode.ENGINE_HELP and "cheating" in str(refused.value)
    async with service.records.db.read() as conn:
        kinds = (await conn.scalars(sa.select(ai_jobs.c.kind))).all()
    assert "hint" not in kinds and "analysis" not in kinds


async def test_a_hint_the_worker_gave_up_on_is_asked_again(
    service: GameService, runner: AiRunner
) -> None:
    """A hint job finished with nothing (the game had moved on, then came back to this
    position by an undo) is queued again, not waited on forever."""
    game = await bot_game(service, "hex", {"size": 4, "swap": "off"})
    assert (await service.analysis.hint(game.id, GUILD, ANN.id)).move is None
    async with service.records.db.write() as conn:
        job = await aiqueue.job_row(conn, game.id, "hint", 0)
        await aiqueue.finish(conn, job.id, service.records.clock())  # no result
    assert (await service.analysis.hint(game.id, GUILD, ANN.id)).move is None  # queued again
    assert await runner.run_once() == 1
    assert (await service.analysis.hint(game.id, GUILD, ANN.id)).move is not None


async def test_after_an_undo_hints_and_analyses_are_of_the_moves_played_now(
    service: GameService,
) -> None:
    """An undo takes the hints and analyses of the positions taken back with them: the
    game comes back to the same ply another way, and the old hint's cell is taken.
    (6x6: on a smaller board the bot may resign a lost game at once. Few simulations: an
    analysis gives the solver a budget in proportion, and a 6x6 proof attempt of 100
    nodes takes seconds per position.)"""
    runner = AiRunner(service, Delivered(service), processes=0, nodes=2)
    try:
        game = await bot_game(service, "hex", {"size": 6, "swap": "off"})
        await service.play.move(game.id, GUILD, ANN, "a1")
        assert await runner.run_once() == 1  # the bot's answer
        await service.analysis.hint(game.id, GUILD, ANN.id)
        await service.analysis.analysis(game.id, GUILD, ANN.id)
        assert await runner.run_once() + await runner.run_once() == 2
        old_hint = (await service.analysis.hint(game.id, GUILD, ANN.id)).move
        old_analysis = await service.analysis.analysis(game.id, GUILD, ANN.id)
        assert old_hint is not None and old_analysis.done
        assert (
            await service.play.request_undo(game.id, GUILD, ANN)
        ).game.ply == 0  # granted at once
        await service.play.move(game.id, GUILD, ANN, old_hint)
        assert await runner.run_once() == 1  # ply 2 again, in another position
        assert (
            await service.analysis.hint(game.id, GUILD, ANN.id)
        ).move is None  # thought about afresh
        assert not (await service.analysis.analysis(game.id, GUILD, ANN.id)).done
        assert await runner.run_once() + await runner.run_once() == 2
        state = await service.lookups.state(game.id, GUILD)
        assert (await service.analysis.hint(game.id, GUILD, ANN.id)).move in state.legal_moves()
        analysis = await service.analysis.analysis(game.id, GUILD, ANN.id)
        assert analysis.done and "move 1 a1" not in analysis.text  # a1 was taken back
    finally:
        await runner.stop()


@pytest.mark.both_backends
async def test_finished_move_and_hint_jobs_are_cleaned_up_after_a_day(
    service: GameService, runner: AiRunner, clock: Clock
) -> None:
    game = await bot_game(service, "hex", {"size": 4, "swap": "off"})
    await service.play.move(game.id, GUILD, ANN, "b2")
    assert await runner.run_once() == 1  # the bot's move
    await service.analysis.hint(game.id, GUILD, ANN.id)
    assert await runner.run_once() == 1
    waiting = await bot_game(service, "hex", {"size": 4, "swap": "off"})
    await service.play.move(waiting.id, GUILD, ANN, "b2")  # its move job stays queued
    assert await service.schedule.cleanup_ai_jobs() == 0  # finished, but not a day ago
    clock.advance(days=1, seconds=1)
    assert await service.schedule.cleanup_ai_jobs() == 2  # the bot's move and the hint
    async with service.records.db.read() as conn:
        left = (await conn.execute(sa.select(ai_jobs.c.game_id, ai_jobs.c.done))).all()
    assert left == [(waiting.id, False)]


@contextlib.asynccontextmanager
async def console_with_the_bot(
    tmp_path: Any,
) -> AsyncIterator[tuple[GameService, Console, io.StringIO]]:
    """A console on its own SQLite file whose AI runner plays the bot (NODES a search)."""
    url = f"sqlite:///{tmp_path / 'pb.db'}"
    settings = Settings(database_url=url, render_processes=0, _env_file=None)  # type: ignore[call-arg]
    service = GameService(await Database.open(url), settings, rng=random.Random(3))
    out = io.StringIO()
    try:
        async with playing_the_bot(Console(service, out, tmp_path / "boards")) as console:
            yield service, console, out
    finally:
        await service.close()


async def test_the_console_plays_the_bot_and_analyses_the_game(tmp_path: Any) -> None:
    async with console_with_the_bot(tmp_path) as (_, console, out):
        lines = ["challenge hex @ai level=easy size=3 swap=off first=challenger", "b2"]
        await console.run(lines)
        text = out.getvalue()
        assert "@Paperboard (easy)" in text and "resign" in text  # proven lost: it resigns
        await console.run(["hint", "analysis 1", "rating @ai", "rating @Paperboard", "rating"])
        text = out.getvalue()
        assert text.count("Hex: easy 0 won 1 lost") == 2  # @ai and @Paperboard: the bot
        # the player's own casual games against the bot, which no rating counts
        assert "player has no rated games yet.\nHex against the bot: easy 1 won 0 lost" in text
        assert "Hints are for your casual games" not in text
        assert "Analysis of Hex #1" in text and "Chart:" in text
        assert (tmp_path / "boards" / "game-1-analysis.png").exists()


async def test_the_console_lets_the_bot_move_whenever_its_turn_comes(tmp_path: Any) -> None:
    """Not only after a move: a rematch that seats the bot first, and a session started
    while the bot owed a move (the last one ended during its search)."""
    async with console_with_the_bot(tmp_path) as (service, console, _):
        lines = ["challenge hex @ai level=easy size=6 swap=off first=challenger", "c3"]
        await console.run([*lines, "resign", "y", "rematch"])
        rematch = await service.lookups.game(2, console_place.GUILD)
        assert rematch.status == "active" and rematch.ply == 1  # the bot opened it
        place = Place(console_place.GUILD, console_place.CHANNEL)
        owed = await service.challenges.challenge(
            place, console.me, "hex", options={"size": 6, "swap": "off"}, bots=["easy"],
            first="opponent",
        )  # fmt: skip
        assert owed.game.status == "active" and owed.game.ply == 0
        await console.run([])
        assert (await service.lookups.game(owed.game.id, console_place.GUILD)).ply == 1


async def test_at_a_terminal_the_console_answers_while_the_bot_thinks(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A search of a minute (level max) holds nothing: the player types on, and the bot's
    move is printed when it comes."""
    released = threading.Event()

    def held_search(*args: Any) -> Any:
        released.wait(timeout=60)  # the search "takes" until the test lets it finish
        return think(*args)

    monkeypatch.setattr(airunner, "think", held_search)
    async with console_with_the_bot(tmp_path) as (service, console, out):
        lines = ["challenge hex @ai level=easy size=5 swap=off first=challenger", "a1"]
        await console.run([*lines, "rules hex", "games"], interactive=True)
        said = out.getvalue()
        assert "@Paperboard (easy) is thinking about its move in Hex #1." in said
        assert "Hex (2 players)" in said  # the rules card, while the bot thinks
        assert "#1 Hex active: player vs Paperboard (easy), move 1, " in said, said
        assert "@Paperboard (easy) played" not in said
        released.set()
        for _ in range(600):  # the bot's move comes in its own time
            if "@Paperboard (easy) played" in out.getvalue():
                break
            await asyncio.sleep(0.05)
        assert out.getvalue().count("@Paperboard (easy) played") == 1
        assert (await service.lookups.game(1, console_place.GUILD)).ply == 2


async def test_a_piped_script_sees_the_bots_reply_before_its_next_line(tmp_path: Any) -> None:
    async with console_with_the_bot(tmp_path) as (_, console, out):
        lines = ["challenge hex @ai level=easy size=5 swap=off first=challenger", "a1", "games"]
        await console.run(lines)
        said = out.getvalue().splitlines()
        played = next(i for i, line in enumerate(said) if "@Paperboard (easy) played" in line)
        listed = next(i for i, line in enumerate(said) if line.startswith("#1 Hex active"))
        assert played < listed and ", move 2, " in said[listed], said


async def test_analysis_on_discord_edits_one_message_into_the_chart(
    fake_discord: FakeDiscord, tmp_path: Any, clock: Clock
) -> None:
    async with ai_world(fake_discord, f"sqlite:///{tmp_path / 'bot.db'}", clock) as world:
        ann, bob = (Player(world.users[n].id, n) for n in ("ann", "bob"))
        place = Place(world.guild.id, world.channel.id)
        issued = await world.service.challenges.challenge(
            place, ann, "hex", opponents=[bob], options={"size": 4, "swap": "off"},
            first="challenger",
        )  # fmt: skip
        game = (await world.service.challenges.accept(issued.game.id, world.guild.id, bob)).game
        async with world.running():
            user = world.users["ann"]
            handle = await world.fake.slash(
                user, "analysis", {"game": game.id}, channel=world.channel
            )
            refused = await handle.reply()
            assert refused.ephemeral and "cheating" in refused.content
            for i, move in enumerate(["a1", "b1", "a2", "b2", "a3", "b3", "a4"]):
                await world.service.play.move(game.id, world.guild.id, (ann, bob)[i % 2], move)
            handle = await world.fake.slash(
                user, "analysis", {"game": game.id}, channel=world.channel
            )
            message = await handle.reply()
            assert not message.ephemeral
            await world.fake.wait_for(
                lambda: bool(message.files), PATIENCE_SECONDS, what="the chart"
            )
            assert f"Analysis of Hex #{game.id}" in message.content
            (png,) = message.files.values()
            assert png.startswith(b"\x89PNG") and len(png) <= 200_000


async def test_a_move_that_leaves_the_bot_to_move_calls_the_hook_before_the_board(
    service: GameService,
) -> None:
    """`Play.on_bot_turn` is the one hook (no method a subclass overrides): a person's move
    that leaves the bot to move calls it once, before the player's board is drawn; a move
    after which a person moves does not."""
    assert "on_bot_turn" in vars(Play) and not hasattr(Play, "committed")
    assert not {"on_bot_turn", "committed"} & set(vars(AiPlay))
    heard: list[str] = []
    drawing = service.records.render

    async def render(*args: Any, **kwargs: Any) -> bytes:
        heard.append("board")
        return await drawing(*args, **kwargs)

    service.records.render = render  # type: ignore[method-assign]
    service.play.on_bot_turn = lambda: heard.append("bot")
    game = await bot_game(service, "hex", {"size": 4, "swap": "off"})
    await service.play.move(game.id, GUILD, ANN, "b2")
    assert heard == ["bot", "board"]
    people = await service.challenges.challenge(
        PLACE, ANN, "hex", opponents=[BOB], first="challenger"
    )
    await service.challenges.accept(people.game.id, GUILD, BOB)
    heard.clear()
    await service.play.move(people.game.id, GUILD, ANN, "b2")
    assert heard == ["board"]
