"""The caption band under every board: the title and move, the status, the seats.

The band's paper is part of the static board (`draw_band`); the words and the
seat chips are drawn on every picture (`draw_caption`).
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.render.canvas import Canvas
from bot.render.fonts import clean_name, fit_text, text_width
from bot.render.theme import SeatStyle
from engine import View

CAPTION_HEIGHT = 84


def draw_band(canvas: Canvas, width: int, top: int) -> None:
    """The band's paper and the line above it, below a board `top` logical pixels high."""
    canvas.rectangle((0, top, width, top + CAPTION_HEIGHT), "caption")
    canvas.line([(0, top), (width, top)], "paper_edge", 1)


def draw_caption(
    canvas: Canvas,
    heading: str,
    status: str,
    styles: Sequence[SeatStyle],
    to_move: int | None,
    players: Sequence[str] | None,
) -> None:
    """`heading` on the left ("Hex · move 12"), `status` on the right, shrunk then
    shortened so it never runs into the heading; below, a chip per seat (its marker,
    the player's name or the seat's), the seat to move ringed."""
    width, height = canvas.size
    top = height - CAPTION_HEIGHT
    canvas.text((16, top + 20), heading, 17, bold=True, anchor="lm")
    room = width - 16 - 24 - text_width(heading, 17, bold=True) - 16
    size = 15 if text_width(status, 15) <= room else 13
    canvas.text((width - 16, top + 20), fit_text(status, size, room), size, anchor="rm")
    names = players or tuple(style.name for style in styles)
    x = 16.0
    chip_width = (width - 32) / max(1, len(styles))
    for seat, style in enumerate(styles):
        centre = (x + 10, top + 56)
        if to_move == seat:
            canvas.marker("circle", centre, 13, "paper", outline="ink", width=1.5)
        canvas.marker(style.marker, centre, 8, style.colour, outline="ink", width=1)
        name = clean_name(names[seat] if seat < len(names) else style.name)
        label = chip_label(name, style.name, len(styles)) if players else name
        canvas.text((x + 28, top + 56), fit_text(label, 14, chip_width - 36), 14, anchor="lm")
        x += chip_width


def chip_label(player: str, seat_name: str, seats: int) -> str:
    """A seat's chip: "White: ann", as the game's sentences pair a colour and a player;
    the name alone when it holds the seat's name already or more than three chips share
    the band (the marker's colour says the seat)."""
    if seat_name in player or seats > 3:
        return player
    return f"{seat_name}: {player}"


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
