"""The event formats' pure core (bot/events): Berger tables, standings and tiebreaks against
hand-worked examples, knockout brackets, league seasons, ladders and the size limits."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.events import (
    LIMITS,
    Bye,
    ChallengeRefusal,
    Decided,
    Entrant,
    Finish,
    Format,
    GameResult,
    LadderRules,
    Match,
    MatchRules,
    Pairing,
    after_challenge,
    berger_table,
    bracket_order,
    challenge_refusal,
    division_sizes,
    first_round,
    first_season,
    forfeited,
    join,
    leave,
    lost_twice_on_time,
    match_game,
    match_state,
    next_round,
    next_season,
    round_robin,
    round_robin_standings,
    size_refusal,
    swiss_standings,
)

# -- round robin: Berger tables ---------------------------------------------------------------


def test_berger_table_of_six_is_fides() -> None:
    """FIDE Handbook C.05, Annex 1: the Berger table for 5 or 6 players."""
    assert berger_table(6) == (
        ((1, 6), (2, 5), (3, 4)),
        ((6, 4), (5, 3), (1, 2)),
        ((2, 6), (3, 1), (4, 5)),
        ((6, 5), (1, 4), (2, 3)),
        ((3, 6), (4, 2), (5, 1)),
    )


@pytest.mark.parametrize("double", [False, True])
@pytest.mark.parametrize("count", range(2, 25))
def test_round_robin_meets_every_pair_and_balances_seats(count: int, double: bool) -> None:
    players = [100 + i for i in range(count)]
    rounds = round_robin(players, double=double)
    meetings = Counter(frozenset(g.players) for r in rounds for g in r.games)
    assert set(meetings) == {frozenset(pair) for pair in itertools.combinations(players, 2)}
    assert set(meetings.values()) == {2 if double else 1}
    if double:  # each pair plays both seats
        seats = Counter((g.first, g.second) for r in rounds for g in r.games)
        assert set(seats.values()) == {1}
    for r in rounds:  # nobody twice in a round; the odd one out has the round off
        seen = [p for g in r.games for p in g.players] + ([r.bye] if r.bye is not None else [])
        assert sorted(seen) == players
        assert (r.bye is not None) == (count % 2 == 1)
    firsts = Counter(g.first for r in rounds for g in r.games)
    games = (count - 1) * (2 if double else 1)
    for p in players:  # within one game of an equal split (exact for odd and double)
        assert abs(2 * firsts[p] - games) <= (1 if count % 2 == 0 and not double else 0)
    assert [r.number for r in rounds] == list(range(1, len(rounds) + 1))


def test_sixteen_players_make_120_games() -> None:
    assert sum(len(r.games) for r in round_robin(range(16))) == 120


# -- round robin standings --------------------------------------------------------------------


def games(rows: str, round_: int = 1) -> list[GameResult]:
    """Results written 'A>B' (A won, A in the first seat), 'A=B' (draw)."""
    found = []
    for token in rows.split():
        a, sign, b = token
        winner = a if sign == ">" else (b if sign == "<" else None)
        found.append(GameResult(round_, ord(a), ord(b), None if winner is None else ord(winner)))
    return found


def table(standings: object) -> list[tuple[str, int, float, tuple[float, ...]]]:
    return [
        (chr(r.player), r.place, r.points, r.tiebreaks)
        for r in standings.rows  # type: ignore[attr-defined]
    ]


def test_sonneborn_berger_of_a_double_round_robin_from_senseis_library() -> None:
    """Sensei's Library, "Sonneborn-Berger" (senseis.xmp.net/?SonnebornBerger): a double
    round robin of A, B, C, D with no draws.
    Cycle 1: A beat B, C, D; B beat C, D; C beat D. Cycle 2: B beat A, A beat C, D beat A,
    C beat B, B beat D, C beat D. Points: A 4, B 4, C 3, D 1.
    SB (the final points of each opponent beaten): A beat B, C, C, D: 4 + 3 + 3 + 1 = 11;
    B beat A, C, D, D: 4 + 3 + 1 + 1 = 9; C beat B, D, D: 4 + 1 + 1 = 6; D beat A: 4.
    A and B are level on points and 1-1 against each other: SB puts A first."""
    results = games("A>B A>C A>D B>C B>D C>D") + games("A<B A>C A<D B<C B>D C>D", 2)
    standings = round_robin_standings([ord(c) for c in "ABCD"], results, double=True)
    assert table(standings) == [
        ("A", 1, 4.0, (11.0, 0.0, 4)),  # head to head counts among players level on SB
        ("B", 2, 4.0, (9.0, 0.0, 4)),
        ("C", 3, 3.0, (6.0, 0.0, 3)),
        ("D", 4, 1.0, (4.0, 0.0, 1)),
    ]


def test_head_to_head_breaks_a_tie_on_points_and_sonneborn_berger() -> None:
    """A beat B and C and drew D; B drew C and beat D; D beat C. Points: A 2½, B 1½, D 1½,
    C ½. SB: B beat D (1½) and drew C (½ x ½ = ¼): 1¾; D drew A (½ x 2½ = 1¼) and beat C
    (½): 1¾. Level, so head to head: B beat D, and is second."""
    standings = round_robin_standings([ord(c) for c in "ABCD"], games("A>B A>C A=D B=C B>D C<D"))
    assert table(standings) == [
        ("A", 1, 2.5, (2.75, 0.0, 2)),
        ("B", 2, 1.5, (1.75, 1.0, 1)),
        ("D", 3, 1.5, (1.75, 0.0, 1)),
        ("C", 4, 0.5, (0.75, 0.0, 0)),
    ]


def test_wins_break_a_tie_on_points_sonneborn_berger_and_head_to_head() -> None:
    """Five players. A beat B and C, drew D, lost to E; B beat C and D, lost to E; C drew D
    and beat E; D drew E. Points: A 2½, E 2½, B 2, C 1½, D 1½.
    E: SB = beat A 2½ + beat B 2 + drew D ¾ = 5¼; A: beat B 2 + beat C 1½ + drew D ¾ = 4¼.
    C: drew D ¾ + beat E 2½ = 3¼; D: drew A 1¼ + drew C ¾ + drew E 1¼ = 3¼. C and D drew
    each other (½ each), so wins decide: C 1, D 0."""
    results = games("A>B A>C A=D A<E B>C B>D B<E C=D C>E D=E")
    standings = round_robin_standings([ord(c) for c in "ABCDE"], results)
    assert table(standings) == [
        ("E", 1, 2.5, (5.25, 0.0, 2)),
        ("A", 2, 2.5, (4.25, 0.0, 2)),
        ("B", 3, 2.0, (3.0, 0.0, 2)),
        ("C", 4, 1.5, (3.25, 0.5, 1)),
        ("D", 5, 1.5, (3.25, 0.5, 0)),
    ]


def test_a_circle_of_draws_and_wins_shares_the_place() -> None:
    """A beat B, B beat C, C beat A, and all drew D: everyone 1½, SB 2¼ each, head to head
    1½ each; A, B and C won once, D never: A, B, C share first, D is fourth."""
    standings = round_robin_standings([ord(c) for c in "ABCD"], games("A>B B>C C>A A=D B=D C=D"))
    assert [(name, place) for name, place, _, _ in table(standings)] == [
        ("A", 1),
        ("B", 1),
        ("C", 1),
        ("D", 4),
    ]


def test_a_withdrawal_before_half_the_games_is_annulled() -> None:
    """Five players, four games each. E played one game (beat A) and left: fewer than half,
    so that game is struck out. D played two (half) and left: D stays, the two games D did
    not play are lost by forfeit."""
    players = [ord(c) for c in "ABCDE"]
    results = games("A<E A>B A>C B>C B=D C<D")
    results += [
        forfeited(Pairing(ord("A"), ord("D")), 2, ord("D")),
        forfeited(Pairing(ord("D"), ord("E")), 2, ord("D")),
    ]
    standings = round_robin_standings(players, results, withdrawn={ord("D"), ord("E")})
    assert standings.annulled == (ord("E"),)
    points = {chr(r.player): r.points for r in standings.rows}
    assert points == {"A": 3.0, "B": 1.5, "C": 0.0, "D": 1.5}  # E's win over A struck out
    d = next(r for r in standings.rows if r.player == ord("D"))
    assert d.withdrawn and (d.wins, d.draws, d.losses) == (1, 1, 1)


def test_two_losses_on_time_in_a_row_withdraw_a_player() -> None:
    a, b, c = 1, 2, 3
    on_time = [GameResult(1, a, b, b, Finish.TIME), GameResult(2, c, a, c, Finish.TIME)]
    assert lost_twice_on_time(on_time, a)
    assert not lost_twice_on_time(on_time, b)
    assert not lost_twice_on_time(on_time[:1], a)
    between = [on_time[0], GameResult(2, a, c, c), on_time[1]]  # an ordinary loss between
    assert not lost_twice_on_time(between, a)
    won = [on_time[0], GameResult(2, a, c, a, Finish.TIME)]  # c lost that one on time
    assert not lost_twice_on_time(won, a)


# -- Swiss standings --------------------------------------------------------------------------


def test_buchholz_cut_1_cuts_an_unplayed_round_first() -> None:
    """Five players, three rounds, a bye each round. FIDE Tie-Break Regulations (Handbook
    C.07): an unplayed round counts as a game against oneself, and low cuts take unplayed
    rounds first.
    R1: A beat D, B drew E, C bye. R2: A drew C, B beat D, E bye. R3: A drew B, C beat E,
    D bye. Points: C 2½, A 2, B 2, E 1½, D 1.
    Buchholz cut 1: A met D 1, C 2½, B 2: 5½ - 1 = 4½. B met E 1½, D 1, A 2: 4½ - 1 = 3½.
    C: bye (own 2½, cut first), A 2, E 1½: 3½. E: B 2, bye (own 1½, cut), C 2½: 4½.
    D: A 2, B 2, bye (own 1, cut): 4. A and B are level on 2: A's Buchholz puts A second."""
    entrants = [Entrant(ord(c), rating=2000 - 100 * i) for i, c in enumerate("ABCDE")]
    results = games("A>D B=E") + games("A=C B>D", 2) + games("A=B C>E", 3)
    byes = [Bye(1, ord("C")), Bye(2, ord("E")), Bye(3, ord("D"))]
    standings = swiss_standings(entrants, results, byes=byes)
    assert [(n, place, pts, tb[0]) for n, place, pts, tb in table(standings)] == [
        ("C", 1, 2.5, 3.5),
        ("A", 2, 2.0, 4.5),
        ("B", 3, 2.0, 3.5),
        ("E", 4, 1.5, 4.5),
        ("D", 5, 1.0, 4.0),
    ]
    c = standings.rows[0]
    assert (c.byes, c.wins, c.draws) == (1, 1, 1)


