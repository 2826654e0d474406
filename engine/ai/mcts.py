"""Monte Carlo tree search: UCT with RAVE (AMAF), decisive moves and proven values.

One tree per search, over an `Adapter`'s positions (or grown on from the
subtree an earlier search kept: KeptTree). Each node keeps, per
candidate move, the visits and reward of its own simulations and the AMAF
("all moves as first") visits and reward of every simulation through the node
in which the mover played that move later. Selection blends the two (RAVE):
AMAF dominates while a move has few visits of its own.

Two-player games also carry proofs (MCTS-Solver): a node whose mover has a
move that wins at once, or a child proven won for the mover, is proven won; a
node all of whose moves are proven lost is proven lost. Proven nodes are not
simulated again and the move choice follows the proof.

The tree's memory is estimated as it grows (per node: its position's own
objects, measured once per search, and the statistics of each candidate move);
past `TREE_BYTES` it stops growing and simulations play out from its leaves,
so a search of any length holds a bounded tree.
"""

from __future__ import annotations

import functools
import gc
import math
import random
import sys
import threading
import time
import types
from collections.abc import Set
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from engine.ai.adapter import Adapter, Rewards
from engine.ai.solver import OutOfTime

_compiled: ModuleType | None
try:  # the inner loops compiled, where the install step had a C compiler
    import engine._mcts as _compiled
except ImportError:
    _compiled = None

#: The most memory a tree may hold, estimated (the issue's limit for a whole search is
#: 300 MB; the interpreter, the engine and a solver's table need the rest, and the bot's
#: worker process holds ~116 MB of imports before it searches: 180 MiB took a hint there
#: to 324 MB). A tree an eighth of 180 MiB cost no measurable strength.
TREE_BYTES = 128 * 2**20
#: A node's cost beyond its position: per candidate move its five statistics, its index
#: entry and its child slot (100-120 bytes measured with tracemalloc in most games, ~150
#: in Hot Wire 19x19's nodes of 6,884 moves), and the node with its lists' headers.
MOVE_BYTES = 150
NODE_BYTES = 600


@dataclass(frozen=True, slots=True)
class Settings:
    """Search parameters. `exploration` is UCT's constant, None for the game's own
    (Adapter.exploration); `rave_equivalence` is the visit count at which a move's
    own statistics weigh as much as its AMAF ones; 0 switches RAVE off."""

    exploration: float | None = None
    rave_equivalence: float = 600.0
    knowledge: bool = True  # the adapter's decisive moves and pruning
    policy: bool = True  # the adapter's playout policy (Adapter.policy)

    @classmethod
    def plain(cls) -> Settings:
        """Plain UCT: C = 1.4, no RAVE, no decisive moves, no pruning (the benchmark's baseline)."""
        return cls(exploration=1.4, rave_equivalence=0.0, knowledge=False)


class Node:
    """A position in the tree, with per-move statistics for its mover."""

    __slots__ = (
        "checked",
        "children",
        "index",
        "mover",
        "moves",
        "pos",
        "proven",
        "rave_visits",
        "rave_wins",
        "refined",
        "result",
        "reward_sum",
        "total",
        "visits",
        "wins",
    )

    def __init__(
        self, adapter: Adapter, pos: Any, settings: Settings, *, root: bool = False
    ) -> None:
        self.pos = pos
        self.result = adapter.result(pos)
        self.proven: int | None = None  # the seat proven to win, when proven
        self.checked = False  # decisive moves looked for
        self.refined = False  # the adapter's dearer knowledge asked
        self.total = 0
        self.reward_sum = [0.0] * adapter.players
        if self.result is not None:
            self.mover = -1
            self.moves: list[Any] = []
            self.proven = adapter.winner(pos) if adapter.players == 2 else None
        else:
            self.mover = adapter.mover(pos)
            moves = adapter.moves(pos)
            if not settings.knowledge:
                self.moves = moves
            elif root:
                self.moves = adapter.root_candidates(pos, moves)
            else:
                self.moves = adapter.candidates(pos, moves)
        count = len(self.moves)
        self.index = {move: i for i, move in enumerate(self.moves)}
        self.children: list[Node | None] = [None] * count
        self.visits = [0] * count
        self.wins = [0.0] * count
        self.rave_visits = [0] * count
        self.rave_wins = [0.0] * count

    def narrow(self, kept: list[Any]) -> None:
        """Keep only the moves of `kept`, with their statistics and children."""
        indices = [self.index[move] for move in kept]
        self.moves = [self.moves[i] for i in indices]
        self.index = {move: i for i, move in enumerate(self.moves)}
        self.children = [self.children[i] for i in indices]
        self.visits = [self.visits[i] for i in indices]
        self.wins = [self.wins[i] for i in indices]
        self.rave_visits = [self.rave_visits[i] for i in indices]
        self.rave_wins = [self.rave_wins[i] for i in indices]


