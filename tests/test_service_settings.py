"""The use cases around a game, on SQLite and PostgreSQL: rematches, the listing and the default
game, player and guild settings, pictures, ids refused in words, options refused, move hints,
deadlines in each zone, the leaderboard. Challenge to result: tests/test_service.py."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from bot.service import GameService, Place, Refused, ServiceCode, rules_card
from engine import Code
from tests.conftest import ANN, BOB, CAT, DAN, Clock
from tests.servicekit import GUILD, PLACE, player_at, refused, start

# -- rematch, listing, settings ------------------------------------------------------------


async def test_rematch_rotates_the_seats(service: GameService) -> None:
    game = await start(service, "hex", {"size": 4})
    await refused(ServiceCode.NOT_FINISHED, service.challenges.rematch(game.id, GUILD, ANN))
    await service.play.resign(game.id, GUILD, ANN)
    again = await service.challenges.rematch(game.id, GUILD, BOB)
    assert again.game.status == "open" and again.game.options == game.options
    started = await service.challenges.accept(again.game.id, GUILD, ANN)
    assert [s.player_id for s in started.game.seats] == [BOB.id, ANN.id]


@pytest.mark.both_backends
async def test_listing_puts_my_turn_first(service: GameService) -> None:
    a = await start(service, "hex", {"size": 5})
    b = await start(service, "hotwire")
    await service.play.move(b.id, GUILD, player_at(b, 0), "a1 b2")
    mine = await service.lookups.games(GUILD, player_id=BOB.id, viewer_id=BOB.id)
    assert mine[0].player_to_move == BOB.id
    assert {g.id for g in mine} == {a.id, b.id}
    assert await service.lookups.games(GUILD, status="finished") == []
    assert len(await service.lookups.games(GUILD, channel_id=PLACE.channel_id)) == 2


async def test_default_game_is_the_threads_or_my_only_turn(service: GameService) -> None:
    game = await start(service, "hex", {"size": 5})
    await service.lookups.attach(game.id, thread_id=555, message_id=556)
    assert (await service.lookups.default_game(GUILD, ANN.id, 555)).id == game.id
    mover = player_at(game, 0)
    assert (await service.lookups.default_game(GUILD, mover.id, None)).id == game.id
    other = player_at(game, 1)
    await refused(ServiceCode.NO_GAME, service.lookups.default_game(GUILD, other.id, None))


async def test_without_a_game_named_undo_means_the_game_of_your_last_move(
    service: GameService, clock: Clock
) -> None:
    first = await start(service, "hex", {"size": 5})
    second = await start(service, "hex", {"size": 5})
    await service.play.move(first.id, GUILD, ANN, "c3")
    clock.advance(minutes=1)
    await service.play.move(second.id, GUILD, ANN, "c3")
    # two games under way, neither on move: which one is for the command to say
    listed = await refused(
        ServiceCode.AMBIGUOUS_GAME, service.lookups.default_game(GUILD, ANN.id, None, my_turn=False)
    )
    assert str(listed) == f"Name the game: you have several (#{second.id}, #{first.id})."
    last = await service.lookups.default_game(GUILD, ANN.id, None, my_turn=False, last_moved=True)
    assert last.id == second.id
    clock.advance(minutes=1)
    await service.play.move(first.id, GUILD, BOB, "b2")
    clock.advance(minutes=1)
    await service.play.move(first.id, GUILD, ANN, "d4")
    last = await service.lookups.default_game(GUILD, ANN.id, None, my_turn=False, last_moved=True)
    assert last.id == first.id
    last = await service.lookups.default_game(GUILD, BOB.id, None, my_turn=False, last_moved=True)
    assert last.id == first.id  # Bob has moved only there (and is on move in the other)


async def test_may_resign_refuses_at_once_as_resigning_would(service: GameService) -> None:
    game = await start(service, "hex", {"size": 5})
    assert (await service.play.may_resign(game.id, GUILD, BOB)).id == game.id
    await refused(ServiceCode.NOT_SEATED, service.play.may_resign(game.id, GUILD, CAT))
    await service.play.resign(game.id, GUILD, BOB)
    await refused(Code.GAME_OVER, service.play.may_resign(game.id, GUILD, ANN))
    assert (await service.lookups.game(game.id, GUILD)).status == "finished"


async def test_player_settings(service: GameService, clock: Clock) -> None:
    settings = await service.preferences.player_settings(
        ANN, reminders="dm", time_zone="Europe/Paris"
    )
    assert settings.reminders == "dm" and settings.time_zone == "Europe/Paris"
    settings = await service.preferences.player_settings(ANN, quiet_hours="22-7")
    assert settings.quiet_hours == (22, 7)
    for zone in ("Mars/Olympus", "Europe", "/etc/passwd", "x" * 100_000, "Europe/\x00"):
        await refused(
            ServiceCode.BAD_SETTING, service.preferences.player_settings(ANN, time_zone=zone)
        )
    settings = await service.preferences.player_settings(ANN, time_zone="america/NEW_york")
    assert settings.time_zone == "America/New_York"
    await refused(
        ServiceCode.BAD_SETTING, service.preferences.player_settings(ANN, quiet_hours="25-3")
    )
    await refused(
        ServiceCode.BAD_SETTING, service.preferences.player_settings(ANN, reminders="pigeon")
    )
    on = await service.preferences.player_settings(ANN, vacation=True)
    assert on.on_vacation_since == clock.now
    clock.advance(days=3)
    off = await service.preferences.player_settings(ANN, vacation=False)
    assert off.on_vacation_since is None and off.vacation_days_left == pytest.approx(11)


async def test_guild_settings_limit_channels_and_rating(service: GameService) -> None:
    await service.preferences.guild_settings(GUILD, channels=[42], rated=False)
    await refused(
        ServiceCode.CHANNEL, service.challenges.challenge(PLACE, ANN, "hex", opponents=[BOB])
    )
    await refused(
        ServiceCode.UNRATED,
        service.challenges.challenge(Place(GUILD, 42), ANN, "hex", opponents=[BOB], rated=True),
    )
    issued = await service.challenges.challenge(Place(GUILD, 42), ANN, "hex", opponents=[BOB])
    assert issued.game.rated is False


async def test_gif_replay_has_a_frame_per_ply(service: GameService) -> None:
    game = await start(service, "hex", {"size": 3})
    for text in ("a1", "b2", "c3"):
        state = await service.lookups.state(game.id, GUILD)
        await service.play.move(game.id, GUILD, player_at(game, state.to_move or 0), text)
    gif = Image.open(io.BytesIO(await service.lookups.replay_gif(game.id, GUILD)))
    assert gif.n_frames == 4  # the start and three moves


async def test_a_move_stands_when_its_picture_cannot_be_drawn(
    service: GameService, monkeypatch: pytest.MonkeyPatch
) -> None:
    game = await start(service, "hex", {"size": 5})

    async def broken(*args: object, **kwargs: object) -> bytes:
        raise RuntimeError("the renderer broke")

    monkeypatch.setattr(service.records.painter, "png", broken)
    played = await service.play.move(game.id, GUILD, player_at(game, 0), "c3")
    assert played.png == b"" and played.game.ply == 1
    assert (await service.lookups.state(game.id, GUILD)).moves == ("c3",)


# -- ids ---------------------------------------------------------------------------------------


@pytest.mark.both_backends
@pytest.mark.parametrize("game_id", [2**31, 2**53 - 1, 2**63 - 1])
async def test_any_game_id_up_to_the_column_range_is_refused_in_words(
    service: GameService, game_id: int
) -> None:
    await start(service, "hex", {"size": 3})  # so the tables are not empty
    uses = [
        service.challenges.accept(game_id, GUILD, BOB),
        service.challenges.join(game_id, GUILD, BOB),
        service.challenges.decline(game_id, GUILD, BOB),
        service.challenges.cancel(game_id, GUILD, ANN),
        service.play.move(game_id, GUILD, ANN, "a1"),
        service.play.resign(game_id, GUILD, ANN),
        service.play.abort(game_id, GUILD, ANN),
        service.play.request_undo(game_id, GUILD, ANN),
        service.play.answer_undo(game_id, GUILD, BOB, accept=True),
        service.challenges.rematch(game_id, GUILD, ANN),
        service.lookups.game(game_id, GUILD),
        service.lookups.board(game_id, GUILD),
        service.lookups.board_text(game_id, GUILD),
        service.lookups.state(game_id, GUILD),
        service.lookups.record(game_id, GUILD),
        service.lookups.replay_gif(game_id, GUILD),
    ]
    for use in uses:
        refusal = await refused(ServiceCode.NO_GAME, use)
        assert str(refusal) == f"There is no game #{game_id} here."
    await service.lookups.attach(game_id, thread_id=2**63 - 1)  # nothing there: nothing happens
    assert await service.lookups.game_in_thread(2**63 - 1) is None


async def test_a_second_rematch_of_a_game_is_refused_while_the_first_stands(
    service: GameService,
) -> None:
    game = await start(service, "hex", {"size": "3"})
    await service.play.resign(game.id, GUILD, ANN)
    first = await service.challenges.rematch(game.id, GUILD, ANN)
    again = await refused(
        ServiceCode.REMATCH_OFFERED, service.challenges.rematch(game.id, GUILD, BOB)
    )
    assert str(again) == f"A rematch of #{game.id} is already offered (#{first.game.id})."
    await service.challenges.accept(first.game.id, GUILD, BOB)
    await refused(ServiceCode.REMATCH_OFFERED, service.challenges.rematch(game.id, GUILD, ANN))
    await service.play.resign(first.game.id, GUILD, BOB)
    declined = await service.challenges.rematch(first.game.id, GUILD, ANN)
    await service.challenges.decline(declined.game.id, GUILD, BOB)
    assert (await service.challenges.rematch(first.game.id, GUILD, BOB)).game.status == "open"


async def test_options_that_end_the_game_before_a_move_are_refused(service: GameService) -> None:
    options = {"size": "2x2", "lengths": "5"}
    over = await refused(
        ServiceCode.OVER_AT_START,
        service.challenges.challenge(PLACE, ANN, "hotwire", opponents=[BOB], options=options),
    )
    assert "over before the first move" in str(over)
    assert await service.lookups.games(GUILD) == []


def test_the_rules_of_an_unknown_game_are_refused() -> None:
    with pytest.raises(Refused) as caught:
        rules_card("chess")
    assert caught.value.code == Code.UNKNOWN_GAME and "“chess”" in str(caught.value)


async def test_move_hints_are_the_movers_legal_moves_starting_like_the_typed(
    service: GameService,
) -> None:
    game = await start(service, "hotwire")
    mover, waiting = player_at(game, game.to_move or 0), player_at(game, 1 - (game.to_move or 0))
    legal = (await service.lookups.state(game.id, GUILD)).legal_moves()
    hints = await service.lookups.move_hints(game.id, GUILD, mover.id, "A1 B", limit=1000)
    assert hints == [m for m in legal if m.startswith("a1-b")] and hints
    assert await service.lookups.move_hints(game.id, GUILD, mover.id, "", limit=25) == legal[:25]
    assert await service.lookups.move_hints(game.id, GUILD, mover.id, "z9") == []
    assert await service.lookups.move_hints(game.id, GUILD, waiting.id, "a") == []  # not their turn
    with pytest.raises(Refused):
        await service.lookups.move_hints(game.id, GUILD + 1, mover.id, "a")  # another server's game


async def test_a_boards_deadline_is_in_its_viewers_zone_else_the_movers(
    service: GameService,
) -> None:
    await service.preferences.player_settings(BOB, time_zone="Asia/Tokyo")
    game = await start(service, "hex", {"size": 5})  # Ann to move, due 24 Nov 12:00 UTC
    await service.preferences.player_settings(
        ANN, time_zone="Europe/Paris"
    )  # once seated: rosters follow
    await service.lookups.board(game.id, GUILD)
    await service.lookups.board(game.id, GUILD, viewer_id=BOB.id)
    captions = {key[3] for key in service.records._boards}
    assert captions == {"due 24 Nov 13:00 CET", "due 24 Nov 21:00 JST"}


@pytest.mark.both_backends
async def test_the_leaderboard_reads_about_1500_settled_players_first(
    service: GameService,
) -> None:
    """Ratings on the correspondence scale: "?" while provisional; the leaderboard lists
    settled players by rating, then provisional ones by rating."""
    for winner, loser in [(ANN, BOB), (CAT, BOB), (ANN, CAT)] + [(DAN, BOB), (BOB, DAN)] * 6:
        issued = await service.challenges.challenge(
            PLACE, winner, "hex", opponents=[loser], options={"size": 3}, rated=True
        )
        await service.challenges.accept(issued.game.id, GUILD, loser)
        await service.play.resign(issued.game.id, GUILD, loser)
    board = await service.lookups.leaderboard(GUILD, "hex")
    provisional = [line.provisional for line in board]
    assert provisional == sorted(provisional), board  # settled first
    for group in (True, False):
        shown = [line.rating for line in board if line.provisional == group]
        assert shown == sorted(shown, reverse=True), board
    assert all(1300 < line.rating < 1700 for line in board), board
    by_player = {line.player_id: line for line in board}
    assert by_player[ANN.id].provisional and by_player[ANN.id].games == 2
    assert not by_player[DAN.id].provisional and by_player[DAN.id].games == 12
