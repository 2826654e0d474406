"""web sign-in: sessions, one-time sign-in links and OAuth2 states

Revision ID: 0017
Revises: 0016
Create Date: 2026-11-29
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0017"
down_revision: str | None = "0016"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "web_sessions",
        sa.Column("key", sa.String(length=64), nullable=False),
        sa.Column("player_id", sa.BigInteger(), nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("csrf", sa.String(length=64), nullable=False),
        sa.Column("via", sa.String(length=12), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("seen_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("key"),
    )
    with op.batch_alter_table("web_sessions", schema=None) as batch_op:
        batch_op.create_index("web_sessions_by_player", ["player_id"], unique=False)
        batch_op.create_index("web_sessions_by_age", ["seen_at"], unique=False)
    op.create_table(
        "web_signins",
        sa.Column("key", sa.String(length=64), nullable=False),
        sa.Column("kind", sa.String(length=12), nullable=False),
        sa.Column("player_id", sa.BigInteger(), nullable=True),
        sa.Column("name", sa.String(length=100), nullable=True),
        sa.Column("secret", sa.String(length=128), nullable=True),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("used", sa.Boolean(), server_default="0", nullable=False),
        sa.PrimaryKeyConstraint("key"),
    )
    with op.batch_alter_table("web_signins", schema=None) as batch_op:
        batch_op.create_index("web_signins_by_expiry", ["expires_at"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("web_signins", schema=None) as batch_op:
        batch_op.drop_index("web_signins_by_expiry")
    op.drop_table("web_signins")
    with op.batch_alter_table("web_sessions", schema=None) as batch_op:
        batch_op.drop_index("web_sessions_by_age")
        batch_op.drop_index("web_sessions_by_player")
    op.drop_table("web_sessions")
