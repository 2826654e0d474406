"""engine.ai: the exact solvers against brute force, and what each game's adapter adds to the
search (Disthex's candidates, Livewire's threats, the playouts of Hot Wire and Intersections).
The public API's promises: tests/test_ai_search.py."""

from __future__ import annotations

import itertools
import random
import statistics
from collections.abc import Callable, Hashable

import pytest

import engine
from engine import GameState, ai
from engine.ai import disthexsolve, hotwireai, intersectionsai
from engine.ai.intersectionsai import IntersectionsAdapter
from engine.ai.registry import adapter_for
from engine.hotwire import HotWireState
from engine.intersections import IntersectionsState
from engine.livewire import LivewireState
from tests.conftest import random_position

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


def test_hotwire_solver_stays_exact_when_its_caches_are_trimmed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(hotwireai, "CACHE_LIMIT", 10)
    rng = random.Random(4)
    for _ in range(6):
        state = random_position(engine.new("hotwire", size="4x4"), 3, rng)
        if state.outcome is None:
            check_solver(state, by_parity)
