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
  each) against the published table of which openings win: with the opening book,
  then the search alone (the book set aside).
- memory: the peak RSS of one best_move at the "max" level's minute
  (--memory-seconds) at the largest options of every game and on Hex 7x7 (the
  most simulations a second), each in a fresh process.
- openspiel: Hex 7x7 (--openspiel-size) with swap off against pyspiel.MCTSBot
  (random rollouts, uct_c 2) given the simulations it runs in the same time on
  this machine, calibrated again before every pair of games; paired openings;
  a progress line per pair with the 95% interval so far.

Solve and analysis are here; speed and memory in bench/ai_speed.py, strength in
bench/ai_strength.py, openspiel in bench/ai_openspiel.py.

The last line is the headline: `ai: <figure>`.

Run: .venv/bin/python -m bench.ai [--section strength] [--games 10] [--seconds 0.1]
"""

from __future__ import annotations

import argparse
import statistics
import time

import engine
from bench.ai_openspiel import openspiel
from bench.ai_speed import memory, speed
from bench.ai_strength import strength
from engine import ai, notation
from engine.ai import disthexsolve, hexbook, hexconnections, hexsolve
from engine.ai.solver import Budget, OutOfTime


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
    """analyse() after each opening of an empty board (swap off, White to move), with
    the opening book and then the search alone (the book set aside): the first
    player's chance against the published table (a win above 0.5)."""
    with_book = _analysed_openings(size, seconds, "with the opening book")
    with hexbook.set_aside(size):
        alone = _analysed_openings(size, seconds, "the search alone (no book)")
    return (
        f"hex {size}x{size} openings: analyse() agrees with the published table on "
        f"{with_book}; the search alone {alone}"
    )


def _analysed_openings(size: int, seconds: float, title: str) -> str:
    published = PUBLISHED_WINS[size]
    assert isinstance(published, frozenset)
    empty = engine.new("hex", size=size, swap="off")
    marks: dict[str, str] = {}
    agree = proofs = 0
    slowest = 0.0
    for row in range(size):
        for column in range(size):
            label = notation.label((column, row))
            began = time.monotonic()
            analysis = ai.analyse(empty.play(label), seconds=seconds, seed=1)
            slowest = max(slowest, time.monotonic() - began)
            chance = analysis.win_chance[0]
            right = (chance > 0.5) == (label in published)
            agree += right
            proven = analysis.proven_winner is not None or analysis.proven is not None
            proofs += proven
            marks[label] = f"{chance:4.2f}{'!' if proven else ' '}{' ' if right else 'x'}"
    print(
        f"hex {size}x{size} openings analysed at {seconds:g} s, {title}: the first "
        "player's chance (! proven, x disagrees with the published table)"
    )
    for row in range(size):
        cells = " ".join(marks[notation.label((column, row))] for column in range(size))
        print(" " * (3 * row) + cells)
    return f"{agree} of {size * size} ({proofs} proven, the slowest {slowest:.1f} s)"


if __name__ == "__main__":
    main()
