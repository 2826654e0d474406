"""Hex and Disthex: every rule, Decision and fact of docs/rules/hex.md."""

from __future__ import annotations

import json
import random
from collections import Counter
from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine import BadOptions, Code
from engine.core import End, GameState, IllegalMove
from engine.hex import DisthexState, HexState, HexView
from engine.notation import label, point, sort_key
from tests.conftest import play

# The six neighbours of (c, r), as docs/rules/hex.md lists them.
DIRECTIONS = ((0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1))


def game(name: str = "hex", moves: str = "", **options: object) -> GameState:
    return play(engine.new(name, None, **options), *moves.split())


def refused(state: GameState, move: str) -> IllegalMove:
    """Play a move that must be refused; check it left the state as it was."""
    before = (state.moves, state.view())
    with pytest.raises(IllegalMove) as caught:
        state.play(move)
    assert (state.moves, state.view()) == before
    return caught.value


def view(state: GameState) -> HexView:
    result = state.view()
    assert isinstance(result, HexView)
    return result


def neighbours(cell: str, size: int) -> set[str]:
    column, row = point(cell)
    return {
        label((column + dc, row + dr))
        for dc, dr in DIRECTIONS
        if 0 <= column + dc < size and 0 <= row + dr < size
    }


def chain_length(stones: dict[tuple[int, int], int], colour: int, size: int) -> int:
    """Breadth-first, independent of the engine: the fewest `colour` stones that
    join its two edges, 0 when they do not."""
    along = 1 if colour == 0 else 0  # Black's edges are rows, White's columns
    layer = [p for p, c in stones.items() if c == colour and p[along] == 0]
    seen = set(layer)
    length = 1
    while layer:
        if any(p[along] == size - 1 for p in layer):
            return length
        reached = []
        for column, row in layer:
            for dc, dr in DIRECTIONS:
                nxt = (column + dc, row + dr)
                if stones.get(nxt) == colour and nxt not in seen:
                    seen.add(nxt)
                    reached.append(nxt)
        layer = reached
        length += 1
    return 0


# -- registration and options ---------------------------------------------------


def test_registrations() -> None:
    hex_info, disthex_info = engine.GAMES["hex"], engine.GAMES["disthex"]
    assert (hex_info.title, disthex_info.title) == ("Hex", "Disthex")
    assert hex_info.credit == "Piet Hein and John Nash"
    assert disthex_info.credit == "Ryoji Ishii and Cameron Browne (2017)"
    assert hex_info.seat_names == disthex_info.seat_names == ("Black", "White")
    assert isinstance(engine.new("hex"), HexState)
    assert isinstance(engine.new("disthex"), DisthexState)


def test_option_defaults() -> None:
    assert engine.new("hex").options == {"players": 2, "size": 11, "swap": True}
    assert engine.new("disthex").options == {"players": 2, "size": 7, "swap": False}


@pytest.mark.parametrize("typed", [7, "7", "7x7", " 7X7 ", "7×7"])
def test_size_typed(typed: object) -> None:
    assert engine.new("hex", size=typed).options["size"] == 7


@pytest.mark.parametrize(
    ("typed", "expected"),
    [("on", True), ("off", False), ("yes", True), ("no", False), (True, True)],
)
def test_swap_typed(typed: object, expected: bool) -> None:
    assert engine.new("disthex", swap=typed).options["swap"] is expected


@pytest.mark.parametrize(
    ("typed", "words"),
    [
        (1, "2x2 to 19x19, not 1x1"),
        ("20", "2x2 to 19x19, not 20x20"),
        ("0x0", "2x2 to 19x19"),
        ("7x5", "square"),
        ("big", "7x7"),
        (True, "7x7"),
    ],
)
def test_size_refused(typed: object, words: str) -> None:
    with pytest.raises(BadOptions, match="size") as caught:
        engine.new("hex", size=typed)
    assert words in str(caught.value)


def test_swap_and_players_refused() -> None:
    with pytest.raises(BadOptions, match="on or off"):
        engine.new("hex", swap="maybe")
    with pytest.raises(BadOptions, match="exactly 2"):
        engine.new("hex", players=3)
    with pytest.raises(BadOptions, match="no option"):
        engine.new("hex", pie=True)


@pytest.mark.parametrize("name", ["hex", "disthex"])
def test_json_round_trip(name: str) -> None:
    state = game(name, "b2 swap c3 a1", size="5x5", swap="on")
    options = json.loads(json.dumps(state.options))
    assert options == {"players": 2, "size": 5, "swap": True}
    assert engine.replay(name, options, state.moves) == state


