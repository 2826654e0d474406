"""bench.web's store and server: 3,000 real games written into the bulk rows, and the bot's
process serving the pages on its own loop (pages on for every server, no rate limit)."""

from __future__ import annotations

import argparse
import contextlib
import random
import socket
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import sqlalchemy as sa

import engine
from bench.schedule import CHUNK
from bench.schedule import load as bulk_load
from bot.heap import LongLived
from bot.service import GameService, WebPlace
from bot.settings import Settings
from bot.store.schema import games, moves
from bot.web import urls
from bot.web.runner import start_web

#: The real games' kinds: (game, options).
REAL_KINDS: list[tuple[str, dict[str, object]]] = [
    ("hex", {"size": 11}),
    ("hotwire", {"size": "9x9"}),
    ("shortcircuit", {}),
]
GUILDS = range(1, 51)  # bench/schedule.py's servers: 1 + id % 50


# == the store ===================================================================================


async def real_games(service: GameService, count: int, total: int, active: int) -> list[Any]:
    """Give `count` of the bulk games real records: (page path, plies) of each."""
    rng = random.Random(32)
    finished_ids = rng.sample(range(1, total - active + 1), count * 4 // 5)
    active_ids = rng.sample(range(total - active + 1, total + 1), count - len(finished_ids))
    updates: list[dict[str, Any]] = []
    move_rows: list[dict[str, Any]] = []
    targets = []
    async with service.records.db.read() as conn:
        created = dict(
            (
                await conn.execute(
                    sa.select(games.c.id, games.c.created_at).where(
                        games.c.id.in_(finished_ids + active_ids)
                    )
                )
            ).all()
        )
    done = set(finished_ids)
    for game_id in finished_ids + active_ids:
        name, options = rng.choice(REAL_KINDS)
        final = engine.new(name, **options).random_playout(rng)
        live = game_id not in done
        record = final.moves[: rng.randrange(1, final.ply)] if live else final.moves
        state = engine.replay(name, final.options, record) if live else final
        outcome = state.outcome
        when = created[game_id]
        for ply, text in enumerate(record):
            when += timedelta(minutes=rng.uniform(5, 600))
            move_rows.append(
                {"game_id": game_id, "ply": ply, "seat": ply % 2, "text": text, "created_at": when}
            )
        updates.append(
            {
                "gid": game_id,
                "game": name,
                "options": dict(final.options),
                "ply": len(record),
                "to_move": state.to_move if outcome is None else None,
                "status": "finished" if outcome is not None else "active",
                "winners": None if outcome is None else list(outcome.winners),
                "reason": None if outcome is None else str(outcome.reason),
                "scores": None
                if outcome is None or outcome.scores is None
                else list(outcome.scores),
                "finished_at": None if outcome is None else when,
                "updated_at": when,
            }
        )
        place = WebPlace(1 + game_id % 50, "public")
        targets.append((urls.game(place, game_id), len(record)))
    bound = {key: sa.bindparam(key) for key in updates[0] if key != "gid"}
    async with service.records.db.write() as conn:
        await conn.execute(
            games.update().where(games.c.id == sa.bindparam("gid")).values(bound), updates
        )
    for start in range(0, len(move_rows), CHUNK):
        async with service.records.db.write() as conn:
            await conn.execute(moves.insert(), move_rows[start : start + CHUNK])
    if service.records.db.url.startswith("postgresql"):
        async with service.records.db.write() as conn:  # the bulk ids were explicit
            await conn.execute(
                sa.text("SELECT setval(pg_get_serial_sequence('games', 'id'), max(id)) FROM games")
            )
            await conn.execute(sa.text("ANALYZE"))
    return targets


@dataclass
class Served:
    """The bot's process as the benchmark runs it: the service, its pages' settings, and
    the real games' (page path, plies)."""

    service: GameService
    settings: Settings
    targets: list[Any]


@contextlib.asynccontextmanager
async def serving(url: str, args: argparse.Namespace, backend: str) -> AsyncIterator[Served]:
    """The store loaded (`args.games`, `args.real`), every server's pages on, the pages
    served on this loop; stopped and closed afterwards."""
    settings = Settings(  # type: ignore[call-arg]
        database_url=url, web_port=free_port(), web_rate_limit=0, max_active_games=10_000,
        _env_file=None,
    )  # fmt: skip
    service = await GameService.open(settings)
    stop_web = None
    try:
        began = time.perf_counter()
        await bulk_load(service, args.games, args.games // 10, 0, banks=False)
        targets = await real_games(service, args.real, args.games, args.games // 10)
        for guild in GUILDS:
            await service.preferences.guild_settings(guild, web="public")
        print(
            f"{backend}: {args.games:,} games, {len(targets):,} with records "
            f"({time.perf_counter() - began:.1f} s to load)",
            flush=True,
        )
        stop_web = await start_web(service, settings)
        assert stop_web is not None, "the web pages did not start"
        with LongLived():  # the loader's garbage collected, the heap kept as `paperboard run` does
            yield Served(service, settings, targets)
    finally:
        if stop_web is not None:
            await stop_web()
        await service.close()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])
