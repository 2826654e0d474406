"""The table of docs/PERFORMANCE.md: runs benchmarks and writes their headlines into it.

Each benchmark prints its headline figure as its last line. This runs each one as
`python -m <module>` from the top of the repository (its output shown as it comes),
keeps that last line, the machine's load average at the start and at the end (and its
cores), and the commit measured, and rewrites that benchmark's row in the document's
generated block, between the two marker comments; the rest of the document, and the
rows of the benchmarks not run, stay as they are. The benchmarks and their targets are
BENCHMARKS below: the one list `make bench` runs.

Run: .venv/bin/python -m bench.table [bench.render bench.engine ...] (all by default)
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCUMENT = ROOT / "docs" / "PERFORMANCE.md"
START = "<!-- bench table: written by make bench (python -m bench.table), not by hand -->"
END = "<!-- end of bench table -->"
HEADER = "| command | figure | target | machine load | commit |\n|---|---|---|---|---|"


@dataclass(frozen=True)
class Benchmark:
    module: str
    target: str


#: What `make bench` runs, in this order, and the table's rows in the same order.
BENCHMARKS: tuple[Benchmark, ...] = (
    Benchmark("bench.engine", "Hex 7x7 playouts >= 1.0x OpenSpiel's"),
    Benchmark("bench.render", "<= 2.0x for every game"),
    Benchmark("bench.service", ">= 300 moves/s"),
    Benchmark("bench.schedule", "<= 50 ms"),
    Benchmark("bench.discord_e2e", "first acknowledgement < 3 s, no answer lost"),
    Benchmark("bench.load", "stall <= 50 ms, light move p99 <= 150 ms, peak RSS <= 500 MB"),
    Benchmark("bench.ai", ">= 60% against MCTSBot over >= 200 games, Hex 7x7 and 11x11"),
    Benchmark("bench.conditionals", "ratio <= 1.2"),
    Benchmark("bench.digest", "<= 100 ms"),
    Benchmark("bench.export", "peak RSS <= 200 MB"),
    Benchmark("bench.email", ">= 50 moves/s, stall <= 50 ms"),
    Benchmark(
        "bench.ai_play",
        "reply overhead p99 <= 150 ms, lag p99 <= 20 ms, human move p99 <= x1.5, chart <= 200 KB",
    ),
    Benchmark(
        "bench.scale",
        "move <= search + 0.5 s with workers, crash announced <= 30 s, every process exits 0",
    ),
    Benchmark("bench.tournament", "loop stall while pairing 1,000 <= 50 ms"),
    Benchmark(
        "bench.web",
        "page p99 <= 50 ms, cached board p99 <= 20 ms, move p99 <= 150 ms, stall <= 50 ms; "
        "live: delivery p99 <= 1 s, stall <= 50 ms",
    ),
)


@dataclass(frozen=True)
class Row:
    """A benchmark's line of the table, but its target (which BENCHMARKS holds)."""

    command: str
    figure: str
    load: str
    commit: str


class BenchmarkFailed(Exception):
    """A benchmark exited with an error, or printed no last line to take as its figure."""


def commit_measured(root: Path, document: Path) -> str:
    """HEAD's short hash, "+dirty" when anything but the table's own document differs from
    it (the runner rewrites that one as it goes)."""
    head = git(root, "rev-parse", "--short", "HEAD")
    changed = git(
        root, "status", "--porcelain", "--", ".", f":(exclude){document.relative_to(root)}"
    )
    return f"{head}+dirty" if changed else head


def git(root: Path, *arguments: str) -> str:
    return subprocess.run(
        ["git", *arguments], cwd=root, capture_output=True, text=True, check=True
    ).stdout.strip()


