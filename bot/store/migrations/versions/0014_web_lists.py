"""the web pages' lists: a server's games by status (or by game and status) and a
player's games, newest first, read from an index alone

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-27
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_index("games_by_guild_status")
        batch_op.create_index("games_by_guild_status", ["guild_id", "status", "id"], unique=False)
        batch_op.create_index(
            "games_by_guild_game", ["guild_id", "game", "status", "id"], unique=False
        )
    with op.batch_alter_table("seats", schema=None) as batch_op:
        batch_op.drop_index("seats_by_player")
        batch_op.create_index("seats_by_player", ["player_id", "game_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("seats", schema=None) as batch_op:
        batch_op.drop_index("seats_by_player")
        batch_op.create_index("seats_by_player", ["player_id"], unique=False)
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_index("games_by_guild_game")
        batch_op.drop_index("games_by_guild_status")
        batch_op.create_index("games_by_guild_status", ["guild_id", "status"], unique=False)
