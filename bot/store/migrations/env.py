"""Alembic environment: run by bot.store.database.migrate() on a live connection,
or by the `alembic` command (alembic.ini at the top level) for new revisions."""

from __future__ import annotations

from alembic import context
from sqlalchemy import Connection, create_engine

from bot.store.schema import metadata


def run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=metadata,
        render_as_batch=connection.dialect.name == "sqlite",  # ALTER TABLE on SQLite
    )
    with context.begin_transaction():
        context.run_migrations()


connection = context.config.attributes.get("connection")
if connection is not None:
    run(connection)
else:
    engine = create_engine(context.config.get_main_option("sqlalchemy.url") or "")
    with engine.begin() as connection:
        run(connection)
