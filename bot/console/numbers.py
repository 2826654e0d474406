"""Which game a console line means: the number it names (move 12 d5, d5 #12, game=12),
else the one game the command can apply to. And the other numbers a line names: an
event's (tournament join 1), the whole numbers of key=value parameters."""

from __future__ import annotations

from bot.console.session import GUILD, Session
from bot.service import Refused, ServiceCode, only_game, shown


def is_comment(line: str) -> bool:
    """A line starting with # and no number ("#12 d5" names a game)."""
    return line.startswith("#") and not line[1:2].isdecimal()


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


async def game_id(
    console: Session,
    words: list[str],
    *,
    challenge: bool = False,
    any_status: bool = False,
    last_moved: bool = False,
    undo_answer: bool = False,
) -> int:
    """The game named (12, #12, game=12) or, failing that, the one meant: a challenge
    waiting for you; your latest game (any_status); the game of your last move
    (last_moved); the one game asking you for an undo (undo_answer); your only game
    under way."""
    named, rest = named_game(words)
    if rest:
        raise Refused(f"{shown(rest[0])} is not a game number.", code=ServiceCode.USAGE)
    if named is not None:
        return named
    return await game_meant(
        console,
        challenge=challenge,
        any_status=any_status,
        last_moved=last_moved,
        undo_answer=undo_answer,
    )


async def game_meant(
    console: Session,
    *,
    challenge: bool = False,
    any_status: bool = False,
    last_moved: bool = False,
    undo_answer: bool = False,
    conditional: bool = False,
) -> int:
    """The game a command without a number means (game_id's defaults; `conditional`:
    the one game that takes your conditional lines)."""
    service, me = console.service, console.me
    if undo_answer:
        asking = await service.lookups.undo_requests_for(GUILD, me.id)
        return only_game(asking, "asking you for an undo").id
    if conditional:
        mine = await service.lookups.conditional_games(GUILD, me.id)
        return only_game(mine, "between two people (where lines are kept)").id
    if challenge:
        open_games = await service.lookups.games(GUILD, status="open")
        invited = [
            g for g in open_games if any(s.player_id == me.id and not s.accepted for s in g.seats)
        ]
        pending = invited or open_games
        if len(pending) == 1:
            return pending[0].id
        raise Refused(
            "Name the challenge's number (games open lists them).", code=ServiceCode.NO_GAME
        )
    if any_status:
        mine = await service.lookups.games(GUILD, player_id=me.id, viewer_id=me.id)
        if mine:
            return mine[0].id
        raise Refused("You have no games here.", code=ServiceCode.NO_GAME)
    meant = await service.lookups.default_game(
        GUILD, me.id, None, my_turn=False, last_moved=last_moved
    )
    return meant.id


async def game_to_move(console: Session) -> int:
    """The game a move without a number means: your only game on move, else your only
    game under way (so a move out of turn hears whose turn it is), else the refusal
    naming your games."""
    try:
        return (await console.service.lookups.default_game(GUILD, console.me.id, None)).id
    except Refused as refusal:
        if refusal.code != ServiceCode.NO_GAME:
            raise
    return (
        await console.service.lookups.default_game(GUILD, console.me.id, None, my_turn=False)
    ).id


def event_number(words: list[str]) -> int:
    """The event a tournament command names: its number (1 or #1)."""
    if len(words) != 1 or not words[0].lstrip("#").isdecimal():
        raise Refused("Name the event by its number: tournament join 1.", code=ServiceCode.USAGE)
    return whole_number(words[0].lstrip("#"), "event")


def whole_number(text: str, what: str) -> int:
    if not text.strip().isdecimal() or len(text.strip()) > 12:
        raise Refused(f"{what} must be a whole number, not {shown(text)}.", code=ServiceCode.USAGE)
    return int(text)
