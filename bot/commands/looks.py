"""Looking at games and players: a board, the next game on move, lists of games, a
record and its export, the pages on the web, a game's rules, ratings."""

from __future__ import annotations

import engine
from bot.commands.declaration import GAME_ID, GAME_NAME, Command, Param
from bot.service.core.models import STATUSES
from bot.service.looks.exports import EXPORT_FORMATS

COMMANDS: tuple[Command, ...] = (
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
        "A page's address on the web (a game's and its event's, an event's, the server's); "
        "a sign-in link.",
        (
            Param("game", "game_id", "the game's number; defaults to this thread's game"),
            Param("event", "int", "an event's number (tournament list)"),
        ),
        discord="/web game:12   (in a game's thread: /web; an event: /web event:1)",
        console="web 12   (an event: web event=1; this server's pages: web)",
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
)
