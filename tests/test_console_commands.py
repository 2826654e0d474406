"""The console's commands, typed line by line: swap, settings, help, resigning, challenges,
times in each zone, games named by number, refusals in words, play by mail. Whole games and the
real command: tests/test_console.py."""

from __future__ import annotations

import io
from pathlib import Path

from bot.commands import BY_NAME, COMMANDS
from bot.console import Console
from bot.service import GameService
from bot.service.core.rules import deadline_caption
from tests.conftest import Clock
from tests.consolekit import HEX_WITH_SWAP, transcript_of


async def test_bare_swap_is_a_move_and_says_who_plays_which_colour(
    service: GameService, tmp_path: Path
) -> None:
    said = await transcript_of(
        service, tmp_path, [*HEX_WITH_SWAP, "as ann", "c3", "as bob", "pass", "swap"]
    )
    assert any(line.startswith("You never type pass") for line in said), said
    assert "@bob swapped. @bob now plays Black, @ann plays White." in said
    game = await service.lookups.game(1, 0)
    assert game.ply == 2
    record = (await service.lookups.record(1, 0)).text.splitlines()
    assert "  White: ann" in record and "  Black: bob" in record, record


async def test_a_picture_that_cannot_be_saved_is_said_and_the_move_stands(
    service: GameService, tmp_path: Path
) -> None:
    not_a_folder = tmp_path / "boards"
    not_a_folder.write_text("a file where BOARD_DIR should be")
    out = io.StringIO()
    await Console(service, out, not_a_folder).run([*HEX_WITH_SWAP, "as ann", "c3"])
    said = out.getvalue().splitlines()
    assert said[-1].startswith(f"I could not save {not_a_folder}/game-1-move-1.png"), said
    assert "@ann played c3." in " ".join(said)
    assert (await service.lookups.game(1, 0)).ply == 1


async def test_a_move_out_of_turn_hears_whose_turn_it_is(
    service: GameService, tmp_path: Path
) -> None:
    said = await transcript_of(service, tmp_path, [*HEX_WITH_SWAP, "c3"])
    assert said[-1] == "It is not your turn: ann is to move.", said


async def test_game_is_named_anywhere_in_a_move_line(service: GameService, tmp_path: Path) -> None:
    said = await transcript_of(
        service, tmp_path, [*HEX_WITH_SWAP, "as ann", "move game=1 c3", "as bob", "game=#1 b2"]
    )
    assert "@ann played c3." in said and "@bob played b2." in said, said


async def test_settings_ignore_case_and_refuse_unknown_names(
    service: GameService, tmp_path: Path
) -> None:
    said = await transcript_of(
        service, tmp_path, ["settings reminders=DM tz=europe/paris", "settings colour=blue"]
    )
    assert said[1].startswith("player · Reminders: dm · time zone Europe/Paris ·"), said
    assert said[2] == (
        "There is no setting “colour”; "
        "the settings are auto_vacation, confirm_moves, digest_hour, email, email_code, "
        "quiet_hours, reminders, time_zone, vacation, web_profile, weekend."
    )


async def test_counts_help_and_empty_names(service: GameService, tmp_path: Path) -> None:
    said = await transcript_of(
        service,
        tmp_path,
        ["help", "challenge hex @", "as ann", "challenge hex @bob size=3 rated=yes days=none",
         "as bob", "accept", "as ann", "resign", "y", "rating"],
    )  # fmt: skip
    assert sum(1 for line in said if line.split()[:1] == ["quit"]) == 1, said
    assert "Name the player after @, as in @bob." in said
    assert not any(line.startswith("Hex #1 is") for line in said[:3])
    assert any(line.startswith("Hex: rating ") and "· 0/1 won ·" in line for line in said), said


async def test_resign_asks_first(service: GameService, tmp_path: Path) -> None:
    said = await transcript_of(service, tmp_path, [*HEX_WITH_SWAP, "resign", "n"])
    assert said[-2] == "Resign game #1? Type y to resign, anything else to keep playing."
    assert said[-1] == "You did not resign game #1."
    assert (await service.lookups.game(1, 0)).status == "active"
    said = await transcript_of(service, tmp_path, ["as bob", "resign", "yes"])
    assert said[-1] == "Hex #1 is over: @ann wins by resignation. @bob loses."
    assert (await service.lookups.game(1, 0)).status == "finished"