class Search:
    """One search tree from a root position; `run` grows it, the rest reads it."""

    def __init__(
        self,
        adapter: Adapter,
        root: Any,
        *,
        rng: random.Random,
        settings: Settings | None = None,
        tree_bytes: int = TREE_BYTES,
        kept: Node | None = None,
    ) -> None:
        """`kept`: the node of `root` from an earlier search (KeptTree), grown on."""
        self.adapter = adapter
        self.settings = settings or Settings()
        adapter.policy = self.settings.policy
        explicit = self.settings.exploration
        self.exploration = adapter.exploration if explicit is None else explicit
        self.rng = rng
        self.root = kept if kept is not None else Node(adapter, root, self.settings, root=True)
        self.simulations = 0
        self.two_player = adapter.players == 2
        self.tree_bytes = tree_bytes
        self.position_bytes = 0  # what a position adds to its parent's objects
        if self.root.moves:
            child = adapter.play(root, self.root.moves[0])
            self.position_bytes = _bytes_added(root, child)
        self.held_bytes = sum(map(self._cost, _subtree(self.root)))
        self.refine_visits = adapter.refine_visits if self.settings.knowledge else None
        # The inner loops compiled where they were built (engine/_mcts.c), the same
        # arithmetic: the same choices.
        self.select_move = _select_move if _compiled is None else _compiled.select
        self.add_amaf = _add_amaf if _compiled is None else _compiled.amaf
        self.later_moves = _later_moves if _compiled is None else _compiled.later
        if kept is not None:
            # A node's refinement may have proven it, but the root must show the move
            # that keeps the win: only its children's proofs count.
            kept.proven = None
            for i in range(len(kept.moves)):
                self._prove(kept, i)
        if self.root.moves:
            self._check_decisive(self.root)  # every winning move shown as won
        if self.refine_visits is not None and self.root.proven is None and not self.root.refined:
            self._refine(self.root)

    @functools.cached_property
    def root_narrowed(self) -> bool:
        """Whether a game's root_candidates (a choice, not a proof) left out moves
        `candidates` keeps. Asked only when every root move is proven lost."""
        adapter, pos = self.adapter, self.root.pos
        moves = adapter.moves(pos)
        return self.settings.knowledge and set(adapter.root_candidates(pos, moves)) != set(
            adapter.candidates(pos, moves)
        )

    def run(self, *, deadline: float, nodes: int | None = None, capped: bool = False) -> None:
        """Simulate until `deadline` (time.monotonic) or `nodes` simulations, or a proof.
        A node budget turns the clock off (a deterministic search) unless `capped`."""
        clock = time.monotonic
        timed = nodes is None or capped
        self.adapter.deadline = deadline if timed else math.inf
        while self.root.proven is None and self.root.moves:
            if nodes is not None and self.simulations >= nodes:
                return
            if timed and clock() >= deadline:
                return
            try:
                self._simulate()
            except OutOfTime:
                return  # a playout ran past the deadline: that simulation is dropped
            self.simulations += 1

    # -- one simulation -----------------------------------------------------------

    def _simulate(self) -> None:
        adapter = self.adapter
        node = self.root
        path: list[tuple[Node, int]] = []
        while True:
            if node.result is not None or node.proven is not None:
                rewards = node.result or _proven_rewards(node.proven, adapter.players)
                tail: list[tuple[int, Any]] = []
                break
            if not node.checked and node.total > 0:
                self._check_decisive(node)
                if node.proven is not None:
                    continue
            if (
                self.refine_visits is not None
                and not node.refined
                and node.total >= self.refine_visits
            ):
                self._refine(node)
                if node.proven is not None:
                    continue
            i = self._select(node)
            path.append((node, i))
            child = node.children[i]
            if child is None:
                rewards, tail = self._leaf(node, i)
                break
            node = child
        self._back_up(path, rewards, tail)

    def _leaf(self, node: Node, i: int) -> tuple[Rewards, list[tuple[int, Any]]]:
        """Play out after move i of `node`, from a new node while the tree has room,
        else from a position that is not kept."""
        adapter = self.adapter
        pos = adapter.play(node.pos, node.moves[i])
        child = None
        if self.held_bytes < self.tree_bytes and node.visits[i] >= adapter.expand_visits:
            child = self._add_child(node, i, pos)
            result = child.result
        else:
            result = adapter.result(pos)
        if result is not None:
            return result, []
        if self.settings.knowledge:
            rewards, tail = adapter.playout(pos, self.rng)
        else:
            rewards, tail = adapter.random_playout(pos, self.rng)
        if child is not None:
            child.total += 1
            _add(child.reward_sum, rewards)
        return rewards, tail

    def _add_child(self, node: Node, i: int, pos: Any) -> Node:
        """The node of `pos`, after move i of `node`, added to the tree and its memory."""
        child = Node(self.adapter, pos, self.settings)
        node.children[i] = child
        self.held_bytes += self._cost(child)
        return child

    def _cost(self, node: Node) -> int:
        return NODE_BYTES + self.position_bytes + MOVE_BYTES * len(node.moves)

    def _check_decisive(self, node: Node) -> None:
        node.checked = True
        if not self.settings.knowledge:
            return
        winning = self.adapter.decisive(node.pos, node.moves)
        # Each winning move gets its (finished) child, so the ranking shows them all won.
        for move in winning:
            i = node.index[move]
            if node.children[i] is None:
                self._add_child(node, i, self.adapter.play(node.pos, move))
        if winning:
            node.proven = node.mover

    def _refine(self, node: Node) -> None:
        """The adapter's dearer knowledge: a proof, or fewer moves. The root is never
        proven by it (the search must still find the move that keeps the win)."""
        node.refined = True
        if node.result is not None or node.proven is not None:
            return
        proven, kept = self.adapter.refine(node.pos, node.moves)
        if proven is not None and node is not self.root:
            node.proven = proven
        elif len(kept) < len(node.moves):
            self._narrow(node, kept)

    def _narrow(self, node: Node, kept: list[Any]) -> None:
        self.held_bytes -= MOVE_BYTES * (len(node.moves) - len(kept))
        node.narrow(kept)

    def _select(self, node: Node) -> int:
        """The move to follow: UCT with RAVE; proven wins at once, proven losses last."""
        return self.select_move(
            node.children,
            node.visits,
            node.wins,
            node.rave_visits,
            node.rave_wins,
            node.mover,
            math.log(node.total + 1),
            self.exploration,
            self.settings.rave_equivalence,
        )

    def _back_up(
        self, path: list[tuple[Node, int]], rewards: Rewards, tail: list[tuple[int, Any]]
    ) -> None:
        """Add the simulation's rewards to every edge of the path, its AMAF statistics
        to the siblings the mover played later, and pass proofs upwards."""
        rave = self.settings.rave_equivalence > 0
        later = self.later_moves(tail if rave else [], self.adapter.players)
        for depth in range(len(path) - 1, -1, -1):
            node, i = path[depth]
            mover = node.mover
            reward = rewards[mover]
            node.visits[i] += 1
            node.wins[i] += reward
            node.total += 1
            _add(node.reward_sum, rewards)
            if rave:
                played = later[mover]
                played.add(node.moves[i])
                self.add_amaf(node.index, played, node.rave_visits, node.rave_wins, reward)
            if self.two_player and node.proven is None:
                self._prove(node, i)

    def _prove(self, node: Node, i: int) -> None:
        child = node.children[i]
        if child is None or child.proven is None:
            return
        if child.proven == node.mover:
            node.proven = node.mover
            return
        if node is self.root and self.root_narrowed:
            return  # its moves all lost, but the moves left out may hold
        loser_wins = child.proven
        for other in node.children:
            if other is None or other.proven != loser_wins:
                return
        node.proven = loser_wins

    # -- reading the tree ------------------------------------------------------------

    def ranked(self) -> list[tuple[int, float]]:
        """The root's moves as (index, chance for the mover), best first: proven wins,
        then by visits; proven losses last."""
        root = self.root
        mover = root.mover

        def chance(i: int) -> float:
            child = root.children[i]
            if child is not None and child.proven is not None:
                return 1.0 if child.proven == mover else 0.0
            if root.visits[i]:
                return root.wins[i] / root.visits[i]
            if root.rave_visits[i]:
                return root.rave_wins[i] / root.rave_visits[i]
            return 0.5

        def order(i: int) -> tuple[int, int, float]:
            child = root.children[i]
            proof = 0
            if child is not None and child.proven is not None:
                proof = 1 if child.proven == mover else -1
            return (proof, root.visits[i], chance(i))

        indices = sorted(range(len(root.moves)), key=order, reverse=True)
        return [(i, chance(i)) for i in indices]

    def principal_variation(self, limit: int = 12) -> list[Any]:
        """(position, move) pairs of the most visited line from the root."""
        line: list[Any] = []
        node: Node | None = self.root
        while node is not None and node.moves and len(line) < limit:
            if node.proven is not None and node.proven == node.mover:
                choices = [
                    i
                    for i, child in enumerate(node.children)
                    if child is not None and child.proven == node.mover
                ]
                if not choices:
                    break
                i = choices[0]
            else:
                if not node.total:
                    break
                i = max(range(len(node.moves)), key=node.visits.__getitem__)
                if not node.visits[i]:
                    break
            line.append((node.pos, node.moves[i]))
            node = node.children[i]
        return line


