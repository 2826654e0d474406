"""the web pages: a server's (off, public, or reachable through an unguessable link) and
whether a player's own page is shown

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-27
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# As in bot/store/schema.py when this revision was written (migrations keep their own copy).
CHECKS: dict[str, tuple[tuple[str, str], ...]] = {
    "guild_settings": (("guild_settings_web_mode", "web IN ('off', 'public', 'link')"),),
}


def upgrade() -> None:
    with op.batch_alter_table("guild_settings", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("web", sa.String(length=8), server_default="off", nullable=False)
        )
        batch_op.add_column(sa.Column("web_token", sa.String(length=32), nullable=True))
        batch_op.create_unique_constraint("guild_settings_one_web_token", ["web_token"])
        for name, condition in CHECKS["guild_settings"]:
            batch_op.create_check_constraint(name, condition)
    with op.batch_alter_table("players", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("web_profile", sa.Boolean(), server_default="1", nullable=False)
        )


def downgrade() -> None:
    with op.batch_alter_table("players", schema=None) as batch_op:
        batch_op.drop_column("web_profile")
    with op.batch_alter_table("guild_settings", schema=None) as batch_op:
        for name, _ in CHECKS["guild_settings"]:
            batch_op.drop_constraint(name, type_="check")
        batch_op.drop_constraint("guild_settings_one_web_token", type_="unique")
        batch_op.drop_column("web_token")
        batch_op.drop_column("web")
