"""The console's room for events: tournaments, leagues and ladders ("tournament join 1").
The console is its own server's manager: it may start, cancel and run any event."""

from __future__ import annotations

from bot.console.numbers import event_number, whole_number
from bot.console.session import CHANNEL, GUILD, Handler, Session
from bot.console.vocabulary import KEYS
from bot.console.words import keyed, loose_word, pair, yes_or_no
from bot.service import DEFAULT_LEVEL, Place, Refused, ServiceCode, TournamentResult, parse_days


async def create(console: Session, words: list[str], _: str) -> None:
    game = next((w.lower() for w in words if "=" not in w), "")
    loose = [w for w in words if "=" not in w][1:]
    if loose:
        raise loose_word(loose[0])
    settings = {key.replace("-", "_"): value for key, value in map(pair, words) if value}
    given = keyed(settings, "tournament create")
    options = {k: v for k, v in settings.items() if k not in KEYS["tournament create"]}
    rounds, match = given.get("rounds"), given.get("match")
    most, starting = given.get("max_players"), given.get("start_players")
    result = await console.service.events.create_tournament(
        Place(GUILD, CHANNEL),
        console.me,
        game,
        format=given.get("format", ""),
        name=given.get("name"),
        options=options,
        rounds=whole_number(rounds, "rounds") if rounds is not None else None,
        match=whole_number(match, "match") if match is not None else None,
        double=yes_or_no(given["double"]) if "double" in given else False,
        days_per_move=parse_days(given.get("days_per_move"), unset="default"),
        rated=yes_or_no(given["rated"]) if "rated" in given else None,
        vacations=yes_or_no(given["vacations"]) if "vacations" in given else True,
        clock=given.get("clock"),
        auto_vacation=yes_or_no(given["auto_vacation"]) if "auto_vacation" in given else True,
        manages=True,  # the console is its own server's manager
        max_players=whole_number(most, "max_players") if most is not None else None,
        start_players=whole_number(starting, "start_players") if starting is not None else None,
        starts_at=given.get("starts"),
    )
    await said(console, result)


async def join(console: Session, words: list[str], _: str) -> None:
    event = event_number(words)
    await said(console, await console.service.events.join_tournament(event, GUILD, console.me))


async def leave(console: Session, words: list[str], _: str) -> None:
    event = event_number(words)
    await said(console, await console.service.events.leave_tournament(event, GUILD, console.me))


async def start(console: Session, words: list[str], _: str) -> None:
    event = event_number(words)
    started = await console.service.events.start_tournament(event, GUILD, console.me, manages=True)
    await said(console, started)


async def withdraw(console: Session, words: list[str], _: str) -> None:
    named = [console.player(w[1:]) for w in words if w.startswith("@")]
    event = event_number([w for w in words if not w.startswith("@")])
    withdrawn = await console.service.events.withdraw_from_tournament(
        event, GUILD, console.me, named[0] if named else None, manages=True
    )
    await said(console, withdrawn)


async def challenge(console: Session, words: list[str], _: str) -> None:
    named = [console.player(w[1:]) for w in words if w.startswith("@")]
    if len(named) != 1:
        raise Refused(
            "Name the player to challenge: tournament challenge 1 @bob.", code=ServiceCode.USAGE
        )
    event = event_number([w for w in words if not w.startswith("@")])
    challenged = await console.service.ladders.ladder_challenge(event, GUILD, console.me, named[0])
    await said(console, challenged)


async def accept(console: Session, words: list[str], _: str) -> None:
    event = event_number(words)
    accepted = await console.service.ladders.accept_ladder_challenge(event, GUILD, console.me)
    await said(console, accepted)


async def decline(console: Session, words: list[str], _: str) -> None:
    event = event_number(words)
    declined = await console.service.ladders.decline_ladder_challenge(event, GUILD, console.me)
    await said(console, declined)


async def cancel(console: Session, words: list[str], _: str) -> None:
    event = event_number(words)
    cancelled = await console.service.events.cancel_tournament(
        event, GUILD, console.me, manages=True
    )
    await said(console, cancelled)


async def add_bot(console: Session, words: list[str], _: str) -> None:
    level = dict(map(pair, [w for w in words if "=" in w])).get("level", DEFAULT_LEVEL)
    event = event_number([w for w in words if "=" not in w])
    added = await console.service.events.add_bot_to_tournament(
        event, GUILD, console.me, level.lower(), manages=True
    )
    await said(console, added)


async def export(console: Session, words: list[str], _: str) -> None:
    exported = await console.service.event_reads.export_tournament(event_number(words), GUILD)
    console.say(f"Export: {console.save(exported.filename, exported.data)}")


async def standings(console: Session, words: list[str], _: str) -> None:
    event = event_number(words)
    found = await console.service.event_reads.tournament_standings(event, GUILD)
    console.say(found.text)
    if found.png:
        console.say(f"Standings: {console.save(f'event-{event}-standings.png', found.png)}")


async def pairings(console: Session, words: list[str], _: str) -> None:
    console.say(await console.service.event_reads.tournament_pairings(event_number(words), GUILD))


async def listing(console: Session, words: list[str], _: str) -> None:
    listed = await console.service.event_reads.list_tournaments(GUILD)
    if not listed:
        console.say("No events here yet: tournament create hex format=swiss name=Spring.")
    for event in listed:
        players = len([e for e in event.entrants if not e.withdrawn])
        console.say(
            f"#{event.id} {event.title}: {event.format.replace('_', ' ')}, {event.status}, "
            f"{players} player{'s' * (players != 1)}"
        )


async def said(console: Session, result: TournamentResult) -> None:
    """A tournament use case's sentence, then each game and announcement it made."""
    console.say(result.note)
    for each in result.results:
        await console.announce(each)


HANDLERS: dict[str, Handler] = {
    "tournament create": create,
    "tournament join": join,
    "tournament leave": leave,
    "tournament start": start,
    "tournament standings": standings,
    "tournament pairings": pairings,
    "tournament withdraw": withdraw,
    "tournament list": listing,
    "tournament cancel": cancel,
    "tournament add-bot": add_bot,
    "tournament export": export,
    "tournament challenge": challenge,
    "tournament accept": accept,
    "tournament decline": decline,
}
