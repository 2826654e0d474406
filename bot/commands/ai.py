"""The bot's help: the analysis of a game, a hint in a game against it. (Playing it is
a challenge: play.py.)"""

from __future__ import annotations

from bot.commands.declaration import GAME_ID, Command

COMMANDS: tuple[Command, ...] = (
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
)
