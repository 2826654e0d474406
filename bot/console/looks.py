"""The console's room for looking at games and players: a board, the next game on move,
lists of games, a record and its export, the pages on the web, rules, ratings."""

from __future__ import annotations

import engine
from bot.console.numbers import game_id, game_meant, named_game, whole_number
from bot.console.session import GUILD, Handler, Session
from bot.console.vocabulary import KEYS, PARAMS
from bot.console.words import BOT_NAME, keyed, pair
from bot.service import (
    LEVELS,
    GameSummary,
    Refused,
    ServiceCode,
    away_note,
    banks_text,
    bot_record_lines,
    leaderboard_line,
    rating_line,
    rules_card,
    shown,
)
from bot.web.links import SIGN_IN, WebLinks

#: The names `rating` reads as the bot: @ai, @Paperboard, "@Paperboard (easy)"...
BOT_NAMES = {BOT_NAME, "paperboard", *(f"paperboard ({level})" for level in LEVELS)}
EXPORT_FORMATS = PARAMS["export"]["format"].choices


async def board(console: Session, words: list[str], _: str) -> None:
    settings = dict(pair(word) for word in words if "=" in word)
    groups = "groups" in words
    numbers = [w for w in words if "=" not in w and w != "groups"]
    game = await game_id(console, numbers, any_status=True)
    ply = whole_number(settings["ply"], "ply") if "ply" in settings else None
    found = await console.service.lookups.board(
        game, GUILD, ply=ply, groups=groups, viewer_id=console.me.id
    )
    await console.show_board(found.game, found.png, ply=found.ply)


async def next_game(console: Session, words: list[str], _: str) -> None:
    after = await game_id(console, words) if words else None
    found = await console.service.queue.next_game(GUILD, console.me.id, after=after)
    game = found.game
    due = f", due {console.when(game.deadline)}" if game.deadline else ""
    console.say(
        f"#{game.id} {game.title}: your move{due} "
        f"({found.position} of {found.waiting} waiting for you)"
    )
    await console.show_board(game, found.png)


async def games(console: Session, words: list[str], _: str) -> None:
    whose = next((console.player(w[1:]) for w in words if w.startswith("@")), console.me)
    status = next((w.lower() for w in words if not w.startswith("@")), None)
    listed = await console.service.lookups.games(
        GUILD, player_id=whose.id, status=status, viewer_id=console.me.id
    )
    if not listed:
        console.say(f"No games for {whose.name}.")
    for game in listed:
        console.say(game_line(console, game))


def game_line(console: Session, game: GameSummary) -> str:
    players = " vs ".join(s.name or "(open seat)" for s in game.seats)
    line = f"#{game.id} {game.title} {game.status}: {players}, move {game.ply}"
    if game.player_to_move is not None:
        line += f", {game.name_of_seat(game.to_move or 0)} to move"
        if game.deadline:
            line += f" (due {console.when(game.deadline)})"
    if game.banks:
        line += f"; clock {game.time_control}: {banks_text(game)}"
    away = away_note(game, lambda pid: "@" + console.names.get(pid, "?"))
    return f"{line}. {away}" if away else line


async def record(console: Session, words: list[str], _: str) -> None:
    game = await game_id(console, words, any_status=True)
    found = await console.service.lookups.record(game, GUILD, console.me.id)
    console.say(found.text)
    gif = await console.service.lookups.replay_gif(game, GUILD)
    path = console.save(f"game-{game}-replay.gif", gif)
    console.say(f"Replay: {path}")


async def export(console: Session, words: list[str], _: str) -> None:
    fmt = next((w.lower() for w in words if w.lower() in EXPORT_FORMATS), EXPORT_FORMATS[0])
    named, others = named_game([w for w in words if w.lower() not in EXPORT_FORMATS])
    if others:
        raise Refused(
            f"Export game NUMBER as {' or '.join(EXPORT_FORMATS)}, not {shown(' '.join(words))}.",
            code=ServiceCode.USAGE,
        )
    game = named if named is not None else await game_meant(console, any_status=True)
    exported = await console.service.exports.export(game, GUILD, fmt)
    path = console.save(exported.filename, exported.data)
    console.say(f"Export: {path}")


async def web(console: Session, words: list[str], _: str) -> None:
    """web [GAME] [event=N]: the address of a game's page (and its event's), an event's,
    or this server's; and a link that signs the player in on the web, once."""
    named, rest = named_game(words)
    given = keyed(dict(pair(w) for w in rest if "=" in w), "web")
    loose = [w for w in rest if "=" not in w or pair(w)[0] not in KEYS["web"]]
    if loose:
        raise Refused(
            f"Say web, web 12 or web event=1, not {shown(' '.join(words))}.",
            code=ServiceCode.USAGE,
        )
    event = whole_number(given["event"], "event") if "event" in given else None
    links = WebLinks(console.service)
    for what, url in await links.pages(GUILD, game_id=named, event_id=event):
        console.say(f"{what}: {url}")
    sign_in = await links.sign_in(console.me)
    if sign_in is not None:
        console.say(SIGN_IN.format(sign_in))


async def rules(console: Session, words: list[str], _: str) -> None:
    if not words:
        for name, info in engine.GAMES.items():
            console.say(f"{name:<14} {info.title}")
        return
    console.say(rules_card(words[0].lower()))


async def rating(console: Session, words: list[str], _: str) -> None:
    game = next((w.lower() for w in words if not w.startswith("@")), None)
    named = next((w[1:] for w in words if w.startswith("@")), None)
    if named is not None and named.strip().lower() in BOT_NAMES:  # casual games only
        records = await console.service.play.bot_records(GUILD)
        lines = bot_record_lines([r for r in records if game is None or r[1] == game])
        console.say("\n".join(lines) or "Nobody has finished a game against the bot yet.")
        return
    whose = console.me if named is None else console.player(named)
    ratings = await console.service.lookups.ratings(GUILD, whose.id, game)
    casual = await console.service.play.bot_records(GUILD, whose.id)
    said = [rating_line(line) for line in ratings] or [f"{whose.name} has no rated games yet."]
    said += bot_record_lines([r for r in casual if game is None or r[1] == game], against=True)
    console.say("\n".join(said))


async def leaderboard(console: Session, words: list[str], _: str) -> None:
    if not words:
        raise Refused("Name a game: leaderboard hotwire.", code=ServiceCode.USAGE)
    lines = await console.service.lookups.leaderboard(GUILD, words[0].lower())
    if not lines:
        console.say("Nobody has finished a rated game of that yet.")
    for rank, line in enumerate(lines, 1):
        console.say(leaderboard_line(rank, f"@{line.name}", line))


HANDLERS: dict[str, Handler] = {
    "board": board,
    "next": next_game,
    "games": games,
    "record": record,
    "export": export,
    "web": web,
    "rules": rules,
    "rating": rating,
    "leaderboard": leaderboard,
}
