"""The "game changed" signal: who is told when a transaction changes a game.

Every use case's result goes through the outbox write (core/outbox.py), in its
transaction; that write calls `changed`, so a move, a resignation, an undo, a timeout,
an abort, a start or an end is heard of without each use case saying so. In this
process the listeners and the game's watchers are told right after the commit. Across
processes: on PostgreSQL the transaction notifies `NEWS` with the game's id (sent at
the commit, never for a rollback); on SQLite, where nothing is sent, the versions of
the games someone watches here are read every POLL_SECONDS, and a version that moved
tells their watchers (a version is what the row says of the position: ply, status,
whose move, the deadline, and `updated_at`, which an undo or an end without a move
changes too).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable, Iterable
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.store import Database, notify
from bot.store.schema import games
from bot.tasks import stop_task

log = logging.getLogger("paperboard.service")

#: What a transaction that changed a game tells the other processes (its detail: the id).
NEWS = "game"
#: How often SQLite's watched games are read again (a change made by another process
#: shows within this).
POLL_SECONDS = 1.0
#: Games read at a time by the poll.
POLL_BATCH = 500

_C = games.c
_VERSIONS = sa.select(_C.id, _C.ply, _C.status, _C.to_move, _C.deadline_at, _C.updated_at).where(
    _C.id.in_(sa.bindparam("ids", expanding=True))
)


class GameChanges:
    """The signal's hub: `changed` in a transaction, `listeners` for every game changed,
    `watching` for one game's."""

    def __init__(self, database: Database) -> None:
        self._db = database
        #: called with a game's id after a change to it is heard of (this process's, or
        #: another's on PostgreSQL; on SQLite another's to a watched game)
        self.listeners: list[Callable[[int], None]] = []
        self._watchers: dict[int, set[asyncio.Event]] = {}
        self._versions: dict[int, tuple[Any, ...]] = {}  # SQLite: a watched game's, as read
        self._listening = False
        self._poll: asyncio.Task[None] | None = None

    async def changed(self, conn: AsyncConnection, game_id: int) -> None:
        """In a write transaction that changes the game: its watchers are told once it
        commits, in every process."""
        self._db.after_commit(conn, lambda: self.tell(game_id))
        await notify(conn, NEWS, str(game_id))

    def tell(self, game_id: int) -> None:
        """The game changed (committed): tell the listeners and wake its watchers."""
        for listener in self.listeners:
            listener(game_id)
        for woken in self._watchers.get(game_id, ()):
            woken.set()

    @contextlib.asynccontextmanager
    async def watching(self, game_id: int) -> AsyncIterator[asyncio.Event]:
        """An event set whenever the game changes, while the block runs (the waiter clears
        it); the first watcher starts the listening (PostgreSQL) or the poll (SQLite: the
        game's version is read at once, what the next poll compares with)."""
        woken = asyncio.Event()
        first = game_id not in self._watchers
        self._watchers.setdefault(game_id, set()).add(woken)
        try:
            await self._start()
            if first and self._db.is_sqlite:
                await self._read_versions([game_id], tell=False)
            yield woken
        finally:
            watchers = self._watchers.get(game_id, set())
            watchers.discard(woken)
            if not watchers:
                self._watchers.pop(game_id, None)
                self._versions.pop(game_id, None)

    async def close(self) -> None:
        if self._listening:
            self._db.unlisten(NEWS, self._heard)
            self._listening = False
        if self._poll is not None:
            await stop_task(self._poll)
            self._poll = None

    async def _start(self) -> None:
        if self._listening or self._poll is not None:
            return
        if self._db.is_sqlite:
            self._poll = asyncio.create_task(self._polling(), name="paperboard-game-versions")
        else:
            self._listening = True  # before the wait: a second watcher starts nothing
            try:
                await self._db.listen(NEWS, self._heard)
            except BaseException:
                self._listening = False
                raise

    def _heard(self, detail: str) -> None:
        """A notification: the game it names changed; none named (the listening
        connection came back): any watched game may have."""
        if detail.isdecimal():
            self.tell(int(detail))
            return
        for game_id in list(self._watchers):
            self.tell(game_id)

    async def _polling(self) -> None:
        """SQLite: the watched games' versions read every POLL_SECONDS; a game whose
        version moved since the last read is told of (the first read only notes it)."""
        while True:
            await asyncio.sleep(POLL_SECONDS)
            try:
                await self._poll_once()
            except Exception:  # a busy database: the next poll reads again
                log.warning("reading the watched games' versions failed", exc_info=True)

    async def _poll_once(self) -> None:
        for batch in _batches(list(self._watchers), POLL_BATCH):
            await self._read_versions(batch)

    async def _read_versions(self, game_ids: list[int], *, tell: bool = True) -> None:
        """The games' versions read; with `tell`, each that moved since the last read is
        told of (a game without one read before only noted)."""
        async with self._db.read() as conn:
            rows = (await conn.execute(_VERSIONS, {"ids": game_ids})).all()
        for row in rows:
            version = tuple(row)
            before = self._versions.get(row.id)
            if row.id in self._watchers:
                self._versions[row.id] = version
            if tell and before is not None and before != version:
                self.tell(row.id)


def _batches(ids: list[int], size: int) -> Iterable[list[int]]:
    for start in range(0, len(ids), size):
        yield ids[start : start + size]
