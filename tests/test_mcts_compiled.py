"""The search's inner loops compiled (engine/_mcts.c) against their Python reference
(engine/ai/mcts.py's _select_move, _later_moves and _add_amaf): the same choices, the same trees."""

from __future__ import annotations

import hashlib
import math
import random
from types import SimpleNamespace
from typing import Any

import pytest

import engine
from engine.ai import Settings, _search, mcts
from engine.ai.mcts import Node
from engine.ai.registry import adapter_for
from tests.conftest import skip_unless_built, skip_without_a_c_compiler

compiled = mcts._compiled
needs_compiled = skip_unless_built(compiled, "the compiled search loops")


def test_the_compiled_search_loops_are_built_where_a_compiler_is() -> None:
    skip_without_a_c_compiler("the search's loops run in Python")
    assert compiled is not None, "make install builds engine/*.c"


def random_statistics(rng: random.Random) -> tuple[Any, ...]:
    """A node's statistics as a search leaves them (children proven for either seat,
    untried moves with and without AMAF statistics, ties), and the select arguments."""
    count = rng.randrange(1, 40)
    children: list[Any] = []
    visits, wins, rave_visits, rave_wins = [], [], [], []
    for _ in range(count):
        n, rn = rng.choice([0, 0, 1, 2, rng.randrange(500)]), rng.choice([0, rng.randrange(900)])
        visits.append(n)
        wins.append(float(rng.randrange(n + 1)) if rng.random() < 0.8 else n / 3)
        rave_visits.append(rn)
        rave_wins.append(float(rng.randrange(rn + 1)))
        shown = rng.random()
        proven = rng.randrange(2) if shown < 0.1 else None
        children.append(None if shown > 0.5 else SimpleNamespace(proven=proven))
    mover = rng.randrange(2)
    total = sum(visits) + rng.randrange(3)
    exploration = rng.choice([0.2, 1.4])
    equivalence = rng.choice([0.0, 600.0, 37.5])
    log_total = math.log(total + 1)
    return (
        *(children, visits, wins, rave_visits, rave_wins),
        *(mover, log_total, exploration, equivalence),
    )


@needs_compiled
def test_compiled_and_python_select_alike() -> None:
    assert compiled is not None
    rng = random.Random(1)
    for _ in range(3000):
        arguments = random_statistics(rng)
        assert compiled.select(*arguments) == mcts._select_move(*arguments), arguments


@needs_compiled
def test_compiled_and_python_amaf_alike() -> None:
    # Moves of any hashable kind, some played moves not the node's, rewards and zero.
    assert compiled is not None
    rng = random.Random(2)
    for _ in range(500):
        moves = rng.sample([*range(60), *(f"m{k}" for k in range(20))], rng.randrange(1, 50))
        index = {move: i for i, move in enumerate(moves)}
        played = set(rng.sample([*range(80), *(f"m{k}" for k in range(30))], rng.randrange(40)))
        reward = rng.choice([0.0, 1.0, 0.5, 1 / 3])
        statistics = [rng.randrange(9) for _ in moves], [rng.randrange(9) / 2 for _ in moves]
        python = (statistics[0].copy(), statistics[1].copy())
        compiled.amaf(index, played, *statistics, reward)
        mcts._add_amaf(index, played, *python, reward)
        assert statistics == python


@needs_compiled
def test_compiled_and_python_later_moves_alike() -> None:
    # Any hashable moves, repeated ones, every seat of up to four, an empty tail.
    assert compiled is not None
    rng = random.Random(3)
    for _ in range(300):
        players = rng.randrange(1, 5)
        tail = [
            (rng.randrange(players), rng.choice([rng.randrange(40), f"m{rng.randrange(9)}"]))
            for _ in range(rng.randrange(60))
        ]
        assert compiled.later(tail, players) == mcts._later_moves(tail, players)
    with pytest.raises(IndexError):
        compiled.later([(2, 5)], 2)


def tree_digest(root: Node) -> str:
    digest = hashlib.sha256()
    stack = [root]
    while stack:
        node = stack.pop()
        statistics = (node.moves, node.visits, node.wins, node.rave_visits, node.rave_wins)
        digest.update(repr((statistics, node.total, node.reward_sum, node.proven)).encode())
        stack.extend(child for child in node.children if child is not None)
    return digest.hexdigest()


@needs_compiled
@pytest.mark.parametrize(
    ("name", "players", "options", "nodes"),
    [
        ("hex", None, {"size": 5, "swap": False}, 1500),
        ("hex", None, {"size": 4, "swap": True}, 300),  # the generic adapter: the swap
        ("disthex", None, {"size": 5}, 800),
        ("hotwire", None, {"size": 5}, 300),
        ("intersections", 3, {}, 300),  # rewards shared on a draw
    ],
)
@pytest.mark.parametrize("plain", [False, True])
def test_seeded_searches_grow_the_same_tree_compiled_or_not(
    monkeypatch: pytest.MonkeyPatch,
    name: str,
    players: int | None,
    options: dict[str, object],
    nodes: int,
    plain: bool,
) -> None:
    state = engine.new(name, players, **options)
    settings = Settings.plain() if plain else None
    digests = []
    for search in (compiled, None):
        monkeypatch.setattr(mcts, "_compiled", search)
        grown = _search(state, adapter_for(state), math.inf, 3, nodes, settings)
        digests.append(tree_digest(grown.root))
    assert digests[0] == digests[1]
