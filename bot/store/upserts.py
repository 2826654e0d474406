"""The SQL that differs between SQLite and PostgreSQL: inserts that meet an existing row.

Both dialects spell them `INSERT ... ON CONFLICT`, but SQLAlchemy builds them from
each dialect's own `insert`; every such statement of the project is built here,
once per dialect and shape (building a statement costs more than running it).
"""

from __future__ import annotations

from functools import cache
from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection


def _insert(table: sa.Table, dialect_name: str) -> Any:
    dialect = postgresql if dialect_name == "postgresql" else sqlite
    return dialect.insert(table)


@cache
def upsert_statement(
    table: sa.Table, dialect_name: str, keys: tuple[str, ...], update: tuple[str, ...]
) -> sa.Insert:
    """INSERT ... ON CONFLICT (keys) DO UPDATE SET the `update` columns to the new row's."""
    statement = _insert(table, dialect_name)
    upsert: sa.Insert = statement.on_conflict_do_update(
        index_elements=list(keys), set_={k: statement.excluded[k] for k in update}
    )
    return upsert


@cache
def insert_or_nothing(table: sa.Table, dialect_name: str) -> sa.Insert:
    """INSERT ... ON CONFLICT DO NOTHING: a row someone else created is left to them."""
    statement: sa.Insert = _insert(table, dialect_name).on_conflict_do_nothing()
    return statement


async def upsert(
    conn: AsyncConnection,
    table: sa.Table,
    rows: dict[str, Any] | list[dict[str, Any]],
    *,
    keys: tuple[str, ...],
    update: tuple[str, ...] | None = None,
) -> None:
    """Insert the rows, or update an existing row's `update` columns (by default every
    column the rows give but the keys). Rows are written in the order given."""
    many = rows if isinstance(rows, list) else [rows]
    changed = update if update is not None else tuple(k for k in many[0] if k not in keys)
    await conn.execute(upsert_statement(table, conn.dialect.name, keys, changed), many)
