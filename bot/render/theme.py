"""The look every picture shares: the scale it is drawn at, the palette, seat styles.

Pictures are drawn at SCALE times their size and halved once with
`Image.reduce` (crisp lines, no LANCZOS blur).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal

SCALE = 2  # drawn at 2x, reduced once
MAX_SIDE = 1024

Point = tuple[float, float]
Marker = Literal["circle", "square", "triangle", "diamond", "hexagon", "star", "cross", "ring"]

#: Okabe & Ito's colour-blind-safe palette, plus paper and ink for a light paper look
#: that keeps its own background on Discord's dark and light themes alike.
DEFAULT_THEME: Mapping[str, str] = MappingProxyType(
    {
        "paper": "#FBF8F1",
        "paper_edge": "#E4DDCC",
        "ink": "#23211D",
        "muted": "#8A8375",
        "grid": "#CFC7B6",
        "faint": "#EAE4D6",
        "black": "#1F1F1F",
        "white": "#FFFFFF",
        "orange": "#E69F00",
        "sky": "#56B4E9",
        "green": "#009E73",
        "yellow": "#F0E442",
        "blue": "#0072B2",
        "vermillion": "#D55E00",
        "purple": "#CC79A7",
        "last": "#CC79A7",  # last-move marker
        "hint": "#6B3FD4",  # a suggested move's ring (violet: no seat's colour)
        "win": "#E69F00",  # deciding structure
        "caption": "#F2EDE1",
    }
)


def theme_with(overrides: Mapping[str, str] | None) -> Mapping[str, str]:
    """The default theme with some keys overridden."""
    if not overrides:
        return DEFAULT_THEME
    unknown = set(overrides) - set(DEFAULT_THEME)
    if unknown:
        raise ValueError(f"unknown theme keys: {', '.join(sorted(unknown))}")
    return MappingProxyType({**DEFAULT_THEME, **overrides})


@dataclass(frozen=True, slots=True)
class SeatStyle:
    """How one seat looks: colour is never the only cue, the marker shape differs."""

    colour: str
    marker: Marker
    name: str  # "Red", "Player 2 (Blue/Green)"