# -- the board ------------------------------------------------------------------


def test_a1_is_the_top_left_corner_and_columns_run_right() -> None:
    state = game("hex", size=3, swap=False)
    assert state.legal_moves() == ["a1", "a2", "a3", "b1", "b2", "b3", "c1", "c2", "c3"]
    assert view(state.play("b3")).stones == (((1, 2), 0),)


@pytest.mark.parametrize(
    ("cell", "expected"),
    [
        ("d4", {"d3", "e3", "c4", "e4", "c5", "d5"}),
        ("a1", {"b1", "a2"}),
        ("g1", {"f1", "f2", "g2"}),
        ("a7", {"a6", "b6", "b7"}),
        ("g7", {"g6", "f7"}),
    ],
)
def test_neighbours_as_the_rules_list_them(cell: str, expected: set[str]) -> None:
    # Disthex forbids exactly the empty neighbours of the last stone.
    state = game("disthex", f"{cell}", size=7)
    assert set(view(state).forbidden) == {point(c) for c in expected}
    assert neighbours(cell, 7) == expected


def test_obtuse_corners_do_not_touch() -> None:
    # a1 and b2 are not neighbours; a2 and b1 are.
    state = game("hex", "a1 a2 b2", size=2, swap=False)
    assert state.outcome is None
    state = state.play("b1")
    assert state.outcome is not None
    assert state.outcome.winners == (1,)
    assert state.outcome.path == ("a2", "b1")


# -- moves and refusals -----------------------------------------------------------


def test_black_moves_first_and_turns_alternate() -> None:
    state = game("hex", size=5, swap=False)
    assert state.to_move == 0
    state = state.play(" C3 ")
    assert state.moves == ("c3",)
    assert state.to_move == 1
    state = state.play("a1")
    assert state.to_move == 0
    assert view(state).stones == (((0, 0), 1), ((2, 2), 0))
    assert view(state).last_point == (0, 0)


@pytest.mark.parametrize(
    "typed", ["xyz", "d", "4d", "d4 e5", "d4-e5", "a99999", "д4", "d\x004", "1", "-", "swap d4"]
)
def test_unreadable_refused(typed: str) -> None:
    exc = refused(game("hex", size=7), typed)
    assert exc.code == Code.SYNTAX


@pytest.mark.parametrize("typed", ["", "   ", "d4" * 200])
def test_empty_or_long_refused(typed: str) -> None:
    refused(game("hex", size=7), typed)


@pytest.mark.parametrize(
    ("typed", "cell"), [("k12", "k12"), ("h1", "h1"), ("a8", "a8"), ("a0", "a0"), ("zzz1", "zzz1")]
)
def test_off_board_refused(typed: str, cell: str) -> None:
    exc = refused(game("hex", size=7), typed)
    assert exc.code == Code.OFF_BOARD
    assert str(exc) == f"There is no cell {cell} on a 7x7 board."


def test_leading_zero_is_another_spelling() -> None:
    assert game("hex", "d04", size=7).moves == ("d4",)


@pytest.mark.parametrize("name", ["hex", "disthex"])
def test_occupied_refused(name: str) -> None:
    state = game(name, "d4 a1", size=7)
    exc = refused(state, "d4")
    assert exc.code == Code.OCCUPIED
    assert str(exc) == "d4 is already taken."


@pytest.mark.parametrize("name", ["hex", "disthex"])
def test_pass_is_never_typed(name: str) -> None:
    exc = refused(game(name, "d4", size=7), "pass")
    assert exc.code == Code.NO_PASS
    assert "pass" in str(exc)
    assert "pass" not in game(name, "d4", size=7).legal_moves()


def test_game_over_refuses_everything() -> None:
    state = game("hex", "a1 b1 a2", size=2, swap=False)
    assert state.outcome is not None
    assert state.to_move is None
    assert state.legal_moves() == []
    assert refused(state, "b2").code == Code.GAME_OVER


# -- swap -------------------------------------------------------------------------


def test_swap_exchanges_seats_and_colours() -> None:
    state = game("hex", "d4", size=7)
    assert state.legal_moves()[-1] == "swap"
    assert state.legal_moves() == sorted(state.legal_moves(), key=sort_key)
    state = state.play("SWAP")
    assert isinstance(state, HexState)
    assert state.moves == ("d4", "swap")
    assert state.swapped
    assert (state.colour_of(0), state.colour_of(1)) == (1, 0)
    # The opening stone is still Black, now the swapper's; the other player moves as White.
    assert state.to_move == 0
    v = view(state)
    assert (v.stones, v.colours, v.swapped, v.last_point) == ((((3, 3), 0),), (1, 0), True, (3, 3))
    assert "swap" not in state.legal_moves()
    state = state.play("e5")
    assert view(state).stones == (((3, 3), 0), ((4, 4), 1))
    assert state.to_move == 1


