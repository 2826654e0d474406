"""Hex's playouts: the compiled fill (engine/_hexplayout.c) against its Python reference
(hexai._fill_hex_in_order), and the adapter's playouts with either."""

from __future__ import annotations

import math
import random
from collections import Counter

import pytest

import engine
from engine.ai import hexai
from engine.ai.hexai import HexAdapter
from engine.hex import EMPTY, HexState, board
from tests.conftest import play, skip_unless_built, skip_without_a_c_compiler

compiled = hexai._compiled
needs_compiled = skip_unless_built(compiled, "the compiled playouts")


def random_stones(size: int, rng: random.Random) -> list[int]:
    """Any number of stones of either colour on random cells (not always alternating)."""
    stones = [EMPTY] * (size * size)
    for cell in rng.sample(range(size * size), rng.randrange(size * size + 1)):
        stones[cell] = rng.randrange(2)
    return stones


def test_the_compiled_playouts_are_built_where_a_compiler_is() -> None:
    skip_without_a_c_compiler("the playouts run in Python")
    assert compiled is not None, "make install builds engine/*.c"


@needs_compiled
@pytest.mark.parametrize("size", [*range(3, 12), 19])
def test_compiled_and_python_fill_alike_in_the_same_order(size: int) -> None:
    # Random positions, either colour to move, bridges saved or not: the same board.
    rng = random.Random(size)
    playouts = hexai._compiled_playouts(size)
    assert playouts is not None
    for _ in range(300 if size < 19 else 60):
        stones = random_stones(size, rng)
        colour, bridged = rng.randrange(2), rng.randrange(2)
        order = [cell for cell, stone in enumerate(stones) if stone == EMPTY]
        rng.shuffle(order)
        python, c = stones.copy(), stones.copy()
        bridges = hexai._bridges(size) if bridged else hexai._no_bridges(size)
        hexai._fill_hex_in_order(python, colour, bridges, order)
        playouts[bridged].fill(c, colour, order)
        assert c == python, (stones, colour, order)


@needs_compiled
@pytest.mark.parametrize("size", [*range(2, 12), 19])
def test_compiled_and_python_find_the_same_completing_cells(size: int) -> None:
    # The cells where a stone joins a colour's edges: the search's decisive moves (the
    # mover's) and threats (the opponent's), on random positions.
    rng = random.Random(size + 30)
    playouts = hexai._compiled_playouts(size)
    assert playouts is not None
    geometry = board(size)
    for _ in range(300 if size < 19 else 60):
        stones = random_stones(size, rng)
        for colour in (0, 1):
            found = playouts[0].completing(stones, colour)
            assert found == hexai._completing(geometry, stones, colour), (stones, colour)


@needs_compiled
@pytest.mark.parametrize("size", [2, 5, 11, 19])
def test_a_compiled_playout_fills_every_empty_cell_and_reads_its_winner(size: int) -> None:
    # Each empty cell once, colours alternating from the mover's, the winner the full
    # board's; the same seed gives the same playout.
    rng = random.Random(size + 1)
    playouts = hexai._compiled_playouts(size)
    assert playouts is not None
    moves = hexai._played_moves(size, 0)
    for _ in range(100):
        stones = random_stones(size, rng)
        colour, seed = rng.randrange(2), rng.getrandbits(64)
        black_won, played = playouts[1].run(stones, colour, seed, moves)
        assert playouts[1].run(stones, colour, seed, moves) == (black_won, played)
        empty = [cell for cell, stone in enumerate(stones) if stone == EMPTY]
        assert [cell for _, cell in played] == empty
        filled = stones.copy()
        for stone, cell in played:
            filled[cell] = stone
        counts = Counter(stone for stone, _ in played)
        assert counts[colour] == math.ceil(len(empty) / 2)
        assert black_won == hexai._full_board_black_wins(board(size), filled)


@needs_compiled
def test_compiled_and_python_playouts_agree_in_distribution() -> None:
    # From a 4x4 opening, bridges saved: Black's wins and each cell's share of Black
    # stones over 4,000 playouts each, within four standard deviations.
    state = play(engine.new("hex", size=4, swap=False), "b2", "c3")
    assert isinstance(state, HexState)
    rng = random.Random(7)
    tallies = []
    for playouts in (hexai._compiled_playouts(4), None):
        adapter = HexAdapter(state)
        adapter.compiled_playouts = playouts
        root = adapter.root(state)
        wins, black = 0.0, Counter[int]()
        for _ in range(4000):
            rewards, played = adapter.playout(root, rng)
            wins += rewards[0]
            black.update(cell for seat, cell in played if seat == 0)
        tallies.append((wins, black))
    (c_wins, c_black), (python_wins, python_black) = tallies
    bound = 4 * math.sqrt(2 * 4000 * 0.25)
    assert abs(c_wins - python_wins) < bound
    for cell in range(16):
        assert abs(c_black[cell] - python_black[cell]) < bound, board(4).labels[cell]


@pytest.mark.parametrize("search", ["compiled", "python"])
def test_the_adapters_playouts_say_who_played_each_cell(
    monkeypatch: pytest.MonkeyPatch, search: str
) -> None:
    # After a swap the seats hold the other colours: each filled cell is reported by the
    # seat that owns its colour, and the rewards go to the seat whose colour connected.
    if search == "python":
        monkeypatch.setattr(hexai, "_compiled", None)
    elif compiled is None:
        pytest.skip("the compiled playouts were not built (no C compiler at install)")
    rng = random.Random(3)
    for swap in (False, True):
        state = engine.new("hex", size=5, swap=swap)
        state = play(state, "c3", "swap" if swap else "b4", "d2")
        assert isinstance(state, HexState)
        adapter = HexAdapter(state)
        assert (adapter.compiled_playouts is None) == (search == "python")
        root = adapter.root(state)
        for _ in range(30):
            rewards, played = adapter.playout(root, rng)
            filled = list(root.stones)
            for seat, cell in played:
                filled[cell] = state.colour_of(seat)
            assert sorted(cell for _, cell in played) == [
                cell for cell, stone in enumerate(root.stones) if stone == EMPTY
            ]
            black_seat = 1 if swap else 0
            black_won = hexai._full_board_black_wins(board(5), filled)
            assert rewards[black_seat] == (1.0 if black_won else 0.0)


@needs_compiled
def test_the_compiled_fill_refuses_what_is_not_a_board() -> None:
    assert compiled is not None
    playouts = hexai._compiled_playouts(3)
    assert playouts is not None
    stones = [EMPTY] * 9
    stones[4] = 0
    with pytest.raises(ValueError, match="each empty cell once"):
        playouts[1].fill(stones.copy(), 1, [0, 1, 2, 3, 4, 5, 6, 7])  # 4 is taken
    with pytest.raises(ValueError, match="each empty cell once"):
        playouts[1].fill(stones.copy(), 1, [0, 0, 1, 2, 3, 5, 6, 7])
    with pytest.raises(ValueError, match="one entry per cell"):
        playouts[1].fill([EMPTY] * 8, 0, [])
    with pytest.raises(ValueError, match="beyond the compiled"):
        compiled.Playout(compiled.MAX_SIZE + 1, (), ())
    assert hexai._compiled_playouts(compiled.MAX_SIZE + 1) is None
