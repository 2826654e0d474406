"""Preferences: a player's settings (reminders, time zone, quiet hours, vacation) and a
server's (the channels for games, the default days per move, rated games, its pages on
the web)."""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from datetime import timedelta
from functools import cache
from typing import Any
from zoneinfo import available_timezones

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.service.clocks import parse_weekend, weekend_name
from bot.service.core import banks
from bot.service.core.models import (
    DAYS_PER_MOVE,
    REMINDERS,
    TOURNAMENT_RUNNERS,
    WEB_MODES,
    GuildSettings,
    Player,
    PlayerSettings,
    Refused,
    ServiceCode,
)
from bot.service.core.records import Records
from bot.service.core.rules import check_ids
from bot.service.time import deadlines, digest
from bot.service.web.pages import WebPages
from bot.store.schema import guild_settings, mail_addresses, players, welcomes
from bot.store.upserts import insert_or_nothing, upsert
from engine.core import shown, whole_number


class Preferences:
    """The use cases that read and change settings."""

    def __init__(self, records: Records, web: WebPages) -> None:
        self.records = records
        self.web = web
        self.db = records.db
        self.clock = records.clock

    async def player_settings(
        self,
        player: Player,
        *,
        reminders: str | None = None,
        time_zone: str | None = None,
        quiet_hours: str | None = None,
        vacation: bool | None = None,
        confirm_moves: bool | None = None,
        digest_hour: int | None = None,
        auto_vacation: bool | None = None,
        weekend: str | None = None,
        web_profile: bool | None = None,
    ) -> PlayerSettings:
        """Read or change a player's settings. Quiet hours are "22-7" (local hours) or "off";
        reminders "digest" is one message a day at `digest_hour` (local); `auto_vacation`:
        a bank clock running out spends a vacation day; `weekend`: the local days their
        bank clocks stop on ("sat-sun", "fri-sat", "sun" or "off"); `web_profile`: their
        page on the web is shown (their games are shown either way, as the server's)."""
        values: dict[str, Any] = {}
        if web_profile is not None:
            values["web_profile"] = web_profile
        if auto_vacation is not None:
            values["auto_vacation"] = auto_vacation
        if weekend is not None:
            name = weekend_name(parse_weekend(weekend))
            values["weekend"] = None if name == "off" else name
        if digest_hour is not None:
            if not 0 <= digest_hour <= 23:
                raise Refused(
                    "The digest's hour is a local hour, 0 to 23.", code=ServiceCode.BAD_SETTING
                )
            values["digest_hour"] = digest_hour
        if confirm_moves is not None:
            values["confirm_moves"] = confirm_moves
        if reminders is not None:
            if reminders not in REMINDERS:
                raise Refused(
                    "Reminders go each turn by dm or in the game's thread, in a daily digest, "
                    "or off.",
                    code=ServiceCode.BAD_SETTING,
                )
            values["reminders"] = reminders
        if time_zone is not None:
            values["time_zone"] = _time_zone(time_zone)
        if quiet_hours is not None:
            values["quiet_start"], values["quiet_end"] = _quiet_hours(quiet_hours)
        now = self.clock()
        repaused = values.keys() & {"weekend", "time_zone"}
        async with self.db.write() as conn:
            # these stop or move clocks, which the games' pages show: games first (lock order)
            locked = (
                await deadlines.lock_games_of(conn, player.id)
                if vacation is not None or repaused
                else []
            )
            await self.records.remember(conn, player)  # locks the row: settings calls queue here
            if reminders == "email" and not await _has_address(conn, player.id):
                raise Refused(
                    "Reminders by email need a confirmed address: give it with email first.",
                    code=ServiceCode.BAD_SETTING,
                )
            row = (await conn.execute(sa.select(players).where(players.c.id == player.id))).one()
            days_left = banks.vacation_days_left(row, now, self.records.settings.vacation_days)
            if row.vacation_year != now.year:  # a new year's allowance
                values.update(vacation_days_left=days_left, vacation_year=now.year)
            if vacation is True and row.vacation_since is None:
                if days_left <= 0:
                    raise Refused(
                        "You have no vacation days left this year.", code=ServiceCode.NO_VACATION
                    )
                values["vacation_since"] = now
            elif vacation is False and row.vacation_since is not None:
                used = (now - row.vacation_since).total_seconds() / 86400
                end = min(now, row.vacation_since + timedelta(days=max(0.0, days_left)))
                await deadlines.resume_clocks(conn, player.id, row.vacation_since, end, now)
                values.update(vacation_since=None, vacation_days_left=max(0.0, days_left - used))
            if values:
                await conn.execute(
                    players.update().where(players.c.id == player.id).values(**values)
                )
            old_pause = banks.pause_of(row.weekend, row.time_zone)
            row = (await conn.execute(sa.select(players).where(players.c.id == player.id))).one()
            new_pause = banks.pause_of(row.weekend, row.time_zone)
            if repaused and new_pause != old_pause:
                await deadlines.repause(conn, player.id, old_pause, new_pause, now)
            if "vacation_since" in values or repaused:
                for game_id in locked:
                    await self.records.changes.changed(conn, game_id)
            if values.keys() & {"reminders", "time_zone", "digest_hour"}:
                await digest.schedule(
                    conn, player.id, row.reminders, row.time_zone, row.digest_hour, now
                )
        self.records.forget_rosters()  # a roster read while this committed holds the old zone
        quiet = None if row.quiet_start is None else (row.quiet_start, row.quiet_end)
        return PlayerSettings(
            player.id,
            row.reminders,
            row.time_zone,
            quiet,
            row.vacation_days_left,
            row.vacation_since,
            row.confirm_moves,
            row.digest_hour,
            row.auto_vacation,
            row.weekend or "off",
            row.web_profile,
        )

    async def guild_settings(
        self,
        guild_id: int,
        *,
        channels: Sequence[int] | None = None,
        days_per_move: int | str | None = "keep",
        rated: bool | None = None,
        tournaments: str | None = None,
        email: bool | None = None,
        email_channel: int | None = None,
        web: str | None = None,
    ) -> GuildSettings:
        """Read or change a server's settings (adapters check the admin permission).
        Only what the call names is written: two calls at once keep both changes.
        `tournaments`: who may create and run events, "managers" or "everyone"; `email`:
        players by mail may play here, their games starting in `email_channel`; `web`: its
        pages on the web, "off", "public" or "link" (reachable only through an unguessable
        address, made the first time; turning the pages off forgets it, so the old links
        stop working)."""
        if (
            days_per_move != "keep"
            and days_per_move is not None
            and days_per_move not in DAYS_PER_MOVE
        ):
            allowed = ", ".join(str(d) for d in DAYS_PER_MOVE)
            raise Refused(
                f"Days per move must be one of {allowed}, or none.", code=ServiceCode.BAD_SETTING
            )
        if tournaments is not None and tournaments not in TOURNAMENT_RUNNERS:
            raise Refused(
                f"Events are run by {' or '.join(TOURNAMENT_RUNNERS)}.",
                code=ServiceCode.BAD_SETTING,
            )
        if web is not None and web not in WEB_MODES:
            raise Refused(
                f"The server's web pages are {', '.join(WEB_MODES[:-1])} or {WEB_MODES[-1]}.",
                code=ServiceCode.BAD_SETTING,
            )
        changes: dict[str, Any] = {}
        if web is not None:
            changes["web"] = web
            if web == "off":
                changes["web_token"] = None
        if tournaments is not None:
            changes["tournaments"] = tournaments
        if channels is not None:
            changes["channels"] = list(channels)
        if email is not None:
            changes["email"] = email
        if email_channel is not None:
            changes["email_channel"] = email_channel
        if days_per_move != "keep":
            changes["days_per_move"] = days_per_move
        if rated is not None:
            changes["rated"] = rated
        async with self.db.write() as conn:
            if changes:  # a new row starts from the defaults
                default = GuildSettings(guild_id)
                new_row = {
                    "guild_id": guild_id,
                    "channels": list(default.channels),
                    "days_per_move": default.days_per_move,
                    "rated": default.rated,
                    "tournaments": default.tournaments,
                    "email": default.email,
                } | changes
                await upsert(
                    conn, guild_settings, new_row, keys=("guild_id",), update=tuple(changes)
                )
            if web == "link":  # its address, once: the links already posted keep working
                c = guild_settings.c
                await conn.execute(
                    guild_settings.update()
                    .where(c.guild_id == guild_id, c.web_token.is_(None))
                    .values(web_token=new_web_token())
                )
            found = await self.records.load_guild_settings(conn, guild_id)
        if web is not None:  # committed: this process's pages see it at once (web.py)
            self.web.forget_places()
        return found

    async def first_welcome(self, guild_id: int) -> bool:
        """Whether the bot is to welcome this server now: True once per server, ever (the
        welcome is recorded first, so a crash after it leaves the server unwelcomed
        rather than welcomed twice)."""
        check_ids(guild_id)
        async with self.db.write() as conn:
            inserted = await conn.execute(
                insert_or_nothing(welcomes, conn.dialect.name),
                {"guild_id": guild_id, "welcomed_at": self.clock()},
            )
        return bool(inserted.rowcount)


