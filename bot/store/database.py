"""One store interface over SQLite (aiosqlite) and PostgreSQL (asyncpg).

SQLAlchemy Core (async) does the dialects; Alembic applies the versioned
migrations at start, one process at a time: on PostgreSQL under an advisory lock
held by the migration's transaction, on SQLite under its write lock (BEGIN
IMMEDIATE). SQLite runs in WAL mode with a busy timeout and a single writer
connection: writes queue on it and take the write lock at BEGIN, so two processes
sharing a file wait instead of failing. Processes on one PostgreSQL hear of each
other's work through bot/store/presence.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import functools
import os
import re
import sqlite3
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from alembic.operations import Operations
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from alembic.util import CommandError
from sqlalchemy import ColumnElement, Connection, Table, event, text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine
from sqlalchemy.pool import NullPool

from bot.settings import SettingRefused, database_url, reason
from bot.store import onehop, presence

MIGRATIONS = Path(__file__).with_name("migrations")
#: Migrations that were put below one already released, with the table each makes: a
#: database migrated past that one before lacks the table (0004 came after 0005).
SLID_UNDER = (("0004", "outbox"),)
SQLITE_HEADER = b"SQLite format 3\x00"
SQLITE_BUSY_TIMEOUT_MS = 10_000
#: How long a command waits for a pooled connection before it fails. In a burst (a
#: thousand commands at once on a busy machine) the queue takes longer than the
#: default 30 s to drain; a command that waits its turn is better than one refused.
POOL_WAIT_SECONDS = 120
DELETE_BATCH = 5000
#: Taken by the migrations' transaction: one process migrates a schema at a time.
MIGRATION_LOCK = text(
    "SELECT pg_advisory_xact_lock(1885498727, hashtext(coalesce(current_schema(), '')))"
)


class UpgradeRefused(ValueError):
    """The schema cannot be brought to this version's migrations; nothing was changed.
    Its words are one sentence for the person starting Paperboard."""


def async_url(url: str) -> str:
    """sqlite:///x.db -> sqlite+aiosqlite:///x.db; postgresql://... -> postgresql+asyncpg://..."""
    parsed = database_url(url)
    driver = "sqlite+aiosqlite" if parsed.get_backend_name() == "sqlite" else "postgresql+asyncpg"
    return parsed.set(drivername=driver).render_as_string(hide_password=False)


