"""The tables, as SQLAlchemy Core metadata. Migrations create them; queries use them.

Times are aware UTC datetimes in Python; SQLite keeps them as ISO text.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    CheckConstraint,
    Column,
    DateTime,
    Dialect,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    SmallInteger,
    String,
    Table,
    TypeDecorator,
    UniqueConstraint,
)


class UTCDateTime(TypeDecorator[datetime]):
    """Aware UTC datetimes on every backend (SQLite drops the zone)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime: Paperboard stores aware UTC times only")
        return value.astimezone(UTC)

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)  # type: ignore[no-any-return]
        return value.astimezone(UTC)  # type: ignore[no-any-return]


metadata = MetaData()
MAX_SEAT = 7  # seats are 0-based; no game seats more than 8 (tests/test_store checks)

#: Game ids (and deadline ids): 64-bit. SQLite's INTEGER is 64-bit already, and an
#: INTEGER PRIMARY KEY is its rowid, so SQLite keeps INTEGER (migration 0003).
ID = BigInteger().with_variant(Integer(), "sqlite")

players = Table(
    "players",
    metadata,
    Column("id", BigInteger, primary_key=True, autoincrement=False),
    Column("name", String(100), nullable=False),
    Column("reminders", String(10), nullable=False, server_default="thread"),
    Column("time_zone", String(64), nullable=False, server_default="UTC"),
    Column("quiet_start", SmallInteger),  # hour 0-23, local time
    Column("quiet_end", SmallInteger),
    Column("vacation_days_left", Float, nullable=False, server_default="14"),
    Column("vacation_year", Integer),
    Column("vacation_since", UTCDateTime()),
    Column("confirm_moves", Boolean, nullable=False, server_default="0"),  # the misclick guard
    Column("digest_hour", SmallInteger, nullable=False, server_default="8"),  # local, 0-23
    # a bank clock running out spends a vacation day by itself (migration 0010)
    Column("auto_vacation", Boolean, nullable=False, server_default="1"),
    Column("weekend", String(8)),  # bank clocks stop on these local days: "sat-sun"
    # the player's page on the web (migration 0013); off: hidden, their games still shown
    Column("web_profile", Boolean, nullable=False, server_default="1"),
    Column("created_at", UTCDateTime(), nullable=False),
    Index("players_on_vacation", "vacation_since"),
    CheckConstraint(
        "quiet_start IS NULL OR quiet_start BETWEEN 0 AND 23", name="players_quiet_start_an_hour"
    ),
    CheckConstraint(
        "quiet_end IS NULL OR quiet_end BETWEEN 0 AND 23", name="players_quiet_end_an_hour"
    ),
)

games = Table(
    "games",
    metadata,
    Column("id", ID, primary_key=True),
    Column("guild_id", BigInteger, nullable=False),
    Column("channel_id", BigInteger, nullable=False),
    Column("thread_id", BigInteger),
    Column("message_id", BigInteger),  # the status message in the parent channel
    Column("game", String(32), nullable=False),
    Column("options", JSON, nullable=False),
    Column("rules_version", Integer, nullable=False),
    Column(
        "status", String(12), nullable=False
    ),  # open active finished aborted declined cancelled expired
    Column("ply", Integer, nullable=False, server_default="0"),
    Column("to_move", Integer),  # seat, while active
    Column("challenger_id", BigInteger, nullable=False),
    Column("days_per_move", Integer),  # None: no clock, or a bank clock
    # a bank clock (migration 0010): "10d+36h/10d"; the seats' banks in microseconds (the
    # mover's as it was when its clock started); when it started; vacation time spent
    # on the turn by the clock itself
    Column("time_control", String(32)),
    Column("banks", JSON),
    Column("clock_started_at", UTCDateTime()),
    Column("grace_microseconds", BigInteger, nullable=False, server_default="0"),
    Column("first", String(12), nullable=False),  # challenger opponent random
    Column("rated", Boolean, nullable=False),
    Column("expires_at", UTCDateTime()),  # an unanswered challenge
    Column("deadline_at", UTCDateTime()),  # the current turn's, when the game has a clock
    Column("undo_seat", SmallInteger),  # a pending undo request: who asked
    Column("undo_ply", Integer),  # the ply it was asked at (a move makes it stale)
    Column("undo_approvals", JSON),  # seats that accepted it
    Column("created_at", UTCDateTime(), nullable=False),
    Column("updated_at", UTCDateTime(), nullable=False),
    Column("started_at", UTCDateTime()),
    Column("finished_at", UTCDateTime()),
    Column("winners", JSON),  # seats
    Column("reason", String(20)),
    Column("scores", JSON),
    Column("rematch_of", ID, ForeignKey("games.id")),
    Column("tournament_id", ID),  # a game of an event (migration 0008): tournaments.id
    Column("tournament_round", Integer),  # its round (a league's: the season's round)
    # a server's games by status, newest first; and of one game (the web's lists)
    Index("games_by_guild_status", "guild_id", "status", "id"),
    Index("games_by_guild_game", "guild_id", "game", "status", "id"),
    Index("games_by_thread", "thread_id"),
    Index("games_by_status_expiry", "status", "expires_at"),
    CheckConstraint("ply >= 0", name="games_ply_not_negative"),
    CheckConstraint(
        f"to_move IS NULL OR to_move BETWEEN 0 AND {MAX_SEAT}", name="games_to_move_is_a_seat"
    ),
    CheckConstraint(
        f"undo_seat IS NULL OR undo_seat BETWEEN 0 AND {MAX_SEAT}", name="games_undo_seat_is_a_seat"
    ),
    CheckConstraint(
        "status IN ('open', 'active', 'finished', 'aborted', 'declined', 'cancelled', 'expired')",
        name="games_known_status",
    ),
)

