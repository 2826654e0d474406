"""SQLite's cursor (bot/store/onehop.py): each statement one call on aiosqlite's thread,
and what SQLAlchemy reads of a cursor still right (rows, rowcount, lastrowid, RETURNING,
executemany, errors, streamed rows)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import aiosqlite
import pytest
import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError

from bot.store import Database

metadata = sa.MetaData()
items = sa.Table(
    "items",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("name", sa.String(20), nullable=False, unique=True),
    sa.Column("count", sa.Integer, nullable=False),
)


@pytest.fixture
async def database(tmp_path: Path) -> Any:
    database = Database(f"sqlite:///{tmp_path / 'store.db'}")
    async with database.write() as conn:
        await conn.run_sync(metadata.create_all)
    yield database
    await database.close()


async def test_a_statement_is_one_call_on_aiosqlites_thread_begin_included(
    database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with database.write() as conn:
        await conn.execute(items.insert(), {"name": "a", "count": 1})
    async with database.read() as conn:  # the reader connected
        await conn.execute(sa.select(items.c.id))
    calls: list[object] = []
    execute = aiosqlite.Connection._execute

    async def counted(self: aiosqlite.Connection, fn: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append(fn)
        return await execute(self, fn, *args, **kwargs)

    monkeypatch.setattr(aiosqlite.Connection, "_execute", counted)
    async with database.read() as conn:
        await conn.execute(sa.select(items.c.id))  # with the transaction's BEGIN
        assert len(calls) == 1, calls
        rows = (await conn.execute(sa.select(items.c.name, items.c.count))).all()
        assert len(calls) == 2
    assert len(calls) == 3  # the ROLLBACK
    assert [tuple(row) for row in rows] == [("a", 1)]
    calls.clear()
    async with database.write():
        pass  # nothing run: no BEGIN, no COMMIT
    assert calls == []
    async with database.write() as conn:
        await conn.execute(items.update().values(count=2))
    assert len(calls) == 2  # BEGIN IMMEDIATE and the update, the COMMIT; no ROLLBACK after


async def test_rows_counts_ids_and_returning_read_as_sqlalchemy_expects(
    database: Database,
) -> None:
    async with database.write() as conn:
        first = await conn.execute(items.insert(), {"name": "a", "count": 1})
        assert first.inserted_primary_key == (1,)  # lastrowid
        await conn.execute(items.insert(), [{"name": n, "count": 2} for n in "bcd"])
        changed = await conn.execute(items.update().where(items.c.count == 2).values(count=3))
        assert changed.rowcount == 3
        returned = await conn.execute(
            items.update().where(items.c.name == "a").values(count=9).returning(items.c.id)
        )
        assert returned.scalar_one() == 1
    async with database.read() as conn:
        result = await conn.execute(sa.select(items.c.name).order_by(items.c.name))
        assert result.fetchone() == ("a",)
        assert result.fetchmany(2) == [("b",), ("c",)]
        assert result.fetchall() == [("d",)]
        streamed = await conn.stream(sa.select(items.c.count).order_by(items.c.id))
        assert [row.count async for row in streamed] == [9, 3, 3, 3]


async def test_an_error_is_sqlalchemys_and_the_transaction_rolls_back(database: Database) -> None:
    with pytest.raises(IntegrityError):
        async with database.write() as conn:
            await conn.execute(items.insert(), {"name": "a", "count": 1})
            await conn.execute(items.insert(), {"name": "a", "count": 2})
    async with database.read() as conn:
        assert await conn.scalar(sa.select(sa.func.count()).select_from(items)) == 0
