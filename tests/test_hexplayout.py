"""Hex's and Disthex's playouts: the compiled fills (engine/_hexplayout.c) against their
Python reference (hexai._fill_hex_in_order, hexai._fill_disthex_with), and the adapter's
playouts with either."""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable

import pytest

import engine
from engine.ai import _search, hexai
from engine.ai.hexai import DisthexAdapter, HexAdapter, HexPosition
from engine.hex import EMPTY, DisthexState, HexState, board
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


def modulo(draws: list[int]) -> Callable[[int], int]:
    """draw(n) for hexai._fill_disthex_with: the next of `draws` modulo n, as the
    compiled fill_disthex takes them."""
    fed = iter(draws)
    return lambda n: next(fed) % n


@needs_compiled
@pytest.mark.parametrize("size", [*range(2, 12), 19])
def test_compiled_and_python_fill_disthex_alike_with_the_same_draws(size: int) -> None:
    # Random positions, either colour to move, the last stone none or one of the
    # previous mover's: the same cells in turn from the same draws (C takes each draw
    # modulo the count of allowed cells, as the reference is given them here).
    rng = random.Random(size + 60)
    playouts = hexai._compiled_playouts(size)
    assert playouts is not None
    geometry = board(size)
    for _ in range(300 if size < 19 else 60):
        stones = random_stones(size, rng)
        colour = rng.randrange(2)
        previous = [cell for cell, stone in enumerate(stones) if stone == colour ^ 1]
        last = rng.choice(previous) if previous and rng.random() < 0.8 else -1
        empty = stones.count(EMPTY)
        draws = [rng.getrandbits(64) for _ in range(empty)]
        python, c = stones.copy(), stones.copy()
        python_turns = hexai._fill_disthex_with(geometry, python, colour, last, modulo(draws))
        assert playouts[0].fill_disthex(c, colour, last, draws) == python_turns
        assert c == python, (stones, colour, last, draws)


def replay_disthex_fill(pos: HexPosition, swapped: int, played: list[tuple[int, int]]) -> list[int]:
    """The board after the playout's moves in turn, each checked legal: never next to
    the opponent's last stone, a pass (the same colour twice) only with no other move."""
    neighbours = board(math.isqrt(len(pos.stones))).neighbours
    stones, colour, last = pos.stones.copy(), pos.colour, pos.last
    for seat, cell in played:
        if seat ^ swapped != colour:
            stuck = [c for c, stone in enumerate(stones) if stone == EMPTY]
            assert last >= 0 and all(c in neighbours[last] for c in stuck), (pos.stones, played)
            colour, last = colour ^ 1, -1
        assert stones[cell] == EMPTY and (last < 0 or cell not in neighbours[last])
        stones[cell], colour, last = colour, colour ^ 1, cell
    assert EMPTY not in stones
    return stones


@pytest.mark.parametrize("search", ["compiled", "python"])
def test_the_adapters_disthex_playouts_are_legal_games(
    monkeypatch: pytest.MonkeyPatch, search: str
) -> None:
    # From random positions the search reaches (passes included), with and without a
    # swap: legal moves in turn to a full board, the rewards its winner's.
    if search == "python":
        monkeypatch.setattr(hexai, "_compiled", None)
    elif compiled is None:
        pytest.skip("the compiled playouts were not built (no C compiler at install)")
    rng = random.Random(4)
    for size, swap in ((2, False), (3, False), (4, False), (5, True), (7, False)):
        state = engine.new("disthex", size=size, swap=swap)
        if swap:
            state = play(state, "c3", "swap")
        assert isinstance(state, DisthexState)
        adapter = DisthexAdapter(state)
        assert (adapter.compiled_playouts is None) == (search == "python")
        for _ in range(40):
            pos = adapter.root(state)
            for _ in range(rng.randrange(size * size)):
                moves = adapter.moves(pos)
                after = adapter.play(pos, rng.choice(moves)) if moves else pos
                if after.winner is not None or not moves:
                    break
                pos = after
            rewards, played = adapter.playout(pos, rng)
            filled = replay_disthex_fill(pos, adapter.swapped, played)
            black_won = hexai._full_board_black_wins(board(size), filled)
            assert rewards[adapter.swapped] == (1.0 if black_won else 0.0)


@needs_compiled
@pytest.mark.parametrize(
    ("size", "moves"), [(4, ("b2", "c3")), (3, ("b2",)), (5, ("c3", "a5", "d2", "b1"))]
)
def test_compiled_and_python_disthex_playouts_agree_in_distribution(
    size: int, moves: tuple[str, ...]
) -> None:
    # Black's wins and each cell's share of Black stones over 4,000 playouts each,
    # within four standard deviations.
    state = play(engine.new("disthex", size=size, swap=False), *moves)
    assert isinstance(state, DisthexState)
    rng = random.Random(size)
    tallies = []
    for playouts in (hexai._compiled_playouts(size), None):
        adapter = DisthexAdapter(state)
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
    for cell in range(size * size):
        assert abs(c_black[cell] - python_black[cell]) < bound, board(size).labels[cell]


@pytest.mark.parametrize("search", ["compiled", "python"])
def test_a_seeded_disthex_search_repeats_itself(
    monkeypatch: pytest.MonkeyPatch, search: str
) -> None:
    if search == "python":
        monkeypatch.setattr(hexai, "_compiled", None)
    elif compiled is None:
        pytest.skip("the compiled playouts were not built (no C compiler at install)")
    state = play(engine.new("disthex", size=7), "d4", "b6")
    searches = [_search(state, math.inf, 5, 600, None) for _ in range(2)]
    assert searches[0].simulations == searches[1].simulations >= 600
    assert [child.visits for child in searches[0].root.children if child is not None] == [
        child.visits for child in searches[1].root.children if child is not None
    ]


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
    with pytest.raises(ValueError, match="one draw per empty cell"):
        playouts[0].fill_disthex(stones.copy(), 0, 4, [0] * 7)
    with pytest.raises(ValueError, match="a cell or -1"):
        playouts[0].fill_disthex(stones.copy(), 0, 9, [0] * 8)
    with pytest.raises(ValueError, match="a cell or -1"):
        playouts[0].run_disthex(stones, 1, -2, 0, hexai._played_moves(3, 0))
    with pytest.raises(ValueError, match="one move per cell"):
        playouts[0].run_disthex(stones, 1, 4, 0, ((), ()))
    with pytest.raises(ValueError, match="beyond the compiled"):
        compiled.Playout(compiled.MAX_SIZE + 1, (), ())
    assert hexai._compiled_playouts(compiled.MAX_SIZE + 1) is None
