"""engine.ai: the exact solvers against brute force, the public API's promises."""

from __future__ import annotations

import itertools
import json
import pickle
import random
import statistics
import time
import tracemalloc
from collections.abc import Callable, Hashable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from bot import cli
from engine import GameState, ai
from engine.ai import disthexsolve, hotwireai, intersectionsai
from engine.ai.intersectionsai import IntersectionsAdapter
from engine.ai.mcts import Node, Search
from engine.ai.registry import adapter_for
from engine.hotwire import HotWireState
from engine.intersections import IntersectionsState
from engine.livewire import LivewireState
from tests.conftest import cpu_clock, kept_time

Key = Callable[[GameState], Hashable]


def brute_force(state: GameState, key: Key) -> tuple[int | None, tuple[str, ...]]:
    """The winner with best play (None: draw) and the mover's winning moves, by a
    plain memoised minimax over the public API only."""
    memo: dict[Hashable, int] = {}

    def value(position: GameState) -> int:  # 1 seat 0 wins, -1 seat 1 wins, 0 draw
        if position.outcome is not None:
            winners = position.outcome.winners
            return 0 if len(winners) != 1 else 1 if winners[0] == 0 else -1
        k = key(position)
        if k not in memo:
            values = [value(position.play(move)) for move in position.legal_moves()]
            memo[k] = max(values) if position.to_move == 0 else min(values)
        return memo[k]

    mover = state.to_move
    assert mover is not None
    sign = 1 if mover == 0 else -1
    values = {move: value(state.play(move)) for move in state.legal_moves()}
    best = max(sign * v for v in values.values())
    winner = None if best == 0 else mover if best > 0 else 1 - mover
    return winner, tuple(move for move, v in values.items() if sign * v == 1)


def by_parity(state: GameState) -> Hashable:
    """Stones or wires by who played them, the first two moves (after a swap the
    opening stone changes hands) and, in Disthex, the last (it forbids its neighbours)."""
    moves = state.moves
    last = state.last_move if state.name == "disthex" else None
    return (moves[:2], frozenset(moves[0::2]), frozenset(moves[1::2]), last)


def random_position(state: GameState, plies: int, rng: random.Random) -> GameState:
    for _ in range(plies):
        if state.outcome is not None:
            break
        state = state.play(rng.choice(state.legal_moves()))
    return state


def check_solver(state: GameState, key: Key) -> None:
    solution = ai.solve(state, seconds=20)
    assert solution is not None
    winner, winning = brute_force(state, key)
    assert (solution.winner, solution.winning_moves) == (winner, winning), state


@pytest.mark.parametrize(
    ("game", "options"),
    [
        ("hex", {"size": 3, "swap": "off"}),
        ("hex", {"size": 3, "swap": "on"}),
        ("disthex", {"size": 3}),
        ("hotwire", {"size": "3x3"}),
        ("hotwire", {"size": "4x3", "lengths": "1,3,5"}),
    ],
)
def test_solver_matches_brute_force_from_the_start(game: str, options: dict[str, object]) -> None:
    check_solver(engine.new(game, **options), by_parity)


@pytest.mark.parametrize(
    ("game", "options", "plies"),
    [
        ("hex", {"size": 4, "swap": "off"}, 7),
        ("disthex", {"size": 4}, 8),
        ("hotwire", {"size": "4x4"}, 2),
        ("hotwire", {"size": "5x4", "lengths": "1-2"}, 4),
    ],
)
def test_solver_matches_brute_force_in_random_positions(
    game: str, options: dict[str, object], plies: int
) -> None:
    rng = random.Random(13)
    for _ in range(4):
        state = random_position(engine.new(game, **options), plies, rng)
        if state.outcome is None:
            check_solver(state, by_parity)


@pytest.mark.parametrize(
    ("game", "options", "first_ply"),
    [
        ("hex", {"size": 4, "swap": "off"}, 6),
        ("disthex", {"size": 4}, 7),
        ("hotwire", {"size": "3x3"}, 0),
        ("hotwire", {"size": "5x4", "lengths": "1-2"}, 3),
    ],
)
def test_the_value_alone_with_the_move_played_first_is_exact(
    game: str, options: dict[str, object], first_ply: int
) -> None:
    """An analysis proves a game's positions asking for the value alone, the move
    played tried first: each answer is exact, and a move played that wins is the
    winning move given."""
    rng = random.Random(5)
    state = engine.new(game, **options)
    record: list[str] = []
    while state.outcome is None:
        record.append(rng.choice(state.legal_moves()))
        state = state.play(record[-1])
    for ply in range(len(record) - 1, first_ply - 1, -1):
        position = engine.replay(game, options, record[:ply])
        if position.ply != ply:
            continue  # a forced pass came with the move before
        played = record[ply]
        found = ai.solve(position, seconds=60, every=False, first=played)
        assert found is not None
        winner, winning = brute_force(position, by_parity)
        assert found.winner == winner, (record, ply)
        assert set(found.winning_moves) <= set(winning) and len(found.winning_moves) <= 1
        if played in winning:
            assert found.winning_moves == (played,)


