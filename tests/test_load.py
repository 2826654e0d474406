"""Load: heavy options never stall the event loop, memory stays bounded, a slow picture
never holds up a move's board, drawing workers are replaced and die with the bot."""

from __future__ import annotations

import asyncio
import contextlib
import io
import os
import pickle
import random
import signal
import subprocess
import sys
import textwrap
import threading
import time
import weakref
from collections.abc import AsyncIterator, Awaitable
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

import engine
from bench.load import with_record
from bot.render import encode, render_gif
from bot.schedule import airunner
from bot.service import GameService, Place, Refused, ServiceCode
from bot.service.core import painter as painter_module
from bot.service.core.painter import Painter
from bot.settings import Settings
from bot.store import Database
from bot.workers import Lane
from engine import Code, hotwire
from tests.conftest import ANN, BOB, frozen_heap

GUILD = 1
PLACE = Place(GUILD, 10)
PNG = b"\x89PNG\r\n\x1a\n"
#: In CPU time, so a loaded machine changes nothing: ~12 ms measured; a 120-move replay on the
#: loop holds it 270 ms (before the sliced replay these stalls measured 360 ms to seconds).
STALL_BOUND = 0.1


async def worst_stall(work: Awaitable[object]) -> float:
    """The longest the event loop went without running a 2 ms ticker while `work` ran, in
    the CPU time this process spent meanwhile (its loop's work, or a thread's holding the
    GIL): the time a loaded machine gave other processes is no stall of the bot's."""
    worst = 0.0
    running = True

    async def ticker() -> None:
        nonlocal worst
        last = time.process_time()
        while running:
            await asyncio.sleep(0.002)
            now = time.process_time()
            worst = max(worst, now - last)
            last = now

    with frozen_heap():
        task = asyncio.create_task(ticker())
        await asyncio.sleep(0.01)
        try:
            await work
        finally:
            running = False
            await task
    return worst


@pytest.fixture
async def drawing_service(tmp_path: Path) -> AsyncIterator[GameService]:
    """A service on SQLite that draws in a worker process, as the bot does."""
    url = f"sqlite:///{tmp_path / 'load.db'}"
    settings = Settings(database_url=url, render_processes=1, _env_file=None)  # type: ignore[call-arg]
    service = GameService(await Database.open(url), settings, rng=random.Random(1))
    try:
        yield service
    finally:
        await service.close()


async def long_game(service: GameService, options: dict[str, object], plies: int) -> int:
    """A game under way with `plies` random moves already in its record (written directly)."""
    issued = await service.challenges.challenge(
        PLACE, ANN, "hotwire", opponents=[BOB], options=options, first="challenger"
    )
    game_id = issued.game.id
    await service.challenges.accept(game_id, GUILD, BOB)
    final = engine.new("hotwire", **options).random_playout(random.Random(5))
    record = final.moves[:plies]
    assert len(record) == plies
    await with_record(service, game_id, record, plies % 2)
    return game_id


async def test_heavy_hot_wire_never_stalls_the_loop(drawing_service: GameService) -> None:
    service = drawing_service
    options: dict[str, object] = {"size": "19x19", "lengths": "any"}  # the most wires allowed
    game_id = await long_game(service, options, 120)
    await service.lookups.board(game_id, GUILD)  # the worker has started
    stalls = {}
    service.records._states.clear()  # a cache miss: the whole record replays
    stalls["board after a cache miss"] = await worst_stall(service.lookups.board(game_id, GUILD))
    stalls["board of the past"] = await worst_stall(service.lookups.board(game_id, GUILD, ply=70))
    state = await service.lookups.state(game_id, GUILD)
    service.records._states.clear()
    mover = (ANN, BOB)[state.to_move or 0]
    move = service.play.move(game_id, GUILD, mover, state.legal_moves()[0])
    stalls["move after a cache miss"] = await worst_stall(move)
    await service.play.request_undo(game_id, GUILD, mover)
    service.records._states.clear()
    other = BOB if mover == ANN else ANN
    stalls["undo"] = await worst_stall(service.play.answer_undo(game_id, GUILD, other, accept=True))
    assert max(stalls.values()) < STALL_BOUND, stalls


async def test_more_hot_wire_candidates_than_allowed_are_refused_with_the_limit(
    drawing_service: GameService,
) -> None:
    with pytest.raises(Refused) as refusal:
        await drawing_service.challenges.challenge(
            PLACE, ANN, "hotwire", opponents=[BOB], options={"size": "26x26", "lengths": "any"}
        )
    assert refusal.value.code == Code.BAD_OPTION
    assert "at most 40,000 possible wires" in str(refusal.value)
    assert '"1-10"' in str(refusal.value) and "19x19" in str(refusal.value)


