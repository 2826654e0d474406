"""AI benchmark: search speed, strength against simple opponents, exact solves,
and a match against OpenSpiel's C++ MCTS on Hex.

Sections (all by default, or pick with --section):
- speed: MCTS simulations/s, the adapter's playouts/s and the engine's uniformly random
  playouts/s per game, from the start.
- strength: the AI against uniform random and against plain UCT (random
  playouts, C = 1.4, no knowledge, the same engine) at equal time per move,
  paired openings (each random opening twice, seats swapped); with
  `--against no-policy`, against itself with its playout policy off
  (Settings.policy: what a game's policy is worth). With the
  default 10 games per pairing these figures are PRELIMINARY (+-30 points);
  every group of paired games prints the score so far with a 95% (Wilson)
  interval.
- solve: Hot Wire 5x5 from the empty board (default lengths, 1,3,5 and 1;
  --solve-limit s each), Disthex 2x2 to 5x5, and Hex first-move tables
  (--hex-size 5 by default, repeatable; --hex-limit s per opening), each
  opening proven on its own and then the whole table by solve(), compared
  with the published tables; Disthex first-move tables likewise
  (--disthex-size, repeatable; each opening on its own, a table of up to ~3 GB).
- analysis: analyse() after each Hex 7x7 opening (swap off, --analysis-seconds
  each) against the published table of which openings win.
- memory: the peak RSS of one best_move at the "max" level's minute
  (--memory-seconds) at the largest options of every game and on Hex 7x7 (the
  most simulations a second), each in a fresh process.
- openspiel: Hex 7x7 (--openspiel-size) with swap off against pyspiel.MCTSBot
  (random rollouts, uct_c 2) given the simulations it runs in the same time on
  this machine, calibrated again before every pair of games; paired openings;
  a progress line per pair with the 95% interval so far.

The last line is the headline: `ai: <figure>`.

Run: .venv/bin/python -m bench.ai [--section strength] [--games 10] [--seconds 0.1]
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable

import engine
from engine import GameState, ai, notation
from engine.ai import disthexsolve, hexconnections, hexsolve
from engine.ai.mcts import Search, Settings
from engine.ai.registry import adapter_for
from engine.ai.solver import Budget, OutOfTime

#: (label, game, options, players)
SPEED_CASES: list[tuple[str, str, dict[str, object], int | None]] = [
    ("hex 7x7", "hex", {"size": 7, "swap": "off"}, None),
    ("hex 11x11", "hex", {"size": 11, "swap": "off"}, None),
    ("disthex 7x7", "disthex", {}, None),
    ("hotwire 7x7", "hotwire", {}, None),
    ("shortcircuit s3", "shortcircuit", {"size": 3}, None),
    ("shortcircuit s5", "shortcircuit", {}, None),
    ("livewire 17x14", "livewire", {"size": "17x14"}, None),
    ("livewire 42x34", "livewire", {}, None),
    ("intersections 6x6 2p", "intersections", {}, None),
    ("intersections 6x6 3p", "intersections", {}, 3),
]

#: Strength cases: the issue's 7x7 defaults and smallest boards; Short Circuit
#: with a shorter turn limit so that a game fits the benchmark.
STRENGTH_CASES: list[tuple[str, str, dict[str, object], int | None]] = [
    ("hex7", "hex", {"size": 7, "swap": "off"}, None),
    ("disthex7", "disthex", {}, None),
    ("hotwire7", "hotwire", {}, None),
    ("shortcircuit3", "shortcircuit", {"size": 3, "max_turns": 40}, None),
    ("livewire17x14", "livewire", {"size": "17x14"}, None),
    ("intersections2p", "intersections", {}, None),
    ("intersections3p", "intersections", {}, 3),
    ("intersections4p", "intersections", {}, 4),
]

#: A game still running after this many plies is stopped and counted as a draw.
MAX_PLIES = 300

Agent = Callable[[GameState], str]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--section",
        action="append",
        choices=("speed", "strength", "solve", "analysis", "memory", "openspiel"),
        help="run only these sections (repeatable)",
    )
    parser.add_argument("--games", type=int, default=10, help="games per pairing (even)")
    parser.add_argument("--seconds", type=float, default=0.1, help="time per move")
    parser.add_argument("--only", help="strength: only the cases with these labels (a,b)")
    parser.add_argument(
        "--opening-seed",
        type=int,
        default=7,
        help="strength: the seed of the openings (another seed, other games to add to a run)",
    )
    parser.add_argument(
        "--against",
        choices=("random", "plain", "no-policy"),
        help="strength: only this opponent (no-policy: only when asked)",
    )
    parser.add_argument(
        "--solve-limit", type=float, default=60.0, help="seconds per Hot Wire solve"
    )
    parser.add_argument(
        "--hex-limit", type=float, default=60.0, help="seconds per opening of an opening table"
    )
    parser.add_argument(
        "--hex-size", type=int, action="append", help="Hex opening tables to solve (default 5)"
    )
    parser.add_argument(
        "--disthex-size", type=int, action="append", help="Disthex opening tables to solve"
    )
    parser.add_argument("--analysis-size", type=int, default=7, help="analysis: board size")
    parser.add_argument(
        "--analysis-seconds", type=float, default=2.0, help="analysis: seconds per opening"
    )
    parser.add_argument(
        "--memory-seconds", type=float, default=60.0, help="memory: seconds of each search"
    )
    parser.add_argument("--openspiel-games", type=int, default=4)
    parser.add_argument("--openspiel-seconds", type=float, default=0.2)
    parser.add_argument("--openspiel-size", type=int, default=7, help="Hex board size")
    parser.add_argument(
        "--openspiel-simulations", type=int, help="MCTSBot's budget per move (default: calibrated)"
    )
    args = parser.parse_args()
    sections = args.section or ["speed", "strength", "solve", "openspiel"]
    headline = "no headline (run the strength or openspiel section)"
    if "speed" in sections:
        speed()
    if "strength" in sections:
        headline = (
            strength(args.games, args.seconds, args.only, args.against, args.opening_seed)
            or headline
        )
    if "solve" in sections:
        solved = solve_section(
            args.solve_limit, args.hex_limit, args.hex_size or [5], args.disthex_size or []
        )
        if "strength" not in sections:
            headline = solved
    if "analysis" in sections:
        headline = opening_analysis(args.analysis_size, args.analysis_seconds)
    if "memory" in sections:
        headline = memory(args.memory_seconds)
    if "openspiel" in sections:
        headline = openspiel(
            args.openspiel_games,
            args.openspiel_seconds,
            args.openspiel_size,
            args.openspiel_simulations,
        )
    print(f"ai: {headline}")


# -- speed ---------------------------------------------------------------------------


def speed(seconds: float = 1.0) -> None:
    """Per game: the search's simulations/s, its playouts/s (the adapter's policy) and
    the engine's uniformly random playouts to the end (`random_playout`) per second."""
    print(f"{'game':<22} {'simulations/s':>14} {'playouts/s':>11} {'random/s':>9}")
    for label, name, options, players in SPEED_CASES:
        state = engine.new(name, players, **options)
        adapter = adapter_for(state)
        search = Search(adapter, adapter.root(state), rng=random.Random(1))
        start = time.monotonic()
        search.run(deadline=start + seconds)
        simulations = search.simulations / (time.monotonic() - start)
        adapter.deadline = math.inf  # the search's deadline has passed; playouts watch it
        root = adapter.root(state)
        rng = random.Random(2)
        playouts = rate(functools.partial(adapter.playout, root, rng), seconds / 2)
        randoms = rate(functools.partial(state.random_playout, rng), seconds / 2)
        print(f"{label:<22} {simulations:>14.0f} {playouts:>11.0f} {randoms:>9.0f}")


