"""Swiss pairing (bot/events/swiss.py): its properties over random tournaments, checked
against a matching that networkx computes independently, and hand-worked rounds."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.events import (
    Bye,
    Entrant,
    Finish,
    GameResult,
    Pairing,
    Round,
    pair_swiss,
    swiss,
    swiss_rounds,
)


def seats_of(results: Sequence[GameResult], player: int) -> list[int]:
    return [
        r.seat(player)
        for r in sorted(results, key=lambda r: r.round)
        if r.played and player in r.players
    ]


def breaks(seats: Sequence[int], seat: int) -> bool:
    """The hard seat rules, written again from docs/TOURNAMENTS.md."""
    firsts = seats.count(0) + (seat == 0)
    seconds = seats.count(1) + (seat == 1)
    return abs(firsts - seconds) > 2 or list(seats[-2:]) == [seat, seat]


def keeps_rules(a: Sequence[int], b: Sequence[int]) -> bool:
    """Whether some seats for a game of a and b keep the hard rules (a player whom neither
    seat keeps within them cannot break them any further)."""

    def ok(seats: Sequence[int], seat: int) -> bool:
        return not breaks(seats, seat) or breaks(seats, 1 - seat)

    return (ok(a, 0) and ok(b, 1)) or (ok(a, 1) and ok(b, 0))


def best_possible(
    present: list[int], results: Sequence[GameResult], byes: Sequence[Bye]
) -> tuple[int, int]:
    """The most games (the bye counted as one) that are no repeat, and among those pairings
    the most that keep the hard seat rules: networkx's matching, weights 1000 and 1."""
    met = {frozenset(r.players) for r in results if r.played}
    no_bye = {b.player for b in byes} | {
        r.winner for r in results if r.finish is Finish.FORFEIT and r.winner is not None
    }
    graph = nx.Graph()
    for i, a in enumerate(present):
        for b in present[i + 1 :]:
            new = frozenset((a, b)) not in met
            kept = keeps_rules(seats_of(results, a), seats_of(results, b))
            graph.add_edge(a, b, weight=1000 * new + kept)
        if len(present) % 2:
            graph.add_edge(a, "bye", weight=1000 * (a not in no_bye) + 1)
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    total = sum(graph.edges[u, v]["weight"] for u, v in matching)
    return divmod(total, 1000)


def achieved(round_: Round, results: Sequence[GameResult], byes: Sequence[Bye]) -> tuple[int, int]:
    met = {frozenset(r.players) for r in results if r.played}
    no_bye = {b.player for b in byes} | {
        r.winner for r in results if r.finish is Finish.FORFEIT and r.winner is not None
    }
    new = sum(frozenset(g.players) not in met for g in round_.games)
    kept = 0
    for game in round_.games:
        first, second = seats_of(results, game.first), seats_of(results, game.second)
        if not keeps_rules(first, second):
            continue
        kept += 1
        # the seats given keep the rules whenever some seats would
        assert not (breaks(first, 0) and not breaks(first, 1))
        assert not (breaks(second, 1) and not breaks(second, 0))
    if round_.bye is not None:
        new += round_.bye not in no_bye
        kept += 1
    return new, kept


def play_round(round_: Round, rng: random.Random, strength: dict[int, float]) -> list[GameResult]:
    results = []
    for g in round_.games:
        expected = 1 / (1 + 10 ** ((strength[g.second] - strength[g.first]) / 400))
        x = rng.random()
        winner = g.first if x < 0.85 * expected else (g.second if x < 0.85 else None)
        finish = Finish.TIME if winner is not None and rng.random() < 0.05 else Finish.PLAYED
        results.append(GameResult(round_.number, g.first, g.second, winner, finish))
    return results


@settings(max_examples=40)
@given(
    count=st.integers(1, 20),
    extra_rounds=st.integers(-2, 3),
    seed=st.integers(0, 2**32),
    leave_chance=st.sampled_from([0.0, 0.0, 0.1]),
)
def test_every_round_pairs_everyone_present_once_with_as_few_repeats_and_seat_breaks_as_can_be(
    count: int, extra_rounds: int, seed: int, leave_chance: float
) -> None:
    rng = random.Random(seed)
    entrants = [Entrant(i, rating=rng.randrange(1200, 2000)) for i in range(count)]
    strength = {e.id: e.rating for e in entrants}
    results: list[GameResult] = []
    byes: list[Bye] = []
    rounds = max(1, swiss_rounds(count) + extra_rounds)  # some go past the default: repeats
    for number in range(1, rounds + 1):
        round_ = pair_swiss(entrants, results, byes=byes, number=number)
        present = [e.id for e in entrants if not e.withdrawn]
        seen = [p for g in round_.games for p in g.players] + (
            [round_.bye] if round_.bye is not None else []
        )
        assert sorted(seen) == present  # everyone present once, nobody who left
        assert (round_.bye is not None) == (len(present) % 2 == 1)
        assert achieved(round_, results, byes) == best_possible(present, results, byes)
        results += play_round(round_, rng, strength)
        if round_.bye is not None:
            byes.append(Bye(number, round_.bye))
        entrants = [
            Entrant(e.id, e.rating, withdrawn=e.withdrawn or rng.random() < leave_chance)
            for e in entrants
        ]


