"""Challenges: issue, accept, join, decline, cancel, a rematch, and the limits on them.

A challenge is a game row with status `open`, its seats (named opponents invited,
open seats empty) and an `expire` deadline row; when its last seat is taken the
game starts (the seats in the chosen order, the first turn and its deadline).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

import engine
from bot.service.clocks import chosen_clock
from bot.service.core.levels import bot_player
from bot.service.core.messages import game_info
from bot.service.core.models import (
    FIRST_CHOICES,
    ChallengeIssued,
    Event,
    First,
    Place,
    Player,
    Refused,
    Result,
    SeatTaken,
    ServiceCode,
)
from bot.service.core.records import Records, first_position
from bot.service.core.rules import check_ids, game_terms, status_words, whole
from bot.service.core.turns import Turns
from bot.store.schema import deadlines, games, players, seats
from engine import Code

log = logging.getLogger("paperboard.service")


class Challenges:
    """The use cases before a game starts."""

    def __init__(self, records: Records, turns: Turns) -> None:
        self.records = records
        self.turns = turns
        self.db = records.db
        self.clock = records.clock

    async def challenge(
        self,
        place: Place,
        challenger: Player,
        game: str,
        *,
        opponents: Sequence[Player] = (),
        open_seats: int = 0,
        options: Mapping[str, object] | None = None,
        days_per_move: int | str | None = "default",
        first: str = "random",
        rated: bool | None = None,
        bots: Sequence[str] = (),
        clock: str | None = None,
    ) -> Result:
        """A direct challenge (named opponents), an open one (seats anyone may take), or both;
        `bots`: a seat for the bot at each of these levels (it sits down at once); `clock`:
        a bank clock ("10d+36h/10d" or a preset's name) instead of days per move."""
        check_ids(place.guild_id, place.channel_id, challenger.id, *(p.id for p in opponents))
        info = game_info(game)
        if not isinstance(first, str) or first not in FIRST_CHOICES:  # narrows to First
            raise Refused(
                f"Who moves first must be one of {', '.join(sorted(FIRST_CHOICES))}.",
                code=Code.BAD_OPTION,
            )
        if rated is not None and not isinstance(rated, bool):
            raise Refused("Rated is yes or no.", code=Code.BAD_OPTION)
        control = chosen_clock(clock, days_per_move != "default")
        settings = dict(options or {})
        if not all(isinstance(key, str) for key in settings):
            raise Refused("Options are named, like size=7.", code=Code.BAD_OPTION)
        if "players" in settings:
            raise Refused(
                "The players are the challenger, the opponents and the open seats, not an option.",
                code=Code.BAD_OPTION,
            )
        if not whole(open_seats) or not 0 <= open_seats <= info.max_players:
            raise Refused(
                f"Open seats are a number from 0 to {info.max_players - 1}.", code=Code.BAD_OPTION
            )
        if any(p.id == challenger.id for p in opponents):
            raise Refused("You cannot challenge yourself.", code=ServiceCode.SELF_CHALLENGE)
        if len({p.id for p in opponents}) != len(opponents):
            raise Refused(
                "Each opponent can take only one seat.", code=ServiceCode.DUPLICATE_OPPONENT
            )
        robots = [bot_player(level) for level in bots]
        if robots and rated:
            raise Refused(
                "Games against the bot are casual, never rated.", code=ServiceCode.UNRATED
            )
        if not opponents and open_seats == 0 and not robots:
            open_seats = info.min_players - 1
        seat_count = 1 + len(opponents) + len(robots) + open_seats
        if not info.min_players <= seat_count <= info.max_players:
            allowed = (
                f"exactly {info.min_players}"
                if info.min_players == info.max_players
                else f"{info.min_players} to {info.max_players}"
            )
            raise Refused(
                f"{info.title} is played by {allowed} players, not {seat_count}.",
                code=Code.PLAYER_COUNT,
            )
        now = self.clock()
        async with self.db.write() as conn:
            guild = await self.records.load_guild_settings(conn, place.guild_id)
            days = game_terms(guild, place.channel_id, days_per_move, rated)
            if control is not None:
                days = None
            # players first (their rows locked in id order), then the limits under that lock
            await self.records.remember(conn, challenger, *opponents, *set(robots))
            await self._check_limits(conn, challenger.id)
            # the options last: checking them builds the game's tables, after every cheap check
            start = await first_position(game, settings, seat_count)
            game_id = await self._insert_game(
                conn,
                place=place,
                game=game,
                options=start.options,
                challenger=challenger.id,
                days=days,
                time_control=control,
                first=first,
                rated=guild.rated and not robots if rated is None else rated,
                now=now,
            )
            roster: list[int | None] = [challenger.id, *(p.id for p in opponents)]
            roster += [p.id for p in robots] + [None] * open_seats
            levels = [None] * (1 + len(opponents)) + list(bots) + [None] * open_seats
            await conn.execute(
                seats.insert(),
                [
                    {
                        "game_id": game_id,
                        "seat": i,
                        "player_id": pid,
                        "accepted": i == 0 or level is not None,  # the bot sits down at once
                        "bot_level": level,
                    }
                    for i, (pid, level) in enumerate(zip(roster, levels, strict=True))
                ],
            )
            event = ChallengeIssued(
                game_id,
                challenger=challenger,
                invited=tuple(p.id for p in opponents),
                open_seats=open_seats,
            )
            started = await self.turns.start_if_full(
                conn, await self.records.game_row(conn, game_id, place.guild_id)
            )
            summary = await self.records.summary(conn, game_id)
            result = await self.records.announce(conn, Result(summary, (event, *started)))
        log.info(
            "game=%d challenge %s by player=%d seats=%d", game_id, game, challenger.id, seat_count
        )
        return result

    async def accept(self, game_id: int, guild_id: int, player: Player) -> Result:
        """A named opponent accepts; the game starts when every seat is filled."""
        async with self.db.write() as conn:
            row = await self._open_challenge(conn, game_id, guild_id)
            seat = await self._invited_seat(conn, game_id, player.id)
            if seat is None:
                raise Refused(
                    "This challenge is not waiting for you.", code=ServiceCode.NOT_INVITED
                )
            return await self._take_seat(conn, row, seat, player)

    async def join(self, game_id: int, guild_id: int, player: Player) -> Result:
        """Take an open seat of an open challenge."""
        async with self.db.write() as conn:
            row = await self._open_challenge(conn, game_id, guild_id)
            taken = await conn.execute(
                sa.select(seats.c.seat, seats.c.player_id).where(seats.c.game_id == game_id)
            )
            rows = taken.all()
            if any(r.player_id == player.id for r in rows):
                raise Refused(
                    "You already have a seat in this game.", code=ServiceCode.ALREADY_SEATED
                )
            free = [r.seat for r in rows if r.player_id is None]
            if not free:
                raise Refused("This challenge has no open seat.", code=ServiceCode.NO_OPEN_SEAT)
            return await self._take_seat(conn, row, min(free), player)

    async def _take_seat(
        self, conn: AsyncConnection, row: Any, seat: int, player: Player
    ) -> Result:
        """`player` sits at `seat`, accepted; the game starts if that was the last seat."""
        await self.records.remember(conn, player)
        await self._check_limits(conn, player.id, challenges=False)
        await conn.execute(
            seats.update()
            .where(seats.c.game_id == row.id, seats.c.seat == seat)
            .values(player_id=player.id, accepted=True)
        )
        events: list[Event] = [SeatTaken(row.id, player)]
        events += await self.turns.start_if_full(conn, row)
        return await self.records.announce(
            conn, Result(await self.records.summary(conn, row.id), tuple(events))
        )

    async def _invited_seat(
        self, conn: AsyncConnection, game_id: int, player_id: int
    ) -> int | None:
        """The seat a challenge holds for `player_id`, not yet accepted."""
        seat: int | None = await conn.scalar(
            sa.select(seats.c.seat).where(
                seats.c.game_id == game_id,
                seats.c.player_id == player_id,
                seats.c.accepted.is_(False),
            )
        )
        return seat

    async def decline(self, game_id: int, guild_id: int, player: Player) -> Result:
        """A named opponent declines: the challenge is off."""
        async with self.db.write() as conn:
            await self._open_challenge(conn, game_id, guild_id)
            if await self._invited_seat(conn, game_id, player.id) is None:
                raise Refused(
                    "Only an invited player can decline this challenge.",
                    code=ServiceCode.NOT_INVITED,
                )
            return await self.turns.close_challenge(conn, game_id, "declined", player.id)

    async def cancel(self, game_id: int, guild_id: int, player: Player) -> Result:
        """The challenger withdraws an open challenge."""
        async with self.db.write() as conn:
            row = await self._open_challenge(conn, game_id, guild_id)
            if row.challenger_id != player.id:
                raise Refused(
                    "Only the challenger can cancel this challenge.",
                    code=ServiceCode.NOT_CHALLENGER,
                )
            return await self.turns.close_challenge(conn, game_id, "cancelled", player.id)

    async def rematch(self, game_id: int, guild_id: int, player: Player) -> Result:
        """The same game and options with the seats rotated, as a challenge to the same players."""
        async with self.db.write() as conn:
            row = await self.records.game_row(conn, game_id, guild_id, lock=True)
            summary = await self.records.summary(conn, game_id, row)
            if summary.seat_of(player.id) is None:
                raise Refused(
                    "Only a player of that game can ask for a rematch.", code=ServiceCode.NOT_SEATED
                )
            if row.status not in ("finished", "aborted"):
                raise Refused(
                    "A rematch can follow only a finished game.", code=ServiceCode.NOT_FINISHED
                )
            offered = await conn.execute(
                sa.select(games).where(
                    games.c.rematch_of == game_id,
                    games.c.status.in_(("open", "active", "finished", "aborted")),
                )
            )
            for earlier in offered:
                if not self.records.overdue(earlier):
                    raise Refused(
                        f"A rematch of #{game_id} is already offered (#{earlier.id}).",
                        code=ServiceCode.REMATCH_OFFERED,
                    )
            await self._check_limits(conn, player.id)
            now = self.clock()
            rotated = summary.seats[1:] + summary.seats[:1]
            new_id = await self._insert_game(
                conn,
                place=Place(row.guild_id, row.channel_id),
                game=row.game,
                options=row.options,
                challenger=player.id,
                days=row.days_per_move,
                time_control=row.time_control,
                first="rematch",
                rated=row.rated,
                now=now,
                rematch_of=game_id,
            )
            await conn.execute(
                seats.insert(),
                [
                    {
                        "game_id": new_id,
                        "seat": i,
                        "player_id": s.player_id,
                        "accepted": s.player_id == player.id or s.bot is not None,
                        "bot_level": s.bot,  # the bot sits down again at once
                    }
                    for i, s in enumerate(rotated)
                ],
            )
            new = await self.records.summary(conn, new_id)
            invited = tuple(
                s.player_id
                for s in new.seats
                if s.player_id is not None and s.player_id != player.id and s.bot is None
            )
            event = ChallengeIssued(new_id, challenger=player, invited=invited, open_seats=0)
            started = await self.turns.start_if_full(
                conn, await self.records.game_row(conn, new_id, row.guild_id)
            )
            new = await self.records.summary(conn, new_id)
            return await self.records.announce(conn, Result(new, (event, *started)))

    async def _open_challenge(self, conn: AsyncConnection, game_id: int, guild_id: int) -> Any:
        row = await self.records.game_row(conn, game_id, guild_id, lock=True)
        if self.records.overdue(row):  # the scheduler closes it; until then it is refused
            raise Refused("This challenge has expired.", code=ServiceCode.EXPIRED)
        if row.status == "active":
            raise Refused(
                "This challenge was already accepted: the game is under way.",
                code=ServiceCode.NOT_OPEN,
            )
        if row.status != "open":
            raise Refused(
                f"This challenge is {status_words(row.status)}.", code=ServiceCode.NOT_OPEN
            )
        return row

    async def _insert_game(
        self,
        conn: AsyncConnection,
        *,
        place: Place,
        game: str,
        options: Mapping[str, Any],
        challenger: int,
        days: int | None,
        time_control: str | None,
        first: First,
        rated: bool,
        now: datetime,
        rematch_of: int | None = None,
    ) -> int:
        expires = now + timedelta(hours=self.records.settings.challenge_hours)
        inserted = await conn.execute(
            games.insert()
            .values(
                guild_id=place.guild_id,
                channel_id=place.channel_id,
                game=game,
                options=dict(options),
                rules_version=engine.GAMES[game].version,
                status="open",
                ply=0,
                challenger_id=challenger,
                days_per_move=days,
                time_control=time_control,
                first=first,
                rated=rated,
                expires_at=expires,
                created_at=now,
                updated_at=now,
                rematch_of=rematch_of,
            )
            .returning(games.c.id)
        )
        game_id = int(inserted.scalar_one())
        await conn.execute(
            deadlines.insert().values(game_id=game_id, kind="expire", ply=0, due_at=expires)
        )
        return game_id

    async def _check_limits(
        self, conn: AsyncConnection, player_id: int, *, challenges: bool = True
    ) -> None:
        """Refuse a player over the limits. The count is read under a lock on the player's
        row, so two challenges (or accepts) of one player at once cannot both pass it. FOR
        NO KEY UPDATE: it must not wait for the KEY SHARE locks that other games' seat rows
        take on players (their foreign keys), or crossed accepts deadlock."""
        await conn.execute(
            sa.select(players.c.id).where(players.c.id == player_id).with_for_update(key_share=True)
        )
        if challenges:
            open_count = await conn.scalar(
                sa.select(sa.func.count())
                .select_from(games)
                .where(games.c.challenger_id == player_id, games.c.status == "open")
            )
            if (open_count or 0) >= self.records.settings.max_open_challenges:
                raise Refused(
                    f"You have {open_count} open challenges, the most allowed; cancel one first.",
                    code=ServiceCode.LIMIT,
                )
        active = await conn.scalar(
            sa.select(sa.func.count())
            .select_from(seats.join(games, games.c.id == seats.c.game_id))
            .where(seats.c.player_id == player_id, games.c.status == "active")
        )
        if (active or 0) >= self.records.settings.max_active_games:
            raise Refused(
                f"You are playing {active} games, the most allowed; finish one first.",
                code=ServiceCode.LIMIT,
            )
