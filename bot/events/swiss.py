"""Swiss pairing by maximum-weight matching (rustworkx's `max_weight_matching`).

Each possible game gets one integer weight whose digits, from the most significant, say
(docs/TOURNAMENTS.md, "Swiss" gives the rules and their sources):

1. the two have not met (and, for the bye, the player has had no bye nor forfeit win);
2. seats exist for them that break no hard seat rule (|firsts - seconds| <= 2, never the
   same seat three times in a row);
3. their scores are close: the square of the difference, in half points, counts against;
4. the bye goes to the lowest-ranked player (the bye is a node of its own, a step below the
   lowest score);
5. the seat preferences their seats grant;
6. the natural order: the top half of a score group meets the bottom half (1 v g/2 + 1),
   a floater is the lowest of its group and meets the highest of the next.

Each digit's base exceeds the most that all lower digits of a whole round can add up to, so
the heaviest matching is the best by 1, then by 2, and so on. `max_cardinality` makes it
pair everyone.

rustworkx's matching is networkx's algorithm (Galil's O(n^3) blossom method) in Rust: the
complete graph of 256 players matches in 0.06 s, of 1,000 players (half a million edges) in
15 s. So the present players are laid in the order of the natural pairing (each beside their
ideal opponent, a group's odd one out beside the next group) and cut into blocks of BLOCK
players, each matched alone; a block whose best pairing still repeats a game or breaks a
hard seat rule is merged with its neighbour and matched again, up to MERGED_AT_MOST players.
Up to BLOCK players (and a tail of less than half a block) the whole field is one block:
the exact maximum-weight matching of the complete graph.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import rustworkx as rx

from bot.events.model import Bye, Entrant, GameResult, Pairing, PlayerId, Round, seeded

#: Players matched together at first: a block's complete graph (2,016 edges) weighs and
#: matches in about 10 ms.
BLOCK = 64
#: The largest block merging may make (about 0.3 s): beyond it a repeat or a broken seat
#: rule is accepted rather than holding the worker for seconds.
MERGED_AT_MOST = 256

FIRST, SECOND = 0, 1
ABSOLUTE, STRONG, MILD, NONE = 3, 2, 1, 0


def swiss_rounds(count: int) -> int:
    """The default number of rounds for `count` players: ceil(log2 count) + 1, and never more
    than count - 1 (after that every pair would have met)."""
    if count < 2:
        return 0
    return min(math.ceil(math.log2(count)) + 1, count - 1)


@dataclass(frozen=True, slots=True)
class History:
    """A player's past in the event, as pairing sees it."""

    id: PlayerId
    rank: int  # by rating: 0 is the strongest
    units: int  # score in half points
    met: frozenset[PlayerId]  # opponents of games played (a forfeited game is no meeting)
    seats: tuple[int, ...]  # seats of the games played, in round order
    had_bye: bool  # a bye or a forfeit win: no further bye while avoidable
    withdrawn: bool


def histories(
    entrants: Sequence[Entrant], results: Iterable[GameResult], byes: Iterable[Bye] = ()
) -> dict[PlayerId, History]:
    """Every entrant's history, withdrawn ones too, from the results and byes so far."""
    rank = {player: position for position, player in enumerate(seeded(entrants))}
    if len(rank) != len(entrants):
        raise ValueError("an entrant is listed twice")
    units = dict.fromkeys(rank, 0)
    met: dict[PlayerId, set[PlayerId]] = {player: set() for player in rank}
    seats: dict[PlayerId, list[tuple[int, int]]] = {player: [] for player in rank}
    had_bye: set[PlayerId] = set()
    for result in results:
        for player in result.players:
            if player not in rank:
                raise ValueError(f"{player} played in round {result.round} but is no entrant")
            units[player] += round(2 * result.points(player))
            if result.played:
                met[player].add(result.opponent(player))
                seats[player].append((result.round, result.seat(player)))
            elif result.winner == player:
                had_bye.add(player)
    for bye in byes:
        if bye.player not in rank:
            raise ValueError(f"{bye.player} had a bye in round {bye.round} but is no entrant")
        units[bye.player] += 2
        had_bye.add(bye.player)
    return {
        entrant.id: History(
            entrant.id,
            rank[entrant.id],
            units[entrant.id],
            frozenset(met[entrant.id]),
            tuple(seat for _, seat in sorted(seats[entrant.id])),
            entrant.id in had_bye,
            entrant.withdrawn,
        )
        for entrant in entrants
    }


