"""The numbers a console line names: a game's (move 12 d5, d5 #12, game=12), an event's
(tournament join 1), and the whole numbers of key=value parameters."""

from __future__ import annotations

from bot.service import Refused, ServiceCode, shown


def named_game(words: list[str]) -> tuple[int | None, list[str]]:
    """The game a command's words name, and the other words: `game=12` anywhere, or 12
    or #12 first or last. No move of any game is a bare number (every point starts with
    its column's letter), so a move is never taken for a game."""
    named = [w.split("=", 1)[1] for w in words if w.lower().startswith("game=")]
    rest = [w for w in words if not w.lower().startswith("game=")]
    for end in (0, -1):
        if rest and rest[end].lstrip("#").isdecimal():
            named.append(rest.pop(end))
    if len(named) > 1:
        raise Refused("Name one game: 12, #12 or game=12.", code=ServiceCode.USAGE)
    return (whole_number(named[0].lstrip("#"), "game") if named else None), rest


def event_number(words: list[str]) -> int:
    """The event a tournament command names: its number (1 or #1)."""
    if len(words) != 1 or not words[0].lstrip("#").isdecimal():
        raise Refused("Name the event by its number: tournament join 1.", code=ServiceCode.USAGE)
    return whole_number(words[0].lstrip("#"), "event")


def whole_number(text: str, what: str) -> int:
    if not text.strip().isdecimal() or len(text.strip()) > 12:
        raise Refused(f"{what} must be a whole number, not {shown(text)}.", code=ServiceCode.USAGE)
    return int(text)
