"""The paperboard command: render, rules, health, and refusals as one line with exit 2."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image

from bot.cli import main


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
        (["render", "hex", "--option", "nonsense"], "KEY=VALUE"),
    ],
)
def test_refusals_are_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], said: str
) -> None:
    assert main([*args, "-o", str(tmp_path / "x.png")]) == 2
    assert said in capsys.readouterr().err
    assert not (tmp_path / "x.png").exists()


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
