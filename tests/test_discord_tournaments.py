"""Events on the fake Discord: /tournament create posts a sign-up message whose Join and
Leave buttons enter players, /tournament start opens each game in a thread named for the
event and round, a game played to its end, the standings' pictures, who may run events
(/config tournaments:everyone), and the event's JSON export."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.service import GameSummary, Place, Player
from bot.store.schema import entrants, players
from tests.conftest import Clock
from tests.discordkit import World, settled_game, world_on
from tests.fakediscord import Channel, FakeDiscord, Message
from tests.fakediscord.fixtures import fake_discord_fixture  # noqa: F401  (the fixture)

PNG = b"\x89PNG"


@pytest.fixture
async def world(fake_discord: FakeDiscord, tmp_path: Path, clock: Clock) -> AsyncIterator[World]:
    async with world_on(fake_discord, f"sqlite:///{tmp_path / 'bot.db'}", clock) as world:
        yield world


async def create(world: World, **given: object) -> Message:
    """The server's owner (Manage Server) creates a 5x5 Hex round robin named Spring."""
    options = {"game": "hex", "format": "roundrobin", "size": "5", "name": "Spring", **given}
    handle = await world.fake.slash(
        world.fake.owner, "tournament create", options, channel=world.channel
    )
    return await handle.reply()


async def press(world: World, name: str, message: Message, custom_id: str, shows: str) -> None:
    """A player presses a sign-up button; the message then `shows` the entrants."""
    await world.fake.press(world.users[name], message, custom_id)
    await world.fake.wait_for(lambda: shows in message.content, what=repr(shows))


async def refused(world: World, name: str, message: Message, custom_id: str) -> Message:
    """A press the bot refuses: its answer, to the presser alone."""
    answer = await (await world.fake.press(world.users[name], message, custom_id)).reply()
    assert answer.ephemeral, answer.content
    return answer


def threads_named(world: World, prefix: str) -> list[Channel]:
    return [t for t in world.fake.threads if t.name.startswith(prefix)]


async def resign_in_thread(world: World, game: GameSummary, seat: int = 0) -> None:
    """The player in `seat` resigns in the game's thread; the game is then over."""
    game = await settled_game(world, game.id, lambda g: g.thread_id, "its thread")
    loser = world.user_of(game, seat)
    ask = await (await world.fake.slash(loser, "resign", {}, channel=world.thread(game))).reply()
    (yes,) = [c for c in ask.custom_ids if c.startswith("pb:r:yes")]
    await (await world.fake.press(loser, ask, yes)).reply()
    await settled_game(world, game.id, lambda g: g.status == "finished", "its end")