def pair_swiss(
    entrants: Sequence[Entrant],
    results: Sequence[GameResult],
    *,
    byes: Sequence[Bye] = (),
    number: int,
) -> Round:
    """Round `number` of a Swiss tournament: every entrant who has not withdrawn is paired
    once, or has the bye (odd count). Games come in board order: the highest scores first."""
    players = [h for h in histories(entrants, results, byes).values() if not h.withdrawn]
    standing = sorted(players, key=lambda h: (-h.units, h.rank))
    if not standing:
        return Round(number, ())
    weights = Weights(standing)
    matched = [pair for block in blocks(natural_order(standing), weights) for pair in block.matched]
    bye = next((high.id for high, low in matched if low is None), None)
    boards = sorted(
        ((high, low) for high, low in matched if low is not None),
        key=lambda pair: (-pair[0].units, weights.place[pair[0].id]),
    )
    games = tuple(weights.seats(high, low, board=i) for i, (high, low) in enumerate(boards))
    return Round(number, games, bye)


def natural_order(standing: Sequence[History]) -> list[History]:
    """The players laid out pair by pair as the plain Swiss pairs them (each score group's
    top half against its bottom half, the odd one out floating to the next group), the
    leftover last: partners sit side by side, so cutting the order into blocks keeps them
    together."""
    order: list[History] = []
    carried: list[History] = []
    for group in score_groups(standing):
        bracket = carried + group
        carried = [bracket.pop()] if len(bracket) % 2 else []
        half = len(bracket) // 2
        for high, low in zip(bracket[:half], bracket[half:], strict=True):
            order += [high, low]
    return order + carried


def score_groups(standing: Sequence[History]) -> list[list[History]]:
    groups: list[list[History]] = []
    for player in standing:
        if groups and groups[-1][0].units == player.units:
            groups[-1].append(player)
        else:
            groups.append([player])
    return groups


Matched = list[tuple[History, History | None]]  # (higher-ranked, opponent or None: the bye)


@dataclass(slots=True)
class Block:
    players: list[History]
    matched: Matched
    clean: bool  # no repeat, no broken hard seat rule
    settled: bool = False  # accepted unclean: merging would pass MERGED_AT_MOST


def blocks(order: list[History], weights: Weights) -> list[Block]:
    """The matching of each block of the natural order, merging a block with its neighbour
    while its best pairing repeats a game or breaks a hard seat rule (up to MERGED_AT_MOST)."""
    parts = [order[start : start + BLOCK] for start in range(0, len(order), BLOCK)]
    if len(parts) > 1 and len(parts[-1]) < BLOCK // 2:
        tail = parts.pop()
        parts[-1] = parts[-1] + tail
    odd = len(order) % 2 == 1
    solved = [weights.match(part, with_bye=odd and part is parts[-1]) for part in parts]
    while len(solved) > 1:
        i = next((k for k, b in enumerate(solved) if not (b.clean or b.settled)), None)
        if i is None:
            break
        low = min(i, len(solved) - 2)  # merged with the next block, the last with the one before
        players = solved[low].players + solved[low + 1].players
        if len(players) > MERGED_AT_MOST:
            solved[i].settled = True
            continue
        last = low + 1 == len(solved) - 1
        solved[low : low + 2] = [weights.match(players, with_bye=odd and last)]
    return solved