class Database:
    """The connection pools and the write discipline; queries live in the service."""

    def __init__(self, url: str) -> None:
        self.url = async_url(url)
        self.is_sqlite = self.url.startswith("sqlite")
        self._presence: presence.Presence | None = None  # PostgreSQL: the process's own line
        if self.is_sqlite:
            self._writer = self._sqlite_engine(write=True)
            self._reader = self._sqlite_engine(write=False)
        else:
            url, server_settings = _libpq_options(self.url)
            connect_args = {"server_settings": server_settings} if server_settings else {}
            self._writer = self._reader = create_async_engine(
                url,
                pool_size=10,
                max_overflow=10,
                pool_timeout=POOL_WAIT_SECONDS,
                pool_pre_ping=True,
                connect_args=connect_args,
            )
            self._presence = presence.Presence(
                create_async_engine(url, poolclass=NullPool, connect_args=connect_args)
            )
        self._name_lock: int | None = None  # SQLite: the locked file holding the name
        # SQLite allows one writer; queueing here keeps BEGIN IMMEDIATE waits in-process short.
        self._write_lock = asyncio.Lock() if self.is_sqlite else None
        # told when a write transaction rolls back (caches filled inside it are not true)
        self.rolled_back: list[Callable[[], None]] = []
        # each write transaction under way: what to call after its commit
        self._after_commit: dict[AsyncConnection, list[Callable[[], None]]] = {}

    @classmethod
    async def open(cls, url: str) -> Database:
        """Connect and bring the schema to the newest migration. A database that cannot be
        opened is refused in one sentence naming DATABASE_URL (SettingRefused)."""
        database = cls(url)
        try:
            await database.reach()
        except BaseException:
            await database.close()
            raise
        await database.migrate()
        return database

    async def reach(self) -> None:
        """Open the writer's connection (kept in its pool): what keeps the database from
        being opened at all shows here, before anything else is tried."""
        parsed = make_url(self.url)
        try:
            if self.is_sqlite:
                path = Path(str(parsed.database))
                path.parent.mkdir(parents=True, exist_ok=True)
                _check_sqlite_file(path)  # before SQLite reads it as a setting's fault
                # tried here first: when aiosqlite's connection fails, its thread may still
                # call back into this event loop after the process has closed it
                sqlite3.connect(path).close()
            async with self._writer.connect():
                pass
        except (OSError, sqlite3.Error, sa.exc.DBAPIError) as error:
            cause = error.orig if isinstance(error, sa.exc.DBAPIError) else error  # the driver's
            why = reason(cause) if isinstance(cause, OSError) else str(cause)
            if self.is_sqlite:
                raise SettingRefused(
                    f"DATABASE_URL: could not open the SQLite file {parsed.database} ({why}); "
                    "it should look like sqlite:///paperboard.db, in a folder this process "
                    "may write."
                ) from None
            raise SettingRefused(
                f"DATABASE_URL: could not connect to PostgreSQL at {parsed.host or 'localhost'}:"
                f"{parsed.port or 5432} ({why}); it should look like "
                "postgresql://user:password@host:5432/dbname."
            ) from None

    async def migrate(self) -> None:
        """Bring the schema to the newest migration, all of it or nothing (UpgradeRefused,
        the database as it was). Processes starting together take turns: the first
        migrates, the others then find the schema up to date."""
        where = make_url(self.url).database if self.is_sqlite else "The database"
        # a server or file not reached is for the settings to say, not the upgrade
        async with self._writer.connect() as connection:
            try:
                if self.is_sqlite:
                    await connection.run_sync(_upgrade_sqlite)
                    return
                async with connection.begin():  # the lock is held until it ends, a crash too
                    await connection.execute(MIGRATION_LOCK)
                    await connection.run_sync(_upgrade_to_head)
            except UpgradeRefused:
                raise
            except (sa.exc.SQLAlchemyError, CommandError) as failed:
                reason = str(getattr(failed, "orig", None) or failed).splitlines()[0]
                raise UpgradeRefused(
                    f"{where} could not be upgraded to this version of Paperboard "
                    f"({reason[:200]}); it was left as it was."
                ) from failed

    async def hold_name(self, name: str) -> bool:
        """Take `name` for this process while it lives (its leases' holder); False when
        a live process holds it. PostgreSQL: an advisory lock on the process's own
        connection (presence.py). SQLite: a lock on a file beside the database
        (`paperboard.db.bot.lock`), which the system releases when the process ends."""
        if self._presence is not None:
            return await self._presence.hold(name)
        lock = os.open(f"{make_url(self.url).database}.{name}.lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(lock)
            return False
        self._name_lock = lock
        return True

    async def listen(self, news: str, listener: presence.Listener) -> bool:
        """Call `listener` with the detail whenever any process commits a transaction that
        `notify`d `news` (PostgreSQL); False on SQLite, where one process does it all."""
        if self._presence is None:
            return False
        await self._presence.listen(news, listener)
        return True

    def unlisten(self, news: str, listener: presence.Listener) -> None:
        if self._presence is not None:
            self._presence.unlisten(news, listener)

    async def ping(self) -> None:
        """One round trip to the database."""
        async with self.read() as connection:
            await connection.execute(text("SELECT 1"))

    async def close(self) -> None:
        if self._presence is not None:
            await self._presence.close()
        if self._name_lock is not None:
            with contextlib.suppress(OSError):
                os.close(self._name_lock)  # the name's lock goes with it
        await self._writer.dispose()
        if self._reader is not self._writer:
            await self._reader.dispose()

    @asynccontextmanager
    async def write(self) -> AsyncIterator[AsyncConnection]:
        """One write transaction: committed when the block ends, then each of the
        callbacks given to `after_commit` is called; rolled back on error (then each of
        `rolled_back` is called)."""
        committed: list[Callable[[], None]] = []
        try:
            async with contextlib.AsyncExitStack() as held:
                if self._write_lock is not None:
                    await held.enter_async_context(self._write_lock)
                connection = await held.enter_async_context(self._writer.begin())
                self._after_commit[connection] = committed
                try:
                    yield connection
                finally:  # not the connection's own state: a cancelled one refuses a read
                    del self._after_commit[connection]
        except BaseException:
            for forget in self.rolled_back:
                forget()
            raise
        for call in committed:
            call()

    def after_commit(self, conn: AsyncConnection, call: Callable[[], None]) -> None:
        """In a write transaction (`write`): call `call` once it has committed (never
        when it rolls back)."""
        self._after_commit[conn].append(call)

    @asynccontextmanager
    async def read(self) -> AsyncIterator[AsyncConnection]:
        """A read-only snapshot (WAL readers never wait for the writer)."""
        async with self._reader.connect() as connection:
            yield connection

    async def delete_in_batches(self, table: Table, condition: ColumnElement[bool]) -> int:
        """Delete the rows of `table` matching `condition`, DELETE_BATCH a transaction (a
        short write lock each); returns how many."""
        doomed = sa.select(table.c.id).where(condition).limit(DELETE_BATCH).scalar_subquery()
        total = 0
        while True:
            async with self.write() as connection:
                deleted = await connection.execute(table.delete().where(table.c.id.in_(doomed)))
            count = deleted.rowcount
            total += count
            if count < DELETE_BATCH:
                return total

    # -- engines ----------------------------------------------------------------

    def _sqlite_engine(self, *, write: bool) -> AsyncEngine:
        engine = create_async_engine(
            self.url,
            # the writer is one connection; readers a small pool, all kept open: each
            # aiosqlite connection is a thread of its own, and opening one holds the
            # event loop until that thread has started (tens of ms on a busy machine)
            pool_size=1 if write else 8,
            max_overflow=0,
            pool_timeout=POOL_WAIT_SECONDS,
            module=onehop.dbapi(),  # a statement, one trip to aiosqlite's thread
            connect_args={"timeout": SQLITE_BUSY_TIMEOUT_MS / 1000},
        )
        begin = "BEGIN IMMEDIATE" if write else "BEGIN"

        @event.listens_for(engine.sync_engine, "connect")
        def configure(dbapi_connection: Any, _record: Any) -> None:
            dbapi_connection.isolation_level = None  # SQLAlchemy emits BEGIN itself (below)
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
            cursor.execute("PRAGMA foreign_keys=ON")
            # WAL + NORMAL: a committed transaction survives a killed process
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.close()

        @event.listens_for(engine.sync_engine, "begin")
        def start(connection: Connection) -> None:
            onehop.begin_with_next(connection, begin)  # run with the first statement

        return engine


async def notify(conn: AsyncConnection, news: str, detail: str = "") -> None:
    """In a write transaction: tell the processes listening for `news` (`Database.listen`)
    when it commits, with `detail` (a few words: which row); nothing on SQLite."""
    if conn.dialect.name == "postgresql":
        await presence.notify(conn, news, detail)


@asynccontextmanager
async def scratch_schema(url: str, prefix: str = "pb_scratch") -> AsyncIterator[str]:
    """A new, empty PostgreSQL schema on the server at `url`, dropped afterwards, as a
    DATABASE_URL that puts everything there: tests and benchmarks sharing a server never
    touch each other's tables (or the shared `public`)."""
    schema = f"{prefix}_{uuid.uuid4().hex[:16]}"
    admin = create_async_engine(async_url(url), poolclass=NullPool)
    try:
        async with admin.begin() as connection:
            await connection.execute(text(f"CREATE SCHEMA {schema}"))
        separator = "&" if "?" in url else "?"
        yield f"{url}{separator}options=-csearch_path%3D{schema}"
    finally:
        async with admin.begin() as connection:
            await connection.execute(text(f"DROP SCHEMA IF EXISTS {schema} CASCADE"))
        await admin.dispose()


def _libpq_options(url: str) -> tuple[str, dict[str, str]]:
    """libpq's `?options=-c search_path=x` (a schema, or any run-time setting), which
    asyncpg does not read, as asyncpg's server settings; the URL without it."""
    parsed = make_url(url)
    options = parsed.query.get("options")
    if options is None:
        return url, {}
    text = options if isinstance(options, str) else " ".join(options)
    settings: dict[str, str] = {}
    for word in re.findall(r"-c\s*(\S+)|--(\S+)", text):
        key, sep, value = (word[0] or word[1]).partition("=")
        if not sep:
            raise ValueError(f"DATABASE_URL options must be -c key=value, not {text!r}")
        settings[key.replace("-", "_")] = value
    return parsed.difference_update_query(["options"]).render_as_string(
        hide_password=False
    ), settings


def _alembic_config() -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    return config


@functools.cache
def head_revision() -> str | None:
    """The newest migration's revision (read from the scripts once a process)."""
    return ScriptDirectory.from_config(_alembic_config()).get_current_head()


def _check_sqlite_file(path: Path) -> None:
    """Refuse, before SQLite writes to it, a file that is not a SQLite database."""
    with contextlib.suppress(FileNotFoundError), path.open("rb") as file:
        header = file.read(len(SQLITE_HEADER))
        if header and header != SQLITE_HEADER:
            raise UpgradeRefused(f"{path} is not a SQLite database; it was left as it was.")


def _upgrade_sqlite(connection: Connection) -> None:
    """The upgrade in one transaction with foreign keys off: SQLite alters a table by
    copying it into a new one and dropping the old, which the rows referring to it would
    refuse, and it only switches them outside a transaction. Every reference is checked
    before the upgrade commits."""
    driver = connection.connection.dbapi_connection
    assert driver is not None
    _pragma(driver, "PRAGMA foreign_keys=OFF")
    try:
        with connection.begin():
            if not _upgrade_to_head(connection):
                return
            broken = connection.exec_driver_sql("PRAGMA foreign_key_check").first()
            if broken is not None:
                raise UpgradeRefused(
                    f"The upgrade would leave a row of {broken[0]} referring to a missing "
                    f"{broken[2]} row; the database was left as it was."
                )
    finally:
        _pragma(driver, "PRAGMA foreign_keys=ON")


def _pragma(driver: Any, statement: str) -> None:
    cursor = driver.cursor()
    try:
        cursor.execute(statement)
    finally:
        cursor.close()


def _upgrade_to_head(connection: Connection) -> bool:
    """Alembic's upgrade (True), unless the schema is already at the newest migration
    (every start but a deployment's first): then a read of alembic_version does, not a
    run of Alembic's environment and scripts (13 ms of CPU a start)."""
    current = MigrationContext.configure(connection).get_current_revision()
    if current == head_revision():
        return False
    scripts = ScriptDirectory.from_config(_alembic_config())
    if current is not None and current not in {
        script.revision for script in scripts.walk_revisions()
    }:
        raise UpgradeRefused(
            f"The database was made by a newer version of Paperboard (its schema is at "
            f"revision {current}, this version knows up to {head_revision()}); it was "
            "left as it was."
        )
    _restore_slid_under(connection, scripts, current)
    config = _alembic_config()
    config.attributes["connection"] = connection
    command.upgrade(config, "head")
    return True


def _restore_slid_under(
    connection: Connection, scripts: ScriptDirectory, current: str | None
) -> None:
    """Run the migrations that were put below one a schema already had: its revision
    says they were applied, but what they make is not there."""
    if current is None:
        return
    applied = {script.revision for script in scripts.iterate_revisions(current, "base")}
    for revision, table in SLID_UNDER:
        if revision in applied and not sa.inspect(connection).has_table(table):
            with Operations.context(MigrationContext.configure(connection)):
                scripts.get_revision(revision).module.upgrade()