def test_sonneborn_berger_then_rating_break_swiss_ties() -> None:
    """Four players, three rounds. R1: A beat B, C beat D. R2: A beat C, B drew D. R3: A drew
    D, B beat C. Points: A 2½, B 1½, C 1, D 1. C and D: Buchholz cut 1 4 each (opponents 1,
    2½, 1½, less 1); SB: C beat D (1) = 1; D drew B (¾) and A (1¼) = 2: D third."""
    entrants = [Entrant(ord(c), rating=2000 - 100 * i) for i, c in enumerate("ABCD")]
    results = games("A>B C>D") + games("A>C B=D", 2) + games("A=D B>C", 3)
    assert [(n, place, tb) for n, place, _, tb in table(swiss_standings(entrants, results))] == [
        ("A", 1, (2.5, 3.0, 2000.0)),
        ("B", 2, (3.5, 1.5, 1900.0)),
        ("D", 3, (4.0, 2.0, 1700.0)),
        ("C", 4, (4.0, 1.0, 1800.0)),
    ]
    # All level on everything but rating: A beat B, C drew D, A drew C, B beat D, D beat A,
    # B drew C: every player 1½, Buchholz cut 1 3, SB 2¼: the rating decides.
    level = games("A>B C=D") + games("A=C B>D", 2) + games("A<D B=C", 3)
    rows = swiss_standings(entrants, level).rows
    assert [(chr(r.player), r.place) for r in rows] == [("A", 1), ("B", 2), ("C", 3), ("D", 4)]
    assert {r.tiebreaks[:2] for r in rows} == {(3.0, 2.25)}


