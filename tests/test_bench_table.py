"""bench/table.py writes the benchmarks' headlines into its block and nowhere else, with
fake benchmarks in a package of a temporary repository."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from bench.table import (
    BENCHMARKS,
    DOCUMENT,
    END,
    START,
    Benchmark,
    BenchmarkFailed,
    commit_measured,
    rows_of,
    split_document,
    table,
    update,
)

FAKES = (
    Benchmark("fakebench.counted", ">= 40 widgets"),
    Benchmark("fakebench.kept", "<= 1 ms"),
    Benchmark("fakebench.silent", "anything"),
    Benchmark("fakebench.broken", "anything"),
)

BEFORE = (
    "# Figures\n\nProse above, | with a bar | and a table of its own:\n\n| a | b |\n|---|---|\n"
)
AFTER = "\n\nProse below.\n"
KEPT_ROW = (
    "| `python -m fakebench.kept --rounds 3` | kept: 0.5 ms | <= 1 ms | quiet, 2 cores | abc1234 |"
)
DOCUMENT_TEXT = (
    f"{BEFORE}{START}\n"
    "| command | figure | target | machine load | commit |\n|---|---|---|---|---|\n"
    "| `python -m fakebench.counted` | counted: 3 widgets | >= 40 widgets | 9.0 -> 9.0, 2 cores"
    " | 0000000 |\n"
    f"{KEPT_ROW}\n{END}{AFTER}"
)


def git(root: Path, *arguments: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *arguments],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()


@pytest.fixture
def repository(tmp_path: Path) -> Path:
    """A repository with the fake benchmarks and a document, all committed."""
    package = tmp_path / "fakebench"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "counted.py").write_text('print("warming up")\nprint("counted: 42 | 43 widgets")\n')
    (package / "silent.py").write_text("")
    (package / "broken.py").write_text('print("half")\nraise SystemExit(3)\n')
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "PERFORMANCE.md").write_text(DOCUMENT_TEXT)
    git(tmp_path, "init", "--quiet")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "--quiet", "-m", "fake benchmarks")
    return tmp_path


def test_a_run_rewrites_its_row_and_keeps_the_rest(repository: Path) -> None:
    document = repository / "docs" / "PERFORMANCE.md"
    update(document, FAKES, ["fakebench.counted"], repository)
    written = document.read_text()
    head, block, rest = split_document(written)
    assert head == BEFORE + START and rest == END + AFTER
    counted, kept = block.strip().splitlines()[2:]
    assert kept == KEPT_ROW
    assert counted.startswith(
        r"| `python -m fakebench.counted` | counted: 42 \| 43 widgets | >= 40 widgets | "
    )
    row = rows_of(block)["fakebench.counted"]
    assert row.figure == "counted: 42 | 43 widgets"
    assert re.fullmatch(r"\d+\.\d -> \d+\.\d, \d+ cores", row.load), row.load
    assert row.commit == git(repository, "rev-parse", "--short", "HEAD")


@pytest.mark.parametrize(
    ("module", "message"),
    [
        ("fakebench.silent", "fakebench.silent printed no last line"),
        ("fakebench.broken", "fakebench.broken exited with 3"),
    ],
)
def test_a_benchmark_without_its_figure_fails_and_leaves_the_table(
    repository: Path, module: str, message: str
) -> None:
    document = repository / "docs" / "PERFORMANCE.md"
    with pytest.raises(BenchmarkFailed, match=message):
        update(document, FAKES, [module], repository)
    assert document.read_text() == DOCUMENT_TEXT


def test_a_document_without_the_block_fails_before_any_run(repository: Path) -> None:
    document = repository / "docs" / "PERFORMANCE.md"
    document.write_text(BEFORE + AFTER)
    with pytest.raises(ValueError, match="no bench table"):
        update(document, FAKES, ["fakebench.broken"], repository)


def test_the_commit_is_dirty_for_any_change_but_the_tables_own(repository: Path) -> None:
    document = repository / "docs" / "PERFORMANCE.md"
    head = git(repository, "rev-parse", "--short", "HEAD")
    document.write_text(DOCUMENT_TEXT + "more\n")
    assert commit_measured(repository, document) == head
    (repository / "fakebench" / "counted.py").write_text('print("counted: 1")\n')
    assert commit_measured(repository, document) == f"{head}+dirty"


def test_the_projects_table_is_as_the_runner_writes_it() -> None:
    """Every benchmark of the list has its row, in the list's order, with its target."""
    block = split_document(DOCUMENT.read_text())[1]
    rows = rows_of(block)
    assert list(rows) == [benchmark.module for benchmark in BENCHMARKS]
    assert block == f"\n{table(rows, BENCHMARKS)}\n"
