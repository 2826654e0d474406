"""engine.ai: the public API's promises (a legal move in time, analyses, deterministic budgets,
the tree's growth and memory, proofs reported), the command line, and time kept on the longest
boards. The exact solvers against brute force and each game's playouts: tests/test_ai.py."""

from __future__ import annotations

import json
import math
import pickle
import random
import threading
import time
import tracemalloc
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from bot import cli
from engine import GameState, ai
from engine.ai import hexai
from engine.ai.adapter import Adapter
from engine.ai.mcts import Node, Search, Settings, _subtree
from engine.ai.registry import adapter_for
from tests.conftest import cpu_clock, kept_time, random_position

# -- the API's promises --------------------------------------------------------------

GAMES: list[tuple[str, dict[str, object], int | None]] = [
    ("hex", {"size": 5}, None),
    ("hex", {"size": 7, "swap": "off"}, None),
    ("disthex", {"size": 5}, None),
    ("hotwire", {"size": "5x5"}, None),
    ("shortcircuit", {"size": 3}, None),
    ("livewire", {}, None),
    ("intersections", {"size": 4}, None),
    ("intersections", {"size": 4}, 3),
]


def timed_best_move(state: GameState, seconds: float, seed: int) -> tuple[str, float]:
    """best_move and the CPU time it took, its budget counted in CPU time too (cpu_clock):
    whatever else the machine runs, a search that checks its clock too rarely overshoots.
    After a search of no time: what a process does once per game (its AI's modules, read
    from source, and tables: 0.35 s for Livewire's) is not this search's."""
    ai.best_move(state, seconds=0.0, seed=seed)
    with cpu_clock() as clock:
        start = clock()
        move = ai.best_move(state, seconds=seconds, seed=seed)
        return move, clock() - start


def timed_solve(state: GameState, seconds: float) -> tuple[ai.Solution | None, float]:
    """solve and the CPU time it took, as timed_best_move."""
    ai.solve(state, seconds=0.0)
    with cpu_clock() as clock:
        start = clock()
        solution = ai.solve(state, seconds=seconds)
        return solution, clock() - start


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    case=st.sampled_from(GAMES),
    plies=st.integers(min_value=0, max_value=30),
    seed=st.integers(min_value=0, max_value=10**6),
)
def test_best_move_is_legal_and_in_time(
    case: tuple[str, dict[str, object], int | None], plies: int, seed: int
) -> None:
    game, options, players = case
    state = random_position(engine.new(game, players, **options), plies, random.Random(seed))
    if state.outcome is not None:
        return
    seconds = 0.05
    move, took = timed_best_move(state, seconds, seed)
    assert kept_time(took, seconds)
    assert move in state.legal_moves()


@pytest.mark.parametrize(("game", "options", "players"), GAMES)
def test_analyse_chances_sum_to_one(
    game: str, options: dict[str, object], players: int | None
) -> None:
    state = random_position(engine.new(game, players, **options), 4, random.Random(1))
    analysis = ai.analyse(state, seconds=10, nodes=30, seed=1)
    assert len(analysis.win_chance) == state.players
    assert sum(analysis.win_chance) == pytest.approx(1.0)
    assert {m.move for m in analysis.best} <= set(state.legal_moves())
    assert analysis.pv and analysis.pv[0] in state.legal_moves()


@pytest.mark.parametrize(("game", "options", "players"), GAMES)
def test_a_node_budget_and_a_seed_make_the_search_deterministic(
    game: str, options: dict[str, object], players: int | None
) -> None:
    state = random_position(engine.new(game, players, **options), 3, random.Random(2))
    first = ai.analyse(state, seconds=10, nodes=40, seed=7)
    again = ai.analyse(state, seconds=10, nodes=40, seed=7)
    assert first == again
    assert ai.best_move(state, seconds=10, nodes=40, seed=7) == ai.best_move(
        state, seconds=10, nodes=40, seed=7
    )


