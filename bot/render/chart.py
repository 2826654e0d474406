"""The analysis chart: each seat's chance of winning after every move, in the board's
theme (its paper, ink and each seat's colour and marker). matplotlib with the Agg
backend draws it; it runs in a worker process like every picture."""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence

import matplotlib

matplotlib.use("Agg")  # no display: files only (before pyplot is imported)

import matplotlib.patheffects as effects
import matplotlib.pyplot as plt
from matplotlib import font_manager, ticker
from PIL import Image

from bot.render.fonts import FALLBACK_FONT, FONT_DIR, clean_name
from bot.render.theme import DEFAULT_THEME, SeatStyle

# The boards' fonts, DejaVu Sans then the CJK fallback glyph by glyph, not the
# system's: the same names are drawn the same way on every machine.
for _file in ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf", FALLBACK_FONT):
    font_manager.fontManager.addfont(str(FONT_DIR / _file))
FONT_FAMILY = ["DejaVu Sans", "Droid Sans Fallback"]

#: matplotlib's names for the theme's marker shapes.
MARKERS = {
    "circle": "o",
    "square": "s",
    "triangle": "^",
    "diamond": "D",
    "hexagon": "h",
    "star": "*",
    "cross": "X",
    "ring": "o",
}
WIDTH_INCHES, HEIGHT_INCHES, DPI = 8.0, 3.6, 100
#: A seat colour this light is drawn with an ink outline (white stones on paper).
LIGHT = 0.85


def win_chart(
    title: str,
    chances: Sequence[Sequence[float]],
    styles: Sequence[SeatStyle],
    players: Sequence[str],
    theme: Mapping[str, str] = DEFAULT_THEME,
) -> bytes:
    """A PNG: `chances[i][seat]` is the seat's chance after i moves (i = 0: the start)."""
    with plt.rc_context({"font.family": FONT_FAMILY}):
        return _win_chart(title, chances, styles, players, theme)


def _win_chart(
    title: str,
    chances: Sequence[Sequence[float]],
    styles: Sequence[SeatStyle],
    players: Sequence[str],
    theme: Mapping[str, str],
) -> bytes:
    figure, axes = plt.subplots(figsize=(WIDTH_INCHES, HEIGHT_INCHES), dpi=DPI)
    try:
        figure.set_facecolor(theme["paper"])
        axes.set_facecolor(theme["paper"])
        moves = list(range(len(chances)))
        marker_every = max(1, len(moves) // 30)
        for seat, style in enumerate(styles):
            values = [100 * row[seat] for row in chances]
            colour = theme.get(style.colour, style.colour)  # a theme key, or a colour
            line_effects = []
            if _lightness(colour) > LIGHT:
                line_effects = [effects.withStroke(linewidth=3.5, foreground=theme["ink"])]
            name = _label_text(players[seat]) if seat < len(players) else ""
            axes.plot(
                moves,
                values,
                color=colour,
                marker=MARKERS.get(style.marker, "o"),
                markevery=marker_every,
                markersize=5,
                markeredgecolor=theme["ink"],
                markeredgewidth=0.6,
                linewidth=2,
                label=f"{style.name}: {name}" if name else style.name,
                path_effects=line_effects,
            )
        axes.axhline(50, color=theme["grid"], linewidth=1, zorder=0)
        axes.set_ylim(-3, 103)
        axes.set_xlim(0, max(1, len(moves) - 1))
        axes.xaxis.set_major_locator(ticker.MaxNLocator(integer=True))  # moves are whole
        axes.set_xlabel("move", color=theme["ink"])
        axes.set_ylabel("chance of winning (%)", color=theme["ink"])
        axes.set_title(title, color=theme["ink"], fontsize=12)
        axes.tick_params(colors=theme["muted"])
        axes.grid(color=theme["faint"], linewidth=0.8)
        for spine in axes.spines.values():
            spine.set_color(theme["paper_edge"])
        legend = axes.legend(loc="best", frameon=True, fontsize=9)
        legend.get_frame().set_facecolor(theme["caption"])
        legend.get_frame().set_edgecolor(theme["paper_edge"])
        figure.tight_layout()
        raw = io.BytesIO()
        figure.savefig(raw, format="png", facecolor=theme["paper"])
    finally:
        plt.close(figure)
    # a palette of at most 64 colours: a few tens of kilobytes instead of a hundred or more
    image = Image.open(raw).convert("RGB").quantize(64)
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()


def _label_text(name: str) -> str:
    """A player's name as the boards show it (printable, short, ◇ for what no font
    has), with `$` escaped: matplotlib reads text between two `$` as mathematics, and
    a name like "$_$" failed the whole chart."""
    return clean_name(name).replace("$", r"\$")


def _lightness(colour: str) -> float:
    red, green, blue = (int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5))
    return (max(red, green, blue) + min(red, green, blue)) / 2
