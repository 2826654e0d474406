"""A console line's words: key=value pairs and the parameters they give a command, yes or
no, and what a word that is neither @player nor key=value likely meant."""

from __future__ import annotations

import re

from bot.console.vocabulary import KEYS
from bot.service import LEVELS, Refused, ServiceCode, shown

#: `@ai` in a challenge is a seat for the bot (at `level=`, medium by default).
BOT_NAME = "ai"
BOOLEAN_WORDS = {"yes": True, "on": True, "true": True, "no": False, "off": False, "false": False}
#: A word that reads as a player's name (after @ in a challenge) or a board size.
NAME_LIKE = re.compile(r"[^\W\d][\w.\-]{0,31}")
SIZE_LIKE = re.compile(r"\d{1,3}(x\d{1,3})?", re.IGNORECASE)


def pair(word: str) -> tuple[str, str]:
    key, _, value = word.partition("=")
    return key.strip().lower(), value.strip()


def keyed(settings: dict[str, str], command: str) -> dict[str, str]:
    """A command's key=value parameters among the pairs typed, by name; one typed under
    its name wins over a shorter key (days_per_move= over days=)."""
    found: dict[str, str] = {}
    for key, name in reversed(KEYS[command].items()):  # each name's own key last
        if key in settings:
            found[name] = settings[key]
    return found


def yes_or_no(text: str) -> bool:
    try:
        return BOOLEAN_WORDS[text.strip().lower()]
    except KeyError:
        raise Refused(f"Say yes or no, not {shown(text)}.", code=ServiceCode.USAGE) from None


def loose_word(word: str) -> Refused:
    """A word in a challenge that is neither @player nor key=value, and what it likely meant."""
    if word.lower() in LEVELS:
        meant = f"to play the bot at that level, write @{BOT_NAME} level={word.lower()}"
    elif SIZE_LIKE.fullmatch(word):
        meant = f"for the board's size, write size={word.lower()}"
    elif NAME_LIKE.fullmatch(word):
        meant = f"to challenge that player, write @{word}"
    else:
        meant = "options are key=value"
    return Refused(f"I don't understand {shown(word)}; {meant}.", code=ServiceCode.USAGE)