class KeptTree(threading.local):
    """The subtree below the move a search chose, for the same player's next search:
    the opponent's reply is one of its children, and the simulations already spent
    there are kept (timed searches only: a search by simulations stays
    deterministic). One tree at a time, per thread (searches in two threads of one
    process never share a tree); taking it lets the rest go."""

    def __init__(self) -> None:
        self.node: Node | None = None
        self.kind: type[Adapter] | None = None
        self.settings: Settings | None = None

    def keep(self, search: Search, i: int) -> None:
        """Keep what lies below the root's move i."""
        self.node = search.root.children[i]
        self.kind, self.settings = type(search.adapter), search.settings

    def take(self, adapter: Adapter, pos: Any, settings: Settings | None) -> Node | None:
        """The kept node of `pos` (the kept position itself, or one move on), searched
        with the same adapter and settings; None otherwise. The tree is let go either way."""
        node, self.node = self.node, None
        same = type(adapter) is self.kind and (settings or Settings()) == self.settings
        if node is None or not same:
            return None
        key, mover = adapter.key(pos), adapter.mover(pos)
        for candidate in (node, *node.children):
            if (
                candidate is not None
                and candidate.result is None
                and candidate.mover == mover
                and adapter.key(candidate.pos) == key
            ):
                return candidate
        return None


