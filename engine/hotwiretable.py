"""Hot Wire's wire table: every candidate wire of a board and length set, numbered once
in record order, with the mask of the candidates each conflicts with (shares a pin or
crosses), and the lattice geometry that finds them. engine/hotwire.py's states share one
table per board (`HotWireState.wire_table`); the search plays on its masks.
"""

from __future__ import annotations

from itertools import chain
from math import gcd

from engine.notation import Point, label

#: Conflict masks are kept once computed while a table has at most this many
#: candidates (at most n*n/8 bytes); larger tables (up to engine.hotwire's MOST_WIRES) compute
#: them on each use.
_MEMO_LIMIT = 16_384


class WireTable:
    """Every candidate wire of one board and length set, numbered in record order.

    Pins are numbered column * height + row, so numbering pins and candidates
    follows the record order. Shared by every state of the board: immutable
    apart from the memo of conflict masks. Kept as tuples and dicts of numbers and
    text, which the garbage collector stops tracking: as lists, the biggest table's
    ~370,000 entries were scanned again by every full collection of its process.
    """

    def __init__(self, width: int, height: int, lengths: frozenset[int] | None) -> None:
        self.width = width
        self.height = height
        self.lengths = lengths
        # Each candidate runs from its first pin along a primitive vector (dx > 0,
        # or dx == 0 < dy); a vector sorted by (dx, dy) keeps candidates sorted.
        self.vectors = tuple(  # dx, dy and u with dx*uy - dy*ux = 1
            (dx, dy, *_unit_partner(dx, dy)) for dx, dy in _directions(width, height, lengths)
        )
        pin_count = width * height
        first: list[int] = []
        second: list[int] = []
        names: list[str] = []
        self.index: dict[int, int] = {}
        at_pin: list[list[int]] = [[] for _ in range(pin_count)]
        starting: list[list[int]] = [[-1] * pin_count for _ in self.vectors]
        # pin ids and labels worked out once: this loop runs for every candidate
        labels = [label(self.point(pin)) for pin in range(pin_count)]
        steps = [
            (vector, dx, dy, dx * height + dy) for vector, (dx, dy, _, _) in enumerate(self.vectors)
        ]
        for x in range(width):
            for y in range(height):
                p = x * height + y
                for vector, dx, dy, step in steps:
                    if x + dx < width and 0 <= y + dy < height:
                        wire = len(names)
                        q = p + step
                        first.append(p)
                        second.append(q)
                        names.append(f"{labels[p]}-{labels[q]}")
                        self.index[p * pin_count + q] = wire
                        at_pin[p].append(wire)
                        at_pin[q].append(wire)
                        starting[vector][p] = wire
        self.first, self.second, self.names = tuple(first), tuple(second), tuple(names)
        self.at_pin = tuple(tuple(wires) for wires in at_pin)
        self.starting = tuple(tuple(wires) for wires in starting)
        self.count = len(self.names)
        self.everything = (1 << self.count) - 1
        # wire -> its conflict mask, as worked out
        self._conflicts: dict[int, int] | None = {} if self.count <= _MEMO_LIMIT else None

    def pin_id(self, pin: Point) -> int:
        return pin[0] * self.height + pin[1]

    def point(self, pin_id: int) -> Point:
        return divmod(pin_id, self.height)

    def key(self, p: Point, q: Point) -> int:
        """The index key of the wire p-q (pins on the board, in record order)."""
        return self.pin_id(p) * self.width * self.height + self.pin_id(q)

    def conflict(self, wire: int) -> int:
        """The mask of candidates that share a pin with `wire` or cross it (itself included)."""
        memo = self._conflicts
        if memo is not None:
            known = memo.get(wire)
            if known is not None:
                return known
        bits = bytearray(self.count // 8 + 1)
        at_pin = self.at_pin
        for other in chain(
            at_pin[self.first[wire]], at_pin[self.second[wire]], self._crossing(wire)
        ):
            bits[other >> 3] |= 1 << (other & 7)
        mask = int.from_bytes(bits, "little")
        if memo is not None:
            memo[wire] = mask
        return mask

    def _crossing(self, wire: int) -> list[int]:
        """The candidates that cross `wire`, straight from the lattice.

        A candidate s -> s+v crosses P -> P+w exactly when s = P + a*w - b*v with
        0 < a, b < 1. With c = cross(v, w), that open parallelogram holds |c| - 1
        lattice points, one on each line cross(v, s - P) = k for 0 < |k| < |c|
        (no pin lies on its edges, since v and w are primitive).
        """
        px, py = self.point(self.first[wire])
        qx, qy = self.point(self.second[wire])
        wx, wy = qx - px, qy - py
        width, height = self.width, self.height
        crossing: list[int] = []
        for vector, (vx, vy, ux, uy) in enumerate(self.vectors):
            c = vx * wy - vy * wx
            span = abs(c)
            if span < 2:
                continue
            sign = 1 if c > 0 else -1
            w_cross_u = wx * uy - wy * ux
            starting = self.starting[vector]
            # Both ends on the board: 0 <= sx < x_end, y_low <= sy < y_end.
            x_end, y_low, y_end = width - vx, max(0, -vy), min(height, height - vy)
            for k in range(1, span):
                f = sign * k
                m = k * w_cross_u // span
                sx, sy = px + f * ux + m * vx, py + f * uy + m * vy
                if 0 <= sx < x_end and y_low <= sy < y_end:
                    crossing.append(starting[sx * height + sy])
        return crossing


def _directions(width: int, height: int, lengths: frozenset[int] | None) -> list[tuple[int, int]]:
    """The primitive steps (dx > 0, or dx == 0 < dy) of the allowed lengths, sorted."""
    return [
        (dx, dy)
        for dx in range(width)
        for dy in range(-(height - 1), height)
        if (dx > 0 or dy > 0) and gcd(dx, dy) == 1 and (lengths is None or dx + abs(dy) in lengths)
    ]


def wire_count(width: int, height: int, lengths: frozenset[int] | None) -> int:
    """How many candidate wires a board and length set has, without building its table."""
    return sum((width - dx) * (height - abs(dy)) for dx, dy in _directions(width, height, lengths))


def _unit_partner(dx: int, dy: int) -> tuple[int, int]:
    """A lattice vector u with cross((dx, dy), u) = dx*uy - dy*ux = 1 (gcd(dx, dy) = 1)."""
    # Extended Euclid: s*dx + t*dy = ±1, then u = (-t, s).
    old_r, r, old_s, s, old_t, t = dx, dy, 1, 0, 0, 1
    while r:
        quotient = old_r // r
        old_r, r = r, old_r - quotient * r
        old_s, s = s, old_s - quotient * s
        old_t, t = t, old_t - quotient * t
    return -old_t * old_r, old_s * old_r


def _orientation(a: Point, b: Point, c: Point) -> int:
    """The sign of the turn a -> b -> c: 1 left, -1 right, 0 straight."""
    turn = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
    return (turn > 0) - (turn < 0)


def crosses(p: Point, q: Point, r: Point, s: Point) -> bool:
    """Whether segments p-q and r-s properly cross (each strictly separates the other's ends)."""
    return (
        _orientation(p, q, r) * _orientation(p, q, s) < 0
        and _orientation(r, s, p) * _orientation(r, s, q) < 0
    )


def pins_between(p: Point, q: Point) -> list[Point]:
    """The pins strictly inside the segment p-q."""
    dx, dy = q[0] - p[0], q[1] - p[1]
    steps = gcd(dx, dy)
    return [(p[0] + dx * k // steps, p[1] + dy * k // steps) for k in range(1, steps)]
