"""The console's room for settings: a player's own (settings), and the pretend server's
(config: whoever types here manages it)."""

from __future__ import annotations

from bot.console.numbers import whole_number
from bot.console.session import CHANNEL, GUILD, Handler, Session
from bot.console.vocabulary import KEYS, PARAMS
from bot.console.words import keyed, pair, yes_or_no
from bot.service import Refused, ServiceCode, clock_text, parse_days, settings_line, shown
from bot.web.links import WebLinks

#: The console's setting words (short forms too) and the service's names for them.
SETTING_NAMES = KEYS["settings"]


async def settings(console: Session, words: list[str], _: str) -> None:
    for key, value in map(pair, words):
        if key not in SETTING_NAMES:
            raise Refused(
                f"There is no setting {shown(key)}; the settings are "
                f"{', '.join(sorted(set(SETTING_NAMES.values())))}.",
                code=ServiceCode.USAGE,
            )
        if not value:
            raise no_value(key)
    values = {SETTING_NAMES[key]: value for key, value in map(pair, words)}
    if "email" in values:
        console.say(await console.service.mail.link_email(console.me, values.pop("email")))
    if "email_code" in values:
        console.say(await console.service.mail.confirm_email(console.me, values.pop("email_code")))
    if not values and words:
        return
    vacation = values.get("vacation")
    confirm = values.get("confirm_moves")
    hour = values.get("digest_hour")
    reminders = values.get("reminders")
    auto = values.get("auto_vacation")
    profile = values.get("web_profile")
    found = await console.service.preferences.player_settings(
        console.me,
        reminders=reminders.lower() if reminders is not None else None,
        time_zone=values.get("time_zone"),
        quiet_hours=values.get("quiet_hours"),
        vacation=yes_or_no(vacation) if vacation is not None else None,
        confirm_moves=yes_or_no(confirm) if confirm is not None else None,
        digest_hour=whole_number(hour, "digest") if hour is not None else None,
        auto_vacation=yes_or_no(auto) if auto is not None else None,
        weekend=values.get("weekend"),
        web_profile=yes_or_no(profile) if profile is not None else None,
    )
    console.zone = found.time_zone
    console.say(f"{console.me.name} · {settings_line(found, console.when)}")


def no_value(word: str) -> Refused:
    """A setting typed without its value: the values it takes."""
    param = PARAMS["settings"][SETTING_NAMES[word]]
    choices = ("on", "off") if param.kind == "bool" else param.choices
    if choices:
        return Refused(
            f"Say {word}={', '.join(choices[:-1])} or {choices[-1]}.", code=ServiceCode.USAGE
        )
    return Refused(f"Give {word} a value ({param.help}).", code=ServiceCode.USAGE)


async def config(console: Session, words: list[str], _: str) -> None:
    """The pretend server's settings (whoever types here manages it)."""
    typed = dict(map(pair, words))
    unknown = [key for key in typed if key not in KEYS["config"]]
    if unknown:
        raise Refused(
            f"There is no server setting {shown(unknown[0])}; the settings are "
            f"{', '.join(sorted(set(KEYS['config'].values())))}.",
            code=ServiceCode.USAGE,
        )
    given = keyed({k: v for k, v in typed.items() if v}, "config")
    rated, runners, web = given.get("rated"), given.get("tournaments"), given.get("web")
    email = yes_or_no(given["email"]) if "email" in given else None
    found = await console.service.preferences.guild_settings(
        GUILD,
        days_per_move=parse_days(given.get("days_per_move"), unset="keep"),
        rated=yes_or_no(rated) if rated is not None else None,
        tournaments=runners.lower() if runners is not None else None,
        email=email,
        email_channel=CHANNEL if email else None,  # games by mail start in the console
        web=web.lower() if web is not None else None,
    )
    console.say(
        f"This server: {clock_text(found.days_per_move)}; rated games "
        f"{'on' if found.rated else 'off'}; events run by {found.tournaments}; "
        f"{'players by mail play here' if found.email else 'no players by mail'}; "
        f"{WebLinks(console.service).sentence(found)}."
    )


HANDLERS: dict[str, Handler] = {"settings": settings, "config": config}
