"""The examples the docs show, read from where they are written (README.md's ```text
blocks, the registry's `console=` and `discord=` examples in bot/commands/), and the
games each needs before it is typed. tests/test_docs.py runs them."""

from __future__ import annotations

import random
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

import engine
from bot.commands import BY_NAME, COMMANDS
from bot.service import GameService, GameSummary, Place, Player
from bot.service.play.conditionals import ACTIONS, split_line
from tests.conftest import ROOT

README = ROOT / "README.md"

# -- reading the examples -----------------------------------------------------------------

#: An example, then (after two spaces or more) a note in brackets with more forms:
#: "move d5 g3   (or just: d5 g3)", "next   (next 12: the game after #12)".
NOTE = re.compile(r"^(?P<main>.*?)(?:\s{2,}\((?P<note>.*)\))?$")
#: What separates the forms a note lists: "list | remove e5", "undo accept / undo decline".
ALTERNATIVES = re.compile(r" \| | / |, or ")
#: A game named by its number: 12, #12, game=12 (console), game:12 (Discord).
GAME_NUMBER = re.compile(r"(?:^|\s)(?:game[=:])?#?(\d+)(?=\s|$)")
PLY = re.compile(r"\bply[=:](\d+)")
#: A Discord example: /name, then name:value pairs (a value may hold spaces: move:d5 g3).
#: A subcommand is its group's name and its own: /tournament create game:hex.
SLASH = re.compile(r"^/(?P<name>[\w-]+(?: [\w-]+(?=\s|$))?)(?P<params>.*)$")
PARAM = re.compile(r"(\w+):(.*?)(?=\s+\w+:|$)")
README_BLOCK = re.compile(r"^```text\n(.*?)^```", re.S | re.M)
PROMPT = re.compile(r"^(?P<name>[^\s>]+)> (?P<line>.*)$")
#: README's inline code (`/challenge game:hex`, `analysis 12`), and input piped to the console.
FENCED = re.compile(r"^```.*?^```", re.S | re.M)
INLINE_CODE = re.compile(r"`([^`]+)`")
PIPED = re.compile(r"printf '([^']*)' \| make run")
BARE_MOVE = re.compile(r"[a-z]{1,2}\d{1,2}(?: [a-z]{1,2}\d{1,2})*")
#: A game's title in a note names the game its examples are typed in.
TITLES = {info.title: name for name, info in engine.GAMES.items()}


def forms(
    example: str, full: Callable[[str], bool], complete: Callable[[str, str], str]
) -> list[tuple[str, str | None]]:
    """The example and each form its note gives, with the game each is typed in where the
    note names it. A note is parts separated by "; ", each starting with a label ("the
    bot:", "or just:") or one form explained ("next 12: the game after #12"), or a game's
    title alone, naming the game of the forms before it ("Hot Wire"); a form that is not
    `full` by itself is completed from the form before it (`complete(before, piece)`).
    A form is of the game its label is the title of ("Hex: move c3"), else of the form's
    before it."""
    found = NOTE.match(example.strip())
    assert found is not None
    shown: list[tuple[str, str | None]] = [(found["main"].strip(), None)]
    for part in found["note"].split("; ") if found["note"] else []:
        if part in TITLES:
            shown = [(text, TITLES[part]) for text, _ in shown]
            continue
        label, colon, rest = part.partition(": ")
        listed = rest if colon and not full(label) else label
        for piece in ALTERNATIVES.split(listed):
            before, game = shown[-1]
            text = piece if full(piece) else complete(before, piece)
            shown.append((text, TITLES.get(label, game)))
    return shown


def command_of(text: str) -> str | None:
    """The registry's name of the command a console line types: its first word, or its
    first two ("tournament join 1"); None for none (a bare move)."""
    words = [word.lower() for word in text.split()[:2]]
    for name in (" ".join(words), words[0] if words else ""):
        if name in BY_NAME:
            return name
    return None


def is_console_line(text: str) -> bool:
    """A command's name first, or a bare move ("d5 g3", which holds a digit)."""
    word = text.split()[0].lower() if text.split() else ""
    return command_of(text) is not None or any(ch.isdigit() for ch in word)


