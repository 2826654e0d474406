"""Every command players and admins have, once: the console and the Discord adapter
read their names, help and parameters from here, and docs/COMMANDS.md is written
from it (`python -m bot.commands > docs/COMMANDS.md`; a test checks it is current).

A parameter's choices come from the code that interprets them (the levels, the statuses,
the export formats...), never written here again; the slash commands take theirs from
here, and the console reads each parameter as its `console` says. tests/test_commands.py
fails when a slash command's signature or the console's reading differs from this.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import engine
from bot.service.ai.levels import LEVELS
from bot.service.clocks import PRESETS, WEEKENDS
from bot.service.core.messages import DAYS_PER_MOVE_CHOICES
from bot.service.core.models import (
    FIRST_CHOICES,
    REMINDERS,
    STATUSES,
    TOURNAMENT_RUNNERS,
    WEB_MODES,
)
from bot.service.events.words import FORMAT_WORDS, MATCH_WORDS
from bot.service.looks.exports import EXPORT_FORMATS
from bot.service.play.conditionals import ACTIONS

#: "days": a time per move, a number of days or none.
ParamKind = Literal["game", "game_id", "user", "text", "int", "bool", "choice", "days"]
#: How the console reads a parameter: a game's number (12, #12, game=12), an @name, a bare
#: word, key=value, its name alone meaning yes (a flag), the rest of the line, key=value
#: handed to the game as one of its options (size=7x7), every other key=value word (the
#: game's options), or "none": the console has no such parameter.
Typed = Literal["number", "mention", "word", "key", "flag", "rest", "option", "options", "none"]
#: How the console reads a parameter of each kind that does not say.
TYPED_BY_KIND: dict[ParamKind, Typed] = {"game_id": "number", "user": "mention", "game": "word"}


@dataclass(frozen=True, slots=True)
class Param:
    name: str
    kind: ParamKind
    help: str
    required: bool = False
    choices: tuple[str, ...] = ()
    typed: Typed | None = None  # how the console reads it; None: as its kind
    keys: tuple[str, ...] = ()  # the console's shorter keys for it: days= for days_per_move=

    @property
    def console(self) -> Typed:
        """How the console reads this parameter."""
        return self.typed or TYPED_BY_KIND.get(self.kind, "key")


@dataclass(frozen=True, slots=True)
class Command:
    name: str
    help: str  # one sentence: the slash command's description
    params: tuple[Param, ...] = ()
    discord: str | None = None  # an example, or None where Discord uses a button
    console: str | None = None  # an example, or None where the console has no such command
    buttons: str = ""  # the buttons that stand for it on Discord
    admin: bool = False  # needs Manage Server on Discord


GAME_ID = Param(
    "game", "game_id", "the game's number; defaults to this thread's game or your only game on move"
)
#: How the console names a game; `help` prints it first.
GAME_NUMBERS = (
    "Name a game by its number, first or last on the line: move 12 d5 g3, d5 g3 #12, "
    "undo 12 (or game=12 anywhere). Without a number: your game on move, else your only "
    "game under way; for undo, the game of your last move."
)
GAME_NAME = Param("game", "game", "which game", required=True, choices=tuple(engine.GAMES))

#: An event's number, as `tournament list` shows it.
EVENT = Param("event", "int", "the event's number (tournament list)", required=True, typed="number")

COMMANDS: tuple[Command, ...] = (
    Command(
        "challenge",
        "Challenge players to a game (name opponents, or leave seats open for anyone).",
        (
            GAME_NAME,
            Param("opponent", "user", "who you challenge; none: an open challenge"),
            *(
                Param(f"opponent{n}", "user", "another opponent (Making Intersections)")
                for n in range(2, 8)
            ),
            Param(
                "email",
                "text",
                "an opponent who plays by mail, by their address (where /config email:on)",
            ),
            Param(
                "open_seats",
                "int",
                "seats anyone may take (Making Intersections: up to 7)",
                keys=("open",),
            ),
            Param(
                "size",
                "text",
                "board size, e.g. 7x7 or 11 (each game's default otherwise)",
                typed="option",
            ),
            Param(
                "options",
                "text",
                "other game options as key=value, e.g. lengths=1,3,5 swap=off",
                typed="options",
            ),
            Param(
                "days_per_move",
                "days",
                "time per move",
                choices=DAYS_PER_MOVE_CHOICES,
                keys=("days",),
            ),
            Param(
                "clock",
                "text",
                "a bank clock instead: bank+increment/cap like 10d+36h/10d, or "
                + ", ".join(PRESETS),
                keys=("fischer",),
            ),
            Param("first", "choice", "who moves first", choices=FIRST_CHOICES),
            Param("rated", "bool", "rated (changes ratings) or casual"),
            Param(
                "level",
                "choice",
                "play the bot (or mention it as an opponent): how strong, see /rules",
                choices=tuple(LEVELS),
            ),
        ),
        discord="/challenge game:hotwire opponent:@bob options:size=7x7 days_per_move:3   "
        "(the bot: /challenge game:hex level:medium, or opponent:@Paperboard)",
        console="challenge hotwire @bob size=7x7 days=3 first=random rated=yes   "
        "(the bot: challenge hex @ai level=medium; a bank clock: challenge hex @bob "
        "clock=10d+36h/10d; open seats: challenge intersections @bob open_seats=2; a player "
        "by mail: challenge hex ann@example.org)",
        buttons="Accept, Decline (named opponents), Join (open seats), Cancel (the challenger)",
    ),
    Command(
        "accept",
        "Accept a challenge made to you.",
        (GAME_ID,),
        console="accept 12",
        buttons="Accept",
    ),
    Command(
        "decline",
        "Decline a challenge made to you.",
        (GAME_ID,),
        console="decline 12",
        buttons="Decline",
    ),
    Command(
        "join", "Take an open seat in a challenge.", (GAME_ID,), console="join 12", buttons="Join"
    ),
    Command(
        "cancel", "Withdraw your open challenge.", (GAME_ID,), console="cancel 12", buttons="Cancel"
    ),
    Command(
        "move",
        "Play a move, typed as /rules shows for its game (the menu offers the legal ones).",
        (
            Param("move", "text", "the move as you would write it", required=True, typed="rest"),
            GAME_ID,
        ),
        discord="/move move:d5 g3   (Hot Wire; Hex: /move move:c3)",
        console=(
            "move d5 g3   (Hot Wire; or just: d5 g3; in game 12: move 12 d5 g3, or d5 g3 #12; "
            "Hex: move c3, or c3)"
        ),
        buttons="In a game's thread, a message holding only a move also plays it",
    ),
    Command(
        "board",
        "Show a game's board, now or after any move.",
        (
            GAME_ID,
            Param("ply", "int", "show the position after this many moves"),
            Param("groups", "bool", "Hot Wire: shade the independent groups", typed="flag"),
            Param("public", "bool", "show it to the channel, not only to you", typed="none"),
        ),
        discord="/board game:12 ply:8 groups:true",
        console="board 12 ply=8 groups",
    ),
    Command(
        "next",
        "The game where it is your move with least time left: its board and thread.",
        discord="/next",
        console="next   (next 12: the game after #12)",
        buttons="Next game (the following one)",
    ),
    Command(
        "games",
        "List games: yours, a player's, or this channel's; your turn first.",
        (
            Param("player", "user", "whose games"),
            Param("status", "choice", "only games in this state", choices=STATUSES, typed="word"),
        ),
        discord="/games player:@bob status:active",
        console="games @bob active",
    ),
    Command(
        "conditional",
        "Conditional moves: if your opponent plays this, play that for me (only you see them).",
        (
            Param(
                "line",
                "text",
                "moves in turn from now, your opponent's first: e5 d6 c3 c4",
                typed="rest",
            ),
            Param(
                "action",
                "choice",
                "add (with a line), list (without), remove, clear",
                choices=ACTIONS,
                typed="word",
            ),
            GAME_ID,
        ),
        discord="/conditional game:12 line:e5 d6 c3 c4",
        console="conditional 12 e5 d6 c3 c4   (conditional list | remove e5 | clear)",
    ),
    Command(
        "resign",
        "Resign a game (you are asked to confirm).",
        (GAME_ID,),
        discord="/resign game:12",
        console="resign 12",
    ),
    Command(
        "abort",
        "Call a game off before every player has moved once; no rating changes.",
        (GAME_ID,),
        discord="/abort",
        console="abort 12",
    ),
    Command(
        "undo",
        "Ask your opponents to take back your last move.",
        (GAME_ID,),
        discord="/undo",
        console="undo   (undo 12; opponents answer: undo accept / undo decline 12)",
        buttons="Accept, Decline (for the opponents)",
    ),
    Command(
        "rematch",
        "Challenge the same players to the same game, seats rotated.",
        (GAME_ID,),
        discord="/rematch game:12",
        console="rematch 12",
    ),
    Command(
        "record",
        "The moves of any game, under way or over, with their times, and a GIF replay.",
        (GAME_ID,),
        discord="/record game:12",
        console="record 12",
    ),
    Command(
        "export",
        "Any game's record as a file, under way or over (like /record): JSON, or HexGui's SGF.",
        (
            GAME_ID,
            Param(
                "format",
                "choice",
                "json for any game, sgf for Hex and Disthex",
                choices=EXPORT_FORMATS,
                typed="word",
            ),
        ),
        discord="/export game:12 format:sgf",
        console="export 12 sgf",
    ),
    Command(
        "web",
        "The address of a page on the web: a game's (and its event's), an event's, the server's.",
        (
            Param("game", "game_id", "the game's number; defaults to this thread's game"),
            Param("event", "int", "an event's number (tournament list)"),
        ),
        discord="/web game:12   (in a game's thread: /web; an event: /web event:1)",
        console="web 12   (an event: web event=1; this server's pages: web)",
    ),
    Command(
        "analysis",
        "Analyse a finished game (or yours against the bot alone): win chances, swings, a chart.",
        (GAME_ID,),
        discord="/analysis game:12",
        console="analysis 12",
    ),
    Command(
        "hint",
        "The bot's suggested move, drawn on the board: only in your game against the bot alone.",
        (GAME_ID,),
        discord="/hint",
        console="hint",
    ),
    Command(
        "rules",
        "A game's rules card: how to play, the notation, the options.",
        (GAME_NAME,),
        discord="/rules game:disthex",
        console="rules disthex",
    ),
    Command(
        "rating",
        "A player's ratings per game (from 1500, ? while provisional) and record against the bot.",
        (
            Param("player", "user", "whose rating; you by default; the bot: its record per level"),
            Param("game", "game", "one game only", choices=tuple(engine.GAMES)),
        ),
        discord="/rating player:@bob game:hex",
        console="rating @bob hex   (the bot: rating @ai or rating @Paperboard)",
    ),
    Command(
        "leaderboard",
        "The best rated players of this server in a game.",
        (GAME_NAME,),
        discord="/leaderboard game:hotwire",
        console="leaderboard hotwire",
    ),
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
    # Events ("tournament create": a command and its action; on Discord a subcommand).
    Command(
        "tournament create",
        "Create an event (a round robin, Swiss, knockout, league or ladder) open for entries.",
        (
            GAME_NAME,
            Param(
                "format",
                "choice",
                "roundrobin, swiss, knockout, league or ladder",
                required=True,
                choices=FORMAT_WORDS,
            ),
            Param("name", "text", "the event's name, at most 50 characters"),
            Param("rounds", "int", "Swiss: how many rounds (default: log2 of the players + 1)"),
            Param("match", "choice", "knockout: games per match", choices=MATCH_WORDS),
            Param("double", "bool", "round robin: each pair plays twice, once in each seat"),
            Param(
                "days_per_move",
                "days",
                "time per move in the event's games",
                choices=DAYS_PER_MOVE_CHOICES,
                keys=("days",),
            ),
            Param(
                "clock",
                "text",
                "a bank clock for the event's games instead, like 10d+36h/10d or standard",
            ),
            Param("rated", "bool", "rated games (games against the bot never are)"),
            Param("vacations", "bool", "whether a vacation stops the event's clocks (yes)"),
            Param(
                "auto_vacation",
                "bool",
                "whether a bank clock running out spends a vacation day by itself (yes)",
            ),
            Param(
                "max_players",
                "int",
                "entries are refused beyond this many players",
                keys=("max",),
            ),
            Param("start_players", "int", "start when this many players have joined"),
            Param(
                "starts",
                "text",
                "start at this time: 2026-12-01T18:00 (your time zone) or in 3 days",
            ),
            Param("size", "text", "the games' board size, e.g. 11", typed="option"),
            Param("options", "text", "other game options as key=value", typed="options"),
        ),
        discord="/tournament create game:hex format:roundrobin size:5 days_per_move:3 "
        "name:Spring   (also: /tournament create game:hex format:swiss rounds:4 | "
        "/tournament create game:hex format:knockout match:3 | /tournament create game:hex "
        "format:swiss max_players:16 start_players:8 starts:2026-12-01T18:00)",
        console="tournament create hex format=roundrobin size=5 days=3 name=Spring   "
        "(also: tournament create hex format=swiss rounds=4 | "
        "tournament create hex format=knockout match=3 | tournament create hex format=league | "
        "tournament create hex format=ladder | tournament create hex format=swiss max=16 "
        "start_players=8 starts=2026-12-01T18:00 | tournament create hex format=swiss "
        "clock=standard auto_vacation=no)",
    ),
    Command(
        "tournament join",
        "Enter an event.",
        (EVENT,),
        console="tournament join 1",
        buttons="Join, on the event's sign-up message",
    ),
    Command(
        "tournament leave",
        "Leave an event: after its start your games under way are forfeited.",
        (EVENT,),
        console="tournament leave 1",
        buttons="Leave, on the event's sign-up message",
    ),
    Command(
        "tournament start",
        "Start an event (its organizer or a manager): its first games open.",
        (EVENT,),
        discord="/tournament start event:1",
        console="tournament start 1",
    ),
    Command(
        "tournament standings",
        "An event's standings (its crosstable, its bracket) as text and a picture.",
        (EVENT,),
        discord="/tournament standings event:1",
        console="tournament standings 1",
    ),
    Command(
        "tournament pairings",
        "The games of an event's current round (a ladder's: its challenges not yet played).",
        (EVENT,),
        discord="/tournament pairings event:1",
        console="tournament pairings 1",
    ),
    Command(
        "tournament withdraw",
        "Withdraw a player from an event (yourself, or anyone: its organizer or a manager).",
        (EVENT, Param("player", "user", "whom to withdraw; you by default")),
        discord="/tournament withdraw event:1   (another player: player:@bob)",
        console="tournament withdraw 1   (tournament withdraw 1 @bob)",
    ),
    Command(
        "tournament list",
        "The events of this server.",
        discord="/tournament list",
        console="tournament list",
    ),
    Command(
        "tournament cancel",
        "Call an event off (its organizer or a manager).",
        (EVENT,),
        discord="/tournament cancel event:1",
        console="tournament cancel 1",
    ),
    Command(
        "tournament add-bot",
        "Enter the bot in an event (its organizer or a manager); the AI plays its games.",
        (EVENT, Param("level", "choice", "how strong, see /rules", choices=tuple(LEVELS))),
        discord="/tournament add-bot event:1 level:easy",
        console="tournament add-bot 1 level=easy",
    ),
    Command(
        "tournament challenge",
        "Challenge a player up to 3 places above you on a ladder (one open challenge each).",
        (EVENT, Param("player", "user", "whom to challenge", required=True)),
        discord="/tournament challenge event:1 player:@bob",
        console="tournament challenge 1 @bob",
    ),
    Command(
        "tournament accept",
        "Accept the ladder challenge waiting for you: its game starts.",
        (EVENT,),
        discord="/tournament accept event:1",
        console="tournament accept 1",
    ),
    Command(
        "tournament decline",
        "Decline the ladder challenge waiting for you: a forfeit, the challenger takes your place.",
        (EVENT,),
        discord="/tournament decline event:1",
        console="tournament decline 1",
    ),
    Command(
        "tournament export",
        "An event as a JSON file: entrants, rounds, each game's result and record, standings.",
        (EVENT,),
        discord="/tournament export event:1",
        console="tournament export 1",
    ),
    Command(
        "as",
        "Console: act as this local player from now on (creates them).",
        (Param("name", "text", "a player's name", required=True, typed="word"),),
        console="as bob",
    ),
    Command("help", "The commands by task, each with its help.", discord="/help", console="help"),
    Command("quit", "Console: leave (end of input does too).", console="quit"),
)

BY_NAME = {command.name: command for command in COMMANDS}

CONSOLE_AND_THE_BOT = (
    "- At a terminal the console keeps reading while the bot thinks: its move is printed",
    "  when it comes, and meanwhile any command works (`rules hex`, `games`, a move in",
    "  another game).",
    "- Piped input is a script: each line waits for the bot's moves it set off (and",
    "  `hint` and `analysis` for their answer) before the next line is read, so a script",
    "  sees the bot's reply on the next line and prints the same transcript every run.",
    "- A line starting with `#` and no number is a comment.",
)


def markdown() -> str:
    """docs/COMMANDS.md."""
    lines = [
        "# Commands",
        "",
        "Written from `bot/commands.py` by `python -m bot.commands > docs/COMMANDS.md`;",
        "a test fails when this page is out of date.",
        "",
        "On Discord commands are slash commands; challenges and undo requests are",
        "answered with buttons. In the console (`make run` without a Discord token)",
        "the same commands are typed as words, `@name` for players and `key=value`",
        "for options. Where no game is named, the game of the current thread (or your",
        "only game where it is your turn) is meant.",
        "",
        "## In the console",
        "",
        f"- {GAME_NUMBERS}",
        *CONSOLE_AND_THE_BOT,
        "",
    ]
    for command in COMMANDS:
        title = f"/{command.name}" if command.discord else command.name
        lines += [
            f"## {title}",
            "",
            command.help + (" (Manage Server)" if command.admin else ""),
            "",
        ]
        if command.params:
            lines.append("| parameter | | |")
            lines.append("|---|---|---|")
            for param in command.params:
                needed = "required" if param.required else "optional"
                choices = f" ({', '.join(param.choices)})" if param.choices else ""
                lines.append(f"| `{param.name}` | {needed} | {param.help}{choices} |")
            lines.append("")
        if command.discord:
            lines.append(f"- Discord: `{command.discord}`")
        if command.buttons:
            lines.append(f"- Buttons: {command.buttons}")
        if command.console:
            lines.append(f"- Console: `{command.console}`")
        lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":
    print(markdown(), end="")
