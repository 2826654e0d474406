"""The next-game queue: the games where it is a player's move, least time left first."""

from __future__ import annotations

import sqlalchemy as sa

from bot.service.core.models import NextGame, Refused, ServiceCode
from bot.service.core.records import Records
from bot.service.core.rules import check_ids, seat_names_now
from bot.store.schema import games, seats

#: The games where the player is to move, by time left (games without a clock last).
_ON_MOVE = (
    sa.select(games.c.id)
    .select_from(
        games.join(seats, sa.and_(seats.c.game_id == games.c.id, seats.c.seat == games.c.to_move))
    )
    .where(
        games.c.guild_id == sa.bindparam("guild_id"),
        games.c.status == "active",
        seats.c.player_id == sa.bindparam("player_id"),
    )
    .order_by(games.c.deadline_at.is_(None), games.c.deadline_at, games.c.id)
)


class Queue:
    """The use case of the next-game queue."""

    def __init__(self, records: Records) -> None:
        self.records = records
        self.db = records.db

    async def next_game(
        self, guild_id: int, player_id: int, *, after: int | None = None
    ) -> NextGame:
        """The game where the player has least time left among those where it is their
        move, with its board; `after`: the one following that game in the queue (the
        first again after the last, or when that game is no longer waiting for them)."""
        check_ids(guild_id, player_id, *(() if after is None else (after,)))
        async with self.db.read() as conn:
            waiting = list(
                await conn.scalars(_ON_MOVE, {"guild_id": guild_id, "player_id": player_id})
            )
            if not waiting:
                raise Refused("No game here is waiting for your move.", code=ServiceCode.NO_GAME)
            position = waiting.index(after) + 1 if after in waiting else 0
            position %= len(waiting)
            row = await self.records.game_row(conn, waiting[position], guild_id)
            summary = await self.records.summary(conn, row.id, row)
            state = await self.records.load_state(conn, row)
        summary = seat_names_now(summary, state)
        png = await self.records.render(row.id, state, summary, groups=False)
        return NextGame(summary, png, position + 1, len(waiting))
