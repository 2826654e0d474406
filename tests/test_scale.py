"""Several processes on one PostgreSQL: real processes starting together."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa
from alembic.config import Config
from alembic.script import ScriptDirectory

from bot.store import Database
from bot.store.database import MIGRATIONS
from tests.conftest import fresh_database
from tests.fleet import fleet_on


async def test_processes_starting_together_on_a_fresh_database_all_start(tmp_path: Path) -> None:
    """What systemd or compose does: every unit at once, the schema not there yet."""
    async with fresh_database() as url, fleet_on(url, tmp_path) as fleet:
        consoles = {f"console-{n}": (["run", "--console"], {"PROCESS_NAME": f"console-{n}"})
                    for n in range(4)}  # fmt: skip
        workers = {f"worker-{n}": (["worker"], {"PROCESS_NAME": f"worker-{n}"}) for n in range(2)}
        await fleet.start({**consoles, **workers})
        for name in workers:
            await fleet[name].printed("started with")
            fleet[name].stop()
        for name in [*consoles, *workers]:
            assert await fleet[name].ended() == 0, fleet.report()
        database = await Database.open(url)  # up to date: nothing left to do
        try:
            async with database.read() as conn:
                version = await conn.scalar(sa.text("SELECT version_num FROM alembic_version"))
            config = Config()
            config.set_main_option("script_location", str(MIGRATIONS))
            assert version == ScriptDirectory.from_config(config).get_current_head()
        finally:
            await database.close()
    assert not fleet.failed(), fleet.report()
