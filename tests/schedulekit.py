"""What the tests of the scheduler share: the outbox the scheduler publishes to, a scheduler on
the test service (fixtures `outbox` and `scheduler`), a second service on the same database, and
a game's deadline rows."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator, Callable
from datetime import datetime, timedelta

import pytest
import sqlalchemy as sa

from bot.schedule import Scheduler
from bot.service import Event, GameService, Reminder, Result
from bot.settings import Settings
from bot.store import Database
from bot.store.schema import deadlines

DAY, HOUR = timedelta(days=1), timedelta(hours=1)


class Outbox:
    """The publish callback: every result the scheduler announces."""

    def __init__(self) -> None:
        self.results: list[Result] = []

    async def __call__(self, result: Result) -> None:
        self.results.append(result)

    def events(self, kind: type[Event] = Event) -> list[Event]:
        return [e for r in self.results for e in r.events if isinstance(e, kind)]

    def reminders(self) -> list[Reminder]:
        return [e for e in self.events(Reminder) if isinstance(e, Reminder)]


async def open_service(url: str, clock: Callable[[], datetime]) -> GameService:
    settings = Settings(database_url=url, render_processes=0, _env_file=None)  # type: ignore[call-arg]
    return GameService(await Database.open(url), settings, clock=clock, rng=random.Random(7))


@pytest.fixture(name="outbox")
def outbox_fixture() -> Outbox:
    return Outbox()


@pytest.fixture(name="scheduler")
async def scheduler_fixture(service: GameService, outbox: Outbox) -> AsyncIterator[Scheduler]:
    runner = Scheduler(service, outbox, worker_id="test-worker")
    yield runner
    await runner.stop()


async def rows(service: GameService, game_id: int) -> dict[str, tuple[datetime, bool]]:
    async with service.records.db.read() as conn:
        found = await conn.execute(
            sa.select(deadlines.c.kind, deadlines.c.due_at, deadlines.c.done).where(
                deadlines.c.game_id == game_id
            )
        )
        return {r.kind: (r.due_at, r.done) for r in found}
