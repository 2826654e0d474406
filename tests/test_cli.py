"""The paperboard command: render, rules, health, and refusals as one line with exit 2."""

from __future__ import annotations

import asyncio
import io
import os
import socket
import sys
from pathlib import Path

import pytest
from PIL import Image
from sqlalchemy.engine import make_url

from bot.cli import main
from tests.conftest import PATIENCE_SECONDS, POSTGRES_URL
from tests.fakediscord import FakeDiscord
from tests.fakediscord.fixtures import fake_discord_fixture  # noqa: F401  (the fixture)


def test_render_draws_any_position_and_a_gif(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    png = tmp_path / "board.png"
    assert (
        main(
            [
                "render",
                "hotwire",
                "--moves",
                "d5 g3, b2 c4",
                "--option",
                "size=7x7",
                "--groups",
                "-o",
                str(png),
            ]
        )
        == 0
    )
    assert Image.open(png).format == "PNG"
    early = tmp_path / "early.png"
    assert (
        main(["render", "hotwire", "--moves", "d5 g3, b2 c4", "--ply", "1", "-o", str(early)]) == 0
    )
    assert early.read_bytes() != png.read_bytes()
    gif = tmp_path / "game.gif"
    assert (
        main(["render", "hex", "--moves", "c3, d4", "--option", "size=5", "--gif", "-o", str(gif)])
        == 0
    )
    assert Image.open(io.BytesIO(gif.read_bytes())).n_frames == 3
    assert "KB" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["render", "hex", "--moves", "c3, c3"], "c3 is already taken."),
        (["render", "hex", "--option", "size=40"], "must be from 2x2 to 19x19"),
        (["render", "hex", "--option", "size=99999999"], "must be from 2x2 to 19x19"),
        (["render", "hotwire", "--option", "size=5x9999999"], "must be from"),
        (["render", "hex", "--option", "nonsense"], "KEY=VALUE"),
        (["render", "hex", "--option", "size=3", "--moves", "b2, pass"], "You never type pass"),
    ],
)
def test_refusals_are_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], said: str
) -> None:
    assert main([*args, "-o", str(tmp_path / "x.png")]) == 2
    assert said in capsys.readouterr().err
    assert not (tmp_path / "x.png").exists()


def test_a_record_with_or_without_its_forced_passes_replays(tmp_path: Path) -> None:
    """`record` and the exports write Disthex's forced passes; --moves takes a record
    with them or, as players type it, without them."""
    drawn = []
    for moves in ("b2, a1, pass, a2", "b2, a1, a2"):  # after a1 Black is stuck: a pass
        png = tmp_path / f"{len(drawn)}.png"
        args = ["render", "disthex", "--option", "size=2", "--moves", moves, "-o", str(png)]
        assert main(args) == 0
        drawn.append(png.read_bytes())
    assert drawn[0] == drawn[1]


def test_rules_lists_and_explains_the_games(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules"]) == 0
    assert "hotwire" in capsys.readouterr().out
    assert main(["rules", "hotwire"]) == 0
    card = capsys.readouterr().out
    assert "Phil Leduc" in card and "lengths" in card


def test_health_says_whether_the_database_answers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'h.db'}")
    assert main(["health"]) == 0
    monkeypatch.setenv("DATABASE_URL", "postgresql://nobody@127.0.0.1:1/none")
    assert main(["health"]) == 1
    assert "unhealthy" in capsys.readouterr().err