def test_swapper_wins_as_black() -> None:
    # Seat 1 swaps, then completes Black's column a; seat 0 plays White on column c.
    state = game("hex", "a1 swap c1 a2 c2", size=3)
    assert state.outcome is None
    state = state.play("a3")
    assert state.outcome is not None
    assert state.outcome.winners == (1,)
    assert state.outcome.path == ("a1", "a2", "a3")


def test_swap_refused_with_swap_off() -> None:
    exc = refused(game("hex", "d4", size=7, swap=False), "swap")
    assert exc.code == Code.NO_SWAP
    assert "without the swap rule" in str(exc)
    assert "swap" not in game("disthex", "d4").legal_moves()


@pytest.mark.parametrize("moves", ["", "d4 e5", "d4 swap", "d4 swap e5"])
def test_swap_only_as_the_second_players_first_move(moves: str) -> None:
    state = game("hex", moves, size=7)
    exc = refused(state, "swap")
    assert exc.code == Code.NO_SWAP
    assert "second player's first move" in str(exc)
    assert "swap" not in state.legal_moves()


def test_the_swapped_stone_is_occupied() -> None:
    exc = refused(game("hex", "d4 swap", size=7), "d4")
    assert exc.code == Code.OCCUPIED


# -- Disthex ------------------------------------------------------------------------


def test_disthex_first_move_is_unrestricted() -> None:
    assert len(game("disthex", size=7).legal_moves()) == 49
    assert view(game("disthex", size=7)).forbidden == ()


def test_disthex_forbids_the_cells_next_to_the_opponents_last_stone() -> None:
    state = game("disthex", "a1 d5", size=7)
    exc = refused(state, "d4")
    assert exc.code == Code.FORBIDDEN
    assert str(exc) == "d4 is next to White's last stone at d5; Disthex forbids it."
    forbidden = neighbours("d5", 7)
    assert set(state.legal_moves()) == {
        label((c, r)) for c in range(7) for r in range(7)
    } - forbidden - {"a1", "d5"}
    assert view(state).forbidden == tuple(sorted(point(c) for c in forbidden))


def test_disthex_names_black_when_white_is_refused() -> None:
    exc = refused(game("disthex", "d4", size=7), "c5")
    assert str(exc) == "c5 is next to Black's last stone at d4; Disthex forbids it."


def test_disthex_only_the_most_recent_stone_counts() -> None:
    # White's older d5 no longer restricts Black, and Black's older a1 never
    # restricts White once Black has placed g7.
    state = game("disthex", "a1 d5 g7", size=7)
    assert "b1" in state.legal_moves()  # next to Black's older stone a1
    assert "f7" not in state.legal_moves()  # next to g7
    state = state.play("b1")
    assert "d4" in state.legal_moves()  # next to White's older stone d5
    assert set(view(state).forbidden) == {point(c) for c in ("c1", "a2", "b2")}  # around b1


def test_disthex_own_stones_do_not_restrict() -> None:
    state = game("disthex", "d4 a1", size=7)
    assert "d5" in state.legal_moves()  # next to Black's own d4
    state.play("d5")


def test_hex_forbids_nothing() -> None:
    state = game("hex", "d4", size=7, swap=False)
    assert len(state.legal_moves()) == 48
    assert view(state).forbidden == ()
    state.play("d5")


def test_disthex_forced_pass_then_unrestricted() -> None:
    # On 2x2, b1 touches every other cell: White has no cell and passes.
    state = game("disthex", "b1", size=2)
    assert state.moves == ("b1", "pass")
    assert state.to_move == 0
    assert state.last_move == "pass"
    v = view(state)
    assert (v.last_point, v.forbidden) == (None, ())
    # After a pass nothing was placed, so Black may play anywhere, even next to b1.
    assert state.legal_moves() == ["a1", "a2", "b2"]
    state = state.play("b2")
    assert state.outcome is not None
    assert state.outcome.winners == (0,)
    assert state.outcome.path == ("b1", "b2")
    assert engine.replay("disthex", state.options, state.moves) == state


def test_disthex_record_with_pass_replays_and_refuses_a_missing_pass() -> None:
    state = game("disthex", "a1 b2", size=2)
    assert state.moves == ("a1", "b2", "pass")
    assert engine.replay("disthex", state.options, ["a1", "b2", "pass"]) == state
    with pytest.raises(IllegalMove):
        engine.replay("disthex", state.options, ["a1", "b2", "a2"])


