"""What the service takes and gives: players, places, results and events.

Everything here is a frozen dataclass and knows nothing of Discord: a player
is an id with a display name, a place is a (guild, channel) pair of ids.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

from bot.render import Target
from bot.render.tables import Bracket, Crosstable, StandingsTable
from engine import Code

Status = Literal["open", "active", "finished", "aborted", "declined", "cancelled", "expired"]
First = Literal["challenger", "opponent", "random", "rematch"]
Reminders = Literal["dm", "thread", "digest", "email", "off"]

STATUSES: tuple[Status, ...] = (
    "open", "active", "finished", "aborted", "declined", "cancelled", "expired",
)  # fmt: skip
DAYS_PER_MOVE = (1, 2, 3, 5, 7, 14)  # or None: no clock
#: Who moves first, as a challenge chooses it: the default first, as the menus list them.
FIRST_CHOICES: tuple[First, ...] = ("random", "challenger", "opponent")
REMINDERS: tuple[Reminders, ...] = ("dm", "thread", "digest", "email", "off")
#: Where a reminder goes: each turn by DM, in the game's thread or by mail.
Via = Literal["dm", "thread", "email"]
#: Who may create and run events on a server (`/config tournaments:`).
TOURNAMENT_RUNNERS = ("managers", "everyone")
#: A server's pages on the web (`/config web:`): none, anyone's, or only through a link.
WebMode = Literal["off", "public", "link"]
WEB_MODES: tuple[WebMode, ...] = ("off", "public", "link")


class ServiceCode(enum.StrEnum):
    """Why the service refused something the rules have no word for: a player not
    seated, a command used in a DM, a stale button... (The rules' refusals are
    `engine.Code`; no value is in both.) Adapters and tests compare against these, never
    against prose."""

    ADDRESS_TAKEN = "address_taken"
    AGAINST_BOT = "against_bot"
    ALREADY_SEATED = "already_seated"
    AMBIGUOUS_GAME = "ambiguous_game"
    BAD_ID = "bad_id"
    BAD_PLY = "bad_ply"
    BAD_SETTING = "bad_setting"
    BAD_STATUS = "bad_status"
    BOT_OPPONENT = "bot_opponent"
    BUSY = "busy"
    CHANNEL = "channel"
    DM = "dm"
    DUPLICATE_OPPONENT = "duplicate_opponent"
    ENGINE_HELP = "engine_help"
    ENTERED = "entered"
    EVENT_GAME = "event_game"
    EVENT_SIZE = "event_size"
    EXPIRED = "expired"
    LIMIT = "limit"
    NOTHING_TO_UNDO = "nothing_to_undo"
    NOT_ADMIN = "not_admin"
    NOT_AGAINST_BOT = "not_against_bot"
    NOT_CHALLENGER = "not_challenger"
    NOT_ENTERED = "not_entered"
    NOT_FINISHED = "not_finished"
    NOT_INVITED = "not_invited"
    NOT_LADDER = "not_ladder"
    NOT_OPEN = "not_open"
    NOT_SEATED = "not_seated"
    NOT_STARTED = "not_started"
    NOT_YOUR_TURN = "not_your_turn"
    NO_EVENT = "no_event"
    NO_GAME = "no_game"
    NO_OPEN_SEAT = "no_open_seat"
    NO_UNDO = "no_undo"
    NO_VACATION = "no_vacation"
    OUT_OF_REACH = "out_of_reach"
    OUT_OF_TIME = "out_of_time"
    OVER_AT_START = "over_at_start"
    OWN_UNDO = "own_undo"
    REMATCH_OFFERED = "rematch_offered"
    SELF_CHALLENGE = "self_challenge"
    SIGN_IN = "sign_in"
    STALE = "stale"
    THREAD = "thread"
    TOO_LATE = "too_late"
    UNDO_PENDING = "undo_pending"
    UNRATED = "unrated"
    USAGE = "usage"
    WEB_OFF = "web_off"


@dataclass(frozen=True, slots=True)
class Typed:
    """A command a sentence tells the player to type, in no front end's words: each
    words it its own way (`/config email:on` on Discord, `config email=on` in the
    console). `values`: its parameters and their values, in order."""

    command: str
    values: tuple[tuple[str, str], ...] = ()

    def slash(self) -> str:
        """The slash command's words (Discord's, and mail's answers)."""
        return "`" + " ".join([f"/{self.command}", *(f"{k}:{v}" for k, v in self.values)]) + "`"


