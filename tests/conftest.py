"""Shared fixtures and helpers: a database (SQLite; PostgreSQL too for a test marked
`both_backends`), a service with a controllable clock, the people who play in tests, and a
game with moves played."""

from __future__ import annotations

import asyncio
import gc
import os
import random
import shutil
import subprocess
import sys
import sysconfig
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TypeVar

import asyncpg
import pytest
from aiohttp import web as web_app
from aiohttp.test_utils import TestClient, TestServer
from hypothesis import HealthCheck, settings
from sqlalchemy.engine import make_url

import engine
from bot.heap import LongLived
from bot.service import GameService, Player
from bot.settings import Settings
from bot.store import Database
from bot.store.database import scratch_schema
from bot.store.schema import metadata
from engine import GameState

POSTGRES_URL = os.environ.get(
    "PAPERBOARD_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/test"
)
REQUIRE_POSTGRES = os.environ.get("PAPERBOARD_REQUIRE_POSTGRES") == "1"
#: Every test that takes a database on both backends, not only those marked `both_backends`
#: (for a change to the store: what the marked tests do not reach shows here).
ALL_ON_BOTH_BACKENDS = os.environ.get("PAPERBOARD_ALL_BACKENDS") == "1"
ROOT = Path(__file__).resolve().parents[1]
pytest_plugins = ["tests.hangwatch"]  # a test that hangs fails with its stacks
# Hypothesis times each example and the drawing of data by the wall clock: on a loaded
# machine that measures the load, not the code.
settings.register_profile(
    "any machine", deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("any machine")
#: How long a test waits for what only a broken program never does (a child process starting,
#: answering or stopping, a bot's move arriving): on a loaded machine these take tens of
#: seconds (a fresh process imports for seconds of CPU; workers run niced), so a bound here
#: says "it happens", not "it is fast".
PATIENCE_SECONDS = 300.0
#: People in tests: ids above the bot's (BOT_ID_RANGE, bot/service/core/levels.py), as every
#: person's is; the service refuses a person there, who would read as a level of the bot.
ANN, BOB = Player(9001, "ann"), Player(9002, "bob")
CAT, DAN = Player(9003, "cat"), Player(9004, "dan")
State = TypeVar("State", bound=GameState)


def play(state: State, *moves: str) -> State:
    """`state` after `moves`, played one after the other (each move makes a new state)."""
    for move in moves:
        state = state.play(move)
    return state


def game(kind: type[State], *moves: str, players: object = None, **options: object) -> State:
    """A new game of the state class `kind` with `moves` played, started as a player's would be
    (engine.new by the game's name: the options and players are checked)."""
    state = engine.new(kind.info.name, players, **options)
    assert isinstance(state, kind)
    return play(state, *moves)


def random_position(state: GameState, plies: int, rng: random.Random) -> GameState:
    """`state` after up to `plies` moves drawn by `rng` from the legal ones (fewer if the
    game ends)."""
    for _ in range(plies):
        if state.outcome is not None:
            break
        state = state.play(rng.choice(state.legal_moves()))
    return state


@contextmanager
def cpu_clock() -> Iterator[Callable[[], float]]:
    """This thread's CPU time, made the clock that the code under test reads too
    (time.monotonic): a search's time budget and the test's measure of it then both count
    the work done, not the time other processes held the cores, so a test that the work
    stops in time passes or fails alike on a quiet and on a loaded machine. Synchronous
    code only (an event loop's timers read time.monotonic)."""
    wall_clock = time.monotonic
    time.monotonic = time.thread_time
    try:
        with frozen_heap():
            yield time.thread_time
    finally:
        time.monotonic = wall_clock


@contextmanager
def frozen_heap() -> Iterator[None]:
    """The test process's own heap (hundreds of tests' objects) left out of garbage
    collection meanwhile: a full collection of it in the middle of timed work (0.35 s in a
    0.05 s search, once) is the test process's cost, not the work's. Frozen as it is, its
    garbage with it (collected after): a collection first cost each timed section as much
    (0.3-0.5 s of CPU in a worker holding the parsed sources and its tests' objects)."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


@pytest.fixture(autouse=True)
def collector_as_found() -> Iterator[None]:
    """A bot started inside a test and never closed (its run cancelled) leaves its
    LongLived in `gc.callbacks` (bot/heap.py), freezing each full collection's survivors:
    taken out after the test, as the bot's process would have ended."""
    yield
    gc.callbacks[:] = [c for c in gc.callbacks if not isinstance(c, LongLived)]


def skip_without_a_c_compiler(instead: str) -> None:
    """Skip a test of a compiled module where the install had no C compiler or Python
    headers to build it; `instead` says what runs then."""
    compiler = str(sysconfig.get_config_var("CC") or "cc").split()[0]
    headers = Path(sysconfig.get_paths()["include"], "Python.h")
    if shutil.which(compiler) is None or not headers.exists():
        pytest.skip(f"no C compiler ({compiler}) or {headers}: {instead}")


def skip_unless_built(module: object, what: str) -> pytest.MarkDecorator:
    """Skip a test that compares a compiled module (`what`) with its Python where the
    install did not build it."""
    return pytest.mark.skipif(
        module is None, reason=f"{what} were not built (no C compiler at install)"
    )


def kept_time(took: float, seconds: float) -> bool:
    """Whether work given `seconds` stopped in time, `took` measured with cpu_clock. A search
    that misses its clock overshoots by whole playouts (a second each on the largest boards)
    or by minutes; what it does after its deadline (ranking its moves) costs a little more
    CPU time beside a busy sibling core, hence a quarter and 0.1 s of slack."""
    return took <= seconds * 1.25 + 0.1


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
        *(asyncio.to_thread(child.communicate, timeout=PATIENCE_SECONDS) for child in children)
    )
    assert all(child.returncode == 0 for child in children)
    return [out for out, _ in outputs]


