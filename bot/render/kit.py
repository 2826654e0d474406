"""The small drawing kit every board renderer shares.

Pictures are drawn at twice their size and halved with `Image.reduce` (crisp
lines, no LANCZOS blur). The static part of a board (paper, grid,
coordinates, edges) depends only on the game's options and the theme, so it
is drawn once and cached; a render copies it and draws the position on top.
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal

from PIL import Image, ImageColor, ImageDraw, ImageFont

import engine
from engine import GameState, View

SCALE = 2  # drawn at 2x, reduced once
MAX_SIDE = 1024
CAPTION_HEIGHT = 84
PNG_COMPRESS_LEVEL = 1  # speed first: paletted boards are small anyway (bench/render.py)
FONT_DIR = Path(__file__).resolve().parents[2] / "assets" / "fonts"

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


FALLBACK_FONT = "DroidSansFallback.ttf"  # Chinese, Japanese, Korean (Apache 2.0)
#: Stands for a run of characters no font here can draw (emoji...): never a box.
PLACEHOLDER = "◇"


@cache
def font(size: int, *, bold: bool = False, mono: bool = False) -> ImageFont.FreeTypeFont:
    """DejaVu Sans from assets/, so every machine draws the same picture."""
    name = "DejaVuSansMono.ttf" if mono else "DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"
    return ImageFont.truetype(str(FONT_DIR / name), size)


@cache
def fallback_font(size: int) -> ImageFont.FreeTypeFont:
    """The font for the characters DejaVu lacks (it has no bold: used for both)."""
    return ImageFont.truetype(str(FONT_DIR / FALLBACK_FONT), size)


@lru_cache(maxsize=8192)
def drawable(character: str, *, fallback: bool = False) -> bool:
    """Whether DejaVu (or the fallback font) has a glyph for `character`: one without
    draws the font's "missing" box, the same picture as a character no font has."""
    face = fallback_font(24) if fallback else font(24)
    missing = face.getmask("\U000f0000")  # a private-use character: no font draws it
    drawn = face.getmask(character)
    return drawn.size != missing.size or bytes(drawn) != bytes(missing)


def _runs(words: str) -> list[tuple[str, bool]]:
    """The words cut into runs for one font each: (text, drawn with the fallback)."""
    runs: list[tuple[str, bool]] = []
    for character in words:
        fallback = not character.isspace() and not drawable(character)
        if runs and runs[-1][1] == fallback:
            runs[-1] = (runs[-1][0] + character, fallback)
        else:
            runs.append((character, fallback))
    return runs


def _face(pixels: int, bold: bool, fallback: bool) -> ImageFont.FreeTypeFont:
    return fallback_font(pixels) if fallback else font(pixels, bold=bold)


def text_width(words: str, size: float, *, bold: bool = False) -> float:
    """The width of `words` in logical pixels, in the fonts that draw them."""
    pixels = round(size * SCALE)
    width = sum(_face(pixels, bold, fallback).getlength(run) for run, fallback in _runs(words))
    return width / SCALE


def fit_text(words: str, size: float, width: float, *, bold: bool = False) -> str:
    """The words, shortened with an ellipsis until they fit `width` logical pixels."""
    fitted = words
    while len(fitted) > 1 and text_width(fitted, size, bold=bold) > width:
        fitted = fitted[:-2].rstrip() + "…"
    return fitted


@dataclass(frozen=True, slots=True)
class SeatStyle:
    """How one seat looks: colour is never the only cue, the marker shape differs."""

    colour: str
    marker: Marker
    name: str  # "Red", "Player 2 (Blue/Green)"


