"""The store refuses impossible rows on both backends (CHECK constraints, migration 0005)."""

from __future__ import annotations

import importlib.util
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError

import engine
from bot.store import Database
from bot.store.schema import MAX_SEAT, games, metadata, moves, players, seats

pytestmark = pytest.mark.both_backends

ROOT = Path(__file__).resolve().parents[1]
NOW = datetime(2026, 11, 23, tzinfo=UTC)
GAME = {
    "id": 1, "guild_id": 1, "channel_id": 1, "game": "hex", "options": {}, "rules_version": 1,
    "status": "active", "challenger_id": 5, "first": "challenger", "rated": False,
    "created_at": NOW, "updated_at": NOW,
}  # fmt: skip


@pytest.mark.parametrize(
    ("table", "row"),
    [
        (moves, {"game_id": 1, "ply": -1, "seat": 0, "text": "c3", "created_at": NOW}),
        (moves, {"game_id": 1, "ply": 0, "seat": 99, "text": "c3", "created_at": NOW}),
        (seats, {"game_id": 1, "seat": 99, "player_id": 5, "accepted": True}),
        (games, {**GAME, "id": 2, "ply": -1}),
        (games, {**GAME, "id": 2, "status": "paused"}),
    ],
)
async def test_impossible_rows_are_refused(
    database_url: str, table: sa.Table, row: dict[str, Any]
) -> None:
    database = await Database.open(database_url)
    try:
        async with database.write() as conn:
            await conn.execute(players.insert(), {"id": 5, "name": "ann", "created_at": NOW})
            await conn.execute(games.insert(), GAME)
        with pytest.raises(IntegrityError) as refused:
            async with database.write() as conn:
                await conn.execute(table.insert(), row)
        assert "check constraint" in str(refused.value).lower()
    finally:
        await database.close()


def test_the_migration_has_every_check_of_the_schema() -> None:
    """Migration 0005 added the checks of the tables then; later ones, their tables'."""
    checks: dict[str, tuple[tuple[str, str], ...]] = {}
    for name in ("0005_check_constraints", "0008_tournaments", "0013_web"):
        path = ROOT / f"bot/store/migrations/versions/{name}.py"
        spec = importlib.util.spec_from_file_location(f"checks_{name}", path)
        assert spec is not None and spec.loader is not None
        migration = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(migration)
        checks |= migration.CHECKS
    in_schema = {
        (table.name, str(check.name), str(check.sqltext))
        for table in metadata.tables.values()
        for check in table.constraints
        if isinstance(check, sa.CheckConstraint)
    }
    in_migration = {
        (table, name, condition) for table, listed in checks.items() for name, condition in listed
    }
    assert in_schema == in_migration
    assert max(info.max_players for info in engine.GAMES.values()) == MAX_SEAT + 1