def test_disthex_swapped_stone_counts_as_the_swappers_last_stone() -> None:
    state = game("disthex", "d4 swap", size=7, swap=True)
    assert state.to_move == 0
    exc = refused(state, "c4")
    assert exc.code == Code.FORBIDDEN
    assert str(exc) == "c4 is next to Black's last stone at d4; Disthex forbids it."
    assert set(view(state).forbidden) == {point(c) for c in neighbours("d4", 7)}


def test_disthex_swap_is_a_way_out_of_a_pass() -> None:
    # Decision: with swap on, a player whose cells are all forbidden may still
    # swap, so no pass is made; after the swap, the other player is stuck.
    state = game("disthex", "b1", size=2, swap=True)
    assert state.moves == ("b1",)
    assert state.legal_moves() == ["swap"]
    assert str(refused(state, "b 1")) == "I can't read “b 1”: your only move is swap."
    state = state.play("swap")
    assert state.moves == ("b1", "swap", "pass")
    assert state.to_move == 1  # the swapper, now Black, moves again
    assert state.legal_moves() == ["a1", "a2", "b2"]


def _all_games(state: GameState) -> list[GameState]:
    if state.outcome is not None:
        return [state]
    finals = []
    for move in state.legal_moves():
        finals.extend(_all_games(state.play(move)))
    return finals


@pytest.mark.parametrize("size", [2, 3])
@pytest.mark.parametrize("swap", [False, True])
def test_disthex_never_two_passes_in_a_row_every_game(size: int, swap: bool) -> None:
    finals = _all_games(game("disthex", size=size, swap=swap))
    assert any("pass" in final.moves for final in finals)
    for final in finals:
        assert all(a != "pass" or b != "pass" for a, b in pairwise(final.moves))
        assert final.outcome is not None and len(final.outcome.winners) == 1


@pytest.mark.parametrize("size", [4, 5, 7])
def test_disthex_never_two_passes_in_a_row_random(size: int) -> None:
    rng = random.Random(size)
    passes = 0
    for _ in range(600):
        state = game("disthex", size=size, swap=rng.random() < 0.5).random_playout(rng)
        moves = state.moves
        passes += moves.count("pass")
        assert all(a != "pass" or b != "pass" for a, b in pairwise(moves))
    assert passes > 0


# -- the end --------------------------------------------------------------------------


def test_black_wins_top_to_bottom() -> None:
    state = game("hex", "a1 b1 a2 b2 a3 b3 a4 b4", size=5, swap=False)
    assert state.outcome is None
    state = state.play("a5")
    assert state.outcome is not None
    assert (state.outcome.winners, state.outcome.reason) == ((0,), End.CONNECTION)
    assert state.outcome.path == ("a1", "a2", "a3", "a4", "a5")
    assert view(state).chain == tuple((0, r) for r in range(5))


def test_white_wins_left_to_right() -> None:
    state = game("hex", "a1 a2 b1 b2 c1", size=3, swap=False)
    assert state.outcome is None  # Black's row 1 does not reach row 3
    state = state.play("c2")
    assert state.outcome is not None
    assert state.outcome.winners == (1,)
    assert state.outcome.path == ("a2", "b2", "c2")


def test_white_row_wins() -> None:
    state = game("hex", "a3 a1 b3 b1 a2", size=3, swap=False)
    assert state.outcome is None
    state = state.play("c1")
    assert state.outcome is not None
    assert state.outcome.winners == (1,)
    assert state.outcome.path == ("a1", "b1", "c1")


def test_the_chain_is_a_shortest_one() -> None:
    # Black's group holds c1 c2 d2 d3 c4 (six stones with b5) and c1 c2 c3 c4
    # or c3 b4 (five with b5); the chain is five stones long.
    moves = "c1 a1 c2 a2 d2 a3 d3 a4 c4 e1 b4 e2 c3 e3"
    state = game("hex", moves, size=5, swap=False)
    assert state.outcome is None
    state = state.play("b5")
    assert state.outcome is not None
    assert state.outcome.winners == (0,)
    chain = state.outcome.path
    assert len(chain) == 5
    assert chain[0] == "c1" and chain[-1] == "b5"
    for a, b in pairwise(chain):
        assert b in neighbours(a, 5)


def test_chain_only_when_over() -> None:
    assert view(game("hex", "a1", size=3)).chain == ()


