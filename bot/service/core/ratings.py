"""Ratings per guild and game with openskill's Plackett-Luce model (2 to 8 players).

Players read openskill's estimate of their strength, mu, on the scale correspondence
sites use (`shown_rating`): 1500 + ELO_POINTS x (mu - 25). Everyone starts at mu 25,
so at 1500, and a player of average strength stays about there however long they
play. ELO_POINTS makes the numbers mean what Elo's mean: between two settled players
the model's chance of a win is 1 / (1 + exp(-(mu_a - mu_b) / (sqrt 2 x beta))), Elo's
is 1 / (1 + 10^(-(R_a - R_b) / 400)), so a point of mu is 400 / (sqrt 2 x beta x ln 10)
= 29.5 rating points (400 points between two players: 10 to 1). A rating is
provisional, written "1577?", while sigma is above PROVISIONAL_SIGMA (it starts at
8.33): roughly the first six games against settled players, ten against other
newcomers. The leaderboard lists settled players by rating, then provisional ones by
rating, so its numbers always read downwards.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import sqlalchemy as sa
from openskill.models import PlackettLuce
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.service.core.models import RatingLine
from bot.store.schema import players, ratings
from bot.store.upserts import insert_or_nothing

MODEL = PlackettLuce()
START = 1500  # what everyone reads before their first game (mu 25)
#: Rating points per point of mu: the model's odds between settled players read as Elo's.
ELO_POINTS = 400 / (math.sqrt(2) * MODEL.beta * math.log(10))
PROVISIONAL_SIGMA = 6.5  # above it, the number is written with "?" (it starts at 8.33)


def shown_rating(mu: float) -> int:
    """The rating players read: 1500 + 29.5 x (mu - 25)."""
    return round(START + ELO_POINTS * (mu - MODEL.mu))


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
            rating=shown_rating(row.mu),
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
    conn: AsyncConnection, guild_id: int, game: str, limit: int, *, profiles_only: bool = False
) -> list[RatingLine]:
    """The game's best players on the server; `profiles_only`: of those whose profile is
    shown on the web (`players.web_profile`)."""
    provisional = sa.case((ratings.c.sigma > PROVISIONAL_SIGMA, 1), else_=0)
    query = (
        _query()
        .where(ratings.c.guild_id == guild_id, ratings.c.game == game)
        .order_by(provisional, ratings.c.mu.desc(), ratings.c.games.desc())
        .limit(max(1, min(limit, 50)))
    )
    if profiles_only:
        query = query.where(players.c.web_profile.is_(True))
    return _lines((await conn.execute(query)).all())


async def of_player(
    conn: AsyncConnection, guild_id: int, player_id: int, game: str | None
) -> list[RatingLine]:
    query = _query().where(ratings.c.guild_id == guild_id, ratings.c.player_id == player_id)
    if game is not None:
        query = query.where(ratings.c.game == game)
    return _lines((await conn.execute(query.order_by(ratings.c.game))).all())
