"""Lookups: a game, its board now or in the past, its record and GIF, the lists of
games, the game a command means when none is named, ratings and leaderboards.

Nothing here writes: every lookup reads outside the write lock.
"""

from __future__ import annotations

import sqlalchemy as sa

import engine
from bot.render import render_text
from bot.render.tables import columns
from bot.service.core import ratings
from bot.service.core.messages import game_info
from bot.service.core.models import (
    STATUSES,
    Board,
    GameSummary,
    RatingLine,
    Record,
    Refused,
    ServiceCode,
)
from bot.service.core.records import Records, replay
from bot.service.core.rules import (
    check_ids,
    check_ply,
    local_time,
    options_text,
    result_text,
    seat_names_now,
)
from bot.service.play.conditionals import no_conditionals
from bot.store.schema import games, moves, seats
from engine import GameState


class Lookups:
    """The use cases that read games and ratings."""

    def __init__(self, records: Records) -> None:
        self.records = records
        self.db = records.db
        self.painter = records.painter

    async def attach(
        self, game_id: int, *, thread_id: int | None = None, message_id: int | None = None
    ) -> None:
        """Remember where an adapter shows a game (its thread, its status message)."""
        values = {
            k: v for k, v in (("thread_id", thread_id), ("message_id", message_id)) if v is not None
        }
        if values:
            async with self.db.write() as conn:
                await conn.execute(games.update().where(games.c.id == game_id).values(**values))

    async def game(self, game_id: int, guild_id: int) -> GameSummary:
        check_ids(game_id, guild_id)
        async with self.db.read() as conn:
            row = await self.records.game_row(conn, game_id, guild_id)
            return await self.records.summary(conn, game_id, row)

    async def board(
        self,
        game_id: int,
        guild_id: int,
        *,
        ply: int | None = None,
        groups: bool = False,
        viewer_id: int | None = None,
    ) -> Board:
        """The picture of the game now, or after any ply; any game of this guild. Its
        deadline is written in the viewer's time zone (a board for one person), else in
        the zone of the player to move (a board everyone sees)."""
        summary, state = await self._position(game_id, guild_id, ply)
        zone_name = None if viewer_id is None else await self.time_zone(viewer_id)
        png = await self.records.render(game_id, state, summary, groups=groups, zone_name=zone_name)
        return Board(summary, state.ply, png, len(state.legal_moves()))

    async def board_text(self, game_id: int, guild_id: int, *, ply: int | None = None) -> str:
        """The board in characters with its status line, for terminals."""
        _, state = await self._position(game_id, guild_id, ply)
        return render_text(state)

    async def state(self, game_id: int, guild_id: int) -> GameState:
        """The engine state of a game (for tests and tools; adapters use move_hints)."""
        return (await self._position(game_id, guild_id, None))[1]

    async def move_hints(
        self, game_id: int, guild_id: int, player_id: int, prefix: str, *, limit: int = 25
    ) -> list[str]:
        """Legal moves starting like `prefix` (case, dashes and spaces aside), for
        autocomplete; none when it is not `player_id`'s turn."""
        summary, state = await self._position(game_id, guild_id, None)
        if summary.player_to_move != player_id:
            return []
        typed = " ".join(prefix.lower().replace("-", " ").split())
        legal = [move for move in state.legal_moves() if move.replace("-", " ").startswith(typed)]
        return legal[: max(0, limit)]

    async def _position(
        self, game_id: int, guild_id: int, ply: int | None
    ) -> tuple[GameSummary, GameState]:
        """A game and its position now, or after `ply` moves."""
        check_ids(game_id, guild_id)
        async with self.db.read() as conn:
            row = await self.records.game_row(conn, game_id, guild_id)
            summary = await self.records.summary(conn, game_id, row)
            state = await self.records.load_state(conn, row)
        check_ply(game_id, state.ply, ply)
        if ply is None or ply == state.ply:
            return seat_names_now(summary, state), state
        then = await replay(row.game, row.options, state.moves[:ply])
        return seat_names_now(summary, then), then

    async def games(
        self,
        guild_id: int,
        *,
        player_id: int | None = None,
        channel_id: int | None = None,
        status: str | None = None,
        viewer_id: int | None = None,
        limit: int = 100,
    ) -> list[GameSummary]:
        """Games of a guild: a player's, a channel's; the viewer's turn first."""
        if status is not None and status not in STATUSES:
            raise Refused(
                f"A game's status is one of {', '.join(STATUSES)}.", code=ServiceCode.BAD_STATUS
            )
        check_ids(guild_id, *(x for x in (player_id, channel_id, viewer_id) if x is not None))
        query = sa.select(games.c.id).where(games.c.guild_id == guild_id)
        if player_id is not None:
            query = query.where(
                games.c.id.in_(sa.select(seats.c.game_id).where(seats.c.player_id == player_id))
            )
        if channel_id is not None:
            query = query.where(
                sa.or_(games.c.channel_id == channel_id, games.c.thread_id == channel_id)
            )
        if status is not None:
            query = query.where(games.c.status == status)
        query = query.order_by(games.c.updated_at.desc()).limit(max(1, min(limit, 500)))
        async with self.db.read() as conn:
            ids = (await conn.scalars(query)).all()
            found = [await self.records.summary(conn, gid) for gid in ids]
        rank = {"active": 1, "open": 2}
        return sorted(
            found,
            key=lambda g: (
                0
                if viewer_id is not None and g.player_to_move == viewer_id
                else rank.get(g.status, 3),
            ),
        )

    async def game_in_thread(self, thread_id: int) -> GameSummary | None:
        async with self.db.read() as conn:
            game_id = await conn.scalar(sa.select(games.c.id).where(games.c.thread_id == thread_id))
            return None if game_id is None else await self.records.summary(conn, game_id)

    async def default_game(
        self,
        guild_id: int,
        player_id: int,
        thread_id: int | None,
        *,
        my_turn: bool = True,
        last_moved: bool = False,
    ) -> GameSummary:
        """The game a command means when none is named: the thread's; else your only game
        on move (for a move), or your only game under way (resign, board...), narrowed to
        the one on move when there are several; with `last_moved` (undo), the game where
        your last move was."""
        if thread_id is not None:
            found = await self.game_in_thread(thread_id)
            if found is not None and found.guild_id == guild_id:
                return found
        if last_moved:
            latest = await self._last_moved_in(guild_id, player_id)
            if latest is not None:
                return await self.game(latest, guild_id)
        active = await self.games(guild_id, player_id=player_id, status="active")
        on_move = [g for g in active if g.player_to_move == player_id]
        candidates = on_move if my_turn or (len(active) > 1 and on_move) else active
        return only_game(candidates, "waiting for your move" if my_turn else "under way")

    async def undo_requests_for(self, guild_id: int, player_id: int) -> list[GameSummary]:
        """The player's games under way where someone else's undo request waits for an
        answer."""
        check_ids(guild_id, player_id)
        query = (
            sa.select(games.c.id)
            .join(seats, seats.c.game_id == games.c.id)
            .where(
                games.c.guild_id == guild_id,
                games.c.status == "active",
                games.c.undo_ply == games.c.ply,
                seats.c.player_id == player_id,
                seats.c.seat != games.c.undo_seat,
            )
        )
        async with self.db.read() as conn:
            waiting = set((await conn.scalars(query)).all())
        active = await self.games(guild_id, player_id=player_id, status="active")
        return [game for game in active if game.id in waiting]

    async def undo_request(self, game_id: int, guild_id: int) -> tuple[int, int] | None:
        """The undo request in the game that waits for an answer: who asked, and the ply it
        holds for (a move since leaves it stale); None when none waits."""
        check_ids(game_id, guild_id)
        async with self.db.read() as conn:
            row = await self.records.game_row(conn, game_id, guild_id)
            if row.status != "active" or row.undo_seat is None or row.undo_ply != row.ply:
                return None
            summary = await self.records.summary(conn, game_id, row)
        asker = summary.seats[int(row.undo_seat)].player_id
        return None if asker is None else (asker, int(row.undo_ply))

    async def conditional_games(self, guild_id: int, player_id: int) -> list[GameSummary]:
        """The player's games under way that take conditional lines."""
        active = await self.games(guild_id, player_id=player_id, status="active")
        return [game for game in active if no_conditionals(game) is None]

    async def _last_moved_in(self, guild_id: int, player_id: int) -> int | None:
        """The game under way where the player's latest move was (passes aside)."""
        mine = moves.join(
            seats, sa.and_(seats.c.game_id == moves.c.game_id, seats.c.seat == moves.c.seat)
        ).join(games, games.c.id == moves.c.game_id)
        query = (
            sa.select(moves.c.game_id)
            .select_from(mine)
            .where(
                seats.c.player_id == player_id,
                games.c.guild_id == guild_id,
                games.c.status == "active",
                moves.c.text != "pass",
            )
            .order_by(moves.c.created_at.desc(), moves.c.game_id.desc())
            .limit(1)
        )
        async with self.db.read() as conn:
            found: int | None = await conn.scalar(query)
            return found

    async def example_move(
        self, game_id: int, guild_id: int, player_id: int | None = None
    ) -> str | None:
        """A legal move in the game now, to show its notation (to `player_id`: None when
        it is not their move, the move itself then says why; without one, to whoever is
        to move); None when the game is over. Every front end's example is this one."""
        summary, state = await self._position(game_id, guild_id, None)
        if player_id is not None and summary.player_to_move != player_id:
            return None
        return state.example_move()

    async def record(self, game_id: int, guild_id: int, viewer_id: int | None = None) -> Record:
        """The moves with their times (in the viewer's time zone, else UTC), one line per
        move, in the game's notation."""
        async with self.db.read() as conn:
            zone_name = await self.records.time_zone_of(conn, viewer_id)
            row = await self.records.game_row(conn, game_id, guild_id)
            summary = seat_names_now(
                await self.records.summary(conn, game_id, row),
                await self.records.load_state(conn, row),
            )
            entries = await self.records.timed_moves(conn, game_id)
        info = engine.GAMES[row.game]
        lines = [f"{info.title} #{game_id} — {options_text(row.options)}"]
        for seat in summary.seats:
            lines.append(f"  {summary.seat_names[seat.seat]}: {seat.name or 'open seat'}")
        # The moves in a column of their own, past the longest name (the bot's is long).
        width = max(columns(summary.name_of_seat(seat.seat)) for seat in summary.seats)
        for entry in entries:
            when = local_time(entry.created_at, zone_name, "%Y-%m-%d %H:%M")
            who = summary.name_of_seat(entry.seat)
            room = " " * (width - columns(who))
            lines.append(f"{entry.ply + 1:>4}. {when}  {who}{room}  {entry.text}")
        if summary.status == "finished":
            lines.append(result_text(summary))
        return Record(summary, "\n".join(lines))

    async def replay_gif(self, game_id: int, guild_id: int) -> bytes:
        async with self.db.read() as conn:
            row = await self.records.game_row(conn, game_id, guild_id)
            summary = await self.records.summary(conn, game_id, row)
            state = await self.records.load_state(conn, row)
        return await self.painter.gif(state, players=[s.name or "?" for s in summary.seats])

    async def time_zone(self, player_id: int) -> str | None:
        """A player's time zone, as their settings name it (None: never seen here)."""
        check_ids(player_id)
        async with self.db.read() as conn:
            return await self.records.time_zone_of(conn, player_id)

    async def leaderboard(self, guild_id: int, game: str, *, limit: int = 10) -> list[RatingLine]:
        game_info(game)
        async with self.db.read() as conn:
            return await ratings.leaderboard(conn, guild_id, game, limit)

    async def ratings(
        self, guild_id: int, player_id: int, game: str | None = None
    ) -> list[RatingLine]:
        if game is not None:
            game_info(game)
        async with self.db.read() as conn:
            return await ratings.of_player(conn, guild_id, player_id, game)


def only_game(candidates: list[GameSummary], where: str) -> GameSummary:
    """The game a command means when none is named: the one of `candidates` (the games
    where it applies); else a refusal, none `where` or the several to name one of."""
    if len(candidates) == 1:
        return candidates[0]
    if not candidates:
        raise Refused(f"You have no game {where} here; name the game.", code=ServiceCode.NO_GAME)
    listed = ", ".join(f"#{g.id}" for g in candidates[:10])
    raise Refused(f"Name the game: you have several ({listed}).", code=ServiceCode.AMBIGUOUS_GAME)
