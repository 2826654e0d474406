"""The renderer base: a game's picture is a cached static board, the position on
top, and the caption band.

Each game's renderer is a `BoardRenderer[ItsState, ItsView]`: its hooks take
the game's own state and view classes, so mypy checks every renderer against
the view it draws. The one check that a state came to its own game's
renderer is `BoardRenderer.typed`, where every drawing starts. Each game's
render module registers its renderer here (`register`, last in the module).
"""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod
from collections.abc import Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from PIL import Image, ImageChops, ImageFilter

import engine
from bot.render.canvas import Canvas, SpriteCanvas
from bot.render.caption import CAPTION_HEIGHT, default_status, draw_band, draw_caption
from bot.render.theme import SCALE, Point, SeatStyle
from engine import GameState, View

StateT = TypeVar("StateT", bound=GameState)
ViewT = TypeVar("ViewT", bound=View)


@dataclass(frozen=True, slots=True)
class Extras:
    """What a caller may ask for beyond the position."""

    players: tuple[str, ...] | None = None  # display names by seat
    groups: bool = False  # Hot Wire's groups overlay
    caption: str | None = None  # extra words for the caption (the service's deadline)
    ply: int | None = None  # the move number to show, when it is not the state's (GIF frames)
    suggestion: str | None = None  # a move drawn as a suggestion (a hint), not as played
    #: the pieces alone, to compare two positions: no marks about the position that
    #: change with every move (Disthex's forbidden cells, Making Intersections' panel)
    bare: bool = False


@dataclass(frozen=True, slots=True)
class Target:
    """A place to tap on a position's picture: its coordinate as the engine writes it, its
    centre as fractions of the picture's width and height, its radius as a fraction of
    the width (the picture keeps these at any size it is shown)."""

    name: str
    x: float
    y: float
    r: float


