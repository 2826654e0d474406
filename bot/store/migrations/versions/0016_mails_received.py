"""inbound mail by Message-ID: claimed while it is handled, marked once handled

Revision ID: 0016
Revises: 0015
Create Date: 2026-11-28
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0016"
down_revision: str | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "mails_received",
        sa.Column("key", sa.String(length=64), nullable=False),
        sa.Column("received_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("claimed_by", sa.String(length=64), nullable=True),
        sa.Column("claimed_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("handled", sa.Boolean(), server_default="0", nullable=False),
        sa.PrimaryKeyConstraint("key"),
    )
    with op.batch_alter_table("mails_received", schema=None) as batch_op:
        batch_op.create_index("mails_received_by_age", ["received_at"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("mails_received", schema=None) as batch_op:
        batch_op.drop_index("mails_received_by_age")
    op.drop_table("mails_received")
