"""Pictures to bytes: PNG, and GIF streamed in chunks.

Both are paletted first to a fixed palette built from the theme, so a picture
quantizes fast and keeps its colours true.
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Mapping
from functools import lru_cache

from PIL import Image, ImageColor

PNG_COMPRESS_LEVEL = 1  # speed first: paletted boards are small anyway (bench/render.py)


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


def to_palette(image: Image.Image, theme: Mapping[str, str], *, hint: bool = False) -> Image.Image:
    """The picture in the theme's palette; the hint colour is in it only with `hint` (a
    suggested move is drawn): every other picture keeps the palette, hence the bytes,
    it had before there was one."""
    colours = tuple(sorted((k, v) for k, v in theme.items() if hint or k != "hint"))
    return image.quantize(palette=_palette(colours), dither=Image.Dither.NONE)


def encode_png(image: Image.Image, theme: Mapping[str, str], *, hint: bool = False) -> bytes:
    """PNG of the picture, paletted first: a third of the bytes to compress. Colours stay
    within a few units of the theme's (Pillow matches palettes at reduced precision)."""
    buffer = io.BytesIO()
    to_palette(image, theme, hint=hint).save(buffer, "PNG", compress_level=PNG_COMPRESS_LEVEL)
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
