"""bench.ai's strength section: the AI against uniform random and against plain UCT (or itself
without its playout policy) at equal time per move, on paired openings, with a 95% (Wilson)
interval as it goes."""

from __future__ import annotations

import functools
import random
import statistics
import time
from collections.abc import Callable

import engine
from engine import GameState, ai
from engine.ai.mcts import Settings

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


def wilson(scores: list[float], z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a win rate (draws, where a game has them, count half)."""
    n = len(scores)
    p = statistics.mean(scores)
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    margin = z * ((p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5) / (1 + z * z / n)
    return max(0.0, centre - margin), min(1.0, centre + margin)