def test_invite_needs_a_token(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("DISCORD_TOKEN", raising=False)
    monkeypatch.chdir(Path(__file__).parent)  # no .env here
    assert main(["invite"]) == 2
    assert "DISCORD_TOKEN" in capsys.readouterr().err


async def run_paperboard(
    tmp_path: Path, *command: str, stdin: bytes = b"", **environment: str
) -> tuple[int, str, str]:
    """`paperboard run` (or `command`) in a fresh process, in an empty folder (no .env)."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("DISCORD_TOKEN", "DISCORD_API_BASE", "DISCORD_GATEWAY_URL", "DEV_GUILD_ID")
    }
    env.update(DATABASE_URL=f"sqlite:///{tmp_path / 'run.db'}", RENDER_PROCESSES="0")
    env.update(environment)
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot.cli", *(command or ["run"]),
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE, cwd=tmp_path,
        env={**env, "PYTHONPATH": str(Path(__file__).parent.parent)},
    )  # fmt: skip
    out, err = await asyncio.wait_for(process.communicate(stdin), PATIENCE_SECONDS)
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


async def test_an_empty_token_starts_the_console(tmp_path: Path) -> None:
    code, out, err = await run_paperboard(
        tmp_path, stdin=b"rules\n", DISCORD_TOKEN="", DEV_GUILD_ID=""
    )
    assert code == 0, err
    assert "No DISCORD_TOKEN set: starting the console" in out and "hotwire" in out


async def test_a_refused_token_is_one_sentence_and_exit_2(
    tmp_path: Path, fake_discord: FakeDiscord
) -> None:
    code, out, err = await run_paperboard(
        tmp_path,
        DISCORD_TOKEN="MTIzNDU2Nzg5.not-the.token",
        DISCORD_API_BASE=fake_discord.api_base,
        DISCORD_GATEWAY_URL=fake_discord.gateway_url,
    )
    assert code == 2
    assert err.strip().splitlines() == [
        "paperboard: Discord refused DISCORD_TOKEN; copy the token again from the developer "
        "portal (Bot page) into .env."
    ]
    assert "Traceback" not in err + out


def closed_port() -> int:
    """A local port nothing listens on (taken from the system, then let go)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


#: Settings that cannot work, as the environment gives them ({tmp}: the test's folder;
#: {closed}: a local port nothing listens on), and the setting each refusal names.
BAD_SETTINGS = {
    "nonsense": ({"DATABASE_URL": "nonsense"}, "DATABASE_URL"),
    "another database": ({"DATABASE_URL": "mysql://root@127.0.0.1/games"}, "DATABASE_URL"),
    "port not a number": (
        {"DATABASE_URL": "postgresql://postgres@127.0.0.1:notaport/test"},
        "DATABASE_URL",
    ),
    "port out of range": (
        {"DATABASE_URL": "postgresql://postgres@127.0.0.1:99999/test"},
        "DATABASE_URL",
    ),
    "postgresql refuses": (
        {"DATABASE_URL": "postgresql://postgres@127.0.0.1:{closed}/test"},
        "DATABASE_URL",
    ),
    "no such role": (
        {"DATABASE_URL": make_url(POSTGRES_URL).set(username="pb_no_such_role").render_as_string()},
        "DATABASE_URL",
    ),
    "no such database": (
        {"DATABASE_URL": make_url(POSTGRES_URL).set(database="pb_no_such_db").render_as_string()},
        "DATABASE_URL",
    ),
    "sqlite under a file": ({"DATABASE_URL": "sqlite:///{tmp}/a-file/games.db"}, "DATABASE_URL"),
    "sqlite unwritable": ({"DATABASE_URL": "sqlite:////proc/paperboard.db"}, "DATABASE_URL"),
    "web port": ({"WEB_PORT": "notaport"}, "WEB_PORT"),
    "log level": ({"LOG_LEVEL": "LOUD"}, "LOG_LEVEL"),
    "discord unreachable": (
        {
            "DISCORD_TOKEN": "MTIzNDU2Nzg5.not-the.token",
            "DISCORD_API_BASE": "http://127.0.0.1:{closed}/api/v10",
            "DISCORD_GATEWAY_URL": "ws://127.0.0.1:{closed}/gateway",
        },
        "DISCORD_API_BASE",
    ),
}
COMMANDS = {
    "run": ["run"],
    "console": ["run", "--console"],
    "web": ["web"],
    "worker": ["worker"],
    "export": ["export", "--guild", "1", "-o", "games.jsonl"],
    "health": ["health"],
}
#: In a process of its own, as an operator meets it: what a process does around the
#: refusal (its logging, the event loop it closes, the threads it leaves) must add
#: nothing to the one line. Each way of failing to open the database or Discord meets
#: a command here; every command meets the nonsense in-process (below), through the same
#: `main`. (The forms alone are refused before anything starts: tests/test_settings.py.)
REFUSALS = [
    ("run", "nonsense"),
    ("console", "postgresql refuses"),
    ("web", "sqlite under a file"),
    ("run", "discord unreachable"),
]
IN_PROCESS = [
    *((command, "nonsense") for command in COMMANDS if command != "health"),
    ("worker", "no such database"),
    ("export", "no such role"),
    ("run", "sqlite unwritable"),
]


def bad_environment(bad: str, tmp_path: Path) -> tuple[dict[str, str], str]:
    """The environment of a bad setting (`BAD_SETTINGS`), and the setting's name."""
    (tmp_path / "a-file").write_text("in the way")
    environment, setting = BAD_SETTINGS[bad]
    port = closed_port()
    filled = {
        key: value.replace("{tmp}", str(tmp_path)).replace("{closed}", str(port))
        for key, value in environment.items()
    }
    return filled, setting


@pytest.mark.parametrize(("command", "bad"), REFUSALS)
async def test_a_bad_setting_is_one_sentence_naming_it(
    tmp_path: Path, command: str, bad: str
) -> None:
    """Each command refuses a setting that cannot work in one line that names the setting,
    with exit 2 (health: "unhealthy", exit 1, as a container's health check reads it),
    never a traceback, and writes nothing."""
    environment, setting = bad_environment(bad, tmp_path)
    environment.setdefault("DISCORD_TOKEN", "")  # the console, unless the bot is meant
    environment.setdefault("WEB_PORT", str(closed_port()))
    code, out, err = await run_paperboard(tmp_path, *COMMANDS[command], **environment)
    assert "Traceback" not in out + err
    lines = err.strip().splitlines()
    said = "unhealthy" if command == "health" else "paperboard"
    assert len(lines) == 1 and lines[0].startswith(f"{said}: {setting}"), err
    assert code == (1 if command == "health" else 2), err
    assert not (tmp_path / "games.jsonl").exists()


@pytest.mark.parametrize(("command", "bad"), IN_PROCESS)
def test_every_command_refuses_a_bad_setting_in_one_sentence(
    tmp_path: Path,
    command: str,
    bad: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Each command's `main`, as its process runs it: exit 2, one line naming the setting,
    and nothing written."""
    environment, setting = bad_environment(bad, tmp_path)
    monkeypatch.chdir(tmp_path)  # no .env
    for key in ("DISCORD_TOKEN", "DISCORD_API_BASE", "DISCORD_GATEWAY_URL", "DEV_GUILD_ID"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("RENDER_PROCESSES", "0")
    monkeypatch.setenv("WEB_PORT", str(closed_port()))
    for key, value in environment.items():
        monkeypatch.setenv(key, value)
    assert main(COMMANDS[command]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"paperboard: {setting}"), lines
    assert not (tmp_path / "games.jsonl").exists()


@pytest.mark.parametrize("bad", [bad for bad in BAD_SETTINGS if bad != "discord unreachable"])
def test_health_names_the_bad_setting(
    bad: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Unhealthy (exit 1: Docker's health checks reserve 2) in one line naming the setting,
    a LOG_LEVEL that would stop the bot included."""
    environment, setting = bad_environment(bad, tmp_path)
    monkeypatch.chdir(tmp_path)  # no .env
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'h.db'}")
    for key, value in environment.items():
        monkeypatch.setenv(key, value)
    assert main(["health"]) == 1
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"unhealthy: {setting}"), lines


