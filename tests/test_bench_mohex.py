"""The MoHex match driver against a fake GTP engine (no MoHex needed)."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import cast

import pytest

import bench.mohex
import engine
from bench.ai_openspiel import Resigned
from bench.mohex import EngineFailure, Gtp, MoHex

#: Plays the first empty cell in reading order; its first genmove answer (of all its
#: processes: the file argv[2] marks it given) is argv[1] ("illegal": an occupied
#: cell, "hang": silence, "exit": exits, "resign"), every later one correct.
FAKE_ENGINE = """
import os, sys, time
size, stones, first = 7, {}, "" if os.path.exists(sys.argv[2]) else sys.argv[1]
def cells():
    return [f"{chr(97 + c)}{r + 1}" for r in range(size) for c in range(size)]
for line in sys.stdin:
    words = line.split()
    answer = ""
    if words[0] == "boardsize":
        size = int(words[1])
    elif words[0] == "clear_board":
        stones = {}
    elif words[0] == "play":
        if words[2] in stones:
            print("? illegal move: occupied\\n", flush=True)
            continue
        stones[words[2]] = words[1]
    elif words[0] == "final_score":
        column_a = all(stones.get(f"a{r + 1}") == "b" for r in range(size))
        answer = "B+" if column_a else "cannot score"
    elif words[0] == "genmove":
        open(sys.argv[2], "w").close()
        if first == "hang":
            time.sleep(60)
        if first == "exit":
            sys.exit(3)
        answer = "resign" if first == "resign" else next(c for c in cells() if c not in stones)
        if first == "illegal":
            answer = next(iter(stones))
        else:
            stones[answer] = words[1]
        first = ""
    print(f"= {answer}\\n", flush=True)
"""


def fake(tmp_path: Path, first: str) -> list[str]:
    script = tmp_path / "fake_gtp.py"
    script.write_text(FAKE_ENGINE)
    return [sys.executable, str(script), first, str(tmp_path / "misbehaved")]


def test_gtp_answers_errors_and_timeouts(tmp_path: Path) -> None:
    gtp = Gtp(fake(tmp_path, "hang"), (tmp_path / "log").open("w+b"))
    assert gtp.ask("boardsize 5", timeout=10) == ""
    assert gtp.ask("play b a1", timeout=10) == ""
    with pytest.raises(EngineFailure, match="occupied") as error:
        gtp.ask("play w a1", timeout=10)
    assert error.value.kind == "error"
    with pytest.raises(EngineFailure) as error:
        gtp.ask("genmove w", timeout=0.5)
    assert error.value.kind == "timeout"
    assert gtp.process.poll() is not None


@pytest.mark.parametrize("first", ["", "illegal", "exit", "hang"])
def test_failed_answers_are_counted_and_asked_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, first: str
) -> None:
    monkeypatch.setattr(bench.mohex, "STARTUP_SECONDS", 2.0)
    mohex = MoHex(fake(tmp_path, first), 7, 0.05)
    try:
        reply = mohex.new_game(0)
        state = engine.new("hex", size=7, swap="off").play("d4")
        assert reply(state) == "a1"
        assert reply(state.play("a1").play("b1")) == "c1"  # the engine keeps up
        assert sum(mohex.failures.values()) == (first != "")
        assert mohex.forfeits == 0
    finally:
        mohex.gtp.close()


def test_a_resignation_loses_the_game(tmp_path: Path) -> None:
    mohex = MoHex(fake(tmp_path, "resign"), 7, 0.05)
    try:
        with pytest.raises(Resigned):
            mohex.new_game(0)(engine.new("hex", size=7, swap="off"))
        assert mohex.resignations == 1
    finally:
        mohex.gtp.close()


class VcEngine:
    """Answers the connection queries: a full connection between White's edges always
    (White wins when to move, else Black has lost), none of Black's, and every empty
    cell filled in for White; records the moves."""

    def __init__(self, size: int) -> None:
        self.labels = engine.hex.board(size).labels
        self.games: list[list[str]] = []
        self.cells: list[str] = []

    def ask(self, command: str, timeout: float) -> str:
        words = command.split()
        if words[0] == "clear_board":
            self.games.append([])
            self.cells = []
        elif words[0] == "play":
            self.games[-1].append(words[1])
            self.cells.append(words[2])
        elif words[0].startswith("vc-between-cells-full"):
            return "a1 b2" if words[1] == "w" else ""
        elif words[0] == "compute-fillin":
            return " ".join(f"{cell} fcw" for cell in self.labels if cell not in self.cells)
        return ""


def test_the_connections_comparison_replays_each_position_and_counts_the_verdicts(
    capsys: pytest.CaptureFixture[str],
) -> None:
    engine_double = VcEngine(9)
    headline = bench.mohex.compare_connections(cast(Gtp, engine_double), 9, 12, seed=3)
    assert len(engine_double.games) == 12
    for colours in engine_double.games:
        assert len(colours) >= 8
        assert colours == ["bw"[ply % 2] for ply in range(len(colours))]
    # The double settles every position (White connected, whoever moves), rightly only
    # where White has won: our verdicts agree, differ, or settle nothing.
    counts = re.fullmatch(
        r"mohex: connections hex9 (\d+) of 12 \(12 positions, (\d+) disagreements\)", headline
    )
    assert counts is not None
    assert int(counts[1]) + int(counts[2]) <= 12
    # Where ours settle nothing, the double's fill-in (every empty cell White's) joins
    # White's edges: each of those positions is settled with it, as the double says.
    split = re.search(
        r"of the (\d+) benzene settles and ours do not, (\d+) settle", capsys.readouterr().out
    )
    assert split is not None and int(split[1]) == int(split[2]) > 0