def tree_nodes(search: Search) -> list[Node]:
    return _subtree(search.root)


@pytest.mark.parametrize(("game", "options", "players"), GAMES)
def test_a_full_tree_stops_growing_and_the_search_goes_on(
    game: str, options: dict[str, object], players: int | None
) -> None:
    state = random_position(engine.new(game, players, **options), 2, random.Random(4))
    adapter = adapter_for(state)
    root = adapter.root(state)
    room = Search(adapter, root, rng=random.Random(1)).held_bytes * 4  # a few nodes
    search = Search(adapter, root, rng=random.Random(1), tree_bytes=room)

    def open_nodes() -> int:
        # Past the limit only a finished child that proves a decisive move may join.
        return sum(node.result is None for node in tree_nodes(search))

    budget = 0
    while search.held_bytes < room and search.root.proven is None and budget < 1000:
        budget += 30
        search.run(deadline=time.monotonic() + 60, nodes=budget)
    full = open_nodes()
    budget += 90
    search.run(deadline=time.monotonic() + 60, nodes=budget)
    assert open_nodes() == full
    nodes = tree_nodes(search)
    assert search.held_bytes == sum(search._cost(node) for node in nodes)
    assert search.held_bytes < room + max(search._cost(node) for node in nodes)
    assert sum(search.root.visits) == search.root.total == search.simulations
    # Only a proof stops it early (Hex's connections prove 5x5 positions soon).
    assert search.simulations == budget or search.root.proven is not None


@pytest.mark.parametrize(
    ("game", "options"),
    [("hex", {"size": 11, "swap": "off"}), ("livewire", {}), ("hotwire", {"size": "7x7"})],
)
def test_the_tree_estimate_is_near_the_memory_the_tree_holds(
    game: str, options: dict[str, object]
) -> None:
    state = engine.new(game, **options)
    adapter = adapter_for(state)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        search = Search(adapter, adapter.root(state), rng=random.Random(1))
        search.run(deadline=time.monotonic() + 60, nodes=150)
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert 0.8 * held < search.held_bytes < 2 * held, (held, search.held_bytes)


def test_a_finished_game_has_no_best_move_but_is_analysed_and_solved() -> None:
    state = engine.new("hex", size=2, swap="off").play("a1").play("b1").play("a2")
    assert state.outcome is not None
    with pytest.raises(ValueError, match="over"):
        ai.best_move(state, seconds=0.1)
    assert ai.solve(state, seconds=0.1) == ai.Solution(winner=0, winning_moves=())
    analysis = ai.analyse(state, seconds=0.1)
    assert analysis.win_chance == (1.0, 0.0)
    assert analysis.best == () and analysis.pv == ()


def test_a_decisive_move_is_played_and_proven() -> None:
    # Black (to move) holds a1, a3 and a4: a2 completes the chain down column a.
    state = engine.new("hex", size=4, swap="off")
    for move in ("a1", "d1", "a3", "d2", "a4", "d3"):
        state = state.play(move)
    assert ai.best_move(state, seconds=0.2, seed=1) == "a2"
    analysis = ai.analyse(state, seconds=0.2, seed=1)
    assert analysis.win_chance == (1.0, 0.0)
    assert analysis.proven is not None and "a2" in analysis.proven.winning_moves
    assert analysis.best[0].chance == 1.0


def column_a_nearly_black(size: int, missing: tuple[str, ...]) -> GameState:
    """Hex, swap off, Black to move: Black on column a (a chain from row 1 to the
    last row) but for the cells `missing`, White on column c in the same rows."""
    state = engine.new("hex", size=size, swap="off")
    for row in range(1, size + 1):
        if f"a{row}" not in missing:
            state = state.play(f"a{row}").play(f"c{row}")
    return state


