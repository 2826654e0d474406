"""The outbox: what a use case announces is written in the transaction of its change.

A use case's events go into one `outbox` row in the same transaction as the
state they describe, so a committed change always has its announcement stored.
The row is written already claimed by this process (`worker_id`) for a short
lease: the adapter delivers the result at once (`deliver`: its callback, then the
row is marked delivered), renewing the lease while it delivers; an adapter that
answers first (Discord's interaction replies) holds the row from its write on, while
the writing task lives (`Holds`). A process that cannot announce (`paperboard worker`:
`announces` is false) writes its rows unclaimed and notifies `NEWS`, so the
processes that can hear of them when the transaction commits. A process that dies
between the commit and the mark leaves the row undelivered; once the lease runs
out, `redeliver` (the scheduler calls it at start, on news and every few seconds)
claims it like a deadline (`UPDATE ... RETURNING`, `FOR UPDATE SKIP LOCKED` on
PostgreSQL, so two processes never hold one row), rebuilds the result (the events
from JSON, the game as it is now) and delivers it. Delivery is at least once; the
Discord adapter makes it once by sending each message with a nonce derived from
the row, which Discord honours for a few minutes: hence the short lease.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import os
import socket
import types
import uuid
from collections.abc import Awaitable, Callable, Mapping
from datetime import datetime, timedelta
from functools import cache
from typing import Any, Protocol, TypeVar, Union, get_args, get_origin, get_type_hints

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.service.core.changes import GameChanges
from bot.service.core.leases import claim_rows, lease_statement
from bot.service.core.leases import release as release_rows
from bot.service.core.models import (
    Digest,
    Event,
    GameSummary,
    MailBounced,
    Reminder,
    Result,
    TournamentNews,
)
from bot.store import Database, notify
from bot.store.schema import outbox

log = logging.getLogger("paperboard.outbox")

#: The adapter's delivery: announce one result (post it, print it).
Publish = Callable[[Result], Awaitable[object]]
R = TypeVar("R", bound=Result)

#: Short: a crash's announcements go out within half a minute (the scheduler's pass
#: runs every few seconds), well inside the nonces' few minutes.
LEASE = timedelta(seconds=20)
RENEW = timedelta(seconds=5)  # a delivery under way renews its lease this often
#: A result whose delivery keeps failing is given up (and logged) after about ten
#: minutes of tries, one a lease.
MAX_ATTEMPTS = 30
#: What a transaction tells the announcing processes when it leaves them a row.
NEWS = "outbox"
CLAIM_BATCH = 100
KEEP = timedelta(days=1)  # delivered rows are kept this long, then deleted
#: The events that change no game's page (every other says its game changed).
UNCHANGING = (Digest, MailBounced, TournamentNews)


class Host(Protocol):
    """What the outbox needs of the service (bot/service/core/records.py's `Records`)."""

    db: Database
    worker_id: str
    announces: bool
    holds_until_delivered: bool
    holds: Holds
    clock: Callable[[], datetime]
    also_publish: list[Publish]
    changes: GameChanges

    async def summary(
        self, conn: AsyncConnection, game_id: int, row: Any | None = None
    ) -> GameSummary: ...


def default_worker_id() -> str:
    """host:pid:random, unique per process and start (claimed_by holds 64 characters)."""
    return f"{socket.gethostname()[:40]}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


@dataclasses.dataclass(frozen=True, slots=True)
class Pending:
    """An undelivered outbox row that one worker holds a lease on."""

    id: int
    game_id: int
    events: list[dict[str, Any]]
    attempts: int
    published: bool  # its adapter posted it; only the deliveries beside it are left


# == events as JSON ==============================================================================


def event_types() -> dict[str, type[Event]]:
    """Every event class by name: the type tag of its JSON."""
    return {cls.__name__: cls for cls in Event.__subclasses__()}


def event_to_json(event: Event) -> dict[str, Any]:
    """{"type": "MovePlayed", "game_id": 7, ...}: tuples as lists, datetimes as ISO text."""
    return {"type": type(event).__name__, **_plain(dataclasses.asdict(event))}


def event_from_json(data: Mapping[str, Any]) -> Event:
    fields = dict(data)
    cls = event_types()[fields.pop("type")]
    built: Event = _build(cls, fields)
    return built


def _plain(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    return value


def _build(cls: Any, fields: Mapping[str, Any]) -> Any:
    """A dataclass from its JSON fields, each converted back by its type hint."""
    hints = get_type_hints(cls)
    return cls(**{f.name: _typed(hints[f.name], fields[f.name]) for f in dataclasses.fields(cls)})


def _typed(hint: Any, value: Any) -> Any:
    if value is None:
        return None
    origin = get_origin(hint)
    if origin in (Union, types.UnionType):  # X | None: the one type that is not None
        (inner,) = [arg for arg in get_args(hint) if arg is not type(None)]
        return _typed(inner, value)
    if origin is tuple:  # tuple[X, ...]
        return tuple(_typed(get_args(hint)[0], item) for item in value)
    if hint is datetime:
        return datetime.fromisoformat(value)
    if dataclasses.is_dataclass(hint):
        return _build(hint, value)
    return value  # int, str, bool, Literal[...]


class Holds:
    """The rows this process is delivering, or will deliver once its adapter has answered:
    each one's lease is renewed every RENEW while it is held, so no outbox pass (this
    process's or another's) claims it however long the delivery takes. A process that dies
    renews nothing: its rows are claimed once their lease runs out."""

    def __init__(self, service: Host) -> None:
        self._service = service
        self._renewing: dict[int, asyncio.Task[None]] = {}
        # rows held for the task that wrote them: the task, and its done callback
        self._writers: dict[int, tuple[asyncio.Task[Any], Callable[[Any], None]]] = {}

    def hold(self, outbox_id: int, holder: str) -> None:
        """Renew the row's lease while `holder` (its claim's name) holds it."""
        if outbox_id not in self._renewing:
            renewing = _renew(self._service, outbox_id, holder)
            self._renewing[outbox_id] = asyncio.create_task(renewing)

    def hold_for_writer(self, outbox_id: int) -> None:
        """Hold a row this task just wrote until it is delivered or the task ends (an
        interaction's handler that failed before delivering lets it go with it)."""
        writer = asyncio.current_task()
        if writer is None:
            return
        self.let_go(outbox_id)  # the id of a write that rolled back (SQLite reuses ids)
        self.hold(outbox_id, self._service.worker_id)

        def ended(_: object) -> None:
            self._writers.pop(outbox_id, None)
            self.let_go(outbox_id)

        writer.add_done_callback(ended)
        self._writers[outbox_id] = (writer, ended)

    def let_go(self, outbox_id: int) -> None:
        writer = self._writers.pop(outbox_id, None)
        if writer is not None:
            writer[0].remove_done_callback(writer[1])
        renewing = self._renewing.pop(outbox_id, None)
        if renewing is not None:
            renewing.cancel()

    def let_go_all(self) -> None:
        for outbox_id in list(self._renewing):
            self.let_go(outbox_id)


# == writing, claiming, marking ===================================================================


# built once: every use case writes one (building a statement costs more than running it)
_INSERT = outbox.insert().returning(outbox.c.id)


async def write(service: Host, conn: AsyncConnection, result: R, *, later: bool = False) -> R:
    """Store `result`'s events in the use case's transaction, leased to this process,
    which delivers them right after the commit; the result carries the row's id. A
    process whose adapter answers before it delivers (`holds_until_delivered`) holds the
    row from here until the delivery, for as long as the writing task lives. A process
    that does not announce leaves the row to those that do, told at the commit; so does
    `later`: a result that follows from another use case's (an event's next round after a
    game's end), which that use case's caller does not deliver. Every use case that
    changes a game writes here: its watchers hear of it at the commit (core/changes.py)."""
    if not all(isinstance(event, UNCHANGING) for event in result.events):
        await service.changes.changed(conn, result.game.id)
    if not result.events:
        return result
    now = service.clock()
    row = {
        "game_id": result.game.id,
        "events": [event_to_json(event) for event in result.events],
        "created_at": now,
        "claimed_by": service.worker_id,
        "claimed_until": now + LEASE,
        "attempts": 1,
    }
    leased = service.announces and not later
    if not leased:
        row.update(claimed_by=None, claimed_until=None, attempts=0)
        await notify(conn, NEWS)
    outbox_id = int((await conn.execute(_INSERT, row)).scalar_one())
    if leased and service.holds_until_delivered:
        service.holds.hold_for_writer(outbox_id)
    return dataclasses.replace(result, outbox_id=outbox_id)


@cache
def _claim_statement(dialect_name: str) -> sa.Update:
    """Built once per dialect: lease the oldest undelivered rows nobody holds."""
    c = outbox.c
    return lease_statement(
        outbox,
        dialect_name,
        where=(c.delivered_at.is_(None), c.attempts < MAX_ATTEMPTS),
        order_by=c.id,
        returning=(c.id, c.game_id, c.events, c.attempts, c.published_at),
        attempts=c.attempts + 1,
    )


async def claim(
    service: Host, worker: str, lease: timedelta = LEASE, limit: int = CLAIM_BATCH
) -> list[Pending]:
    """Lease up to `limit` undelivered rows whose lease ran out to `worker`, oldest first
    (bot/service/core/leases.py)."""
    rows = await claim_rows(service.db, service.clock(), _claim_statement, worker, lease, limit)
    claimed = [
        Pending(r.id, r.game_id, r.events, r.attempts, r.published_at is not None) for r in rows
    ]
    return sorted(claimed, key=lambda pending: pending.id)


async def mark_delivered(service: Host, outbox_id: int) -> None:
    await _mark(service, outbox_id, delivered_at=service.clock(), claimed_until=None)


async def _mark(service: Host, outbox_id: int, **values: Any) -> None:
    async with service.db.write() as conn:
        await conn.execute(outbox.update().where(outbox.c.id == outbox_id).values(**values))


async def release(service: Host, conn: AsyncConnection) -> int:
    """In a write transaction: what this process's name left undelivered before it
    started (a crash) is claimable at once, and the announcing processes are told."""
    released = await release_rows(conn, outbox, service.worker_id, outbox.c.delivered_at.is_(None))
    if released:
        await notify(conn, NEWS)
    return released


# == delivering ===================================================================================


async def deliver(
    service: Host,
    result: Result,
    publish: Publish,
    *,
    published: bool = False,
    holder: str | None = None,
) -> None:
    """Announce `result` through the adapter's `publish` (unless it is `published`
    already) and the deliveries beside it (`also_publish`: mail), then mark its row
    delivered. If one raises, the row stays undelivered: `redeliver` sends it again, and
    a row whose post went out before a mail failed is marked published, so it is posted
    no second time (the mail announcer makes its own repeats once). The mark is written
    only then: a delivery that succeeds is one write, its row delivered (a crash between
    the post and that write posts again, with the same nonce). While `publish` runs
    (Discord slow, retrying) the row stays held by its claim (`holder`: this process's
    name, unless an outbox pass claimed it): no outbox pass takes a delivery under way for
    a crashed one and posts it a second time."""
    if result.outbox_id is None:
        await publish(result)
        return
    service.holds.hold(result.outbox_id, holder or service.worker_id)
    try:
        if not published:
            await publish(result)
        try:
            for also in service.also_publish:
                await also(result)
        except Exception:  # posted, not mailed: the next try mails without posting again
            if not published:
                await _mark(service, result.outbox_id, published_at=service.clock())
            raise
    finally:
        service.holds.let_go(result.outbox_id)
    await mark_delivered(service, result.outbox_id)


async def _renew(service: Host, outbox_id: int, holder: str) -> None:
    while True:
        await asyncio.sleep(RENEW.total_seconds())
        async with service.db.write() as conn:
            await conn.execute(
                outbox.update()
                .where(
                    outbox.c.id == outbox_id,
                    outbox.c.claimed_by == holder[:64],
                    outbox.c.delivered_at.is_(None),
                )
                .values(claimed_until=service.clock() + LEASE)
            )


async def redeliver(service: Host, publish: Publish, worker: str, limit: int = CLAIM_BATCH) -> int:
    """Deliver what a crashed process (or a failed delivery) left undelivered; returns
    how many results were delivered. The game is read as it is now."""
    delivered = 0
    while True:
        pending = await claim(service, worker, LEASE, limit)
        for row in pending:
            try:
                events = tuple(event_from_json(data) for data in row.events)
                async with service.db.read() as conn:
                    game = await service.summary(conn, row.game_id)
            except Exception:  # it will never read better: drop it, loudly
                log.exception("outbox row %d cannot be read; dropped", row.id)
                await mark_delivered(service, row.id)
                continue
            events = tuple(e for e in events if not _stale_reminder(e, game, service.clock()))
            if not events:  # only reminders of turns that are over: nothing left to say
                await mark_delivered(service, row.id)
                continue
            try:
                result = Result(game, events, outbox_id=row.id)
                await deliver(service, result, publish, published=row.published, holder=worker)
            except Exception:
                give_up = row.attempts >= MAX_ATTEMPTS
                log.exception(
                    "game=%d outbox row %d failed (attempt %d)%s",
                    row.game_id,
                    row.id,
                    row.attempts,
                    ": given up" if give_up else "",
                )
                continue
            # late: not by the process that wrote it (the first claim of a row left by a
            # process that does not announce makes attempts 1)
            late = " late" if row.attempts > 1 else ""
            log.info("game=%d outbox row %d delivered%s", row.game_id, row.id, late)
            delivered += 1
        if len(pending) < limit:
            return delivered


def _stale_reminder(event: Event, game: GameSummary, now: datetime) -> bool:
    """A reminder redelivered late whose turn is over or whose deadline has passed or
    moved: "your move is due two days ago" helps no one."""
    return isinstance(event, Reminder) and (
        game.player_to_move != event.player_id
        or game.deadline != event.deadline
        or event.deadline <= now
    )


async def cleanup(service: Host) -> int:
    """Delete the rows delivered (or given up) more than KEEP ago; returns how many."""
    cutoff = service.clock() - KEEP
    old = sa.or_(
        outbox.c.delivered_at < cutoff,
        sa.and_(outbox.c.attempts >= MAX_ATTEMPTS, outbox.c.created_at < cutoff),
    )
    return await service.db.delete_in_batches(outbox, old)


class Delivery:
    """The adapters' door to the outbox: announce a result after its commit, and deliver
    again what a crashed process or a failed delivery left undelivered."""

    def __init__(self, records: Host) -> None:
        self.records = records

    async def deliver(self, result: Result, publish: Publish) -> None:
        """Announce a use case's result through the adapter's `publish`, then mark it
        delivered. If `publish` raises, `redeliver` sends it again later."""
        await deliver(self.records, result, publish)

    async def redeliver(self, publish: Publish, worker: str | None = None) -> int:
        """Deliver the results left undelivered, once their lease has run out, with the
        game as it is now; returns how many."""
        return await redeliver(self.records, publish, worker or self.records.worker_id)
