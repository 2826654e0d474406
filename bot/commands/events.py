"""Events: tournaments, leagues and ladders ("tournament create": a command and its
action; on Discord a subcommand)."""

from __future__ import annotations

from bot.commands.declaration import GAME_NAME, Command, Param
from bot.service.core.levels import LEVELS
from bot.service.core.messages import DAYS_PER_MOVE_CHOICES
from bot.service.events.words import FORMAT_WORDS, MATCH_WORDS

#: An event's number, as `tournament list` shows it.
EVENT = Param("event", "int", "the event's number (tournament list)", required=True, typed="number")

COMMANDS: tuple[Command, ...] = (
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
)
