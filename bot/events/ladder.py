"""Ladders: a standing order per server and game (the first place is the top).

A player may challenge anyone up to `reach` places above them; each player is in at most one
open ladder challenge, sent or received. When the challenger wins they take the loser's
place and everyone from that place down to the challenger's old place moves down one; any
other result leaves the ladder as it was. A challenge not accepted within `accept_days` is
forfeited by the player challenged: the challenger wins it. Newcomers join at the bottom; a
player who leaves is taken out and those below move up one.
"""

from __future__ import annotations

import enum
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from bot.events.model import PlayerId

Ladder = tuple[PlayerId, ...]


@dataclass(frozen=True, slots=True)
class LadderRules:
    reach: int = 3  # how many places above oneself one may challenge
    accept_days: int = 7  # a challenge not accepted in this time is forfeited


class ChallengeRefusal(enum.StrEnum):
    NOT_ON_LADDER = "not_on_ladder"  # the challenger has no place
    TARGET_NOT_ON_LADDER = "target_not_on_ladder"
    SELF = "self"
    NOT_ABOVE = "not_above"  # the target stands below the challenger
    OUT_OF_REACH = "out_of_reach"  # more than `reach` places above
    BUSY = "busy"  # the challenger already has an open ladder challenge
    TARGET_BUSY = "target_busy"  # so has the player challenged


def join(ladder: Sequence[PlayerId], player: PlayerId) -> Ladder:
    """The ladder with `player` at the bottom (as it was, if they are on it)."""
    return tuple(ladder) if player in ladder else (*ladder, player)


def leave(ladder: Sequence[PlayerId], player: PlayerId) -> Ladder:
    return tuple(p for p in ladder if p != player)


def challenge_refusal(
    ladder: Sequence[PlayerId],
    challenger: PlayerId,
    target: PlayerId,
    *,
    open_challenges: Collection[tuple[PlayerId, PlayerId]] = (),
    rules: LadderRules = LadderRules(),
) -> ChallengeRefusal | None:
    """Why `challenger` may not challenge `target` now, or None if they may.
    `open_challenges` are the (challenger, target) pairs of the ladder's open challenges."""
    if challenger not in ladder:
        return ChallengeRefusal.NOT_ON_LADDER
    if target not in ladder:
        return ChallengeRefusal.TARGET_NOT_ON_LADDER
    if challenger == target:
        return ChallengeRefusal.SELF
    above = ladder.index(challenger) - ladder.index(target)
    if above < 0:
        return ChallengeRefusal.NOT_ABOVE
    if above > rules.reach:
        return ChallengeRefusal.OUT_OF_REACH
    busy = {p for pair in open_challenges for p in pair}
    if challenger in busy:
        return ChallengeRefusal.BUSY
    if target in busy:
        return ChallengeRefusal.TARGET_BUSY
    return None


def after_challenge(
    ladder: Sequence[PlayerId], challenger: PlayerId, target: PlayerId, *, challenger_won: bool
) -> Ladder:
    """The ladder after a challenge's game (or its forfeit, which the challenger wins)."""
    order = list(ladder)
    if not challenger_won or order.index(challenger) <= order.index(target):
        return tuple(order)
    order.remove(challenger)
    order.insert(order.index(target), challenger)
    return tuple(order)
