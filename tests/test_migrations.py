"""Migrations on a database that already holds games, on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from sqlalchemy import Connection

from bot.service import GameService, Place
from bot.settings import Settings
from bot.store import Database
from bot.store.database import MIGRATIONS
from bot.store.schema import games, seats
from tests.conftest import ANN, BOB

pytestmark = pytest.mark.both_backends


def upgrade(connection: Connection, revision: str) -> None:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    command.upgrade(config, revision)


async def test_game_ids_past_32_bits_after_0003(database_url: str) -> None:
    database = Database(database_url)
    now = datetime(2026, 11, 23, tzinfo=UTC)
    async with database.write() as conn:
        await conn.run_sync(upgrade, "0002")
        await conn.execute(
            games.insert().values(
                guild_id=1, channel_id=2, game="hex", options={"players": 2, "size": 3},
                rules_version=1, status="open", ply=0, challenger_id=7, first="random",
                rated=False, created_at=now, updated_at=now,
            )
        )  # fmt: skip
    async with database.write() as conn:
        await conn.run_sync(upgrade, "head")
        old = await conn.scalar(sa.select(games.c.id))
        if not database.is_sqlite:  # a busy server's sequence, past INTEGER's range
            await conn.execute(sa.text("SELECT setval(pg_get_serial_sequence('games', 'id'), :n)"),
                               {"n": 2**31 + 5})  # fmt: skip
        else:
            await conn.execute(sa.text("UPDATE games SET id = :n"), {"n": 2**31 + 5})
    settings = Settings(database_url=database_url, render_processes=0, _env_file=None)  # type: ignore[call-arg]
    service = GameService(database, settings)
    try:
        issued = await service.challenges.challenge(Place(1, 2), ANN, "hex", opponents=[BOB])
        assert issued.game.id > 2**31 and old == 1
        started = await service.challenges.accept(issued.game.id, 1, BOB)
        assert started.game.status == "active"
        async with database.read() as conn:
            assert await conn.scalar(sa.select(sa.func.max(seats.c.game_id))) == issued.game.id
    finally:
        await service.close()
