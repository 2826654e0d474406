"""Pixel probes the render tests share: theme colours as RGB, the nearest of some colours."""

from __future__ import annotations

import math

from PIL import Image, ImageColor

from bot.render.theme import DEFAULT_THEME

RGB = tuple[int, int, int]


def rgb(colour: str) -> RGB:
    """A theme key ("blue") or a hex colour as RGB."""
    red, green, blue = ImageColor.getrgb(DEFAULT_THEME.get(colour, colour))[:3]
    return red, green, blue


def closest(image: Image.Image, where: tuple[float, float], *colours: str) -> str:
    """Which of `colours` (theme keys or hex) the pixel at `where` is nearest to."""
    pixel = image.getpixel((round(where[0]), round(where[1])))
    assert isinstance(pixel, tuple)
    return min(colours, key=lambda colour: math.dist(pixel, rgb(colour)))
