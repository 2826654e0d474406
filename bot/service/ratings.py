"""Ratings per guild and game with openskill's Plackett-Luce model (2 to 8 players).

Players read the conservative estimate, openskill's ordinal (mu - 3 sigma), on the
scale correspondence sites use: `shown_rating` = 1500 + 20 x (mu - 3 sigma). Every
player starts at mu 25, sigma 25/3, so at exactly 1500; at 20 points a unit, a
settled player's win over an equal gains about 20 (sigma 4: the ordinal moves 1.15),
like Elo's K=32. A monotonic map of the ordinal, so the leaderboard's order is the
ordinal's. It rises as the system grows sure of a player (a settled player of
average strength reads about 1750 after forty games). A rating is provisional,
written "1569?", while sigma is above PROVISIONAL_SIGMA: roughly the first six games
against settled players, ten against other newcomers.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from openskill.models import PlackettLuce
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.service.models import RatingLine
from bot.store.schema import players, ratings
from bot.store.upserts import insert_or_nothing

MODEL = PlackettLuce()
START = 1500  # what everyone reads before their first game (mu 25, sigma 25/3: ordinal 0)
POINTS_PER_UNIT = 20  # rating points per unit of the ordinal
PROVISIONAL_SIGMA = 6.5  # above it, the number is written with "?" (it starts at 8.33)


def shown_rating(mu: float, sigma: float) -> int:
    """The rating players read: 1500 + 20 x openskill's ordinal (mu - 3 sigma)."""
    return round(START + POINTS_PER_UNIT * (mu - 3 * sigma))


async def update(
    conn: AsyncConnection,
    guild_id: int,
    game: str,
    seat_players: Sequence[int],
    ranks: Sequence[int],
) -> None:
    """Rate a finished game: `ranks` by seat, 1 best, equal ranks tie.

    A locked read-modify-write: a newcomer's row is created first (a row another
    game creates at the same time is left to it), then the rows are read FOR UPDATE
    in player order, so two games ending at once for the same players update one
    after the other, in the same order, and neither loses the other's result.
    """
    key = (ratings.c.guild_id == guild_id, ratings.c.game == game)
    fresh = MODEL.rating()
    await conn.execute(
        insert_or_nothing(ratings, conn.dialect.name),
        [
            {
                "guild_id": guild_id,
                "game": game,
                "player_id": player_id,
                "mu": fresh.mu,
                "sigma": fresh.sigma,
            }
            for player_id in sorted(set(seat_players))
        ],
    )
    rows = {
        row.player_id: row
        for row in await conn.execute(
            sa.select(ratings)
            .where(*key, ratings.c.player_id.in_(seat_players))
            .order_by(ratings.c.player_id)
            .with_for_update()
        )
    }
    teams = [[MODEL.create_rating([rows[p].mu, rows[p].sigma])] for p in seat_players]
    rated = MODEL.rate(teams, ranks=list(ranks))
    best = min(ranks)
    draw = len(set(ranks)) == 1
    for player_id, (new,), rank in zip(seat_players, rated, ranks, strict=True):
        old = rows[player_id]
        won = rank == best and not draw
        streak = 0 if draw else (max(old.streak, 0) + 1 if won else min(old.streak, 0) - 1)
        await conn.execute(
            ratings.update()
            .where(*key, ratings.c.player_id == player_id)
            .values(
                mu=new.mu,
                sigma=new.sigma,
                games=old.games + 1,
                wins=old.wins + int(won),
                streak=streak,
                best_streak=max(old.best_streak, streak),
            )
        )


def _lines(rows: Sequence[sa.Row[tuple[object, ...]]]) -> list[RatingLine]:
    return [
        RatingLine(
            player_id=row.player_id,
            name=row.name,
            game=row.game,
            rating=shown_rating(row.mu, row.sigma),
            mu=row.mu,
            sigma=row.sigma,
            games=row.games,
            wins=row.wins,
            streak=row.streak,
            best_streak=row.best_streak,
            provisional=row.sigma > PROVISIONAL_SIGMA,
        )
        for row in rows
    ]


def _query() -> sa.Select[tuple[object, ...]]:
    return sa.select(ratings, players.c.name).join(players, players.c.id == ratings.c.player_id)


async def leaderboard(
    conn: AsyncConnection, guild_id: int, game: str, limit: int
) -> list[RatingLine]:
    ordinal = ratings.c.mu - 3 * ratings.c.sigma
    query = (
        _query()
        .where(ratings.c.guild_id == guild_id, ratings.c.game == game)
        .order_by(ordinal.desc(), ratings.c.games.desc())
        .limit(max(1, min(limit, 50)))
    )
    return _lines((await conn.execute(query)).all())


async def of_player(
    conn: AsyncConnection, guild_id: int, player_id: int, game: str | None
) -> list[RatingLine]:
    query = _query().where(ratings.c.guild_id == guild_id, ratings.c.player_id == player_id)
    if game is not None:
        query = query.where(ratings.c.game == game)
    return _lines((await conn.execute(query.order_by(ratings.c.game))).all())
