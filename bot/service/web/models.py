"""What the web's lists and its event and player pages show: plain values, read once
and drawn by the web adapter."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from bot.service.core.models import RatingLine, TournamentSummary


@dataclass(frozen=True, slots=True)
class WebName:
    """Someone a page names: `linked` when they have a page here (a person whose profile
    is on; never the bot, an open seat or a hidden profile)."""

    id: int | None
    name: str
    linked: bool


@dataclass(frozen=True, slots=True)
class WebGameLine:
    """A game in a list."""

    id: int
    game: str
    title: str  # the game's: "Hex"
    status: str  # active, finished or aborted (called off)
    ply: int
    players: tuple[WebName, ...]  # by seat
    to_move: int | None  # the seat to move, while under way
    result: str | None  # a finished game's: "ann wins (resignation)", each name isolated
    event: str | None  # a game of an event: "Spring Hex · round 2"
    event_id: int | None
    rated: bool
    at: datetime  # its last move (or its end)


@dataclass(frozen=True, slots=True)
class WebGameList:
    """A page of a list of games; `more`: the `before` of the next page (None: the last)."""

    games: tuple[WebGameLine, ...]
    more: int | None


@dataclass(frozen=True, slots=True)
class WebLeader:
    rank: int
    who: WebName
    rating: str  # "1578", "1578?" while provisional
    games: int
    wins: int


@dataclass(frozen=True, slots=True)
class WebLeaderboard:
    game: str
    title: str
    leaders: tuple[WebLeader, ...]


@dataclass(frozen=True, slots=True)
class WebEventLine:
    """An event in the server's list."""

    id: int
    title: str  # "Spring Hex"
    format_title: str
    status: str  # open active finished cancelled
    round: int


@dataclass(frozen=True, slots=True)
class WebStanding:
    place: str  # "1", "=3"
    who: WebName
    points: str  # "2½"
    tiebreaks: tuple[str, ...]
    left: int  # games still to play
    note: str  # "withdrawn", "annulled", ""


@dataclass(frozen=True, slots=True)
class WebTable:
    title: str
    tiebreak_names: tuple[str, ...]
    rows: tuple[WebStanding, ...]
    scored: bool  # False: an order without points (a ladder, an event not yet started)


@dataclass(frozen=True, slots=True)
class WebCrosstable:
    """`cells[i][j]`: row player i's result against column player j ("1", "½", "0", ""
    unplayed, "×" on the diagonal)."""

    title: str
    players: tuple[WebName, ...]
    cells: tuple[tuple[str, ...], ...]


@dataclass(frozen=True, slots=True)
class WebBracketMatch:
    """A knockout match: `winner` 0 the top player, 1 the bottom; a None player a bye or
    not yet known; `games` its games so far."""

    top: WebName | None
    bottom: WebName | None
    score: str
    winner: int | None
    games: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class WebPairing:
    first: WebName
    second: WebName
    game_id: int | None  # linked while the game has a page (started)
    state: str  # "under way", "ann won", "drawn", "not accepted yet"
    round: int
    division: int  # a league's (0 the top)
    match: int | None  # a knockout match's index in its round


@dataclass(frozen=True, slots=True)
class WebRound:
    number: int  # 0: a ladder's challenges
    pairings: tuple[WebPairing, ...]
    bye: WebName | None


@dataclass(frozen=True, slots=True)
class WebEvent:
    """An event as its page shows it. `rounds` are the ones shown (`shown`: the round
    asked, or the current one; None: every round, a round robin's); `numbers` every round
    there is, for the links to them."""

    event: TournamentSummary
    tables: tuple[WebTable, ...]
    crosstables: tuple[WebCrosstable, ...]
    bracket: tuple[tuple[WebBracketMatch, ...], ...] | None
    rounds: tuple[WebRound, ...]
    shown: int | None
    numbers: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class WebPlayer:
    who: WebName
    ratings: tuple[RatingLine, ...]
    against_bot: tuple[str, ...]  # "Hex against the bot: easy 1 won 3 lost"
    recent: WebGameList