class Refused(Exception):
    """A use case said no. `str(exc)` is the sentence for the player; nothing changed.
    `code` is the rules' (a refused move or game) or the service's own. A sentence that
    names commands holds a {} for each of `typed`: `worded` fills them in a front end's
    words, `str(exc)` in the slash commands'."""

    def __init__(
        self, sentence: str, *, code: Code | ServiceCode, typed: tuple[Typed, ...] = ()
    ) -> None:
        super().__init__(sentence.format(*(t.slash() for t in typed)) if typed else sentence)
        self.code: Code | ServiceCode = code
        self.sentence, self.typed = sentence, typed

    def worded(self, words: Callable[[Typed], str]) -> str:
        """The sentence with its commands in a front end's words."""
        return self.sentence.format(*map(words, self.typed)) if self.typed else str(self)


@dataclass(frozen=True, slots=True)
class Player:
    id: int
    name: str


@dataclass(frozen=True, slots=True)
class Place:
    guild_id: int
    channel_id: int


@dataclass(frozen=True, slots=True)
class Seat:
    seat: int
    player_id: int | None  # None: an open seat
    name: str | None
    accepted: bool
    bot: str | None = None  # the bot's level when the bot plays this seat
    time_zone: str = "UTC"  # the player's (settings): their times are written in it
    weekend: str | None = None  # the local days their bank clocks stop on: "sat-sun"
    vacation_since: datetime | None = None  # on vacation: their clocks stopped then
    web_profile: bool = True  # their page on the web is shown (settings)


@dataclass(frozen=True, slots=True)
class GameSummary:
    """A game as adapters show it."""

    id: int
    game: str
    title: str
    options: dict[str, int | str | bool]
    status: Status
    guild_id: int
    channel_id: int
    thread_id: int | None
    message_id: int | None
    seats: tuple[Seat, ...]
    ply: int
    to_move: int | None  # seat
    days_per_move: int | None
    rated: bool
    first: First
    challenger_id: int
    created_at: datetime
    expires_at: datetime | None
    deadline: datetime | None  # the current turn's, when the game has a clock
    winners: tuple[int, ...] = ()  # seats
    reason: str | None = None
    scores: tuple[int, ...] | None = None
    seat_names: tuple[str, ...] = ()  # "Red", "Black": the game's names for the seats
    away: tuple[int, ...] = ()  # player ids on vacation: their clocks are stopped
    event: str | None = None  # a game of an event: "Spring Hex · round 2"
    event_id: int | None = None  # its tournament's number
    time_control: str | None = None  # a bank clock: "10d+36h/10d" (docs/CLOCKS.md)
    banks: tuple[timedelta, ...] = ()  # a bank clock's banks by seat, as of the summary

    @property
    def player_to_move(self) -> int | None:
        if self.to_move is None or self.status != "active":
            return None
        return self.seats[self.to_move].player_id

    def seat_of(self, player_id: int) -> int | None:
        for seat in self.seats:
            if seat.player_id == player_id:
                return seat.seat
        return None

    def zone_of(self, player_id: int) -> str | None:
        """The time zone of a player seated here (None for anyone else)."""
        return next((s.time_zone for s in self.seats if s.player_id == player_id), None)

    def player_ids(self) -> tuple[int, ...]:
        return tuple(s.player_id for s in self.seats if s.player_id is not None)

    def name_of_seat(self, seat: int) -> str:
        return self.seats[seat].name or "an open seat"


# -- events: what an adapter announces ---------------------------------------------


@dataclass(frozen=True, slots=True)
class Event:
    game_id: int


@dataclass(frozen=True, slots=True)
class ChallengeIssued(Event):
    challenger: Player
    invited: tuple[int, ...]  # named opponents' ids
    open_seats: int


@dataclass(frozen=True, slots=True)
class SeatTaken(Event):
    player: Player


@dataclass(frozen=True, slots=True)
class ChallengeClosed(Event):
    status: Status  # declined cancelled expired
    by: int | None  # player id, None when it expired


@dataclass(frozen=True, slots=True)
class GameStarted(Event):
    players: tuple[int, ...]  # by seat


@dataclass(frozen=True, slots=True)
class MovePlayed(Event):
    player_id: int
    ply: int  # the record's length after the move
    texts: tuple[str, ...]  # the mover's actions (a whole turn may be several)
    passes: int = 0  # forced passes the engine recorded after them


@dataclass(frozen=True, slots=True)
class TurnStarted(Event):
    player_id: int
    deadline: datetime | None


@dataclass(frozen=True, slots=True)
class GameOver(Event):
    winners: tuple[int, ...]  # player ids; () for a draw
    reason: str
    scores: tuple[int, ...] | None
    players: tuple[int, ...]  # by seat


@dataclass(frozen=True, slots=True)
class UndoRequested(Event):
    requester: int
    waiting_for: tuple[int, ...]
    ply: int


