"""What the event formats take and give: entrants, games, results, rounds, and the size limits.

Every value is a frozen dataclass of plain ids and numbers; players are the service's player
ids (ints). Points are floats of halves (1, ½, 0), exact in binary, so sums and the products
of Sonneborn-Berger compare exactly.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

PlayerId = int


class Format(enum.StrEnum):
    ROUND_ROBIN = "round_robin"
    SWISS = "swiss"
    KNOCKOUT = "knockout"
    LEAGUE = "league"
    LADDER = "ladder"


class Finish(enum.StrEnum):
    """How a game of an event ended, as far as scores and tiebreaks care."""

    PLAYED = "played"  # on the board: a win (resignation too), a loss or a draw
    TIME = "time"  # the loser ran out of time: a loss like any other, and the game was played
    FORFEIT = "forfeit"  # never played out: the absentee (a player who left) loses it


@dataclass(frozen=True, slots=True)
class Entrant:
    """A player in an event. `rating` seeds and breaks the last ties (higher is stronger);
    among equal ratings the order the entrants are given in decides (give them in a stable
    order, e.g. by the time they joined)."""

    id: PlayerId
    rating: float = 0.0
    withdrawn: bool = False  # left the event: never paired again


def seeded(entrants: Sequence[Entrant]) -> tuple[PlayerId, ...]:
    """Entrants by rating, the highest first; equal ratings keep the given order."""
    order = sorted(range(len(entrants)), key=lambda i: (-entrants[i].rating, i))
    return tuple(entrants[i].id for i in order)


@dataclass(frozen=True, slots=True)
class Pairing:
    """A game to start: `first` takes seat 0 (moves first), `second` seat 1."""

    first: PlayerId
    second: PlayerId

    @property
    def players(self) -> tuple[PlayerId, PlayerId]:
        return (self.first, self.second)


@dataclass(frozen=True, slots=True)
class GameResult:
    """A finished game of an event. `winner` is a player id, or None for a draw; a FORFEIT
    with no winner is a game both players left (both lose it)."""

    round: int
    first: PlayerId
    second: PlayerId
    winner: PlayerId | None
    finish: Finish = Finish.PLAYED

    def __post_init__(self) -> None:
        if self.first == self.second:
            raise ValueError(f"a game needs two players, not {self.first} twice")
        if self.winner is not None and self.winner not in (self.first, self.second):
            raise ValueError(f"the winner {self.winner} did not play in this game")
        if self.finish is Finish.TIME and self.winner is None:
            raise ValueError("a game lost on time has a winner")

    @property
    def players(self) -> tuple[PlayerId, PlayerId]:
        return (self.first, self.second)

    @property
    def played(self) -> bool:
        """Whether the game was played out (a loss on time was): forfeits count for scores
        only, not for seat history, meetings or tiebreaks that measure opponents."""
        return self.finish is not Finish.FORFEIT

    def opponent(self, player: PlayerId) -> PlayerId:
        return self.second if player == self.first else self.first

    def points(self, player: PlayerId) -> float:
        """1 for a win, ½ for a draw, 0 for a loss (on time and by forfeit too)."""
        if self.winner is None:
            return 0.0 if self.finish is Finish.FORFEIT else 0.5
        return 1.0 if self.winner == player else 0.0

    def seat(self, player: PlayerId) -> int:
        return 0 if player == self.first else 1


@dataclass(frozen=True, slots=True)
class Bye:
    """A Swiss round in which `player` had no opponent: one point."""

    round: int
    player: PlayerId


@dataclass(frozen=True, slots=True)
class Round:
    """One round of games to start; `bye` sits out (a point in a Swiss, nothing in a round
    robin, where the odd player out of each round simply has no game)."""

    number: int
    games: tuple[Pairing, ...]
    bye: PlayerId | None = None


def forfeited(game: Pairing, round: int, leaver: PlayerId) -> GameResult:
    """The result of an unplayed game of a player who left the event: they lose it."""
    if leaver not in game.players:
        raise ValueError(f"{leaver} does not play in {game}")
    winner = game.second if leaver == game.first else game.first
    return GameResult(round, game.first, game.second, winner, Finish.FORFEIT)


@dataclass(frozen=True, slots=True)
class Limit:
    """How many entrants an event of a format may start with."""

    least: int
    most: int
    why: str  # what the bound protects, for docs and logs


#: The sizes the service allows. Beyond `most` the pure core still works, but the service
#: would create more games at once than a server follows (round robin, league), or pair
#: for longer than the event loop's worker can promise (Swiss: docs/PERFORMANCE.md).
LIMITS: dict[Format, Limit] = {
    Format.ROUND_ROBIN: Limit(3, 20, "20 players start 190 games at once (380 double)"),
    Format.SWISS: Limit(4, 1000, "a round of 1,000 players pairs in about 0.2 s of CPU"),
    Format.KNOCKOUT: Limit(4, 512, "512 players finish in 9 rounds"),
    Format.LEAGUE: Limit(6, 200, "200 players are 20 divisions playing 900 games at once"),
    Format.LADDER: Limit(2, 1000, "a ladder of 1,000 places"),
}

FORMAT_TITLES: dict[Format, str] = {
    Format.ROUND_ROBIN: "round robin",
    Format.SWISS: "Swiss tournament",
    Format.KNOCKOUT: "knockout",
    Format.LEAGUE: "league",
    Format.LADDER: "ladder",
}


def size_refusal(format: Format, entrants: int) -> str | None:
    """The sentence refusing an event of `entrants` players, or None when the size is fine."""
    limit = LIMITS[format]
    title = FORMAT_TITLES[format]
    if entrants > limit.most:
        return f"A {title} takes at most {limit.most:,} players; this one has {entrants:,}."
    if entrants < limit.least:
        return f"A {title} needs at least {limit.least} players; this one has {entrants}."
    return None
