"""Text in pictures: DejaVu Sans from assets/fonts, with a fallback for CJK.

Characters DejaVu lacks are drawn in runs with Droid Sans Fallback (Chinese,
Japanese, Korean); characters neither font has become one PLACEHOLDER, never
the font's "missing" box. Words are measured and rendered to coverage masks
here; the canvas pastes the masks.
"""

from __future__ import annotations

import unicodedata
from functools import cache, lru_cache
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from bot.render.theme import SCALE

FONT_DIR = Path(__file__).resolve().parents[2] / "assets" / "fonts"
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
    return _width(words, size, bold)


@lru_cache(maxsize=4096)  # the caption measures its status twice, the players' names each move
def _width(words: str, size: float, bold: bool) -> float:
    pixels = round(size * SCALE)
    width = sum(_face(pixels, bold, fallback).getlength(run) for run, fallback in _runs(words))
    return width / SCALE


def fit_text(words: str, size: float, width: float, *, bold: bool = False) -> str:
    """The words, shortened with an ellipsis until they fit `width` logical pixels."""
    fitted = words
    while len(fitted) > 1 and text_width(fitted, size, bold=bold) > width:
        fitted = fitted[:-2].rstrip() + "…"
    return fitted


def clean_name(name: str, limit: int = 18) -> str:
    """A display name the fonts can draw on one line: printable, short, each run of
    characters no font here has (emoji...) shown as one PLACEHOLDER."""
    kept = ""
    for character in name:
        if character.isspace():
            character = " "  # a tab or a line break separates words too
        if not character.isprintable():
            continue
        if unicodedata.category(character).startswith("M"):  # a combining mark
            # It rides on its base: kept with a base a font draws, gone with a ◇
            # (alone, raqm draws it on a dotted circle, which looks drawable).
            if kept and not kept.endswith(PLACEHOLDER):
                kept += character
            continue
        if character.isspace() or drawable(character) or drawable(character, fallback=True):
            kept += character
        elif not kept.endswith(PLACEHOLDER):
            kept += PLACEHOLDER
    kept = kept.strip()
    if len(kept) > limit:
        kept = kept[: limit - 1] + "…"
    return kept or PLACEHOLDER


@lru_cache(maxsize=4096)
def text_mask(
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