def console_forms(example: str) -> list[tuple[str, str | None]]:
    """A registry console example's lines: "conditional list | remove e5" gives
    "conditional list" and "conditional remove e5"."""
    return forms(
        example, is_console_line, lambda before, piece: f"{before.split()[0]} {piece.strip()}"
    )


def discord_forms(example: str) -> list[tuple[str, str | None]]:
    """A registry Discord example's commands: "opponent:@Paperboard" after
    "/challenge game:hex level:medium" adds that parameter to it."""
    return forms(
        example, lambda piece: piece.startswith("/"), lambda before, piece: f"{before} {piece}"
    )


def slash_parts(text: str) -> tuple[str, dict[str, str]]:
    """A Discord example's command name and parameters; the last value given wins."""
    found = SLASH.match(text.strip())
    assert found is not None, f"{text!r} does not start with /name"
    params = found["params"].strip()
    pairs = PARAM.findall(params)
    rebuilt = " ".join(f"{name}:{value}" for name, value in pairs)
    assert rebuilt == " ".join(params.split()), f"{text!r}: write parameters as name:value"
    return found["name"], {name: value.strip() for name, value in pairs}


@dataclass(frozen=True)
class Example:
    """One command line a doc shows, with what it names."""

    text: str  # as written (one form of the registry's example)
    source: str  # where it is written
    command: str  # the registry's name for it
    game: str | None = None  # the game its moves are typed in, where the doc names it

    @property
    def discord(self) -> bool:
        return self.text.startswith("/")

    @property
    def number(self) -> int:
        """The game the example names; 1 (the first game) when it names none."""
        found = GAME_NUMBER.search(self.text.split(maxsplit=1)[1] if " " in self.text else "")
        return int(found[1]) if found else 1

    @property
    def moves(self) -> str:
        """The moves it types (a move, a conditional line); "" when none."""
        if self.discord:
            params = slash_parts(self.text)[1]
            return params.get("move") or params.get("line") or ""
        words = (
            self.text.split()[1:] if self.text.split()[0].lower() in BY_NAME else self.text.split()
        )
        return " ".join(
            w
            for w in words
            if any(ch.isdigit() for ch in w) and not re.search(r"[=:#]", w) and not w.isdecimal()
        )

    @property
    def ply(self) -> int:
        found = PLY.search(self.text)
        return int(found[1]) if found else 0

    def __str__(self) -> str:
        return f"{self.source}: {self.text}"


def registry_examples(kind: str) -> list[Example]:
    """Every form of every `console=` (kind "console") or `discord=` example."""
    found = []
    for command in COMMANDS:
        example = getattr(command, kind)
        if example is None:
            continue
        split = console_forms if kind == "console" else discord_forms
        for text, game in split(example):
            console = kind == "console"
            name = (command_of(text) or "move") if console else slash_parts(text)[0]
            found.append(Example(text, f"bot/commands/ {command.name} {kind}=", name, game))
    return found


def readme_blocks() -> list[str]:
    """README's ```text blocks, and the lines it pipes into `make run`."""
    piped = [
        found[1].replace("\\n", "\n") for found in map(PIPED.fullmatch, inline_code()) if found
    ]
    return [*README_BLOCK.findall(README.read_text()), *piped]


def inline_code() -> list[str]:
    return INLINE_CODE.findall(FENCED.sub("", README.read_text()))


def readme_console_examples() -> list[Example]:
    """README's inline console commands, as `analysis 12` or a bare move `d5 g3`."""
    return console_examples(inline_code())


def readme_sequence() -> tuple[list[str], list[Example]]:
    """README's console lines in the order a reader types them into one store (`make
    run` keeps it): the ```text block before the piped example, then the piped lines;
    and the console examples of the paragraph that follows them, each to be typed next."""
    text = README.read_text()
    piped = next(PIPED.finditer(text))
    block = README_BLOCK.findall(text[: piped.start()])[-1]
    typed = [re.split(r"\s{2,}", line.strip())[0] for line in block.splitlines() if line.strip()]
    typed += piped[1].replace("\\n", "\n").splitlines()
    after = text.index("`", piped.end()) + 1  # past the piped example's own closing quote
    paragraph = text[after : text.index("\n\n", after)]
    return typed, console_examples(INLINE_CODE.findall(paragraph))