def test_a_win_the_search_proves_is_reported_without_every_winning_move() -> None:
    # 9x9, Black to move with a9... a2 and only a1 missing: a1 wins at once. Far too
    # many empty cells for the solver: the tree proves the win, not every winner.
    state = column_a_nearly_black(9, ("a1",))
    analysis = ai.analyse(state, nodes=200, seconds=30, seed=1)
    assert analysis.proven is None
    assert analysis.proven_winner == 0 and analysis.win_chance == (1.0, 0.0)
    # b1 joins the chain to row 1 as well: both winning moves are shown as won
    assert {(m.move, m.chance) for m in analysis.best} >= {("a1", 1.0), ("b1", 1.0)}


def test_a_loss_the_search_proves_is_a_whole_solution() -> None:
    # 9x9, Black missing only a5 and holding b4: a5 and b5 each complete the
    # chain. White to move takes one, Black the other: every White move loses.
    state = column_a_nearly_black(9, ("a5",)).play("b4")
    assert state.to_move == 1
    analysis = ai.analyse(state, nodes=200, seconds=30, seed=1)
    assert analysis.proven == ai.Solution(winner=0, winning_moves=())
    assert analysis.proven_winner == 0 and analysis.win_chance == (1.0, 0.0)


def test_an_analysis_proves_the_value_where_every_winning_move_is_out_of_reach() -> None:
    # Hex 6x6 after c1: White wins. The prover settles that by one search (~70 ms), while
    # settling each of White's replies takes more than its 200 nodes (10 simulations).
    state = engine.new("hex", size=6, swap="off").play("c1")
    analysis = ai.analyse(state, nodes=10, seconds=60, seed=1)
    assert analysis.proven is None  # not every winning move is known
    assert analysis.proven_winner == 1 and analysis.win_chance == (0.0, 1.0)
    assert analysis.best[0].chance == 1.0 and analysis.pv[0] == analysis.best[0].move
    assert ai.solve(state.play(analysis.best[0].move), seconds=30) == ai.Solution(1, ())


def test_a_root_narrowed_by_choice_is_never_proven_lost(monkeypatch: pytest.MonkeyPatch) -> None:
    # White to move must take a5 (Black's only joining cell). A game's root_candidates
    # that kept only i9 would see every searched move lose; a5 still holds.
    state = column_a_nearly_black(9, ("a5",)).play("e5")
    last_cell = 80  # i9
    monkeypatch.setattr(
        type(adapter_for(state)),
        "root_candidates",
        lambda self, pos, moves: [m for m in moves if m == last_cell],
    )
    analysis = ai.analyse(state, nodes=200, seconds=30, seed=1)
    assert [m.move for m in analysis.best] == ["i9"] and analysis.best[0].chance == 0.0
    assert analysis.proven is None and analysis.proven_winner is None


def test_cli_says_when_the_search_proved_a_win(capsys: pytest.CaptureFixture[str]) -> None:
    moves = ",".join(move for row in range(2, 10) for move in (f"a{row}", f"c{row}"))
    code = cli.main(
        [
            "ai",
            "hex",
            "--option",
            "size=9",
            "--option",
            "swap=off",
            "--moves",
            moves,
            "--seconds",
            "1",
        ]
    )
    assert code == 0
    out = capsys.readouterr().out
    assert "move: a1" in out
    assert "proven: Black wins (by the one winning move found; the other moves not settled)" in out


def test_solve_gives_up_in_time_on_a_big_board() -> None:
    solution, took = timed_solve(engine.new("hex", size=11), 0.2)
    assert solution is None and kept_time(took, 0.2)
    assert ai.solve(engine.new("intersections", players=3), seconds=0.1) is None


def test_search_record_replays_plain_data() -> None:
    # proven in ~0.03 s: the solver's share of the time holds it many times over
    analysis = ai.search_record("hotwire", {"size": "4x4"}, ["a1-b1", "c4-d4", "a4-b4"], 1.0)
    assert pickle.loads(pickle.dumps(analysis)) == analysis  # it crosses process borders
    assert analysis.proven is not None
    assert analysis.best[0].move in analysis.proven.winning_moves or not (
        analysis.proven.winning_moves
    )


