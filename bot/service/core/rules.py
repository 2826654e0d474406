"""The service's rules, pure functions: who wins a forfeit, finishing ranks, which
games accept a move, which ids exist, and the words of a status, a result, a caption."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime, tzinfo
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from bot.service.clocks import bank_text
from bot.service.core.levels import BOT_ID_RANGE, bot_name
from bot.service.core.models import (
    DAYS_PER_MOVE,
    GameSummary,
    GuildSettings,
    Player,
    Refused,
    ServiceCode,
)
from engine import Code, GameState

MAX_ID = 2**63 - 1


def forfeit(state: GameState, loser: int) -> tuple[tuple[int, ...], tuple[int, ...] | None]:
    """Winners when `loser` resigns or runs out of time: the best-scoring of the others."""
    others = [seat for seat in range(state.players) if seat != loser]
    scores = getattr(state, "scores", None)
    if scores is None or len(others) == 1:
        return tuple(others), scores
    best = max(scores[seat] for seat in others)
    return tuple(seat for seat in others if scores[seat] == best), tuple(scores)


def finishing_ranks(
    players: int, winners: tuple[int, ...], scores: tuple[int, ...] | None, loser: int | None = None
) -> list[int]:
    """Ranks by seat for the rating update (1 is best; equal ranks tie).

    Winners first; then by score where the game keeps one; a player who resigned
    or timed out last. A draw ranks everyone equal.
    """
    if not winners:
        return [1] * players
    keys = []
    for seat in range(players):
        score = scores[seat] if scores is not None else 0
        keys.append((seat == loser, seat not in winners, -score))
    ordered = sorted(set(keys))
    return [ordered.index(key) + 1 for key in keys]


def bot_to_move(game: GameSummary) -> str | None:
    """The level of the bot whose turn it is in an active game, or None."""
    seat = game.to_move
    if game.status != "active" or seat is None:
        return None
    return game.seats[seat].bot


def alone_with_the_bot(summary: GameSummary, player_id: int | None) -> bool:
    """`player_id` plays here against the bot alone: every other seat is the bot's. Only
    then is the engine's help (a hint, an analysis of a game under way) fair play; with
    another person seated it would be help against them."""
    seat = None if player_id is None else summary.seat_of(player_id)
    if seat is None or summary.seats[seat].bot is not None:
        return False
    others = [s for s in summary.seats if s.seat != seat]
    return bool(others) and all(s.bot is not None for s in others)


def require_active(row: Any) -> None:
    if row.status == "active":
        return
    if row.status == "open":
        raise Refused(
            "This game has not started yet: it is waiting for players.",
            code=ServiceCode.NOT_STARTED,
        )
    raise Refused(f"This game is {status_words(row.status)}.", code=Code.GAME_OVER)


def status_words(status: str) -> str:
    return {
        "open": "still waiting for players",
        "active": "under way",
        "finished": "over",
        "aborted": "aborted",
        "declined": "declined",
        "cancelled": "cancelled",
        "expired": "expired",
    }.get(status, status)


def game_terms(
    guild: GuildSettings,
    channel_id: int,
    days_per_move: int | str | None,
    rated: bool | None,
    *,
    what: str = "Games",
) -> int | None:
    """The days per move of a new game (or event) on this server, refused where the server
    does not allow its channel, its clock ("default": the server's) or a rated game."""
    if guild.channels and channel_id not in guild.channels:
        raise Refused(f"{what} cannot be started in this channel.", code=ServiceCode.CHANNEL)
    days = guild.days_per_move if days_per_move == "default" else days_per_move
    if days is not None and (not whole(days) or days not in DAYS_PER_MOVE):
        allowed = ", ".join(str(d) for d in DAYS_PER_MOVE)
        raise Refused(f"Days per move must be one of {allowed}, or none.", code=Code.BAD_OPTION)
    if rated and not guild.rated:
        raise Refused("Rated games are switched off on this server.", code=ServiceCode.UNRATED)
    return days if isinstance(days, int) else None


def whole(value: object) -> bool:
    """A whole number given as one (not a bool, not a float that looks like one)."""
    return isinstance(value, int) and not isinstance(value, bool)


def check_ids(*ids: int) -> None:
    """Whole numbers a BIGINT holds (a player by mail has a negative id)."""
    for value in ids:
        if not whole(value) or not -MAX_ID <= value <= MAX_ID:
            raise _unknown_id()


def check_people(*people: Player) -> None:
    """People's ids, and none in the bot's range (`BOT_ID_RANGE`) but the bot's own
    identities: Discord's and the console's ids are far above it, and one there would
    read as a level of the bot. Players by mail have negative ids
    (bot/service/mail/addresses.py)."""
    check_ids(*(person.id for person in people))
    if any(p.id in BOT_ID_RANGE and bot_name(p.id) != p.name for p in people):
        raise _unknown_id()


def check_ply(game_id: int, last: int, ply: int | None) -> None:
    """Refuse a move number the game does not have (None: the position now)."""
    if ply is not None and not 0 <= ply <= last:
        raise Refused(
            f"Game #{game_id} has moves 0 to {last}; there is no move {ply}.",
            code=ServiceCode.BAD_PLY,
        )


def option_word(value: object) -> str:
    """An option's value in the words players type: on/off for a switch, else as stored."""
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)


