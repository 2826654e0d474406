"""GIF replays: one frame per ply (forced passes included), the last held, small enough."""

from __future__ import annotations

import io
import random

from PIL import Image, ImageChops

import engine
from bot.render import GIF_FRAME_MS, GIF_LAST_FRAME_MS, GIF_MOST_FRAMES, render_gif, render_image
from bot.render.encode import GIF_CHUNK_FRAMES, to_palette
from bot.render.theme import theme_with

MAX_GIF_BYTES = 8_000_000


def frames(gif: bytes) -> list[int]:
    """Each frame's duration."""
    image = Image.open(io.BytesIO(gif))
    durations = []
    for index in range(image.n_frames):
        image.seek(index)
        durations.append(image.info["duration"])
    return durations


def test_a_long_game_replays_frame_by_frame_within_8_mb() -> None:
    rng = random.Random(2026)
    longest = max(
        (engine.new("shortcircuit").random_playout(rng) for _ in range(3)), key=lambda s: s.ply
    )
    gif = render_gif("shortcircuit", longest.options, longest.moves, players=["ann", "bob"])
    assert len(gif) <= MAX_GIF_BYTES
    durations = frames(gif)
    assert longest.ply + 1 > GIF_MOST_FRAMES
    assert len(durations) == GIF_MOST_FRAMES  # the start, then evenly spaced plies
    assert durations[-1] == GIF_LAST_FRAME_MS and set(durations[:-1]) == {GIF_FRAME_MS}


def test_forced_passes_keep_one_frame_per_ply() -> None:
    state = engine.new("disthex", size=2)
    state = state.play("b1").play("a2")  # Disthex on 2x2 always reaches a forced pass
    final = state.random_playout(random.Random(1))
    assert "pass" in final.moves
    assert len(frames(render_gif("disthex", final.options, final.moves))) == final.ply + 1


def test_streamed_chunks_splice_into_the_same_pictures() -> None:
    final = engine.new("hex", size=6).random_playout(random.Random(3))
    assert final.ply + 1 > 2 * GIF_CHUNK_FRAMES  # the frames of three chunks
    image = Image.open(io.BytesIO(render_gif("hex", final.options, final.moves)))
    for ply in range(final.ply + 1):
        image.seek(ply)
        state = engine.replay("hex", final.options, final.moves[:ply])
        expected = to_palette(render_image(state, ply=ply or None), theme_with(None))
        assert (
            ImageChops.difference(image.convert("RGB"), expected.convert("RGB")).getbbox() is None
        )
