"""Events: tournaments, leagues and ladders, as pure functions over plain data.

Like the engine, nothing here does I/O or keeps state: given the entrants, the results so
far and the rules of the format, these functions return the next round, the bracket, the
divisions or the table. This package decides; storing events and starting their games
is the service's part (bot/service/events/). It imports only the standard library
and rustworkx (the matching of Swiss pairing).
The rules and every choice made where the literature differs: docs/TOURNAMENTS.md.
"""

from bot.events.knockout import (
    MATCH_LENGTHS,
    Decided,
    KnockoutRound,
    Match,
    MatchRules,
    MatchState,
    bracket_order,
    first_round,
    match_game,
    match_state,
    next_round,
)
from bot.events.ladder import (
    ChallengeRefusal,
    Ladder,
    LadderRules,
    after_challenge,
    challenge_refusal,
    join,
    leave,
)
from bot.events.league import Divisions, LeagueRules, division_sizes, first_season, next_season
from bot.events.model import (
    FORMAT_TITLES,
    LIMITS,
    Bye,
    Entrant,
    Finish,
    Format,
    GameResult,
    Limit,
    Pairing,
    PlayerId,
    Round,
    forfeited,
    seeded,
    size_refusal,
)
from bot.events.roundrobin import berger_table, draw_lots, games_each, round_robin
from bot.events.standings import (
    ROUND_ROBIN_TIEBREAKS,
    SWISS_TIEBREAKS,
    Standing,
    Standings,
    lost_twice_on_time,
    round_robin_standings,
    swiss_standings,
)
from bot.events.swiss import pair_swiss, swiss_rounds

__all__ = [
    "FORMAT_TITLES",
    "LIMITS",
    "MATCH_LENGTHS",
    "ROUND_ROBIN_TIEBREAKS",
    "SWISS_TIEBREAKS",
    "Bye",
    "ChallengeRefusal",
    "Decided",
    "Divisions",
    "Entrant",
    "Finish",
    "Format",
    "GameResult",
    "KnockoutRound",
    "Ladder",
    "LadderRules",
    "LeagueRules",
    "Limit",
    "Match",
    "MatchRules",
    "MatchState",
    "Pairing",
    "PlayerId",
    "Round",
    "Standing",
    "Standings",
    "after_challenge",
    "berger_table",
    "bracket_order",
    "challenge_refusal",
    "division_sizes",
    "draw_lots",
    "first_round",
    "first_season",
    "forfeited",
    "games_each",
    "join",
    "leave",
    "lost_twice_on_time",
    "match_game",
    "match_state",
    "next_round",
    "next_season",
    "pair_swiss",
    "round_robin",
    "round_robin_standings",
    "seeded",
    "size_refusal",
    "swiss_rounds",
    "swiss_standings",
]
