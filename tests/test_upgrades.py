"""Every database a version of Paperboard made opens with this one.

tests/fixtures/databases holds a small SQLite file made by each commit where the
migrations changed, with what each of its games read then (records.json); both are made
again by tests/fixtures/make_databases.py. PostgreSQL's schema differs from SQLite's only
in 0003 (BIGINT ids, which SQLite's rowids already are), so the files stand for both;
the one history both share, 0004 slid under an applied 0005, is tested on both below.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import shutil
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from sqlalchemy import Connection

import engine
from bot import cli
from bot.service import GameService, Player
from bot.settings import Settings
from bot.store import Database
from bot.store.database import MIGRATIONS, UpgradeRefused, head_revision
from bot.store.schema import moves
from tests.conftest import postgres_schema
from tests.fixtures.make_databases import DATABASES, HEADS, RECORDS

FIXTURES = sorted(DATABASES.glob("*.sqlite"))
RECORDED = json.loads(RECORDS.read_text())
GUILD = 0  # the console's one pretend server


def copied(fixture: Path, tmp_path: Path) -> Path:
    path = tmp_path / fixture.name
    shutil.copyfile(fixture, path)
    return path


def made_at(path: Path) -> datetime:
    """When the file's games were made: what they read was recorded then, and an open
    challenge among them expires a day later, so the file is read by that day's clock."""
    with contextlib.closing(sqlite3.connect(path)) as db:
        (newest,) = db.execute("SELECT max(created_at) FROM games").fetchone()
    return datetime.fromisoformat(newest).replace(tzinfo=UTC) + timedelta(minutes=1)


async def opened(path: Path) -> GameService:
    """The service on the file, as `paperboard run` opens it, the day the file was made."""
    url = f"sqlite:///{path}"
    settings = Settings(database_url=url, render_processes=0, _env_file=None)  # type: ignore[call-arg]
    moment = made_at(path)
    return GameService(
        await Database.open(url), settings, clock=lambda: moment, rng=random.Random(7)
    )


def test_a_database_from_every_migration_head_is_kept() -> None:
    assert [fixture.name for fixture in FIXTURES] == sorted(RECORDED)
    assert sorted(fixture.stem[5:] for fixture in FIXTURES) == sorted(HEADS)


@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda fixture: fixture.stem)
async def test_every_old_database_upgrades_and_replays_every_game(
    fixture: Path, tmp_path: Path
) -> None:
    service = await opened(copied(fixture, tmp_path))
    try:
        for game_id, then in RECORDED[fixture.name].items():
            now = await service.lookups.game(int(game_id), GUILD)
            async with service.records.db.read() as conn:
                record = (
                    await conn.scalars(
                        sa.select(moves.c.text)
                        .where(moves.c.game_id == int(game_id))
                        .order_by(moves.c.ply)
                    )
                ).all()
            state = engine.replay(now.game, now.options, record)
            assert {
                "game": now.game,
                "options": now.options,
                "status": str(now.status),
                "seats": [[seat.player_id, seat.seat] for seat in now.seats],
                "ply": now.ply,
                "to_move": now.to_move,
                "winners": list(now.winners),
                "reason": now.reason,
                "moves": list(state.moves),
                "engine_to_move": state.to_move,
            } == then, f"game #{game_id}"
        # game #3, under way in every file, goes on: its player to move plays
        under_way = await service.lookups.game(3, GUILD)
        assert under_way.to_move is not None
        mover = under_way.seats[under_way.to_move].player_id
        assert mover is not None
        state = engine.replay(
            under_way.game, under_way.options, RECORDED[fixture.name]["3"]["moves"]
        )
        played = await service.play.move(3, GUILD, Player(mover, "bob"), state.legal_moves()[0])
        assert played.game.ply == under_way.ply + 1
    finally:
        await service.close()


def stamp(path: Path, statement: str) -> None:
    """Change the file by hand, its WAL folded in (closed): the bytes compared are all."""
    with contextlib.closing(sqlite3.connect(path)) as db, db:
        db.execute(statement)


@pytest.mark.parametrize(
    ("spoil", "said"),
    [
        ("UPDATE alembic_version SET version_num = '0099'", "newer version of Paperboard"),
        ("UPDATE games SET ply = -1 WHERE id = 1", "could not be upgraded"),
    ],
    ids=["from-a-newer-version", "a-migration-fails"],
)
def test_an_upgrade_that_cannot_proceed_says_so_and_changes_nothing(
    spoil: str,
    said: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    fixture = FIXTURES[-1] if "0099" in spoil else FIXTURES[2]  # 0003: 0005's CHECK to come
    path = copied(fixture, tmp_path)
    stamp(path, spoil)
    before = path.read_bytes()
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{path}")
    monkeypatch.setenv("DISCORD_TOKEN", "")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.stdin", open(__file__))  # noqa: SIM115 (never read)
    assert cli.main(["run", "--console"]) == 2
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err and err.count("\n") == 1 and said in err, err
    assert path.read_bytes() == before


def test_a_file_that_is_not_a_database_is_refused_in_one_sentence(tmp_path: Path) -> None:
    path = tmp_path / "paperboard.db"
    path.write_bytes(b"not a database, a note left here " * 200)
    before = path.read_bytes()
    with pytest.raises(UpgradeRefused, match="not a SQLite database"):
        asyncio.run(Database.open(f"sqlite:///{path}"))
    assert path.read_bytes() == before


def upgrade_to(connection: Connection, revision: str) -> None:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    command.upgrade(config, revision)


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
async def test_a_schema_stamped_past_the_outbox_it_never_made_gets_it(
    backend: str, tmp_path: Path
) -> None:
    """0005 was applied on 0003 before 0004 (the outbox) was slid under it."""
    async with contextlib.AsyncExitStack() as stack:
        url = (
            f"sqlite:///{tmp_path / 'paperboard.db'}"
            if backend == "sqlite"
            else await stack.enter_async_context(postgres_schema())
        )
        database = Database(url)
        async with database.write() as conn:
            await conn.run_sync(upgrade_to, "0005")
            await conn.execute(sa.text("DROP TABLE outbox"))
        await database.close()
        database = await Database.open(url)
        try:
            async with database.read() as conn:
                tables = await conn.run_sync(lambda sync: sa.inspect(sync).get_table_names())
                revision = await conn.scalar(sa.text("SELECT version_num FROM alembic_version"))
        finally:
            await database.close()
        assert "outbox" in tables and revision == head_revision()
