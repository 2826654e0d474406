"""bank clocks: a game's time control and banks, a move's banks for an undo, a player's
auto-vacation and weekend pause, an event's time control and its word on auto-vacation

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-27
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.add_column(sa.Column("time_control", sa.String(length=32), nullable=True))
        batch_op.add_column(sa.Column("banks", sa.JSON(), nullable=True))
        batch_op.add_column(
            sa.Column("clock_started_at", sa.DateTime(timezone=True), nullable=True)
        )
        batch_op.add_column(
            sa.Column("grace_microseconds", sa.BigInteger(), server_default="0", nullable=False)
        )
    with op.batch_alter_table("moves", schema=None) as batch_op:
        batch_op.add_column(sa.Column("banks", sa.JSON(), nullable=True))
    with op.batch_alter_table("players", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("auto_vacation", sa.Boolean(), server_default="1", nullable=False)
        )
        batch_op.add_column(sa.Column("weekend", sa.String(length=8), nullable=True))
    with op.batch_alter_table("tournaments", schema=None) as batch_op:
        batch_op.add_column(sa.Column("time_control", sa.String(length=32), nullable=True))
        batch_op.add_column(
            sa.Column("auto_vacation", sa.Boolean(), server_default="1", nullable=False)
        )


def downgrade() -> None:
    with op.batch_alter_table("tournaments", schema=None) as batch_op:
        batch_op.drop_column("auto_vacation")
        batch_op.drop_column("time_control")
    with op.batch_alter_table("players", schema=None) as batch_op:
        batch_op.drop_column("weekend")
        batch_op.drop_column("auto_vacation")
    with op.batch_alter_table("moves", schema=None) as batch_op:
        batch_op.drop_column("banks")
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_column("grace_microseconds")
        batch_op.drop_column("clock_started_at")
        batch_op.drop_column("banks")
        batch_op.drop_column("time_control")
