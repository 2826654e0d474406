"""Round robin schedules by Berger tables (FIDE Handbook C.05, Annex 1).

Table numbers are the players' places in the sequence given: `players[0]` is number 1. With
an odd count a dummy number n + 1 completes the table and whoever meets it has the round off.
Every game starts at once (correspondence); the rounds are the table's, kept for the record.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from bot.events.model import Pairing, PlayerId, Round


def berger_table(n: int) -> tuple[tuple[tuple[int, int], ...], ...]:
    """The Berger table for `n` (even) numbers 1..n: n - 1 rounds of n / 2 games, each game
    (number in seat 0, number in seat 1).

    Round 1 is 1-n, 2-(n-1), ..., and each next round adds n/2 to every number but n
    (counted 1..n-1 around), keeping the columns; number n changes seat every round. So
    every number holds seat 0 in n/2 or n/2 - 1 of its n - 1 games.
    """
    if n < 2 or n % 2:
        raise ValueError(f"a Berger table has an even count of numbers, not {n}")
    half = n // 2
    games = [(i + 1, n - i) for i in range(half)]
    rounds = [tuple(games)]
    for _ in range(n - 2):
        games = [(shifted(a, half, n), shifted(b, half, n)) for a, b in games]
        games[0] = games[0][::-1]  # number n, at the head of the table, alternates seats
        rounds.append(tuple(games))
    return tuple(rounds)


def shifted(number: int, by: int, n: int) -> int:
    return n if number == n else (number - 1 + by) % (n - 1) + 1


def round_robin(players: Sequence[PlayerId], *, double: bool = False) -> tuple[Round, ...]:
    """Every round of a round robin among `players` (in table order: see `draw_lots`).

    Single: each pair meets once, every player within one game of an equal split of the
    seats (an exact split with an odd count: each then plays an even number of games, and
    Berger's table for one more gives each player seat 0 in exactly half). Double: the
    second cycle repeats the first with the seats exchanged, so each pair plays both seats
    and every player holds each seat equally often.
    """
    if len(set(players)) != len(players):
        raise ValueError("a player is listed twice")
    count = len(players)
    if count < 2:
        return ()
    n = count + count % 2
    numbered = {i + 1: player for i, player in enumerate(players)}  # n itself: the bye, if odd
    first_cycle: list[Round] = []
    for index, table_round in enumerate(berger_table(n)):
        games: list[Pairing] = []
        bye: PlayerId | None = None
        for a, b in table_round:
            if a in numbered and b in numbered:
                games.append(Pairing(numbered[a], numbered[b]))
            else:
                bye = numbered.get(a, numbered.get(b))
        first_cycle.append(Round(index + 1, tuple(games), bye))
    if not double:
        return tuple(first_cycle)
    second_cycle = (
        Round(
            r.number + len(first_cycle), tuple(Pairing(g.second, g.first) for g in r.games), r.bye
        )
        for r in first_cycle
    )
    return (*first_cycle, *second_cycle)


def draw_lots(players: Sequence[PlayerId], seed: int) -> tuple[PlayerId, ...]:
    """The players in a drawn table order: the same seed draws the same order."""
    drawn = list(players)
    random.Random(seed).shuffle(drawn)
    return tuple(drawn)


def games_each(count: int, *, double: bool = False) -> int:
    """How many games each of `count` players has in a round robin."""
    return max(count - 1, 0) * (2 if double else 1)
