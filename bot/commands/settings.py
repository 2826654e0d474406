"""Settings: a player's own, and the server's."""

from __future__ import annotations

from bot.commands.declaration import Command, Param
from bot.service.clocks import WEEKENDS
from bot.service.core.messages import DAYS_PER_MOVE_CHOICES
from bot.service.core.models import REMINDERS, TOURNAMENT_RUNNERS, WEB_MODES

COMMANDS: tuple[Command, ...] = (
    Command(
        "settings",
        "Your reminders (each turn, by email, daily digest, off), time zone, quiet hours, "
        "vacation, weekend, confirm moves, your mail address.",
        (
            Param(
                "reminders",
                "choice",
                "each turn by dm, in the thread or by email (a confirmed address), a daily "
                "digest by dm, or off",
                choices=REMINDERS,
            ),
            Param(
                "digest_hour", "int", "the local hour of your daily digest, 0-23", keys=("digest",)
            ),
            Param("time_zone", "text", "e.g. Europe/Paris", keys=("tz",)),
            Param(
                "quiet_hours",
                "text",
                "local hours without reminders, e.g. 22-7, or off",
                keys=("quiet",),
            ),
            Param("vacation", "bool", "stop your clocks (limited days per year)"),
            Param(
                "auto_vacation",
                "bool",
                "a bank clock running out spends one of your vacation days by itself",
            ),
            Param(
                "weekend",
                "choice",
                "local days your bank clocks stop on",
                choices=(*WEEKENDS, "off"),
            ),
            Param(
                "confirm_moves",
                "bool",
                "show a typed move with Confirm and Cancel first",
                keys=("confirm",),
            ),
            Param("email", "text", "your mail address: a code is mailed to it to confirm"),
            Param("email_code", "text", "the code mailed to your address"),
            Param(
                "web_profile",
                "bool",
                "your page on the web, where this server's pages are on (your games show "
                "either way)",
            ),
        ),
        discord="/settings reminders:digest digest_hour:8 time_zone:Europe/Paris",
        console="settings reminders=digest digest=8 tz=Europe/Paris quiet=22-7 confirm=on   "
        "(bank clocks: settings auto_vacation=off weekend=sat-sun)",
    ),
    Command(
        "config",
        "Server settings: where games may start, the default time per move, rated games, "
        "who runs events, players by mail, the server's pages on the web.",
        (
            Param(
                "channels",
                "text",
                "channel mentions or ids where games may start; all: everywhere",
                typed="none",
            ),
            Param(
                "days_per_move",
                "days",
                "the default time per move",
                choices=DAYS_PER_MOVE_CHOICES,
                keys=("days",),
            ),
            Param("rated", "bool", "allow rated games"),
            Param(
                "tournaments",
                "choice",
                "who creates and runs events: managers (Manage Server) or everyone",
                choices=TOURNAMENT_RUNNERS,
            ),
            Param(
                "email",
                "bool",
                "players by mail may play here; their games start here",
            ),
            Param(
                "web",
                "choice",
                "the server's games, events and players on the web: public (search engines "
                "too), link (only through the links the bot posts), or off",
                choices=WEB_MODES,
            ),
        ),
        discord="/config days_per_move:5 rated:true   (events: /config tournaments:everyone; "
        "pages on the web: /config web:public)",
        console="config days=5 rated=yes web=public   (the console's one pretend server)",
        admin=True,
    ),
)
