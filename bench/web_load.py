"""bench.web's load, run as another process (--drive): board pictures asked once each, then
requests at fixed times (open loop) mixing game pages, cached boards and 304s."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import aiohttp

from bench.discord_e2e import percentile

MIX = {"page": 0.5, "board": 0.25, "board 304": 0.25}
EXPECTED = {"page": 200, "board": 200, "board 304": 304}
KINDS = tuple(MIX)
TIMEOUT = 10.0


# == the load: another process ===================================================================


async def drive(plan: dict[str, Any]) -> dict[str, Any]:
    """Warm `boards` board pictures, print `ready`, then the open-loop load: each kind's
    latencies (ms, from when the request was due) and its answers not as expected."""
    rng = random.Random(plan["seed"])
    base, targets = plan["base"], plan["games"]
    ms: dict[str, list[float]] = {kind: [] for kind in KINDS}
    errors: dict[str, int] = dict.fromkeys(KINDS, 0)
    timeout = aiohttp.ClientTimeout(total=TIMEOUT)
    async with aiohttp.ClientSession(base, timeout=timeout) as session:
        boards = await warm_boards(session, rng, targets, plan["boards"])
        print("ready", flush=True)
        loop = asyncio.get_running_loop()

        async def ask(kind: str, path: str, headers: dict[str, str], due: float) -> None:
            late.append((loop.time() - due) * 1e3)
            try:
                async with session.get(path, headers=headers, allow_redirects=False) as answer:
                    await answer.read()
                    good = answer.status == EXPECTED[kind]
            except (aiohttp.ClientError, TimeoutError):
                good = False
            if good:
                ms[kind].append((loop.time() - due) * 1e3)
            else:
                errors[kind] += 1

        sent = []
        late: list[float] = []  # how late each request left (this process's own lag)
        start = loop.time() + 0.05
        for n in range(round(plan["rate"] * plan["seconds"])):
            due = start + n / plan["rate"]
            if (ahead := due - loop.time()) > 0:
                await asyncio.sleep(ahead)
            kind = rng.choices(KINDS, weights=[MIX[k] for k in KINDS])[0]
            if kind == "page":
                path, plies = rng.choice(targets)
                path, headers = f"{path}?ply={rng.randint(0, plies)}", {}
            else:
                path, tag = rng.choice(boards)
                headers = {"If-None-Match": f'"{tag}"'} if kind == "board 304" else {}
                path = f"{path}?v={tag}"
            sent.append(asyncio.create_task(ask(kind, path, headers, due)))
        await asyncio.gather(*sent)
    late.sort()
    return {"ms": ms, "errors": errors, "late": percentile(late, 0.99)}


async def warm_boards(
    session: aiohttp.ClientSession, rng: random.Random, targets: list[Any], count: int
) -> list[tuple[str, str]]:
    """`count` boards asked once each (four at a time): their paths and versions."""
    picked = []
    for path, plies in rng.sample(targets, count):
        picked.append(f"{path}/board/{rng.randint(0, plies)}.png")
    gate = asyncio.Semaphore(4)

    async def first(path: str) -> tuple[str, str]:
        async with gate, session.get(path) as answer:
            await answer.read()
            assert answer.status == 200, (path, answer.status)
            return path, answer.headers["ETag"].strip('"')

    return list(await asyncio.gather(*(first(path) for path in picked)))
