"""game ids are BIGINT: games.id and every column that holds one

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-23

PostgreSQL's INTEGER stops at 2**31 - 1, so a game id past it (one typed in a
command, or a busy server's sequence) failed in the driver. SQLite's INTEGER
already holds 64 bits, and games.id is its rowid (INTEGER PRIMARY KEY, which a
BIGINT column would not be), so SQLite keeps its columns: rebuilding `games` there
would also trip the foreign keys that point at it.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

#: (table, column): the ids, then every column that refers to a game.
COLUMNS = (
    ("games", "id"),
    ("deadlines", "id"),
    ("games", "rematch_of"),
    ("seats", "game_id"),
    ("moves", "game_id"),
    ("deadlines", "game_id"),
)
SEQUENCES = (("games", "id"), ("deadlines", "id"))


def upgrade() -> None:
    _change(sa.Integer(), sa.BigInteger(), "bigint")


def downgrade() -> None:
    _change(sa.BigInteger(), sa.Integer(), "integer")


def _change(old: sa.types.TypeEngine[int], new: sa.types.TypeEngine[int], sql: str) -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    for table, column in COLUMNS:
        with op.batch_alter_table(table) as batch_op:
            batch_op.alter_column(column, existing_type=old, type_=new)
    for table, column in SEQUENCES:  # a serial's sequence has its own type and maximum
        sequence = op.get_bind().scalar(
            sa.text("SELECT pg_get_serial_sequence(:table, :column)"),
            {"table": table, "column": column},
        )
        op.execute(f"ALTER SEQUENCE {sequence} AS {sql}")
