"""Conditional moves end to end: the opponent's /move latency with and without a
conditional reply, through the real bot and the local fake Discord.

Whole Hex 7x7 games (random playouts), bob's moves timed from the INTERACTION_CREATE
of his /move to the interaction reply carrying the board (`attachment_latency`). Games
alternate: plain ones, where ann answers each of bob's moves with her own /move, and
games with conditionals, where before each of bob's moves ann leaves a line "his move,
her reply" with /conditional (not timed), so every timed move of bob is answered by the
line in its own transaction. In those, the reply is checked to be in the very message
that answers bob's /move (it lands with his move: the same second, the same message).

Last line:

    conditional move p99: <ms> ms vs plain <ms> ms (ratio <r>)

Run: .venv/bin/python -m bench.conditionals [--moves N]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import tempfile
from pathlib import Path
from typing import Any

import engine
from bot.discordbot import PaperboardBot
from bot.service import GameService
from bot.settings import Settings
from bot.store import Database
from tests.fakediscord import FakeDiscord, discord_pointed_at, run_bot

GAME, OPTIONS = "hex", {"size": "7", "options": "swap=off"}


async def measure(moves: int, folder: Path) -> dict[str, list[float]]:
    latencies: dict[str, list[float]] = {"plain": [], "conditional": []}
    async with FakeDiscord() as fake:
        with discord_pointed_at(fake):
            guild = fake.create_guild("Bench", channels=["games"])
            users = fake.create_user("ann"), fake.create_user("bob")
            url = f"sqlite:///{folder / 'bench.db'}"
            # boards drawn in a thread: worker processes hang on this machine (bench.discord_e2e
            # on main times out the same way), and both kinds of game draw the same way
            settings = Settings(  # type: ignore[call-arg]
                _env_file=None, database_url=url, dev_guild_id=guild.id, render_processes=0
            )
            service = GameService(await Database.open(url), settings)
            bot = PaperboardBot(service, settings)
            rng = random.Random(2026)
            try:
                async with run_bot(fake, bot):
                    kind = "plain"
                    while min(len(v) for v in latencies.values()) < moves:
                        latencies[kind] += await play_one_game(
                            fake, guild, users, service, rng, kind == "conditional"
                        )
                        kind = "conditional" if kind == "plain" else "plain"
            finally:
                await service.close()
    return {kind: values[:moves] for kind, values in latencies.items()}


async def play_one_game(
    fake: FakeDiscord,
    guild: Any,
    users: tuple[Any, Any],
    service: GameService,
    rng: random.Random,
    conditional: bool,
) -> list[float]:
    ann, bob = users
    channel = guild.channel("games")
    handle = await fake.slash(
        ann,
        "challenge",
        {"game": GAME, "opponent": bob, "first": "challenger", **OPTIONS},
        channel=channel,
    )
    message = await handle.reply(timeout=30)
    game_id = max(g.id for g in await service.lookups.games(guild.id))
    await (await fake.press(bob, message, f"pb:c:accept:{game_id}")).ack()
    for _ in range(500):
        game = await service.lookups.game(game_id, guild.id)
        if game.thread_id is not None:
            break
        await asyncio.sleep(0.01)
    thread = next(t for t in fake.threads if t.id == game.thread_id)
    script = engine.new(GAME, size=7, swap=False).random_playout(rng).moves
    latencies = []
    ply = 0
    while ply < len(script):
        if ply % 2 == 0:  # ann's move: typed by her, or already played by her line
            if (await service.lookups.game(game_id, guild.id)).ply == ply:
                await (await fake.slash(ann, "move", {"move": script[ply]}, channel=thread)).reply(
                    timeout=30
                )
            ply += 1
            continue
        answered = conditional and ply + 1 < len(script)
        if answered:
            line = f"{script[ply]} {script[ply + 1]}"
            await (await fake.slash(ann, "conditional", {"line": line}, channel=thread)).reply(
                timeout=30
            )
        handle = await fake.slash(bob, "move", {"move": script[ply]}, channel=thread)
        reply = await handle.wait_for_attachment(timeout=30)
        assert reply.files and handle.attachment_latency is not None, reply.content
        if answered:  # the line's reply is in the message that answers bob's move
            assert f"<@{ann.id}> played {script[ply + 1]}." in reply.content, reply.content
        latencies.append(handle.attachment_latency)
        ply += 1
    return latencies


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=300)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        found = asyncio.run(measure(args.moves, Path(folder)))
    p99 = {kind: percentile(values, 0.99) * 1000 for kind, values in found.items()}
    for kind, values in found.items():
        ms = [v * 1000 for v in values]
        print(
            f"{kind:<12} {len(ms)} moves of bob: p50 {statistics.median(ms):.1f} ms, "
            f"p99 {p99[kind]:.1f} ms, max {max(ms):.1f} ms"
        )
    slowest = max(found["conditional"]) * 1000
    print(f"slowest move answered by a line: {slowest:.0f} ms (under a second: {slowest < 1000})")
    ratio = p99["conditional"] / p99["plain"]
    print(
        f"conditional move p99: {p99['conditional']:.1f} ms vs plain {p99['plain']:.1f} ms "
        f"(ratio {ratio:.2f})"
    )


if __name__ == "__main__":
    main()
