"""The questions search (engine/ai) asks of a Livewire position, as the base class of
engine/livewire.py's `LivewireState`: its legal lines without move text, a random or a
winning one, threats, open bases and the race to them. They read the position the rules
keep and draw lines through the rules' own hooks (`_legal`, `_obstacle`, `_draw`).
"""

from __future__ import annotations

import random
from abc import abstractmethod
from collections.abc import Iterator, Sequence

from engine.core import Code, GameState
from engine.livewireboard import DIAGONAL, MOVE_KINDS, STRAIGHT, Board, Entry
from engine.notation import Point


class LivewireSearch(GameState):
    """A Livewire position as search sees it; the rules are the subclass's."""

    # the position, as engine/livewire.py's LivewireState keeps it
    _board: Board
    _dot_point: list[int]  # each dot's point, by dot number
    _dot_kind: list[int]
    _dot_at: list[int]  # the first dot made at each point, or -1
    _segment_line: dict[int, int]  # unit edge or square diagonal -> the line drawn on it
    _usable: tuple[set[int], set[int]]  # per seat, the dots a line may start from

    # A line as search sees it: (the point it starts from, its move index in
    # MOVE_KINDS order). The mover has at most one live dot at a point (landing
    # on a live dot kills both), so the pair names the same line in every
    # position where it is legal, without parsing any text.

    def legal_lines(self) -> list[tuple[int, int]]:
        """Every legal line of the player to move, as (start point, move index)."""
        seat = self.ply % 2
        points = self._dot_point
        return [(points[dot], move) for dot, move in self._legal(seat)]

    def random_line(self, rng: random.Random, weights: Sequence[float]) -> tuple[int, int]:
        """A legal line of the player to move, each drawn with a chance proportional to
        the weight of its move index (`weights`, one per index), as
        `rng.choices(legal_lines(), [weights[move] for _, move in ...])` would draw
        it, without listing the legal lines first."""
        dot, move = self._random_line(self.ply % 2, rng, weights)
        return self._dot_point[dot], move

    def landing_line(self, seat: int | None = None) -> tuple[int, int] | None:
        """A legal line of `seat` (the player to move by default) that lands on an
        opponent's base, or None; only the lines into those bases are looked at."""
        mover = self.ply % 2 if seat is None else seat
        moves, landings = self._board.moves[mover], self._board.landings[mover]
        for dot in self._usable[mover]:
            start = self._dot_point[dot]
            for move in landings[start]:
                if move >= 6 and self._dot_kind[dot] == STRAIGHT:
                    continue
                entry = moves[start * 8 + move]
                assert entry is not None
                if self._obstacle(mover, entry) is None:
                    return start, move
        return None

    def draw_line(self, line: tuple[int, int]) -> None:
        """Draw a line of `legal_lines()` with all it does (deaths, passes, the end)."""
        self._draw(self.ply % 2, self._dot_at[line[0]], line[1])

    def move_text(self, line: tuple[int, int]) -> str:
        """The line's move text, as `legal_moves` gives it ("a8-c8")."""
        board = self._board
        entry = board.moves[self.ply % 2][line[0] * 8 + line[1]]
        assert entry is not None
        return f"{board.labels[line[0]]}-{board.labels[entry[0]]}"

    def base_landings(
        self, lines: list[tuple[int, int]], seat: int | None = None
    ) -> list[tuple[int, int]]:
        """The lines of `lines` (legal ones for `seat`, the mover by default) that land
        on an opponent's base: each wins."""
        mover = self.ply % 2 if seat is None else seat
        moves, base_owner = self._board.moves[mover], self._board.base_owner
        found = []
        for start, move in lines:
            entry = moves[start * 8 + move]
            if entry is not None and base_owner[entry[0]] >= 0:
                found.append((start, move))  # legal lines never land on the mover's own base
        return found

    def can_land(self, seat: int) -> bool:
        """Whether `seat` has a line that lands on an opponent's base now, whoever is
        to move: a threat. The other player can always answer it with the same line
        drawn the other way, from the base onto the threatening dot (rules 2-5 do
        not depend on a line's direction, and a base may draw any line)."""
        return self.landing_line(seat) is not None

    def open_bases(self, seat: int) -> list[Point]:
        """`seat`'s bases the opponent could still land on: those where the last
        unit edge or square diagonal of some line into the base is not drawn (nor
        crossed). A base closed on every side can never be reached."""
        board, drawn = self._board, self._segment_line
        attacker = 1 - seat
        moves, vectors = board.moves[attacker], board.vectors[attacker]
        found = []
        for base in board.bases[seat]:
            x, y = board.point(base)
            for (dx, dy), move in vectors.items():
                if not (0 <= x - dx <= board.width and 0 <= y - dy <= board.height):
                    continue
                entry = moves[board.index(x - dx, y - dy) * 8 + move]
                assert entry is not None
                last, crossing = entry[2][-1], entry[3]
                if last not in drawn and (crossing < 0 or crossing not in drawn):
                    found.append((x, y))
                    break
        return found

    def lines_to_goal(self, seat: int) -> dict[tuple[Point, bool], int]:
        """The fewest lines `seat` needs to land on an open base of the opponent from
        a dot at each point, keyed by (point, whether the dot is a straight one: those
        start no diagonal), over the board as it is now: existing lines block as the
        rules say, and a path goes on only through empty points (landing on a dot
        kills the new one). Dots that cannot reach an open base are absent. Later
        lines are ignored: a measure of the race, not a promise."""
        board = self._board
        moves = board.moves[seat]
        incoming: list[list[int]] = [[] for _ in range(board.points)]  # target -> entry numbers
        for number, entry in enumerate(moves):
            if entry is not None:
                incoming[entry[0]].append(number)
        distance: dict[tuple[int, bool], int] = {}
        # (point, straight dot there); None for a goal, which any kind of line may land on
        frontier: list[tuple[int, bool | None]] = [
            (board.index(x, y), None) for x, y in self.open_bases(1 - seat)
        ]
        steps = 0
        while frontier:
            steps += 1
            reached: list[tuple[int, bool | None]] = []
            for target, straight_there in frontier:
                for number in incoming[target]:
                    source, move = divmod(number, 8)
                    kind = MOVE_KINDS[move]
                    if straight_there is not None and (kind == STRAIGHT) != straight_there:
                        continue  # this line would leave the other kind of dot there
                    general, straight = (source, False), (source, True)
                    new_general = general not in distance
                    new_straight = kind != DIAGONAL and straight not in distance
                    if not (new_general or new_straight):
                        continue
                    entry = moves[number]
                    assert entry is not None
                    if self._obstacle(seat, entry) is not None:
                        continue
                    empty = self._dot_at[source] < 0
                    for dot, new in ((general, new_general), (straight, new_straight)):
                        if new:
                            distance[dot] = steps
                            if empty:
                                reached.append(dot)
            frontier = reached
        return {(board.point(p), straight): d for (p, straight), d in distance.items()}

    def growing_points(self, seat: int) -> list[tuple[Point, bool]]:
        """Where `seat` may start a line (its bases and its live unused dots), each with
        whether the dot there is a straight one (it starts no diagonal)."""
        at, points, kinds = self._board.coordinates, self._dot_point, self._dot_kind
        return [(at[points[dot]], kinds[dot] == STRAIGHT) for dot in self._usable[seat]]

    # -- the rules' hooks ------------------------------------------------------------

    @abstractmethod
    def _legal(self, seat: int) -> Iterator[tuple[int, int]]:
        """Every legal (source dot, move index) for `seat`."""

    @abstractmethod
    def _random_line(
        self, seat: int, rng: random.Random, weights: Sequence[float] | None
    ) -> tuple[int, int]:
        """A legal (source dot, move index) for `seat`, drawn by the move indices' weights."""

    @abstractmethod
    def _obstacle(self, seat: int, entry: Entry) -> tuple[Code, int, int] | None:
        """Why the line `entry` is illegal for `seat` as (code, point, line), or None."""

    @abstractmethod
    def _draw(self, seat: int, dot: int, move: int) -> None:
        """Draw a legal line and apply everything it does."""
