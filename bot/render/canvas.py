"""The canvas every renderer draws on, in logical pixels.

`Canvas` draws at SCALE times the size (the static boards, drawn once);
`SpriteCanvas` takes the same calls on a 1x picture and pastes each one as a
cached sprite drawn at 2x (the positions, drawn every move). Either can leave out
every call in some colours (`hidden`): a suggestion's picture compares positions
without their last-move markers.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Any

from PIL import Image, ImageColor, ImageDraw

from bot.render.fonts import text_mask, text_width
from bot.render.theme import SCALE, Marker, Point


class Canvas:
    """Drawing in logical pixels on a SCALE-times larger image."""

    def __init__(
        self, image: Image.Image, theme: Mapping[str, str], hidden: frozenset[str] = frozenset()
    ) -> None:
        self.image = image
        self.theme = theme
        self.draw = ImageDraw.Draw(image)
        self.hidden = hidden  # colours (theme keys) whose calls draw nothing

    @classmethod
    def blank(cls, width: int, height: int, theme: Mapping[str, str]) -> Canvas:
        return cls(Image.new("RGB", (width * SCALE, height * SCALE), theme["paper"]), theme)

    def colour(self, key_or_hex: str) -> str:
        return self.theme.get(key_or_hex, key_or_hex)

    def hides(self, *colours: str | None) -> bool:
        """Whether a call in these colours (fill, outline) is left out."""
        return bool(self.hidden) and any(colour in self.hidden for colour in colours)

    def line(self, points: Sequence[Point], colour: str, width: float) -> None:
        if self.hides(colour):
            return
        scaled = [(x * SCALE, y * SCALE) for x, y in points]
        self.draw.line(scaled, fill=self.colour(colour), width=max(1, round(width * SCALE)))
        if width >= 2:  # round caps and joins, so thick wires look drawn, not cut
            radius = width / 2
            for x, y in points:
                self.disc((x, y), radius, colour)

    def disc(self, centre: Point, radius: float, fill: str) -> None:
        if self.hides(fill):
            return
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
        if self.hides(fill, outline):
            return
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
        if self.hides(fill, outline):
            return
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
        if self.hides(fill, outline):
            return
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
        if self.hides(colour):
            return
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
        if self.hides(colour):
            return
        mask, (left, top) = text_mask(words, round(size * SCALE), bold, anchor)
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

    def __init__(
        self, image: Image.Image, theme: Mapping[str, str], hidden: frozenset[str] = frozenset()
    ) -> None:
        super().__init__(image, theme, hidden)
        # a small number for the theme: hashing the whole theme per sprite lookup is slow
        self._theme_id = _THEME_IDS.setdefault(tuple(sorted(theme.items())), len(_THEME_IDS))
        image.load()
        self._core = image.im

    def line(self, points: Sequence[Point], colour: str, width: float) -> None:
        if self.hides(colour):
            return
        self._stamp("line", points, width, (colour, width))

    def disc(self, centre: Point, radius: float, fill: str) -> None:
        if self.hides(fill):
            return
        self._stamp("disc", [centre], radius, (radius, fill))

    def polygon(
        self,
        points: Sequence[Point],
        fill: str | None,
        outline: str | None = None,
        width: float = 1,
    ) -> None:
        if self.hides(fill, outline):
            return
        self._stamp("polygon", points, width, (fill, outline, width))

    def rectangle(
        self,
        box: tuple[float, float, float, float],
        fill: str | None,
        outline: str | None = None,
        width: float = 1,
        radius: float = 0,
    ) -> None:
        if self.hides(fill, outline):
            return
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
        if self.hides(fill, outline):
            return
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
        if self.hides(colour):
            return
        mask, (left, top) = text_mask(words, round(size), bold, anchor)
        x, y = round(position[0]) + left, round(position[1]) + top
        box = (x, y, x + mask.width, y + mask.height)
        self._core.paste(_rgb(self.colour(colour)), box, mask.im)

    def segments(self, pairs: Iterable[tuple[Point, Point]], colour: str, width: float) -> None:
        if self.hides(colour):
            return
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
        if self.hides(fill, outline):
            return
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
        if self.hides(colour):
            return
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
        full_key = ("group", key, offset, half_size, self._theme_id, self.hidden)
        sprite = _SPRITES.get(full_key)
        if sprite is None:
            size = (2 * half_size + 1) * SCALE
            tile = Canvas(Image.new("RGBA", (size, size), (0, 0, 0, 0)), self.theme, self.hidden)
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


_SPRITES: dict[Hashable, Any] = {}  # key -> the sprite's image core (RGBA)
_THEME_IDS: dict[tuple[tuple[str, str], ...], int] = {}
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