def measure(benchmark: Benchmark, root: Path, commit: str) -> Row:
    """Runs the benchmark, echoing its output, and keeps its last line as the figure."""
    load_at_start = os.getloadavg()[0]
    last = ""
    with subprocess.Popen(
        [sys.executable, "-m", benchmark.module],
        cwd=root,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},  # its lines as it prints them
    ) as process:
        assert process.stdout is not None
        for line in process.stdout:
            print(line, end="", flush=True)
            last = line.strip() or last
    load_at_end = os.getloadavg()[0]
    if process.returncode != 0:
        raise BenchmarkFailed(f"{benchmark.module} exited with {process.returncode}")
    if not last:
        raise BenchmarkFailed(f"{benchmark.module} printed no last line (its figure)")
    return Row(
        command=f"python -m {benchmark.module}",
        figure=last,
        load=f"{load_at_start:.1f} -> {load_at_end:.1f}, {os.cpu_count()} cores",
        commit=commit,
    )


def split_document(document: str) -> tuple[str, str, str]:
    """The text before the block (its start marker included), the block, and the rest."""
    start, end = document.find(START), document.find(END)
    if start < 0 or end < start:
        raise ValueError(f"the document has no bench table: {START} ... {END}")
    head_end = start + len(START)
    return document[:head_end], document[head_end:end], document[end:]


#: A cell's separator: a bar not escaped (a figure's own bar is written `\|`).
CELL = re.compile(r"(?<!\\)\|")
#: The module a command runs.
MODULE = re.compile(r"-m ([\w.]+)")


def rows_of(block: str) -> dict[str, Row]:
    """The block's rows by module (the target cell is left: BENCHMARKS has it)."""
    rows = {}
    for line in block.strip().splitlines()[2:]:  # after the header and its rule
        cells = [cell.strip().replace("\\|", "|") for cell in CELL.split(line)[1:-1]]
        if len(cells) != 5:
            raise ValueError(f"a row of the bench table without its 5 cells: {line}")
        command, figure, _, load, commit = cells
        command = command.strip("`")
        found = MODULE.search(command)
        if found is None:
            raise ValueError(f"a row of the bench table names no module: {line}")
        rows[found[1]] = Row(command, figure, load, commit)
    return rows


def table(rows: dict[str, Row], benchmarks: Sequence[Benchmark]) -> str:
    """The block's table: a row for each benchmark measured, in the list's order."""
    lines = [HEADER]
    for benchmark in benchmarks:
        row = rows.get(benchmark.module)
        if row is not None:
            cells = (f"`{row.command}`", row.figure, benchmark.target, row.load, row.commit)
            lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    return "\n".join(lines)


def with_row(document: str, module: str, row: Row, benchmarks: Sequence[Benchmark]) -> str:
    """The document with `module`'s row replaced (or added), everything else as it was."""
    head, block, rest = split_document(document)
    rows = rows_of(block) | {module: row}
    return f"{head}\n{table(rows, benchmarks)}\n{rest}"


def update(
    document: Path, benchmarks: Sequence[Benchmark], chosen: Sequence[str], root: Path
) -> None:
    """Runs the chosen benchmarks one after another, writing each one's row as it ends
    (a failure keeps the rows written before it)."""
    rows_of(split_document(document.read_text())[1])  # a document to write to, or fail now
    commit = commit_measured(root, document)
    by_module = {benchmark.module: benchmark for benchmark in benchmarks}
    for module in chosen:
        row = measure(by_module[module], root, commit)
        document.write_text(with_row(document.read_text(), module, row, benchmarks))


def main(arguments: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    known = [benchmark.module for benchmark in BENCHMARKS]
    parser.add_argument(
        "modules", nargs="*", metavar="module", help=f"run only these (of {', '.join(known)})"
    )
    args = parser.parse_args(arguments)
    unknown = [module for module in args.modules if module not in known]
    if unknown:
        parser.error(f"not in bench/table.py's BENCHMARKS: {', '.join(unknown)}")
    try:
        update(DOCUMENT, BENCHMARKS, args.modules or known, ROOT)
    except BenchmarkFailed as failure:
        sys.exit(f"bench.table: {failure}; its row is left as it was")


if __name__ == "__main__":
    main()