def rate(action: Callable[[], object], seconds: float) -> float:
    """Calls of `action` per second, calling it for `seconds` (at least once)."""
    count, start = 0, time.monotonic()
    while not count or time.monotonic() - start < seconds:
        action()
        count += 1
    return count / (time.monotonic() - start)


# -- strength -------------------------------------------------------------------------


def searcher(seconds: float, settings: Settings | None, seed: int) -> Agent:
    calls = iter(range(10**9))
    return lambda state: ai.best_move(
        state, seconds=seconds, seed=seed + next(calls), settings=settings
    )


def random_agent(seed: int) -> Agent:
    rng = random.Random(seed)
    return lambda state: rng.choice(state.legal_moves())


def play(state: GameState, agents: list[Agent]) -> GameState:
    """Play to the end (or MAX_PLIES) with one agent per seat."""
    while state.outcome is None and state.ply < MAX_PLIES:
        seat = state.to_move
        assert seat is not None
        state = state.play(agents[seat](state))
    return state


def score_of(state: GameState, seat: int) -> float:
    """1 a win, a share of a shared win, 1/players a draw or an unfinished game."""
    if state.outcome is None or not state.outcome.winners:
        return 1.0 / state.players
    winners = state.outcome.winners
    return 1.0 / len(winners) if seat in winners else 0.0


