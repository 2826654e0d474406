"""The renderer base: a game's picture is a cached static board, the position on
top, and the caption band.

Each game's renderer is a `BoardRenderer[ItsState, ItsView]`: its hooks take
the game's own state and view classes, so mypy checks every renderer against
the view it draws. The one check that a state came to its own game's
renderer is `BoardRenderer.typed`, where every drawing starts.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from PIL import Image

import engine
from bot.render.canvas import Canvas, SpriteCanvas
from bot.render.caption import CAPTION_HEIGHT, default_status, draw_band, draw_caption
from bot.render.theme import SCALE, SeatStyle
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

    def image(self, state: GameState, extras: Extras, theme: Mapping[str, str]) -> Image.Image:
        own, view = self.typed(state)
        canvas = SpriteCanvas(self._background(own, theme).copy(), theme)
        self.draw_position(canvas, own, view, extras)
        title = engine.GAMES[state.name].title
        ply = state.ply if extras.ply is None else extras.ply
        heading = f"{title} · {f'move {ply}' if ply else 'start'}"
        status = self.status_line(own, view, extras.players or ())
        if extras.caption:
            status = f"{status} · {extras.caption}"
        draw_caption(canvas, heading, status, self.seat_styles(own), view.to_move, extras.players)
        return canvas.image

    def describe(self, state: GameState) -> str:
        """The position in characters with its status line under it."""
        own, view = self.typed(state)
        return f"{self.text(view)}\n{self.status_line(own, view)}"

    def _background(self, state: StateT, theme: Mapping[str, str]) -> Image.Image:
        """The static board and the caption band's paper for these options and theme,
        drawn once."""
        key = (state.name, tuple(sorted(state.options.items())), tuple(sorted(theme.items())))
        image = _BACKGROUNDS.get(key)
        if image is None:
            width, height = self.board_size(state)
            canvas = Canvas.blank(width, height + CAPTION_HEIGHT, theme)
            self.draw_board(canvas, state)
            draw_band(canvas, width, height)
            if len(_BACKGROUNDS) >= _BACKGROUND_LIMIT:
                _BACKGROUNDS.pop(next(iter(_BACKGROUNDS)))
            image = _BACKGROUNDS[key] = canvas.image.reduce(SCALE)
        return image


_BACKGROUNDS: dict[Hashable, Image.Image] = {}
_BACKGROUND_LIMIT = 64
