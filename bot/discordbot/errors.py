"""One place that turns an error into a reply: a refusal is the service's sentence,
shown only to the person who asked; anything else is logged and apologised for. Every
answer to an interaction goes through `reply`, which keeps it within Discord's limits (a long
text comes in several messages)."""

from __future__ import annotations

import logging
from collections.abc import Awaitable
from typing import Any

import discord
from discord import app_commands

from bot.service import Refused

log = logging.getLogger("paperboard.discord")

SORRY = "Something went wrong on my side; it is logged. Nothing was changed."
NO_PINGS = discord.AllowedMentions.none()  # an ephemeral answer has no one to notify
MESSAGE_LIMIT = 2000  # characters of a message's content; Discord refuses more (400)


async def report_error(interaction: discord.Interaction, error: BaseException) -> None:
    if isinstance(error, app_commands.CommandInvokeError):
        error = error.original
    if isinstance(error, Refused):
        text = str(error)
    elif isinstance(error, app_commands.CheckFailure):
        text = "You need the Manage Server permission for that."
    else:
        command = interaction.command.name if interaction.command else interaction.data
        log.error("interaction failed: %s", command, exc_info=error)
        text = SORRY
    await reply(interaction, text)


def fit(text: str) -> str:
    """The text cut to what Discord takes, the last line of defence: an answer Discord
    refuses leaves the player with none at all. (The bot sends no embeds.)"""
    return text if len(text) <= MESSAGE_LIMIT else text[: MESSAGE_LIMIT - 1] + "…"


def messages_of(lines: list[str]) -> list[str]:
    """The lines packed into as few messages as Discord takes, each cut between lines
    (a single line too long for a message is cut by `fit`)."""
    packed: list[str] = []
    for line in lines:
        if packed and len(packed[-1]) + 1 + len(line) <= MESSAGE_LIMIT:
            packed[-1] += "\n" + line
        else:
            packed.append(fit(line))
    return packed


async def reply(
    interaction: discord.Interaction,
    text: str,
    *,
    ephemeral: bool = True,
    allowed_mentions: discord.AllowedMentions = NO_PINGS,
    **extra: Any,
) -> bool:
    """Answer an interaction (ephemeral unless said otherwise; files and views in
    `extra`), or follow up when it was answered or deferred already. A long text
    without files or views comes in several messages, cut between lines. False when
    Discord did not take the answer (the interaction expired, or Discord is down):
    a caller whose answer was also the announcement must post it another way."""
    parts = [fit(text)] if extra else messages_of(text.splitlines() or [""])
    for part in parts:
        send = (
            interaction.followup.send
            if interaction.response.is_done()
            else interaction.response.send_message
        )
        answer = send(part, ephemeral=ephemeral, allowed_mentions=allowed_mentions, **extra)
        if not await taken(interaction, answer):
            return False
    return True


async def taken(interaction: discord.Interaction, answer: Awaitable[object]) -> bool:
    """Send `answer` to `interaction`; False when Discord did not take it (the
    interaction expired: the 3 s ran out under load; or Discord is down), logged."""
    try:
        await answer
    except discord.HTTPException:
        log.warning("could not answer interaction %s", interaction.id, exc_info=True)
        return False
    return True
