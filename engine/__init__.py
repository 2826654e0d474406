"""Paperboard's rules engine: six connection games on one API.

Pure Python, standard library only, no I/O.

    >>> import engine
    >>> state = engine.new("hotwire", size="5x5")
    >>> state = state.play("a1 b2")
    >>> state.moves
    ('a1-b2',)
    >>> engine.replay("hotwire", state.options, state.moves) == state
    True
"""

from engine import hex, hotwire, intersections, livewire, shortcircuit
from engine.core import (
    NOT_A_MOVE,
    BadOptions,
    Code,
    End,
    GameInfo,
    GameState,
    IllegalMove,
    Option,
    Outcome,
    Tapped,
    View,
)
from engine.notation import Example, notation_examples, reads_as_move
from engine.registry import GAMES, new, replay, replay_onto

__all__ = [
    "GAMES",
    "NOT_A_MOVE",
    "BadOptions",
    "Code",
    "End",
    "Example",
    "GameInfo",
    "GameState",
    "IllegalMove",
    "Option",
    "Outcome",
    "Tapped",
    "View",
    "hex",
    "hotwire",
    "intersections",
    "livewire",
    "new",
    "notation_examples",
    "reads_as_move",
    "replay",
    "replay_onto",
    "shortcircuit",
]
