"""play by email: players' mail addresses, the mails the outbox sent, servers that let
players in by mail

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-27
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "mail_addresses",
        sa.Column("player_id", sa.BigInteger(), nullable=False),
        sa.Column("address", sa.String(length=254), nullable=False),
        sa.Column("confirmed", sa.Boolean(), server_default="0", nullable=False),
        sa.Column("code", sa.String(length=12), nullable=True),
        sa.Column("code_mailed", sa.Boolean(), server_default="0", nullable=False),
        sa.Column("code_expires_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("bounced_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("guild_id", sa.BigInteger(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"]),
        sa.PrimaryKeyConstraint("player_id"),
        sa.UniqueConstraint("address", name="one_player_per_address"),
    )
    op.create_table(
        "mails_sent",
        sa.Column(
            "outbox_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False
        ),
        sa.Column("address", sa.String(length=254), nullable=False),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("outbox_id", "address"),
    )
    with op.batch_alter_table("guild_settings", schema=None) as batch_op:
        batch_op.add_column(sa.Column("email", sa.Boolean(), server_default="0", nullable=False))
        batch_op.add_column(sa.Column("email_channel", sa.BigInteger(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("guild_settings", schema=None) as batch_op:
        batch_op.drop_column("email_channel")
        batch_op.drop_column("email")
    op.drop_table("mails_sent")
    op.drop_table("mail_addresses")
