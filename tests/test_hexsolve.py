"""Hex's exact solver (engine/ai/hexsolve.py) against brute force and published results."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from functools import cache

import pytest

import engine
from engine import ai
from engine.ai import hexsolve
from engine.ai.hexai import HexAdapter, HexPosition
from engine.ai.hexconnections import Connections, connected, geometry
from engine.ai.hexsolve import FillIn, HexProver, _Node, turn
from engine.ai.solver import Budget
from engine.hex import EMPTY

Position = tuple[int, int, int]  # the mover's stones, the opponent's, the mover's colour


def brute_force(size: int) -> Callable[[int, int, int], bool]:
    """Whether the mover wins, by trying every move to the end (memoised). A
    position may already be won (fill-in can finish a chain). Independent of the
    prover, but not naive: a position and its half turn share one memo entry, and
    moves are tried from the centre out, a winning stone first (4x4 in seconds)."""
    geo = geometry(size)
    middle = (size - 1) / 2
    centre_out = sorted(
        range(geo.cells), key=lambda cell: abs(cell // size - middle) + abs(cell % size - middle)
    )

    def mover_wins(own: int, other: int, colour: int) -> bool:
        turned = (turn(own, geo.cells), turn(other, geo.cells))
        return solved(*min((own, other), turned), colour)

    @cache
    def solved(own: int, other: int, colour: int) -> bool:
        if connected(geo, own, colour) or connected(geo, other, colour ^ 1):
            return connected(geo, own, colour)
        free = geo.full & ~(own | other)
        moves = [own | 1 << cell for cell in centre_out if free >> cell & 1]
        return any(connected(geo, after, colour) for after in moves) or any(
            not mover_wins(other, after, colour ^ 1) for after in moves
        )

    return mover_wins


def random_positions(size: int, count: int, seed: int, fewest: int = 0) -> list[Position]:
    """Unfinished positions with random stones (not always alternating: fill-in makes
    such positions) and a random mover."""
    geo = geometry(size)
    rng = random.Random(seed)
    found: list[Position] = []
    while len(found) < count:
        stones = rng.sample(range(geo.cells), rng.randrange(fewest, geo.cells - 1))
        cut = len(stones) // 2 + rng.choice((-1, 0, 0, 1))
        black = sum(1 << cell for cell in stones[:cut])
        white = sum(1 << cell for cell in stones[cut:])
        if connected(geo, black, 0) or connected(geo, white, 1):
            continue
        colour = rng.randrange(2)
        found.append((black, white, colour) if colour == 0 else (white, black, colour))
    return found


def unlimited() -> Budget:
    return Budget(deadline=float("inf"))


@pytest.fixture(params=["compiled", "python"])
def search(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A test twice: with the compiled search (engine/_hexsolve.c), then the Python one."""
    if request.param == "python":
        monkeypatch.setattr(hexsolve, "_compiled", None)
    elif hexsolve._compiled is None:
        pytest.skip("the compiled prover was not built (no C compiler at install)")
    yield request.param


@pytest.mark.parametrize(("size", "count", "fewest"), [(3, 150, 0), (4, 60, 4), (5, 40, 13)])
def test_the_prover_agrees_with_brute_force(
    search: str, size: int, count: int, fewest: int
) -> None:
    truth = brute_force(size)
    for own, other, colour in random_positions(size, count, seed=size, fewest=fewest):
        prover = HexProver(size, unlimited())
        assert prover.mover_wins(own, other, colour) == truth(own, other, colour)


@pytest.mark.parametrize("one_sided", [False, True])
def test_fill_in_keeps_the_value(one_sided: bool) -> None:
    # One-sided (the mover's captured pairs, dead cells as the mover's own): the
    # opponent's stones stay as they were.
    truth = brute_force(4)
    fill = FillIn(geometry(4))
    changed = 0
    for own, other, colour in random_positions(4, 150, seed=12 if one_sided else 11, fewest=6):
        stones = (own, other) if colour == 0 else (other, own)
        filled = fill.fill(*stones, only=colour if one_sided else None)
        assert filled[0] & stones[0] == stones[0] and filled[1] & stones[1] == stones[1]
        if one_sided:
            assert filled[colour ^ 1] == stones[colour ^ 1]
        changed += filled != stones
        after = filled if colour == 0 else (filled[1], filled[0])
        assert truth(*after, colour) == truth(own, other, colour)
    assert changed > 20  # the patterns do fire


def test_an_acute_corner_is_dead_when_its_neighbours_let_both_colours_by() -> None:
    # i1 touches both colours' edges, and nothing lies past the corner between them.
    # White's h2 and i2 already reach White's edge, Black's edge meets h1 beside it: no
    # chain needs i1.
    size = 9
    fill = FillIn(geometry(size))
    i1, h1, h2, i2 = 8, 7, 16, 17
    white = 1 << h2 | 1 << i2
    assert fill.is_dead(i1, 0, white)
    assert not fill.is_dead(i1, 0, 1 << h2)  # i2 empty: i1 joins h2 to White's edge
    assert not fill.is_dead(i1, 1 << h2, 1 << h1)  # i1 joins Black's h2 to Black's edge
    black, filled = fill.fill(0, white)
    assert black == 0 and filled == white | 1 << i1