@pytest.mark.parametrize("swap", ["off", "on"])
def test_disthex_solver_matches_brute_force_around_passes(swap: str) -> None:
    # Positions a few plies before the end, where forced passes come up, and
    # after one has been made (the next mover is then unrestricted).
    rng = random.Random(5)
    checked = passed = 0
    while checked < 8 or passed < 3:
        game = random_position(engine.new("disthex", size=4, swap=swap), 16, rng)
        record = game.moves
        plies = rng.randrange(6, len(record))
        if "pass" in record[:plies]:
            passed += 1
        elif checked >= 8:
            continue
        state = engine.replay("disthex", {"size": 4, "swap": swap}, record[:plies])
        if state.outcome is None:
            check_solver(state, by_parity)
            checked += 1


@pytest.mark.parametrize("record", [(), ("b2",), ("a1", "b2", "c3")])
def test_disthex_solver_on_boards_that_are_their_own_turn(record: tuple[str, ...]) -> None:
    # A cell and its 180-degree twin share one search, also when the cells the last
    # stone forbids are not symmetric (after c3: b3 and c2 are barred, a2 and b1 not).
    check_solver(engine.replay("disthex", {"size": 3}, list(record)), by_parity)


def test_disthex_solver_stays_exact_when_its_table_overflows(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Past its limit the table drops what is not settled, then everything: the
    # proof and disproof numbers it loses are guides, never values. These positions
    # need up to ~8,000 entries (too many empty cells for the brute force: the
    # solver with its full table is the reference, checked against brute force above).
    rng = random.Random(8)
    states = [random_position(engine.new("disthex", size=4), 3, rng) for _ in range(3)]
    expected = [ai.solve(state, seconds=20) for state in states]
    sizes: list[int] = []
    keep = disthexsolve.DisthexSolver._keep

    def watched(solver: disthexsolve.DisthexSolver, key: int, numbers: tuple[int, int]) -> None:
        keep(solver, key, numbers)
        sizes.append(len(solver.table))

    monkeypatch.setattr(disthexsolve, "TABLE_LIMIT", 1000)
    monkeypatch.setattr(disthexsolve.DisthexSolver, "_keep", watched)
    assert [ai.solve(state, seconds=20) for state in states] == expected
    assert None not in expected
    assert max(sizes) <= 1000
    assert any(later < earlier for earlier, later in itertools.pairwise(sizes))


def test_solver_matches_brute_force_in_short_circuit() -> None:
    rng = random.Random(5)
    start = engine.new("shortcircuit", size=3, capacitors=0, max_turns=10)
    for _ in range(3):
        state = random_position(start, 4, rng)
        # Without capacitors every action is a placement: the set of moves is the board.
        check_solver(state, lambda s: (frozenset(s.moves), s.ply, s.to_move))


def test_solver_matches_brute_force_in_making_intersections() -> None:
    def key(state: GameState) -> Hashable:
        view = state.view()
        assert isinstance(view, engine.intersections.IntersectionsView)
        drawn = state.moves[len(state.moves) - len(view.segments) :]
        return (view.round, view.scores, frozenset(drawn))

    # The smallest game: 3x3 dots, two rounds of four segments.
    check_solver(engine.new("intersections", size=3, segments=4), key)


def test_hex_4x4_first_moves_are_the_short_diagonal() -> None:
    solution = ai.solve(engine.new("hex", size=4, swap="off"), seconds=20)
    assert solution == ai.Solution(winner=0, winning_moves=("a4", "b3", "c2", "d1"))


def test_hotwire_solver_keeps_one_wire_groups_by_parity() -> None:
    # Three separate one-wire groups (the pin pairs a1-a2, c1-c2, e1-e2 on a 5x2
    # board with length 1 wires, the rest used up) is *1+*1+*1: the mover loses.
    state = engine.new("hotwire", size="5x2", lengths="1")
    state = state.play("b1-b2").play("d1-d2")
    solution = ai.solve(state, seconds=5)
    assert solution is not None
    assert brute_force(state, by_parity) == (solution.winner, solution.winning_moves)
    assert solution.winner == 1 - state.ply % 2


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
    nodes, stack = [], [search.root]
    while stack:
        node = stack.pop()
        nodes.append(node)
        stack.extend(child for child in node.children if child is not None)
    return nodes


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

    search.run(deadline=time.monotonic() + 60, nodes=60)
    full = open_nodes()
    search.run(deadline=time.monotonic() + 60, nodes=150)
    assert open_nodes() == full
    nodes = tree_nodes(search)
    assert search.held_bytes == sum(search._cost(node) for node in nodes)
    assert search.held_bytes < room + max(search._cost(node) for node in nodes)
    assert sum(search.root.visits) == search.root.total == search.simulations
    # Only a proof stops it early (Hex's connections prove 5x5 positions soon).
    assert search.simulations == 150 or search.root.proven is not None


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
    assert "proven: Black wins (found by the search; not every move was settled)" in out


def wins_at_once(state: GameState) -> bool:
    """Whether the mover has a legal move that ends the game in their favour."""
    mover = state.to_move
    for move in state.legal_moves():
        outcome = state.play(move).outcome
        if outcome is not None and outcome.winners == (mover,):
            return True
    return False


def test_disthex_candidates_drop_exactly_the_moves_that_lose_at_once() -> None:
    # Kept: a move that wins, or one after which the opponent cannot win at once (every
    # joining cell of theirs taken or next to the new stone); dropped: all the others.
    rng = random.Random(8)
    pruned = 0
    for _ in range(60):
        state = random_position(engine.new("disthex", size=5), rng.randrange(6, 16), rng)
        if state.outcome is not None or state.to_move is None:
            continue
        adapter = adapter_for(state)
        pos = adapter.root(state)
        moves = adapter.moves(pos)
        kept = {adapter.text(pos, m) for m in adapter.candidates(pos, moves)}
        losing = {m for m in state.legal_moves() if wins_at_once(state.play(m))}
        if losing == set(state.legal_moves()):
            continue  # all lose: the adapter keeps them all
        if any(state.play(m).outcome is not None for m in state.legal_moves()):
            continue  # a win at once: only the winning moves are kept
        assert kept == set(state.legal_moves()) - losing, state.moves
        pruned += len(losing)
    assert pruned > 20  # the positions had something to prune


def _livewire_run(plies: int) -> LivewireState:
    """Player 1 runs along row 4 toward r4 while Player 2 draws along the top edge."""
    player1 = ("a4-c4", "c4-e4", "e4-g4", "g4-i4", "i4-k4", "k4-m4", "m4-o4", "o4-p4")
    player2 = ("r12-r13", "r13-q14", "q14-q15", "q15-o15", "o15-m15", "m15-k15", "k15-i15")
    state = engine.new("livewire", size="17x14")
    interleaved = [move for pair in zip(player1, (*player2, ""), strict=True) for move in pair]
    for move in interleaved[:plies]:
        state = state.play(move)
    assert isinstance(state, LivewireState)
    return state


@pytest.mark.parametrize("seed", [0, 1])  # seeds at which a search of 1,000 simulations parked
def test_the_livewire_ai_makes_a_threat_when_nothing_is_pending(seed: int) -> None:
    parked = _livewire_run(14)  # Player 1's tip at o4, two lines from r4; Player 1 to move
    assert not parked.can_land(0) and not parked.can_land(1)
    move = ai.best_move(parked, seconds=10, nodes=1000, seed=seed)
    assert isinstance(after := parked.play(move), LivewireState)
    assert after.can_land(0), move


def test_the_livewire_ai_answers_a_threat() -> None:
    threatened = _livewire_run(15)  # Player 1's p4 can land on r4; Player 2 to move
    assert threatened.can_land(0)
    move = ai.best_move(threatened, seconds=5, nodes=200, seed=1)
    assert isinstance(after := threatened.play(move), LivewireState)
    assert after.outcome is None and not after.can_land(0), move


@pytest.mark.parametrize(
    ("name", "options"),
    [("shortcircuit", {"size": 4, "max_turns": 60}), ("livewire", {"size": "17x14"})],
)
def test_playouts_replay_through_play(name: str, options: dict[str, object]) -> None:
    # The adapters' playouts (Short Circuit's on bare bitboards, Livewire's landings and
    # weighted lines) from positions along random games, replayed move by move through
    # play: each move legal for the seat said to make it, a finished game scored by its end.
    rng = random.Random(6)
    start = engine.new(name, **options)
    for _ in range(12):
        state = start
        for _ in range(rng.randrange(40)):
            if state.outcome is None:
                state = state.play(rng.choice(state.legal_moves()))
        if state.outcome is not None:
            continue
        adapter = adapter_for(state)
        rewards, played = adapter.playout(adapter.root(state), rng)
        replayed = state
        for seat, move in played:
            assert replayed.to_move == seat
            replayed = replayed.play(adapter.text(replayed, move))
        if name == "shortcircuit":
            assert replayed.outcome is not None
        if replayed.outcome is not None:
            assert rewards == adapter.result(replayed)


def test_hotwire_playouts_prefer_wires_that_take_more() -> None:
    # Of two random wires the policy plays the one that takes away more of the wires
    # still available: from the empty 7x7 board its first wires take ~137 on average,
    # uniformly random ones ~111.
    start = engine.new("hotwire")
    adapter = adapter_for(start)
    root = adapter.root(start)

    def taken_first(policy: bool) -> float:
        adapter.policy = policy
        rng = random.Random(4)
        firsts = (adapter.playout(root, rng)[1][0][1] for _ in range(400))
        return statistics.mean((root[0] & adapter.conflicts[wire]).bit_count() for wire in firsts)

    assert taken_first(True) > taken_first(False) + 15


def test_hotwire_playouts_are_legal_and_settle_their_tail_exactly() -> None:
    # A playout's wires replay legally, by the seats it says, down to EXACT_WIRES wires
    # or fewer, and its result is the solver's for what is left; uniformly random
    # playouts from those same tails get some of them wrong.
    rng = random.Random(8)
    misread = 0
    for _ in range(12):
        state = random_position(engine.new("hotwire", size="5x5"), rng.randrange(1, 4), rng)
        adapter = adapter_for(state)
        rewards, played = adapter.playout(adapter.root(state), rng)
        for seat, wire in played:
            assert state.to_move == seat
            state = state.play(adapter.text(adapter.root(state), wire))
        assert isinstance(state, HotWireState)
        assert state.available.bit_count() <= hotwireai.EXACT_WIRES
        solution = ai.solve(state, seconds=10)
        assert solution is not None
        assert rewards[solution.winner or 0] == 1.0, state.moves
        adapter.policy = False
        tail = adapter.root(state)
        misread += sum(adapter.playout(tail, rng)[0] != rewards for _ in range(10))
    assert misread > 0


def test_intersections_playouts_finish_the_round_with_a_greedy_offense() -> None:
    state = engine.new("intersections", 3).play("a1-a3")
    assert isinstance(state, IntersectionsState)
    rng = random.Random(4)
    finished = intersectionsai.policy_round(state, rng)
    assert finished.moves[:1] == state.moves and len(finished.moves) == state.segments_per_round
    assert finished.round == 2 and finished.outcome is None and state.ply == 1
    assert finished.scores == (finished.round_points[0], 0, 0)  # seat 0 was the offense

    def uniform_round(start: IntersectionsState) -> IntersectionsState:
        drawn = start.copy()
        while drawn.round == start.round:
            drawn.draw_segment(drawn.random_segment(rng))
        return drawn

    empty = engine.new("intersections", 3)
    assert isinstance(empty, IntersectionsState)
    greedy = [intersectionsai.policy_round(empty, rng).scores[0] for _ in range(300)]
    uniform = [uniform_round(empty).scores[0] for _ in range(300)]
    assert statistics.mean(greedy) > statistics.mean(uniform) + 1


def test_intersections_rewards_of_a_finished_game_keep_count_of_the_points() -> None:
    rng = random.Random(8)
    finals = [engine.new("intersections", 3).random_playout(rng) for _ in range(40)]
    final = next(f for f in finals if len(set(f.scores)) == 3)  # three different totals
    rewards = IntersectionsAdapter(final).result(final)
    assert rewards is not None and sum(rewards) == pytest.approx(1.0)
    ranked = sorted(range(3), key=final.scores.__getitem__)
    assert rewards[ranked[0]] < rewards[ranked[1]] < 0.5 < rewards[ranked[2]]  # losing by less
    two = engine.new("intersections", 2).random_playout(rng)
    assert IntersectionsAdapter(two).result(two) in {(1.0, 0.0), (0.0, 1.0), (0.5, 0.5)}


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
    # the product's levels calibrated by simulations: 1,000 of these playouts (about a
    # second each) took minutes
    state = engine.new("shortcircuit", size=10, max_turns=9999)
    with cpu_clock() as clock:
        began = clock()
        analysis = ai.analyse(state, seconds=0.3, nodes=1_000, capped=True, seed=1)
        assert kept_time(clock() - began, 0.3)
    assert analysis.best and analysis.simulations < 1_000


@pytest.mark.parametrize("players", [2, 8])
def test_best_move_keeps_time_with_the_longest_intersections_rounds(players: int) -> None:
    # 12x12 with the most segments a round allows (122 or 120): the adapter samples the
    # average round before the search, and a 2-player search builds it twice (solver, tree).
    segments = 122 // players * players
    state = engine.new("intersections", players, size=12, segments=segments)
    move, took = timed_best_move(state, 0.1, 1)
    assert kept_time(took, 0.1)
    assert move in state.legal_moves()


def test_hotwire_solver_stays_exact_when_its_caches_are_trimmed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(hotwireai, "CACHE_LIMIT", 10)
    rng = random.Random(4)
    for _ in range(6):
        state = random_position(engine.new("hotwire", size="4x4"), 3, rng)
        if state.outcome is None:
            check_solver(state, by_parity)


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