def options_text(options: Mapping[str, Any]) -> str:
    """A game's options in full, as typed in a challenge: "size=4, segments=4, rounds=2"
    (the number of players is the seats', not an option)."""
    return ", ".join(f"{k}={option_word(v)}" for k, v in options.items() if k != "players")


def seat_names_now(summary: GameSummary, state: GameState) -> GameSummary:
    """The summary with the seats' names in this position (a swap exchanges colours)."""
    names = tuple(state.seat_name(seat.seat) for seat in summary.seats)
    return (
        summary if names == summary.seat_names else dataclasses.replace(summary, seat_names=names)
    )


def result_text(summary: GameSummary, *, reader: int | None = None) -> str:
    """ "Result: ann wins (resignation)."; told to a player (`reader`, a mail's), they are
    "you": "Result: you win (resignation)."."""
    seat = None if reader is None else summary.seat_of(reader)
    if seat is not None and summary.winners == (seat,):
        return f"Result: you win ({summary.reason})."

    def name(index: int) -> str:
        return "you" if index == seat else summary.name_of_seat(index)

    return f"Result: {outcome_words(summary.winners, summary.reason, name)}."


def outcome_words(
    winners: Sequence[int], reason: str | None, name_of_seat: Callable[[int], str]
) -> str:
    """How a game ended: "ann wins (resignation)", "draw (passes)"."""
    if not winners:
        return f"draw ({reason})"
    names = " & ".join(name_of_seat(s) for s in winners)
    verb = "wins" if len(winners) == 1 else "share the win"
    return f"{names} {verb} ({reason})"


def zone(name: str | None) -> tzinfo:
    """A player's time zone by its name (settings check it); UTC for none or a stale one."""
    try:
        return ZoneInfo(name) if name else UTC
    except (ZoneInfoNotFoundError, ValueError):
        return UTC


def local_time(moment: datetime, zone_name: str | None, pattern: str = "%d %b %H:%M") -> str:
    """A moment as a player reads it, in their zone and naming it: "29 Nov 06:47 CET".
    A zone whose abbreviation is only an offset ("-03") reads "UTC-03"."""
    local = moment.astimezone(zone(zone_name))
    abbreviation = local.strftime("%Z")
    if abbreviation[:1] in ("+", "-"):
        abbreviation = f"UTC{abbreviation}"
    return f"{local.strftime(pattern)} {abbreviation}"


def deadline_caption(summary: GameSummary, zone_name: str | None = None) -> str | None:
    """The deadline under a board, in `zone_name` (the one person it is drawn for) or,
    for a board everyone sees, in the zone of the player whose deadline it is."""
    if summary.deadline is None:
        return None
    mover = summary.player_to_move
    # the banks last: a caption too long for the picture is shortened at its end
    banks = f" · {banks_text(summary)}" if summary.banks else ""
    if mover in summary.away:
        return f"clock stopped: on vacation{banks}"
    shown_in = zone_name or (summary.zone_of(mover) if mover is not None else None)
    return f"due {local_time(summary.deadline, shown_in)}{banks}"


def banks_text(summary: GameSummary) -> str:
    """A bank clock's banks by seat: "ann 6d 4h · bob 9d 21h" ("" for other clocks)."""
    return " · ".join(
        f"{seat.name or 'open seat'} {bank_text(bank)}"
        for seat, bank in zip(summary.seats, summary.banks, strict=False)
    )


def _unknown_id() -> Refused:
    return Refused("That id is not one I know.", code=ServiceCode.BAD_ID)