@dataclass(frozen=True, slots=True)
class UndoAnswered(Event):
    player_id: int
    accepted: bool
    done: bool  # every opponent accepted: the move was taken back
    ply: int  # the record's length now
    taken_back: tuple[str, ...] = ()  # when done: the moves taken back, in order (no passes)
    taken_from: tuple[int, ...] = ()  # who had played each of them (player ids)


@dataclass(frozen=True, slots=True)
class Reminder(Event):
    """The player to move is reminded of the deadline (24 h and 1 h before it), or told
    that their bank clock ran out and spent vacation days by itself (`vacation_days_spent`)."""

    player_id: int
    deadline: datetime
    via: Via
    vacation_days_spent: float = 0.0
    vacation_days_left: float = 0.0


@dataclass(frozen=True, slots=True)
class BotThinking(Event):
    """The bot's queue is long: its move comes in about `seconds` (told after a move)."""

    ahead: int  # searches queued before this one
    seconds: int


@dataclass(frozen=True, slots=True)
class TimedOut(Event):
    """The player to move ran out of time; a GameOver follows in the same result."""

    player_id: int


@dataclass(frozen=True, slots=True)
class ConditionalsDropped(Event):
    """The opponent's move matched none of a player's conditional lines, which are gone;
    the owner alone is told."""

    player_id: int  # the owner
    answered: tuple[str, ...]  # the opponent's move no line expected


@dataclass(frozen=True, slots=True)
class ConditionalPlayed(Event):
    """A conditional line answered the opponent's move for its owner, who alone is told."""

    player_id: int  # the owner
    answered: tuple[str, ...]  # the opponent's move it answered
    texts: tuple[str, ...]  # what was played for the owner
    lines_left: int  # the owner's lines that still go on


@dataclass(frozen=True, slots=True)
class MailBounced(Event):
    """Mail to a Discord player's linked address bounced for good and is stopped; the
    player alone is told, on Discord (`game_id`: their latest game, which it rides on)."""

    player_id: int
    address: str


@dataclass(frozen=True, slots=True)
class DigestLine:
    """One game of a digest: where it is the player's move."""

    game_id: int
    guild_id: int
    title: str  # "Hex #12"
    thread_id: int | None
    deadline: datetime | None
    bank_seconds: int | None = None  # a bank clock: the player's bank left


@dataclass(frozen=True, slots=True)
class Digest(Event):
    """The daily digest: every game where it is the player's move (game_id: the first)."""

    player_id: int
    games: tuple[DigestLine, ...]


@dataclass(frozen=True, slots=True)
class TournamentNews(Event):
    """An event's announcement for its channel (a round starts, a bye, a withdrawal,
    promotions, the final standings). `game_id` is a game of the event it goes with: its
    channel is the event's."""

    tournament_id: int
    kind: str  # round bye withdrawn annulled season final cancelled
    text: str


# -- results ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Result:
    """A use case's answer: the game as it is now and what to announce."""

    game: GameSummary
    events: tuple[Event, ...] = ()
    outbox_id: int | None = None  # the events' outbox row, written in the use case's transaction


@dataclass(frozen=True, slots=True)
class MoveResult(Result):
    png: bytes = b""  # the board after the move; empty if it could not be drawn


@dataclass(frozen=True, slots=True)
class MovePreview:
    """A move checked but not played (the misclick guard): the board with it drawn."""

    game: GameSummary
    ply: int  # the position it was checked on: a confirmation holds only there
    move: str  # as typed (cleaned): what a confirmation plays
    played: str  # as the record would write it: "d5-g3"
    png: bytes  # empty when not asked for, or for taps that are no whole move yet
    text: str  # the board with the move, in characters (terminals)
    whole: bool = True  # False: taps that need more taps to be a move (`move` so far)


@dataclass(frozen=True, slots=True)
class TapBoard:
    """The position its player to move taps a move on: where each target is on its
    picture, and the tools (words) to tap beside it."""

    game: GameSummary
    ply: int
    targets: tuple[Target, ...]
    tools: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Board:
    game: GameSummary
    ply: int
    png: bytes
    legal_moves: int  # how many moves the player to move has


@dataclass(frozen=True, slots=True)
class NextGame:
    """A game from the next-game queue: where it is your move, least time left first."""

    game: GameSummary
    png: bytes
    position: int  # 1 for the game with least time left
    waiting: int  # how many games wait for your move


@dataclass(frozen=True, slots=True)
class PlayerGames:
    """A player's games on every server (their home page): those waiting for their move
    (the queue's order: least time left first), their other games under way, and the
    challenges waiting for their answer."""

    on_move: tuple[GameSummary, ...]
    under_way: tuple[GameSummary, ...]
    challenges: tuple[GameSummary, ...]


@dataclass(frozen=True, slots=True)
class Record:
    game: GameSummary
    text: str