seats = Table(
    "seats",
    metadata,
    Column("game_id", ID, ForeignKey("games.id"), primary_key=True),
    Column("seat", SmallInteger, primary_key=True),
    Column("player_id", BigInteger, ForeignKey("players.id")),  # None: an open seat
    Column("accepted", Boolean, nullable=False, server_default="0"),
    Column("bot_level", String(12)),  # the seat is the bot at this level (migration 0007)
    Index("seats_by_player", "player_id", "game_id"),  # a player's games, newest first
    CheckConstraint(f"seat BETWEEN 0 AND {MAX_SEAT}", name="seats_seat_in_range"),
)

moves = Table(
    "moves",
    metadata,
    Column("game_id", ID, ForeignKey("games.id"), primary_key=True),
    Column("ply", Integer, primary_key=True),  # 0-based index in the record
    Column("seat", SmallInteger, nullable=False),  # who acted (or was made to pass)
    Column("text", String(64), nullable=False),
    Column("created_at", UTCDateTime(), nullable=False),
    Column("banks", JSON),  # a bank clock's banks when this turn's clock started (an undo)
    CheckConstraint("ply >= 0", name="moves_ply_not_negative"),
    CheckConstraint(f"seat BETWEEN 0 AND {MAX_SEAT}", name="moves_seat_in_range"),
)

deadlines = Table(
    "deadlines",
    metadata,
    Column("id", ID, primary_key=True),
    Column("game_id", ID, ForeignKey("games.id"), nullable=False),
    Column("kind", String(16), nullable=False),  # remind timeout expire
    Column("ply", Integer, nullable=False),
    Column("due_at", UTCDateTime(), nullable=False),
    Column("claimed_by", String(64)),
    Column("claimed_until", UTCDateTime()),
    Column("done", Boolean, nullable=False, server_default="0"),
    UniqueConstraint("game_id", "kind", name="one_deadline_of_a_kind"),  # rewritten each turn
    Index("deadlines_due", "done", "due_at"),
    Index("deadlines_claimed", "claimed_until"),  # leases and vacation holds running out
    CheckConstraint("ply >= 0", name="deadlines_ply_not_negative"),
)

ratings = Table(
    "ratings",
    metadata,
    Column("guild_id", BigInteger, primary_key=True),
    Column("game", String(32), primary_key=True),
    Column("player_id", BigInteger, ForeignKey("players.id"), primary_key=True),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    Column("games", Integer, nullable=False, server_default="0"),
    Column("wins", Integer, nullable=False, server_default="0"),
    Column("streak", Integer, nullable=False, server_default="0"),  # + wins, - losses in a row
    Column("best_streak", Integer, nullable=False, server_default="0"),
    CheckConstraint("wins >= 0 AND wins <= games", name="ratings_wins_within_games"),
)

