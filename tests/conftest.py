"""Shared fixtures: a database of each backend, a service with a controllable clock."""

from __future__ import annotations

import asyncio
import os
import random
import subprocess
import sys
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

import asyncpg
import pytest

from bot.service import GameService
from bot.settings import Settings
from bot.store import Database
from bot.store.database import scratch_schema

POSTGRES_URL = os.environ.get(
    "PAPERBOARD_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/test"
)
REQUIRE_POSTGRES = os.environ.get("PAPERBOARD_REQUIRE_POSTGRES") == "1"
ROOT = Path(__file__).resolve().parents[1]


class Clock:
    """A clock the tests move by hand: no real sleeping."""

    def __init__(self, start: datetime | None = None) -> None:
        self.now = start or datetime(2026, 11, 21, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


async def _admin() -> asyncpg.Connection:
    """A connection to the shared test server, or skip (fail when it is required)."""
    try:
        return await asyncpg.connect(
            POSTGRES_URL.replace("postgresql://", "postgres://"), timeout=3
        )
    except (OSError, asyncpg.PostgresError) as exc:
        message = f"PostgreSQL is not reachable at {POSTGRES_URL} ({exc.__class__.__name__}: {exc})"
        if REQUIRE_POSTGRES:
            pytest.fail(f"{message}; PAPERBOARD_REQUIRE_POSTGRES=1 makes this a failure")
        pytest.skip(f"{message}; start it or set PAPERBOARD_TEST_POSTGRES")


@asynccontextmanager
async def postgres_schema() -> AsyncIterator[str]:
    """A DATABASE_URL into a schema of this test's own on the shared server, dropped
    afterwards: runs sharing the server (a developer's and CI's) never collide."""
    connection = await _admin()  # skips (or fails) when the server is not there
    await connection.close()
    async with scratch_schema(POSTGRES_URL, "pb_test") as url:
        yield url


async def run_together(script: str, arguments: Sequence[Sequence[str]]) -> list[str]:
    """Run `script` in one OS process per argument list and return what each printed.
    Each prints "ready" once set up and waits for a line on stdin: all go at once."""
    children = [
        subprocess.Popen(
            [sys.executable, "-c", script, *args],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        for args in arguments
    ]
    for child in children:
        assert child.stdout is not None
        assert (await asyncio.to_thread(child.stdout.readline)).strip() == "ready"
    for child in children:
        assert child.stdin is not None
        child.stdin.write("go\n")
        child.stdin.flush()
    outputs = await asyncio.gather(
        *(asyncio.to_thread(child.communicate, timeout=60) for child in children)
    )
    assert all(child.returncode == 0 for child in children)
    return [out for out, _ in outputs]


@pytest.fixture(params=["sqlite", "postgresql"])
async def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'paperboard.db'}"
        return
    async with postgres_schema() as url:
        yield url


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
async def service(database_url: str, clock: Clock) -> AsyncIterator[GameService]:
    settings = Settings(database_url=database_url, render_processes=0, _env_file=None)  # type: ignore[call-arg]
    database = await Database.open(database_url)
    svc = GameService(database, settings, clock=clock, rng=random.Random(7))
    try:
        yield svc
    finally:
        await svc.close()