def console_examples(codes: list[str]) -> list[Example]:
    """The console commands among inline code: a command's line or a bare move."""
    found = []
    for text in codes:
        first = text.split()[0].lower() if text.split() else ""
        if first in BY_NAME and BY_NAME[first].console:
            found.append(Example(text, "README.md", first))
        elif BARE_MOVE.fullmatch(text):
            found.append(Example(text, "README.md", "move"))
    return found


def readme_slash_examples() -> list[Example]:
    """README's inline Discord commands, as `/challenge game:hex level:medium`."""
    return [
        Example(text, "README.md", text[1:].split()[0])
        for text in inline_code()
        if re.match(r"/[a-z]", text)
    ]


# -- the games an example needs ------------------------------------------------------------


@dataclass(frozen=True)
class Table:
    """Where an example is typed: the service, the place, the players by name."""

    service: GameService
    place: Place
    player: Callable[[str], Player]

    async def numbered(self, number: int) -> None:
        """Challenges made and withdrawn until the next game is #number."""
        padder = self.player("pad")
        last = max(
            (game.id for game in await self.service.lookups.games(self.place.guild_id)), default=0
        )
        while last < number - 1:
            made = await self.service.challenges.challenge(self.place, padder, "hex", open_seats=1)
            await self.service.challenges.cancel(made.game.id, self.place.guild_id, padder)
            last = made.game.id

    async def challenge(self, number: int, game: str, **how: Any) -> GameSummary:
        """Ann's challenge, as game #number (to bob unless `how` says otherwise)."""
        await self.numbered(number)
        how.setdefault("opponents", [self.player("bob")] if "open_seats" not in how else [])
        made = await self.service.challenges.challenge(
            self.place, self.player("ann"), game, first="challenger", **how
        )
        assert made.game.id == number, f"the game was made as #{made.game.id}, not #{number}"
        return made.game

    async def started(
        self,
        number: int,
        game: str,
        options: dict[str, Any] | None = None,
        moves: Sequence[str] = (),
    ) -> GameSummary:
        """Game #number, ann (to move first) against bob, with `moves` played."""
        summary = await self.challenge(number, game, options=options or {})
        await self.service.challenges.accept(summary.id, self.place.guild_id, self.player("bob"))
        return await self.play(summary.id, moves)

    async def play(self, game_id: int, moves: Sequence[str]) -> GameSummary:
        guild = self.place.guild_id
        for move in moves:
            state = await self.service.lookups.state(game_id, guild)
            name = ("ann", "bob")[state.to_move or 0]
            await self.service.play.move(game_id, guild, self.player(name), move)
        return await self.service.lookups.game(game_id, guild)

    async def legal_moves(self, game_id: int, count: int) -> list[str]:
        """`count` moves that can be played one after the other from the position now."""
        state = await self.service.lookups.state(game_id, self.place.guild_id)
        rng = random.Random(game_id)
        played = []
        for _ in range(count):
            played.append(rng.choice(state.legal_moves()))
            state = state.play(played[-1])
        return played


def game_playing(moves: Sequence[str], after: int = 0) -> tuple[str, list[str]]:
    """The first game (in the registry's order, with its default options) where `moves`
    can be played from the start, after `after` moves (an opening that leaves them
    playable): the game's name and that opening."""
    for name in engine.GAMES:
        start = engine.new(name)
        openings = [[]] if after == 0 else [[m] for m in start.legal_moves()]
        for opening in openings:
            try:
                state = start
                for move in [*opening, *moves]:
                    state = state.play(move)
            except engine.IllegalMove:
                continue
            return name, opening
    raise AssertionError(f"no game plays {moves!r}")


Build = Callable[[Table, Example], Awaitable[object]]


