"""Several processes on one PostgreSQL: news between them (LISTEN/NOTIFY), the process
names that hold leases, and real processes starting together, sharing the AI's work
with `paperboard worker` and dying between a commit and its announcement."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
from collections.abc import AsyncIterator, Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
import yaml
from alembic.config import Config
from alembic.script import ScriptDirectory
from sqlalchemy.engine import make_url

from bot.cli import build_parser, start, start_worker
from bot.discordbot.client import shard_name
from bot.schedule import Scheduler
from bot.schedule.airunner import AiRunner
from bot.service import GameService, Result
from bot.service.core import outbox
from bot.settings import Settings
from bot.store import Database, notify
from bot.store.database import MIGRATIONS
from bot.store.schema import ai_jobs
from bot.store.schema import outbox as outbox_table
from tests.conftest import ANN, BOB, ROOT, fresh_database, postgres_schema
from tests.fakediscord import FakeDiscord
from tests.fakediscord.fixtures import SUITE_ACK_TIMEOUT
from tests.fleet import PATIENCE, Fleet, fleet_on, until
from tests.servicekit import GUILD, PLACE

pytestmark = pytest.mark.both_backends

NODES = 20  # simulations per search: fast and deterministic
NEVER = timedelta(hours=1)  # a poll or a pass that never comes within a test


def settings_for(url: str, **changes: Any) -> Settings:
    return Settings(database_url=url, render_processes=0, _env_file=None, **changes)  # type: ignore[call-arg]


# -- news between processes (in one test process: each Database is one process's pools) -------


async def test_news_is_heard_when_its_transaction_commits_and_only_in_its_schema() -> None:
    async with postgres_schema() as url, postgres_schema() as elsewhere:
        listening, telling, other = Database(url), Database(url), Database(elsewhere)
        heard: list[str] = []
        try:
            assert await listening.listen("ai", lambda detail: heard.append(f"ai {detail}"))
            assert await listening.listen("outbox", lambda detail: heard.append(f"outbox {detail}"))
            with contextlib.suppress(RuntimeError):
                async with telling.write() as conn:
                    await notify(conn, "ai")
                    telling.after_commit(conn, lambda: heard.append("committed"))
                    raise RuntimeError("rolled back: nothing is sent")
            async with other.write() as conn:
                await notify(conn, "ai")  # another schema on the same database
            async with telling.write() as conn:
                await notify(conn, "outbox", "7")  # with a detail (a game's id)
                telling.after_commit(conn, lambda: heard.append("committed"))

            async def arrived() -> bool:
                return len(heard) > 1

            # PostgreSQL delivers in commit order: the other two came first, if at all
            await until(arrived, "the notification")
            assert sorted(heard) == ["committed", "outbox 7"]
        finally:
            for database in (listening, telling, other):
                await database.close()


async def test_a_workers_move_is_made_and_announced_on_news_alone() -> None:
    """The bot process does not search (AI_SEARCH=workers) and its outbox pass never
    comes; the worker never polls: the two hear of each other's commits."""
    async with postgres_schema() as url:
        bot = await GameService.open(settings_for(url, ai_search="workers"), name="bot")
        worker = await GameService.open(settings_for(url), name="worker-1", announces=False)
        published: list[Result] = []

        async def publish(result: Result) -> None:
            published.append(result)

        scheduler = Scheduler(bot, publish, outbox_pass=NEVER)
        runner = AiRunner(worker, None, processes=0, nodes=NODES, poll=NEVER.total_seconds())
        try:
            await scheduler.start()
            await runner.start()
            issued = await bot.challenges.challenge(
                PLACE, ANN, "hex", options={"size": 4, "swap": "off"}, bots=["easy"],
                first="challenger",
            )  # fmt: skip
            await bot.play.move(issued.game.id, GUILD, ANN, "b2")

            async def announced() -> bool:
                return any(r.game.ply == 2 for r in published)

            await until(announced, "the bot's move, announced by the bot process")
            last = sa.select(outbox_table).order_by(outbox_table.c.id.desc()).limit(1)

            async def marked() -> bool:  # the delivery is written once its publish returned
                async with bot.records.db.read() as conn:
                    return (await conn.execute(last)).one().delivered_at is not None

            await until(marked, "the announcement marked delivered")
            async with bot.records.db.read() as conn:
                job = (await conn.execute(sa.select(ai_jobs))).one()
                row = (await conn.execute(last)).one()  # the worker's, left to the bot
            assert job.done and job.claimed_by == "worker-1"
            assert row.claimed_by == "bot" and row.attempts == 1
            [moved] = [r for r in published if r.game.ply == 2]
            assert type(moved.events[0]).__name__ == "MovePlayed"
        finally:
            await runner.stop()
            await scheduler.stop()
            await worker.close()
            await bot.close()


