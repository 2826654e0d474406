"""Playing a game: challenges and their answers, moves, conditional moves, resigning,
aborting, undo, a rematch."""

from __future__ import annotations

from bot.commands.declaration import GAME_ID, GAME_NAME, Command, Param
from bot.service.clocks import PRESETS
from bot.service.core.levels import LEVELS
from bot.service.core.messages import DAYS_PER_MOVE_CHOICES
from bot.service.core.models import FIRST_CHOICES
from bot.service.play.conditionals import ACTIONS

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
)