def test_full_board_has_exactly_one_connection() -> None:
    rng = random.Random(7)
    for size in range(2, 10):
        for _ in range(200):
            stones = {(c, r): rng.randrange(2) for c in range(size) for r in range(size)}
            assert (chain_length(stones, 0, size) > 0) != (chain_length(stones, 1, size) > 0)


def test_games_never_draw() -> None:
    rng = random.Random(3)
    for name in ("hex", "disthex"):
        for size in (2, 3, 4, 6):
            for _ in range(200):
                final = game(name, size=size, swap=False).random_playout(rng)
                assert final.outcome is not None
                assert len(final.outcome.winners) == 1
                assert final.outcome.reason is End.CONNECTION


# -- playouts, view and property tests ----------------------------------------------------


def _check_final(final: GameState) -> None:
    """The final state is what playing its record gives, and the winner really won."""
    assert engine.replay(final.name, final.options, final.moves) == final
    assert isinstance(final, HexState)
    assert final.outcome is not None
    v = view(final)
    stones = dict(v.stones)
    winner_colour = final.colour_of(final.outcome.winners[0])
    assert chain_length(stones, 1 - winner_colour, v.size) == 0
    chain = [point(cell) for cell in final.outcome.path]
    assert len(chain) == chain_length(stones, winner_colour, v.size)
    assert v.chain == tuple(chain)
    assert all(stones[p] == winner_colour for p in chain)
    along = 1 if winner_colour == 0 else 0
    assert chain[0][along] == 0 and chain[-1][along] == v.size - 1
    for a, b in pairwise(final.outcome.path):
        assert b in neighbours(a, v.size)


@pytest.mark.parametrize("name", ["hex", "disthex"])
@pytest.mark.parametrize("swap", [False, True])
def test_random_playout_replays(name: str, swap: bool) -> None:
    rng = random.Random(11)
    for size in (2, 3, 5, 7, 11):
        start = game(name, size=size, swap=swap)
        for _ in range(60):
            final = start.random_playout(rng)
            assert start.moves == ()  # the original never changes
            _check_final(final)


@pytest.mark.parametrize("name", ["hex", "disthex"])
def test_random_playout_from_mid_game(name: str) -> None:
    rng = random.Random(5)
    for moves in ("d4", "d4 swap", "d4 swap e5", "a1 g7 b2"):
        start = game(name, moves, size=7, swap=True)
        for _ in range(30):
            final = start.random_playout(rng)
            assert final.moves[: start.ply] == start.moves
            _check_final(final)


def test_random_playout_is_uniform_enough() -> None:
    # 2x2 Hex with swap: the first move spreads over the four cells and the
    # second player swaps one time in four (three cells or swap).
    rng = random.Random(1)
    start = game("hex", size=2, swap=True)
    finals = [start.random_playout(rng) for _ in range(4000)]
    firsts = Counter(final.moves[0] for final in finals)
    assert set(firsts) == {"a1", "a2", "b1", "b2"}
    assert all(800 < count < 1200 for count in firsts.values())
    swaps = sum(final.moves[1] == "swap" for final in finals)
    assert 800 < swaps < 1200


@pytest.mark.parametrize("name", ["hex", "disthex"])
def test_legal_moves_are_exactly_what_play_accepts(name: str) -> None:
    rng = random.Random(2)
    size = 4
    every = [label((c, r)) for c in range(size) for r in range(size)] + ["swap", "pass"]
    for _ in range(30):
        state = game(name, size=size, swap=True)
        while state.outcome is None:
            legal = state.legal_moves()
            assert legal == sorted(legal, key=sort_key)
            for move in every:
                if move in legal:
                    state.play(move)
                else:
                    refused(state, move)
            state = state.play(rng.choice(legal))


def test_view_fields() -> None:
    state = game("disthex", "b2 c3", size=4, swap=False)
    v = view(state)
    assert (v.game, v.ply, v.to_move, v.players, v.last_move, v.outcome) == (
        "disthex",
        2,
        0,
        2,
        "c3",
        None,
    )
    assert v.size == 4
    assert v.stones == (((1, 1), 0), ((2, 2), 1))
    assert v.colours == (0, 1)
    assert v.swapped is False
    assert v.last_point == (2, 2)
    assert v.forbidden == tuple(sorted(point(c) for c in neighbours("c3", 4)))
    assert v.chain == ()


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=30))
def test_any_text_is_played_or_refused(text: str) -> None:
    for name in ("hex", "disthex"):
        state = game(name, "d4", size=7, swap=True)
        try:
            after = state.play(text)
        except IllegalMove:
            continue
        assert after.moves[-1] in state.legal_moves()
