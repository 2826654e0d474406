"""The analysis' lean towards or against the mover, before and after `unbiased`.

A quiet game: self-play, each move the AI's own choice at a simulation budget (its
seed drawn from the game's), so no move should change the chances much. Each
position is judged as the analysis judges it, without the solver (`judge` at the
same budget). Two figures, for the raw chances and for `unbiased`'s:

- rise: the mean change of the mover's chance over the moves that were the
  judging search's own best (0 without a bias: the search would play them);
- zigzag: the mean over positions of the chance's excess over its two neighbours'
  mean, counted for the seat to move (it counts real mistakes too, all positive).

Run: .venv/bin/python -m bench.analysis_bias GAME OPTIONS_JSON [--nodes N] [--plies P]
[--seeds S ...]; e.g. ... hex '{"size": 11, "swap": "off"}' --nodes 2000 --seeds 1 2
The last line: "analysis bias: GAME rise +r -> +r, zigzag +z -> +z (k own-best moves)".
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
from collections.abc import Sequence

import engine
import engine.ai
from bot.service.looks.analysis import JudgedPosition, judge, unbiased


def quiet_game(
    game: str, options: dict[str, object], nodes: int, plies: int, seed: int
) -> tuple[list[str], list[JudgedPosition]]:
    """The record of a self-play game and its judged positions, up to the first one the
    search proves (proven positions are exact: no lean to measure)."""
    rng = random.Random(seed)
    state = engine.replay(game, options, ())
    record: list[str] = []
    while state.outcome is None and len(record) < plies:
        record.append(
            engine.ai.best_move(state, seconds=3600, nodes=nodes, seed=rng.randrange(10**6))
        )
        state = state.play(record[-1])
    positions = []
    for ply in range(len(record) + 1):
        verdict = judge(game, options, record[:ply], 3600, nodes)
        state = engine.replay(game, options, record[:ply])
        if verdict.proven or state.to_move is None:
            break
        positions.append(JudgedPosition(verdict, state.to_move, None))
    return record, positions


def rise(record: Sequence[str], positions: Sequence[JudgedPosition]) -> list[float]:
    return [
        positions[ply + 1].verdict.chances[mover] - positions[ply].verdict.chances[mover]
        for ply in range(len(positions) - 1)
        if positions[ply].verdict.best == record[ply]
        and (mover := positions[ply].mover) is not None
    ]


def zigzag(positions: Sequence[JudgedPosition]) -> list[float]:
    values = [p.verdict.chances[0] for p in positions]
    return [
        (1 if positions[ply].mover == 0 else -1)
        * (values[ply] - (values[ply - 1] + values[ply + 1]) / 2)
        for ply in range(1, len(values) - 1)
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game")
    parser.add_argument("options", type=json.loads)
    parser.add_argument("--nodes", type=int, default=2000)
    parser.add_argument("--plies", type=int, default=40)
    parser.add_argument("--seeds", type=int, nargs="+", default=[1])
    args = parser.parse_args()
    figures: dict[str, list[float]] = {
        key: [] for key in ("rise", "rise after", "zigzag", "zigzag after")
    }
    for seed in args.seeds:
        record, positions = quiet_game(args.game, args.options, args.nodes, args.plies, seed)
        fixed = unbiased(positions, record)
        figures["rise"] += rise(record, positions)
        figures["rise after"] += rise(record, fixed)
        figures["zigzag"] += zigzag(positions)
        figures["zigzag after"] += zigzag(fixed)
        print(f"seed {seed}: {len(record)} moves, {len(positions)} positions before a proof")

    def mean(key: str) -> str:
        return f"{statistics.mean(figures[key]):+.3f}" if figures[key] else "n/a"

    print(
        f"analysis bias: {args.game} rise {mean('rise')} -> {mean('rise after')}, "
        f"zigzag {mean('zigzag')} -> {mean('zigzag after')} "
        f"({len(figures['rise'])} own-best moves)"
    )


if __name__ == "__main__":
    main()