async def test_sign_up_start_threads_a_game_to_its_end_and_the_standings(world: World) -> None:
    async with world.running():
        signup = await create(world)
        assert not signup.ephemeral
        assert signup.content.startswith(
            "**Spring Hex** (event #1): a round robin of Hex (size=5, swap=on), "
        )
        assert signup.custom_ids == ["pb:t:join:1", "pb:t:leave:1"]
        assert "0 players" in signup.content
        await press(world, "ann", signup, "pb:t:join:1", "1 player: ann")
        await press(world, "bob", signup, "pb:t:join:1", "2 players: ann, bob")
        await press(world, "cat", signup, "pb:t:join:1", "3 players: ann, bob, cat")
        again = await refused(world, "ann", signup, "pb:t:join:1")  # a double press
        assert again.content == "You are in Spring Hex already."
        event = await world.service.event_reads.tournament(1, world.guild.id)
        assert [e.name for e in event.entrants] == ["ann", "bob", "cat"]
        # Leave, then Join again: one entry each
        await press(world, "cat", signup, "pb:t:leave:1", "2 players: ann, bob\n")
        await press(world, "cat", signup, "pb:t:join:1", "3 players: ann, bob, cat")

        # only the organizer or a manager starts it
        not_yours = await (
            await world.fake.slash(
                world.users["bob"], "tournament start", {"event": 1}, channel=world.channel
            )
        ).reply()
        assert not_yours.ephemeral and "Only the organizer" in not_yours.content
        started = await (
            await world.fake.slash(
                world.fake.owner, "tournament start", {"event": 1}, channel=world.channel
            )
        ).reply()
        assert started.content == "Spring Hex has started."
        await world.fake.wait_for(
            lambda: len(threads_named(world, "Spring Hex · round")) == 3, what="three threads"
        )
        names = sorted(t.name for t in threads_named(world, "Spring Hex"))
        assert all(re.fullmatch(r"Spring Hex · round [123] · \w+ v \w+", n) for n in names)
        await world.fake.wait_for(
            lambda: any("all 3 games start now" in m.content for m in world.channel.messages),
            what="the round's announcement",
        )
        # a game played to its end: its first player resigns in its thread
        listed = await world.service.lookups.games(world.guild.id, status="active")
        game = next(g for g in listed if g.event_id == 1)
        thread = world.thread(game)
        assert thread.name.startswith(f"{game.event} · ")
        await resign_in_thread(world, game)

        handle = await world.fake.slash(
            world.users["ann"], "tournament standings", {"event": 1}, channel=world.channel
        )
        shown = await handle.wait_for_attachment()
        assert not shown.ephemeral
        headline, table = shown.content.split("\n", 1)
        assert headline == "**Spring Hex**: standings in round 1."
        assert table.startswith("```\n") and table.endswith("\n```")
        assert all(name in table for name in ("ann", "bob", "cat"))
        pictures = list(shown.files.values())
        assert len(pictures) == 2 and all(p.startswith(PNG) for p in pictures)  # + crosstable

        pairings = await (
            await world.fake.slash(
                world.users["ann"], "tournament pairings", {"event": 1}, channel=world.channel
            )
        ).reply()
        assert f"<#{thread.id}> #{game.id}" in pairings.content and "won" in pairings.content

        listing = await (
            await world.fake.slash(world.users["cat"], "tournament list", {}, channel=world.channel)
        ).reply()
        assert "#1 **Spring Hex**: round robin, 3 players, round 1" in listing.content

        # Join on the started event's message is refused; the message loses its buttons
        late = await world.fake.press(world.users["ann"], signup, "pb:t:join:1")
        await world.fake.wait_for(lambda: not signup.components, what="the buttons gone")
        refusal = await world.fake.wait_for(
            lambda: next((e.message for e in late.events if e.kind == "followup"), None),
            what="the refusal",
        )
        assert refusal.ephemeral and refusal.content == "Spring Hex is under way."
        assert "Under way" in signup.content
        assert len((await world.service.event_reads.tournament(1, world.guild.id)).entrants) == 3

        handle = await world.fake.slash(
            world.users["cat"], "tournament export", {"event": 1}, channel=world.channel
        )
        exported = await handle.wait_for_attachment()
        ((filename, data),) = exported.files.items()
        assert filename == "event-1.json"
        record = json.loads(data)
        assert record["title"] == "Spring Hex" and record["format"] == "round_robin"
        assert [e["name"] for e in record["entrants"]] == ["ann", "bob", "cat"]
        assert len(record["games"]) == 3
        ended = [g for g in record["games"] if g["done"]]
        assert len(ended) == 1 and ended[0]["record"]["result"]["reason"] == "resignation"
        assert ended[0]["winner_id"] == world.user_of(game, 1).id
        assert record["standings"][0]["rows"][0]["name"] == world.user_of(game, 1).username
        assert len(record["crosstables"]) == 1


