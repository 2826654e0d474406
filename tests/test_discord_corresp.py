"""Correspondence features through the real bot and the local fake Discord: exports,
conditional moves, the next-game queue."""

from __future__ import annotations

import json

from bot.service import Player
from bot.service.core.models import Digest, DigestLine
from tests.conftest import Clock
from tests.discordkit import World, play_slash, start
from tests.discordkit import world as world
from tests.fakediscord.fixtures import fake_discord_fixture  # noqa: F401  (the fixture)


async def test_export_is_anyones_under_way_or_over_like_the_record(world: World) -> None:
    async with world.running():
        game = await start(world, "hex", size="5", options="swap=off")
        thread = world.thread(game)
        ann, cat = world.users["ann"], world.users["cat"]
        own = await (await world.fake.slash(ann, "export", {}, channel=thread)).reply()
        assert own.ephemeral and list(own.files) == [f"hex-{game.id}.json"]  # hers, under way
        assert json.loads(own.files[f"hex-{game.id}.json"])["result"] is None
        handle = await world.fake.slash(
            cat, "export", {"game": game.id, "format": "sgf"}, channel=world.channel
        )
        answer = await handle.reply()
        assert answer.ephemeral and list(answer.files) == [f"hex-{game.id}.sgf"]
        assert answer.files[f"hex-{game.id}.sgf"].startswith(b"(;FF[4]AP[Paperboard]GM[11]SZ[5]")
        await world.service.play.resign(game.id, world.guild.id, Player(ann.id, ann.username))
        handle = await world.fake.slash(ann, "export", {"game": game.id}, channel=thread)
        answer = await handle.reply()
        record = json.loads(answer.files[f"hex-{game.id}.json"])
        assert record["result"]["reason"] == "resignation" and answer.ephemeral


async def test_a_conditional_reply_lands_with_the_move_and_only_its_owner_hears_of_it(
    world: World,
) -> None:
    async with world.running():
        game = await start(world, "hex", size="5", options="swap=off")
        thread = world.thread(game)
        ann, bob = world.users["ann"], world.users["bob"]
        await play_slash(world, game, "a1")
        handle = await world.fake.slash(ann, "conditional", {"line": "b2 c3 d4 e5"}, channel=thread)
        listed = await handle.reply()
        assert listed.ephemeral and "1. if b2 then c3, if d4 then e5" in listed.content
        answer = await play_slash(world, game, "b2")  # bob's move, answered for ann
        assert not answer.ephemeral
        assert f"<@{bob.id}> played b2." in answer.content
        assert f"<@{ann.id}> played c3." in answer.content
        assert "conditional" not in answer.content and "line" not in answer.content
        await world.fake.wait_for(lambda: bool(world.fake.dms(ann)), what="ann's private note")
        note = world.fake.dms(ann)[-1].content
        assert "your conditional line played c3 for you (1 line of yours goes on)" in note
        assert str(thread.id) in note and not world.fake.dms(bob)
        assert list((await world.service.lookups.state(game.id, world.guild.id)).moves) == [
            "a1", "b2", "c3",
        ]  # fmt: skip
        answer = await play_slash(world, game, "a5")  # not d4: ann's last line is dropped
        assert "conditional" not in answer.content
        await world.fake.wait_for(lambda: len(world.fake.dms(ann)) == 2, what="the drop note")
        assert "none of your conditional lines expected" in world.fake.dms(ann)[-1].content
        assert not world.fake.dms(bob)


async def test_next_shows_the_game_with_least_time_and_its_button_the_following_one(
    world: World,
) -> None:
    async with world.running():
        slow = await start(world, "hex", size="3", days_per_move="7")
        fast = await start(world, "hex", size="3", days_per_move="1")
        ann = world.users["ann"]
        answer = await (await world.fake.slash(ann, "next", {}, channel=world.channel)).reply()
        assert answer.ephemeral and answer.content.startswith(f"Hex #{fast.id}: your move, due <t:")
        assert (
            f"<#{fast.thread_id}>" in answer.content
            and "(1 of 2 waiting for you)" in answer.content
        )
        assert list(answer.files) == [f"hex-{fast.id}-move-0.png"]
        assert answer.custom_ids == [f"pb:n:{fast.id}"]
        pressed = await world.fake.press(ann, answer, f"pb:n:{fast.id}")
        following = await pressed.reply()
        assert following.ephemeral and following.content.startswith(f"Hex #{slow.id}: your move")
        assert "(2 of 2 waiting for you)" in following.content
        bob = world.users["bob"]
        none = await (await world.fake.slash(bob, "next", {}, channel=world.channel)).reply()
        assert none.ephemeral and none.content == "No game here is waiting for your move."


