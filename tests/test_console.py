"""The console: whole games of every game typed in, and the real command with piped input."""

from __future__ import annotations

import io
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import engine
from bot.commands import BY_NAME, COMMANDS
from bot.console import Console
from bot.service import GameService, Place
from bot.service.core.rules import deadline_caption
from tests.conftest import CAT, PATIENCE_SECONDS, Clock

ROOT = Path(__file__).resolve().parents[1]
GAMES = [
    ("hotwire", "size=5x5", ["ann", "bob"]),
    ("hex", "size=5 swap=off", ["ann", "bob"]),
    ("disthex", "size=5", ["ann", "bob"]),
    ("shortcircuit", "size=3 max_turns=60", ["ann", "bob"]),
    ("livewire", "size=17x14", ["ann", "bob"]),
    ("intersections", "size=4", ["ann", "bob", "cat"]),
]


def script_of_a_game(
    name: str, options: str, players: list[str], seed: int
) -> tuple[list[str], engine.GameState]:
    """The lines a group of players would type for a random game, and its end."""
    settings = dict(word.split("=") for word in options.split())
    start = engine.new(name, players=len(players), **settings)
    final = start.random_playout(random.Random(seed))
    opponents = " ".join(f"@{p}" for p in players[1:])
    lines = [
        f"as {players[0]}",
        f"challenge {name} {opponents} {options} days=none first=challenger",
    ]
    lines += [line for p in players[1:] for line in (f"as {p}", "accept")]
    state, index = start, 0
    while index < len(final.moves):
        if index < state.ply:  # a pass the engine made
            index += 1
            continue
        lines += [f"as {players[state.to_move or 0]}", final.moves[index]]
        state = state.play(final.moves[index])
        index += 1
    return lines, final


def result_words(final: engine.GameState, players: list[str]) -> str:
    outcome = final.outcome
    assert outcome is not None
    if not outcome.winners:
        return "ends in a draw"
    if len(outcome.winners) == 1:
        return f"@{players[outcome.winners[0]]} wins"
    return "share the win"


@pytest.mark.parametrize(("name", "options", "players"), GAMES, ids=[g[0] for g in GAMES])
async def test_a_whole_game_piped_through_the_console(
    service: GameService, tmp_path: Path, name: str, options: str, players: list[str]
) -> None:
    lines, final = script_of_a_game(name, options, players, seed=3)
    out = io.StringIO()
    await Console(service, out, tmp_path / "boards").run(lines)
    transcript = out.getvalue()
    assert "Something went wrong" not in transcript
    endings = [line for line in transcript.splitlines() if " is over: " in line or "a draw" in line]
    assert len(endings) == 1 and result_words(final, players) in endings[0], endings
    assert f"{engine.GAMES[name].title} #1" in transcript
    boards = sorted((tmp_path / "boards").glob("game-1-move-*.png"))
    assert len(boards) >= len([m for m in final.moves if m != "pass"]) // 2
    game = await service.lookups.game(1, 0)
    assert game.status == "finished" and game.ply == final.ply


async def test_refusals_and_nonsense_never_stop_the_console(
    service: GameService, tmp_path: Path
) -> None:
    lines = [
        "challenge",
        "challenge chess @bob",
        "accept",
        "move",
        "d5 g3",
        'board "unclosed',
        "board 99999999999999999999",
        "x" * 10_000,
        "\x00\x01 control",
        "games @",
        "settings tz=Mars/Olympus",
        "challenge hex @bob days=three",
        "leaderboard",
        "settings tz=Europe",
        "as a\x1b[2Jb",
        "challenge hex @bob level=bogus",
        "rating @bob chess",
        "export 1 xml",
        "as",
        "quit",
        "games",  # after quit: never read
    ]
    out = io.StringIO()
    await Console(service, out, tmp_path).run(lines)
    transcript = out.getvalue()
    assert "Something went wrong" not in transcript
    assert "There is no game called “chess”" in transcript
    assert "I can't read that line" in transcript
    assert "Days per move is a whole number or none, not “three”." in transcript
    assert "I don't know the time zone “Europe”" in transcript
    assert "A player's name cannot hold control characters." in transcript
    assert "\x1b" not in transcript
    assert "level= is for a game against the bot" in transcript
    assert transcript.count("There is no game called “chess”") == 2
    assert "Export game NUMBER as json or sgf" in transcript
    assert "challenges @bob" not in transcript  # every challenge above was refused
    assert "No games for" not in transcript.splitlines()[-1]