async def test_the_challenge_line_shows_the_options(service: GameService, tmp_path: Path) -> None:
    """Every option in the words typed (on/off), defaults and derived ones too, and the
    bot named as the opponent it is."""
    said = await transcript_of(service, tmp_path, HEX_WITH_SWAP[:2])
    assert said[-1].startswith(
        "@ann challenges @bob to Hex #1 (size=5, swap=on, no clock, rated)."
    ), said
    said = await transcript_of(
        service,
        tmp_path,
        ["challenge intersections @cat size=4 rounds=2 segments=4 days=none", "record 2"],
    )
    assert "(size=4, segments=4, rounds=2, no clock, rated)" in said[1], said
    assert "Making Intersections #2 — size=4, segments=4, rounds=2" in said, said
    said = await transcript_of(service, tmp_path, ["challenge hex @ai level=easy days=none"])
    assert said[1].startswith("@player challenges @Paperboard (easy) to Hex #3 (size=11, "), said


async def test_times_are_written_in_each_players_zone(service: GameService, tmp_path: Path) -> None:
    """A deadline in the zone of whose deadline it is; what one player asks for (games,
    record, settings) in theirs. The clock starts at 21 Nov 12:00 UTC; 3 days a move."""
    said = await transcript_of(
        service,
        tmp_path,
        ["as ann", "settings tz=Europe/Paris", "challenge hex @bob size=5 first=challenger",
         "as bob", "settings tz=America/Sao_Paulo", "accept", "as ann", "c3", "games", "record",
         "settings vacation=on"],
    )  # fmt: skip
    assert "@ann, it is your move in Hex #1. Due 24 Nov 13:00 CET." in said, said
    assert "@bob, it is your move in Hex #1. Due 24 Nov 09:00 UTC-03." in said, said
    assert "#1 Hex active: ann vs bob, move 1, bob to move (due 24 Nov 13:00 CET)" in said
    assert any(line.startswith("   1. 2026-11-21 13:00 CET  ann ") for line in said), said
    assert "on vacation since 21 Nov 13:00 CET" in said[-1]
    game = await service.lookups.game(1, 0)
    assert deadline_caption(game) == "due 24 Nov 09:00 UTC-03"  # the board all see: bob's
    assert deadline_caption(game, "Europe/Paris") == "due 24 Nov 13:00 CET"  # ann's own


TWO_HEX_GAMES = [
    "as ann",
    "challenge hex @bob size=5 swap=off days=none first=challenger",
    "challenge hex @bob size=5 swap=off days=none first=challenger",
    "as bob",
    "accept 1",
    "accept 2",
]


async def test_a_game_is_named_by_its_number_first_or_last_in_every_command(
    service: GameService, tmp_path: Path, clock: Clock
) -> None:
    lines = [*TWO_HEX_GAMES, "as ann", "move 1 c3", "c3 #2", "as bob", "move #2 b2", "1 b2"]
    said = await transcript_of(service, tmp_path, [*lines, "as ann", "c4", "move 2 c4"])
    several = {
        "Name the game: you have several (#1, #2).",
        "Name the game: you have several (#2, #1).",
    }
    assert several & set(said), said  # the bare c4: ann is on move in both
    clock.advance(minutes=1)
    said += await transcript_of(service, tmp_path, ["as ann", "#1 b3"])
    assert [line for line in said if " played " in line] == [
        "@ann played c3.", "@ann played c3.", "@bob played b2.", "@bob played b2.",
        "@ann played c4.", "@ann played b3.",
    ], said  # fmt: skip
    assert (await service.lookups.state(1, 0)).moves == ("c3", "b2", "b3")
    assert (await service.lookups.state(2, 0)).moves == ("c3", "b2", "c4")
    # neither game on move for ann: undo means the game of her last move, #1
    lines = ["as ann", "undo", "as bob", "undo decline 1", "as ann", "undo 2", "as bob"]
    said = await transcript_of(service, tmp_path, [*lines, "undo 2 accept", "resign #2", "n"])
    assert said[2] == "@ann asks to take back their last move in Hex #1; @bob: accept or decline."
    assert said[4] == "@bob declined the undo in Hex #1."
    assert "@ann's move c4 in Hex #2 was taken back by agreement." in said, said
    assert said[-2:] == [
        "Resign game #2? Type y to resign, anything else to keep playing.",
        "You did not resign game #2.",
    ]