def test_render_makes_the_folder_and_names_the_players(tmp_path: Path) -> None:
    png = tmp_path / "missing" / "dir" / "x.png"
    args = ["render", "intersections", "--players", "ann,bob,cat", "-o", str(png)]
    assert main(args) == 0
    picture = Image.open(png)
    assert picture.format == "PNG"
    # three seats: the third chip of the caption (right third, caption row) has ink on it
    width, height = picture.size
    strip = picture.convert("L").crop((width * 2 // 3, height - 40, width, height - 10))
    assert strip.getextrema()[0] < 100


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["render", "hex", "--moves", "c3, d4", "--ply", "99"], "--ply must be from 0 to 2"),
        (["render", "hex", "--moves", "c3, d4", "--ply", "-3"], "--ply must be from 0 to 2"),
        (["render", "hex", "--players", "ann,bob,cat"], "exactly 2 players, not 3"),
        (["render", "intersections", "--players", "a,b", "--option", "players=3"], "has 3"),
        (["render", "hex", "-o", "/proc/nowhere/x.png"], "cannot write /proc/nowhere/x.png"),
    ],
)
def test_render_refuses_a_ply_out_of_range_and_an_unwritable_file(
    capsys: pytest.CaptureFixture[str], args: list[str], said: str
) -> None:
    if "-o" not in args:
        args = [*args, "-o", "/tmp/paperboard-never-written.png"]
    assert main(args) == 2
    assert said in capsys.readouterr().err