def test_the_real_command_plays_a_piped_game_and_exits_0(tmp_path: Path) -> None:
    lines, final = script_of_a_game("hex", "size=4 swap=off", ["ann", "bob"], seed=1)
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{tmp_path / 'pb.db'}",
        "BOARD_DIR": str(tmp_path / "boards"),
        "DISCORD_TOKEN": "",
    }
    env.pop("DISCORD_TOKEN")
    not_utf8 = b"as \xc3\x28\nrating @\xff\n"  # lone bytes of a broken terminal
    done = subprocess.run(
        [sys.executable, "-m", "bot.cli", "run"],
        input=not_utf8 + ("\n".join(lines) + "\n").encode(),
        capture_output=True,
        cwd=tmp_path,
        env={**env, "PYTHONPATH": str(ROOT)},
        timeout=PATIENCE_SECONDS,
    )
    out = done.stdout.decode()
    assert done.returncode == 0, done.stderr
    assert out.startswith("No DISCORD_TOKEN set: starting the console.")
    assert "You are \ufffd(." in out and "Something went wrong" not in out
    assert result_words(final, ["ann", "bob"]) in out
    assert (tmp_path / "boards" / f"game-1-move-{final.ply}.png").exists()


async def transcript_of(service: GameService, tmp_path: Path, lines: list[str]) -> list[str]:
    out = io.StringIO()
    await Console(service, out, tmp_path / "boards").run(lines)
    said = out.getvalue().splitlines()
    assert not any("Something went wrong" in line for line in said), said
    return said


HEX_WITH_SWAP = [
    "as ann",
    "challenge hex @bob size=5 days=none first=challenger",
    "as bob",
    "accept",
]


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