def test_cli_prints_the_analysis_as_json(capsys: pytest.CaptureFixture[str]) -> None:
    record = "a1-b1,c4-d4,a4-b4"
    # --solve: the exact solver proves this position in 0.03 s of CPU, well inside its
    # second however busy the machine; a search of one second alone may not prove it
    asked = ["--seconds", "1", "--solve", "--json"]
    code = cli.main(["ai", "hotwire", "--option", "size=4x4", "--moves", record, *asked])
    assert code == 0
    shown = json.loads(capsys.readouterr().out)
    assert set(shown) >= {"move", "win_chance", "best", "pv", "proven"}
    position = engine.replay("hotwire", {"size": "4x4"}, ["a1-b1", "c4-d4", "a4-b4"])
    assert shown["move"] in position.legal_moves()
    assert sum(shown["win_chance"]) == pytest.approx(1.0)
    assert set(shown["proven"]) == {"winner", "winning_moves"}


@pytest.mark.parametrize("seconds", [float("nan"), float("inf"), -1.0])
def test_a_time_no_clock_reaches_is_refused(seconds: float) -> None:
    # NaN and infinity would search for ever (no deadline is ever passed)
    state = engine.new("hex", size=3)
    calls: list[Callable[[], object]] = [
        lambda: ai.best_move(state, seconds=seconds),
        lambda: ai.analyse(state, seconds=seconds),
        lambda: ai.solve(state, seconds=seconds),
        lambda: ai.search_record("hex", {"size": 3}, [], seconds),
    ]
    for call in calls:
        with pytest.raises(ValueError, match="The time to think must be a number of seconds"):
            call()


@pytest.mark.parametrize("seconds", ["nan", "inf", "-1", "1e308", "3601", "soon", "9" * 100_000])
def test_cli_refuses_a_time_no_clock_reaches_or_past_an_hour(
    capsys: pytest.CaptureFixture[str], seconds: str
) -> None:
    with pytest.raises(SystemExit) as refused:  # argparse's refusal of the argument
        cli.main(["ai", "hex", "--seconds", seconds])
    assert refused.value.code == 2
    said = capsys.readouterr().err.splitlines()[-1]  # after argparse's usage
    assert "is not a number of seconds from 0 to 3600" in said and len(said) < 200
    assert seconds in said or len(seconds) > 24  # quoted whole, or a short excerpt


def test_cli_prints_the_move_for_people(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["ai", "hex", "--option", "size=3", "--seconds", "0.2", "--solve"]) == 0
    out = capsys.readouterr().out
    assert "move:" in out and "proven:" in out


def test_best_move_keeps_time_on_the_largest_hot_wire_board() -> None:
    # 39,724 candidates (the most allowed) whose conflict masks are computed on use:
    # playouts watch the clock and the root's moves are ranked within the time.
    state = engine.new("hotwire", size="19x19", lengths="any")
    move, took = timed_best_move(state, 0.3, 1)
    assert kept_time(took, 0.3)
    assert move in state.legal_moves()
    # The solver splits the board into regions by those masks (it took 50 s here):
    # its budget is checked at each one.
    solution, took = timed_solve(state, 0.3)
    assert solution is None and kept_time(took, 0.3)


def test_short_circuits_longest_playouts_keep_time() -> None:
    # max_turns=9999: one random playout plays for about a second; it watches the clock
    state = engine.new("shortcircuit", size=10, max_turns=9999)
    move, took = timed_best_move(state, 0.3, 1)
    assert kept_time(took, 0.3)
    assert move in state.legal_moves()


def test_a_simulation_budget_capped_by_time_stops_at_the_time() -> None:
    # the product's levels calibrated by simulations: a budget no machine runs in the
    # time (these playouts are the longest: compiled, 1,000 of them now fit in 0.3 s)
    state = engine.new("shortcircuit", size=10, max_turns=9999)
    with cpu_clock() as clock:
        began = clock()
        analysis = ai.analyse(state, seconds=0.3, nodes=10_000_000, capped=True, seed=1)
        assert kept_time(clock() - began, 0.3)
    assert analysis.best and analysis.simulations < 10_000_000