def match(
    name: str,
    options: dict[str, object],
    players: int | None,
    games: int,
    opponent: Callable[[int], Agent],
    seconds: float,
    progress: Callable[[list[float], list[float]], None] | None = None,
    opening_seed: int = 7,
) -> tuple[list[float], list[float]]:
    """The AI against `opponent` in every other seat: the AI's score per game and the
    opponents' mean score per game. Openings are one random move, each played with
    the AI in every seat in turn; `progress` is told after each such group."""
    rng = random.Random(opening_seed)
    start = engine.new(name, players, **options)
    seats = start.players
    ours: list[float] = []
    theirs: list[float] = []
    while len(ours) < games:
        opening = start.play(rng.choice(start.legal_moves()))
        for ai_seat in range(seats):
            played = len(ours)
            agents = [opponent(100 * played + seat) for seat in range(seats)]
            agents[ai_seat] = searcher(seconds, None, 100 * played)
            final = play(opening, agents)
            ours.append(score_of(final, ai_seat))
            theirs.append(
                statistics.mean(score_of(final, seat) for seat in range(seats) if seat != ai_seat)
            )
        if progress is not None:
            progress(ours, theirs)
    return ours, theirs


def progress_line(
    label: str,
    opponent: str,
    began: float,
    ours: list[float],
    theirs: list[float],
    final: bool = False,
) -> None:
    low, high = wilson(ours)
    print(
        f"{label:<18} {opponent:<10} {len(ours):>5} {statistics.mean(ours):>6.0%} "
        f"{f'{low:.0%}-{high:.0%}':>13} {statistics.mean(theirs):>6.0%} "
        f"{time.monotonic() - began:>6.0f}{'' if final else '  (so far)'}",
        flush=True,
    )


def strength(
    games: int,
    seconds: float,
    only: str | None,
    against: str | None = None,
    opening_seed: int = 7,
) -> str | None:
    print(f"\nstrength at {seconds} s per move, {games} games per pairing")
    print(
        f"{'case':<18} {'opponent':<10} {'games':>5} {'AI':>6} {'95% interval':>13} "
        f"{'them':>6} {'s':>6}"
    )
    chosen = None if only is None else set(only.split(","))
    headline = None
    opponents: list[tuple[str, Callable[[int], Agent]]] = [
        ("random", random_agent),
        ("plain UCT", lambda seed: searcher(seconds, Settings.plain(), seed)),
    ]
    if against == "no-policy":
        opponents = [("no-policy", lambda seed: searcher(seconds, Settings(policy=False), seed))]
    for label, name, options, players in STRENGTH_CASES:
        if chosen is not None and label not in chosen:
            continue
        for opponent_name, opponent in opponents:
            if against is not None and not opponent_name.startswith(against):
                continue
            report = functools.partial(progress_line, label, opponent_name, time.monotonic())
            ours, theirs = match(
                name, options, players, games, opponent, seconds, report, opening_seed
            )
            report(ours, theirs, final=True)
            headline = (
                f"{label} vs {opponent_name} {statistics.mean(ours):.0%} "
                f"(n={len(ours)}, {seconds} s per move)"
            )
    return headline


# -- solve ------------------------------------------------------------------------------


def solve_section(
    limit: float, hex_limit: float, hex_sizes: list[int], disthex_sizes: list[int]
) -> str:
    print(f"\nexact solves (limit {limit:.0f} s each, {hex_limit:.0f} s per opening of a table)")
    for lengths in ("1-6", "1,3,5", "1"):
        state = engine.new("hotwire", size="5x5", lengths=lengths)
        began = time.monotonic()
        solution = ai.solve(state, seconds=limit)
        took = time.monotonic() - began
        if solution is None:
            print(f"hotwire 5x5 lengths {lengths}: not proven in {took:.1f} s")
        else:
            winner = engine.GAMES["hotwire"].seat_name(solution.winner or 0)
            print(
                f"hotwire 5x5 lengths {lengths}: {winner} wins, {took:.1f} s, winning first "
                f"moves: {' '.join(solution.winning_moves) or 'none'}"
            )
    for size in (2, 3, 4, 5):
        began = time.monotonic()
        solution = ai.solve(engine.new("disthex", size=size), seconds=limit)
        took = time.monotonic() - began
        if solution is None:
            print(f"disthex {size}x{size}: not proven in {took:.1f} s")
        else:
            print(
                f"disthex {size}x{size}: {'Black' if solution.winner == 0 else 'White'} wins, "
                f"{took:.1f} s, winning first moves: {' '.join(solution.winning_moves)}"
            )
    tables = [("hex", size) for size in hex_sizes] + [("disthex", size) for size in disthex_sizes]
    return "; ".join(opening_table(game, size, hex_limit) for game, size in tables)