async def test_what_comes_while_the_player_types_goes_below_the_prompt(
    service: GameService, tmp_path: Path
) -> None:
    """The bot's move (or a reminder) printed at a terminal while a line is being typed:
    the typed line keeps its own, the news follows, then the prompt again."""
    out = io.StringIO()
    console = Console(service, out, tmp_path)
    console.reading = "ann> "
    with console.aside():
        console.say("@Paperboard (max) played d4.")
        with console.aside():  # the board, shown within the same news
            console.say("Board: boards/game-1-move-2.png")
    assert (
        out.getvalue() == "\n@Paperboard (max) played d4.\nBoard: boards/game-1-move-2.png\nann> "
    )
    console.reading = None
    with console.aside():
        console.say("@bob played b2.")  # the answer to a command: no prompt in between
    assert out.getvalue().endswith("ann> @bob played b2.\n")


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_what_make_run_writes_is_ignored_by_git(tmp_path: Path) -> None:
    """The console with the default settings (the database file, the boards folder) in
    a checkout: `git status` stays clean."""
    subprocess.run(["git", "init", "--quiet", str(tmp_path)], check=True)
    shutil.copy(ROOT / ".gitignore", tmp_path / ".gitignore")
    subprocess.run(["git", "-C", str(tmp_path), "add", ".gitignore"], check=True)
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "BOARD_DIR")}
    env.pop("DISCORD_TOKEN", None)
    lines = [*HEX_WITH_SWAP, "as ann", "c3", "board", "record 1", "resign", "y", "export 1"]
    done = subprocess.run(
        [sys.executable, "-m", "bot.cli", "run"],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**env, "PYTHONPATH": str(ROOT)},
        timeout=120,
    )
    assert done.returncode == 0 and "Export: boards/" in done.stdout, done.stdout + done.stderr
    assert (tmp_path / "paperboard.db").exists()
    status = subprocess.run(
        ["git", "-C", str(tmp_path), "status", "--porcelain", "--untracked-files=all"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert status.stdout.splitlines() == ["A  .gitignore"]


async def test_the_bots_move_comes_after_the_answer_that_set_it_off(
    service: GameService, tmp_path: Path
) -> None:
    """At a terminal the bot's runner may deliver its reply while the console is still
    answering the player's move (drawing its board): the reply waits for that answer."""
    out = io.StringIO()
    console = Console(service, out, tmp_path)
    elsewhere = await service.challenges.challenge(Place(0, 0), CAT, "hex", opponents=[])

    async def move_with_a_slow_board(words: list[str], rest: str) -> None:
        await console.bot_moved(elsewhere)  # the runner, while the board is drawn
        console.say("@ann played c3.")

    console.handlers["probe"] = move_with_a_slow_board
    await console.run(["probe"], interactive=True)
    said = out.getvalue().splitlines()
    assert said[1] == "player> @ann played c3.", said
    assert said[2].startswith("@cat challenges anyone to Hex #1"), said


async def test_web_prints_the_address_of_a_page_or_says_the_pages_are_off(
    service: GameService, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bot.web.links import NO_ADDRESS, PAGES_OFF

    lines = ["as ann", "challenge hex @bob size=5 swap=off", "as bob", "accept", "web", "web 1"]
    out = io.StringIO()
    await Console(service, out, tmp_path).run(lines)
    off = PAGES_OFF.format("config web=public", "config web=link")
    assert out.getvalue().count(off) == 2  # the console's server keeps its pages off
    await service.preferences.guild_settings(0, web="public")
    out = io.StringIO()
    await Console(service, out, tmp_path).run(["web", "web 1", "web event=1", "web 1 swiss"])
    site = service.records.settings.site_url
    said = out.getvalue().splitlines()
    assert f"This server's games: {site}/s/0/" in said
    assert f"Hex #1: {site}/s/0/g/1" in said
    signed = [line for line in said if line.startswith("Sign in on the web as you")]
    assert len(signed) == 2 and f"{site}/signin/" in signed[0]  # a link each time
    secret = signed[0].rpartition("/")[2]
    assert (await service.sessions.link_holder(secret)) is not None  # the one who asked
    assert "There is no event #1 here." in said
    assert "Say web, web 12 or web event=1, not “1 swiss”." in said
    # served by no process here (WEB_PORT=0) and no PUBLIC_URL: no address to give
    monkeypatch.setattr(
        service.records, "settings", service.records.settings.model_copy(update={"web_port": 0})
    )
    out = io.StringIO()
    await Console(service, out, tmp_path).run(["web 1", "config web=public"])
    said = out.getvalue().splitlines()
    assert NO_ADDRESS in said and ":0/" not in out.getvalue()
    assert said[-1].endswith(
        "pages on the web public: no address yet (the bot's operator sets PUBLIC_URL)."
    )


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


async def test_a_console_whose_web_port_is_taken_gives_no_links(
    service: GameService, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another process (another console) holds WEB_PORT: its pages are not this one's."""
    import socket

    from bot.web.runner import start_web

    with socket.socket() as other:
        other.bind(("127.0.0.1", 0))
        other.listen()
        port = other.getsockname()[1]
        settings = service.records.settings.model_copy(
            update={"web_host": "127.0.0.1", "web_port": port}
        )
        monkeypatch.setattr(service.records, "settings", settings)
        assert await start_web(service, settings) is None
    await service.preferences.guild_settings(0, web="public")
    said = await transcript_of(
        service,
        tmp_path,
        ["as ann", "challenge hex @bob size=5", "as bob", "accept", "web", "web 1", "config"],
    )
    assert not any("http" in line for line in said), said
    refusal = (
        f"This server's pages on the web are not served by this process: 127.0.0.1:{port} "
        "is taken (another process may serve other games there)."
    )
    assert said.count(refusal) == 2, said
    assert said[-1].endswith(
        f"pages on the web public: not served here (127.0.0.1:{port} is taken)."
    ), said
