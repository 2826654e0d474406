"""The project's Python sources, parsed once per test process for the checks that read
them (tests/test_layers.py, tests/test_vocabulary.py): each parse of them all costs a
worker seconds of CPU at collection."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: Every .py file of the engine, the bot, the tests and the benchmarks.
SOURCES = sorted(
    path for folder in ("engine", "bot", "tests", "bench") for path in (ROOT / folder).rglob("*.py")
)
#: Parsed once, at collection (the import of this module by a test module): CPython 3.11's
#: parser counts its depth for all threads, so a parse while another thread of the test
#: process compiles an import can fail at random ("SystemError: AST constructor recursion
#: depth mismatch"); no test has started one yet.
TREES = {path: ast.parse(path.read_text()) for path in SOURCES}
