"""The console: whole games of every game typed in, and the real command with piped input."""

from __future__ import annotations

import io
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

import engine
from bot.console import Console
from bot.service import GameService
from tests.conftest import PATIENCE_SECONDS

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
    game = await service.game(1, 0)
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
    game = await service.game(1, 0)
    assert game.ply == 2
    record = (await service.record(1, 0)).text.splitlines()
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
    assert (await service.game(1, 0)).ply == 1


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
        "the settings are confirm_moves, digest_hour, quiet_hours, reminders, time_zone, "
        "vacation."
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
    assert (await service.game(1, 0)).status == "active"
    said = await transcript_of(service, tmp_path, ["as bob", "resign", "yes"])
    assert said[-1] == "Hex #1 is over: @ann wins by resignation. @bob loses."
    assert (await service.game(1, 0)).status == "finished"


async def test_the_challenge_line_shows_the_options(service: GameService, tmp_path: Path) -> None:
    said = await transcript_of(service, tmp_path, HEX_WITH_SWAP[:2])
    assert said[-1].startswith("@ann challenges @bob to Hex #1 (size=5, no clock, rated)."), said
