"""The canvas every renderer draws on, in logical pixels.

`Canvas` draws at SCALE times the size (the static boards, drawn once, and
the positions of a 2x picture, for high-DPI screens); `SpriteCanvas` takes the
same calls on a 1x picture and pastes each one as a cached sprite drawn at 2x
(the positions, drawn every move). Either can leave out
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

    @property
    def size(self) -> tuple[int, int]:
        """The picture's width and height in logical pixels."""
        width, height = self.image.size
        return width // SCALE, height // SCALE

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
    as the 2x drawing does anyway. A sprite is kept without its wholly
    transparent parts (`Sprite`): a paste costs per pixel of its box, and a
    long wire's box is mostly empty.
    """

    def __init__(
        self, image: Image.Image, theme: Mapping[str, str], hidden: frozenset[str] = frozenset()
    ) -> None:
        super().__init__(image, theme, hidden)
        # a small number for the theme: hashing the whole theme per sprite lookup is slow
        self._theme_id = _THEME_IDS.setdefault(tuple(sorted(theme.items())), len(_THEME_IDS))
        image.load()
        self._core = image.im

    @property
    def size(self) -> tuple[int, int]:
        return self.image.size

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
        left, top, right, bottom, mask = _text_piece(words, round(size), bold, anchor)
        x, y = round(position[0]), round(position[1])
        box = (x + left, y + top, x + right, y + bottom)
        self._core.paste(_rgb(self.colour(colour)), box, mask)

    def segments(self, pairs: Iterable[tuple[Point, Point]], colour: str, width: float) -> None:
        if self.hides(colour):
            return
        self._stamp_pairs("line", pairs, width, (colour, width))

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
        self._stamp_points("marker", centres, reach, (shape, radius, fill, outline, width))

    def _stamp_points(
        self, kind: str, centres: Iterable[Point], reach: float, args: tuple[object, ...]
    ) -> None:
        """`_stamp` for many one-point calls of one style (stones, dots) in a tight loop:
        their sprites differ only by the centre's offset on the 2x grid."""
        spread = math.ceil(reach * SCALE) + SCALE
        style = self._style(kind, args, spread)
        sprites, paste = _SPRITES, self._core.paste
        for x, y in centres:
            left, x_offset = divmod(round(x * SCALE) - spread, SCALE)
            top, y_offset = divmod(round(y * SCALE) - spread, SCALE)
            key = (style, x_offset, y_offset)
            sprite = sprites.get(key)
            if sprite is None:
                sprite = self._new_sprite(key, kind, ((x, y),), left, top, spread, args)
            for dx0, dy0, dx1, dy1, piece in sprite:  # `_paste`, without a call per stamp
                paste(piece, (left + dx0, top + dy0, left + dx1, top + dy1), piece)

    def _stamp_pairs(
        self,
        kind: str,
        pairs: Iterable[tuple[Point, Point]],
        reach: float,
        args: tuple[object, ...],
    ) -> None:
        """`_stamp` for many two-point calls of one style (wires) in a tight loop: a
        sprite is keyed by the call's style and its offset and extent on the 2x grid,
        in small ints."""
        spread = math.ceil(reach * SCALE) + SCALE
        style = self._style(kind, args, spread)
        sprites, paste = _SPRITES, self._core.paste
        for (xa, ya), (xb, yb) in pairs:
            x0, y0, x1, y1 = (
                round(xa * SCALE),
                round(ya * SCALE),
                round(xb * SCALE),
                round(yb * SCALE),
            )
            left = ((x0 if x0 < x1 else x1) - spread) // SCALE
            top = ((y0 if y0 < y1 else y1) - spread) // SCALE
            key = (style, x0 - left * SCALE, y0 - top * SCALE, x1 - x0, y1 - y0)
            sprite = sprites.get(key)
            if sprite is None:
                ends = ((xa, ya), (xb, yb))
                sprite = self._new_sprite(key, kind, ends, left, top, spread, args)
            for dx0, dy0, dx1, dy1, piece in sprite:  # `_paste`, without a call per stamp
                paste(piece, (left + dx0, top + dy0, left + dx1, top + dy1), piece)

    def _style(self, kind: str, args: tuple[object, ...], spread: int) -> int:
        """A small number for a call's style: hashing it per sprite lookup is slow."""
        return _STYLE_IDS.setdefault((kind, args, spread, self._theme_id), len(_STYLE_IDS))

    def _new_sprite(
        self,
        key: Hashable,
        kind: str,
        points: tuple[Point, ...],
        left: int,
        top: int,
        spread: int,
        args: tuple[object, ...],
    ) -> Sprite:
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
        self._paste(sprite, left, top)

    def _stamp(
        self, kind: str, points: Sequence[Point], reach: float, args: tuple[object, ...]
    ) -> None:
        # On the 2x pixel grid, in ints: the sprite's key is the call relative to its
        # top-left pixel, so the same stone or wire anywhere reuses one sprite.
        if len(points) == 1 and kind in _ONE_POINT:  # stones, dots: nearly every call
            self._stamp_points(kind, points, reach, args)
            return
        if len(points) == 2:  # wires
            self._stamp_pairs(kind, [(points[0], points[1])], reach, args)
            return
        spread = math.ceil(reach * SCALE) + SCALE
        scaled = [(round(x * SCALE), round(y * SCALE)) for x, y in points]
        left = (min(x for x, _ in scaled) - spread) // SCALE
        top = (min(y for _, y in scaled) - spread) // SCALE
        local = tuple((x - left * SCALE, y - top * SCALE) for x, y in scaled)
        key = (kind, local, args, spread, self._theme_id)
        sprite = _SPRITES.get(key)
        if sprite is None:
            sprite = self._new_sprite(key, kind, tuple(points), left, top, spread, args)
        self._paste(sprite, left, top)

    def _paste(self, sprite: Sprite, left: int, top: int) -> None:
        """The sprite's pieces with the tile's top-left pixel at (left, top)."""
        # the image core directly: Image.paste's checks cost more than the paste here
        paste = self._core.paste
        for dx0, dy0, dx1, dy1, piece in sprite:
            paste(piece, (left + dx0, top + dy0, left + dx1, top + dy1), piece)