#: The published first-move tables of Hex without swap (the first player, Black,
#: joins the top and bottom rows; a1 is the top-left cell): the openings that
#: win. 6x6 and 7x7 from benzene's regression files (dfpn-solve-6x6.tst,
#: dfs-solve-7x7.tst); for 5x5 the published figure is the count, 13 of 25.
PUBLISHED_WINS: dict[int, frozenset[str] | int] = {
    4: frozenset({"a4", "b3", "c2", "d1"}),
    5: 13,
    6: frozenset(
        {"a3", "a4", "a5", "a6", "b2", "b3", "b4", "b5", "c2", "c3", "c4", "c5"}
        | {"d2", "d3", "d4", "d5", "e2", "e3", "e4", "e5", "f1", "f2", "f3", "f4"}
    ),
    7: frozenset(
        {"a4", "a6", "a7", "b3", "b4", "b5", "b6", "c2", "c3", "c4", "c5", "c6", "d3", "d4"}
        | {"d5", "e2", "e3", "e4", "e5", "e6", "f2", "f3", "f4", "f5", "g1", "g2", "g4"}
    ),
}


def published_agrees(size: int, wins: set[str]) -> bool:
    published = PUBLISHED_WINS[size]
    if isinstance(published, int):
        return len(wins) == published
    return wins == published


#: The Disthex solver's table in an opening table's searches: ~200 bytes an entry,
#: so up to ~3 GB (the 5x5 openings fill a few million). These are offline proofs;
#: the product's searches keep disthexsolve.TABLE_LIMIT (a search holds <= 300 MB).
OPENING_TABLE_LIMIT = 15_000_000


def opening_loses(game: str, size: int, cell: int, budget: Budget) -> bool:
    """Whether the first player's stone on `cell` of an empty board loses (swap
    off): White, to move, wins. Raises OutOfTime."""
    if game == "hex":
        return hexsolve.HexProver(size, budget).mover_wins(0, 1 << cell, 1)
    solver = disthexsolve.DisthexSolver(size, budget, OPENING_TABLE_LIMIT)
    return solver.mover_wins(0, 1 << cell, 1, solver.geo.neighbours[cell])