async def test_news_during_an_outbox_pass_makes_it_go_round_again(
    service: GameService,
) -> None:
    """A row left while a pass is posting is posted by that pass, not the next one."""
    posting = asyncio.Event()
    go_on = asyncio.Event()
    published: list[Result] = []

    async def publish(result: Result) -> None:
        if not published:
            posting.set()
            await go_on.wait()  # Discord is slow with the first
        published.append(result)

    leaving = GameService(
        service.records.db, service.records.settings, clock=service.records.clock, announces=False
    )
    scheduler = Scheduler(service, publish, outbox_pass=NEVER)
    await leaving.challenges.challenge(
        PLACE, ANN, "hex", opponents=[BOB]
    )  # left for the announcers
    first = asyncio.create_task(scheduler.redeliver())
    await posting.wait()
    await leaving.challenges.challenge(PLACE, BOB, "hex", opponents=[ANN])  # ... during the pass
    assert await scheduler.redeliver() == 0  # the news: the pass under way takes it
    go_on.set()
    assert await first == 2
    assert [r.game.challenger_id for r in published] == [ANN.id, BOB.id]


async def test_listening_goes_on_after_the_connection_drops() -> None:
    async with postgres_schema() as url:
        listening, telling = Database(url), Database(url)
        heard: list[str] = []
        try:
            assert await listening.hold_name("bot-r")
            await listening.listen("ai", lambda _: heard.append("ai"))
            async with telling.write() as conn:  # the server ends the listening connection
                await conn.execute(
                    sa.text(
                        "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = "
                        "'advisory' AND objid::int = hashtext(current_schema() || '/bot-r')"
                    )
                )

            def told(count: int) -> Callable[[], Any]:
                async def enough() -> bool:
                    return len(heard) >= count

                return enough

            await until(told(1), "the listener told after the reconnection")
            async with telling.write() as conn:
                await notify(conn, "ai")
            await until(told(2), "news after the reconnection")
            assert not await telling.hold_name("bot-r")  # held again
        finally:
            await listening.close()
            await telling.close()


# -- names ------------------------------------------------------------------------------------


@contextlib.asynccontextmanager
async def opened(url: str, name: str) -> AsyncIterator[GameService]:
    service = await GameService.open(settings_for(url), name=name)
    try:
        yield service
    finally:
        await service.close()


async def held(service: GameService) -> list[Any]:
    async with service.records.db.read() as conn:
        query = sa.select(outbox_table).where(outbox_table.c.delivered_at.is_(None))
        return list((await conn.execute(query)).all())


