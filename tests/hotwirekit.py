"""What the tests of Hot Wire share: an independent brute force (docs/rules/hotwire.md read
literally) for the legal wires and the groups, and new games."""

from __future__ import annotations

from math import gcd

from engine.hotwire import HotWireState, WireGroup, wire_text
from engine.notation import Point, point, sort_key
from tests.conftest import game


def turn(a: Point, b: Point, c: Point) -> int:
    value = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
    return (value > 0) - (value < 0)


def properly_cross(p: Point, q: Point, r: Point, s: Point) -> bool:
    return turn(p, q, r) * turn(p, q, s) < 0 and turn(r, s, p) * turn(r, s, q) < 0


def on_closed_segment(a: Point, b: Point, c: Point) -> bool:
    return (
        turn(a, b, c) == 0
        and min(a[0], b[0]) <= c[0] <= max(a[0], b[0])
        and min(a[1], b[1]) <= c[1] <= max(a[1], b[1])
    )


def interact(one: tuple[Point, Point], other: tuple[Point, Point]) -> bool:
    return bool(set(one) & set(other)) or properly_cross(*one, *other)


def pins_of(text: str) -> tuple[Point, Point]:
    first, second = text.split("-")
    return point(first), point(second)


def brute_legal(
    width: int, height: int, lengths: frozenset[int] | None, drawn: list[str]
) -> list[str]:
    wires = [pins_of(text) for text in drawn]
    used = {pin for wire in wires for pin in wire}
    pins = [(x, y) for x in range(width) for y in range(height)]
    legal = []
    for p in pins:
        for q in pins:
            dx, dy = abs(q[0] - p[0]), abs(q[1] - p[1])
            if (
                p < q
                and p not in used
                and q not in used
                and (lengths is None or dx + dy in lengths)
                and gcd(dx, dy) == 1
                and not any(properly_cross(p, q, *wire) for wire in wires)
            ):
                legal.append(wire_text(p, q))
    return sorted(legal, key=sort_key)


def brute_groups(legal: list[str]) -> list[list[str]]:
    """Connected components of the interaction graph, in order of first wire."""
    wires = {text: pins_of(text) for text in legal}
    seen: set[str] = set()
    groups = []
    for start in legal:
        if start in seen:
            continue
        component, frontier = [start], [start]
        seen.add(start)
        while frontier:
            current = frontier.pop()
            for other in legal:
                if other not in seen and interact(wires[current], wires[other]):
                    seen.add(other)
                    component.append(other)
                    frontier.append(other)
        groups.append(sorted(component, key=sort_key))
    return groups


def wire_counts(state: HotWireState, group: WireGroup) -> set[int]:
    """How many wires the group takes, over every way of filling it up."""
    counts: set[int] = set()

    def fill(current: HotWireState, taken: int) -> None:
        moves = [move for move in current.legal_moves() if move in group.wires]
        if not moves:
            counts.add(taken)
        for move in moves:
            fill(current.play(move), taken + 1)

    fill(state, 0)
    return counts


def player_to_move_wins(state: HotWireState, memo: dict[tuple[str, ...], bool]) -> bool:
    moves = tuple(state.legal_moves())
    if moves not in memo:
        memo[moves] = not moves or any(
            not player_to_move_wins(state.play(move), memo) for move in moves
        )
    return memo[moves]


def new(**options: object) -> HotWireState:
    return game(HotWireState, **options)