def test_hot_wire_keeps_a_few_wire_tables() -> None:
    for longest in range(2, 12):
        engine.new("hotwire", size="9x9", lengths=f"1-{longest}")
    assert hotwire._wire_table.cache_info().currsize <= hotwire.TABLES_KEPT <= 8


async def test_a_refused_challenge_builds_no_wire_table(
    service: GameService, monkeypatch: pytest.MonkeyPatch
) -> None:
    built: list[tuple[int, int]] = []

    class CountedTable(hotwire.WireTable):
        def __init__(self, width: int, height: int, lengths: frozenset[int] | None) -> None:
            built.append((width, height))
            super().__init__(width, height, lengths)

    monkeypatch.setattr(hotwire, "WireTable", CountedTable)
    hotwire._wire_table.cache_clear()
    await service.preferences.guild_settings(GUILD, channels=[42])
    with pytest.raises(Refused) as refusal:
        await service.challenges.challenge(
            PLACE, ANN, "hotwire", opponents=[BOB], options={"size": "13x11", "lengths": "1-7"}
        )
    assert refusal.value.code == ServiceCode.CHANNEL
    await service.preferences.guild_settings(GUILD, channels=[])
    service.records.settings.max_open_challenges = 1
    await service.challenges.challenge(PLACE, ANN, "hex", opponents=[BOB])
    with pytest.raises(Refused) as refusal:
        await service.challenges.challenge(
            PLACE, ANN, "hotwire", opponents=[BOB], options={"size": "13x11", "lengths": "1-7"}
        )
    assert refusal.value.code == ServiceCode.LIMIT
    assert built == []


def test_a_long_games_gif_holds_a_few_frames_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    drawn: list[weakref.ref[Image.Image]] = []
    most = 0
    to_palette = encode.to_palette

    def counted(image: Image.Image, theme: dict[str, str]) -> Image.Image:
        nonlocal most
        paletted = to_palette(image, theme)
        drawn.append(weakref.ref(paletted))
        most = max(most, sum(1 for frame in drawn if frame() is not None))
        return paletted

    monkeypatch.setattr(encode, "to_palette", counted)
    final = engine.new("hex", size=7).random_playout(random.Random(3))
    assert final.ply >= 2 * encode.GIF_CHUNK_FRAMES
    gif = render_gif("hex", final.options, final.moves)
    image = Image.open(io.BytesIO(gif))
    assert image.n_frames == final.ply + 1
    assert most <= encode.GIF_CHUNK_FRAMES + 2  # a chunk, the frame before it, one read ahead


def drawing_workers() -> list[int]:
    """This process's drawing workers (spawned multiprocessing children)."""
    found = []
    for pid in children(os.getpid()):
        command = Path(f"/proc/{pid}/cmdline").read_bytes()
        if b"spawn_main" in command:
            found.append(pid)
    return found