@settings(max_examples=15)
@given(count=st.integers(6, 30), seed=st.integers(0, 2**32))
def test_blocks_merged_until_clean_match_the_whole_field(count: int, seed: int) -> None:
    """With blocks of 4 players the merging does the work the whole graph does: the counts of
    new meetings and kept seat rules are still the best possible."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(swiss, "BLOCK", 4)
        rng = random.Random(seed)
        entrants = [Entrant(i, rating=rng.randrange(1200, 2000)) for i in range(count)]
        strength = {e.id: e.rating for e in entrants}
        results: list[GameResult] = []
        byes: list[Bye] = []
        for number in range(1, swiss_rounds(count) + 2):
            round_ = pair_swiss(entrants, results, byes=byes, number=number)
            present = [e.id for e in entrants]
            assert achieved(round_, results, byes) == best_possible(present, results, byes)
            results += play_round(round_, rng, strength)
            if round_.bye is not None:
                byes.append(Bye(number, round_.bye))


def test_seats_stay_within_two_of_even_over_a_long_swiss() -> None:
    rng = random.Random(7)
    entrants = [Entrant(i, rating=rng.randrange(1200, 2000)) for i in range(40)]
    strength = {e.id: e.rating for e in entrants}
    results: list[GameResult] = []
    for number in range(1, 10):
        results += play_round(pair_swiss(entrants, results, number=number), rng, strength)
    for e in entrants:
        seats = seats_of(results, e.id)
        assert abs(seats.count(0) - seats.count(1)) <= 1  # 9 games: 5 and 4 each way
        assert all(seats[i : i + 3] not in ([0, 0, 0], [1, 1, 1]) for i in range(len(seats)))
    assert max(Counter(frozenset(r.players) for r in results).values()) == 1


def test_round_one_pairs_top_half_against_bottom_half_seats_alternating_by_board() -> None:
    """FIDE Dutch system (Handbook C.04.3): in round 1, S1 = seeds 1-4 meet S2 = seeds 5-8 in
    order; with no seat history the top seed takes the first seat on board 1 and the seats
    alternate down the boards."""
    entrants = [Entrant(i, rating=2000 - i) for i in range(1, 9)]
    round_ = pair_swiss(entrants, [], number=1)
    assert round_.games == (Pairing(1, 5), Pairing(6, 2), Pairing(3, 7), Pairing(8, 4))
    assert round_.bye is None


def test_the_bye_goes_to_the_lowest_ranked_player_without_one() -> None:
    entrants = [Entrant(i, rating=2000 - i) for i in range(1, 6)]
    first = pair_swiss(entrants, [], number=1)
    assert first.bye == 5  # the lowest seed, everyone on 0
    results = [GameResult(1, g.first, g.second, g.first) for g in first.games]
    second = pair_swiss(entrants, results, byes=[Bye(1, 5)], number=2)
    # Round 1 was 1-3 and 4-2 (seats alternating by board), the first seat won: 1, 4 and 5
    # (the bye) have a point, 2 and 3 none. The bye goes to the lowest score group, to its
    # lowest-ranked player: 3, while 2 floats up.
    assert first.games == (Pairing(1, 3), Pairing(4, 2))
    assert second.bye == 3


def test_nobody_who_left_is_paired_and_their_opponents_play_on() -> None:
    entrants = [Entrant(i, rating=2000 - i) for i in range(1, 7)]
    first = pair_swiss(entrants, [], number=1)
    results = [GameResult(1, g.first, g.second, g.second) for g in first.games]
    entrants[0] = Entrant(1, 1999, withdrawn=True)
    second = pair_swiss(entrants, results, number=2)
    assert 1 not in {p for g in second.games for p in g.players}
    assert second.bye is not None and second.bye != 1


def test_default_rounds() -> None:
    assert [swiss_rounds(n) for n in (1, 2, 3, 4, 8, 9, 64, 1000)] == [0, 1, 2, 3, 4, 5, 7, 11]


def test_large_fields_pair_everyone_once_without_repeats() -> None:
    rng = random.Random(3)
    entrants = [Entrant(i, rating=rng.gauss(1500, 200)) for i in range(301)]
    strength = {e.id: e.rating for e in entrants}
    results: list[GameResult] = []
    byes: list[Bye] = []
    for number in range(1, 6):
        round_ = pair_swiss(entrants, results, byes=byes, number=number)
        seen = [p for g in round_.games for p in g.players] + [round_.bye]
        assert sorted(seen) == list(range(301))  # type: ignore[type-var]
        results += play_round(round_, rng, strength)
        assert round_.bye is not None
        byes.append(Bye(number, round_.bye))
    assert max(Counter(frozenset(r.players) for r in results).values()) == 1
    assert max(Counter(b.player for b in byes).values()) == 1