@dataclass(frozen=True)
class Context:
    """What an example needs before it is typed: the games it names, who types it, and
    the answer to a question the command asks (the console's "Type y to resign")."""

    build: Build | None = None
    me: str = "ann"
    answers: tuple[str, ...] = ()


async def by_mail(table: Table, example: Example) -> None:
    """The server takes players by mail, and the address an example names joined so."""
    guild, channel = table.place.guild_id, table.place.channel_id
    await table.service.preferences.guild_settings(guild, email=True, email_channel=channel)
    for word in example.text.split():
        if "@" in word[1:] and "=" not in word:
            await table.service.mail.join_by_mail(word, "", guild)


async def challenged(table: Table, example: Example) -> None:
    await table.challenge(example.number, "hotwire")


async def open_seat(table: Table, example: Example) -> None:
    await table.challenge(example.number, "hotwire", open_seats=1)


async def under_way(table: Table, example: Example) -> None:
    """A Hex game with a few moves, ann to move."""
    game = await table.started(example.number, "hex")
    await table.play(game.id, await table.legal_moves(game.id, 4))


async def not_begun(table: Table, example: Example) -> None:
    await table.started(example.number, "hex")


async def ready_to_move(table: Table, example: Example) -> None:
    """A game where the example's move is ann's first: the one the doc names for it."""
    name = example.game or game_playing([example.moves])[0]
    await table.started(example.number, name)


async def line_playable(table: Table, example: Example) -> GameSummary:
    """Bob to move in a game where the registry's conditional line can be played."""
    name, opening = game_playing(split_line(conditional_line()), after=1)
    return await table.started(example.number, name, moves=opening)


async def line_added(table: Table, example: Example) -> None:
    """The same, and ann has added that line (to list, remove or clear)."""
    game = await line_playable(table, example)
    await table.service.conditionals.conditional(
        game.id, table.place.guild_id, table.player("ann"), "add", conditional_line()
    )


def conditional_line() -> str:
    return next(e for e in registry_examples("console") if e.command == "conditional").moves


async def played_to_ply(table: Table, example: Example) -> None:
    """Hot Wire (whose boards shade groups) with the moves the example's ply asks for, or
    a few."""
    game = await table.started(example.number, "hotwire")
    await table.play(game.id, await table.legal_moves(game.id, example.ply or 4))


async def two_on_move(table: Table, example: Example) -> None:
    """Two games where ann is to move: the one named and the next."""
    await table.started(example.number, "hex")
    await table.started(example.number + 1, "hotwire")


async def just_moved(table: Table, example: Example) -> GameSummary:
    """Ann has moved, bob is to move."""
    game = await table.started(example.number, "hotwire")
    return await table.play(game.id, await table.legal_moves(game.id, 1))


async def undo_asked(table: Table, example: Example) -> None:
    """Ann has moved and asked to take it back."""
    game = await just_moved(table, example)
    await table.service.play.request_undo(game.id, table.place.guild_id, table.player("ann"))


async def finished(table: Table, example: Example) -> None:
    """A short Hex 5x5 game bob resigned."""
    game = await table.started(example.number, "hex", {"size": 5, "swap": "off"})
    await table.play(game.id, await table.legal_moves(game.id, 4))
    await table.service.play.resign(game.id, table.place.guild_id, table.player("bob"))


async def against_the_bot(table: Table, example: Example) -> None:
    """A casual Hex 5x5 game against the bot, ann to move."""
    await table.numbered(example.number)
    await table.service.challenges.challenge(
        table.place, table.player("ann"), "hex", options={"size": 5, "swap": "off"},
        bots=["easy"], first="challenger",
    )  # fmt: skip


async def event_open(
    table: Table, example: Example, players: int = 1, format: str = "roundrobin"
) -> int:
    """Ann's round robin (or `format`) of Hex 5x5, event #1, open for entries, with ann
    (then bob, cat, dan: `players`) in it."""
    made = await table.service.events.create_tournament(
        table.place, table.player("ann"), "hex", format=format, options={"size": 5},
        manages=True,
    )  # fmt: skip
    event = made.tournament.id
    assert event == example.number, f"the event was made as #{event}, not #{example.number}"
    for name in ("ann", "bob", "cat", "dan")[:players]:
        await table.service.events.join_tournament(event, table.place.guild_id, table.player(name))
    return event