def children(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        found += [int(p) for p in (task / "children").read_text().split()]
    return found


def running(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False
    return "\nState:\tZ" not in status  # a zombie has exited


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")
async def test_a_killed_drawing_worker_is_replaced() -> None:
    painter = Painter(1)
    state = engine.new("hex", size=5).play("c3")
    try:
        assert (await painter.png(state, players=["ann", "bob"])).startswith(PNG)
        workers = drawing_workers()
        assert workers
        for pid in workers:
            os.kill(pid, signal.SIGKILL)
        await asyncio.sleep(0.2)
        after = state.play("b2")
        assert (await painter.png(after, players=["ann", "bob"])).startswith(PNG)
        assert (await painter.png(after, players=["ann", "bob"], groups=True)).startswith(PNG)
    finally:
        painter.close()


def test_the_service_and_the_ai_runner_share_one_worker_pool() -> None:
    """`Lane` lives outside the service (bot/workers.py): the painter's two lanes and the
    AI runner's are the same class, defined once."""
    assert Lane.__module__ == "bot.workers"
    assert airunner.Lane is painter_module.Lane is Lane
    assert not hasattr(painter_module, "_start_worker")


async def test_a_moves_board_does_not_wait_for_a_slow_gif() -> None:
    painter = Painter(1)
    long_game = engine.new("livewire").random_playout(random.Random(2))
    board = engine.new("hex", size=5).play("c3")
    try:
        await painter.png(board, players=["ann", "bob"])  # the workers have started
        gif = asyncio.create_task(painter.gif(long_game, players=["ann", "bob"]))
        await asyncio.sleep(0.3)
        assert not gif.done()
        png = await painter.png(board.play("b2"), players=["ann", "bob"])
        assert png.startswith(PNG)
        assert not gif.done()  # the board came first
        await gif
    finally:
        painter.close()


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")
def test_drawing_workers_exit_when_the_bot_is_killed() -> None:
    script = textwrap.dedent(
        """
        import asyncio, engine
        from bot.service.core.painter import Painter

        async def main():
            painter = Painter(1)
            await painter.png(engine.new("hex", size=5), players=["a", "b"])
            await painter.gif(engine.new("hex", size=5), players=["a", "b"])
            print("ready", flush=True)
            await asyncio.sleep(60)

        asyncio.run(main())
        """
    )
    bot = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    descendants: list[int] = []
    try:
        assert bot.stdout is not None and bot.stdout.readline().strip() == "ready"
        descendants = children(bot.pid)
        assert len(descendants) >= 2  # the two lanes' workers (and the resource tracker)
        bot.send_signal(signal.SIGKILL)
        bot.wait()
        deadline = time.monotonic() + 10
        while any(running(pid) for pid in descendants) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not [pid for pid in descendants if running(pid)]
    finally:
        bot.kill()
        for pid in descendants:  # never leave one behind, even when the test fails
            if running(pid):
                os.kill(pid, signal.SIGKILL)


@pytest.mark.parametrize(
    ("name", "options"),
    [
        ("hotwire", {"size": "19x19", "lengths": "any"}),
        ("livewire", {"size": "60x60"}),
        ("intersections", {"size": 12, "rounds": 120}),
        ("shortcircuit", {"size": 10}),
    ],
)
def test_a_state_travels_to_a_worker_without_its_tables(
    name: str, options: dict[str, object]
) -> None:
    final = engine.new(name, **options).random_playout(random.Random(4))
    state = engine.replay(name, final.options, final.moves[: final.ply // 2])
    sent = pickle.dumps(state)
    assert len(sent) < 64_000  # the position, not the game's tables (megabytes)
    arrived = pickle.loads(sent)
    assert arrived == state and arrived.view() == state.view()
    assert arrived.legal_moves() == state.legal_moves()
    move = state.legal_moves()[0]
    assert arrived.play(move) == state.play(move)


async def test_an_undo_replays_before_it_takes_the_write_lock(
    drawing_service: GameService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Other games' moves wait for the write lock: an undo of a long game must not hold it
    while it replays (before the change: the whole replay, a second on the heaviest Hot Wire)."""
    service = drawing_service
    game_id = await long_game(service, {"size": "9x9"}, 30)
    state = await service.lookups.state(game_id, GUILD)
    mover = (ANN, BOB)[state.to_move or 0]
    await service.play.move(game_id, GUILD, mover, state.legal_moves()[0])
    await service.play.request_undo(game_id, GUILD, mover)
    service.records._states.clear()
    holding = False
    replays_under_the_lock = 0
    original_write, original_replay = service.records.db.write, engine.replay_onto

    @contextlib.asynccontextmanager
    async def watched_write() -> AsyncIterator[Any]:
        nonlocal holding
        async with original_write() as conn:
            holding = True
            try:
                yield conn
            finally:
                holding = False

    def watched_replay(*args: Any) -> Any:
        nonlocal replays_under_the_lock
        replays_under_the_lock += holding
        return original_replay(*args)

    monkeypatch.setattr(service.records.db, "write", watched_write)
    monkeypatch.setattr(engine, "replay_onto", watched_replay)
    other = BOB if mover == ANN else ANN
    result = await service.play.answer_undo(game_id, GUILD, other, accept=True)
    assert result.game.ply == state.ply and replays_under_the_lock == 0


async def test_a_big_boards_tables_are_built_off_the_loops_thread(
    service: GameService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Livewire 60x60 builds ~59,000 lines once per process (50-100 ms): one call that cannot
    be sliced, so it runs in a thread, where the loop still gets the GIL every few ms."""
    threads: list[bool] = []
    original = engine.registry.new

    def watched_new(*args: Any, **options: Any) -> engine.GameState:
        threads.append(threading.current_thread() is threading.main_thread())
        return original(*args, **options)

    monkeypatch.setattr(engine, "new", watched_new)
    monkeypatch.setattr(engine.registry, "new", watched_new)
    issued = await service.challenges.challenge(
        PLACE, ANN, "livewire", opponents=[BOB], options={"size": "60x60"}
    )
    await service.challenges.accept(issued.game.id, GUILD, BOB)
    service.records._states.clear()
    await service.lookups.board_text(issued.game.id, GUILD)  # a cache miss replays from the start
    assert threads and not any(threads), threads