conditionals = Table(
    "conditionals",
    metadata,
    Column("game_id", ID, ForeignKey("games.id"), primary_key=True),
    Column("player_id", BigInteger, ForeignKey("players.id"), primary_key=True),
    Column("ply", Integer, nullable=False),  # the game's ply the lines start from
    Column("lines", JSON, nullable=False),  # [["e5", "d6", "c3", "c4"], ...]: record entries
    Column("updated_at", UTCDateTime(), nullable=False),
)

digests = Table(  # the next daily digest of each player who asked for one
    "digests",
    metadata,
    Column("id", BigInteger, ForeignKey("players.id"), primary_key=True, autoincrement=False),
    Column("due_at", UTCDateTime(), nullable=False),
    Column("claimed_by", String(64)),
    Column("claimed_until", UTCDateTime()),
    Index("digests_due", "due_at"),
)

guild_settings = Table(
    "guild_settings",
    metadata,
    Column("guild_id", BigInteger, primary_key=True, autoincrement=False),
    Column("channels", JSON, nullable=False),  # channel ids where games may start; [] = all
    Column("days_per_move", Integer),
    Column("rated", Boolean, nullable=False, server_default="1"),
    # who may create and run events: "managers" (Manage Server) or "everyone" (migration 0008)
    Column("tournaments", String(12), nullable=False, server_default="managers"),
    # players by mail may play here (migration 0011); their games start in this channel
    Column("email", Boolean, nullable=False, server_default="0"),
    Column("email_channel", BigInteger),
    # the server's pages on the web (migration 0013): off, public, or link (only through
    # the unguessable `web_token`, which turning the pages off forgets)
    Column("web", String(8), nullable=False, server_default="off"),
    Column("web_token", String(32)),
    UniqueConstraint("web_token", name="guild_settings_one_web_token"),
    CheckConstraint("web IN ('off', 'public', 'link')", name="guild_settings_web_mode"),
)

#: The servers the bot has welcomed on joining (migration 0015): one welcome each, ever.
welcomes = Table(
    "welcomes",
    metadata,
    Column("guild_id", BigInteger, primary_key=True, autoincrement=False),
    Column("welcomed_at", UTCDateTime(), nullable=False),
)

#: Events (tournaments, leagues, ladders; migration 0008). The rules: bot/events/.
TOURNAMENT_STATUSES = ("open", "active", "finished", "cancelled")
tournaments = Table(
    "tournaments",
    metadata,
    Column("id", ID, primary_key=True),
    Column("guild_id", BigInteger, nullable=False),
    Column("channel_id", BigInteger, nullable=False),  # where it is announced, its games open
    Column("name", String(100), nullable=False),
    Column("game", String(32), nullable=False),
    Column("options", JSON, nullable=False),  # the game's options, canonical
    Column("format", String(12), nullable=False),  # bot/events Format values
    Column("rounds", Integer),  # a Swiss tournament's rounds
    Column("match_games", SmallInteger),  # a knockout's games per match: 1, 3 or 5
    Column("double", Boolean, nullable=False, server_default="0"),  # a double round robin
    Column("days_per_move", Integer),  # None: no clock, or a bank clock
    Column("vacations", Boolean, nullable=False, server_default="1"),  # vacations stop clocks
    Column("time_control", String(32)),  # its games' bank clock (migration 0010)
    Column("auto_vacation", Boolean, nullable=False, server_default="1"),  # clocks spend days
    Column("rated", Boolean, nullable=False),
    Column("organizer_id", BigInteger, nullable=False),
    Column("status", String(12), nullable=False),
    # the round (a league's season) under way: the next is paired by the one transaction
    # whose `UPDATE ... SET round = n + 1 WHERE round = n` touches the row
    Column("round", Integer, nullable=False, server_default="0"),
    Column("seed", Integer, nullable=False),  # the lots drawn (round robin's table order)
    Column("created_at", UTCDateTime(), nullable=False),
    Column("started_at", UTCDateTime()),
    Column("finished_at", UTCDateTime()),
    Column("max_players", Integer),  # entries refused beyond it (None: the format's most)
    Column("start_players", Integer),  # the join that makes this many starts the event
    # the scheduler starts an open event at this moment (too few: when enough have joined)
    Column("starts_at", UTCDateTime()),
    Index("tournaments_by_guild_status", "guild_id", "status"),
    Index("tournaments_by_start", "status", "starts_at"),
    CheckConstraint(
        "status IN ('open', 'active', 'finished', 'cancelled')", name="tournaments_known_status"
    ),
    CheckConstraint("round >= 0", name="tournaments_round_not_negative"),
)

