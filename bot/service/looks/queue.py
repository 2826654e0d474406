"""The next-game queue: the games where it is a player's move, least time left first;
and a player's games on every server, in that order (their home page on the web)."""

from __future__ import annotations

import sqlalchemy as sa

from bot.service.core.models import GameSummary, NextGame, PlayerGames, Refused, ServiceCode
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
#: A player's games under way and challenges to them on every server, the queue's order
#: first (games without a clock last), at most `MINE` (seats_by_player).
_MINE = (
    sa.select(games.c.id, games.c.status, games.c.to_move, seats.c.seat, seats.c.accepted)
    .select_from(seats.join(games, games.c.id == seats.c.game_id))
    .where(seats.c.player_id == sa.bindparam("player_id"), games.c.status.in_(("active", "open")))
    .order_by(games.c.deadline_at.is_(None), games.c.deadline_at, games.c.id)
)
#: The most games a player's home page lists.
MINE = 200


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

    async def everywhere(self, player_id: int) -> PlayerGames:
        """The player's games on every server: those waiting for their move, least time
        left first (`next_game`'s order), their other games under way, and the challenges
        waiting for their answer (not yet expired)."""
        check_ids(player_id)
        on_move: list[GameSummary] = []
        under_way: list[GameSummary] = []
        challenges: list[GameSummary] = []
        async with self.db.read() as conn:
            rows = (await conn.execute(_MINE.limit(MINE), {"player_id": player_id})).all()
            for row in rows:
                if row.status == "open" and row.accepted:
                    continue  # their own challenge, or one they took: waiting for others
                summary = await self.records.summary(conn, row.id)
                if row.status == "open":
                    if summary.expires_at is None or summary.expires_at > self.records.clock():
                        challenges.append(summary)
                else:
                    (on_move if row.to_move == row.seat else under_way).append(summary)
        return PlayerGames(tuple(on_move), tuple(under_way), tuple(challenges))