# -- knockout ---------------------------------------------------------------------------------


def test_bracket_order_keeps_the_top_seeds_apart() -> None:
    assert bracket_order(8) == (1, 8, 4, 5, 2, 7, 3, 6)
    assert bracket_order(2) == (1, 2)


@pytest.mark.parametrize("count", range(5, 17))
def test_knockout_seeding_and_byes(count: int) -> None:
    entrants = [Entrant(i, rating=3000 - 10 * i) for i in range(1, count + 1)]  # seed s is s
    size = 1 << (count - 1).bit_length()
    first = first_round(entrants)
    assert len(first.matches) == size // 2
    for match in first.matches:  # seed s meets seed size + 1 - s
        assert match.high + (match.low or size + 1 - match.high) == size + 1
    byes = sorted(m.high for m in first.matches if m.low is None)
    assert byes == list(range(1, size - count + 1))  # the top seeds
    # the higher seed always goes through: then the semi-finals are 1-4 and 2-3, the final 1-2
    round_ = first
    while not round_.final:
        round_ = next_round(round_, [m.high for m in round_.matches])
        if len(round_.matches) == 2:
            assert set(round_.matches) == {Match(1, 4), Match(2, 3)}
    assert round_.matches == (Match(1, 2),)


def test_match_games_alternate_seats() -> None:
    match = Match(1, 2)
    assert [match_game(match, n) for n in (1, 2, 3)] == [
        Pairing(1, 2),
        Pairing(2, 1),
        Pairing(1, 2),
    ]


