"""The bot's levels and identities: one player per level, with its own record.

Each level is one player identity ("Paperboard (hard)": a player row of its own, with
a small id no Discord account has), so each keeps its own record per game. A level's
id is its own and permanent: stored games' seats hold it, so levels may be reordered or
added without handing a stored game to another level. Levels are calibrated by
strength, not only time: the weaker ones search a fixed number of simulations, and the
weakest plays a random move now and then.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from bot.service.core.models import Player, Refused
from engine import Code
from engine.core import shown

#: The bot's player ids: a level's id lies here, and a person's never does (Discord's ids
#: are far larger, the console's are over a million).
BOT_ID_RANGE = range(1, 100)


@dataclasses.dataclass(frozen=True, slots=True)
class Level:
    id: int  # the bot's player id at this level: permanent, never another level's
    name: str
    seconds: float  # the search's time per action (with `nodes`: its most)
    nodes: int | None  # a simulation budget instead (calibrated by strength, not time)
    random_share: float  # how often it plays a random legal move instead
    about: str  # what a player is told


def levels_of(*levels: Level) -> Mapping[str, Level]:
    """The levels by name, in the order players read them; refused at import if two share a
    name or an id, or an id is outside BOT_ID_RANGE."""
    by_id = {level.id: level for level in levels}
    by_name = {level.name: level for level in levels}
    if len(by_id) != len(levels) or len(by_name) != len(levels):
        raise ValueError("each of the bot's levels needs a name and an id of its own")
    if not set(by_id) <= set(BOT_ID_RANGE):
        raise ValueError(f"the bot's ids lie in {BOT_ID_RANGE}")
    return by_name


#: An id is never changed or given to another level: stored games' seats hold it.
LEVELS = levels_of(
    Level(1, "beginner", 1.0, 100, 0.3, "a short search, and a random move one time in three"),
    Level(2, "easy", 1.0, 1_000, 0.0, "a search of 1,000 simulations (a second at most)"),
    Level(3, "medium", 1.0, None, 0.0, "about 1 s of search a move"),
    Level(4, "hard", 10.0, None, 0.0, "about 10 s of search a move"),
    Level(5, "max", 60.0, None, 0.0, "a minute of search a move: for slow games"),
)
DEFAULT_LEVEL = "medium"
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
    return Player(LEVELS[level].id, f"Paperboard ({level})")


def bot_name(player_id: int) -> str | None:
    """The bot's name at the level `player_id` stands for; None for anyone else."""
    level = next((level.name for level in LEVELS.values() if level.id == player_id), None)
    return None if level is None else bot_player(level).name
