"""initial schema

Revision ID: 0001
Revises:
Create Date: 2026-11-21
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:

    op.create_table(
        "games",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("channel_id", sa.BigInteger(), nullable=False),
        sa.Column("thread_id", sa.BigInteger(), nullable=True),
        sa.Column("message_id", sa.BigInteger(), nullable=True),
        sa.Column("game", sa.String(length=32), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("rules_version", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=12), nullable=False),
        sa.Column("ply", sa.Integer(), server_default="0", nullable=False),
        sa.Column("to_move", sa.Integer(), nullable=True),
        sa.Column("challenger_id", sa.BigInteger(), nullable=False),
        sa.Column("days_per_move", sa.Integer(), nullable=True),
        sa.Column("first", sa.String(length=12), nullable=False),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("deadline_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("undo_seat", sa.SmallInteger(), nullable=True),
        sa.Column("undo_ply", sa.Integer(), nullable=True),
        sa.Column("undo_approvals", sa.JSON(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("winners", sa.JSON(), nullable=True),
        sa.Column("reason", sa.String(length=20), nullable=True),
        sa.Column("scores", sa.JSON(), nullable=True),
        sa.Column("rematch_of", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(
            ["rematch_of"],
            ["games.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.create_index("games_by_guild_status", ["guild_id", "status"], unique=False)
        batch_op.create_index("games_by_status_expiry", ["status", "expires_at"], unique=False)
        batch_op.create_index("games_by_thread", ["thread_id"], unique=False)

    op.create_table(
        "guild_settings",
        sa.Column("guild_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("channels", sa.JSON(), nullable=False),
        sa.Column("days_per_move", sa.Integer(), nullable=True),
        sa.Column("rated", sa.Boolean(), server_default="1", nullable=False),
        sa.PrimaryKeyConstraint("guild_id"),
    )
    op.create_table(
        "players",
        sa.Column("id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("reminders", sa.String(length=10), server_default="thread", nullable=False),
        sa.Column("time_zone", sa.String(length=64), server_default="UTC", nullable=False),
        sa.Column("quiet_start", sa.SmallInteger(), nullable=True),
        sa.Column("quiet_end", sa.SmallInteger(), nullable=True),
        sa.Column("vacation_days_left", sa.Float(), server_default="14", nullable=False),
        sa.Column("vacation_year", sa.Integer(), nullable=True),
        sa.Column("vacation_since", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_table(
        "deadlines",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("ply", sa.Integer(), nullable=False),
        sa.Column("due_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("claimed_by", sa.String(length=64), nullable=True),
        sa.Column("claimed_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("done", sa.Boolean(), server_default="0", nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"],
            ["games.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("game_id", "kind", name="one_deadline_of_a_kind"),
    )
    with op.batch_alter_table("deadlines", schema=None) as batch_op:
        batch_op.create_index("deadlines_due", ["done", "due_at"], unique=False)

    op.create_table(
        "moves",
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("ply", sa.Integer(), nullable=False),
        sa.Column("seat", sa.SmallInteger(), nullable=False),
        sa.Column("text", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"],
            ["games.id"],
        ),
        sa.PrimaryKeyConstraint("game_id", "ply"),
    )
    op.create_table(
        "ratings",
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("game", sa.String(length=32), nullable=False),
        sa.Column("player_id", sa.BigInteger(), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), server_default="0", nullable=False),
        sa.Column("wins", sa.Integer(), server_default="0", nullable=False),
        sa.Column("streak", sa.Integer(), server_default="0", nullable=False),
        sa.Column("best_streak", sa.Integer(), server_default="0", nullable=False),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["players.id"],
        ),
        sa.PrimaryKeyConstraint("guild_id", "game", "player_id"),
    )
    op.create_table(
        "seats",
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("seat", sa.SmallInteger(), nullable=False),
        sa.Column("player_id", sa.BigInteger(), nullable=True),
        sa.Column("accepted", sa.Boolean(), server_default="0", nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"],
            ["games.id"],
        ),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["players.id"],
        ),
        sa.PrimaryKeyConstraint("game_id", "seat"),
    )
    with op.batch_alter_table("seats", schema=None) as batch_op:
        batch_op.create_index("seats_by_player", ["player_id"], unique=False)


def downgrade() -> None:

    with op.batch_alter_table("seats", schema=None) as batch_op:
        batch_op.drop_index("seats_by_player")

    op.drop_table("seats")
    op.drop_table("ratings")
    op.drop_table("moves")
    with op.batch_alter_table("deadlines", schema=None) as batch_op:
        batch_op.drop_index("deadlines_due")

    op.drop_table("deadlines")
    op.drop_table("players")
    op.drop_table("guild_settings")
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_index("games_by_thread")
        batch_op.drop_index("games_by_status_expiry")
        batch_op.drop_index("games_by_guild_status")

    op.drop_table("games")
