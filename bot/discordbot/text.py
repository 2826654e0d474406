"""The words and files the bot posts: mentions, Discord timestamps, boards, and the
status message that stands for a game in its channel."""

from __future__ import annotations

import io
from collections.abc import Callable, Sequence
from datetime import datetime

import discord

import engine
from bot.service import (
    ConditionalPlayed,
    ConditionalsDropped,
    Event,
    GameSummary,
    away_note,
    banks_text,
    bot_name,
    describe,
    game_clock_text,
    options_text,
)

#: Mentions ping players, never roles or everyone.
MENTIONS = discord.AllowedMentions(everyone=False, roles=False, users=True, replied_user=False)


def mention(player_id: int) -> str:
    """A ping for a person; the bot's own seats are named (no Discord account has their ids)."""
    name = bot_name(player_id)
    return f"**{name}**" if name is not None else f"<@{player_id}>"


def mention_in(game: GameSummary) -> Callable[[int], str]:
    """`mention`, with the game's players by mail named: they have no Discord account
    (their names say "(by email)")."""
    by_mail = {s.player_id: s.name for s in game.seats if s.player_id and s.player_id < 0}
    return lambda player_id: (
        f"**{by_mail[player_id]}**" if player_id in by_mail else mention(player_id)
    )


def when(moment: datetime, zone: str | None = None) -> str:
    """A Discord timestamp each reader sees in their own time zone: "in 3 days" (so
    the zone of whom the time is for is not needed)."""
    return f"<t:{int(moment.timestamp())}:R>"


#: Events for one player's eyes (their DMs), never in a game's thread.
PRIVATE_EVENTS = (ConditionalPlayed, ConditionalsDropped)


def thread_link(game: GameSummary) -> str:
    """A link that opens the game's thread (or its channel, when it has none) from
    anywhere (a DM)."""
    return f"https://discord.com/channels/{game.guild_id}/{game.thread_id or game.channel_id}"


def lines(events: Sequence[Event], game: GameSummary) -> str:
    """The public sentences of `events` (private ones are left out)."""
    return "\n".join(
        describe(event, game, mention_in(game), when)
        for event in events
        if not isinstance(event, PRIVATE_EVENTS)
    )


def board_file(game: GameSummary, png: bytes, ply: int | None = None) -> discord.File:
    return discord.File(
        io.BytesIO(png),
        filename=f"{game.game}-{game.id}-move-{game.ply if ply is None else ply}.png",
    )


def status_text(game: GameSummary) -> str:
    """The challenge message: the game, its players and where it stands now."""
    info = engine.GAMES[game.game]
    mention = mention_in(game)
    head = (
        f"**{info.title} #{game.id}** · {options_text(game.options)} · "
        f"{game_clock_text(game)} · "
        f"{'rated' if game.rated else 'casual'}"
    )
    seats = " · ".join(
        f"{game.seat_names[s.seat]}: {mention(s.player_id) if s.player_id else 'open seat'}"
        + ("" if s.accepted or s.player_id is None else " (invited)")
        for s in game.seats
    )
    away = away_note(game, mention)
    return f"{head}\n{seats}\n{_standing(game)}" + (f"\n{away}" if away else "")


def _standing(game: GameSummary) -> str:
    mention = mention_in(game)
    where = f" · in <#{game.thread_id}>" if game.thread_id else ""
    if game.status == "open":
        expires = f" The challenge expires {when(game.expires_at)}." if game.expires_at else ""
        waiting = [s for s in game.seats if s.player_id is not None and not s.accepted]
        open_seats = sum(1 for s in game.seats if s.player_id is None)
        parts = []
        if waiting:
            parts.append("waiting for " + ", ".join(mention(s.player_id or 0) for s in waiting))
        if open_seats:
            parts.append(f"{open_seats} open seat{'s' if open_seats > 1 else ''}: press Join")
        return f"Challenge: {'; '.join(parts)}.{expires}"
    if game.status == "active":
        mover = game.player_to_move
        due = f", due {when(game.deadline)}" if game.deadline else ""
        banks = f" · {banks_text(game)}" if game.banks else ""
        return f"Move {game.ply + 1}: {mention(mover or 0)} to move{due}{banks}{where}"
    if game.status == "finished":
        if not game.winners:
            return f"Drawn ({game.reason}) after {game.ply} moves{where}"
        names = " & ".join(mention(game.seats[s].player_id or 0) for s in game.winners)
        verb = "wins" if len(game.winners) == 1 else "share the win"
        return f"{names} {verb} ({game.reason}) after {game.ply} moves{where}"
    return f"This challenge was {game.status}."
