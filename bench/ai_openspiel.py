"""bench.ai's OpenSpiel section: Hex against pyspiel.MCTSBot given the simulations it runs in
the same time on this machine, calibrated before every pair of games, on paired openings."""

from __future__ import annotations

import functools
import random
import statistics
import time
from collections.abc import Callable

import engine
from bench.ai_strength import Agent, play, score_of, wilson
from engine import GameState, ai, notation

# -- OpenSpiel -----------------------------------------------------------------------------


class Resigned(Exception):
    """An opponent gives the game up (a resignation or a forfeit): the AI wins it."""


def paired_hex_games(
    size: int,
    games: int,
    seconds: float,
    opponent: Callable[[int], Agent],
    note: Callable[[], str] = lambda: "",
    opening_seed: int = 11,
) -> list[float]:
    """The AI against `opponent(game index)` on Hex (swap off): each random opening
    (drawn from `opening_seed`) played twice, the AI first as Black then as White; a
    progress line per pair with the 95% interval so far and `note()`. The AI's score
    per game."""
    rng = random.Random(opening_seed)
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
