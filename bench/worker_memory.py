"""One search in the bot's own AI worker process: its time and the worker's peak memory.

The AI lane's worker (bot/workers.py's Lane, spawned) imports the bot's service package to
unpickle `think` and `judge`, so it holds ~116 MB before it searches; `bench.ai`'s
memory section measures a bare process. Each run searches once in a fresh worker and
reads the worker's peak RSS once the pool has shut down.

Run: PYTHONPATH=. .venv/bin/python -m bench.worker_memory GAME OPTIONS_JSON hint|LEVEL
e.g. ... hotwire '{"size": "26x26", "lengths": "1-6"}' hint
The last line: "ai: worker peak N MB (GAME, hint|LEVEL, S s)".
"""

from __future__ import annotations

import asyncio
import json
import resource
import sys
import time
from functools import partial

from bot.schedule.airunner import AI_NICENESS, HINT_SECONDS
from bot.service.looks.analysis import judge
from bot.service.play.aiplayer import think
from bot.workers import Lane


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def measure(game: str, options: dict[str, object], search: str) -> str:
    lane = Lane("ai", 1, AI_NICENESS)
    idle = await lane.run(_peak_mb)
    began = time.perf_counter()
    if search == "hint":
        await lane.run(partial(judge, game, options, (), HINT_SECONDS, None))
    else:
        await lane.run(partial(think, game, options, (), search))
    took = time.perf_counter() - began
    lane.close()
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"idle worker {idle:.0f} MB")
    return f"ai: worker peak {peak:.0f} MB ({game}, {search}, {took:.1f} s)"


if __name__ == "__main__":
    name, raw, kind = sys.argv[1:4]
    print(asyncio.run(measure(name, json.loads(raw), kind)))
