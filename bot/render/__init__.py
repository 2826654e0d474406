"""Boards as pictures: engine state -> PNG bytes, a whole game -> GIF bytes.

Render imports the engine and nothing else of the project. Each game has one
module here with a `BoardRenderer` subclass (bot/render/board.py) drawn on the
canvas (canvas.py, theme.py, fonts.py) with the caption band (caption.py) and
encoded by encode.py; each module registers its renderer in board.py's registry
(`RENDERERS`), which the functions below draw through.

    >>> import engine
    >>> png = render_png(engine.new("hex", size=5).play("c3"))
    >>> png[:8] == b"\\x89PNG\\r\\n\\x1a\\n"
    True
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

from PIL import Image

import engine
from bot.render import hex, hotwire, intersections, livewire, shortcircuit  # noqa: F401  (register)
from bot.render.board import RENDERERS, Extras, Target
from bot.render.encode import encode_gif, encode_png
from bot.render.theme import theme_with
from engine import GameState

#: GIF timing: a slow game replays briskly, and the end stays on screen.
GIF_FRAME_MS = 600
GIF_LAST_FRAME_MS = 4000
#: A longer game's GIF shows this many evenly spaced positions (72 s to watch),
#: so drawing any game's takes under 2 s, not a minute (a 2,880-ply game).
GIF_MOST_FRAMES = 120


def render_image(
    state: GameState,
    *,
    players: Sequence[str] | None = None,
    groups: bool = False,
    caption: str | None = None,
    theme: Mapping[str, str] | None = None,
    ply: int | None = None,
    suggestion: str | None = None,
    scale: int = 1,
) -> Image.Image:
    """The picture of a position as a Pillow image; `suggestion`, a legal move, is drawn
    as a suggestion (half transparent, ringed, named in the caption), not as played;
    `scale` 2 gives it at twice the pixels (`render_png`)."""
    extras = Extras(
        players=tuple(players) if players else None,
        groups=groups,
        caption=caption,
        ply=ply,
        suggestion=suggestion,
    )
    return RENDERERS[state.name].image(state, extras, theme_with(theme), scale)


def render_png(
    state: GameState,
    *,
    players: Sequence[str] | None = None,
    groups: bool = False,
    caption: str | None = None,
    theme: Mapping[str, str] | None = None,
    suggestion: str | None = None,
    scale: int = 1,
) -> bytes:
    """The picture of a position as PNG bytes (longest side <= 1024 px); `scale` 2 gives
    it at twice the pixels each way, for high-DPI screens: the same drawing, before it
    is reduced to the 1x picture Discord shows."""
    image = render_image(
        state,
        players=players,
        groups=groups,
        caption=caption,
        theme=theme,
        suggestion=suggestion,
        scale=scale,
    )
    return encode_png(image, theme_with(theme), hint=suggestion is not None)


def tap_targets(state: GameState) -> tuple[Target, ...]:
    """Where each cell, pin or dot is on the picture of `state`, to tap a move on it."""
    return RENDERERS[state.name].targets(state)


def render_text(state: GameState) -> str:
    """The position drawn in characters, with the status line: for terminals."""
    return RENDERERS[state.name].describe(state)


def render_gif(
    name: str,
    options: Mapping[str, object],
    moves: Sequence[str],
    *,
    players: Sequence[str] | None = None,
    theme: Mapping[str, str] | None = None,
) -> bytes:
    """A replay of a whole game: the start, then one frame per ply (at most
    GIF_MOST_FRAMES frames: a longer game shows evenly spaced plies, the last
    always).

    A forced pass is made by the engine together with the move before it, so
    that move's frame already shows the position after the pass.
    """
    return encode_gif(
        _frames(name, options, moves, players, theme),
        theme_with(theme),
        frame_ms=GIF_FRAME_MS,
        last_ms=GIF_LAST_FRAME_MS,
    )


def _frames(
    name: str,
    options: Mapping[str, object],
    moves: Sequence[str],
    players: Sequence[str] | None,
    theme: Mapping[str, str] | None,
) -> Iterator[Image.Image]:
    """The pictures of the shown plies, drawn as the GIF encoder asks for them (never
    all at once)."""
    state = engine.replay(name, options, ())
    yield render_image(state, players=players, theme=theme)
    shown = {len(moves) * k // (GIF_MOST_FRAMES - 1) for k in range(1, GIF_MOST_FRAMES)}
    for ply, text in enumerate(moves):
        if ply >= state.ply:
            state = state.play(text)
        if len(moves) < GIF_MOST_FRAMES or ply + 1 in shown:
            yield render_image(state, players=players, theme=theme, ply=ply + 1)


__all__ = [
    "RENDERERS",
    "Target",
    "render_gif",
    "render_image",
    "render_png",
    "render_text",
    "tap_targets",
]