class Canvas:
    """Drawing in logical pixels on a SCALE-times larger image."""

    def __init__(self, image: Image.Image, theme: Mapping[str, str]) -> None:
        self.image = image
        self.theme = theme
        self.draw = ImageDraw.Draw(image)

    @classmethod
    def blank(cls, width: int, height: int, theme: Mapping[str, str]) -> Canvas:
        return cls(Image.new("RGB", (width * SCALE, height * SCALE), theme["paper"]), theme)

    def colour(self, key_or_hex: str) -> str:
        return self.theme.get(key_or_hex, key_or_hex)

    def line(self, points: Sequence[Point], colour: str, width: float) -> None:
        scaled = [(x * SCALE, y * SCALE) for x, y in points]
        self.draw.line(scaled, fill=self.colour(colour), width=max(1, round(width * SCALE)))
        if width >= 2:  # round caps and joins, so thick wires look drawn, not cut
            radius = width / 2
            for x, y in points:
                self.disc((x, y), radius, colour)

    def disc(self, centre: Point, radius: float, fill: str) -> None:
        x, y = centre
        self.draw.ellipse(
            [
                (x - radius) * SCALE,
                (y - radius) * SCALE,
                (x + radius) * SCALE,
                (y + radius) * SCALE,
            ],
            fill=self.colour(fill),
        )

    def polygon(
        self,
        points: Sequence[Point],
        fill: str | None,
        outline: str | None = None,
        width: float = 1,
    ) -> None:
        self.draw.polygon(
            [(x * SCALE, y * SCALE) for x, y in points],
            fill=self.colour(fill) if fill else None,
            outline=self.colour(outline) if outline else None,
            width=max(1, round(width * SCALE)),
        )

    def rectangle(
        self,
        box: tuple[float, float, float, float],
        fill: str | None,
        outline: str | None = None,
        width: float = 1,
        radius: float = 0,
    ) -> None:
        self.draw.rounded_rectangle(
            [v * SCALE for v in box],
            radius=radius * SCALE,
            fill=self.colour(fill) if fill else None,
            outline=self.colour(outline) if outline else None,
            width=max(1, round(width * SCALE)),
        )

    def marker(
        self,
        shape: Marker,
        centre: Point,
        radius: float,
        fill: str,
        outline: str | None = None,
        width: float = 1.5,
    ) -> None:
        """A filled shape around `centre`; the shapes tell seats apart without colour."""
        x, y = centre
        if shape == "circle":
            self.draw.ellipse(
                [
                    (x - radius) * SCALE,
                    (y - radius) * SCALE,
                    (x + radius) * SCALE,
                    (y + radius) * SCALE,
                ],
                fill=self.colour(fill),
                outline=self.colour(outline) if outline else None,
                width=max(1, round(width * SCALE)),
            )
        elif shape == "ring":
            self.marker("circle", centre, radius, outline or fill)
            self.marker("circle", centre, radius * 0.55, fill)
        elif shape == "cross":
            arm = radius * 0.8
            self.line([(x - arm, y - arm), (x + arm, y + arm)], fill, radius * 0.45)
            self.line([(x - arm, y + arm), (x + arm, y - arm)], fill, radius * 0.45)
        else:
            self.polygon(regular_polygon(shape, centre, radius), fill, outline, width)

    def segments(self, pairs: Iterable[tuple[Point, Point]], colour: str, width: float) -> None:
        """Many straight strokes in one style (a board's wires or lines)."""
        for start, end in pairs:
            self.line([start, end], colour, width)

    def markers(
        self,
        shape: Marker,
        centres: Iterable[Point],
        radius: float,
        fill: str,
        outline: str | None = None,
        width: float = 1.5,
    ) -> None:
        """Many markers in one style (a board's stones or dots)."""
        for centre in centres:
            self.marker(shape, centre, radius, fill, outline, width)

    def arc(
        self, centre: Point, radius: float, start: float, end: float, colour: str, width: float
    ) -> None:
        """Part of a circle, clockwise from `start` to `end` degrees (0 is east)."""
        self.draw.arc(
            _box(centre, radius),
            start,
            end,
            fill=self.colour(colour),
            width=max(1, round(width * SCALE)),
        )

    def group(
        self, key: Hashable, centre: Point, reach: float, paint: Callable[[Canvas, Point], None]
    ) -> None:
        """Several calls drawn as one piece around `centre` (a stone and its letter):
        `paint(canvas, centre)` draws it; `key` names it for the sprite cache."""
        paint(self, centre)

    def text(
        self,
        position: Point,
        words: str,
        size: float,
        colour: str = "ink",
        *,
        anchor: str = "mm",
        bold: bool = False,
    ) -> None:
        mask, (left, top) = _text_mask(words, round(size * SCALE), bold, anchor)
        x, y = round(position[0] * SCALE) + left, round(position[1] * SCALE) + top
        self.image.paste(self.colour(colour), (x, y, x + mask.width, y + mask.height), mask)

    def text_width(self, words: str, size: float, *, bold: bool = False) -> float:
        return text_width(words, size, bold=bold)


