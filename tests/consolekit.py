"""What the tests of the console share: the transcript of lines typed into it, and a game of Hex
with swap started."""

from __future__ import annotations

import io
from pathlib import Path

from bot.console import Console
from bot.service import GameService


async def transcript_of(service: GameService, tmp_path: Path, lines: list[str]) -> list[str]:
    out = io.StringIO()
    await Console(service, out, tmp_path / "boards").run(lines)
    said = out.getvalue().splitlines()
    assert not any("Something went wrong" in line for line in said), said
    return said


HEX_WITH_SWAP = [
    "as ann",
    "challenge hex @bob size=5 days=none first=challenger",
    "as bob",
    "accept",
]
