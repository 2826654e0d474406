"""check constraints: no negative plies, seats 0-7, known statuses, hours 0-23

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-23
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# As in bot/store/schema.py when this revision was written (migrations keep their own copy).
CHECKS: dict[str, tuple[tuple[str, str], ...]] = {
    "games": (
        ("games_ply_not_negative", "ply >= 0"),
        ("games_to_move_is_a_seat", "to_move IS NULL OR to_move BETWEEN 0 AND 7"),
        ("games_undo_seat_is_a_seat", "undo_seat IS NULL OR undo_seat BETWEEN 0 AND 7"),
        (
            "games_known_status",
            "status IN ('open', 'active', 'finished', 'aborted', 'declined', 'cancelled', "
            "'expired')",
        ),
    ),
    "seats": (("seats_seat_in_range", "seat BETWEEN 0 AND 7"),),
    "moves": (
        ("moves_ply_not_negative", "ply >= 0"),
        ("moves_seat_in_range", "seat BETWEEN 0 AND 7"),
    ),
    "deadlines": (("deadlines_ply_not_negative", "ply >= 0"),),
    "players": (
        ("players_quiet_start_an_hour", "quiet_start IS NULL OR quiet_start BETWEEN 0 AND 23"),
        ("players_quiet_end_an_hour", "quiet_end IS NULL OR quiet_end BETWEEN 0 AND 23"),
    ),
    "ratings": (("ratings_wins_within_games", "wins >= 0 AND wins <= games"),),
}


def upgrade() -> None:
    for table, checks in CHECKS.items():
        with op.batch_alter_table(table, schema=None) as batch_op:
            for name, condition in checks:
                batch_op.create_check_constraint(name, condition)


def downgrade() -> None:
    for table, checks in CHECKS.items():
        with op.batch_alter_table(table, schema=None) as batch_op:
            for name, _ in checks:
                batch_op.drop_constraint(name, type_="check")