async def test_members_create_events_once_the_server_opens_them(world: World) -> None:
    async with world.running():
        ann = world.users["ann"]
        options = {"game": "hex", "format": "swiss", "name": "Open"}
        not_yours = await (
            await world.fake.slash(ann, "tournament create", options, channel=world.channel)
        ).reply()
        assert not_yours.ephemeral
        assert not_yours.content == "Only members who can manage the server create events here."
        assert not await world.service.event_reads.list_tournaments(world.guild.id)
        config = await (
            await world.fake.slash(
                world.fake.owner, "config", {"tournaments": "everyone"}, channel=world.channel
            )
        ).reply()
        assert "events run by everyone" in config.content
        made = await (
            await world.fake.slash(ann, "tournament create", options, channel=world.channel)
        ).reply()
        assert not made.ephemeral and made.custom_ids == ["pb:t:join:1", "pb:t:leave:1"]
        # the organizer adds the bot; another member may not
        bot = await (
            await world.fake.slash(
                ann, "tournament add-bot", {"event": 1, "level": "easy"}, channel=world.channel
            )
        ).reply()
        assert "joined Open Hex" in bot.content
        other = await (
            await world.fake.slash(
                world.users["bob"],
                "tournament add-bot",
                {"event": 1, "level": "medium"},
                channel=world.channel,
            )
        ).reply()
        assert other.ephemeral and "Only the organizer" in other.content
        cancelled = await (
            await world.fake.slash(ann, "tournament cancel", {"event": 1}, channel=world.channel)
        ).reply()
        assert cancelled.content == "Open Hex is called off."
        assert (await world.service.event_reads.tournament(1, world.guild.id)).status == "cancelled"


async def test_a_limit_and_an_automatic_start_on_the_sign_up(world: World, clock: Clock) -> None:
    """/tournament create with max_players:, start_players: and starts:: the sign-up says
    them (the time as Discord shows each reader's), and the Join that makes the number
    starts the event, its games in their threads."""
    async with world.running():
        signup = await create(world, max_players=3, start_players=3, starts="in 3 days")
        stamp = int((clock() + timedelta(days=3)).timestamp())
        assert f"At most 3 players; starts when 3 have joined, or at <t:{stamp}:f>." in (
            signup.content
        )
        await press(world, "ann", signup, "pb:t:join:1", "1 player: ann")
        await press(world, "bob", signup, "pb:t:join:1", "2 players: ann, bob")
        await world.fake.press(world.users["cat"], signup, "pb:t:join:1")
        await world.fake.wait_for(lambda: not signup.components, what="the buttons gone")
        assert "Under way" in signup.content
        await world.fake.wait_for(
            lambda: len(threads_named(world, "Spring Hex · round")) == 3, what="three threads"
        )
        event = await world.service.event_reads.tournament(1, world.guild.id)
        assert event.status == "active" and event.max_players == 3


async def started_with_three(world: World, **given: object) -> None:
    """Event #1, created as `create` does, entered by ann, bob and cat and started."""
    signup = await create(world, **given)
    for count, name in enumerate(("ann", "bob", "cat"), 1):
        await press(world, name, signup, "pb:t:join:1", f"{count} player")
    await (
        await world.fake.slash(
            world.fake.owner, "tournament start", {"event": 1}, channel=world.channel
        )
    ).reply()


async def test_a_ladder_challenge_is_issued_accepted_and_threaded(world: World) -> None:
    """/tournament challenge, then /tournament accept: the game opens in a thread named
    for the ladder; a second accept is refused to the presser alone."""
    async with world.running():
        await started_with_three(world, format="ladder", name="Club")
        issued = await (
            await world.fake.slash(
                world.users["cat"],
                "tournament challenge",
                {"event": 1, "player": world.users["ann"]},
                channel=world.channel,
            )
        ).reply()
        assert not issued.ephemeral
        assert issued.content.startswith("cat challenges ann on Club Hex")
        accepted = await (
            await world.fake.slash(
                world.users["ann"], "tournament accept", {"event": 1}, channel=world.channel
            )
        ).reply()
        assert "ann accepted the challenge" in accepted.content
        await world.fake.wait_for(
            lambda: threads_named(world, "Club Hex · challenge · cat v ann") != [],
            what="the challenge's thread",
        )
        again = await (
            await world.fake.slash(
                world.users["ann"], "tournament accept", {"event": 1}, channel=world.channel
            )
        ).reply()
        assert again.ephemeral and again.content == "No challenge on Club Hex is waiting for you."