def result(game: Pairing, winner: int | None) -> GameResult:
    return GameResult(1, game.first, game.second, winner)


def test_a_best_of_three_stops_when_decided() -> None:
    match, rules = Match(1, 2), MatchRules(games=3)
    one = [result(match_game(match, 1), 2)]
    assert match_state(match, one, rules).next_game == Pairing(2, 1)
    two = [*one, result(match_game(match, 2), 2)]
    state = match_state(match, two, rules)
    assert (state.winner, state.decided, state.next_game) == (2, Decided.GAMES, None)
    assert state.points == (0.0, 2.0)


def test_a_drawn_match_goes_to_extra_games_then_to_the_higher_seed() -> None:
    match, rules = Match(1, 2), MatchRules(games=1, extra_games=2)
    drawn = [result(match_game(match, 1), None)]
    state = match_state(match, drawn, rules)
    assert state.winner is None and state.next_game == Pairing(2, 1)  # extra game, seats swap
    low_wins = [*drawn, result(match_game(match, 2), 2)]
    assert match_state(match, low_wins, rules).decided is Decided.EXTRA_GAME
    assert match_state(match, low_wins, rules).winner == 2
    all_drawn = [*drawn, result(match_game(match, 2), None), result(match_game(match, 3), None)]
    state = match_state(match, all_drawn, rules)
    assert (state.winner, state.decided) == (1, Decided.SEED)


def test_a_level_best_of_three_goes_on_and_byes_and_leavers_decide_at_once() -> None:
    match, rules = Match(1, 2), MatchRules(games=3)
    level = [result(match_game(match, 1), 1), result(match_game(match, 2), 2)]
    assert match_state(match, level, rules).next_game == Pairing(1, 2)
    three = [*level, result(match_game(match, 3), None)]  # 1½-1½: an extra game
    assert match_state(match, three, rules).next_game == Pairing(2, 1)
    assert match_state(Match(1, None), []).decided is Decided.BYE
    state = match_state(match, level, rules, left={1})
    assert (state.winner, state.decided) == (2, Decided.LEFT)


def test_a_match_decided_before_a_player_left_stands() -> None:
    match, rules = Match(1, 2), MatchRules(games=3)
    won = [result(match_game(match, 1), 2), result(match_game(match, 2), 2)]
    state = match_state(match, won, rules, left={2})  # the winner left in a later round
    assert (state.winner, state.decided) == (2, Decided.GAMES)
    drawn = [result(match_game(match, n), None) for n in (1, 2, 3, 4, 5)]  # to the seed
    state = match_state(match, drawn, rules, left={1})
    assert (state.winner, state.decided) == (1, Decided.SEED)


def test_match_rules_take_one_three_or_five_games() -> None:
    with pytest.raises(ValueError):
        MatchRules(games=2)


# -- league -----------------------------------------------------------------------------------


def test_division_sizes_stay_within_six_and_ten() -> None:
    for count in range(6, 301):
        sizes = division_sizes(count)
        assert sum(sizes) == count
        assert list(sizes) == sorted(sizes, reverse=True) and sizes[0] - sizes[-1] <= 1
        if count != 11:
            assert all(6 <= s <= 10 for s in sizes), (count, sizes)
    assert division_sizes(11) == (11,)  # two divisions of 6 cannot be made
    assert division_sizes(25) == (9, 8, 8)


