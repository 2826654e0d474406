"""The console's room for playing a game: challenges and their answers, moves (the bare
ones too: "d5 g3"), conditional moves, resigning, aborting, undo, a rematch."""

from __future__ import annotations

from bot.console.numbers import game_id, game_meant, game_to_move, named_game, whole_number
from bot.console.session import CHANNEL, GUILD, Handler, Session
from bot.console.vocabulary import KEYS, PARAMS
from bot.console.words import BOT_NAME, keyed, loose_word, pair, yes_or_no
from bot.service import (
    DEFAULT_LEVEL,
    MovePreview,
    Place,
    Refused,
    ServiceCode,
    UndoAnswered,
    conditional_text,
    parse_days,
)

CONDITIONAL_ACTIONS = PARAMS["conditional"]["action"].choices
UNDO_ANSWERS = ("accept", "decline")


async def challenge(console: Session, words: list[str], _: str) -> None:
    if not words:
        raise Refused("Name a game: challenge hotwire @bob.", code=ServiceCode.USAGE)
    game, *rest = words
    mentioned = [word[1:] for word in rest if word.startswith("@")]
    opponents = [console.player(name) for name in mentioned if name.lower() != BOT_NAME]
    settings = {key.replace("-", "_"): value for key, value in (pair(w) for w in rest if "=" in w)}
    # a player by mail: their address, bare (ann@example.org) or as email=
    addresses = [w for w in rest if "@" in w[1:] and not w.startswith("@") and "=" not in w]
    loose = [w for w in rest if not w.startswith("@") and "=" not in w and w not in addresses]
    if loose:
        raise loose_word(loose[0])
    given = keyed(settings, "challenge")
    addresses += [given["email"]] if "email" in given else []
    opponents += [await console.service.mail.mail_opponent(GUILD, a) for a in addresses]
    if "level" in given and len(opponents) == len(mentioned):
        raise Refused("level= is for a game against the bot: mention @ai.", code=ServiceCode.USAGE)
    options = {k: v for k, v in settings.items() if k not in KEYS["challenge"]}
    result = await console.service.challenges.challenge(
        Place(GUILD, CHANNEL),
        console.me,
        game.lower(),
        opponents=opponents,
        open_seats=whole_number(given.get("open_seats", "0"), "open_seats"),
        options=options,
        days_per_move=parse_days(given.get("days_per_move"), unset="default"),
        first=given.get("first", "random"),
        rated=yes_or_no(given["rated"]) if "rated" in given else None,
        bots=[given.get("level", DEFAULT_LEVEL)] * (len(mentioned) - len(opponents)),
        clock=given.get("clock"),
    )
    await console.announce(result)


async def accept(console: Session, words: list[str], _: str) -> None:
    game = await game_id(console, words, challenge=True)
    await console.announce(await console.service.challenges.accept(game, GUILD, console.me))


async def decline(console: Session, words: list[str], _: str) -> None:
    game = await game_id(console, words, challenge=True)
    await console.announce(await console.service.challenges.decline(game, GUILD, console.me))


async def join(console: Session, words: list[str], _: str) -> None:
    game = await game_id(console, words, challenge=True)
    await console.announce(await console.service.challenges.join(game, GUILD, console.me))


async def cancel(console: Session, words: list[str], _: str) -> None:
    game = await game_id(console, words, challenge=True)
    await console.announce(await console.service.challenges.cancel(game, GUILD, console.me))


async def move(console: Session, _: list[str], rest: str) -> None:
    named, tokens = named_game(rest.split())
    text = " ".join(tokens)
    game = named if named is not None else await game_to_move(console)
    if not text:
        example = await console.service.lookups.example_move(game, GUILD, console.me.id)
        if example is not None:  # else the empty move hears why not (whose turn, over)
            raise Refused(f"Type the move: move {example}.", code=ServiceCode.USAGE)
    proposed = await console.service.play.propose_move(game, GUILD, console.me, text)
    if isinstance(proposed, MovePreview):  # the misclick guard: ask first
        console.say(proposed.text)
        console.say(f"Play {proposed.played} in game #{game}? Type y to play it, else n.")
        answer = await console.read_line(None)
        if (answer or "").strip().lower() not in ("y", "yes"):
            console.say(f"Move {proposed.played} not played.")
            return
        proposed = await console.service.play.move(
            game, GUILD, console.me, proposed.move, expected_ply=proposed.ply
        )
    result = proposed
    await console.announce(result)
    await console.show_board(result.game, result.png)


async def conditional(console: Session, _: list[str], rest: str) -> None:
    """conditional [GAME] [add|list|remove|clear] [LINE] [GAME]: the line is the rest."""
    named, tokens = named_game(rest.split())
    action = tokens[0].lower() if tokens and tokens[0].lower() in CONDITIONAL_ACTIONS else None
    line = " ".join(tokens[1:] if action else tokens) or None
    game = named if named is not None else await game_meant(console, conditional=True)
    found = await console.service.conditionals.conditional(game, GUILD, console.me, action, line)
    console.say(conditional_text(found))


async def resign(console: Session, words: list[str], _: str) -> None:
    named = await game_id(console, words)
    game = (await console.service.play.may_resign(named, GUILD, console.me)).id
    console.say(f"Resign game #{game}? Type y to resign, anything else to keep playing.")
    answer = await console.read_line(None)
    if (answer or "").strip().lower() not in ("y", "yes"):
        console.say(f"You did not resign game #{game}.")
        return
    await console.announce(await console.service.play.resign(game, GUILD, console.me))


async def abort(console: Session, words: list[str], _: str) -> None:
    game = await game_id(console, words)
    await console.announce(await console.service.play.abort(game, GUILD, console.me))


async def undo(console: Session, words: list[str], _: str) -> None:
    """undo [GAME] asks; undo accept|decline [GAME] answers (the game before or after)."""
    answers = [w.lower() for w in words if w.lower() in UNDO_ANSWERS]
    rest = [w for w in words if w.lower() not in UNDO_ANSWERS]
    if len(answers) > 1:
        raise Refused("Answer once: undo accept or undo decline.", code=ServiceCode.USAGE)
    if not answers:  # the game meant: where your last move was
        game = await game_id(console, rest, last_moved=True)
        await console.announce(await console.service.play.request_undo(game, GUILD, console.me))
        return
    game = await game_id(console, rest, undo_answer=True)
    result = await console.service.play.answer_undo(
        game, GUILD, console.me, accept=answers[0] == "accept"
    )
    await console.announce(result)
    if any(isinstance(e, UndoAnswered) and e.done for e in result.events):
        board = await console.service.lookups.board(game, GUILD)
        await console.show_board(board.game, board.png)


async def rematch(console: Session, words: list[str], _: str) -> None:
    game = await game_id(console, words, any_status=True)
    await console.announce(await console.service.challenges.rematch(game, GUILD, console.me))


HANDLERS: dict[str, Handler] = {
    "challenge": challenge,
    "accept": accept,
    "decline": decline,
    "join": join,
    "cancel": cancel,
    "move": move,
    "conditional": conditional,
    "resign": resign,
    "abort": abort,
    "undo": undo,
    "rematch": rematch,
}
