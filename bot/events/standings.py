"""Standings: points (win 1, draw ½, loss 0; a loss on time or by forfeit is a loss; a Swiss
bye is 1) and the tiebreaks of each format, as docs/TOURNAMENTS.md states them.

Round robin: Sonneborn-Berger, then head to head, then wins; Swiss: Buchholz cut 1, then
Sonneborn-Berger, then rating. Players equal on points and every tiebreak share a place.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass

from bot.events.model import Bye, Entrant, Finish, GameResult, PlayerId
from bot.events.roundrobin import games_each

ROUND_ROBIN_TIEBREAKS = ("Sonneborn-Berger", "head to head", "wins")
SWISS_TIEBREAKS = ("Buchholz cut 1", "Sonneborn-Berger", "rating")


@dataclass(frozen=True, slots=True)
class Standing:
    """One line of a table. `tiebreaks` line up with `Standings.tiebreaks`."""

    player: PlayerId
    place: int  # 1 is first; players tied on points and every tiebreak share a place
    points: float
    tiebreaks: tuple[float, ...]
    wins: int
    draws: int
    losses: int
    byes: int
    withdrawn: bool


@dataclass(frozen=True, slots=True)
class Standings:
    tiebreaks: tuple[str, ...]  # the names of the tiebreak columns, in the order they count
    rows: tuple[Standing, ...]  # best first
    annulled: tuple[PlayerId, ...] = ()  # withdrawn players whose results do not count


def round_robin_standings(
    players: Sequence[PlayerId],
    results: Iterable[GameResult],
    *,
    double: bool = False,
    withdrawn: Collection[PlayerId] = (),
) -> Standings:
    """The table of a round robin among `players` (table order: it orders full ties).

    A withdrawn player who played fewer than half of their games has their results annulled:
    every game they played or forfeited is struck out, for them and their opponents, and they
    leave the table (`annulled` names them). One who played half or more stays, their
    unplayed games lost by forfeit.
    """
    results = list(results)
    played = Counter(p for r in results if r.played for p in r.players)
    scheduled = games_each(len(players), double=double)
    annulled = tuple(p for p in players if p in withdrawn and 2 * played[p] < scheduled)
    counted = [r for r in results if not set(r.players) & set(annulled)]
    ranked = [p for p in players if p not in annulled]
    points = tally(ranked, counted)
    games: dict[PlayerId, list[GameResult]] = {p: [] for p in ranked}
    for r in counted:
        for p in r.players:
            games[p].append(r)
    sb = {p: sum(r.points(p) * points[r.opponent(p)] for r in games[p]) for p in ranked}
    tied: dict[tuple[float, float], set[PlayerId]] = defaultdict(set)
    for p in ranked:
        tied[points[p], sb[p]].add(p)

    def head_to_head(player: PlayerId) -> float:
        """Points scored against the players tied with `player` on points and SB."""
        group = tied[points[player], sb[player]]
        return sum((r.points(player) for r in games[player] if r.opponent(player) in group), 0.0)

    wins = {p: sum(1 for r in games[p] if r.winner == p) for p in ranked}
    standings = table(
        ranked,
        counted,
        (),
        ROUND_ROBIN_TIEBREAKS,
        lambda p: (sb[p], head_to_head(p), wins[p]),
        withdrawn,
    )
    return Standings(standings.tiebreaks, standings.rows, annulled)


def swiss_standings(
    entrants: Sequence[Entrant], results: Iterable[GameResult], *, byes: Iterable[Bye] = ()
) -> Standings:
    """The table of a Swiss tournament. Entrants equal on everything keep the given order.

    Buchholz sums, over a player's rounds, the final points of the opponent met; a round
    without a game played (a bye, a forfeit either way) counts as a game against oneself:
    the player's own points. Cut 1 leaves out the least of these, an unplayed round's first.
    Sonneborn-Berger sums, over games played, the points scored times the opponent's points.
    """
    results, byes = list(results), list(byes)
    ranked = [e.id for e in entrants]
    rating = {e.id: e.rating for e in entrants}
    points = tally(ranked, results, byes)
    rounds: dict[PlayerId, list[tuple[bool, float]]] = {p: [] for p in ranked}  # (played, value)
    sb = dict.fromkeys(ranked, 0.0)
    for r in results:
        for p in r.players:
            opponent = r.opponent(p)
            rounds[p].append((True, points[opponent]) if r.played else (False, points[p]))
            if r.played:
                sb[p] += r.points(p) * points[opponent]
    for bye in byes:
        rounds[bye.player].append((False, points[bye.player]))
    buchholz = {p: buchholz_cut_1(rounds[p]) for p in ranked}
    withdrawn = {e.id for e in entrants if e.withdrawn}
    return table(
        ranked,
        results,
        byes,
        SWISS_TIEBREAKS,
        lambda p: (buchholz[p], sb[p], rating[p]),
        withdrawn,
    )


def buchholz_cut_1(rounds: Sequence[tuple[bool, float]]) -> float:
    """The sum of a player's rounds' values less the least; an unplayed round is cut first
    (FIDE Tie-Break Regulations, 2023, art. 14.6)."""
    if not rounds:
        return 0.0
    unplayed = [value for played, value in rounds if not played]
    cut = min(unplayed) if unplayed else min(value for _, value in rounds)
    return sum(value for _, value in rounds) - cut


def tally(
    players: Iterable[PlayerId], results: Iterable[GameResult], byes: Iterable[Bye] = ()
) -> dict[PlayerId, float]:
    """Every player's points."""
    points = dict.fromkeys(players, 0.0)
    for r in results:
        for p in r.players:
            points[p] += r.points(p)
    for bye in byes:
        points[bye.player] += 1.0
    return points


def table(
    players: Sequence[PlayerId],
    results: Sequence[GameResult],
    byes: Sequence[Bye],
    names: tuple[str, ...],
    tiebreaks: Callable[[PlayerId], tuple[float, ...]],
    withdrawn: Collection[PlayerId],
) -> Standings:
    """The rows in order of points then tiebreaks (ties keep the players' order), with
    shared places."""
    points = tally(players, results, byes)
    keys = {p: (points[p], *tiebreaks(p)) for p in players}
    order = sorted(players, key=lambda p: tuple(-k for k in keys[p]))  # stable: ties keep order
    wins: Counter[PlayerId] = Counter()
    draws: Counter[PlayerId] = Counter()
    losses: Counter[PlayerId] = Counter()
    for r in results:
        for p in r.players:
            if r.winner == p:
                wins[p] += 1
            elif r.winner is None and r.finish is not Finish.FORFEIT:
                draws[p] += 1
            else:
                losses[p] += 1
    bye_count = Counter(b.player for b in byes)
    rows: list[Standing] = []
    for index, p in enumerate(order):
        place = rows[-1].place if rows and keys[order[index - 1]] == keys[p] else index + 1
        rows.append(
            Standing(
                p,
                place,
                points[p],
                keys[p][1:],
                wins[p],
                draws[p],
                losses[p],
                bye_count[p],
                p in withdrawn,
            )
        )
    return Standings(names, tuple(rows))


def lost_twice_on_time(finished: Sequence[GameResult], player: PlayerId) -> bool:
    """Whether `player`'s last two finished games (given in the order they ended) were both
    lost on time: such a player is withdrawn from the event."""
    theirs = [r for r in finished if player in r.players]
    return len(theirs) >= 2 and all(
        r.finish is Finish.TIME and r.winner != player for r in theirs[-2:]
    )
