"""Races and crashes: concurrent commands apply exactly once, a killed process loses nothing."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
import sys
from pathlib import Path

import pytest

import engine
from bot.service import GameService, Place, Player, Refused, ServiceCode
from bot.settings import Settings
from bot.store import Database
from engine import Code
from tests.conftest import ANN, BOB
from tests.servicekit import GUILD, PLACE, start

pytestmark = pytest.mark.both_backends

ROOT = Path(__file__).resolve().parents[1]


async def test_200_concurrent_attempts_on_one_game(service: GameService) -> None:
    """The same player double-submitting, both players, outsiders: exactly the legal
    moves apply, in order, none twice."""
    game = await start(service, "hex", {"size": 5, "swap": "off"})
    seat_player = {s.seat: Player(s.player_id or 0, s.name or "?") for s in game.seats}
    script = engine.new("hex", size=5, swap="off").random_playout(random.Random(5))
    sequence = list(script.moves)
    applied: list[int] = []
    acknowledged: list[tuple[int, str]] = []

    async def submit(ply: int, player: Player, text: str) -> None:
        """Retry while the game has not reached `ply`; stop once it is past it."""
        for _ in range(2000):
            try:
                result = await service.play.move(game.id, GUILD, player, text, expected_ply=ply)
            except Refused as refusal:
                current = (await service.lookups.game(game.id, GUILD)).ply
                if current > ply or refusal.code in (
                    ServiceCode.NOT_SEATED,
                    ServiceCode.NOT_YOUR_TURN,
                    Code.GAME_OVER,
                ):
                    return
                await asyncio.sleep(0.001)
                continue
            applied.append(ply)
            acknowledged.append((result.game.ply, text))
            return

    tasks = []
    for ply, text in enumerate(sequence):
        mover = ply % 2
        tasks += [submit(ply, seat_player[mover], text) for _ in range(3)]  # double clicks
        tasks.append(submit(ply, seat_player[1 - mover], text))  # the wrong player
    outsider = Player(4242, "eve")
    tasks += [submit(ply % len(sequence), outsider, "a1") for ply in range(200 - len(tasks))]
    assert len(tasks) >= 200
    random.Random(1).shuffle(tasks)
    await asyncio.gather(*tasks)

    final = await service.lookups.state(game.id, GUILD)
    assert list(final.moves) == sequence
    assert sorted(applied) == list(range(len(sequence)))  # each ply applied exactly once
    assert sorted(acknowledged) == [(p + 1, t) for p, t in enumerate(sequence)]
    assert final.outcome == script.outcome
    assert (await service.lookups.game(game.id, GUILD)).status == "finished"


async def test_1000_concurrent_commands_over_100_games(service: GameService) -> None:
    players = [Player(1000 + i, f"p{i}") for i in range(200)]
    game_ids = []
    for i in range(100):
        issued = await service.challenges.challenge(
            PLACE,
            players[2 * i],
            "hex",
            opponents=[players[2 * i + 1]],
            options={"size": 4, "swap": "off"},
        )
        await service.challenges.accept(issued.game.id, GUILD, players[2 * i + 1])
        game_ids.append(issued.game.id)
    rng = random.Random(3)
    acknowledged: dict[int, dict[int, str]] = {gid: {} for gid in game_ids}

    async def command(game_id: int) -> None:
        state = await service.lookups.state(game_id, GUILD)
        if state.outcome is not None:
            await service.lookups.games(GUILD, channel_id=PLACE.channel_id, limit=5)
            return
        summary = await service.lookups.game(game_id, GUILD)
        seat = rng.choice([0, 1])
        player = Player(summary.seats[seat].player_id or 0, "x")
        text = rng.choice(state.legal_moves())
        try:
            result = await service.play.move(game_id, GUILD, player, text, expected_ply=state.ply)
        except Refused as refusal:
            assert refusal.code in (
                ServiceCode.NOT_YOUR_TURN,
                ServiceCode.STALE,
                Code.GAME_OVER,
                Code.OCCUPIED,
            ), refusal
            return
        acknowledged[game_id][state.ply] = text
        assert result.game.ply > state.ply

    await asyncio.gather(*(command(rng.choice(game_ids)) for _ in range(1000)))
    for game_id in game_ids:
        stored = await service.lookups.record(game_id, GUILD)
        state = await service.lookups.state(game_id, GUILD)
        replayed = engine.replay("hex", state.options, state.moves)
        assert replayed == state
        for ply, text in acknowledged[game_id].items():
            assert state.moves[ply] == text
        assert len(acknowledged[game_id]) == state.ply
        assert stored.text.count("\n") >= state.ply


STREAM = """
import asyncio, random, sys
import pytest

