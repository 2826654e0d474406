"""Tournament pictures: standings, crosstables and brackets, as PNG and as plain text.

The service builds these plain dataclasses from an event (bot/events computes the
scores, places and brackets); render draws them. Nothing here knows about events:
the values are already words and numbers.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class StandingRow:
    """One line of a standings table."""

    place: str  # "1", "=3"
    name: str
    score: float
    tiebreaks: tuple[float, ...]
    games_left: int
    note: str  # "withdrawn", "annulled", ""


@dataclass(frozen=True)
class StandingsTable:
    title: str
    tiebreak_names: tuple[str, ...]
    rows: tuple[StandingRow, ...]


@dataclass(frozen=True)
class Crosstable:
    """`cells[i][j]` is row player i's result against column player j: "1", "½", "0",
    "" unplayed, "×" on the diagonal; a double round robin joins both games ("1½")."""

    title: str
    names: tuple[str, ...]
    cells: tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class BracketMatch:
    """A knockout match: `winner` 0 is the top player, 1 the bottom; a None player is a bye
    or not yet known."""

    top: str | None
    bottom: str | None
    score: str
    winner: int | None


@dataclass(frozen=True)
class Bracket:
    """Rounds in order, the first round first; round k+1's match m is fed by round k's
    matches 2m and 2m+1."""

    title: str
    rounds: tuple[tuple[BracketMatch, ...], ...]