@pytest.mark.parametrize("players", [2, 8])
def test_best_move_keeps_time_with_the_longest_intersections_rounds(players: int) -> None:
    # 12x12 with the most segments a round allows (122 or 120): the adapter samples the
    # average round before the search, and a 2-player search builds it twice (solver, tree).
    segments = 122 // players * players
    state = engine.new("intersections", players, size=12, segments=segments)
    move, took = timed_best_move(state, 0.1, 1)
    assert kept_time(took, 0.1)
    assert move in state.legal_moves()


def test_a_node_refined_keeps_its_moves_statistics_and_children_together() -> None:
    """Hex's connections narrow a node once it has been visited enough (Adapter.refine):
    each kept move keeps its own statistics and child, and the tree's memory shrinks."""
    state = engine.new("hex", size=5, swap="off")
    for move in ("c3", "b4", "d2"):  # White to move, Black one bridge from each edge
        state = state.play(move)
    adapter = adapter_for(state)
    search = Search(adapter, adapter.root(state), rng=random.Random(1))
    root = search.root
    before = {move: (root.visits[i], root.children[i]) for i, move in enumerate(root.moves)}
    held = search.held_bytes
    kept = root.moves[1::2]
    search._narrow(root, kept)
    assert root.moves == kept
    for i, move in enumerate(kept):
        assert root.index[move] == i
        assert (root.visits[i], root.children[i]) == before[move]
    assert len(root.wins) == len(root.rave_visits) == len(root.rave_wins) == len(kept)
    assert search.held_bytes < held
    search.run(deadline=time.monotonic() + 60, nodes=400)
    assert search.held_bytes == sum(search._cost(node) for node in tree_nodes(search))


@pytest.mark.parametrize("expand_visits", [0, 3])
def test_a_move_joins_the_tree_after_the_adapters_expand_visits(expand_visits: int) -> None:
    """Until a move has been followed expand_visits times its simulations play out from
    its position without a node; the node then counts the simulations after them."""
    state = engine.new("hex", size=9, swap="off")
    adapter = adapter_for(state)
    adapter.expand_visits = expand_visits
    search = Search(adapter, adapter.root(state), rng=random.Random(1))
    search.run(deadline=time.monotonic() + 60, nodes=600)
    waiting = 0
    for node in tree_nodes(search):
        for visits, child in zip(node.visits, node.children, strict=True):
            if child is None:
                assert visits <= expand_visits
                waiting += visits > 0
            elif child.result is None and child.proven is None:
                assert child.total == visits - expand_visits
    assert (waiting > 0) == (expand_visits > 0)


def test_the_search_takes_the_games_exploration_unless_its_settings_give_one() -> None:
    """UCT's constant is the game's (Hex's wider boards search narrower, and wait before
    a move becomes a node: measured against MoHex), and Settings' own wins: plain UCT
    stays plain UCT on every board."""
    wide = engine.new("hex", size=9, swap="off")
    narrow = engine.new("hex", size=7, swap="off")
    for state, expected in ((wide, hexai.EXPLORATION_WIDE), (narrow, Adapter.exploration)):
        adapter = adapter_for(state)
        assert adapter.expand_visits == (hexai.EXPAND_VISITS_WIDE if state is wide else 0)
        root = adapter.root(state)
        assert Search(adapter, root, rng=random.Random(1)).exploration == expected
        plain = Search(adapter, root, rng=random.Random(1), settings=Settings.plain())
        assert plain.exploration == 1.4
    assert Adapter.exploration != hexai.EXPLORATION_WIDE


