"""Leases: how a worker claims rows (deadlines, the outbox, the AI's jobs) for a while.

One statement: `UPDATE table SET claimed_by = worker, claimed_until = now + lease
WHERE id IN (the first claimable rows) RETURNING ...`. On PostgreSQL the inner
SELECT is `FOR UPDATE SKIP LOCKED`, so two processes never claim one row;
SQLite's single writer serialises it. A crashed worker's lease runs out and the
row is claimed again. The caller says which rows may be claimed (besides those
nobody holds) and in what order, with `NOW` for the time.

A worker is a process's stable name (bot/service/service.py `GameService.open`): a
process that starts holding its name lets go at once of the rows its name still
holds (`release`): they are what it was doing when it died.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.store import Database
from bot.store.schema import UTCDateTime

NOW = sa.bindparam("now", type_=UTCDateTime())


def lease_statement(
    table: sa.Table,
    dialect_name: str,
    where: Sequence[sa.ColumnElement[bool]],
    order_by: sa.ColumnElement[Any] | Sequence[sa.ColumnElement[Any]],
    returning: Sequence[sa.ColumnElement[Any]],
    **values: Any,
) -> sa.Update:
    """Lease to `worker` the first `limit` rows, by `order_by`, that match `where` and
    that nobody holds (never claimed, or the lease ran out); also set `values`."""
    claimable = (
        sa.select(table.c.id)
        .where(*where, sa.or_(table.c.claimed_until.is_(None), table.c.claimed_until <= NOW))
        .order_by(*(order_by if isinstance(order_by, Sequence) else (order_by,)))
        .limit(sa.bindparam("limit"))
    )
    if dialect_name == "postgresql":
        claimable = claimable.with_for_update(skip_locked=True)
    return (
        table.update()
        .where(table.c.id.in_(claimable.scalar_subquery()))
        .values(claimed_by=sa.bindparam("worker"), claimed_until=sa.bindparam("until"), **values)
        .returning(*returning)
    )


async def claim_rows(
    db: Database,
    now: datetime,
    statement: Callable[[str], sa.Update],
    worker: str,
    lease: timedelta,
    limit: int,
) -> Sequence[sa.Row[Any]]:
    """Run the dialect's lease `statement` at `now`; the rows leased."""
    async with db.write() as conn:
        result = await conn.execute(
            statement(conn.dialect.name),
            {"now": now, "limit": limit, "worker": worker[:64], "until": now + lease},
        )
        return result.all()


async def release(
    conn: AsyncConnection, table: sa.Table, worker: str, *pending: sa.ColumnElement[bool]
) -> int:
    """Make claimable at once the `pending` rows that `worker` holds; how many."""
    released = await conn.execute(
        table.update()
        .where(table.c.claimed_by == worker[:64], table.c.claimed_until.is_not(None), *pending)
        .values(claimed_until=None)
    )
    return int(released.rowcount)
