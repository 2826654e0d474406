"""the bot as a player: seats record a bot's level; the AI's work queue (moves, analyses, hints)

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-23
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    with op.batch_alter_table("seats", schema=None) as batch_op:
        batch_op.add_column(sa.Column("bot_level", sa.String(length=12), nullable=True))
    op.create_table(
        "ai_jobs",
        sa.Column("id", ID, nullable=False),
        sa.Column("game_id", ID, nullable=False),
        sa.Column("kind", sa.String(length=12), nullable=False),
        sa.Column("ply", sa.Integer(), nullable=False),
        sa.Column("requested_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("claimed_by", sa.String(length=64), nullable=True),
        sa.Column("claimed_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("attempts", sa.SmallInteger(), server_default="0", nullable=False),
        sa.Column("done", sa.Boolean(), server_default="0", nullable=False),
        sa.Column("progress", sa.Integer(), server_default="0", nullable=False),
        sa.Column("total", sa.Integer(), server_default="0", nullable=False),
        sa.Column("result", sa.JSON(), nullable=True),
        sa.Column("png", sa.LargeBinary(), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("game_id", "kind", "ply", name="one_ai_job_per_position"),
    )
    with op.batch_alter_table("ai_jobs", schema=None) as batch_op:
        batch_op.create_index("ai_jobs_waiting", ["done", "requested_at"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("ai_jobs", schema=None) as batch_op:
        batch_op.drop_index("ai_jobs_waiting")
    op.drop_table("ai_jobs")
    with op.batch_alter_table("seats", schema=None) as batch_op:
        batch_op.drop_column("bot_level")
