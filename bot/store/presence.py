"""This process on a shared PostgreSQL: its name, held while it lives, and news from others.

Processes sharing a database tell each other of new work with LISTEN/NOTIFY: a
transaction that queues work calls `notify` (PostgreSQL sends the notification when
it commits, never for a rollback), and a process that wants to hear of it `listen`s.
The listening happens on one connection of the process's own, outside the pool, which
also holds the process's name (`hold`): a session advisory lock keyed on the name,
released by PostgreSQL when the connection ends, a kill -9 included. So two live
processes never hold one name, and a process that holds its name knows that rows
leased under that name are its dead predecessor's.

The connection is pinged every `PING` and opened again when it drops; every listener is
then told once, since news may have come while it was away. Notifications carry the
schema (`current_schema()`) as their payload, then a space and the news's detail when it
has one (a game's id): processes of other schemas on the same database (tests side by
side) ignore each other's news; a listener is called with the detail ("" for none, and
after a reconnection).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from collections.abc import Callable
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from bot.tasks import stop_task, wait_set

log = logging.getLogger("paperboard.store")

#: The first key of the advisory locks on process names (the second: a hash of the name).
NAME_LOCK = 0x70626E6D  # "pbnm"
PING_SECONDS = 30.0
RECONNECT_SECONDS = (1.0, 2.0, 5.0, 10.0, 30.0)  # the waits between attempts, then the last

#: Called with the news's detail ("" when it has none, or after a reconnection).
Listener = Callable[[str], None]


def channel_name(news: str) -> str:
    return f"paperboard_{news}"


async def notify(conn: AsyncConnection, news: str, detail: str = "") -> None:
    """In a write transaction on PostgreSQL: tell the listeners of `news` when it commits,
    with `detail` (PostgreSQL sends a notification once however often a transaction
    repeats it)."""
    await conn.execute(
        sa.text(
            "SELECT pg_notify(:channel, rtrim(current_schema() || ' ' || CAST(:detail AS text)))"
        ),
        {"channel": channel_name(news), "detail": detail},
    )


class Presence:
    """The process's own connection: its name's lock and its LISTENs (PostgreSQL only)."""

    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine  # a NullPool engine: the connection is this object's alone
        self._connection: AsyncConnection | None = None
        self._driver: Any = None  # the asyncpg connection under it
        self._schema = ""
        self._name: str | None = None
        self._listeners: dict[str, list[Listener]] = {}
        self._lost = asyncio.Event()
        self._watch: asyncio.Task[None] | None = None
        self._busy = asyncio.Lock()  # one operation on the connection at a time

    async def hold(self, name: str) -> bool:
        """Take `name` for this process while it lives; False when a live process holds it."""
        await self._open()
        async with self._busy:
            if not await self._lock(name):
                return False
        self._name = name
        return True

    async def listen(self, news: str, listener: Listener) -> None:
        """Call `listener` (on the event loop) whenever a transaction that notified `news`
        commits, in any process on this database and schema."""
        await self._open()
        async with self._busy:
            listeners = self._listeners.setdefault(channel_name(news), [])
            listeners.append(listener)
            if len(listeners) == 1 and self._driver is not None:  # else: at the reconnection
                await self._driver.add_listener(channel_name(news), self._heard)

    def unlisten(self, news: str, listener: Listener) -> None:
        with contextlib.suppress(ValueError):
            self._listeners.get(channel_name(news), []).remove(listener)

    async def close(self) -> None:
        if self._watch is not None:
            await stop_task(self._watch)
            self._watch = None
        await self._disconnect()
        await self._engine.dispose()

    # -- the connection -----------------------------------------------------------------------

    async def _open(self) -> None:
        async with self._busy:
            if self._watch is not None:  # open, or being opened again by `_keep`
                return
            await self._connect()
            self._watch = asyncio.create_task(self._keep(), name="paperboard-presence")

    async def _connect(self) -> None:
        connection = await self._engine.connect()
        try:
            raw = await connection.get_raw_connection()
            driver = raw.driver_connection
            assert driver is not None
            self._schema = await driver.fetchval("SELECT current_schema()")
            driver.add_termination_listener(lambda _: self._lost.set())
            for channel in self._listeners:
                await driver.add_listener(channel, self._heard)
        except BaseException:
            with contextlib.suppress(Exception):
                await connection.invalidate()
            raise
        self._connection, self._driver = connection, driver
        self._lost.clear()

    async def _disconnect(self) -> None:
        connection, self._connection, self._driver = self._connection, None, None
        if connection is not None:
            with contextlib.suppress(Exception):  # it may be gone already
                await connection.invalidate()

    async def _lock(self, name: str) -> bool:
        held = await self._driver.fetchval(
            "SELECT pg_try_advisory_lock($1, hashtext(current_schema() || '/' || $2))",
            NAME_LOCK,
            name,
        )
        return bool(held)

    async def _keep(self) -> None:
        """Ping the connection; when it is gone, open another and tell every listener."""
        while True:
            if not await wait_set(self._lost, PING_SECONDS):
                try:
                    async with self._busy:
                        async with asyncio.timeout(PING_SECONDS):  # the ping, not the lock
                            await self._driver.fetchval("SELECT 1")
                    continue
                except Exception:
                    log.warning("the database connection that listens was lost")
            await self._disconnect()
            await self._reconnect()

    async def _reconnect(self) -> None:
        for attempt in itertools.count():
            await asyncio.sleep(RECONNECT_SECONDS[min(attempt, len(RECONNECT_SECONDS) - 1)])
            try:
                async with self._busy:
                    await self._connect()
                    taken = self._name is not None and not await self._lock(self._name)
                if taken:
                    log.warning("process name %s was taken while the database was away", self._name)
            except Exception as exc:
                log.warning("listening again failed (%s: %s)", exc.__class__.__name__, exc)
                await self._disconnect()
                continue
            log.info("listening again")
            for listeners in self._listeners.values():  # news may have come meanwhile
                for listener in list(listeners):
                    listener("")
            return

    def _heard(self, _connection: Any, _pid: int, channel: str, payload: str) -> None:
        schema, _, detail = payload.partition(" ")
        if schema != self._schema:
            return  # another schema's news
        for listener in list(self._listeners.get(channel, ())):
            listener(detail)