import engine
from bot.service import GameService, Place, Player
from bot.settings import Settings
from bot.store import Database

async def main(url, game_id):
    service = GameService(await Database.open(url), Settings(database_url=url, _env_file=None))
    rng = random.Random(11)
    while True:
        summary = await service.lookups.game(game_id, 1)
        state = await service.lookups.state(game_id, 1)
        if state.outcome is not None:
            print("over", flush=True)
            await asyncio.sleep(60)
        text = rng.choice(state.legal_moves())
        mover = Player(summary.seats[state.to_move].player_id, "x")
        result = await service.play.move(game_id, 1, mover, text, expected_ply=state.ply)
        print(f"ack {result.game.ply} {text}", flush=True)

asyncio.run(main(sys.argv[1], int(sys.argv[2])))
"""


def _acks(printed: str) -> list[tuple[int, str]]:
    """The (ply, move) pairs the move stream printed as committed."""
    words = (line.split() for line in printed.splitlines())
    return [(int(said[1]), said[2]) for said in words if said[:1] == ["ack"]]


async def test_a_killed_process_loses_no_acknowledged_move(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'crash.db'}"
    settings = Settings(database_url=url, _env_file=None)  # type: ignore[call-arg]
    service = GameService(await Database.open(url), settings)
    issued = await service.challenges.challenge(
        Place(1, 10), ANN, "hex", opponents=[BOB], options={"size": 9}
    )
    await service.challenges.accept(issued.game.id, 1, BOB)
    await service.close()

    child = subprocess.Popen(
        [sys.executable, "-c", STREAM, url, str(issued.game.id)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    acknowledged: list[tuple[int, str]] = []
    assert child.stdout is not None
    while len(acknowledged) < 12:
        line = await asyncio.to_thread(child.stdout.readline)
        assert line, "the move stream stopped early"
        acknowledged += _acks(line)
    child.send_signal(signal.SIGKILL)
    child.wait()
    # The child may have played on while the 12th line was read: whatever it printed
    # before the kill was acknowledged too.
    acknowledged += _acks(child.stdout.read())

    service = GameService(await Database.open(url), settings)
    try:
        state = await service.lookups.state(issued.game.id, 1)
        for ply, text in acknowledged:
            assert state.moves[ply - 1] == text
        assert state.ply in (len(acknowledged), len(acknowledged) + 1)  # one may be unprinted
        assert engine.replay("hex", state.options, state.moves) == state
        summary = await service.lookups.game(issued.game.id, 1)
        assert summary.ply == state.ply
        mover = Player(summary.seats[state.to_move or 0].player_id or 0, "x")
        await service.play.move(issued.game.id, 1, mover, state.legal_moves()[0])  # it plays on
    finally:
        await service.close()


async def test_a_start_that_rolled_back_leaves_no_seat_order_behind(
    service: GameService, database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An accept whose transaction fails after drawing the seat order (the connection
    drops before the commit); another process's accept then commits its own order.
    This process must show that order, not the one it drew and never committed (the
    wrong player would be let move)."""
    settings = Settings(database_url=database_url, render_processes=0, _env_file=None)  # type: ignore[call-arg]
    other = GameService(
        await Database.open(database_url),
        settings,
        clock=service.records.clock,
        rng=random.Random(8),
    )
    try:
        for attempt in range(6):  # a random order: the two processes' draws differ in some
            issued = await service.challenges.challenge(
                PLACE, ANN, "hex", opponents=[BOB], options={"size": 3}, first="random"
            )
            game_id = issued.game.id
            announce = service.records.announce

            async def dropped(*args: object) -> None:
                raise ConnectionError("the connection dropped before the commit")

            monkeypatch.setattr(service.records, "announce", dropped)
            with pytest.raises(ConnectionError):
                await service.challenges.accept(game_id, GUILD, BOB)
            monkeypatch.setattr(service.records, "announce", announce)
            committed = (await other.challenges.accept(game_id, GUILD, BOB)).game
            shown = await service.lookups.game(game_id, GUILD)
            assert [s.player_id for s in shown.seats] == [s.player_id for s in committed.seats], (
                f"attempt {attempt}"
            )
    finally:
        await other.close()
