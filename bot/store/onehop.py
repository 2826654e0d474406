"""SQLite's statements in one trip to aiosqlite's thread each.

aiosqlite runs every call on the sqlite3 connection in a thread of its own, and
SQLAlchemy's adapter makes four such calls for a SELECT (open a cursor, execute, fetch
the rows, close the cursor) and three for any other statement: each a hand-off to that
thread and a wake-up of the event loop when it is done, and the event loop's coroutines
resumed. The cursor here does the four in one call: the statement runs, its rows are
fetched and its cursor closed on aiosqlite's thread, and the rows, the description,
rowcount and lastrowid come back together. A transaction's BEGIN waits for its first
statement and goes in the same call (`Sqlite.begin_with_next`); a transaction that ran
none has nothing to commit or roll back. Server-side cursors (rows streamed in chunks)
stay SQLAlchemy's.

`dbapi()` is the module SQLAlchemy's aiosqlite dialect is given (create_engine's
`module`): aiosqlite's as SQLAlchemy adapts it, but for the cursor of plain statements.
"""

from __future__ import annotations

import sqlite3
from collections import deque
from collections.abc import Iterator, Sequence
from threading import Thread
from typing import Any, cast

import aiosqlite
from sqlalchemy.dialects.sqlite.aiosqlite import (
    AsyncAdapt_aiosqlite_connection,
    AsyncAdapt_aiosqlite_dbapi,
)

try:
    from sqlalchemy.util.concurrency import await_
except ImportError:  # SQLAlchemy 2.0 names it await_only
    from sqlalchemy.util.concurrency import await_only as await_

Row = tuple[Any, ...]
Description = Sequence[tuple[Any, ...]] | None
#: What a statement's one call on aiosqlite's thread hands back.
Outcome = tuple[Description, list[Row], int, int | None]


def _run(
    connection: sqlite3.Connection, begin: str | None, operation: str, parameters: Any, many: bool
) -> Outcome:
    """On aiosqlite's thread: the transaction begun (`begin`, if any), the statement run,
    its rows fetched, its cursor closed."""
    cursor = connection.cursor()
    try:
        if begin is not None:
            cursor.execute(begin)
        if many:
            cursor.executemany(operation, parameters)
        elif parameters is None:
            cursor.execute(operation)
        else:
            cursor.execute(operation, parameters)
        description = cursor.description
        rows = cursor.fetchall() if description else []
        return description, rows, cursor.rowcount, cursor.lastrowid
    finally:
        cursor.close()


class Sqlite(aiosqlite.Connection):
    """aiosqlite's connection (its thread a daemon, as SQLAlchemy makes it: a process
    never waits at exit for a connection left open), and `statement`."""

    def __init__(self, database: str, **kwargs: Any) -> None:
        super().__init__(lambda: sqlite3.connect(database, **kwargs), 64)
        thread = self if isinstance(self, Thread) else self._thread  # aiosqlite < 0.22: itself
        thread.daemon = True
        self.begin: str | None = None  # a BEGIN said and not run yet

    def begin_with_next(self, begin: str) -> None:
        """Begin a transaction with `begin` ("BEGIN", "BEGIN IMMEDIATE") in the call of its
        first statement, not in a call of its own."""
        self.begin = begin

    async def statement(self, operation: str, parameters: Any, *, many: bool = False) -> Outcome:
        """Run one statement on the connection's thread (the transaction's BEGIN first,
        when it waits): its description, all its rows (none without a description),
        rowcount and lastrowid. A closed connection raises sqlite3's OperationalError, as
        SQLAlchemy's adapter makes of aiosqlite's ValueError."""
        begin, self.begin = self.begin, None
        try:
            return cast(
                Outcome,
                await self._execute(  # type: ignore[no-untyped-call]  # aiosqlite's own queue
                    _run, self._conn, begin, operation, parameters, many
                ),
            )
        except ValueError as closed:  # "no active connection", "Connection closed"
            raise sqlite3.OperationalError(str(closed)) from closed

    async def begun(self) -> None:
        """Run the BEGIN that waits, if one does (before statements that do not go
        through `statement`: a server-side cursor's)."""
        begin, self.begin = self.begin, None
        if begin is not None:
            await self.statement(begin, None)

    async def commit(self) -> None:
        """Commit the transaction, if one began (no call on the thread otherwise)."""
        self.begin = None
        if self.in_transaction:
            await super().commit()

    async def rollback(self) -> None:
        """Roll the transaction back, if one began: SQLAlchemy's pool rolls back every
        connection it takes back, most of them committed already."""
        self.begin = None
        if self.in_transaction:
            await super().rollback()