async def event_joined(table: Table, example: Example) -> None:
    await event_open(table, example, players=2)


async def event_full(table: Table, example: Example) -> None:
    await event_open(table, example, players=4)


async def event_started(table: Table, example: Example) -> None:
    event = await event_open(table, example, players=4)
    await table.service.events.start_tournament(event, table.place.guild_id, table.player("ann"))


async def ladder_started(table: Table, example: Example) -> None:
    """Ann's ladder, event #1, under way: ann, bob, cat, dan from the top."""
    event = await event_open(table, example, players=4, format="ladder")
    await table.service.events.start_tournament(event, table.place.guild_id, table.player("ann"))


async def ladder_challenged(table: Table, example: Example) -> None:
    """Ann's ladder under way, cat's challenge to bob waiting for bob."""
    await ladder_started(table, example)
    guild = table.place.guild_id
    await table.service.ladders.ladder_challenge(1, guild, table.player("cat"), table.player("bob"))


async def on_the_web(table: Table, example: Example) -> None:
    """The server's pages on, game #number under way, and an event (#1)."""
    await table.service.preferences.guild_settings(table.place.guild_id, web="public")
    await table.started(example.number, "hex")
    await table.service.events.create_tournament(
        table.place, table.player("ann"), "hex", format="swiss", manages=True
    )


#: By the registry's command name (or its name and first word, as "undo accept").
CONTEXTS: dict[str, Context] = {
    "challenge": Context(),
    "challenge hex": Context(build=by_mail),  # challenge hex ann@example.org
    "accept": Context(challenged, me="bob"),
    "decline": Context(challenged, me="bob"),
    "join": Context(open_seat, me="bob"),
    "cancel": Context(challenged),
    "move": Context(ready_to_move),
    "board": Context(played_to_ply),
    "next": Context(two_on_move),
    "games": Context(under_way),
    "conditional": Context(line_playable),
    **{f"conditional {action}": Context(line_added) for action in ACTIONS if action != "add"},
    "resign": Context(under_way, answers=("y",)),
    "abort": Context(not_begun),
    "undo": Context(just_moved),
    "undo accept": Context(undo_asked, me="bob"),
    "undo decline": Context(undo_asked, me="bob"),
    "rematch": Context(finished),
    "record": Context(under_way),
    "export": Context(finished),  # a player's game is exported once it is over
    "web": Context(on_the_web),
    "analysis": Context(finished),
    "hint": Context(against_the_bot),
    "rules": Context(),
    "rating": Context(),
    "leaderboard": Context(),
    "settings": Context(),
    "config": Context(me="owner"),
    "tournament create": Context(me="owner"),  # a manager, on a server's default
    "tournament join": Context(event_open, me="bob"),
    "tournament leave": Context(event_joined, me="bob"),
    "tournament start": Context(event_full),
    "tournament standings": Context(event_started),
    "tournament pairings": Context(event_started),
    "tournament withdraw": Context(event_started),
    "tournament list": Context(event_open),
    "tournament cancel": Context(event_open),
    "tournament add-bot": Context(event_open),
    "tournament export": Context(event_started),
    "tournament challenge": Context(ladder_started, me="cat"),
    "tournament accept": Context(ladder_challenged, me="bob"),
    "tournament decline": Context(ladder_challenged, me="bob"),
    "as": Context(),
    "help": Context(),
    "quit": Context(),
}


def context_of(example: Example) -> Context:
    words = example.text.lstrip("/").split()
    form = f"{example.command} {words[1]}" if len(words) > 1 else example.command
    found = CONTEXTS.get(form) or CONTEXTS.get(example.command)
    assert found is not None, (
        f"{example}: CONTEXTS in tests/doc_examples.py has nothing for {example.command!r}; "
        "say there what the example needs before it is typed"
    )
    return found