def code_block(content: str) -> tuple[str, list[str]]:
    """A standings message's headline and the lines of its code block (all it has)."""
    headline, block = content.split("\n", 1)
    assert block.startswith("```\n") and block.endswith("\n```"), content
    return headline, block.removeprefix("```\n").removesuffix("\n```").splitlines()


def placed(rows: list[str], name: str) -> str:
    """The place in the table's row of `name`."""
    return next(row.split()[0] for row in rows if f" {name} " in row)


async def test_a_finished_event_posts_and_shows_its_final_standings_in_columns(
    world: World,
) -> None:
    """The final post's table sits in a code block (its columns aligned); /tournament
    standings then says "final standings", with the table and the pictures."""
    async with world.running():
        await started_with_three(world, name="Duel")
        await world.fake.wait_for(
            lambda: len(threads_named(world, "Duel Hex · round")) == 3, what="three threads"
        )
        strength = ["bob", "cat", "ann"]  # the weaker resigns: ann wins both games
        for game in await world.service.lookups.games(world.guild.id, status="active"):
            seats = [strength.index(world.user_of(game, seat).username) for seat in (0, 1)]
            await resign_in_thread(world, game, seats.index(min(seats)))
        final = await world.fake.wait_for(
            lambda: next((m for m in world.channel.messages if "is over" in m.content), None),
            what="the final standings",
        )
        headline, rows = code_block(final.content)
        assert headline == "Duel Hex is over. Final standings:"
        assert rows[0] == "Duel Hex" and placed(rows, "ann") == "1", rows
        assert final.attachments

        handle = await world.fake.slash(
            world.users["cat"], "tournament standings", {"event": 1}, channel=world.channel
        )
        shown = await handle.wait_for_attachment()
        headline, rows = code_block(shown.content)
        assert headline == "**Duel Hex**: final standings."
        assert placed(rows, "ann") == "1"
        assert all(p.startswith(PNG) for p in shown.files.values())


async def test_a_hundred_players_standings_are_cut_to_one_message(world: World) -> None:
    """Discord takes 2,000 characters: the table's top rows, then how many more lines the
    pictures have, with the code block closed."""
    organizer = Player(world.fake.owner.id, "owner")
    created = await world.service.events.create_tournament(
        Place(world.guild.id, world.channel.id), organizer, "hex", format="ladder",
        name="Club", options={"size": "5"}, manages=True,
    )  # fmt: skip
    event = created.tournament.id
    now = datetime.now(UTC)  # the entrants written directly: a hundred joins take seconds
    people = [
        {"id": 50_000 + n, "name": f"entrant number {n}", "created_at": now} for n in range(1, 101)
    ]
    async with world.service.records.db.write() as conn:
        await conn.execute(players.insert(), people)
        await conn.execute(
            entrants.insert(),
            [
                {"tournament_id": event, "player_id": p["id"], "seq": p["id"], "joined_at": now}
                for p in people
            ],
        )
    await world.service.events.start_tournament(event, world.guild.id, organizer, manages=True)
    full = (
        await world.service.event_reads.tournament_standings(event, world.guild.id)
    ).text.splitlines()
    async with world.running():
        handle = await world.fake.slash(
            world.users["ann"], "tournament standings", {"event": event}, channel=world.channel
        )
        shown = await handle.wait_for_attachment()
    assert len(shown.content) <= 2000
    headline, rows = code_block(shown.content)
    assert headline == "**Club Hex**: standings so far."
    *kept, more = rows
    assert len(kept) > 20 and kept == full[: len(kept)]
    assert more == f"… and {sum(1 for line in full[len(kept) :] if line)} more lines."
    assert shown.files
