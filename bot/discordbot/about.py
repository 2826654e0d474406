"""About games, players and the server: /rules, /rating, /leaderboard, /settings (a
player's own) and /config (the server's, Manage Server)."""

from __future__ import annotations

import re

import discord
from discord import app_commands

import engine
from bot.discordbot.cog import GameCommandCog, described
from bot.discordbot.context import asker, guild_of
from bot.discordbot.errors import reply
from bot.discordbot.text import mention, when
from bot.service import (
    Refused,
    ServiceCode,
    bot_record_lines,
    clock_text,
    leaderboard_line,
    parse_days,
    rating_line,
    rules_card,
    settings_line,
)
from bot.web.links import WebLinks


class AboutCog(GameCommandCog):
    @described("rules")
    async def rules(self, interaction: discord.Interaction, game: str) -> None:
        await reply(interaction, rules_card(game))

    @described("rating")
    async def rating(
        self,
        interaction: discord.Interaction,
        player: discord.User | None = None,
        game: str | None = None,
    ) -> None:
        whose = player or interaction.user
        me = interaction.client.user
        if me is not None and whose.id == me.id:  # the bot plays casual games only
            await self._bot_record(interaction, game)
            return
        found = await self.service.lookups.ratings(guild_of(interaction), whose.id, game)
        casual = await self.service.play.bot_records(guild_of(interaction), whose.id)
        said = [rating_line(r) for r in found] or ["No rated games here yet."]
        said += bot_record_lines([r for r in casual if game is None or r[1] == game], against=True)
        await reply(
            interaction,
            f"{mention(whose.id)}\n" + "\n".join(said),
            allowed_mentions=discord.AllowedMentions.none(),
        )

    async def _bot_record(self, interaction: discord.Interaction, game: str | None) -> None:
        records = await self.service.play.bot_records(guild_of(interaction))
        shown = bot_record_lines([r for r in records if game is None or r[1] == game])
        if not shown:
            await reply(interaction, "Nobody here has finished a game against me yet.")
            return
        await reply(interaction, "My casual games here, per level:\n" + "\n".join(shown))

    @described("leaderboard")
    async def leaderboard(self, interaction: discord.Interaction, game: str) -> None:
        found = await self.service.lookups.leaderboard(guild_of(interaction), game)
        if not found:
            await reply(interaction, "Nobody has finished a rated game of that here yet.")
            return
        rows = [leaderboard_line(i, mention(r.player_id), r) for i, r in enumerate(found, 1)]
        await reply(
            interaction,
            f"**{engine.GAMES[game].title}**\n" + "\n".join(rows),
            allowed_mentions=discord.AllowedMentions.none(),
        )

    @described("settings")
    async def settings(
        self,
        interaction: discord.Interaction,
        reminders: str | None = None,
        time_zone: str | None = None,
        quiet_hours: str | None = None,
        vacation: bool | None = None,
        confirm_moves: bool | None = None,
        digest_hour: app_commands.Range[int, 0, 23] | None = None,
        auto_vacation: bool | None = None,
        weekend: str | None = None,
        email: str | None = None,
        email_code: str | None = None,
        web_profile: bool | None = None,
    ) -> None:
        said = []
        if email is not None:
            said.append(await self.service.mail.link_email(asker(interaction), email))
        if email_code is not None:
            said.append(await self.service.mail.confirm_email(asker(interaction), email_code))
        found = await self.service.preferences.player_settings(
            asker(interaction),
            reminders=reminders,
            time_zone=time_zone,
            quiet_hours=quiet_hours,
            vacation=vacation,
            confirm_moves=confirm_moves,
            digest_hour=digest_hour,
            auto_vacation=auto_vacation,
            weekend=weekend,
            web_profile=web_profile,
        )
        await reply(interaction, "\n".join([*said, settings_line(found, when)]))

    @described("config")
    @app_commands.default_permissions(manage_guild=True)
    @app_commands.guild_only()
    async def config(
        self,
        interaction: discord.Interaction,
        channels: str | None = None,
        days_per_move: str | None = None,
        rated: bool | None = None,
        tournaments: str | None = None,
        email: bool | None = None,
        web: str | None = None,
    ) -> None:
        member = interaction.user
        if not isinstance(member, discord.Member) or not member.guild_permissions.manage_guild:
            raise Refused(
                "You need the Manage Server permission for that.", code=ServiceCode.NOT_ADMIN
            )
        found = await self.service.preferences.guild_settings(
            guild_of(interaction),
            channels=_channel_ids(channels),
            days_per_move=parse_days(days_per_move, unset="keep"),
            rated=rated,
            tournaments=tournaments,
            email=email,
            email_channel=interaction.channel_id if email else None,
            web=web,
        )
        where = ", ".join(f"<#{c}>" for c in found.channels) or "every channel"
        rated_words = "on" if found.rated else "off"
        by_mail = (
            f"players by mail play in <#{found.email_channel}>"
            if found.email and found.email_channel
            else "no players by mail"
        )
        await reply(
            interaction,
            f"Games may start in {where}; {clock_text(found.days_per_move)}; "
            f"rated games {rated_words}; events run by {found.tournaments}; {by_mail}; "
            f"{WebLinks(self.service).sentence(found)}.",
        )


def _channel_ids(text: str | None) -> list[int] | None:
    if text is None:
        return None
    if text.strip().lower() in ("all", "any", "every", "*"):
        return []
    ids = [int(match) for match in re.findall(r"\d{15,20}", text)]
    if not ids:
        raise Refused(
            "Name channels with #mentions or ids, or say all.", code=ServiceCode.BAD_SETTING
        )
    return ids
