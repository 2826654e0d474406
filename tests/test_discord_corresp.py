"""Correspondence features through the real bot and the local fake Discord: exports,
conditional moves, the next-game queue."""

from __future__ import annotations

import json

from bot.service import Player
from tests.fakediscord.fixtures import fake_discord_fixture  # noqa: F401  (the fixture)
from tests.test_discord import World, start
from tests.test_discord import world as world


async def test_export_waits_for_the_end_for_players_and_not_for_others(world: World) -> None:
    async with world.running():
        game = await start(world, "hex", size="5", options="swap=off")
        thread = world.thread(game)
        ann, cat = world.users["ann"], world.users["cat"]
        refused = await (await world.fake.slash(ann, "export", {}, channel=thread)).reply()
        assert refused.ephemeral and "fair play" in refused.content and not refused.files
        handle = await world.fake.slash(
            cat, "export", {"game": game.id, "format": "sgf"}, channel=world.channel
        )
        answer = await handle.reply()
        assert answer.ephemeral and list(answer.files) == [f"hex-{game.id}.sgf"]
        assert answer.files[f"hex-{game.id}.sgf"].startswith(b"(;FF[4]AP[Paperboard]GM[11]SZ[5]")
        await world.service.resign(game.id, world.guild.id, Player(ann.id, ann.username))
        handle = await world.fake.slash(ann, "export", {"game": game.id}, channel=thread)
        answer = await handle.reply()
        record = json.loads(answer.files[f"hex-{game.id}.json"])
        assert record["result"]["reason"] == "resignation" and answer.ephemeral
