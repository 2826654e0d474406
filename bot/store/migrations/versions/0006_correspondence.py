"""correspondence: conditional moves (each player's lines for a game, answered in the
opponent's move); the misclick guard (players.confirm_moves); the daily digest
(players.digest_hour, digests: each player's next one, claimed like a deadline)

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-23
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "conditionals",
        sa.Column("game_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("player_id", sa.BigInteger(), nullable=False),
        sa.Column("ply", sa.Integer(), nullable=False),
        sa.Column("lines", sa.JSON(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"]),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"]),
        sa.PrimaryKeyConstraint("game_id", "player_id"),
    )
    with op.batch_alter_table("players", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("confirm_moves", sa.Boolean(), server_default="0", nullable=False)
        )
        batch_op.add_column(
            sa.Column("digest_hour", sa.SmallInteger(), server_default="8", nullable=False)
        )
    op.create_table(
        "digests",
        sa.Column("id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("due_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("claimed_by", sa.String(length=64), nullable=True),
        sa.Column("claimed_until", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["id"], ["players.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("digests", schema=None) as batch_op:
        batch_op.create_index("digests_due", ["due_at"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("digests", schema=None) as batch_op:
        batch_op.drop_index("digests_due")
    op.drop_table("digests")
    with op.batch_alter_table("players", schema=None) as batch_op:
        batch_op.drop_column("digest_hour")
        batch_op.drop_column("confirm_moves")
    op.drop_table("conditionals")