async def _migrated(url: str) -> None:
    database = await Database.open(url)
    await database.close()


@pytest.fixture(scope="session")
def migrated_sqlite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An SQLite file brought to the newest migration once: each test starts from a
    copy (a copy takes ~20 ms, the migrations ~250 ms)."""
    path = tmp_path_factory.mktemp("template") / "paperboard.db"
    asyncio.run(_migrated(f"sqlite:///{path}"))
    assert not path.with_name(path.name + "-wal").exists()  # all of it is in the file
    return path


def _database_url(name: str) -> str:
    return make_url(POSTGRES_URL).set(database=name).render_as_string(hide_password=False)


async def _on_server(statement: str) -> None:
    connection = await _admin()
    try:
        await connection.execute(statement)
    finally:
        await connection.close()


@asynccontextmanager
async def fresh_database() -> AsyncIterator[str]:
    """A DATABASE_URL to a new, empty PostgreSQL database of this test's own (not even
    migrated), dropped afterwards with whatever is still connected to it."""
    name = f"pb_test_{uuid.uuid4().hex[:16]}"
    await _on_server(f"CREATE DATABASE {name}")  # skips (or fails) without the server
    try:
        yield _database_url(name)
    finally:
        await _on_server(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@pytest.fixture(scope="session")
def migrated_postgres() -> Iterator[str | None]:
    """A PostgreSQL database of this run's own (of this xdist worker's: each worker is a
    session), brought to the newest migration once and emptied for each test that takes it
    (emptied_postgres). None when the server is not there (the tests then skip, or fail
    when it is required)."""
    name = f"pb_run_{uuid.uuid4().hex[:16]}"
    try:
        asyncio.run(_on_server(f"CREATE DATABASE {name}"))
    except (Exception, pytest.skip.Exception, pytest.fail.Exception):  # each test reports it
        yield None
        return
    try:
        asyncio.run(_migrated(_database_url(name)))
        yield name
    finally:
        asyncio.run(_on_server(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"))


async def emptied_postgres(name: str) -> None:
    """The migrated database `name` as the migrations left it: whatever is still connected
    to it cut off (with its locks), every row deleted and every sequence restarted, so a
    test sees no row, id or lock of the one before. ~50 ms, where a database made from a
    template and dropped takes ~350 ms (CREATE and DROP DATABASE write and sync files;
    DELETE on a few rows does not, nor does TRUNCATE's new file per table)."""
    connection = await asyncpg.connect(
        _database_url(name).replace("postgresql://", "postgres://"), timeout=3
    )
    try:
        await connection.execute(
            "SELECT pg_terminate_backend(pid, 10000) FROM pg_stat_activity"  # waits for it
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        sequences = await connection.fetch(
            "SELECT sequence_name FROM information_schema.sequences"
            " WHERE sequence_schema = current_schema()"
        )
        async with connection.transaction():
            for table in reversed(metadata.sorted_tables):  # rows that others refer to last
                await connection.execute(f"DELETE FROM {table.name}")
            for row in sequences:
                await connection.execute(f"ALTER SEQUENCE {row['sequence_name']} RESTART")
    finally:
        await connection.close()


@pytest.hookimpl(wrapper=True)
def pytest_collection() -> Iterator[object]:
    """Collection without garbage collection: each worker imports every test module, rewrites
    their asserts and parses the sources (tests/parsed_sources.py), millions of objects that
    all live on, which the collector would otherwise scan again and again (a quarter of a
    worker's collection)."""
    gc.disable()
    try:
        return (yield)
    finally:
        gc.enable()


#: The backends a test marked `both_backends` runs on; every other test that takes a database
#: (`database_url`, `service`) runs on the first alone.
BACKENDS = ("sqlite", "postgresql")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """A test that takes a database runs on SQLite, and on PostgreSQL too when it is marked
    `both_backends`: the store, races, migrations, claims shared by processes, SQL types
    and ranges, whose outcome can depend on the backend. The rest speak to the store through
    the same SQLAlchemy statements, which the marked tests run on both."""
    if "database_url" not in metafunc.fixturenames or _parametrizes_database(metafunc):
        return
    both = ALL_ON_BOTH_BACKENDS or metafunc.definition.get_closest_marker("both_backends")
    metafunc.parametrize("database_url", BACKENDS if both else BACKENDS[:1], indirect=True)


def _parametrizes_database(metafunc: pytest.Metafunc) -> bool:
    """Whether the test names its backends itself (@pytest.mark.parametrize("database_url"))."""
    for mark in metafunc.definition.iter_markers("parametrize"):
        names = mark.args[0]
        if isinstance(names, str):
            names = names.replace(" ", "").split(",")
        if "database_url" in names:
            return True
    return False


@pytest.fixture
async def database_url(
    request: pytest.FixtureRequest,
    tmp_path: Path,
    migrated_sqlite: Path,
    migrated_postgres: str | None,
) -> AsyncIterator[str]:
    """A migrated database of this test's own: SQLite, or PostgreSQL for a `both_backends`
    test's second run (pytest_generate_tests)."""
    if request.param == "sqlite":
        shutil.copyfile(migrated_sqlite, tmp_path / "paperboard.db")
        yield f"sqlite:///{tmp_path / 'paperboard.db'}"
        return
    if migrated_postgres is None:
        await (await _admin()).close()  # skips, or fails when PostgreSQL is required
    await emptied_postgres(migrated_postgres)
    try:
        yield _database_url(migrated_postgres)
    finally:
        await emptied_postgres(migrated_postgres)


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


#: The address the web fixture's pages say they are reached at (PUBLIC_URL).
WEB_URL = "https://games.example.org"


@pytest.fixture
async def web(
    service: GameService,
) -> AsyncIterator[TestClient[web_app.Request, web_app.Application]]:
    """The web pages over the `service` fixture, through aiohttp's test client (on a free
    loopback port): `await web.get("/s/77/g/1")`. No rate limits per address or session
    (tests/test_web.py and tests/test_web_signin.py test them with apps of their own);
    PUBLIC_URL is `WEB_URL`. tests/webkit.py turns a server's pages on and plays games to
    show."""
    from bot.web.app import create_app

    settings = service.records.settings.model_copy(
        update={"web_rate_limit": 0, "web_session_rate": 0, "public_url": WEB_URL}
    )
    async with TestClient(TestServer(create_app(service, settings))) as client:
        yield client
