"""Short Circuit's random playouts for search, on bare bitboards (`RandomPlayout`), run
by the compiled loop (engine/_shortcircuit_playout.c) where the install step built it."""

from __future__ import annotations

import functools
import random
from types import ModuleType

from engine.core import End
from engine.shortcircuit import CAPACITOR, CONNECTOR, POP, SETUP_TURNS, Action, ShortCircuitState
from engine.shortcircuitboard import Board, bits, connector_reachable, lowest, placement_kept

_compiled: ModuleType | None
try:  # RandomPlayout's loop compiled, where the install step had a C compiler
    import engine._shortcircuit_playout as _compiled
except ImportError:
    _compiled = None

#: How a playout ended, by the compiled loop's code for it.
_END_CODES = (None, End.LOOP, End.NO_CONNECTORS, End.PASSES, End.TURN_LIMIT)


class RandomPlayout:
    """A position's pieces as bare bitboards, played on by uniformly random legal actions
    to the end: the search's playout, without a state's record, texts or action lists.
    With `take_wins` a mover who can close a loop does (a uniform draw among those
    placements): most playouts then end in a loop instead of at the turn limit, and
    the search won those at equal time (docs/AI.md).

    The rules are those of `actions` and `apply` (tests/test_shortcircuit.py replays
    playouts through them). An action is drawn uniformly from the legal ones by
    rejection from a list as cheap to count as to draw from: the connector and
    capacitor cells, and for each own connector X on or next to a capacitor, every pair
    of a capacitor on or next to X and a connector next to X. A pair is kept only
    through its lowest such X (so each pop counts once) and when the turn can still be
    completed after it, which is plain unless no connector could be placed before it.
    Kept up to date within a run rather than found again for each action: each
    colour's adjacent cells, and per cell the capacitors on or next to it and the
    connectors next to it (counters sliced into three bitboards of their binary
    digits), whose products summed over the mover's connectors count the pairs.

    `run` is compiled (engine/_shortcircuit_playout.c) where the install step could
    build it: the same loop, drawing the same numbers to the same actions, about 16
    times faster; this Python loop is its reference and the fallback.
    """

    __slots__ = (
        "_board",
        "_caps",
        "_caps_left",
        "_colours",
        "_max_turns",
        "_mover",
        "_passes",
        "_popped",
        "_take_wins",
        "_turns",
        "end",
        "played",
        "winners",
    )

    def __init__(self, state: ShortCircuitState, *, take_wins: bool) -> None:
        self._board = state._board
        self._take_wins = take_wins
        self._colours = list(state._colours)
        self._caps = state._caps
        self._caps_left = [-1 if left is None else left for left in state._caps_left]
        self._mover = state._mover
        self._turns = state._turns
        self._passes = state._passes
        self._popped = state._popped
        self._max_turns = state.max_turns
        outcome = state.outcome
        #: how the game ended (None while it goes on) and its winners
        self.end: End | None = None if outcome is None else outcome.reason
        self.winners: tuple[int, ...] = () if outcome is None else outcome.winners
        #: (seat, action) for each action played, in order
        self.played: list[tuple[int, Action]] = []

    def run(self, rng: random.Random, limit: int) -> bool:
        """Play up to `limit` actions (forced passes not counted); whether the game is over."""
        if _compiled is not None and self._board.mask.bit_length() <= _compiled.BITS:
            self._run_compiled(rng, limit)
        else:
            self._run_python(rng, limit)
        return self.end is not None

    def _run_compiled(self, rng: random.Random, limit: int) -> None:
        assert _compiled is not None
        board = self._board
        state = [
            *self._colours,
            self._caps,
            *self._caps_left,
            self._mover,
            self._turns,
            self._passes,
            int(self._popped),
            self._max_turns,
            _END_CODES.index(self.end),
            self.winners[0] if self.winners else -1,
        ]
        _compiled.run(
            (board.side, board.mask, *board.shifts, board.centre),
            state,
            rng.random,
            functools.partial(connector_reachable, board),
            limit,
            self.played,
            self._take_wins,
        )
        self._colours, self._caps = state[:4], state[4]
        self._caps_left = state[5:7]
        self._mover, self._turns, self._passes = state[7:10]
        self._popped = bool(state[10])
        self.end = _END_CODES[state[12]]
        self.winners = () if state[13] < 0 else (state[13],)

    def _run_python(self, rng: random.Random, limit: int) -> None:
        board = self._board
        near, closed, mask, adjacent = board.neighbours, board.closed, board.mask, board.adjacent
        colours, left, caps = self._colours, self._caps_left, self._caps
        adj = [adjacent(colour) for colour in colours]
        occupied = colours[0] | colours[1] | colours[2] | colours[3]
        caps0 = caps1 = caps2 = pieces0 = pieces1 = pieces2 = 0
        for cell in bits(caps):
            caps0, caps1, caps2 = _count_up(caps0, caps1, caps2, closed[cell])
        for cell in bits(occupied):
            pieces0, pieces1, pieces2 = _count_up(pieces0, pieces1, pieces2, near[cell])
        mover, turns, passes, popped = self._mover, self._turns, self._passes, self._popped
        max_turns, take_wins = self._max_turns, self._take_wins
        draw = rng.random
        record = self.played.append
        end, winners = self.end, self.winners
        actions = 0
        while end is None and actions < limit:
            if turns < SETUP_TURNS:
                # Setup: a connector of either colour on the centre, then next to it.
                cells = 1 << board.centre if turns == 0 else near[board.centre] & ~occupied
                index = int(draw() * 2 * cells.bit_count())
                kind, first, second = (
                    CONNECTOR,
                    2 * mover + (index & 1),
                    _nth(cells, index >> 1, cells.bit_count()),
                )
            else:
                a = 2 * mover
                adj_a, adj_b = adj[a], adj[a + 1]
                empty = mask & ~occupied
                place_a = empty & adj_b & ~adj_a
                place_b = empty & adj_a & ~adj_b
                own = colours[a] | colours[a + 1]
                free = 0 if popped or not left[mover] else (own | adj_a | adj_b) & ~caps
                count_a, count_b = place_a.bit_count(), place_b.bit_count()
                count_free = free.bit_count()
                direct = count_a + count_b + count_free
                if not (direct or popped or connector_reachable(board, mover, colours, caps)):
                    turns += 1  # a forced pass
                    passes += 1
                    if passes >= 2:
                        end = End.PASSES
                    elif turns >= max_turns:
                        end = End.TURN_LIMIT
                    mover = 1 - mover
                    continue
                wins = (
                    _closing(board, own, place_a | place_b)
                    if take_wins and own.bit_count() >= _LOOP_CELLS - 1
                    else 0
                )
                if wins:  # a loop closed wins: the mover takes it
                    count = wins.bit_count()
                    second = _nth(wins, int(draw() * count), count)
                    kind, first = CONNECTOR, a if place_a >> second & 1 else a + 1
                else:
                    total = direct
                    own0, own1, own2 = own & caps0, own & caps1, own & caps2
                    linkers = own0 | own1 | own2
                    if linkers:
                        total += (
                            (own0 & pieces0).bit_count()
                            + 2 * ((own0 & pieces1).bit_count() + (own1 & pieces0).bit_count())
                            + 4
                            * (
                                (own0 & pieces2).bit_count()
                                + (own1 & pieces1).bit_count()
                                + (own2 & pieces0).bit_count()
                            )
                            + 8 * ((own1 & pieces2).bit_count() + (own2 & pieces1).bit_count())
                            + 16 * (own2 & pieces2).bit_count()
                        )
                    while True:
                        index = int(draw() * total)
                        if index < count_a:
                            kind, first, second = CONNECTOR, a, _nth(place_a, index, count_a)
                            break
                        index -= count_a
                        if index < count_b:
                            kind, first, second = CONNECTOR, a + 1, _nth(place_b, index, count_b)
                            break
                        index -= count_b
                        if index < count_free:
                            kind, first, second = CAPACITOR, _nth(free, index, count_free), 0
                            break
                        index -= count_free
                        rest = linkers
                        while True:  # the linker the index falls on
                            low = rest & -rest
                            rest ^= low
                            linker = low.bit_length() - 1
                            there = caps & closed[linker]
                            targets = occupied & near[linker]
                            per_cap = targets.bit_count()
                            count = there.bit_count() * per_cap
                            if index < count:
                                break
                            index -= count
                        first = _nth(there, index // per_cap, count // per_cap)
                        second = _nth(targets, index % per_cap, per_cap)
                        if lowest(own & closed[first] & near[second]) != linker:
                            continue  # a pop is drawn through its lowest linker only
                        bit = 1 << second
                        if placement_kept(
                            colours, mover, bit, place_a, place_b
                        ) or connector_reachable(
                            board, mover, [m & ~bit for m in colours], caps & ~(1 << first)
                        ):
                            kind = POP
                            break
            actions += 1
            record((mover, (kind, first, second)))
            if kind == POP:
                caps &= ~(1 << first)
                caps0, caps1, caps2 = _count_down(caps0, caps1, caps2, closed[first])
                pieces0, pieces1, pieces2 = _count_down(pieces0, pieces1, pieces2, near[second])
                hit = 0 if colours[0] & bit else 1 if colours[1] & bit else 2
                if hit == 2 and not colours[2] & bit:
                    hit = 3
                colours[hit] &= ~bit
                adj[hit] = adjacent(colours[hit])
                occupied &= ~bit
                popped = True
                continue
            if kind == CONNECTOR:
                bit = 1 << second
                colours[first] |= bit
                adj[first] |= near[second]
                occupied |= bit
                pieces0, pieces1, pieces2 = _count_up(pieces0, pieces1, pieces2, near[second])
                own = colours[2 * mover] | colours[2 * mover + 1]
                ends = near[second] & own
                if ends & (ends - 1) and _joined(board, ends, own & ~bit):
                    end, winners = End.LOOP, (mover,)
                    break
            else:
                caps |= 1 << first
                caps0, caps1, caps2 = _count_up(caps0, caps1, caps2, closed[first])
                if left[mover] > 0:
                    left[mover] -= 1
            turns += 1
            passes = 0
            opponent = 1 - mover
            if popped and not colours[2 * opponent] | colours[2 * opponent + 1]:
                end, winners = End.NO_CONNECTORS, (mover,)
            elif turns >= max_turns:
                end = End.TURN_LIMIT
            popped = False
            mover = 0 if turns == SETUP_TURNS else opponent
        self._caps = caps
        self._mover, self._turns, self._passes, self._popped = mover, turns, passes, popped
        self.end, self.winners = end, winners


#: The fewest connectors in a loop: adjacent connectors differ in colour, so a loop
#: alternates its owner's two colours (even), and the hex grid has no chordless 4-cycle.
_LOOP_CELLS = 6


def _closing(board: Board, own: int, candidates: int) -> int:
    """The cells of `candidates` next to two connectors of `own` that are joined
    through `own`: a connector there closes a loop."""
    closing = 0
    candidates &= _beside_two(board, own)
    rest = own & board.adjacent(candidates)  # the connectors of the parts that matter
    while rest:
        part = rest & -rest
        while (grown := part | board.adjacent(part) & own) != part:
            part = grown
        rest &= ~part
        closing |= _beside_two(board, part) & candidates
    return closing


def _beside_two(board: Board, cells: int) -> int:
    """The cells (some off the board) next to two or more of `cells`."""
    once = twice = 0
    for shift in board.shifts:
        for beside in (cells << shift, cells >> shift):
            twice |= once & beside
            once |= beside
    return twice


def _nth(mask: int, index: int, count: int) -> int:
    """The bit of the index-th lowest of the `count` set bits of `mask`, counted from
    the nearer end."""
    if 2 * index < count:
        for _ in range(index):
            mask &= mask - 1
        return (mask & -mask).bit_length() - 1
    for _ in range(count - 1 - index):
        mask ^= 1 << mask.bit_length() - 1
    return mask.bit_length() - 1


def _count_up(low: int, middle: int, high: int, cells: int) -> tuple[int, int, int]:
    """A counter per cell up to 7, sliced into its three binary digits, plus one at
    each of `cells`."""
    carry = low & cells
    low ^= cells
    middle, carry = middle ^ carry, middle & carry
    return low, middle, high ^ carry


def _count_down(low: int, middle: int, high: int, cells: int) -> tuple[int, int, int]:
    """`_count_up`'s counters minus one at each of `cells` (each at least one)."""
    borrow = ~low & cells
    low ^= cells
    middle, borrow = middle ^ borrow, ~middle & borrow
    return low, middle, high ^ borrow


def _joined(board: Board, ends: int, rest: int) -> bool:
    """Whether two cells of `ends` are joined through the cells of `rest` (ends in rest)."""
    while ends & (ends - 1):
        seen = frontier = ends & -ends
        ends ^= seen
        while frontier:
            frontier = board.adjacent(frontier) & rest & ~seen
            if frontier & ends:
                return True
            seen |= frontier
    return False