async def test_a_move_line_never_loses_a_move_to_the_game_number(
    service: GameService, tmp_path: Path
) -> None:
    lines = ["move 1 2 c3", "move 1 c3 #2", "move game=1 c3 2", "# 1 c3", "#2 c3 # no comment"]
    said = await transcript_of(service, tmp_path, [*TWO_HEX_GAMES, "as ann", *lines])
    assert said[-4:] == [
        "I can't read “2 c3”: type a cell, like c3.",  # only a first or last number names the game
        "Name one game: 12, #12 or game=12.",
        "Name one game: 12, #12 or game=12.",
        "I can't read “c3 # no comment”: type a cell, like c3.",  # "# 1 c3" was a comment
    ], said
    assert (await service.lookups.game(1, 0)).ply == 0 and (
        await service.lookups.game(2, 0)
    ).ply == 0


async def test_refusals_say_what_was_meant(service: GameService, tmp_path: Path) -> None:
    lines = [
        "chalenge hex @bob",
        "chalenge hex @bob size=5",  # a digit, yet no move
        "challenge intersection @bob",
        "challenge hex bob",
        "challenge hex easy",
        "challenge hex 7x7",
        "settings vacation",
        "settings reminders",
        "settings tz",
        "leaderboard hexx",
        "rules hotwires",
    ]
    said = await transcript_of(service, tmp_path, lines)
    games = "The games are hex, disthex, hotwire, intersections, livewire, shortcircuit."
    assert said[1:] == [
        "There is no command “chalenge”; did you mean challenge? Type help for the commands.",
        "There is no command “chalenge”; did you mean challenge? Type help for the commands.",
        f"There is no game called “intersection”; did you mean intersections? {games}",
        "I don't understand “bob”; to challenge that player, write @bob.",
        "I don't understand “easy”; to play the bot at that level, write @ai level=easy.",
        "I don't understand “7x7”; for the board's size, write size=7x7.",
        "Say vacation=on or off.",
        "Say reminders=dm, thread, digest, email or off.",
        "Give tz a value (e.g. Europe/Paris).",
        f"There is no game called “hexx”; did you mean hex? {games}",
        f"There is no game called “hotwires”; did you mean hotwire? {games}",
    ], said


async def test_a_bare_move_command_shows_the_games_own_notation(
    service: GameService, tmp_path: Path
) -> None:
    lines = [
        "as ann",
        "challenge hotwire @bob size=5x5 days=none first=challenger",
        "challenge hex @bob size=5 swap=off days=none first=challenger",
        "as bob",
        "accept 1",
        "accept 2",
        "as ann",
        "move 1",
        "move #2",
        "as bob",
        "move 2",
    ]
    said = await transcript_of(service, tmp_path, lines)
    assert said[-4:] == [
        "Type the move: move b3-e5.",  # a legal move of each game: its own notation
        "Type the move: move c3.",
        "You are bob.",
        "It is not your turn: ann is to move.",
    ], said


async def test_open_seats_by_their_documented_name_or_the_short_one(
    service: GameService, tmp_path: Path
) -> None:
    lines = [
        "challenge intersections @bob open_seats=1 days_per_move=3",
        "challenge intersections @bob open=2 days=none",
    ]
    said = await transcript_of(service, tmp_path, lines)
    assert "3 days per move, rated). 1 more seat open to anyone." in said[1], said
    assert "rounds=4, no clock, rated). 2 more seats open to anyone." in said[2], said


