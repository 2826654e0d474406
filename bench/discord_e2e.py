"""Discord end-to-end latency: from the INTERACTION_CREATE of a /move (as the fake
Discord writes it to the bot's gateway socket) to the interaction reply that carries
the new board's PNG, over whole Hot Wire 7x7 games played in their threads.

The bot is the real one (discord.py, the service on SQLite, boards drawn in a worker
process); only Discord is the local fake from tests/fakediscord. Last line:

    discord move p99: <ms> ms (p50 <ms> ms)

Run: .venv/bin/python -m bench.discord_e2e [--moves N]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import tempfile
from pathlib import Path

import engine
from bot.discordbot import PaperboardBot
from bot.service import GameService
from bot.settings import Settings
from bot.store import Database
from tests.fakediscord import FakeDiscord, discord_pointed_at, run_bot

GAME, OPTIONS = "hotwire", {"size": "7x7"}


async def measure(moves: int, folder: Path) -> list[float]:
    latencies: list[float] = []
    async with FakeDiscord() as fake:
        with discord_pointed_at(fake):
            guild = fake.create_guild("Bench", channels=["games"])
            ann, bob = fake.create_user("ann"), fake.create_user("bob")
            url = f"sqlite:///{folder / 'bench.db'}"
            settings = Settings(_env_file=None, database_url=url, dev_guild_id=guild.id)  # type: ignore[call-arg]
            service = GameService(await Database.open(url), settings)
            bot = PaperboardBot(service, settings)
            rng = random.Random(2026)
            try:
                async with run_bot(fake, bot):
                    while len(latencies) < moves:
                        latencies += await play_one_game(fake, guild, (ann, bob), service, rng)
            finally:
                await service.close()
    return latencies[:moves]


async def play_one_game(
    fake: FakeDiscord,
    guild: object,
    users: tuple[object, object],
    service: GameService,
    rng: random.Random,
) -> list[float]:
    ann, bob = users
    channel = guild.channel("games")  # type: ignore[attr-defined]
    handle = await fake.slash(
        ann,
        "challenge",
        {"game": GAME, "opponent": bob, "first": "challenger", **OPTIONS},
        channel=channel,
    )
    message = await handle.reply()
    game_id = max(g.id for g in await service.games(guild.id))  # type: ignore[attr-defined]
    await (await fake.press(bob, message, f"pb:c:accept:{game_id}")).ack()
    for _ in range(500):
        game = await service.game(game_id, guild.id)  # type: ignore[attr-defined]
        if game.thread_id is not None:
            break
        await asyncio.sleep(0.01)
    thread = next(t for t in fake.threads if t.id == game.thread_id)
    script = engine.new(GAME, **OPTIONS).random_playout(rng).moves
    latencies = []
    for ply, text in enumerate(script):
        user = (ann, bob)[ply % 2]
        handle = await fake.slash(user, "move", {"move": text}, channel=thread)
        reply = await handle.wait_for_attachment()
        assert reply.files, reply.content
        assert handle.attachment_latency is not None
        latencies.append(handle.attachment_latency)
    return latencies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=500)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        latencies = asyncio.run(measure(args.moves, Path(folder)))
    ms = sorted(value * 1000 for value in latencies)
    p50 = statistics.median(ms)
    p99 = ms[min(len(ms) - 1, round(0.99 * len(ms)))]
    mean = statistics.fmean(ms)
    print(f"{len(ms)} moves of {GAME} {OPTIONS['size']}: mean {mean:.1f} ms, max {ms[-1]:.1f} ms")
    print(f"discord move p99: {p99:.1f} ms (p50 {p50:.1f} ms)")


if __name__ == "__main__":
    main()
