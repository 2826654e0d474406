"""The bot's levels and identities: one player per level, with its own record.

Each level is one player identity ("Paperboard (hard)": a player row of its own, with
a small id no Discord account has), so each keeps its own record per game. Levels
are calibrated by strength, not only time: the weaker ones search a fixed number of
simulations, and the weakest plays a random move now and then.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from bot.service.models import Player, Refused
from engine import Code
from engine.core import shown


@dataclasses.dataclass(frozen=True, slots=True)
class Level:
    name: str
    seconds: float  # the search's time per action (with `nodes`: its most)
    nodes: int | None  # a simulation budget instead (calibrated by strength, not time)
    random_share: float  # how often it plays a random legal move instead
    about: str  # what a player is told


LEVELS: Mapping[str, Level] = {
    level.name: level
    for level in (
        Level("beginner", 1.0, 100, 0.3, "a short search, and a random move one time in three"),
        Level("easy", 1.0, 1_000, 0.0, "a search of 1,000 simulations (a second at most)"),
        Level("medium", 1.0, None, 0.0, "about 1 s of search a move"),
        Level("hard", 10.0, None, 0.0, "about 10 s of search a move"),
        Level("max", 60.0, None, 0.0, "a minute of search a move: for slow games"),
    )
}
DEFAULT_LEVEL = "medium"
#: The bot's player ids, one per level: Discord ids are far larger, console ids too.
BOT_IDS: Mapping[str, int] = {name: i + 1 for i, name in enumerate(LEVELS)}
#: The bot resigns a hopeless game: its chance below this after at least HOPELESS_SIMULATIONS.
HOPELESS_CHANCE = 0.02
HOPELESS_SIMULATIONS = 5_000
MAX_ACTIONS = 64  # a turn of several actions (Short Circuit) never runs away


def levels_text() -> str:
    """One line naming each level and what it means (help, rules)."""
    return "; ".join(f"{level.name}: {level.about}" for level in LEVELS.values())


def bot_player(level: str) -> Player:
    """The bot's identity at `level`; refused for an unknown level."""
    if level not in LEVELS:
        raise Refused(
            f"The bot's levels are {', '.join(LEVELS)}; {shown(level)} is none.",
            code=Code.BAD_OPTION,
        )
    return Player(BOT_IDS[level], f"Paperboard ({level})")


def bot_name(player_id: int) -> str | None:
    """The bot's name at the level `player_id` stands for; None for anyone else."""
    level = next((name for name, bot_id in BOT_IDS.items() if bot_id == player_id), None)
    return None if level is None else bot_player(level).name