def opening_table(game: str, size: int, limit: float) -> str:
    """Each opening of an empty size x size board (swap off) proven on its own (a
    fresh solver, `limit` s; an opening and its 180-degree turn are the same
    game), then for Hex, if all were proven, the whole table in one solve() of
    the empty board; the map and the comparison with the published table."""
    geo = hexconnections.geometry(size)
    marks: dict[str, str] = {}
    times = []
    for cell in range(geo.cells):
        label = notation.label((cell % size, cell // size))
        twin = geo.cells - 1 - cell  # the 180-degree turn: the same game
        if twin < cell:
            marks[label] = marks[notation.label((twin % size, twin // size))]
            continue
        began = time.monotonic()
        try:
            loses = opening_loses(game, size, cell, Budget(time.monotonic() + limit))
            marks[label] = "l" if loses else "W"
        except OutOfTime:
            marks[label] = "?"
        times.append(time.monotonic() - began)
    rows = []
    for row in range(size):
        line = " ".join(marks[notation.label((column, row))] for column in range(size))
        rows.append(" " * row + line)
    wins = {label for label, mark in marks.items() if mark == "W"}
    unproven = sum(mark == "?" for mark in marks.values())
    print(
        f"{game} {size}x{size} openings one by one (W first player wins, l loses, ? not "
        f"proven in {limit:.0f} s): {len(wins)} W, {unproven} ?; {len(times)} searched, "
        f"median {statistics.median(times):.1f} s, slowest {max(times):.1f} s, "
        f"{sum(times):.0f} s in all"
    )
    print("\n".join(rows))
    if unproven:
        return f"{game} {size}x{size}: {len(wins)} openings proven to win, {unproven} not proven"
    if game != "hex":
        return f"{game} {size}x{size}: {len(wins)} of {geo.cells} openings win"
    began = time.monotonic()
    solution = ai.solve(engine.new("hex", size=size, swap="off"), seconds=limit * geo.cells)
    took = time.monotonic() - began
    if solution is None:
        return f"hex {size}x{size} table: not proven in {took:.0f} s"
    agrees = published_agrees(size, set(solution.winning_moves))
    summary = (
        f"hex {size}x{size} table by solve(): {len(solution.winning_moves)} of {geo.cells} "
        f"openings win, {'agrees' if agrees else 'DISAGREES'} with the published table, "
        f"{took:.0f} s"
    )
    print(summary)
    return summary


# -- analysis ------------------------------------------------------------------------------


def opening_analysis(size: int, seconds: float) -> str:
    """analyse() after each opening of an empty board (swap off, White to move):
    the first player's chance against the published table (a win above 0.5)."""
    published = PUBLISHED_WINS[size]
    assert isinstance(published, frozenset)
    empty = engine.new("hex", size=size, swap="off")
    marks: dict[str, str] = {}
    agree = 0
    for row in range(size):
        for column in range(size):
            label = notation.label((column, row))
            analysis = ai.analyse(empty.play(label), seconds=seconds, seed=1)
            chance = analysis.win_chance[0]
            right = (chance > 0.5) == (label in published)
            agree += right
            proven = "!" if analysis.proven is not None else " "
            marks[label] = f"{chance:4.2f}{proven}{' ' if right else 'x'}"
    print(
        f"hex {size}x{size} openings analysed at {seconds:g} s: the first player's chance "
        "(! proven, x disagrees with the published table)"
    )
    for row in range(size):
        cells = " ".join(marks[notation.label((column, row))] for column in range(size))
        print(" " * (3 * row) + cells)
    return (
        f"hex {size}x{size} openings: analyse() agrees with the published table on "
        f"{agree} of {size * size}"
    )


# -- memory ---------------------------------------------------------------------------------

#: (label, game, options): the largest options of every game, and Hex 7x7.
MEMORY_CASES: list[tuple[str, str, dict[str, object]]] = [
    ("hex 7x7", "hex", {"size": 7, "swap": "off"}),
    ("hex 19x19", "hex", {"size": 19, "swap": "off"}),
    ("disthex 19x19", "disthex", {"size": 19}),
    ("hotwire 19x19", "hotwire", {"size": "19x19"}),
    ("shortcircuit 10", "shortcircuit", {"size": 10}),
    ("livewire 60x60", "livewire", {"size": "60x60"}),
    ("intersections 12x12 2p", "intersections", {"size": 12, "segments": 122}),
    ("intersections 12x12 8p", "intersections", {"players": 8, "size": 12, "segments": 120}),
]

#: Run in a fresh process: one best_move from the start, then the process's peak RSS.
_PEAK_SCRIPT = """
import json, resource, sys, time
import engine
from engine import ai
game, options, seconds = json.loads(sys.argv[1])
state = engine.new(game, **options)
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
start = time.monotonic()
ai.best_move(state, seconds=seconds, seed=1)
took = time.monotonic() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps([before / 1024, peak / 1024, took]))
"""


def memory(seconds: float) -> str:
    """Each case's peak RSS (MB) over one best_move of `seconds`, in a fresh process."""
    print(f"{'game':<26} {'before':>8} {'peak':>8} {'took':>7}")
    peaks = []
    for label, name, options in MEMORY_CASES:
        data = json.dumps([name, options, seconds])
        output = subprocess.run(
            [sys.executable, "-c", _PEAK_SCRIPT, data], capture_output=True, text=True, check=True
        ).stdout
        before, peak, took = json.loads(output)
        peaks.append((peak, label))
        print(f"{label:<26} {before:>6.0f} MB {peak:>5.0f} MB {took:>6.1f} s", flush=True)
    peak, label = max(peaks)
    cases = len(peaks)
    return f"peak RSS of a {seconds:g} s best_move, largest of {cases}: {peak:.0f} MB ({label})"


# -- OpenSpiel -----------------------------------------------------------------------------


class Resigned(Exception):
    """An opponent gives the game up (a resignation or a forfeit): the AI wins it."""


def paired_hex_games(
    size: int,
    games: int,
    seconds: float,
    opponent: Callable[[int], Agent],
    note: Callable[[], str] = lambda: "",
) -> list[float]:
    """The AI against `opponent(game index)` on Hex (swap off): each random opening
    (seed 11) played twice, the AI first as Black then as White; a progress line per
    pair with the 95% interval so far and `note()`. The AI's score per game."""
    rng = random.Random(11)
    start = engine.new("hex", size=size, swap="off")
    scores: list[float] = []
    began = time.monotonic()
    while len(scores) < games:
        opening = rng.choice(start.legal_moves())
        for ai_seat in (0, 1):
            played = len(scores)
            agents = [opponent(played)] * 2
            agents[ai_seat] = functools.partial(ai.best_move, seconds=seconds, seed=played)
            try:
                scores.append(score_of(play(start.play(opening), agents), ai_seat))
            except Resigned:
                scores.append(1.0)
        low, high = wilson(scores)
        print(
            f"  {len(scores):>4} games  opening {opening:<4} {note()}  "
            f"AI {statistics.mean(scores):.0%} [{low:.0%}, {high:.0%}]  "
            f"{time.monotonic() - began:.0f} s",
            flush=True,
        )
    return scores


def openspiel(games: int, seconds: float, size: int = 7, simulations: int | None = None) -> str:
    """Paired openings against pyspiel.MCTSBot; its simulation budget is calibrated
    again before every pair, so a machine that gets busier mid-run stays fair, unless
    `simulations` fixes it (a quiet machine's rate: the AI alone pays for any load)."""
    import pyspiel  # a dev dependency, only for this section

    game = pyspiel.load_game(f"hex(board_size={size})")
    print(f"\nopenspiel: hex {size}x{size} at {seconds} s per move, {games} games", flush=True)
    budgets: list[int] = []

    def mcts_bot(played: int) -> Agent:
        if played % 2 == 0:  # a new pair
            budgets.append(simulations or max(1, int(calibrate(pyspiel, game, seconds) * seconds)))
        bot = pyspiel.MCTSBot(
            game,
            pyspiel.RandomRolloutEvaluator(1, played),
            2.0,
            budgets[-1],
            1000,
            False,
            played,
            False,
        )
        spiel = game.new_initial_state()

        def reply(state: GameState) -> str:
            for move in state.moves[spiel.move_number() :]:
                spiel.apply_action(_action(move, size))
            return _label(bot.step(spiel), size)

        return reply

    scores = paired_hex_games(
        size, games, seconds, mcts_bot, lambda: f"MCTSBot {budgets[-1]:>6} sims/move"
    )
    share = statistics.mean(scores)
    low, high = wilson(scores)
    print(
        f"AI vs pyspiel.MCTSBot: {share:.0%} of {len(scores)} games, 95% interval "
        f"[{low:.0%}, {high:.0%}]; MCTSBot median {statistics.median(budgets)} simulations/move"
    )
    return f"hex{size} vs OpenSpiel MCTSBot {share:.0%} (n={len(scores)}, {seconds} s per move)"


def wilson(scores: list[float], z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a win rate (draws, where a game has them, count half)."""
    n = len(scores)
    p = statistics.mean(scores)
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    margin = z * ((p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5) / (1 + z * z / n)
    return max(0.0, centre - margin), min(1.0, centre + margin)


def calibrate(pyspiel: object, game: object, seconds: float) -> float:
    """MCTSBot's simulations per second on this machine now, from the empty board."""
    probe = 2000
    rates = []
    for seed in range(3):
        bot = pyspiel.MCTSBot(  # type: ignore[attr-defined]
            game,
            pyspiel.RandomRolloutEvaluator(1, seed),  # type: ignore[attr-defined]
            2.0,
            probe,
            1000,
            False,
            seed,
            False,
        )
        state = game.new_initial_state()  # type: ignore[attr-defined]
        began = time.perf_counter()
        bot.step(state)
        rates.append(probe / (time.perf_counter() - began))
    return statistics.median(rates)


def _action(text: str, size: int) -> int:
    column, row = notation.point(text)
    return row * size + column


def _label(action: int, size: int) -> str:
    return notation.label((action % size, action // size))


if __name__ == "__main__":
    main()
