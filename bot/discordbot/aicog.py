"""The AI's slash commands: /analysis of a finished game (or the asker's against the bot
alone), with its progress edited into one message, and /hint in such a game.
The work runs in the AI queue (bot/schedule/airunner.py); these wait on the database."""

from __future__ import annotations

import asyncio
import contextlib
import io

import discord

from bot.discordbot.cog import GameCommandCog, described
from bot.discordbot.context import guild_of
from bot.discordbot.errors import fit, reply
from bot.discordbot.text import board_file

#: How often the progress message is edited, and how long an answer waits at most
#: (an interaction's token lasts 15 minutes).
PROGRESS_SECONDS = 3.0
MOST_SECONDS = 14 * 60.0


class AiCog(GameCommandCog):
    @described("analysis", public=True)
    async def analysis(self, interaction: discord.Interaction, game: int | None = None) -> None:
        summary = await self.game_meant(interaction, game, my_turn=False, finished=True)
        asking = interaction.user.id
        report = await self.service.analysis.analysis(summary.id, guild_of(interaction), asking)
        title = f"{summary.title} #{summary.id}"
        if not report.done:
            await reply(interaction, f"Analysing {title}: queued.", ephemeral=False)
            waited = 0.0
            while not report.done and waited < MOST_SECONDS:
                await asyncio.sleep(PROGRESS_SECONDS)
                waited += PROGRESS_SECONDS
                report = await self.service.analysis.analysis(summary.id, summary.guild_id, asking)
                if not report.done and report.progress:
                    await self._edit(
                        interaction,
                        f"Analysing {title}: move {report.progress}/{report.total}.",
                    )
            if not report.done:
                await self._edit(
                    interaction, f"The analysis of {title} is still queued; ask again later."
                )
                return
        text = fit(f"**Analysis of {title}**\n{report.text}")
        chart = discord.File(io.BytesIO(report.png), filename=f"analysis-{summary.id}.png")
        if interaction.response.is_done():
            await interaction.edit_original_response(content=text, attachments=[chart])
        else:
            await reply(interaction, text, ephemeral=False, file=chart)

    @described("hint")
    async def hint(self, interaction: discord.Interaction, game: int | None = None) -> None:
        summary = await self.game_meant(interaction, game, my_turn=True)
        hint = await self.service.analysis.hint(summary.id, summary.guild_id, interaction.user.id)
        if hint.move is None:
            waited = 0.0
            while hint.move is None and waited < MOST_SECONDS:
                await asyncio.sleep(PROGRESS_SECONDS / 6)
                waited += PROGRESS_SECONDS / 6
                hint = await self.service.analysis.hint(
                    summary.id, summary.guild_id, interaction.user.id
                )
        if hint.move is None:
            await reply(interaction, "The bot is too busy for a hint now; ask again later.")
            return
        await reply(
            interaction,
            f"The bot would play {hint.move}.",
            file=board_file(hint.game, hint.png),
        )

    async def _edit(self, interaction: discord.Interaction, text: str) -> None:
        with contextlib.suppress(discord.HTTPException):  # a progress line is not worth failing
            await interaction.edit_original_response(content=text)
