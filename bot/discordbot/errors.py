"""One place that turns an error into a reply: a refusal is the service's sentence,
shown only to the person who asked; anything else is logged and apologised for."""

from __future__ import annotations

import logging

import discord
from discord import app_commands

from bot.service import Refused

log = logging.getLogger("paperboard.discord")

SORRY = "Something went wrong on my side; it is logged. Nothing was changed."
NO_PINGS = discord.AllowedMentions.none()  # an ephemeral answer has no one to notify


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


async def reply(
    interaction: discord.Interaction,
    text: str,
    *,
    allowed_mentions: discord.AllowedMentions = NO_PINGS,
) -> None:
    """An ephemeral answer, whether or not the interaction was answered already."""
    try:
        if interaction.response.is_done():
            await interaction.followup.send(text, ephemeral=True, allowed_mentions=allowed_mentions)
        else:
            await interaction.response.send_message(
                text, ephemeral=True, allowed_mentions=allowed_mentions
            )
    except discord.HTTPException:  # the interaction expired or Discord is down: log, go on
        log.warning("could not answer interaction %s", interaction.id, exc_info=True)
