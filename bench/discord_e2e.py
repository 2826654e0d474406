"""Discord end-to-end latency: from the INTERACTION_CREATE of a /move (as the fake
Discord writes it to the bot's gateway socket) to the interaction reply that carries
the new board's PNG, over whole Hot Wire 7x7 games played in their threads; and the
worst time to the first acknowledgement of any interaction (the challenge, its accept,
the moves), which Discord wants within 3 s. An answer lost (Discord refused it: 404,
10062) fails the run.

The bot is the real one (discord.py, the service on SQLite, boards drawn in a worker
process); only Discord is the local fake from tests/fakediscord. Last line:

    discord move p99: <ms> ms (p50 <ms> ms)

Run: .venv/bin/python -m bench.discord_e2e [--moves N]; on a loaded host, e.g. beside
two `yes > /dev/null`.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import engine
from bot.discordbot import PaperboardBot
from bot.service import GameService
from bot.settings import Settings
from bot.store import Database
from tests.fakediscord import (
    FakeDiscord,
    FakeDiscordTimeout,
    InteractionHandle,
    discord_pointed_at,
    run_bot,
)

GAME, OPTIONS = "hotwire", {"size": "7x7"}


@dataclass
class Measured:
    boards: list[float] = field(default_factory=list)  # each /move to its board, seconds
    acks: list[float] = field(default_factory=list)  # each interaction to its first answer
    lost: int = 0  # interactions Discord never took an answer for

    def answered(self, handle: InteractionHandle) -> None:
        if handle.ack_latency is None:
            self.lost += 1
        else:
            self.acks.append(handle.ack_latency)


async def measure(moves: int, folder: Path) -> Measured:
    measured = Measured()
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
                    while len(measured.boards) < moves:
                        await play_one_game(fake, guild, (ann, bob), service, rng, measured)
            finally:
                await service.close()
    return measured


async def play_one_game(
    fake: FakeDiscord,
    guild: object,
    users: tuple[object, object],
    service: GameService,
    rng: random.Random,
    measured: Measured,
) -> None:
    ann, bob = users
    channel = guild.channel("games")  # type: ignore[attr-defined]
    handle = await fake.slash(
        ann,
        "challenge",
        {"game": GAME, "opponent": bob, "first": "challenger", **OPTIONS},
        channel=channel,
    )
    message = await handle.reply()
    measured.answered(handle)
    game_id = max(g.id for g in await service.lookups.games(guild.id))  # type: ignore[attr-defined]
    accepted = await fake.press(bob, message, f"pb:c:accept:{game_id}")
    await accepted.reply()
    measured.answered(accepted)
    game = await service.lookups.game(game_id, guild.id)  # type: ignore[attr-defined]
    waited = asyncio.get_running_loop().time() + fake.default_timeout
    while game.thread_id is None and asyncio.get_running_loop().time() < waited:
        await asyncio.sleep(0.01)
        game = await service.lookups.game(game_id, guild.id)  # type: ignore[attr-defined]
    thread = next(t for t in fake.threads if t.id == game.thread_id)
    script = engine.new(GAME, **OPTIONS).random_playout(rng).moves
    for ply, text in enumerate(script):
        user = (ann, bob)[ply % 2]
        handle = await fake.slash(user, "move", {"move": text}, channel=thread)
        try:
            reply = await handle.wait_for_attachment()
        except FakeDiscordTimeout:  # lost: the move is played, its board posted in the thread
            measured.lost += 1
            continue
        assert reply.files, reply.content
        assert handle.attachment_latency is not None
        measured.boards.append(handle.attachment_latency)
        measured.answered(handle)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=500)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        measured = asyncio.run(measure(args.moves, Path(folder)))
    ms = sorted(value * 1000 for value in measured.boards[: args.moves])
    acks = sorted(value * 1000 for value in measured.acks)
    mean = statistics.fmean(ms)
    print(f"{len(ms)} moves of {GAME} {OPTIONS['size']}: mean {mean:.1f} ms, max {ms[-1]:.1f} ms")
    print(
        f"first acknowledgement of {len(acks)} interactions: worst {acks[-1]:.1f} ms "
        f"(p99 {percentile(acks, 0.99):.1f} ms, Discord's limit 3000 ms); "
        f"answers lost: {measured.lost}"
    )
    print(f"discord move p99: {percentile(ms, 0.99):.1f} ms (p50 {statistics.median(ms):.1f} ms)")
    if measured.lost:
        sys.exit(1)


def percentile(ordered: list[float], share: float) -> float:
    return ordered[min(len(ordered) - 1, round(share * len(ordered)))]


if __name__ == "__main__":
    main()