async def test_a_guarded_move_is_shown_first_and_played_on_confirm_only(world: World) -> None:
    async with world.running():
        game = await start(world, "hex", size="5", options="swap=off")
        thread = world.thread(game)
        ann = world.users["ann"]
        handle = await world.fake.slash(ann, "settings", {"confirm_moves": True}, channel=thread)
        assert "confirm moves on" in (await handle.reply()).content
        asked = await (await world.fake.slash(ann, "move", {"move": "c3"}, channel=thread)).reply()
        assert asked.ephemeral and asked.content.startswith(f"Play c3 in Hex #{game.id}?")
        assert asked.custom_ids == [f"pb:m:yes:{game.id}:0:c3", f"pb:m:no:{game.id}:0:c3"]
        assert list(asked.files) == [f"hex-{game.id}-move-1.png"]
        assert (await world.game(game.id)).ply == 0  # nothing played yet
        other = await (await world.fake.slash(ann, "move", {"move": "b2"}, channel=thread)).reply()
        cancelled = await world.fake.press(ann, other, f"pb:m:no:{game.id}:0:b2")
        await cancelled.reply()
        assert (await world.game(game.id)).ply == 0 and other.content == "Move b2 not played."
        # a typed move's question is public: only its player may cancel it
        await world.fake.say(ann, thread, "a1")
        typed = await world.fake.wait_for(
            lambda: next(
                (m for m in thread.messages if f"{game.id}:0:a1" in str(m.custom_ids)), None
            ),
            what="the typed move's question",
        )
        assert not typed.ephemeral
        meddler = await world.fake.press(world.users["cat"], typed, f"pb:m:no:{game.id}:0:a1")
        refused = await meddler.reply()
        assert refused.ephemeral and refused.content.startswith("Only the player who asked")
        assert typed.custom_ids  # still asking
        await (await world.fake.press(ann, typed, f"pb:m:no:{game.id}:0:a1")).reply()
        assert typed.content == "Move a1 not played." and not typed.custom_ids
        late = await (await world.fake.slash(ann, "move", {"move": "d4"}, channel=thread)).reply()
        before = len(thread.messages)
        confirmed = await world.fake.press(ann, asked, f"pb:m:yes:{game.id}:0:c3")
        await confirmed.reply()
        await world.fake.wait_for(
            lambda: any("played c3" in m.content for m in thread.messages[before:]),
            what="the confirmed move in the thread",
        )
        assert asked.content == f"You played c3 in Hex #{game.id}." and not asked.custom_ids
        assert (await world.game(game.id)).ply == 1
        again = await world.fake.press(ann, late, f"pb:m:yes:{game.id}:0:d4")  # a stale one
        stale = await again.reply()
        assert stale.ephemeral and stale.content.startswith("This game has moved on:")
        assert (await world.game(game.id)).ply == 1


async def test_the_daily_digest_comes_by_dm_with_time_left_and_thread_links(
    world: World, clock: Clock
) -> None:
    async with world.running() as bot:
        assert bot.scheduler is not None
        game = await start(world, "hex", size="5", options="swap=off", days_per_move="3")
        ann = world.users["ann"]
        handle = await world.fake.slash(
            ann, "settings", {"reminders": "digest", "digest_hour": 9}, channel=world.channel
        )
        assert "Reminders: a daily digest at 9:00" in (await handle.reply()).content
        clock.advance(days=1)  # past 09:00 UTC the next day
        await bot.scheduler.tick()
        await world.fake.wait_for(lambda: bool(world.fake.dms(ann)), what="ann's digest")
        digest = world.fake.dms(ann)[-1].content
        assert digest.startswith("Your move in 1 game:\n· Hex #")
        assert f"due <t:{int((await world.game(game.id)).deadline.timestamp())}:R>" in digest  # type: ignore[union-attr]
        assert f"/channels/{world.guild.id}/{game.thread_id}" in digest
        await bot.scheduler.tick()
        assert len(world.fake.dms(ann)) == 1


async def test_a_long_digest_comes_in_several_dms_cut_between_games(world: World) -> None:
    ann = world.users["ann"]
    listed = tuple(
        DigestLine(n, world.guild.id, f"Hot Wire #{n}", 10**17 + n, None) for n in range(1, 61)
    )
    async with world.running() as bot:
        await bot.announcer.send_digest(Digest(listed[0].game_id, ann.id, listed), nonce="pb1d")
        await world.fake.wait_for(lambda: len(world.fake.dms(ann)) >= 2, what="the digest")
    parts = [dm.content for dm in world.fake.dms(ann)]
    assert all(len(part) <= 2000 for part in parts) and len(parts) >= 2
    assert parts[0].startswith("Your move in 60 games:\n")
    shown = [line for part in parts for line in part.splitlines()[1 if part is parts[0] else 0 :]]
    assert shown == [
        f"· Hot Wire #{n}: https://discord.com/channels/{world.guild.id}/{10**17 + n}"
        for n in range(1, 61)
    ]