@dataclass(frozen=True, slots=True)
class ConditionalLines:
    """A player's conditional lines in a game, as they read: "if e5 then d6, if c3 then c4"."""

    game: GameSummary
    lines: tuple[str, ...]
    note: str = ""  # what the call did: "Line added." ...


@dataclass(frozen=True, slots=True)
class PlayerSettings:
    player_id: int
    reminders: Reminders
    time_zone: str
    quiet_hours: tuple[int, int] | None  # local hours: start, end
    vacation_days_left: float
    on_vacation_since: datetime | None
    confirm_moves: bool = False  # the misclick guard: a typed move waits for Confirm
    digest_hour: int = 8  # local hour of the daily digest (reminders "digest")
    auto_vacation: bool = True  # a bank clock running out spends a vacation day
    weekend: str = "off"  # the local days bank clocks stop on: "sat-sun"
    web_profile: bool = True  # their page on the web (where the server's pages are on)


@dataclass(frozen=True, slots=True)
class RatingLine:
    player_id: int
    name: str
    game: str
    rating: int  # what players read: 1500 + 29.5 x (mu - 25) (bot/service/core/ratings.py)
    mu: float
    sigma: float
    games: int
    wins: int
    streak: int
    best_streak: int
    provisional: bool = False  # sigma still high: the rating is written "1578?"


@dataclass(frozen=True, slots=True)
class GuildSettings:
    guild_id: int
    channels: tuple[int, ...] = ()  # empty: every channel
    days_per_move: int | None = 3
    rated: bool = True
    tournaments: str = "managers"  # who may create and run events: TOURNAMENT_RUNNERS
    email: bool = False  # players by mail may play here
    email_channel: int | None = None  # where their games start
    web: WebMode = "off"  # its pages on the web: WEB_MODES
    web_token: str | None = None  # in link mode, the unguessable part of its pages' address

    @property
    def web_place(self) -> WebPlace | None:
        """Where the server's pages are, None while they are off."""
        if self.web == "off" or (self.web == "link" and self.web_token is None):
            return None
        return WebPlace(self.guild_id, self.web, self.web_token if self.web == "link" else None)


@dataclass(frozen=True, slots=True)
class WebPlace:
    """A server whose pages are on: public (`token` None: its address names the server,
    search engines may index it) or by link (its address holds `token`; never indexed).
    bot/web/urls.py writes the addresses."""

    guild_id: int
    mode: WebMode
    token: str | None = None

    @property
    def indexable(self) -> bool:
        return self.mode == "public"


# -- events: tournaments, leagues, ladders ---------------------------------------------


@dataclass(frozen=True, slots=True)
class EntrantLine:
    player_id: int
    name: str
    bot: str | None  # the bot's level when the bot plays
    withdrawn: bool


@dataclass(frozen=True, slots=True)
class TournamentSummary:
    """An event as adapters show it."""

    id: int
    guild_id: int
    channel_id: int
    name: str
    title: str  # "Spring Hex"
    game: str
    format: str  # bot/events Format values
    format_title: str  # "Swiss tournament", "round robin"
    options: dict[str, int | str | bool]
    status: str  # open active finished cancelled
    round: int  # the round (a league's season) under way; 0 before the start
    rounds: int | None  # a Swiss tournament's rounds
    match_games: int | None  # a knockout's games per match
    double: bool
    days_per_move: int | None
    rated: bool
    vacations: bool
    organizer_id: int
    entrants: tuple[EntrantLine, ...]
    max_players: int | None = None  # entries beyond it are refused
    start_players: int | None = None  # the join that makes this many starts it
    starts_at: datetime | None = None  # the scheduler starts it then
    time_control: str | None = None  # its games' bank clock: "10d+36h/10d"
    auto_vacation: bool = True  # whether those clocks spend vacation days by themselves


@dataclass(frozen=True, slots=True)
class TournamentResult:
    """A tournament use case's answer: the event as it is now, a sentence for whoever
    asked, and the results to announce (each game started or ended, each announcement
    with a game of the event), each written into the outbox in the use case's transaction."""

    tournament: TournamentSummary
    note: str
    results: tuple[Result, ...] = ()


@dataclass(frozen=True, slots=True)
class TournamentTables:
    """An event's standings: one table per division (one for most formats), its
    crosstable (round robins, a league's divisions), its bracket (knockout), as text and
    as a picture (empty when it could not be drawn)."""

    tournament: TournamentSummary
    tables: tuple[StandingsTable, ...]
    crosstables: tuple[Crosstable, ...]
    bracket: Bracket | None
    text: str
    png: bytes = b""
    pictures: tuple[bytes, ...] = ()  # every table, then every crosstable, then the bracket
