"""Hex's move priors: how likely a strong player is to play each empty cell, from what
lies around it. A conditional-logit model (each cell's score the sum of its features'
weights; the chance of a cell its softmax over the moves) learned from MoHex 2.0's
self-play by `python -m bench.hexpriors`, which writes the weights (hexpriors.txt).

The features see the board from the mover's side: the mover's own edges are the rows
(White's positions are read transposed). Per cell: the pattern of its six neighbours
(empty, own, the opponent's, off the board past an own edge or past the opponent's),
one pattern for it and its 180-degree turn; how many bridges it makes to own stones or
edges (0-3); whether it saves an own bridge the opponent has intruded into; whether it
intrudes into an intact bridge of the opponent's; its distance to the last stone (1, 2,
3 or more; 0 when none); its distances to the nearer own edge and the nearer opposing
edge (0-3). Local features only: one model serves every board size.

The search takes the priors as AMAF statistics a node starts with (mcts.Search._refine).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import cache
from importlib.resources import files

EMPTY, OWN, OPPONENT, OWN_EDGE, OPPONENT_EDGE = range(5)
#: Off-board neighbours in the tables below.
_OWN_EDGE, _OPPONENT_EDGE = -1, -2
#: The six directions (column, row) around a cell, in order: the 180-degree turn of
#: direction k is k + 3.
AROUND = ((0, -1), (1, -1), (1, 0), (0, 1), (-1, 1), (-1, 0))
SLOTS = ("pattern", "bridges", "save", "intrude", "last", "own_edge", "opponent_edge")
#: A cell's features, by slot: the pattern as six digits, then small integers.
Features = tuple[str, int, int, int, int, int, int]

#: The prior values the search is given: 0.5 shifted by this much per unit of the log of
#: (a cell's chance x the number of moves), kept within PRIOR_RANGE.
PRIOR_SLOPE = 0.1
PRIOR_RANGE = (0.2, 0.8)


@cache
def _geometry(size: int, colour: int) -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...]]:
    """Per cell, its six neighbours as the mover `colour` sees them (a cell, or an
    edge's code), and the distances (capped at 3) to the nearer own edge and the nearer
    opposing edge, packed as 4 * own + opposing."""
    neighbours = []
    distances = []
    last = size - 1
    for cell in range(size * size):
        row, column = divmod(cell, size)
        # the mover's frame: its edges are the rows
        own_row, other = (row, column) if colour == 0 else (column, row)
        around = []
        for d_other, d_own in AROUND:
            r, c = own_row + d_own, other + d_other
            if not 0 <= r <= last:
                around.append(_OWN_EDGE)
            elif not 0 <= c <= last:
                around.append(_OPPONENT_EDGE)
            else:
                around.append(r * size + c if colour == 0 else c * size + r)
        neighbours.append(tuple(around))
        distances.append(4 * min(own_row, last - own_row, 3) + min(other, last - other, 3))
    return tuple(neighbours), tuple(distances)


@cache
def _distances(size: int) -> tuple[tuple[int, ...], ...]:
    """Hex distances between cells, capped at 3."""
    points = [divmod(cell, size) for cell in range(size * size)]
    return tuple(
        tuple(min(max(abs(r - s), abs(c - d), abs(r - s + c - d)), 3) for s, d in points)
        for r, c in points
    )


def features(size: int, stones: Sequence[int], colour: int, last: int) -> dict[int, Features]:
    """Each empty cell's features for `colour` to move (`stones`: a colour by cell, -1
    empty; `last`: the last stone's cell, -1 if none)."""
    neighbours, edge_distances = _geometry(size, colour)
    distance = _distances(size)[last] if last >= 0 else None
    seen = (OWN, OPPONENT) if colour == 0 else (OPPONENT, OWN)

    def state(code: int) -> int:
        if code >= 0:
            stone = stones[code]
            return EMPTY if stone < 0 else seen[stone]
        return OWN_EDGE if code == _OWN_EDGE else OPPONENT_EDGE

    found: dict[int, Features] = {}
    for cell, stone in enumerate(stones):
        if stone >= 0:
            continue
        around = [state(code) for code in neighbours[cell]]
        turned = around[3:] + around[:3]
        pattern = "".join(map(str, min(around, turned)))
        bridges = save = intrude = 0
        for k in range(6):
            # Neighbours k and k+1 are a bridge's carriers between this cell and the cell
            # beyond them; a neighbour d has neighbours k-1 and k+1 of this cell as the
            # two ends of a bridge whose carriers are this cell and d.
            left, right = around[k - 1], around[(k + 1) % 6]
            beyond = _beyond(neighbours, cell, k, stones, seen)
            if beyond in (OWN, OWN_EDGE) and around[k] == EMPTY and right == EMPTY:
                bridges += 1
            ends = {left, right}
            if ends <= {OWN, OWN_EDGE} and ends != {OWN_EDGE} and around[k] == OPPONENT:
                save = 1
            if ends <= {OPPONENT, OPPONENT_EDGE} and ends != {OPPONENT_EDGE} and around[k] == EMPTY:
                intrude = 1
        to_last = distance[cell] if distance is not None else 0
        edges = edge_distances[cell]
        found[cell] = (pattern, min(bridges, 3), save, intrude, to_last, edges // 4, edges % 4)
    return found


def _beyond(
    neighbours: tuple[tuple[int, ...], ...],
    cell: int,
    k: int,
    stones: Sequence[int],
    seen: tuple[int, int],
) -> int:
    """The state of the cell a bridge away between directions k and k+1: the neighbour
    k+1 of neighbour k (an edge when either step leaves the board)."""
    step = neighbours[cell][k]
    if step < 0:
        return OWN_EDGE if step == _OWN_EDGE else OPPONENT_EDGE
    code = neighbours[step][(k + 1) % 6]
    if code >= 0:
        stone = stones[code]
        return EMPTY if stone < 0 else seen[stone]
    return OWN_EDGE if code == _OWN_EDGE else OPPONENT_EDGE


Weights = tuple[dict[str, float], tuple[tuple[float, ...], ...]]


@cache
def weights() -> Weights:
    """The model: the patterns' weights, then each small slot's weights by value.
    Lines `slot value weight`; lines starting with # are comments."""
    patterns: dict[str, float] = {}
    small: dict[str, dict[int, float]] = {slot: {} for slot in SLOTS[1:]}
    text = (files("engine.ai") / "hexpriors.txt").read_text()
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        slot, value, weight = line.split()
        if slot == "pattern":
            patterns[value] = float(weight)
        else:
            small[slot][int(value)] = float(weight)
    return patterns, tuple(tuple(small[slot].get(v, 0.0) for v in range(4)) for slot in SLOTS[1:])


def score(found: Features, model: Weights) -> float:
    patterns, small = model
    return patterns.get(found[0], 0.0) + sum(
        table[value] for table, value in zip(small, found[1:], strict=True)
    )


def prior_values(
    size: int, stones: Sequence[int], colour: int, last: int, moves: Sequence[int]
) -> list[float]:
    """Each of `moves`' prior value for the search: 0.5 for a move as likely as any,
    more for a likelier one (see PRIOR_SLOPE)."""
    model = weights()
    found = features(size, stones, colour, last)
    scores = [score(found[move], model) for move in moves]
    top = max(scores)
    chances = [math.exp(s - top) for s in scores]
    scale = len(moves) / sum(chances)
    low, high = PRIOR_RANGE
    return [min(high, max(low, 0.5 + PRIOR_SLOPE * math.log(c * scale))) for c in chances]