entrants = Table(
    "entrants",
    metadata,
    Column("tournament_id", ID, ForeignKey("tournaments.id"), primary_key=True),
    Column("player_id", BigInteger, ForeignKey("players.id"), primary_key=True),
    Column("seq", Integer, nullable=False),  # entry order: orders equal ratings
    Column("bot_level", String(12)),  # the bot at this level
    Column("rating", Float, nullable=False, server_default="0"),  # as seeded at the start
    Column("withdrawn", Boolean, nullable=False, server_default="0"),
    Column("division", SmallInteger),  # a league's, this season (0 is the top)
    Column("place", Integer),  # a ladder's (1 is the top)
    Column("joined_at", UTCDateTime(), nullable=False),
)

tournament_rounds = Table(  # one row per round started: its primary key pairs it once
    "tournament_rounds",
    metadata,
    Column("tournament_id", ID, ForeignKey("tournaments.id"), primary_key=True),
    Column("number", Integer, primary_key=True),
    Column("bye_id", BigInteger),  # a Swiss bye
    Column("matches", JSON),  # a knockout round's matches: [[high, low or null], ...]
    Column("started_at", UTCDateTime(), nullable=False),
)

pairings = Table(  # one row per game of an event
    "pairings",
    metadata,
    Column("id", ID, primary_key=True),
    Column("tournament_id", ID, ForeignKey("tournaments.id"), nullable=False),
    Column("round", Integer, nullable=False),
    Column("division", SmallInteger, nullable=False, server_default="0"),  # a league's
    Column("match", SmallInteger),  # a knockout match's index in its round
    Column("first_id", BigInteger, nullable=False),
    Column("second_id", BigInteger, nullable=False),
    Column("game_id", ID, ForeignKey("games.id")),
    Column("done", Boolean, nullable=False, server_default="0"),
    Column("winner_id", BigInteger),  # None: a draw (or, forfeited, both lost)
    Column("finish", String(8)),  # played time forfeit (bot/events Finish)
    Column("ended_at", UTCDateTime()),
    UniqueConstraint("game_id", name="one_pairing_per_game"),
    Index("pairings_by_round", "tournament_id", "round", "done"),
)

outbox = Table(
    "outbox",
    metadata,
    Column("id", ID, primary_key=True),  # one row per announcement outlives 2**31
    Column("game_id", BigInteger, nullable=False),  # the game the result shows
    Column("events", JSON, nullable=False),  # [{"type": "MovePlayed", ...}, ...]
    Column("created_at", UTCDateTime(), nullable=False),
    Column("claimed_by", String(64)),  # the process delivering it
    Column("claimed_until", UTCDateTime()),
    Column("attempts", SmallInteger, nullable=False, server_default="0"),
    # posted by the adapter itself; set only when a delivery beside it (mail) failed
    # after the post, so that the mail is sent again without posting the result twice
    Column("published_at", UTCDateTime()),
    Column("delivered_at", UTCDateTime()),
    Index("outbox_pending", "delivered_at", "claimed_until"),
)

#: A player's mail address (migration 0011): a Discord player's, linked with a code, or an
#: email-only player's (whose id is negative: never a Discord id nor the bot's).
mail_addresses = Table(
    "mail_addresses",
    metadata,
    Column("player_id", BigInteger, ForeignKey("players.id"), primary_key=True),
    Column("address", String(254), nullable=False),  # lower case
    Column("confirmed", Boolean, nullable=False, server_default="0"),
    Column("code", String(12)),  # the code mailed to confirm it, until confirmed
    Column("code_mailed", Boolean, nullable=False, server_default="0"),
    Column("code_expires_at", UTCDateTime()),
    Column("bounced_at", UTCDateTime()),  # a hard bounce: no more mail to it
    Column("guild_id", BigInteger),  # an email-only player's server
    Column("created_at", UTCDateTime(), nullable=False),
    UniqueConstraint("address", name="one_player_per_address"),
)