def _subtree(root: Node) -> list[Node]:
    """Every node of the tree below `root`, `root` included."""
    nodes, stack = [], [root]
    while stack:
        node = stack.pop()
        nodes.append(node)
        stack.extend(child for child in node.children if child is not None)
    return nodes


#: Objects a position refers to but does not own: code and types are shared by all.
_SHARED = (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType, types.MethodType)


def _bytes_added(parent: Any, child: Any) -> int:
    """The bytes of the objects of `child` that are not shared with `parent`: what a
    position costs beside its parent. The two are walked side by side and a
    reference that is the parent's own object is not followed, so only the copied
    part is visited (a big board is not walked whole)."""
    total = 0
    seen: set[int] = set()
    stack: list[tuple[Any, Any]] = [(parent, child)]
    while stack:
        old, new = stack.pop()
        if new is old or id(new) in seen or isinstance(new, _SHARED):
            continue
        seen.add(id(new))
        total += sys.getsizeof(new)
        olds = gc.get_referents(old) if type(old) is type(new) else []
        for index, reference in enumerate(gc.get_referents(new)):
            stack.append((olds[index] if index < len(olds) else None, reference))
    return total


def _select_move(
    children: list[Node | None],
    visits: list[int],
    wins: list[float],
    rave_visits: list[int],
    rave_wins: list[float],
    mover: int,
    log_total: float,
    exploration: float,
    equivalence: float,
) -> int:
    """Search._select over a node's statistics (engine/_mcts.c's select, in Python)."""
    best, best_value = 0, -math.inf
    for i, child in enumerate(children):
        if child is not None and child.proven is not None:
            if child.proven == mover:
                return i
            value = -1.0  # a proven loss: only when nothing else is left
        else:
            n = visits[i]
            rn = rave_visits[i]
            if n == 0:
                # Untried: its AMAF value if known, else try it first.
                value = (rave_wins[i] / rn if rn else 1.0) + 0.5
            else:
                q = wins[i] / n
                if equivalence and rn:
                    beta = rn / (rn + n + n * rn / equivalence)
                    q = (1.0 - beta) * q + beta * rave_wins[i] / rn
                value = q + exploration * math.sqrt(log_total / n)
        if value > best_value:
            best, best_value = i, value
    return best


def _add_amaf(
    index: dict[Any, int],
    played: Set[Any],
    rave_visits: list[int],
    rave_wins: list[float],
    reward: float,
) -> None:
    """One AMAF visit and `reward` to each move of `played` the node has (index: move
    -> its position; engine/_mcts.c's amaf, in Python)."""
    for move in played:
        j = index.get(move)
        if j is not None:
            rave_visits[j] += 1
            rave_wins[j] += reward


def _later_moves(tail: list[tuple[int, Any]], players: int) -> list[set[Any]]:
    """Per seat, the moves it played in a playout's `tail` of (seat, move) pairs
    (engine/_mcts.c's later, in Python)."""
    later: list[set[Any]] = [set() for _ in range(players)]
    for seat, move in tail:
        later[seat].add(move)
    return later


def _proven_rewards(winner: int | None, players: int) -> Rewards:
    assert winner is not None
    return tuple(1.0 if seat == winner else 0.0 for seat in range(players))


def _add(total: list[float], rewards: Rewards) -> None:
    for seat, reward in enumerate(rewards):
        total[seat] += reward