class SpriteCanvas(Canvas):
    """The same drawing calls on a 1x picture, each one pasted as a cached sprite.

    A sprite is the call drawn at 2x on a small transparent tile and reduced
    (premultiplied, so edges don't darken): the same crisp result as drawing
    the whole picture at 2x, at a fraction of the cost, since boards repeat
    the same stones, pins and wires. Coordinates snap to the 2x pixel grid,
    as the 2x drawing does anyway.
    """

    def __init__(self, image: Image.Image, theme: Mapping[str, str]) -> None:
        super().__init__(image, theme)
        # a small number for the theme: hashing the whole theme per sprite lookup is slow
        self._theme_id = _THEME_IDS.setdefault(tuple(sorted(theme.items())), len(_THEME_IDS))
        image.load()
        self._core = image.im

    def line(self, points: Sequence[Point], colour: str, width: float) -> None:
        self._stamp("line", points, width, (colour, width))

    def disc(self, centre: Point, radius: float, fill: str) -> None:
        self._stamp("disc", [centre], radius, (radius, fill))

    def polygon(
        self,
        points: Sequence[Point],
        fill: str | None,
        outline: str | None = None,
        width: float = 1,
    ) -> None:
        self._stamp("polygon", points, width, (fill, outline, width))

    def rectangle(
        self,
        box: tuple[float, float, float, float],
        fill: str | None,
        outline: str | None = None,
        width: float = 1,
        radius: float = 0,
    ) -> None:
        corners = [(box[0], box[1]), (box[2], box[3])]
        self._stamp("rectangle", corners, width, (fill, outline, width, radius))

    def marker(
        self,
        shape: Marker,
        centre: Point,
        radius: float,
        fill: str,
        outline: str | None = None,
        width: float = 1.5,
    ) -> None:
        self._stamp("marker", [centre], radius * 1.2 + width, (shape, radius, fill, outline, width))

    def text(
        self,
        position: Point,
        words: str,
        size: float,
        colour: str = "ink",
        *,
        anchor: str = "mm",
        bold: bool = False,
    ) -> None:
        """Words from a cache of rendered masks: captions and labels repeat every move."""
        mask, (left, top) = _text_mask(words, round(size), bold, anchor)
        x, y = round(position[0]) + left, round(position[1]) + top
        box = (x, y, x + mask.width, y + mask.height)
        self._core.paste(_rgb(self.colour(colour)), box, mask.im)

    def segments(self, pairs: Iterable[tuple[Point, Point]], colour: str, width: float) -> None:
        self._stamp_many("line", [(a, b) for a, b in pairs], width, (colour, width))

    def markers(
        self,
        shape: Marker,
        centres: Iterable[Point],
        radius: float,
        fill: str,
        outline: str | None = None,
        width: float = 1.5,
    ) -> None:
        reach = radius * 1.2 + width
        self._stamp_many(
            "marker", [(c,) for c in centres], reach, (shape, radius, fill, outline, width)
        )

    def _stamp_many(
        self, kind: str, calls: Sequence[tuple[Point, ...]], reach: float, args: tuple[object, ...]
    ) -> None:
        """`_stamp` for many one- or two-point calls of one style, in a tight loop: a
        sprite is keyed by its offset on the 2x grid and its shape, in small ints."""
        spread = math.ceil(reach * SCALE) + SCALE
        sprites, paste, theme = _SPRITES, self._core.paste, self._theme_id
        for points in calls:
            x0, y0 = round(points[0][0] * SCALE), round(points[0][1] * SCALE)
            if len(points) == 1:
                x1, y1 = x0, y0
            else:
                x1, y1 = round(points[1][0] * SCALE), round(points[1][1] * SCALE)
            left = ((x0 if x0 < x1 else x1) - spread) // SCALE
            top = ((y0 if y0 < y1 else y1) - spread) // SCALE
            key = (
                kind,
                len(points),
                x0 - left * SCALE,
                y0 - top * SCALE,
                x1 - x0,
                y1 - y0,
                args,
                spread,
                theme,
            )
            sprite = sprites.get(key)
            if sprite is None:
                sprite = self._new_sprite(key, kind, points, left, top, spread, args)
            width, height = sprite.size
            paste(sprite, (left, top, left + width, top + height), sprite)

    def _new_sprite(
        self,
        key: Hashable,
        kind: str,
        points: tuple[Point, ...],
        left: int,
        top: int,
        spread: int,
        args: tuple[object, ...],
    ) -> Any:
        """Draw a call once at 2x on a tile whose top-left pixel is (left, top)."""
        local = [
            (round(x * SCALE) - left * SCALE, round(y * SCALE) - top * SCALE) for x, y in points
        ]
        width = (max(x for x, _ in local) + spread) // SCALE + 2
        height = (max(y for _, y in local) + spread) // SCALE + 2
        at = tuple((x / SCALE, y / SCALE) for x, y in local)
        return _remember_sprite(key, _draw_sprite(kind, at, args, (width, height), self.theme))

    def arc(
        self, centre: Point, radius: float, start: float, end: float, colour: str, width: float
    ) -> None:
        self.group(
            ("arc", radius, start, end, colour, width),
            centre,
            radius + width,
            lambda tile, middle: Canvas.arc(tile, middle, radius, start, end, colour, width),
        )

    def group(
        self, key: Hashable, centre: Point, reach: float, paint: Callable[[Canvas, Point], None]
    ) -> None:
        """The piece painted once on a 2x tile and pasted as one sprite from then on;
        one sprite per half-pixel offset of the centre, as 2x drawing would place it."""
        x2, y2 = round(centre[0] * SCALE), round(centre[1] * SCALE)
        half_size = math.ceil(reach) + 1
        left, top = x2 // SCALE - half_size, y2 // SCALE - half_size
        offset = (x2 % SCALE, y2 % SCALE)
        full_key = ("group", key, offset, half_size, self._theme_id)
        sprite = _SPRITES.get(full_key)
        if sprite is None:
            size = (2 * half_size + 1) * SCALE
            tile = Canvas(Image.new("RGBA", (size, size), (0, 0, 0, 0)), self.theme)
            paint(tile, (half_size + offset[0] / SCALE, half_size + offset[1] / SCALE))
            sprite = _remember_sprite(full_key, tile)
        width, height = sprite.size
        self._core.paste(sprite, (left, top, left + width, top + height), sprite)

    def _stamp(
        self, kind: str, points: Sequence[Point], reach: float, args: tuple[object, ...]
    ) -> None:
        # On the 2x pixel grid, in ints: the sprite's key is the call relative to its
        # top-left pixel, so the same stone or wire anywhere reuses one sprite.
        if len(points) <= 2:  # stones, dots, wires: nearly every call
            self._stamp_many(kind, [tuple(points)], reach, args)
            return
        spread = math.ceil(reach * SCALE) + SCALE
        scaled = [(round(x * SCALE), round(y * SCALE)) for x, y in points]
        left = (min(x for x, _ in scaled) - spread) // SCALE
        top = (min(y for _, y in scaled) - spread) // SCALE
        local = tuple((x - left * SCALE, y - top * SCALE) for x, y in scaled)
        key = (kind, local, args, spread, self._theme_id)
        sprite = _SPRITES.get(key)
        if sprite is None:
            width = (max(x for x, _ in local) + spread) // SCALE + 2
            height = (max(y for _, y in local) + spread) // SCALE + 2
            at = tuple((x / SCALE, y / SCALE) for x, y in local)
            sprite = _remember_sprite(
                key, _draw_sprite(kind, at, args, (width, height), self.theme)
            )
        width, height = sprite.size
        # the image core directly: Image.paste's checks cost more than the paste here
        self._core.paste(sprite, (left, top, left + width, top + height), sprite)


