"""deadline leases and vacations: indexes for the scheduler

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("deadlines", schema=None) as batch_op:
        batch_op.create_index("deadlines_claimed", ["claimed_until"], unique=False)

    with op.batch_alter_table("players", schema=None) as batch_op:
        batch_op.create_index("players_on_vacation", ["vacation_since"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("players", schema=None) as batch_op:
        batch_op.drop_index("players_on_vacation")

    with op.batch_alter_table("deadlines", schema=None) as batch_op:
        batch_op.drop_index("deadlines_claimed")
