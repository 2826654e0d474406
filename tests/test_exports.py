"""Exports: a game as JSON or HexGui SGF (read back and replayed), the record's rule, and
every finished game of a server streamed as JSON lines (the service and `paperboard export`)."""

from __future__ import annotations

import json
import random
import re
from datetime import timedelta
from pathlib import Path

import pytest

import engine
from bot.cli import main as paperboard
from bot.service import GameService, GameSummary, Player, Refused, ServiceCode
from bot.service.looks.exports import finished_games
from tests.conftest import ANN, BOB, Clock
from tests.servicekit import GUILD, player_at, start


async def play_out(
    service: GameService, game: GameSummary, rng: random.Random, *, first: tuple[str, ...] = ()
) -> engine.GameState:
    """Play `first`, then random legal moves until the game ends."""
    scripted = list(first)
    while True:
        state = await service.lookups.state(game.id, GUILD)
        if state.outcome is not None:
            return state
        mover = player_at(game, state.to_move or 0)
        text = scripted.pop(0) if scripted else rng.choice(state.legal_moves())
        await service.play.move(game.id, GUILD, mover, text)


def read_hexgui_sgf(text: str) -> tuple[int, list[str]]:
    """An SGF reader written from HexGui's rules, independent of the writer: the board size
    and the record in the engine's notation (`swap-pieces` mirrors the opening stone, so
    later cells are mirrored back; `B[]` is a pass)."""
    assert text.startswith("(;") and text.rstrip().endswith(")")
    size = int(re.search(r"SZ\[(\d+)\]", text)[1])  # type: ignore[index]
    assert "GM[11]" in text and "FF[4]" in text
    record: list[str] = []
    swapped = False
    for node in text.strip()[2:-1].split(";")[1:]:
        colour, value = re.fullmatch(r"([BW])\[([^\]]*)\]", node).groups()  # type: ignore[union-attr]
        assert colour == "BW"[len(record) % 2], "HexGui alternates B and W"
        if value == "swap-pieces":
            swapped = True
            record.append("swap")
        elif value == "":
            record.append("pass")
        else:
            column, row = ord(value[0]) - ord("a"), int(value[1:]) - 1
            if swapped:
                column, row = row, column
            record.append(f"{chr(ord('a') + column)}{row + 1}")
    return size, record


@pytest.mark.parametrize("game_name", ["hex", "disthex"])
async def test_a_finished_game_reads_back_from_its_sgf_and_replays_equal(
    service: GameService, game_name: str
) -> None:
    game = await start(service, game_name, {"size": "6", "swap": "on"})
    final = await play_out(service, game, random.Random(3), first=("c2", "swap", "e3"))
    sgf = (await service.exports.export(game.id, GUILD, "sgf")).data.decode()
    assert ";B[c2];W[swap-pieces];B[" in sgf and "PB[ann]PW[bob]" in sgf
    size, record = read_hexgui_sgf(sgf)
    assert size == 6 and record == list(final.moves)
    again = engine.replay(game_name, final.options, record)
    assert again.outcome == final.outcome and again.view() == final.view()
    winner = "BW"[final.outcome.winners[0]]  # type: ignore[union-attr]
    assert f"RE[{winner}+]" in sgf
    # after the swap seat 0 (B in the SGF) plays White: its cells are written mirrored
    assert ";B[c5]" in sgf  # e3 mirrored
    # the JSON names the colour each seat plays at the end, as the record does
    for record in (
        json.loads((await service.exports.export(game.id, GUILD, "json")).data),
        *[r async for r in finished_games(service.records.db, GUILD, None)],
    ):
        assert [p["seat_name"] for p in record["players"]] == ["White", "Black"]


async def test_the_json_record_has_everything_under_way_or_over(
    service: GameService, clock: Clock
) -> None:
    """The record's rule: anyone here may export any game at any time, its players too
    (a game's moves are no engine help)."""
    game = await start(service, "hotwire", {"size": "5x5"})
    state = await service.lookups.state(game.id, GUILD)
    first = state.legal_moves()[0]
    await service.play.move(game.id, GUILD, ANN, first)
    under_way = json.loads((await service.exports.export(game.id, GUILD, "json")).data)
    assert under_way["result"] is None and [m["text"] for m in under_way["moves"]] == [first]
    for fmt, code in (("sgf", ServiceCode.BAD_SETTING), ("pdf", ServiceCode.BAD_SETTING)):
        assert (await _refused(service.exports.export(game.id, GUILD, fmt))).code == code
    assert (await _refused(service.exports.export(game.id, GUILD + 1))).code == ServiceCode.NO_GAME

    clock.advance(hours=1)
    await service.play.resign(game.id, GUILD, BOB)
    exported = await service.exports.export(game.id, GUILD, "json")
    assert exported.filename == f"hotwire-{game.id}.json"
    record = json.loads(exported.data)
    assert record["game"] == "hotwire" and record["options"]["size"] == "5x5"
    assert [(p["seat"], p["id"], p["name"]) for p in record["players"]] == [
        (0, ANN.id, "ann"),
        (1, BOB.id, "bob"),
    ]
    assert record["moves"][0] == {
        "ply": 0,
        "seat": 0,
        "text": first,
        "at": (clock.now - timedelta(hours=1)).isoformat(),
    }
    assert record["result"] == {
        "winners": [0],
        "winner_ids": [ANN.id],
        "reason": "resignation",
        "scores": None,
    }
    assert record["finished_at"] == clock.now.isoformat()


