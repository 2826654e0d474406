"""The console: whole games of every game typed in, the real command with piped input, what
comes while a player types, and the web links it prints. Its commands one by one:
tests/test_console_commands.py."""

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
from bot.console import Console
from bot.service import GameService, Place
from tests.conftest import CAT, PATIENCE_SECONDS
from tests.consolekit import HEX_WITH_SWAP, transcript_of

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