def test_pruning_dominated_moves_keeps_a_winning_move() -> None:
    # Every empty cell a candidate: whenever some move wins, a kept one does.
    size = 4
    truth = brute_force(size)
    geo = geometry(size)
    pruned = 0
    for own, other, colour in random_positions(size, 150, seed=13, fewest=6):
        node = _Node(own, other, colour, key=0)
        node.moves = geo.full & ~(own | other)
        kept = HexProver(size, unlimited())._undominated(node)
        assert kept and set(kept) <= {cell for cell in range(geo.cells) if node.moves >> cell & 1}
        pruned += node.moves.bit_count() - len(kept)
        winning = set()
        for cell in range(geo.cells):
            after = own | 1 << cell
            if node.moves >> cell & 1 and (
                connected(geo, after, colour) or not truth(other, after, colour ^ 1)
            ):
                winning.add(cell)
        assert bool(winning & set(kept)) == bool(winning)
    assert pruned > 100, pruned  # domination does fire


@pytest.mark.parametrize("cells", [1, 9, 25, 49, 75, 361, 1083])
def test_turn_moves_cell_i_to_the_opposite_cell(cells: int) -> None:
    # Keys of positions and their 180-degree turns rest on it (Hex: two masks of
    # 361 cells at once, Disthex three).
    rng = random.Random(cells)
    for _ in range(50):
        mask = rng.getrandbits(cells)
        expected = sum(1 << (cells - 1 - i) for i in range(cells) if mask >> i & 1)
        assert turn(mask, cells) == expected


def test_a_bridge_to_each_edge_is_a_connection() -> None:
    # 3x3, Black at b2: bridges to row 1 (a1-b1... carriers b1, c1) and row 3.
    geo = geometry(3)
    centre = 1 << 4
    found = Connections(geo, centre, 0, 0, stop_on_semi=False)
    assert found.edge_fulls()
    # With White on one carrier cell of the top bridge, Black still has a semi
    # connection (one move restores it) but no full one.
    found = Connections(geo, centre, 1 << 1, 0, stop_on_semi=False)
    assert not found.edge_fulls() and found.edge_semis()


# 5x5, no swap: 13 of the 25 openings win for the first player (published);
# a few of the prover's answers, which the bench checks in full.
FIVE_BY_FIVE = {"e1": True, "a2": False, "c3": True}


@pytest.mark.parametrize(("opening", "wins"), sorted(FIVE_BY_FIVE.items()))
def test_5x5_openings_are_proven_in_seconds(search: str, opening: str, wins: bool) -> None:
    state = engine.new("hex", size=5, swap="off").play(opening)
    solution = ai.solve(state, seconds=60)
    assert solution is not None
    assert (solution.winner == 0) == wins


@pytest.mark.parametrize("opening", ["a1", "b2", "c3", "d2", "e5"])
def test_the_value_alone_is_one_search_with_a_winning_move(search: str, opening: str) -> None:
    # every=False with no move to try first: the whole position searched at once,
    # then a winning move read from the table.
    state = engine.new("hex", size=5, swap="off").play(opening)
    full = ai.solve(state, seconds=60)
    alone = ai.solve(state, seconds=60, every=False)
    assert full is not None and alone is not None
    assert alone.winner == full.winner
    if full.winning_moves:
        assert len(alone.winning_moves) == 1 and alone.winning_moves[0] in full.winning_moves
    else:
        assert alone.winning_moves == ()


def test_the_engine_shows_search_the_position() -> None:
    state = engine.new("hex", size=3, swap="on").play("b2").play("swap").play("a1")
    # After the swap seat 0 plays White; the stones keep their colours.
    assert state.cell_colours == (1, -1, -1, -1, 0, -1, -1, -1, -1)
    assert state.colour_to_move == 0  # Black's turn: the person in seat 1
    assert state.to_move == 1
    assert state.last_stone == 0
    assert state.empty_count == 7
    disthex = engine.new("disthex", size=3).play("b2")
    assert disthex.last_stone == 4 and disthex.colour_to_move == 1


@pytest.mark.parametrize(("size", "count", "fewest"), [(4, 60, 0), (5, 40, 2)])
def test_connections_in_the_tree_prove_only_truths_and_prune_only_losing_moves(
    size: int, count: int, fewest: int
) -> None:
    """HexAdapter.refine, the knowledge MCTS asks of a node it has visited often: a
    seat it proves wins wins, and every move it leaves out loses (by the prover,
    itself checked against brute force above)."""
    adapter = HexAdapter(engine.new("hex", size=size, swap="off"))
    adapter.connections = True  # the Python reference where the compiled prover is not built
    prover = HexProver(size, unlimited())
    geo = geometry(size)
    pruned = proven = 0
    for own, other, colour in random_positions(size, count, seed=size, fewest=fewest):
        masks = (own, other) if colour == 0 else (other, own)
        stones = [
            0 if masks[0] >> c & 1 else 1 if masks[1] >> c & 1 else EMPTY for c in range(geo.cells)
        ]
        pos = HexPosition(stones, masks, colour, -1, stones.count(EMPTY), None)
        moves = adapter.moves(pos)
        seat, kept = adapter.refine(pos, moves)

        def wins_by(cell: int, own: int = own, other: int = other, colour: int = colour) -> bool:
            after = own | 1 << cell
            return connected(geo, after, colour) or not prover.mover_wins(other, after, colour ^ 1)

        if seat is not None:
            proven += 1
            assert seat == (colour if prover.mover_wins(own, other, colour) else colour ^ 1)
            continue
        assert kept and set(kept) <= set(moves)
        for cell in set(moves) - set(kept):
            pruned += 1
            assert not wins_by(cell)
        if prover.mover_wins(own, other, colour):
            assert any(wins_by(cell) for cell in kept)
    assert proven and pruned  # both rules were exercised