#: Each mail the outbox sent: one row per outbox row and address, so a delivery tried
#: again sends only what was not sent.
mails_sent = Table(
    "mails_sent",
    metadata,
    Column("outbox_id", ID, primary_key=True),
    Column("address", String(254), primary_key=True),
    Column("sent_at", UTCDateTime(), nullable=False),
)

#: Each inbound mail, by its Message-ID (migration 0016): claimed by the process handling
#: it (a second delivery meanwhile is told to come again), `handled` once its handling is
#: done; a failure lets go of it, so the mail's next delivery is handled in full.
mails_received = Table(
    "mails_received",
    metadata,
    Column("key", String(64), primary_key=True),  # SHA-256 of the Message-ID, in hex
    Column("received_at", UTCDateTime(), nullable=False),
    Column("claimed_by", String(64)),
    Column("claimed_until", UTCDateTime()),
    Column("handled", Boolean, nullable=False, server_default="0"),
    Index("mails_received_by_age", "received_at"),
)

#: A signed-in browser (migration 0017): keyed by the SHA-256 of its cookie's secret, so
#: that the table read by someone else signs no one in; deleted to sign out.
web_sessions = Table(
    "web_sessions",
    metadata,
    Column("key", String(64), primary_key=True),
    Column("player_id", BigInteger, nullable=False),
    Column("name", String(100), nullable=False),
    Column("csrf", String(64), nullable=False),  # every form of the session carries it
    Column("via", String(12), nullable=False),  # discord, mail, bot, console
    Column("created_at", UTCDateTime(), nullable=False),
    Column("seen_at", UTCDateTime(), nullable=False),
    Index("web_sessions_by_player", "player_id"),
    Index("web_sessions_by_age", "seen_at"),
)

#: A one-time sign-in (migration 0017): a link mailed or given by the bot (`kind` mail,
#: bot), or an OAuth2 sign-in under way (`kind` oauth: `secret` its PKCE verifier); keyed
#: by the SHA-256 of the secret the browser holds, used once, short-lived.
web_signins = Table(
    "web_signins",
    metadata,
    Column("key", String(64), primary_key=True),
    Column("kind", String(12), nullable=False),
    Column("player_id", BigInteger),
    Column("name", String(100)),
    Column("secret", String(128)),
    Column("expires_at", UTCDateTime(), nullable=False),
    Column("used", Boolean, nullable=False, server_default="0"),
    Index("web_signins_by_expiry", "expires_at"),
)

ai_jobs = Table(
    "ai_jobs",
    metadata,
    Column("id", ID, primary_key=True),
    Column("game_id", ID, ForeignKey("games.id"), nullable=False),
    Column("kind", String(12), nullable=False),  # move analysis hint
    Column("ply", Integer, nullable=False),  # the position it is about (analysis: the last)
    Column("requested_at", UTCDateTime(), nullable=False),  # first come, first served
    Column("claimed_by", String(64)),
    Column("claimed_until", UTCDateTime()),
    Column("attempts", SmallInteger, nullable=False, server_default="0"),
    Column("done", Boolean, nullable=False, server_default="0"),
    Column("progress", Integer, nullable=False, server_default="0"),  # positions analysed
    Column("total", Integer, nullable=False, server_default="0"),
    Column("result", JSON),  # analysis: chances and text; hint: the move
    Column("png", LargeBinary),  # analysis: the chart
    Column("finished_at", UTCDateTime()),
    UniqueConstraint("game_id", "kind", "ply", name="one_ai_job_per_position"),
    Index("ai_jobs_waiting", "done", "requested_at"),
)

__all__ = [
    "ai_jobs",
    "conditionals",
    "deadlines",
    "digests",
    "entrants",
    "games",
    "guild_settings",
    "mail_addresses",
    "mails_received",
    "mails_sent",
    "metadata",
    "moves",
    "outbox",
    "pairings",
    "players",
    "ratings",
    "seats",
    "tournament_rounds",
    "tournaments",
    "web_sessions",
    "web_signins",
    "welcomes",
]
