"""bench.web --cpu: what one request costs the bot's process (CPU time over N requests of each
kind, sent one after another by another process, no mover, no load beside them)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp

from bench.web_load import warm_boards
from bench.web_serving import serving
from bot.service.web import pages as service_web

# == CPU per request ==============================================================================

#: The kinds `--cpu` measures: (name, the row read again each time).
CPU_KINDS = (
    ("page kept", False),
    ("page kept, row read again", True),
    ("page not kept", True),
    ("board ?v=", False),
    ("board ?v=, row read again", True),
    ("board 304", False),
    ("board 304, row read again", True),
)
KEPT_GAMES = 100


async def cpu_costs(url: str, args: argparse.Namespace, backend: str) -> dict[str, float]:
    """ms of the process's CPU per request of each of CPU_KINDS (`--cpu` requests each),
    sent one after another by the probe process."""
    with restored(service_web, "FRESH_SECONDS"):
        async with serving(url, args, backend) as served:
            with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as plan:
                json.dump(
                    {"base": served.settings.site_url, "games": served.targets, "count": args.cpu,
                     "boards": args.boards, "seed": 1, "kinds": [kind for kind, _ in CPU_KINDS]},
                    plan,
                )  # fmt: skip
            probe = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "bench.web", "--probe", plan.name,
                stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            )  # fmt: skip
            assert probe.stdin is not None and probe.stdout is not None
            costs = {}
            for kind, again in CPU_KINDS:
                assert (await probe.stdout.readline()).decode().strip() == kind
                service_web.FRESH_SECONDS = 0.0 if again else 3600.0
                began, looped = time.process_time(), time.thread_time()
                probe.stdin.write(b"go\n")
                await probe.stdin.drain()
                count = int(await probe.stdout.readline())
                costs[kind] = (time.process_time() - began) * 1e3 / count
                costs[kind + " (loop)"] = (time.thread_time() - looped) * 1e3 / count
                print(
                    f"  {backend}: {kind}: {costs[kind]:.2f} ms CPU a request "
                    f"({costs[kind + ' (loop)']:.2f} ms of it the loop's thread)",
                    flush=True,
                )
            await probe.wait()
            Path(plan.name).unlink()
            return costs


@contextlib.contextmanager
def restored(module: Any, name: str) -> Iterator[None]:
    """`module.name` as it was, whatever is done to it inside."""
    was = getattr(module, name)
    try:
        yield
    finally:
        setattr(module, name, was)


async def probe(plan: dict[str, Any]) -> None:
    """The other side of `cpu_costs`: for each kind, warm what it needs, print its name,
    wait for `go`, send its requests one after another, print how many."""
    rng = random.Random(plan["seed"])
    targets, count = plan["games"], plan["count"]
    reader = asyncio.StreamReader()
    loop = asyncio.get_running_loop()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    async with aiohttp.ClientSession(plan["base"]) as session:

        async def get(path: str, headers: dict[str, str], status: int) -> None:
            async with session.get(path, headers=headers, allow_redirects=False) as answer:
                await answer.read()
                assert answer.status == status, (path, answer.status)

        rng.shuffle(targets)
        kept, cold = targets[:KEPT_GAMES], targets[KEPT_GAMES:]
        for path, _ in kept:
            await get(path, {}, 200)
        boards = await warm_boards(session, rng, kept, min(plan["boards"], len(kept)))
        for kind in plan["kinds"]:
            asked: list[tuple[str, dict[str, str], int]] = []
            for _ in range(count):
                if kind.startswith("page"):
                    path, plies = rng.choice(kept) if kind.startswith("page kept") else cold.pop()
                    asked.append((f"{path}?ply={rng.randint(0, plies)}", {}, 200))
                else:
                    path, tag = rng.choice(boards)
                    if "304" in kind:
                        asked.append((f"{path}?v={tag}", {"If-None-Match": f'"{tag}"'}, 304))
                    else:
                        asked.append((f"{path}?v={tag}", {}, 200))
            print(kind, flush=True)
            assert (await reader.readline()).strip() == b"go"
            for path, headers, status in asked:
                await get(path, headers, status)
            print(len(asked), flush=True)