def new_web_token() -> str:
    """The unguessable part of a link-mode server's addresses: 128 random bits."""
    return secrets.token_urlsafe(16)


async def _has_address(conn: AsyncConnection, player_id: int) -> bool:
    c = mail_addresses.c
    found = await conn.scalar(
        sa.select(c.player_id).where(
            c.player_id == player_id, c.confirmed == sa.true(), c.bounced_at.is_(None)
        )
    )
    return found is not None


def _time_zone(name: str) -> str:
    """The zone's canonical name, whatever the case it was typed in. Only the zones the
    tz database lists: ZoneInfo itself opens any path ("Europe" is a directory)."""
    canonical = _zones_by_lower_name().get(name.strip().lower())
    if canonical is None:
        raise Refused(
            f"I don't know the time zone {shown(name)}; try one like Europe/Paris.",
            code=ServiceCode.BAD_SETTING,
        )
    return canonical


@cache
def _zones_by_lower_name() -> dict[str, str]:
    return {zone.lower(): zone for zone in available_timezones()}


def _quiet_hours(text: str) -> tuple[int | None, int | None]:
    cleaned = text.strip().lower()
    if cleaned in ("off", "none", ""):
        return None, None
    hours = [whole_number(part, 2) for part in cleaned.replace(" ", "").split("-")]
    match hours:
        case [int(start), int(end)] if start != end and start < 24 and end < 24:
            return start, end
    raise Refused(
        "Quiet hours are two local hours like 22-7, or off.", code=ServiceCode.BAD_SETTING
    )