async def test_a_name_is_one_live_process_and_its_restart_takes_back_what_it_held(
    database_url: str,
) -> None:
    async with opened(database_url, "bot-a") as first:
        assert first.records.worker_id == "bot-a"
        # a result committed, then the process "dies" before announcing it
        await first.challenges.challenge(PLACE, ANN, "hex", opponents=[BOB])
        [row] = await held(first)
        assert row.claimed_by == "bot-a" and row.claimed_until is not None
        async with opened(database_url, "bot-a") as namesake:  # started by mistake
            assert namesake.records.worker_id.startswith("bot-a~")  # a name of its own
            [still] = await held(namesake)
            assert still.claimed_until == row.claimed_until  # nothing taken from the living
            assert await namesake.outbox.redeliver(publish_nothing) == 0
    async with opened(database_url, "bot-a") as restarted:  # the first is gone
        assert restarted.records.worker_id == "bot-a"
        [free] = await held(restarted)
        assert free.claimed_until is None  # claimable at once, lease or not
        published: list[Result] = []

        async def publish(result: Result) -> None:
            published.append(result)

        assert await restarted.outbox.redeliver(publish) == 1
        assert [type(e).__name__ for r in published for e in r.events] == ["ChallengeIssued"]
        assert await held(restarted) == []


async def publish_nothing(result: Result) -> None:
    raise AssertionError(f"nothing is due, yet {result} was delivered")


def test_a_crash_is_announced_within_half_a_minute_by_any_process() -> None:
    """The lease of a row whose writer died, and the pass that finds it afterwards."""
    from bot.schedule.scheduler import OUTBOX_PASS

    assert timedelta(seconds=25) >= outbox.LEASE + OUTBOX_PASS  # and the post itself
    assert timedelta(minutes=2) >= outbox.LEASE * 3  # Discord's nonces hold a few minutes


def test_reserved_and_strange_names_are_refused() -> None:
    with pytest.raises(ValueError, match="reserved"):
        settings_for("sqlite:///x.db", process_name="vacation")
    with pytest.raises(ValueError, match="PROCESS_NAME is up to 40 letters"):
        settings_for("sqlite:///x.db", process_name="two words")
    assert settings_for("sqlite:///x.db", process_name="bot-shards-0-1-of-4").process_name


# -- real processes ---------------------------------------------------------------------------


async def test_processes_starting_together_on_a_fresh_database_all_start(tmp_path: Path) -> None:
    """What systemd or compose does: every unit at once, the schema not there yet. (Their
    searches in a thread: a spawned worker each would add CPU, not a unit; `paperboard run`
    starts one in tests/test_cli.py.)"""
    async with fresh_database() as url, fleet_on(url, tmp_path, AI_PROCESSES="0") as fleet:
        consoles = {f"console-{n}": (["run", "--console"], {"PROCESS_NAME": f"console-{n}"})
                    for n in range(4)}  # fmt: skip
        workers = {f"worker-{n}": (["worker"], {"PROCESS_NAME": f"worker-{n}"}) for n in range(2)}
        await fleet.start({**consoles, **workers})
        for name in workers:
            await fleet[name].printed("started with")
            fleet[name].stop()
        for name in [*consoles, *workers]:
            assert await fleet[name].ended() == 0, fleet.report()
        database = await Database.open(url)  # up to date: nothing left to do
        try:
            async with database.read() as conn:
                version = await conn.scalar(sa.text("SELECT version_num FROM alembic_version"))
            config = Config()
            config.set_main_option("script_location", str(MIGRATIONS))
            assert version == ScriptDirectory.from_config(config).get_current_head()
        finally:
            await database.close()
    assert not fleet.failed(), fleet.report()