@lru_cache(maxsize=4096)
def _text_mask(
    words: str, pixels: int, bold: bool, anchor: str
) -> tuple[Image.Image, tuple[int, int]]:
    """The words' coverage mask and where its corner sits from the anchor point."""
    runs = _runs(words)
    face = font(pixels, bold=bold)
    if all(not fallback for _, fallback in runs):
        left, top, right, bottom = (round(v) for v in face.getbbox(words, anchor=anchor))
        mask = Image.new("L", (max(1, right - left), max(1, bottom - top)), 0)
        ImageDraw.Draw(mask).text((-left, -top), words, font=face, fill=255, anchor=anchor)
        mask.load()
        return mask, (left, top)
    # Several fonts: the runs side by side on DejaVu's baseline, placed as DejaVu
    # would place the whole line for this anchor.
    ascent, descent = face.getmetrics()
    width = round(sum(_face(pixels, bold, f).getlength(run) for run, f in runs))
    height = 2 * (ascent + descent)
    mask = Image.new("L", (max(1, width), height), 0)
    draw = ImageDraw.Draw(mask)
    x = 0.0
    for run, fallback in runs:
        run_face = _face(pixels, bold, fallback)
        draw.text((x, ascent * 1.5), run, font=run_face, fill=255, anchor="ls")
        x += run_face.getlength(run)
    mask.load()
    horizontal, vertical = anchor[0], anchor[1]
    left = {"l": 0, "m": -width // 2, "r": -width}.get(horizontal, 0)
    baseline = {"a": ascent, "s": 0, "d": -descent}.get(vertical, (ascent - descent) // 2)
    return mask, (left, baseline - round(ascent * 1.5))


@lru_cache(maxsize=64)
def _rgb(colour: str) -> tuple[int, ...]:
    return ImageColor.getrgb(colour)


def _remember_sprite(key: Hashable, tile: Canvas) -> Any:
    """Reduce a 2x tile (premultiplied, so edges don't darken) and cache its image core."""
    sprite = tile.image.convert("RGBa").reduce(SCALE).convert("RGBA")
    sprite.load()
    if len(_SPRITES) >= _SPRITE_LIMIT:
        _SPRITES.pop(next(iter(_SPRITES)))
    _SPRITES[key] = sprite.im
    return sprite.im


_SPRITES: dict[Hashable, Any] = {}
_THEME_IDS: dict[tuple[tuple[str, str], ...], int] = {}  # key -> the sprite's image core (RGBA)
_SPRITE_LIMIT = 8192


def _draw_sprite(
    kind: str,
    points: tuple[Point, ...],
    args: tuple[Any, ...],
    size: tuple[int, int],
    theme: Mapping[str, str],
) -> Canvas:
    tile = Canvas(Image.new("RGBA", (size[0] * SCALE, size[1] * SCALE), (0, 0, 0, 0)), theme)
    if kind == "line":
        tile.line(points, *args)
    elif kind == "disc":
        tile.disc(points[0], *args)
    elif kind == "polygon":
        tile.polygon(points, *args)
    elif kind == "rectangle":
        (x0, y0), (x1, y1) = points
        tile.rectangle((x0, y0, x1, y1), *args)
    else:
        shape, *rest = args
        tile.marker(shape, points[0], *rest)
    return tile


def _box(centre: Point, radius: float) -> list[float]:
    x, y = centre
    return [(x - radius) * SCALE, (y - radius) * SCALE, (x + radius) * SCALE, (y + radius) * SCALE]


def regular_polygon(shape: Marker, centre: Point, radius: float) -> list[Point]:
    x, y = centre
    sides, turn, scale = {
        "square": (4, 45, 0.9),
        "diamond": (4, 0, 1.05),
        "triangle": (3, -90, 1.1),
        "hexagon": (6, 30, 1.0),
        "star": (10, -90, 1.1),
    }[shape]
    points = []
    for i in range(sides):
        angle = math.radians(turn + 360 * i / sides)
        r = radius * scale * (0.5 if shape == "star" and i % 2 else 1)
        points.append((x + r * math.cos(angle), y + r * math.sin(angle)))
    return points


def clean_name(name: str, limit: int = 18) -> str:
    """A display name the fonts can draw on one line: printable, short, each run of
    characters no font here has (emoji...) shown as one PLACEHOLDER."""
    kept = ""
    for character in name:
        if not character.isprintable():
            continue
        if character.isspace() or drawable(character) or drawable(character, fallback=True):
            kept += character
        elif not kept.endswith(PLACEHOLDER):
            kept += PLACEHOLDER
    kept = kept.strip()
    if len(kept) > limit:
        kept = kept[: limit - 1] + "…"
    return kept or PLACEHOLDER


# -- the renderer base ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Extras:
    """What a caller may ask for beyond the position."""

    players: tuple[str, ...] | None = None  # display names by seat
    groups: bool = False  # Hot Wire's groups overlay
    caption: str | None = None  # extra words for the caption (the service's deadline)
    ply: int | None = None  # the move number to show, when it is not the state's (GIF frames)


class BoardRenderer:
    """A game's picture: a cached static board, the position on top, a caption.

    A game subclasses it and implements `board_size`, `draw_board` (static:
    depends only on options and theme), `draw_position`, `seat_styles` and
    `text` (the board in characters); `status_line` may add game-specific
    words (round, scores).
    """

    game: str  # the registry name

    def board_size(self, state: GameState) -> tuple[int, int]:
        """Logical pixels of the board area (without the caption)."""
        raise NotImplementedError

    def draw_board(self, canvas: Canvas, state: GameState) -> None:
        """The parts of the picture that depend only on the options."""
        raise NotImplementedError

    def draw_position(self, canvas: Canvas, state: GameState, view: View, extras: Extras) -> None:
        raise NotImplementedError

    def seat_styles(self, state: GameState) -> list[SeatStyle]:
        raise NotImplementedError

    def text(self, state: GameState) -> str:
        """The position in plain characters, for terminals (the console prints it)."""
        raise NotImplementedError

    def status_line(self, state: GameState, view: View, players: Sequence[str] = ()) -> str:
        """Words after the move number: whose turn, or the result. Games whose seats
        are numbered ("Player 1") name the players instead when `players` are given."""
        return default_status(view, self.seat_styles(state))

    # -- the shared path ------------------------------------------------------

    def image(self, state: GameState, extras: Extras, theme: Mapping[str, str]) -> Image.Image:
        view = state.view()
        canvas = SpriteCanvas(_cached_background(self, state, theme).copy(), theme)
        self.draw_position(canvas, state, view, extras)
        self.draw_caption(canvas, state, view, extras)
        return canvas.image

    def draw_caption(self, canvas: Canvas, state: GameState, view: View, extras: Extras) -> None:
        width, height = canvas.image.size
        top = height - CAPTION_HEIGHT
        styles = self.seat_styles(state)
        title = engine.GAMES[state.name].title
        ply = state.ply if extras.ply is None else extras.ply
        move_words = f"move {ply}" if ply else "start"
        heading = f"{title} · {move_words}"
        canvas.text((16, top + 20), heading, 17, bold=True, anchor="lm")
        status = self.status_line(state, view, extras.players or ())
        if extras.caption:
            status = f"{status} · {extras.caption}"
        # the status never runs into the title: smaller, then shortened
        room = width - 16 - 24 - text_width(heading, 17, bold=True) - 16
        size = 15 if text_width(status, 15) <= room else 13
        canvas.text((width - 16, top + 20), fit_text(status, size, room), size, anchor="rm")
        names = extras.players or tuple(style.name for style in styles)
        x = 16.0
        chip_width = (width - 32) / max(1, len(styles))
        for seat, style in enumerate(styles):
            centre = (x + 10, top + 56)
            ring = "ink" if view.to_move == seat else None
            if ring:
                canvas.marker("circle", centre, 13, "paper", outline="ink", width=1.5)
            canvas.marker(style.marker, centre, 8, style.colour, outline="ink", width=1)
            label = clean_name(names[seat] if seat < len(names) else style.name)
            if extras.players and style.name not in label:
                label = f"{label} ({style.name})" if len(styles) <= 3 else label
            canvas.text((x + 28, top + 56), fit_text(label, 14, chip_width - 36), 14, anchor="lm")
            x += chip_width


def default_status(view: View, styles: Sequence[SeatStyle]) -> str:
    """ "Red to move", "Black wins (last wire)", "Draw (passes)"."""
    outcome = view.outcome
    label = [style.name for style in styles]
    if outcome is None:
        return f"{label[view.to_move]} to move" if view.to_move is not None else ""
    if not outcome.winners:
        return f"Draw ({outcome.reason})"
    winners = " & ".join(label[seat] for seat in outcome.winners)
    verb = "wins" if len(outcome.winners) == 1 else "share the win"
    return f"{winners} {verb} ({outcome.reason})"


_BACKGROUNDS: dict[Hashable, Image.Image] = {}
_BACKGROUND_LIMIT = 64


def _cached_background(
    renderer: BoardRenderer, state: GameState, theme: Mapping[str, str]
) -> Image.Image:
    """The static board for these options and theme, drawn once."""
    key = (state.name, tuple(sorted(state.options.items())), tuple(sorted(theme.items())))
    image = _BACKGROUNDS.get(key)
    if image is None:
        width, height = renderer.board_size(state)
        canvas = Canvas.blank(width, height + CAPTION_HEIGHT, theme)
        renderer.draw_board(canvas, state)
        canvas.rectangle((0, height, width, height + CAPTION_HEIGHT), "caption")
        canvas.line([(0, height), (width, height)], "paper_edge", 1)
        if len(_BACKGROUNDS) >= _BACKGROUND_LIMIT:
            _BACKGROUNDS.pop(next(iter(_BACKGROUNDS)))
        image = _BACKGROUNDS[key] = canvas.image.reduce(SCALE)
    return image


# -- encoding -----------------------------------------------------------------------


@lru_cache(maxsize=8)
def _palette(theme: tuple[tuple[str, str], ...]) -> Image.Image:
    """A fixed palette: every theme colour, plus its blends with paper, ink and white for
    anti-aliased edges. Quantizing to it is fast and keeps colours true."""
    colours = {_rgb3(value) for _, value in theme}
    named = dict(theme)
    anchors = [_rgb3(named[key]) for key in ("paper", "ink", "white")]
    entries = set(colours)
    for colour in colours:
        for anchor in anchors:
            for t in (0.25, 0.5, 0.75):
                red, green, blue = (
                    round(a + (b - a) * t) for a, b in zip(colour, anchor, strict=True)
                )
                entries.add((red, green, blue))
    flat = [value for entry in sorted(entries)[:256] for value in entry]
    palette = Image.new("P", (1, 1))
    palette.putpalette(flat + [0] * (768 - len(flat)))
    return palette


def _rgb3(colour: str) -> tuple[int, int, int]:
    red, green, blue = ImageColor.getrgb(colour)[:3]
    return red, green, blue


def to_palette(image: Image.Image, theme: Mapping[str, str]) -> Image.Image:
    return image.quantize(palette=_palette(tuple(sorted(theme.items()))), dither=Image.Dither.NONE)


def encode_png(image: Image.Image, theme: Mapping[str, str]) -> bytes:
    """PNG of the picture, paletted first: a third of the bytes to compress. Colours stay
    within a few units of the theme's (Pillow matches palettes at reduced precision)."""
    buffer = io.BytesIO()
    to_palette(image, theme).save(buffer, "PNG", compress_level=PNG_COMPRESS_LEVEL)
    return buffer.getvalue()


#: Frames encoded at a time: a GIF of any length holds only this many pictures at once.
GIF_CHUNK_FRAMES = 16


def encode_gif(
    frames: Iterable[Image.Image], theme: Mapping[str, str], *, frame_ms: int, last_ms: int
) -> bytes:
    """An animated GIF, one frame per picture, the last one held longer.

    Streamed, so memory stays bounded however long the game: Pillow encodes
    GIF_CHUNK_FRAMES frames at a time, each chunk led by the previous chunk's
    last frame so that every frame is still stored as its change from the one
    before (with its own colour table), and the chunks' frames are spliced
    into one file.
    """
    buffer = io.BytesIO()
    previous: Image.Image | None = None
    for chunk, last in _chunks((to_palette(frame, theme) for frame in frames), GIF_CHUNK_FRAMES):
        lead = [] if previous is None else [previous]
        durations = [frame_ms] * (len(lead) + len(chunk))
        if last:
            durations[-1] = last_ms
        encoded = _gif_bytes([*lead, *chunk], durations)
        buffer.write(encoded[:-1] if previous is None else _frames_after_first(encoded))
        previous = chunk[-1]
        chunk.clear()  # the frames go now, not when the next chunk is read
    if previous is None:
        raise ValueError("a GIF needs at least one frame")
    buffer.write(b";")  # the trailer
    return buffer.getvalue()


def _chunks(items: Iterable[Image.Image], size: int) -> Iterable[tuple[list[Image.Image], bool]]:
    """Lists of `size` items, each with whether it is the last (one list read ahead)."""
    chunk: list[Image.Image] = []
    for item in items:
        if len(chunk) == size:
            yield chunk, False
            chunk = []
        chunk.append(item)
    if chunk:
        yield chunk, True


def _gif_bytes(frames: list[Image.Image], durations: list[int]) -> bytes:
    buffer = io.BytesIO()
    # saved from a copy: Pillow keeps the arguments (every frame) on the image it saves
    frames[0].copy().save(
        buffer,
        "GIF",
        save_all=True,
        append_images=frames[1:],
        duration=durations if len(frames) > 1 else durations[0],
        loop=0,
        optimize=True,  # each frame's palette cut to its colours: 10 MB -> 2 MB on long games
        disposal=1,
    )
    return buffer.getvalue()


def _frames_after_first(gif: bytes) -> bytes:
    """The blocks of an encoded GIF after its first image, without the trailer (GIF89a)."""
    at = 13 + _colour_table_size(gif[10])  # header, screen descriptor, global colours
    while gif[at] == 0x21:  # extensions before the first image (looping, its timing)
        at = _after_sub_blocks(gif, at + 2)
    at += 10 + _colour_table_size(gif[at + 9]) + 1  # image descriptor, colours, LZW code size
    return gif[_after_sub_blocks(gif, at) : -1]


def _colour_table_size(flags: int) -> int:
    return 3 << ((flags & 7) + 1) if flags & 0x80 else 0


def _after_sub_blocks(gif: bytes, at: int) -> int:
    while gif[at]:
        at += gif[at] + 1
    return at + 1
