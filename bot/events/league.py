"""Leagues in seasons (Little Golem's championship): divisions of 6 to 10 players, each a
round robin; the top 2 of a division move up and the bottom 2 down; everyone plays on next
season unless they leave; newcomers join the lowest division.

Next season is cut from one ranked list: division by division from the top, in each the
players relegated into it (by their place), then those who stay (by place), then those
promoted into it (by place); newcomers last, by rating. Every division but the lowest keeps
its size, filled from that list, so a leaver's place is taken by the next player of the list
(the best of those who were to go down from it). What is left forms the lowest division, or
several when it is more than 10 (as equal as they can be, the larger ones above). When what
is left is fewer than 6, it joins the division above and the two are cut again the same way.
Only 11 players cannot make divisions of 6 to 10: they play as one division of 11.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from bot.events.model import Entrant, PlayerId, seeded

Divisions = tuple[tuple[PlayerId, ...], ...]


@dataclass(frozen=True, slots=True)
class LeagueRules:
    smallest: int = 6
    largest: int = 10
    promoted: int = 2  # the top of each division but the first move up
    relegated: int = 2  # the bottom of each division but the last move down


def division_sizes(count: int, rules: LeagueRules = LeagueRules()) -> tuple[int, ...]:
    """Sizes for `count` players: the fewest divisions of at most `largest`, as equal as can
    be (the larger above), none under `smallest` (one division when that cannot be)."""
    if count <= 0:
        return ()
    divisions = -(-count // rules.largest)
    while divisions > 1 and count // divisions < rules.smallest:
        divisions -= 1
    size, extra = divmod(count, divisions)
    return tuple(size + 1 if i < extra else size for i in range(divisions))


def cut(ranked: Sequence[PlayerId], sizes: Sequence[int]) -> Divisions:
    divisions: list[tuple[PlayerId, ...]] = []
    start = 0
    for size in sizes:
        divisions.append(tuple(ranked[start : start + size]))
        start += size
    return tuple(divisions)


def first_season(entrants: Sequence[Entrant], rules: LeagueRules = LeagueRules()) -> Divisions:
    """The first season's divisions, top first, from the entrants ranked by rating."""
    ranked = seeded(entrants)
    return cut(ranked, division_sizes(len(ranked), rules))


def next_season(
    finals: Sequence[Sequence[PlayerId]],
    *,
    leavers: Collection[PlayerId] = (),
    newcomers: Sequence[Entrant] = (),
    rules: LeagueRules = LeagueRules(),
) -> Divisions:
    """Next season's divisions, top first, from this season's final tables (`finals`: each
    division's players in the order of its table), those who leave, and the newcomers."""
    last = len(finals) - 1
    moving_in: list[list[PlayerId]] = [[] for _ in finals]  # relegated into each division
    staying: list[list[PlayerId]] = [[] for _ in finals]
    rising: list[list[PlayerId]] = [[] for _ in finals]  # promoted into each division
    for index, table in enumerate(finals):
        up = rules.promoted if index > 0 else 0
        down = rules.relegated if index < last else 0
        down = min(down, len(table) - up)
        for place, player in enumerate(table):
            if place < up:
                rising[index - 1].append(player)
            elif place >= len(table) - down:
                moving_in[index + 1].append(player)
            else:
                staying[index].append(player)
    ranked = [
        player
        for index in range(len(finals))
        for player in (*moving_in[index], *staying[index], *rising[index])
        if player not in leavers
    ]
    present = set(ranked)
    ranked += [p for p in seeded(newcomers) if p not in present and p not in leavers]
    sizes: list[int] = []
    left = len(ranked)
    for size in (len(table) for table in finals[:-1]):
        if left - size < rules.smallest:
            break
        sizes.append(size)
        left -= size
    return cut(ranked, [*sizes, *division_sizes(left, rules)])