async def test_resigning_a_game_you_cannot_resign_is_refused_before_asking(
    service: GameService, tmp_path: Path
) -> None:
    lines = [*HEX_WITH_SWAP, "as cat", "resign 1", "games", "as ann", "resign 1", "y", "resign 1"]
    said = await transcript_of(service, tmp_path, [*lines, "games"])
    assert not any(line.startswith("You did not resign") for line in said), said
    assert said[said.index("You are cat.") + 1 :][:2] == [
        "You are not playing in this game.",
        "No games for cat.",  # "games" was read as a command, not as the answer
    ]
    assert said[-3:-1] == ["Hex #1 is over: @bob wins by resignation. @ann loses.",
                           "This game is over."], said  # fmt: skip


async def test_play_by_mail_is_turned_on_from_the_console(
    service: GameService, tmp_path: Path
) -> None:
    said = await transcript_of(
        service,
        tmp_path,
        ["challenge hex ann@example.org", "config email=on", "challenge hex ann@example.org"],
    )
    assert said[1] == (
        "This server takes no players by mail: its managers allow them with config email=on."
    ), said
    assert said[2].endswith("players by mail play here; pages on the web off."), said
    assert said[3].startswith("“ann@example.org” plays by mail nowhere here"), said
    assert (await service.preferences.guild_settings(0)).email


async def test_an_address_is_refused_while_this_bot_sends_no_mail(
    service: GameService, tmp_path: Path
) -> None:
    said = await transcript_of(service, tmp_path, ["settings email=ann@example.org"])
    assert said[1] == (
        "This bot sends no mail, so no code could reach you: "
        "its operator sets EMAIL_SMTP_URL first (docs/EMAIL.md)."
    ), said
    assert await service.mail.player_by_address("ann@example.org") is None


async def test_help_for_one_command_and_a_setting_typed_as_a_command(
    service: GameService, tmp_path: Path
) -> None:
    said = await transcript_of(
        service, tmp_path, ["help move", "help tournament", "help moev", "vacation", "tz"]
    )
    move = said[1 : said.index(next(s for s in said if s.startswith("  tournament create")))]
    assert move[0].startswith("  move ") and len(move) == 1 + len(BY_NAME["move"].params), said
    tournament = [line for line in said if line.startswith("  tournament ")]
    assert len(tournament) == len([c for c in COMMANDS if c.name.startswith("tournament ")])
    assert "There is no command “moev”; did you mean move? Type help for the commands." in said
    assert (
        "There is no command “vacation”; did you mean settings vacation=on? "
        "Type help for the commands."
    ) in said
    assert "There is no command “tz”; did you mean settings tz=Europe/Paris? " in said[-1]


async def test_a_command_without_a_number_picks_the_one_game_it_applies_to(
    service: GameService, tmp_path: Path
) -> None:
    said = await transcript_of(
        service,
        tmp_path,
        [
            "as ann",
            "challenge hex @bob size=5 swap=off days=none first=challenger",
            "challenge hex @bob size=5 swap=off days=none first=challenger",
            "as bob", "accept 1", "accept 2",
            "as ann", "c3 #1", "c3 #2", "undo 1",
            "as bob", "undo accept",
            "as ann", "resign 1", "y",
            "challenge hex @ai size=5 swap=off days=none first=challenger", "conditional list",
        ],
    )  # fmt: skip
    assert "@ann's move c3 in Hex #1 was taken back by agreement." in said, said
    assert (await service.lookups.game(2, 0)).ply == 1  # the request in #1 was answered
    assert "Conditional moves are for games between people" not in " ".join(said), said
    assert said[-1] == "You have no conditional lines in Hex #2.", said


async def test_refusals_word_commands_the_consoles_way(
    service: GameService, tmp_path: Path
) -> None:
    said = await transcript_of(service, tmp_path, ["web", "challenge hex ann@example.org"])
    assert "config web=public" in said[1] and "config web=link" in said[1], said
    assert not any("/config" in line or ":public" in line for line in said), said