def test_league_over_two_seasons_with_newcomers_and_leavers() -> None:
    # Season 1: 20 players by rating, two divisions of 10.
    entrants = [Entrant(i, rating=3000 - i) for i in range(1, 21)]
    season_1 = first_season(entrants)
    assert season_1 == (tuple(range(1, 11)), tuple(range(11, 21)))
    # Final tables (best first): the lower division was won by 20 and 19.
    finals_1 = [
        (1, 2, 3, 4, 5, 6, 7, 8, 9, 10),
        (20, 19, 11, 12, 13, 14, 15, 16, 17, 18),
    ]
    newcomers = [Entrant(21, 1500), Entrant(22, 1600)]
    season_2 = next_season(finals_1, leavers={5}, newcomers=newcomers)
    # Top: stayers 1-4, 6-8 (5 left), then promoted 20, 19; 9 and 10 were to go down, but 5's
    # place is taken by the first of the list below it: 9. The top keeps its 10.
    assert season_2[0] == (1, 2, 3, 4, 6, 7, 8, 20, 19, 9)
    # The lowest: 10 (relegated), the stayers 11-18, then the newcomers by rating: 11 in all,
    # which cannot split into two of 6, so one division of 11.
    assert season_2[1:] == ((10, 11, 12, 13, 14, 15, 16, 17, 18, 22, 21),)
    # Season 2's tables: the top division's order turned over. Then 12, 13 and 14 leave and
    # four newcomers join.
    finals_2 = [season_2[0][::-1], season_2[1]]
    newcomers = [Entrant(30 + i, 1000 - i) for i in range(4)]
    season_3 = next_season(finals_2, leavers={12, 13, 14}, newcomers=newcomers)
    # The top's table was 9, 19, 20, 8, 7, 6, 4, 3, 2, 1: 2 and 1 go down, 10 and 11 (the
    # lowest's first two) come up. The rest: 2, 1, then the lowest's stayers 15-18, 22, 21
    # (the lowest division relegates nobody), then the newcomers: 12 players, two of 6.
    assert season_3 == (
        (9, 19, 20, 8, 7, 6, 4, 3, 10, 11),
        (2, 1, 15, 16, 17, 18),
        (22, 21, 30, 31, 32, 33),
    )


def test_a_shrinking_league_merges_its_lowest_divisions() -> None:
    finals = [tuple(range(1, 11)), tuple(range(11, 21)), tuple(range(21, 29))]
    leavers = set(range(21, 27))  # the lowest keeps 2 players: too few for a division
    season = next_season(finals, leavers=leavers)
    assert [len(d) for d in season] == [10, 6, 6]  # the 12 below the top cut again
    assert season[0] == (*range(1, 9), 11, 12)  # 9 and 10 down, 11 and 12 up


# -- ladder -----------------------------------------------------------------------------------


def test_ladder_challenges_reach_three_places_up_and_a_win_takes_the_place() -> None:
    ladder = (1, 2, 3, 4, 5, 6)
    assert challenge_refusal(ladder, 6, 3) is None
    assert challenge_refusal(ladder, 6, 2) is ChallengeRefusal.OUT_OF_REACH
    assert challenge_refusal(ladder, 2, 6) is ChallengeRefusal.NOT_ABOVE
    assert challenge_refusal(ladder, 6, 6) is ChallengeRefusal.SELF
    assert challenge_refusal(ladder, 7, 6) is ChallengeRefusal.NOT_ON_LADDER
    assert challenge_refusal(ladder, 6, 4, open_challenges=[(6, 5)]) is ChallengeRefusal.BUSY
    assert challenge_refusal(ladder, 6, 4, open_challenges=[(5, 4)]) is ChallengeRefusal.TARGET_BUSY
    assert challenge_refusal(ladder, 6, 2, rules=LadderRules(reach=4)) is None
    assert after_challenge(ladder, 6, 3, challenger_won=True) == (1, 2, 6, 3, 4, 5)
    assert after_challenge(ladder, 6, 3, challenger_won=False) == ladder
    assert join(ladder, 7) == (*ladder, 7) and join(ladder, 3) == ladder
    assert leave(ladder, 3) == (1, 2, 4, 5, 6)


@settings(max_examples=50)
@given(st.permutations(range(8)), st.integers(0, 7), st.integers(1, 3))
def test_a_ladder_result_keeps_everyone_once(ladder: list[int], low: int, up: int) -> None:
    challenger = ladder[low]
    target = ladder[max(low - up, 0)]
    after = after_challenge(ladder, challenger, target, challenger_won=True)
    assert sorted(after) == sorted(ladder)
    if challenger != target:
        assert after.index(challenger) == ladder.index(target)
        assert after.index(target) == ladder.index(target) + 1


# -- limits -----------------------------------------------------------------------------------


def test_size_limits_refuse_with_a_sentence() -> None:
    assert LIMITS[Format.SWISS].most == 1000
    assert size_refusal(Format.SWISS, 1000) is None
    assert size_refusal(Format.SWISS, 10_000) == (
        "A Swiss tournament takes at most 1,000 players; this one has 10,000."
    )
    assert size_refusal(Format.LEAGUE, 5) == "A league needs at least 6 players; this one has 5."