class OneHopCursor:
    """A DB-API cursor over a `Sqlite` connection whose statements each take one call on
    its thread: the rows are held here once the statement has run."""

    server_side = False

    def __init__(self, connection: Sqlite) -> None:
        self.connection = connection
        self._rows: deque[Row] = deque()
        self.description: Description = None
        self.rowcount = -1
        self.lastrowid: int | None = None
        self.arraysize = 1

    def _call(self, operation: str, parameters: Any, many: bool) -> None:
        outcome = await_(self.connection.statement(operation, parameters, many=many))
        self.description, rows, self.rowcount, self.lastrowid = outcome
        self._rows = deque(rows)

    def execute(self, operation: str, parameters: Any = None) -> None:
        self._call(operation, parameters, many=False)

    def executemany(self, operation: str, seq_of_parameters: Any) -> None:
        self._call(operation, seq_of_parameters, many=True)

    def fetchone(self) -> Row | None:
        return self._rows.popleft() if self._rows else None

    def fetchmany(self, size: int | None = None) -> list[Row]:
        count = self.arraysize if size is None else size
        rows = self._rows
        return [rows.popleft() for _ in range(min(count, len(rows)))]

    def fetchall(self) -> list[Row]:
        rows = list(self._rows)
        self._rows.clear()
        return rows

    def __iter__(self) -> Iterator[Row]:
        while self._rows:
            yield self._rows.popleft()

    def close(self) -> None:
        self._rows.clear()  # its sqlite3 cursor was closed on the connection's thread

    async def _async_soft_close(self) -> None:
        """What SQLAlchemy's asyncio results call (2.0.44 on) once a statement has run,
        to close its cursor before the rows are read: closed already."""

    def setinputsizes(self, *inputsizes: Any) -> None:
        pass

    def setoutputsize(self, size: Any, column: Any = None) -> None:
        pass


class OneHopConnection(AsyncAdapt_aiosqlite_connection):
    """aiosqlite's connection as SQLAlchemy adapts it, its plain cursors `OneHopCursor`s."""

    __slots__ = ()

    def cursor(self, server_side: bool = False) -> Any:
        if server_side:  # its statement runs on aiosqlite's own cursor: BEGIN first
            await_(self.driver_connection.begun())
            return super().cursor(server_side=True)
        return OneHopCursor(self.driver_connection)


class OneHopDbapi(AsyncAdapt_aiosqlite_dbapi):
    """aiosqlite's DB-API module as SQLAlchemy adapts it, connecting `OneHopConnection`s."""

    def connect(self, *args: Any, **kwargs: Any) -> OneHopConnection:
        connection: Any = await_(Sqlite(*args, **kwargs))  # SQLAlchemy types it a protocol
        return OneHopConnection(self, connection)


def begin_with_next(connection: Any, begin: str) -> None:
    """For SQLAlchemy's "begin" event of a connection of `dbapi()`'s: begin its transaction
    with `begin` in the call of its first statement."""
    sqlite: Sqlite = connection.connection.driver_connection
    sqlite.begin_with_next(begin)


def dbapi() -> OneHopDbapi:
    """The module for create_engine's `module` (sqlite+aiosqlite URLs)."""
    return OneHopDbapi(aiosqlite, sqlite3)