async def _refused(call: object) -> Refused:
    with pytest.raises(Refused) as caught:
        await call  # type: ignore[misc]
    return caught.value


@pytest.mark.both_backends
async def test_finished_games_stream_page_by_page_since_a_date(
    service: GameService, clock: Clock
) -> None:
    ids = []
    for _ in range(5):
        game = await start(service, "hex", {"size": "3"})
        await service.play.resign(game.id, GUILD, BOB)
        ids.append(game.id)
        clock.advance(days=1)
    await start(service, "hex", {"size": "3"})  # under way: not exported
    since = clock.now - timedelta(days=3)  # games 3, 4 and 5 finished since
    found = [r async for r in finished_games(service.records.db, GUILD, since, page=2)]
    assert [r["id"] for r in found] == ids[2:]
    everything = [r async for r in finished_games(service.records.db, GUILD, None, page=2)]
    assert [r["id"] for r in everything] == ids
    assert all(r["players"][1]["name"] == "bob" and r["result"] for r in everything)
    assert [r async for r in finished_games(service.records.db, GUILD + 1, None)] == []


async def test_the_operators_export_command_writes_one_json_line_per_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clock: Clock
) -> None:
    url = f"sqlite:///{tmp_path / 'pb.db'}"
    from bot.settings import Settings
    from bot.store import Database

    settings = Settings(database_url=url, render_processes=0, _env_file=None)  # type: ignore[call-arg]
    service = GameService(await Database.open(url), settings, clock=clock)
    try:
        game = await start(service, "hex", {"size": "4"})
        await service.play.resign(game.id, GUILD, Player(BOB.id, "bob"))
    finally:
        await service.close()
    monkeypatch.setenv("DATABASE_URL", url)
    out = tmp_path / "games.jsonl"
    assert (
        await _in_thread(["export", "--guild", str(GUILD), "--since", "2026-01-01", "-o", str(out)])
        == 0
    )
    lines = out.read_text().splitlines()
    assert len(lines) == 1 and json.loads(lines[0])["id"] == game.id
    assert (
        await _in_thread(["export", "--guild", str(GUILD), "--since", "2027-01-01", "-o", str(out)])
        == 0
    )
    assert out.read_text() == ""


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--guild", "1", "-o", "."], "cannot write .: Is a directory"),
        (["--guild", "1", "-o", "no/such/dir/x.jsonl"], "No such file or directory"),
        (["--guild", "9" * 23, "-o", "x.jsonl"], "is not a server id"),
        (["--guild", "-1", "-o", "x.jsonl"], "is not a server id"),
        (["--guild", "1", "--since", "0001-01-01T00:00+01:00", "-o", "x.jsonl"], "calendar"),
        (["--guild", "1", "--since", "9999-12-31T23:59-23:59", "-o", "x.jsonl"], "calendar"),
    ],
)
def test_the_export_command_refuses_in_one_line(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    said: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'pb.db'}")
    try:
        code = paperboard(["export", *args])
    except SystemExit as exit:  # argparse's refusal of an argument
        code = int(exit.code or 0)
    assert code == 2
    err = capsys.readouterr().err
    assert said in err and "Traceback" not in err


async def _in_thread(argv: list[str]) -> int:
    import asyncio

    return await asyncio.to_thread(paperboard, argv)


async def test_the_console_writes_the_export_to_a_file(
    service: GameService, tmp_path: Path
) -> None:
    from tests.consolekit import HEX_WITH_SWAP, transcript_of

    said = await transcript_of(service, tmp_path, [*HEX_WITH_SWAP, "as ann", "c3", "export 1 sgf"])
    assert said[-1] == f"Export: {tmp_path / 'boards' / 'hex-1.sgf'}", said  # hers, under way
    assert (tmp_path / "boards" / "hex-1.sgf").read_text().endswith(";B[c3])\n")
    said = await transcript_of(service, tmp_path, ["as cat", "export 1 sgf"])
    assert said[-1] == f"Export: {tmp_path / 'boards' / 'hex-1.sgf'}", said
    assert (tmp_path / "boards" / "hex-1.sgf").read_text().startswith("(;FF[4]")