def test_a_timed_hex_move_grows_the_tree_it_kept_below_the_reply() -> None:
    """best_move keeps the subtree below its move; after the opponent's reply the next
    timed search starts from that reply's node, its simulations and memory carried on,
    and keeps the subtree below its own best move in turn."""
    state = engine.new("hex", size=9, swap="off").play("e5")
    move = ai.best_move(state, seconds=0.3)
    kept = ai._kept_tree.node
    after = state.play(move)
    adapter = adapter_for(after)
    assert kept is not None and kept.total > 0
    assert adapter.key(kept.pos) == adapter.key(adapter.root(after))
    i = max(range(len(kept.moves)), key=kept.visits.__getitem__)
    reply_node = kept.children[i]
    assert reply_node is not None
    carried = reply_node.total
    replied = after.play(adapter.text(kept.pos, kept.moves[i]))
    deadline = time.monotonic() + 0.2
    search = ai._search(replied, adapter_for(replied), deadline, None, None, None)
    assert search.root is reply_node
    assert search.simulations > 0 and search.root.total == carried + search.simulations
    assert search.held_bytes == sum(search._cost(node) for node in tree_nodes(search))
    assert ai._kept_tree.node is search.root.children[search.ranked()[0][0]]


def test_only_the_very_position_takes_a_kept_tree_and_any_other_search_lets_it_go() -> None:
    state = engine.new("hex", size=9, swap="off").play("e5")
    after = state.play(ai.best_move(state, seconds=0.2))
    kept = ai._kept_tree.node
    assert kept is not None
    # A search by simulations (deterministic) starts afresh even where the kept tree
    # holds its position, and keeps nothing.
    search = ai._search(after, adapter_for(after), math.inf, 3, 300, None)
    assert search.root is not kept and search.root.total == search.simulations == 300
    assert ai._kept_tree.node is None
    ai.best_move(state, seconds=0.2)
    assert ai._kept_tree.node is not None
    # Another game's position: a fresh root, and the kept tree let go.
    other = engine.new("hex", size=9, swap="off").play("a1")
    assert ai._kept_tree.take(adapter_for(other), adapter_for(other).root(other), None) is None
    assert ai._kept_tree.node is None
    # The kept position itself, but searched under other settings: not taken either.
    search = Search(adapter_for(state), adapter_for(state).root(state), rng=random.Random(1))
    search.run(deadline=math.inf, nodes=300)
    best = search.ranked()[0][0]
    after = state.play(search.adapter.text(search.root.pos, search.root.moves[best]))
    adapter, child = adapter_for(after), search.root.children[best]
    assert child is not None
    for asked, taken in ((Settings.plain(), None), (None, child)):
        ai._kept_tree.keep(search, best)
        assert ai._kept_tree.take(adapter, adapter.root(after), asked) is taken


def test_a_kept_node_proven_by_its_connections_still_shows_the_winning_move() -> None:
    # Black to move on 9x9, column a but a1 and a2: won by connections (refine proves
    # it), with no move winning at once. As a root it must be searched for the move.
    state = column_a_nearly_black(9, ("a1", "a2"))
    adapter = adapter_for(state)
    pos = adapter.root(state)
    node = Node(adapter, pos, Settings())
    assert adapter.refine(pos, node.moves)[0] == node.mover == 0
    node.proven, node.refined = node.mover, True  # as the tree's refinement leaves it
    search = Search(adapter, pos, rng=random.Random(1), kept=node)
    assert search.root is node and node.proven is None
    search.run(deadline=time.monotonic() + 60, nodes=3000)
    best = search.root.children[search.ranked()[0][0]]
    assert search.root.proven == 0 and best is not None and best.proven == 0


def test_each_thread_keeps_its_own_tree() -> None:
    # Two lanes of one process (workers as threads) never grow one tree at once.
    state = engine.new("hex", size=9, swap="off").play("e5")
    ai.best_move(state, seconds=0.1)
    kept = ai._kept_tree.node
    seen: list[object] = []
    worker = threading.Thread(target=lambda: seen.append(ai._kept_tree.node))
    worker.start()
    worker.join()
    assert kept is not None and seen == [None] and ai._kept_tree.node is kept
