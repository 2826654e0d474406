"""Challenges: /challenge, and /rematch, a challenge to the same players. The challenge
message is the command's public answer; it stands for the game."""

from __future__ import annotations

import discord
from discord import app_commands

from bot.discordbot.cog import GameCommandCog, described, key_values
from bot.discordbot.context import as_player, asker, guild_of
from bot.discordbot.errors import reply
from bot.discordbot.text import MENTIONS, status_text
from bot.discordbot.views import challenge_view
from bot.discordbot.weblinks import view_kwargs, with_link
from bot.service import DEFAULT_LEVEL, Place, Refused, Result, ServiceCode, parse_days


class ChallengesCog(GameCommandCog):
    @described("challenge", public=True)
    async def challenge(
        self,
        interaction: discord.Interaction,
        game: str,
        opponent: discord.User | None = None,
        opponent2: discord.User | None = None,
        opponent3: discord.User | None = None,
        opponent4: discord.User | None = None,
        opponent5: discord.User | None = None,
        opponent6: discord.User | None = None,
        opponent7: discord.User | None = None,
        email: str | None = None,
        open_seats: app_commands.Range[int, 0, 7] = 0,
        size: str | None = None,
        options: str | None = None,
        days_per_move: str | None = None,
        clock: str | None = None,
        first: str = "random",
        rated: bool | None = None,
        level: str | None = None,
    ) -> None:
        if interaction.guild_id is None:
            raise Refused(
                "Challenges are made in a server's channel, where the game gets its own "
                "thread; not in direct messages.",
                code=ServiceCode.DM,
            )
        if isinstance(interaction.channel, discord.Thread):
            raise Refused(
                "Start challenges in a channel; each game gets its own thread.",
                code=ServiceCode.THREAD,
            )
        named = [
            u
            for u in (opponent, opponent2, opponent3, opponent4, opponent5, opponent6, opponent7)
            if u
        ]
        me = interaction.client.user
        robots = [u for u in named if me is not None and u.id == me.id]  # a seat each
        people = [u for u in named if u not in robots]
        if any(user.bot for user in people):
            raise Refused(
                "Other bots can't play; challenge a person, or me.", code=ServiceCode.BOT_OPPONENT
            )
        bots = [level or DEFAULT_LEVEL] * len(robots) or ([level] if level else [])
        settings = key_values(options)
        if size:
            settings["size"] = size
        opponents = [as_player(user) for user in people]
        if email:  # a player by mail, named by their address
            opponents.append(await self.service.mail.mail_opponent(guild_of(interaction), email))
        result = await self.service.challenges.challenge(
            Place(guild_of(interaction), interaction.channel_id or 0),
            asker(interaction),
            game,
            opponents=opponents,
            open_seats=open_seats,
            options=settings,
            days_per_move=parse_days(days_per_move, unset="default"),
            first=first,
            rated=rated,
            bots=bots,
            clock=clock,
        )
        await self.post_challenge(interaction, result)

    async def post_challenge(self, interaction: discord.Interaction, result: Result) -> None:
        """The challenge message is the command's public answer; it stands for the game."""
        game = result.game
        view = with_link(challenge_view(game), await self.announcer.links.game(game))
        answered = await reply(
            interaction,
            status_text(game),
            ephemeral=False,
            allowed_mentions=MENTIONS,
            **view_kwargs(view),
        )
        if answered:
            message = await interaction.original_response()
            await self.service.lookups.attach(game.id, message_id=message.id)
        # Not answered (the interaction expired): the announcer posts the message instead.
        await self.announcer.publish(result, status_done=answered)

    @described("rematch", public=True)
    async def rematch(self, interaction: discord.Interaction, game: int | None = None) -> None:
        summary = await self.game_meant(interaction, game, my_turn=False, finished=True)
        result = await self.service.challenges.rematch(
            summary.id, summary.guild_id, asker(interaction)
        )
        channel = await self.announcer.channel(result.game.channel_id)
        if channel is None or interaction.channel_id == result.game.channel_id:
            await self.post_challenge(interaction, result)
            return
        # Answered first: the challenge message is posted in its channel afterwards.
        await reply(interaction, f"Rematch offered in <#{result.game.channel_id}>.")
        await self.announcer.publish(result)  # the challenge message, in the game's channel
