"""events: tournaments, their entrants, rounds and pairings; a game's event and round;
who may run events on a server (guild_settings.tournaments)

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-27
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
#: The checks of the new tables, as in bot/store/schema.py (tests/test_store.py compares).
CHECKS: dict[str, tuple[tuple[str, str], ...]] = {
    "tournaments": (
        (
            "tournaments_known_status",
            "status IN ('open', 'active', 'finished', 'cancelled')",
        ),
        ("tournaments_round_not_negative", "round >= 0"),
    ),
}


def upgrade() -> None:
    op.create_table(
        "tournaments",
        sa.Column("id", ID, nullable=False),
        sa.Column("guild_id", sa.BigInteger(), nullable=False),
        sa.Column("channel_id", sa.BigInteger(), nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("game", sa.String(length=32), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("format", sa.String(length=12), nullable=False),
        sa.Column("rounds", sa.Integer(), nullable=True),
        sa.Column("match_games", sa.SmallInteger(), nullable=True),
        sa.Column("double", sa.Boolean(), server_default="0", nullable=False),
        sa.Column("days_per_move", sa.Integer(), nullable=True),
        sa.Column("vacations", sa.Boolean(), server_default="1", nullable=False),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("organizer_id", sa.BigInteger(), nullable=False),
        sa.Column("status", sa.String(length=12), nullable=False),
        sa.Column("round", sa.Integer(), server_default="0", nullable=False),
        sa.Column("seed", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        *(sa.CheckConstraint(check, name=name) for name, check in CHECKS["tournaments"]),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("tournaments", schema=None) as batch_op:
        batch_op.create_index("tournaments_by_guild_status", ["guild_id", "status"], unique=False)
    op.create_table(
        "entrants",
        sa.Column("tournament_id", ID, nullable=False),
        sa.Column("player_id", sa.BigInteger(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("bot_level", sa.String(length=12), nullable=True),
        sa.Column("rating", sa.Float(), server_default="0", nullable=False),
        sa.Column("withdrawn", sa.Boolean(), server_default="0", nullable=False),
        sa.Column("division", sa.SmallInteger(), nullable=True),
        sa.Column("place", sa.Integer(), nullable=True),
        sa.Column("joined_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"]),
        sa.ForeignKeyConstraint(["tournament_id"], ["tournaments.id"]),
        sa.PrimaryKeyConstraint("tournament_id", "player_id"),
    )
    op.create_table(
        "tournament_rounds",
        sa.Column("tournament_id", ID, nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("bye_id", sa.BigInteger(), nullable=True),
        sa.Column("matches", sa.JSON(), nullable=True),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["tournament_id"], ["tournaments.id"]),
        sa.PrimaryKeyConstraint("tournament_id", "number"),
    )
    op.create_table(
        "pairings",
        sa.Column("id", ID, nullable=False),
        sa.Column("tournament_id", ID, nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("division", sa.SmallInteger(), server_default="0", nullable=False),
        sa.Column("match", sa.SmallInteger(), nullable=True),
        sa.Column("first_id", sa.BigInteger(), nullable=False),
        sa.Column("second_id", sa.BigInteger(), nullable=False),
        sa.Column("game_id", ID, nullable=True),
        sa.Column("done", sa.Boolean(), server_default="0", nullable=False),
        sa.Column("winner_id", sa.BigInteger(), nullable=True),
        sa.Column("finish", sa.String(length=8), nullable=True),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"]),
        sa.ForeignKeyConstraint(["tournament_id"], ["tournaments.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("game_id", name="one_pairing_per_game"),
    )
    with op.batch_alter_table("pairings", schema=None) as batch_op:
        batch_op.create_index("pairings_by_round", ["tournament_id", "round", "done"], unique=False)
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.add_column(sa.Column("tournament_id", ID, nullable=True))
        batch_op.add_column(sa.Column("tournament_round", sa.Integer(), nullable=True))
    with op.batch_alter_table("guild_settings", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column(
                "tournaments", sa.String(length=12), server_default="managers", nullable=False
            )
        )


def downgrade() -> None:
    with op.batch_alter_table("guild_settings", schema=None) as batch_op:
        batch_op.drop_column("tournaments")
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_column("tournament_round")
        batch_op.drop_column("tournament_id")
    with op.batch_alter_table("pairings", schema=None) as batch_op:
        batch_op.drop_index("pairings_by_round")
    op.drop_table("pairings")
    op.drop_table("tournament_rounds")
    op.drop_table("entrants")
    with op.batch_alter_table("tournaments", schema=None) as batch_op:
        batch_op.drop_index("tournaments_by_guild_status")
    op.drop_table("tournaments")