class Weights:
    """The weight of every possible game of a round (and of the bye), as the module's
    docstring describes; also the seats each game gets."""

    def __init__(self, standing: Sequence[History]) -> None:
        count = len(standing)
        self.place = {h.id: i for i, h in enumerate(standing)}
        self.group: dict[PlayerId, tuple[int, int]] = {}  # (place in score group, its size)
        for group in score_groups(standing):
            for index, player in enumerate(group):
                self.group[player.id] = (index, len(group))
        self.seating = {h.id: Seating.of(h) for h in standing}
        self.lowest = standing[-1].units
        self.spread = standing[0].units - self.lowest + 1  # the bye sits one below the lowest
        # Digit maxima, least significant first: order, seats granted, bye, score, hard seat
        # rules, no meeting. Each base exceeds what the digits below it add up to over a
        # round's games.
        games = count // 2 + 1
        maxima = (2 * count, 2 * ABSOLUTE, count, self.spread**2, 1, 1)
        bases: list[int] = []
        base, most = 1, 0
        for maximum in maxima:
            bases.append(base)
            most += maximum * base
            base = games * most + 1
        if 2 * most >= 2**100:  # the matching works in 128-bit integers and doubles weights
            raise ValueError(f"{count} players are too many to pair")
        self.order_base, self.granted_base, self.bye_base, self.score_base = bases[:4]
        self.hard_base, self.meeting_base = bases[4:]
        #: A game weighs at least this when the two have not met and seats exist that keep
        #: the hard rules: the digits below add up to less than one unit of either.
        self.clean = self.meeting_base + self.hard_base

    def game(self, a: History, b: History) -> int:
        if self.place[a.id] > self.place[b.id]:
            a, b = b, a
        _, granted, hard_ok = allocate(self.seating[a.id], self.seating[b.id])
        index_a, size_a = self.group[a.id]
        index_b, _ = self.group[b.id]
        if a.units == b.units:
            out_of_order = abs(abs(index_a - index_b) - size_a // 2)
        else:
            out_of_order = (size_a - 1 - index_a) + index_b
        return (
            (b.id not in a.met) * self.meeting_base
            + hard_ok * self.hard_base
            + (self.spread**2 - (a.units - b.units) ** 2) * self.score_base
            + granted * self.granted_base
            + (2 * len(self.place) - out_of_order) * self.order_base
        )

    def bye(self, player: History) -> int:
        return (
            (not player.had_bye) * self.meeting_base
            + self.hard_base
            + (self.spread**2 - (player.units - self.lowest + 1) ** 2) * self.score_base
            + self.place[player.id] * self.bye_base
        )

    def match(self, part: list[History], *, with_bye: bool) -> Block:
        """The heaviest pairing of `part` (and the bye), and whether all its games are clean."""
        graph: rx.PyGraph[int, int] = rx.PyGraph()
        graph.add_nodes_from(range(len(part) + with_bye))
        edges = [
            (i, j, self.game(part[i], part[j]))
            for i in range(len(part))
            for j in range(i + 1, len(part))
        ]
        if with_bye:
            edges += [(i, len(part), self.bye(player)) for i, player in enumerate(part)]
        graph.add_edges_from(edges)
        weight = {(i, j): w for i, j, w in edges}
        matched: Matched = []
        clean = True
        for u, v in rx.max_weight_matching(graph, max_cardinality=True, weight_fn=int):
            i, j = min(u, v), max(u, v)
            clean &= weight[i, j] >= self.clean
            if j == len(part):
                matched.append((part[i], None))
            else:
                high, low = sorted((part[i], part[j]), key=lambda h: self.place[h.id])
                matched.append((high, low))
        return Block(part, matched, clean)

    def seats(self, high: History, low: History, *, board: int) -> Pairing:
        """The seats of a game: by the players' preferences; between two players with none,
        the higher-ranked takes the first seat on boards 1, 3, 5... and the second on the
        others."""
        a, b = self.seating[high.id], self.seating[low.id]
        seats, _, _ = allocate(a, b)
        if a.strength == b.strength == NONE and board % 2:
            return Pairing(low.id, high.id)
        return seats


def preference(seats: Sequence[int]) -> tuple[int | None, int]:
    """The seat a player should get next and how strongly (FIDE Handbook C.04.3, A.6):
    absolute when firsts and seconds differ by 2 or more, or the last two seats were the
    same; strong when they differ by 1; mild (alternate) when even; none before any game."""
    if not seats:
        return None, NONE
    difference = seats.count(FIRST) - seats.count(SECOND)
    if difference <= -2:
        return FIRST, ABSOLUTE
    if difference >= 2:
        return SECOND, ABSOLUTE
    if len(seats) >= 2 and seats[-1] == seats[-2]:
        return 1 - seats[-1], ABSOLUTE
    if difference:
        return (FIRST if difference < 0 else SECOND), STRONG
    return 1 - seats[-1], MILD


def breaks_hard_rule(seats: Sequence[int], seat: int) -> bool:
    """Whether taking `seat` next leaves firsts and seconds more than 2 apart, or gives the
    same seat a third time in a row."""
    difference = seats.count(FIRST) - seats.count(SECOND) + (1 if seat == FIRST else -1)
    return abs(difference) > 2 or (len(seats) >= 2 and seats[-1] == seats[-2] == seat)


@dataclass(frozen=True, slots=True)
class Seating:
    """What a player's past seats ask of the next one."""

    id: PlayerId
    seats: tuple[int, ...]
    want: int | None
    strength: int
    allowed: tuple[bool, bool]  # whether FIRST, SECOND may be given

    @classmethod
    def of(cls, player: History) -> Seating:
        """A seat is allowed unless it breaks a hard rule that the other seat would keep (a
        player whom no seat keeps within the rules may have either)."""
        want, strength = preference(player.seats)
        first, second = (
            not breaks_hard_rule(player.seats, seat) or breaks_hard_rule(player.seats, 1 - seat)
            for seat in (FIRST, SECOND)
        )
        return cls(player.id, player.seats, want, strength, (first, second))


def allocate(high: Seating, low: Seating) -> tuple[Pairing, int, bool]:
    """The seats of a game between `high` (the higher-ranked) and `low` (FIDE Handbook
    C.04.3, E): both preferences if they agree; else the stronger one; at equal strength,
    the reverse of the last round in which their seats differed; else the higher-ranked
    player's. Seats that break a hard rule are given only when both ways do. Also the
    preference strength granted (a digit of the weight) and whether the hard rules hold."""
    ways = ((FIRST, SECOND), (SECOND, FIRST))  # (high's seat, low's seat)
    kept = [way for way in ways if high.allowed[way[0]] and low.allowed[way[1]]]
    candidates = kept or list(ways)

    def grants(way: tuple[int, int]) -> tuple[bool, bool]:
        return (high.want in (None, way[0]), low.want in (None, way[1]))

    agreed = [way for way in candidates if all(grants(way))]
    if agreed:
        chosen = agreed[0]
    else:
        if high.strength > low.strength:
            assert high.want is not None
            seat_high = high.want
        elif low.strength > high.strength:
            assert low.want is not None
            seat_high = 1 - low.want
        else:
            reverse = reversed_last_difference(high.seats, low.seats)
            seat_high = reverse if reverse is not None else (high.want or FIRST)
        chosen = (seat_high, 1 - seat_high)
        if chosen not in candidates:
            chosen = candidates[0]
    granted_high, granted_low = grants(chosen)
    granted = high.strength * granted_high + low.strength * granted_low
    pairing = Pairing(high.id, low.id) if chosen[0] == FIRST else Pairing(low.id, high.id)
    return pairing, granted, bool(kept)


def reversed_last_difference(high: Sequence[int], low: Sequence[int]) -> int | None:
    """High's seat reversed from the latest game (counted back from each one's last) in which
    the two held different seats, or None if they never did."""
    for back in range(1, min(len(high), len(low)) + 1):
        if high[-back] != low[-back]:
            return 1 - high[-back]
    return None