async def test_bot_processes_and_workers_share_the_work_and_lose_nothing_to_a_kill(
    tmp_path: Path,
) -> None:
    """Two bot processes, one shard each, leave the searches to two workers: every bot move
    is a worker's, posted in its thread by a bot process. A worker killed mid-search: the
    other makes that move, once. A bot process killed between a move's commit and its
    announcement: restarted under its name, it posts it at once (the row's lease
    notwithstanding), once."""
    doomed = tmp_path / "kill-the-next-search"
    async with (
        fresh_database() as url,
        FakeDiscord(interaction_ack_timeout=SUITE_ACK_TIMEOUT) as fake,
        fleet_on(
            url, tmp_path, DISCORD_TOKEN=fake.token, DISCORD_API_BASE=fake.api_base,
            DISCORD_GATEWAY_URL=fake.gateway_url, AI_SEARCH="workers",
        ) as fleet,
    ):  # fmt: skip
        guilds = [
            fake.create_guild(f"Club {shard}", channels=["games"], id=(1000 + shard) << 22)
            for shard in (0, 1)
        ]
        ann = fake.create_user("ann")

        def bot_process(shard: int, **environment: str) -> tuple[list[str], dict[str, str]]:
            arguments = ["run", "--shard-count", "2", "--shard-ids", str(shard)]
            return arguments, {"DEV_GUILD_ID": str(guilds[shard].id), **environment}

        worker = (["worker"], {"AI_NODES": str(NODES), "AI_PROCESSES": "0",
                               "PB_DIE_SEARCHING": str(doomed)})  # fmt: skip
        crash_move = "a1"  # ann's move that bot 0 dies committing
        await fleet.start({
            "bot-0": bot_process(0, PB_DIE_AFTER_MOVE=crash_move),
            "bot-1": bot_process(1),
            "worker-1": (worker[0], {**worker[1], "PROCESS_NAME": "worker-1"}),
            "worker-2": (worker[0], {**worker[1], "PROCESS_NAME": "worker-2"}),
        })  # fmt: skip
        for name in ("worker-1", "worker-2"):
            await fleet[name].printed("started with")
        await fake.wait_for(lambda: all(fake.commands(g) for g in guilds), PATIENCE,
                            what="both bot processes' commands")  # fmt: skip
        await fake.wait_ready(shards=2, timeout=PATIENCE)
        service = GameService(await Database.open(url), settings_for(url))
        try:
            games = []
            for guild in guilds:  # ann challenges the bot in each server: one shard each
                # 9x9: no position of these few moves is proven, so the bot never resigns
                options = {"game": "hex", "size": "9", "options": "swap=off",
                           "first": "challenger", "opponent": fake.bot}  # fmt: skip
                await fake.slash(ann, "challenge", options, channel=guild.channel("games"))
                games.append(await started_game(service, guild.id))

            async def play(game_index: int, text: str, *, answered: bool = True) -> Any:
                game = await service.lookups.game(games[game_index], guilds[game_index].id)
                thread = next(t for t in fake.threads if t.id == game.thread_id)
                await fake.slash(ann, "move", {"move": text}, channel=thread)
                if answered:
                    await posted(fake, thread, f"played {text}")
                return thread

            async def bots_move(game_index: int, ply: int) -> None:
                async def moved() -> bool:
                    game = await service.lookups.game(games[game_index], guilds[game_index].id)
                    return game.ply >= ply

                await until(moved, f"the bot's move to ply {ply}")

            for ply, texts in ((2, ("c3", "c4")), (4, ("b3", "d3"))):
                for index, text in enumerate(texts):
                    thread = await play(index, text)
                    await bots_move(index, ply)
                    await posted(fake, thread, "Paperboard (medium)** played", count=ply // 2)
            async with service.records.db.read() as conn:
                searched = (await conn.execute(sa.select(ai_jobs.c.claimed_by))).scalars().all()
            assert len(searched) == 4 and set(searched) <= {"worker-1", "worker-2"}, searched

            # a worker dies mid-search: the other takes the job once its lease has run out
            doomed.touch()
            thread = await play(1, "e1")
            dead = await first_to_end(fleet, ("worker-1", "worker-2"))
            assert await fleet[dead].ended() == -signal.SIGKILL
            await bots_move(1, 6)
            await posted(fake, thread, "Paperboard (medium)** played", count=3)
            survivor = "worker-2" if dead == "worker-1" else "worker-1"
            async with service.records.db.read() as conn:
                job = (await conn.execute(sa.select(ai_jobs).where(ai_jobs.c.ply == 5))).one()
            assert job.claimed_by == survivor and job.attempts == 2

            # bot 0 dies between ann's move's commit and its announcement
            thread = await play(0, crash_move, answered=False)
            assert await fleet["bot-0"].ended() == -signal.SIGKILL
            async with (
                service.records.db.write() as conn
            ):  # no other process may take it for an hour
                lost = await conn.execute(
                    outbox_table.update()
                    .where(
                        outbox_table.c.delivered_at.is_(None),
                        outbox_table.c.claimed_by == "bot-shards-0-of-2",
                    )
                    .values(claimed_until=sa.func.now() + sa.text("interval '1 hour'"))
                    .returning(outbox_table.c.events)
                )
                [events] = lost.scalars().all()
            assert events[0]["type"] == "MovePlayed" and events[0]["texts"] == [crash_move]
            await bots_move(0, 6)  # the survivor's move, posted by bot 1 in bot 0's server
            await posted(fake, thread, "Paperboard (medium)** played", count=3)
            assert not [m for m in thread.messages if f"played {crash_move}" in m.content]
            await fleet.start({"bot-0 again": bot_process(0)})
            await posted(fake, thread, f"played {crash_move}")
            await asyncio.sleep(1)  # anything posted twice would be by now
            assert len([m for m in thread.messages if f"played {crash_move}" in m.content]) == 1
        finally:
            await service.close()
    assert not fleet.failed(), fleet.report()


async def started_game(service: GameService, guild_id: int) -> int:
    """The game of the server once the bot has opened its thread."""

    async def threaded() -> bool:
        return any(g.thread_id for g in await service.lookups.games(guild_id, status="active"))

    await until(threaded, "the game's thread")
    [game] = await service.lookups.games(guild_id, status="active")
    return game.id


async def posted(fake: FakeDiscord, thread: Any, text: str, count: int = 1) -> None:
    await fake.wait_for(
        lambda: len([m for m in thread.messages if text in m.content]) >= count,
        PATIENCE,
        what=f"{count} x {text!r} in the thread",
    )


async def first_to_end(fleet: Fleet, names: tuple[str, ...]) -> str:
    async def one_ended() -> bool:
        return any(fleet[name].process.returncode is not None for name in names)

    await until(one_ended, f"one of {names} ending")
    return next(name for name in names if fleet[name].process.returncode is not None)


def test_the_compose_file_runs_two_sharded_bots_two_workers_and_postgresql() -> None:
    """docker is not here: the file is read as compose reads it, and each process's
    command line and settings are checked against the real ones."""
    compose = yaml.safe_load((ROOT / "deploy" / "compose.yaml").read_text())
    services = compose["services"]
    runs: dict[str, argparse.Namespace] = {}
    for name, service in services.items():
        if name == "db":
            assert service["image"].startswith("postgres:")
            continue
        program, *arguments = service["command"]
        assert program == "paperboard"
        runs[name] = build_parser().parse_args(arguments)  # exits on an unknown option
        environment = service["environment"]
        unknown = set(environment) - {field.upper() for field in Settings.model_fields}
        assert not unknown, f"{name}: no such settings {unknown}"
        settings = Settings(_env_file=None, **{k.lower(): v for k, v in environment.items()})  # type: ignore[arg-type]
        assert make_url(settings.database_url).host == "db"
        assert service["depends_on"]["db"]["condition"] == "service_healthy"
        if runs[name].handler is start:
            assert not settings.searches_here  # the workers search
    bots = {name: args for name, args in runs.items() if args.handler is start}
    workers = [name for name, args in runs.items() if args.handler is start_worker]
    assert len(bots) == 2 and len(workers) == 2
    counts = {args.shard_count for args in bots.values()}
    shard_sets = [[int(s) for s in args.shard_ids.split(",")] for args in bots.values()]
    shards = sorted(shard for shard_set in shard_sets for shard in shard_set)
    assert len(counts) == 1 and shards == list(range(counts.pop()))  # each shard once
    names = {services[w]["environment"]["PROCESS_NAME"] for w in workers}
    names |= {shard_name(shard_set, len(shards)) for shard_set in shard_sets}
    assert len(names) == 4  # a name each
