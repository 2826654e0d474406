"""Knockout brackets: seeding by rating, byes to the top seeds, matches of 1, 3 or 5 games.

The bracket has the next power of two of lines. Seed s meets seed P + 1 - s in the first
round (1 v P, 2 v P-1, ...), placed so that seeds 1 and 2 can meet only in the final, 1 to 4
only in the semi-finals, and so on (the standard order: 1, 8, 4, 5, 2, 7, 3, 6 for 8). The
seeds beyond the entrants are byes, so the top seeds have them.

A match's games alternate seats, the higher seed first in game 1. A match is won by more
points than the other can still reach in its regular games. A match level after its regular
games (a drawn game is half a point each: Livewire and Making Intersections can draw) goes
on with extra games, seats still alternating, until one of them is won; when `extra_games`
of them are all drawn, the higher seed advances.
"""

from __future__ import annotations

import enum
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from bot.events.model import Entrant, GameResult, Pairing, PlayerId, seeded

MATCH_LENGTHS = (1, 3, 5)


@dataclass(frozen=True, slots=True)
class MatchRules:
    games: int = 1  # regular games: 1, 3 or 5
    extra_games: int = 2  # played one by one after a level match; then the higher seed

    def __post_init__(self) -> None:
        if self.games not in MATCH_LENGTHS:
            raise ValueError(f"a match has 1, 3 or 5 games, not {self.games}")
        if self.extra_games < 0:
            raise ValueError("extra games cannot be fewer than none")


@dataclass(frozen=True, slots=True)
class Match:
    """`high` is the higher seed; `low` None is a bye (high goes through)."""

    high: PlayerId
    low: PlayerId | None


@dataclass(frozen=True, slots=True)
class KnockoutRound:
    """A round's matches in bracket order: the winners of matches 2k and 2k+1 meet next."""

    number: int
    matches: tuple[Match, ...]
    seeds: tuple[PlayerId, ...]  # every entrant, seed 1 first

    @property
    def final(self) -> bool:
        return len(self.matches) == 1


class Decided(enum.StrEnum):
    BYE = "bye"
    GAMES = "games"  # more points in the regular games
    EXTRA_GAME = "extra game"  # won an extra game after a level match
    SEED = "seed"  # level after every extra game: the higher seed goes through
    LEFT = "left"  # the opponent left the event


@dataclass(frozen=True, slots=True)
class MatchState:
    points: tuple[float, float]  # high's, low's
    winner: PlayerId | None  # None while the match goes on
    decided: Decided | None
    next_game: Pairing | None  # the seats of the next game to play; None once decided


def bracket_order(size: int) -> tuple[int, ...]:
    """Seed numbers down the bracket's lines, for `size` a power of two: each pair of lines
    is a first-round match, and the top two seeds are in opposite halves."""
    if size < 1 or size & (size - 1):
        raise ValueError(f"a bracket has a power of two of lines, not {size}")
    order = [1]
    while len(order) < size:
        lines = 2 * len(order)
        order = [seed for top in order for seed in (top, lines + 1 - top)]
    return tuple(order)


def first_round(entrants: Sequence[Entrant]) -> KnockoutRound:
    """Round 1 of a knockout: seeded by rating, byes to the top seeds."""
    seeds = seeded(entrants)
    if len(set(seeds)) != len(seeds):
        raise ValueError("an entrant is listed twice")
    if len(seeds) < 2:
        raise ValueError("a knockout needs two players")
    size = 1 << (len(seeds) - 1).bit_length()
    lines = bracket_order(size)
    matches = []
    for top, bottom in zip(lines[::2], lines[1::2], strict=True):
        high, low = min(top, bottom), max(top, bottom)
        matches.append(Match(seeds[high - 1], seeds[low - 1] if low <= len(seeds) else None))
    return KnockoutRound(1, tuple(matches), seeds)


def next_round(previous: KnockoutRound, winners: Sequence[PlayerId]) -> KnockoutRound:
    """The round after `previous`, given the winner of each of its matches in order."""
    if previous.final:
        raise ValueError("the final has no next round")
    if len(winners) != len(previous.matches):
        raise ValueError(f"{len(previous.matches)} matches need as many winners")
    for match, winner in zip(previous.matches, winners, strict=True):
        if winner not in (match.high, match.low):
            raise ValueError(f"{winner} did not play in {match}")
    seed = {player: i for i, player in enumerate(previous.seeds)}
    matches = tuple(
        Match(*sorted((a, b), key=seed.__getitem__))
        for a, b in zip(winners[::2], winners[1::2], strict=True)
    )
    return KnockoutRound(previous.number + 1, matches, previous.seeds)


def match_game(match: Match, number: int) -> Pairing:
    """The seats of game `number` (1-based) of a match: the higher seed first in odd games."""
    if match.low is None:
        raise ValueError("a bye has no games")
    if number % 2:
        return Pairing(match.high, match.low)
    return Pairing(match.low, match.high)


def match_state(
    match: Match,
    results: Sequence[GameResult],
    rules: MatchRules = MatchRules(),
    *,
    left: Collection[PlayerId] = (),
) -> MatchState:
    """Where a match stands after `results`, its finished games in the order played. A
    player who left the event loses a match not yet decided at once (the higher seed goes
    through if both left); a match decided before stands as it was played."""
    if match.low is None:
        return MatchState((0.0, 0.0), match.high, Decided.BYE, None)
    high = sum(r.points(match.high) for r in results)
    low = sum(r.points(match.low) for r in results)
    points = (high, low)
    regular, extra = results[: rules.games], results[rules.games :]
    high_regular = sum(r.points(match.high) for r in regular)
    low_regular = sum(r.points(match.low) for r in regular)
    still = rules.games - len(regular)
    if high_regular - low_regular > still:
        return MatchState(points, match.high, Decided.GAMES, None)
    if low_regular - high_regular > still:
        return MatchState(points, match.low, Decided.GAMES, None)
    decisive = next((r.winner for r in extra if r.winner is not None), None)
    if decisive is not None:
        return MatchState(points, decisive, Decided.EXTRA_GAME, None)
    if still == 0 and len(extra) >= rules.extra_games:
        return MatchState(points, match.high, Decided.SEED, None)
    if match.high in left or match.low in left:
        winner = match.low if match.high in left and match.low not in left else match.high
        return MatchState(points, winner, Decided.LEFT, None)
    return MatchState(points, None, None, match_game(match, len(results) + 1))
