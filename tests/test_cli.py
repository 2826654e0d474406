"""The paperboard command: render, rules, health, and refusals as one line with exit 2."""

from __future__ import annotations

import asyncio
import io
import os
import sys
from pathlib import Path

import pytest
from PIL import Image

from bot.cli import main
from tests.conftest import PATIENCE_SECONDS
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
    tmp_path: Path, stdin: bytes = b"", **environment: str
) -> tuple[int, str, str]:
    """`paperboard run` in a fresh process, in an empty folder (no .env)."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("DISCORD_TOKEN", "DISCORD_API_BASE", "DISCORD_GATEWAY_URL", "DEV_GUILD_ID")
    }
    env.update(DATABASE_URL=f"sqlite:///{tmp_path / 'run.db'}", RENDER_PROCESSES="0", **environment)
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot.cli", "run",
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE, cwd=tmp_path,
        env={**env, "PYTHONPATH": str(Path(__file__).parent.parent)},
    )  # fmt: skip
    out, err = await asyncio.wait_for(process.communicate(stdin), PATIENCE_SECONDS)
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


async def test_an_empty_token_starts_the_console(tmp_path: Path) -> None:
    code, out, err = await run_paperboard(tmp_path, b"rules\n", DISCORD_TOKEN="", DEV_GUILD_ID="")
    assert code == 0, err
    assert "No DISCORD_TOKEN set: starting the console" in out and "hotwire" in out


async def test_a_refused_token_is_one_sentence_and_exit_1(
    tmp_path: Path, fake_discord: FakeDiscord
) -> None:
    code, out, err = await run_paperboard(
        tmp_path,
        DISCORD_TOKEN="MTIzNDU2Nzg5.not-the.token",
        DISCORD_API_BASE=fake_discord.api_base,
        DISCORD_GATEWAY_URL=fake_discord.gateway_url,
    )
    assert code == 1
    assert err.strip().splitlines() == [
        "paperboard: Discord refused DISCORD_TOKEN; copy the token again from the developer "
        "portal (Bot page) into .env."
    ]
    assert "Traceback" not in err + out


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