@lru_cache(maxsize=64)
def _rgb(colour: str) -> tuple[int, ...]:
    return ImageColor.getrgb(colour)


@lru_cache(maxsize=4096)
def _text_piece(words: str, pixels: int, bold: bool, anchor: str) -> tuple[int, int, int, int, Any]:
    """The words' mask as `SpriteCanvas.text` pastes it: its box around the anchor
    point and its image core (the Image's properties cost more than the paste)."""
    mask, (left, top) = text_mask(words, pixels, bold, anchor)
    return left, top, left + mask.width, top + mask.height, mask.im


#: A sprite as it is pasted: the pieces of its tile that are not wholly transparent,
#: each its box in the tile (left, top, right, bottom) and its image core (RGBA).
Sprite = tuple[tuple[int, int, int, int, Any], ...]
#: A paste costs about as much as blending this many pixels more: pieces are merged
#: while one box over both costs less than two pastes.
PASTE_PIXELS = 100
#: Rows of a tile cut into one piece before merging: a long wire's tile is mostly empty.
PIECE_ROWS = 8


def _remember_sprite(key: Hashable, tile: Canvas) -> Sprite:
    """Reduce a 2x tile (premultiplied, so edges don't darken), cut it into pieces
    and cache them. Leaving out transparent pixels changes nothing: pasted with an
    alpha of 0, a pixel keeps its colour exactly."""
    image = tile.image.convert("RGBa").reduce(SCALE).convert("RGBA")
    alpha = image.getchannel("A")
    boxes: list[tuple[int, int, int, int]] = []
    for top in range(0, image.height, PIECE_ROWS):
        found = alpha.crop((0, top, image.width, top + PIECE_ROWS)).getbbox()
        if found is None:
            continue
        box = (found[0], top + found[1], found[2], top + found[3])
        if boxes:
            last = boxes[-1]
            merged = (min(last[0], box[0]), last[1], max(last[2], box[2]), box[3])
            if _area(merged) <= _area(last) + _area(box) + PASTE_PIXELS:
                boxes[-1] = merged
                continue
        boxes.append(box)
    sprite = tuple((*box, image.crop(box).im) for box in boxes)
    if len(_SPRITES) >= _SPRITE_LIMIT:
        _SPRITES.pop(next(iter(_SPRITES)))
    _SPRITES[key] = sprite
    return sprite


def _area(box: tuple[int, int, int, int]) -> int:
    return (box[2] - box[0]) * (box[3] - box[1])


_SPRITES: dict[Hashable, Sprite] = {}
_THEME_IDS: dict[tuple[tuple[str, str], ...], int] = {}
_STYLE_IDS: dict[Hashable, int] = {}
#: The kinds of call drawn around one point (`_stamp_points`).
_ONE_POINT = frozenset({"disc", "marker"})
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