class BoardRenderer(ABC, Generic[StateT, ViewT]):
    """A game's picture and its text.

    A game subclasses it with its state and view classes (`state_type`,
    `view_type`) and implements `board_size` and `draw_board` (static: they
    depend only on the options), `draw_position`, `seat_styles` and `text`;
    `status_line` may add game-specific words (round, scores).
    """

    game: str  # the registry name
    state_type: type[StateT]
    view_type: type[ViewT]

    @abstractmethod
    def board_size(self, state: StateT) -> tuple[int, int]:
        """Logical pixels of the board area (without the caption)."""

    @abstractmethod
    def draw_board(self, canvas: Canvas, state: StateT) -> None:
        """The parts of the picture that depend only on the options."""

    @abstractmethod
    def draw_position(self, canvas: Canvas, state: StateT, view: ViewT, extras: Extras) -> None:
        """The position, over the static board."""

    @abstractmethod
    def seat_styles(self, state: StateT) -> list[SeatStyle]:
        """Each seat's colour, marker and name."""

    @abstractmethod
    def text(self, view: ViewT) -> str:
        """The position in plain characters, for terminals (the console prints it)."""

    @abstractmethod
    def tap_points(self, state: StateT) -> Iterator[tuple[str, Point, float]]:
        """Each place a move may tap (cell, pin, dot): its coordinate, its centre and
        radius in logical pixels, where `draw_board` draws it."""

    def status_line(self, state: StateT, view: ViewT, players: Sequence[str] = ()) -> str:
        """Words after the move number: whose turn, or the result. Games whose seats
        are numbered ("Player 1") name the players instead when `players` are given."""
        return default_status(view, self.seat_styles(state))

    # -- the shared path ------------------------------------------------------

    def typed(self, state: GameState) -> tuple[StateT, ViewT]:
        """The state and its view as this game's own classes."""
        view = state.view()
        if not isinstance(state, self.state_type) or not isinstance(view, self.view_type):
            raise TypeError(f"the {self.game} renderer cannot draw a {state.name} position")
        return state, view

    def image(
        self, state: GameState, extras: Extras, theme: Mapping[str, str], scale: int = 1
    ) -> Image.Image:
        """The picture at `scale` pixels per logical pixel: 1, the picture Discord shows,
        or SCALE, a high-DPI screen's (the same drawing, not reduced)."""
        own, view = self.typed(state)
        canvas = self._canvas(own, theme, scale)
        self.draw_position(canvas, own, view, extras)
        title = engine.GAMES[state.name].title
        ply = state.ply if extras.ply is None else extras.ply
        heading = f"{title} · {f'move {ply}' if ply else 'start'}"
        status = self.status_line(own, view, extras.players or ())
        for words in (extras.caption, extras.suggestion and f"suggestion: {extras.suggestion}"):
            if words:
                status = f"{status} · {words}"
        draw_caption(canvas, heading, status, self.seat_styles(own), view.to_move, extras.players)
        if extras.suggestion is not None:
            self._suggest(canvas.image, own, extras, theme, scale)
        return canvas.image

    def _canvas(
        self,
        state: StateT,
        theme: Mapping[str, str],
        scale: int,
        hidden: frozenset[str] = frozenset(),
    ) -> Canvas:
        """A copy of the static board to draw a position on: at 1x each call pasted as a
        sprite (drawn at 2x, reduced), at SCALE each call drawn as it is."""
        if scale not in (1, SCALE):
            raise ValueError(
                f"a picture is drawn at 1 or {SCALE} pixels a logical pixel, not {scale}"
            )
        drawing = SpriteCanvas if scale == 1 else Canvas
        return drawing(self._background(state, theme, scale).copy(), theme, hidden)

    def _suggest(
        self,
        image: Image.Image,
        state: StateT,
        extras: Extras,
        theme: Mapping[str, str],
        scale: int,
    ) -> None:
        """Draw `extras.suggestion` on the picture of `state` as a suggestion: what the
        move would add to the board (the position after it, compared with this one,
        both without last-move markers), half transparent, ringed in the hint colour.
        One piece for every game: each renderer draws its own pieces, this compares."""
        after = state.play(extras.suggestion or "")
        before_board, after_board = (
            self._bare(position, extras, theme, scale) for position in (state, after)
        )
        changed = ImageChops.difference(before_board, after_board).convert("L")
        added = changed.point(lambda level: 255 if level > SUGGESTION_THRESHOLD else 0)
        board_height = image.height - CAPTION_HEIGHT * scale
        added.paste(0, (0, board_height, image.width, image.height))  # the board alone
        image.paste(after_board, mask=added.point(lambda level: level * SUGGESTION_OPACITY))
        ring = ImageChops.subtract(
            added.filter(ImageFilter.MaxFilter(_reach(SUGGESTION_RING, scale))),
            added.filter(ImageFilter.MaxFilter(_reach(3, scale))),
        )
        image.paste(theme["hint"], mask=ring.filter(ImageFilter.GaussianBlur(0.8 * scale)))

    def _bare(
        self, state: GameState, extras: Extras, theme: Mapping[str, str], scale: int
    ) -> Image.Image:
        """The board of `state` with its pieces: no last-move marker (nothing in the
        "last" colour), no marks about the position (`Extras.bare`), no caption."""
        own, view = self.typed(state)
        canvas = self._canvas(own, theme, scale, frozenset({"last"}))
        self.draw_position(
            canvas, own, view, dataclasses.replace(extras, suggestion=None, bare=True)
        )
        return canvas.image

    def targets(self, state: GameState) -> tuple[Target, ...]:
        """The places to tap on the picture of `state` (`tap_points`, as fractions)."""
        own, _ = self.typed(state)
        width, height = self.board_size(own)
        height += CAPTION_HEIGHT
        return tuple(
            Target(name, x / width, y / height, radius / width)
            for name, (x, y), radius in self.tap_points(own)
        )

    def describe(self, state: GameState) -> str:
        """The position in characters with its status line under it."""
        own, view = self.typed(state)
        return f"{self.text(view)}\n{self.status_line(own, view)}"

    def _background(self, state: StateT, theme: Mapping[str, str], scale: int) -> Image.Image:
        """The static board and the caption band's paper for these options and theme,
        drawn once at each scale (at SCALE, as drawn; at 1, reduced)."""
        key = (state.name, tuple(sorted(state.options.items())), tuple(sorted(theme.items())))
        kept = _BACKGROUNDS[scale]
        image = kept.get(key)
        if image is None:
            width, height = self.board_size(state)
            canvas = Canvas.blank(width, height + CAPTION_HEIGHT, theme)
            self.draw_board(canvas, state)
            draw_band(canvas, width, height)
            # as many pixels kept at either scale: fewer of the larger pictures
            if len(kept) >= _BACKGROUND_LIMIT // scale**2:
                kept.pop(next(iter(kept)))
            image = kept[key] = canvas.image if scale == SCALE else canvas.image.reduce(SCALE)
        return image


def _reach(size: int, scale: int) -> int:
    """A max filter's size (odd) reaching as far at `scale` pixels a logical pixel as
    `size` does at 1."""
    return size // 2 * scale * 2 + 1


#: A suggestion: the pixels its move changes (a difference above this level, of 255)
#: are drawn at this opacity and ringed by a band this wide (a max filter's size).
SUGGESTION_THRESHOLD = 24
SUGGESTION_OPACITY = 0.5
SUGGESTION_RING = 9

#: The static boards drawn, at each scale a picture is drawn at.
_BACKGROUNDS: dict[int, dict[Hashable, Image.Image]] = {1: {}, SCALE: {}}
_BACKGROUND_LIMIT = 64


# -- the registry ------------------------------------------------------------------

#: Game name -> its renderer. Each renderer draws its own game's state and view classes
#: (checked by mypy); `BoardRenderer.typed` checks that a state reached its own game's.
RENDERERS: dict[str, BoardRenderer[Any, Any]] = {}
#: Game name -> the options the gallery (gallery.py, docs/img) draws it with.
GALLERY: dict[str, Mapping[str, object]] = {}


def register(renderer: BoardRenderer[Any, Any], *, gallery: Mapping[str, object]) -> None:
    """Add a game's renderer, under its `game`, and the options the gallery draws the
    game with ({}: its defaults). Each game's render module calls this last, as engine
    modules call `engine.registry.register`. A duplicate name raises."""
    if renderer.game in RENDERERS:
        raise ValueError(f"a renderer for {renderer.game!r} is already registered")
    RENDERERS[renderer.game] = renderer
    GALLERY[renderer.game] = gallery
