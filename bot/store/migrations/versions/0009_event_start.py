"""events: a limit on entries and an automatic start (when N have joined, or at a time)

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-27
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("tournaments", schema=None) as batch_op:
        batch_op.add_column(sa.Column("max_players", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("start_players", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("starts_at", sa.DateTime(timezone=True), nullable=True))
        batch_op.create_index("tournaments_by_start", ["status", "starts_at"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("tournaments", schema=None) as batch_op:
        batch_op.drop_index("tournaments_by_start")
        batch_op.drop_column("starts_at")
        batch_op.drop_column("start_players")
        batch_op.drop_column("max_players")
