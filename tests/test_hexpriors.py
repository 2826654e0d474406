"""Hex's move priors (engine/ai/hexpriors.py) and how the search takes them."""

from __future__ import annotations

import random

import engine
from engine.ai import hexpriors
from engine.ai.hexai import HexAdapter
from engine.ai.hexsolve import turn
from engine.ai.mcts import Search, Settings
from engine.hex import board

SIZE = 7


def position(black: str, white: str, size: int = SIZE) -> list[int]:
    stones = [-1] * (size * size)
    cell_of = board(size).cell_of
    for colour, labels in enumerate((black, white)):
        for label in labels.split():
            stones[cell_of[label]] = colour
    return stones


def cell(label: str, size: int = SIZE) -> int:
    return board(size).cell_of[label]


def random_position(rng: random.Random, stones_each: int) -> tuple[list[int], int]:
    """Stones of each colour at random cells, and the last one placed (-1: none)."""
    cells = rng.sample(range(SIZE * SIZE), 2 * stones_each)
    stones = [-1] * (SIZE * SIZE)
    for index, at in enumerate(cells):
        stones[at] = index % 2
    return stones, cells[-1] if cells else -1


def transposed(stones: list[int], size: int = SIZE) -> list[int]:
    """The board mirrored on its long diagonal, colours swapped: the same game for the
    other colour."""
    return [
        -1 if stones[c * size + r] < 0 else 1 - stones[c * size + r]
        for r in range(size)
        for c in range(size)
    ]


def test_a_position_turned_by_180_degrees_has_its_priors_turned() -> None:
    rng = random.Random(3)
    last_cell = SIZE * SIZE - 1
    for _ in range(20):
        stones, last = random_position(rng, rng.randrange(0, 8))
        moves = [c for c, s in enumerate(stones) if s < 0]
        turned = stones[::-1]
        values = hexpriors.prior_values(SIZE, stones, 0, last, moves)
        turned_last = last_cell - last if last >= 0 else -1
        turned_values = hexpriors.prior_values(
            SIZE, turned, 0, turned_last, [last_cell - c for c in moves]
        )
        assert values == turned_values
    assert turn(1, SIZE * SIZE) == 1 << last_cell  # the same turn as the book's


def test_white_to_move_reads_the_board_as_black_does_transposed() -> None:
    rng = random.Random(4)
    for _ in range(20):
        stones, last = random_position(rng, rng.randrange(0, 8))
        row, column = divmod(last, SIZE)
        mirrored = transposed(stones)
        found = hexpriors.features(SIZE, stones, 1, last)
        mirrored_last = column * SIZE + row if last >= 0 else -1
        mirrored_found = hexpriors.features(SIZE, mirrored, 0, mirrored_last)
        for at, features in found.items():
            r, c = divmod(at, SIZE)
            assert mirrored_found[c * SIZE + r] == features


def test_the_features_of_hand_made_positions() -> None:
    # Black's bridge d4-f3 (carriers e3 and e4), intruded by White's e3; Black to move,
    # joining rows 1 and 7.
    stones = position("d4 f3", "e3")
    found = hexpriors.features(SIZE, stones, 0, cell("e3"))
    _pattern, _bridges, save, intrude, last, own_edge, opponent_edge = found[cell("e4")]
    assert save == 1 and intrude == 0 and last == 1  # e4 saves the bridge
    assert (own_edge, opponent_edge) == (3, 2)  # row 4 of 7; column e, two from g
    # a1: a corner, on an own edge and an opposing one, far from the last stone
    assert found[cell("a1")][3:] == (0, 3, 0, 0)
    # c6: a bridge to d4 and one to the edge (over c7 and b7); d6 only the edge's
    assert found[cell("c6")][1] == 2 and found[cell("d6")][1] == 1
    # White to move before e3: e3 and e4 each intrude into the intact bridge
    whole = position("d4 f3", "a7")
    white = hexpriors.features(SIZE, whole, 1, cell("f3"))
    assert white[cell("e3")][3] == white[cell("e4")][3] == 1
    assert white[cell("d3")][3] == 0


def test_the_shipped_model_answers_an_intrusion_into_a_bridge_by_saving_it() -> None:
    # A middle game: White's e3 has just intruded into Black's bridge d4-f3.
    stones = position("b2 d4 f3 c6", "e3 e5 b4 f5")
    moves = [c for c, s in enumerate(stones) if s < 0]
    values = hexpriors.prior_values(SIZE, stones, 0, cell("e3"), moves)
    best = max(range(len(moves)), key=values.__getitem__)
    assert moves[best] == cell("e4")
    low, high = hexpriors.PRIOR_RANGE
    assert all(low <= value <= high for value in values)
    assert max(values) > 0.5 > min(values)


def test_the_search_starts_a_refined_node_with_the_priors_as_amaf_visits() -> None:
    state = engine.new("hex", size=SIZE, swap="off").play("d4").play("e3")
    adapter = HexAdapter(state)
    with_priors = Search(adapter, adapter.root(state), rng=random.Random(1))
    root = with_priors.root
    assert root.refined and all(v == Settings().prior_visits for v in root.rave_visits)
    values = adapter.priors(root.pos, root.moves)
    assert values is not None
    assert root.rave_wins == [Settings().prior_visits * v for v in values]
    without = Search(
        adapter, adapter.root(state), rng=random.Random(1), settings=Settings(prior_visits=0)
    )
    assert not any(without.root.rave_visits)
    plain = Search(adapter, adapter.root(state), rng=random.Random(1), settings=Settings.plain())
    assert not any(plain.root.rave_visits)


def test_disthex_has_no_priors() -> None:
    state = engine.new("disthex", size=SIZE, swap="off").play("d4")
    adapter = HexAdapter.__subclasses__()[0](state)
    assert adapter.priors(adapter.root(state), adapter.moves(adapter.root(state))) is None
