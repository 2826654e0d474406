"""Hex's compiled prover (engine/_hexsolve.c) against its Python reference (hexsolve.py)."""

from __future__ import annotations

import contextlib
import math
import time
from pathlib import Path

import pytest

from engine.ai import hexsolve
from engine.ai.hexconnections import geometry
from engine.ai.hexsolve import FillIn, HexProver
from engine.ai.solver import Budget, OutOfTime
from tests.conftest import skip_unless_built, skip_without_a_c_compiler
from tests.test_hexsolve import random_positions

compiled = hexsolve._compiled
needs_compiled = skip_unless_built(compiled, "the compiled prover's functions")


def test_the_compiled_prover_is_built_where_a_compiler_is() -> None:
    skip_without_a_c_compiler("the prover runs in Python")
    assert compiled is not None, "make install builds engine/*.c"


@needs_compiled
@pytest.mark.parametrize(
    ("size", "count", "fewest"), [(3, 120, 0), (4, 100, 2), (5, 80, 5), (6, 60, 10), (7, 40, 14)]
)
def test_compiled_and_python_fill_and_evaluate_alike(
    monkeypatch: pytest.MonkeyPatch, size: int, count: int, fewest: int
) -> None:
    # Random stones, either colour to move: the same fill-in (both colours, and each
    # alone), the same value, must-play region and filled stones.
    assert compiled is not None
    fill = FillIn(geometry(size))
    for own, other, colour in random_positions(size, count, seed=size + 20, fewest=fewest):
        black, white = (own, other) if colour == 0 else (other, own)
        for only in (None, 0, 1):
            assert compiled.fill(size, black, white, only) == fill.fill(black, white, only=only)
        found = hexsolve.evaluate(size, own, other, colour)
        with monkeypatch.context() as python:
            python.setattr(hexsolve, "_compiled", None)
            assert found == hexsolve.evaluate(size, own, other, colour), (own, other, colour)


@needs_compiled
def test_the_compiled_fill_in_takes_an_acute_corner_too() -> None:
    # tests/test_hexsolve.py's corner: White's h2 and i2 leave i1 dead on 9x9.
    assert compiled is not None
    white = 1 << 16 | 1 << 17
    assert compiled.fill(9, 0, white, None) == (0, white | 1 << 8)


@needs_compiled
@pytest.mark.parametrize(
    ("size", "count", "fewest"), [(3, 100, 0), (4, 80, 2), (5, 60, 6), (6, 30, 13), (7, 12, 24)]
)
def test_compiled_and_python_provers_agree_node_for_node(
    monkeypatch: pytest.MonkeyPatch, size: int, count: int, fewest: int
) -> None:
    # The same search step for step: the same value after the same number of nodes.
    for own, other, colour in random_positions(size, count, seed=size + 40, fewest=fewest):
        results = []
        for search in (compiled, None):
            monkeypatch.setattr(hexsolve, "_compiled", search)
            budget = Budget(math.inf)
            results.append((HexProver(size, budget).mover_wins(own, other, colour), budget.nodes))
        assert results[0] == results[1], (own, other, colour)


@pytest.mark.parametrize("search", ["compiled", "python"])
def test_a_position_read_from_the_table_as_its_turned_twin_keeps_its_moves(
    monkeypatch: pytest.MonkeyPatch, search: str
) -> None:
    # A position and its 180-degree turn share a table entry; the must-play region
    # kept with it is read back turned for the twin. (Read as it lay, the compiled
    # prover searched the wrong cells and got 1 of these 200 wrong.)
    if search == "python":
        monkeypatch.setattr(hexsolve, "_compiled", None)
    elif compiled is None:
        pytest.skip("the compiled prover was not built (no C compiler at install)")
    size, count = 6, 200 if search == "compiled" else 20
    cells = size * size
    for own, other, colour in random_positions(size, count, seed=5, fewest=12):
        twin = (hexsolve.turn(own, cells), hexsolve.turn(other, cells), colour)
        fresh = HexProver(size, Budget(math.inf)).mover_wins(*twin)
        prover = HexProver(size, Budget(math.inf, node_limit=1))
        with contextlib.suppress(OutOfTime):
            prover.mover_wins(own, other, colour)  # the root kept unsettled
        prover.budget = Budget(math.inf)
        assert prover.mover_wins(*twin) == fresh, (own, other, colour)


@pytest.mark.parametrize("search", ["compiled", "python"])
def test_a_spent_budget_is_out_of_time(monkeypatch: pytest.MonkeyPatch, search: str) -> None:
    if search == "python":
        monkeypatch.setattr(hexsolve, "_compiled", None)
    elif compiled is None:
        pytest.skip("the compiled prover was not built (no C compiler at install)")
    opening = (0, 1 << 24, 1)  # 7x7, d4 played: far from settled in a few nodes
    budget = Budget(math.inf, node_limit=6)
    budget.nodes = 2  # a budget shared with earlier searches: 4 nodes left
    with pytest.raises(OutOfTime):
        HexProver(7, budget).mover_wins(*opening)
    assert budget.nodes == 7  # the node past the limit counts, as Budget.tick counts it
    with pytest.raises(OutOfTime):
        HexProver(7, Budget(time.monotonic() - 1)).mover_wins(*opening)
    with pytest.raises(OutOfTime):
        hexsolve.evaluate(7, 0, 1 << 24, 1, deadline=time.monotonic() - 1)


def _resident_kilobytes() -> int:
    with open("/proc/self/status") as status:
        line = next(line for line in status if line.startswith("VmRSS:"))
    return int(line.split()[1])


@needs_compiled
@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads Linux's /proc")
def test_repeated_compiled_calls_keep_memory_bounded() -> None:
    # Every call frees its proof tree and scratch memory: a thousand calls, out of
    # budget half the time, leave the process's size where the first hundred put it.
    positions = random_positions(6, 100, seed=5, fewest=8)
    before = 0
    for index in range(1000):
        if index == 100:
            before = _resident_kilobytes()
        own, other, colour = positions[index % len(positions)]
        limit = 40 if index % 2 else None
        prover = HexProver(6, Budget(math.inf, node_limit=limit))
        with contextlib.suppress(OutOfTime):
            prover.mover_wins(own, other, colour)
        hexsolve.evaluate(6, own, other, colour)
    assert _resident_kilobytes() - before < 8_000
