"""The analysis chart: each seat's chance of winning after every move, in the board's
theme (its paper, ink and each seat's colour and marker). matplotlib with the Agg
backend draws it; it runs in a worker process like every picture. matplotlib is
imported on the first chart, not with this module: it takes most of a second, and the
bot's processes, which import the service, draw no chart until an analysis."""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from functools import cache
from typing import TYPE_CHECKING

from PIL import Image

from bot.render.fonts import FALLBACK_FONT, FONT_DIR, clean_name
from bot.render.theme import DEFAULT_THEME, SeatStyle

if TYPE_CHECKING:
    from matplotlib.figure import Figure

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
#: Names are shown whole up to this many characters (Discord's longest display name).
NAME_LIMIT = 32
#: How strongly each seat's colour tints its half of a two-player chart.
HALF_TINT = 0.09


@cache
def set_up_matplotlib() -> None:
    """Once per process, before the first chart: the Agg backend (no display, files
    only), and the boards' fonts, DejaVu Sans then the CJK fallback glyph by glyph, not
    the system's: the same names are drawn the same way on every machine."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import font_manager

    for file in ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf", FALLBACK_FONT):
        font_manager.fontManager.addfont(str(FONT_DIR / file))


def win_chart(
    title: str,
    chances: Sequence[Sequence[float]],
    styles: Sequence[SeatStyle],
    players: Sequence[str],
    theme: Mapping[str, str] = DEFAULT_THEME,
    *,
    proven: Sequence[bool] = (),
    marked: Sequence[tuple[int, int]] = (),
) -> bytes:
    """A PNG: `chances[i][seat]` is the seat's chance after i moves (i = 0: the start);
    `proven[i]` that it is a proof's, not an estimate (those stretches are shaded);
    `marked` the moves the text names, with their movers' seats (ringed on the
    mover's curve, with their numbers)."""
    set_up_matplotlib()
    import matplotlib.pyplot as plt

    with plt.rc_context({"font.family": FONT_FAMILY}):
        figure = chart_figure(title, chances, styles, players, theme, proven=proven, marked=marked)
        try:
            raw = io.BytesIO()
            figure.savefig(raw, format="png", facecolor=theme["paper"])
        finally:
            plt.close(figure)
    # a palette of at most 64 colours: a few tens of kilobytes instead of a hundred or more;
    # octree keeps small areas true (the median cut turned the vermillion rings brown)
    image = Image.open(raw).convert("RGB").quantize(64, method=Image.Quantize.FASTOCTREE)
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()


def chart_figure(
    title: str,
    chances: Sequence[Sequence[float]],
    styles: Sequence[SeatStyle],
    players: Sequence[str],
    theme: Mapping[str, str] = DEFAULT_THEME,
    *,
    proven: Sequence[bool] = (),
    marked: Sequence[tuple[int, int]] = (),
) -> Figure:
    """The chart as a matplotlib figure (the caller closes it). Two players: one
    curve, the first seat's chance (the other's is its mirror), on halves tinted in
    each seat's colour, the names above the chart ("▲ Black: ann" on the left, "▼
    White: bob" on the right). More players: a curve per seat and a legend beside
    the chart."""
    set_up_matplotlib()
    import matplotlib.pyplot as plt
    from matplotlib import patheffects, ticker

    figure, axes = plt.subplots(
        figsize=(WIDTH_INCHES, HEIGHT_INCHES), dpi=DPI, layout="constrained"
    )
    figure.set_facecolor(theme["paper"])
    axes.set_facecolor(theme["paper"])
    moves = list(range(len(chances)))
    last = max(1, len(moves) - 1)
    for start, end in _runs(proven):
        # a proven stretch, hatched: each of its positions owns half a move either side
        axes.axvspan(
            max(start - 0.5, 0), min(end + 0.5, last), facecolor="none", hatch="///",
            edgecolor=theme["grid"], linewidth=0, zorder=0, label="_proven",
        )  # fmt: skip
    names = [
        _label_text(players[seat]) if seat < len(players) else "" for seat in range(len(styles))
    ]
    labels = [
        f"{style.name}: {name}" if name else style.name
        for style, name in zip(styles, names, strict=True)
    ]
    if len(styles) == 2:
        curves: list[tuple[int, str, SeatStyle | None]] = [(0, theme["ink"], None)]
        for seat, (low, high) in ((0, (50, 103)), (1, (-3, 50))):
            colour = _colour(styles[seat], theme)
            tint = theme["grid"] if _lightness(colour) > LIGHT else colour
            axes.axhspan(low, high, color=tint, alpha=HALF_TINT, zorder=0, linewidth=0)
            # above the chart, clear of the curve: up is the first seat's, down the other's
            axes.set_title(
                f"{'▲' if seat == 0 else '▼'} {labels[seat]}", loc="left" if seat == 0 else "right",
                fontsize=9, color=theme["ink"],
            )  # fmt: skip
        axes.set_ylabel(f"{styles[0].name}'s chance of winning (%)", color=theme["ink"])
    else:
        curves = [(seat, _colour(style, theme), style) for seat, style in enumerate(styles)]
        axes.set_ylabel("chance of winning (%)", color=theme["ink"])
    marker_every = max(1, len(moves) // 30)
    for seat, colour, style in curves:
        values = [100 * row[seat] for row in chances]
        line_effects = []
        if _lightness(colour) > LIGHT:
            line_effects = [patheffects.withStroke(linewidth=3.5, foreground=theme["ink"])]
        axes.plot(
            moves,
            values,
            color=colour,
            marker=MARKERS.get(style.marker, "o") if style else None,
            markevery=marker_every,
            markersize=5,
            markeredgecolor=theme["ink"],
            markeredgewidth=0.6,
            linewidth=2,
            label=labels[seat] if style else "_chance",
            path_effects=line_effects,
        )
    for ply, mover in marked:
        if not 0 <= ply < len(chances):
            continue
        seat = 0 if len(styles) == 2 else mover
        value = 100 * chances[ply][seat]
        axes.plot(
            [ply], [value], linestyle="none", marker="o", markersize=12, markerfacecolor="none",
            markeredgecolor=theme["vermillion"], markeredgewidth=2.2, label="_swing", zorder=5,
        )  # fmt: skip
        # the move number beside the ring, down and right from a high point, up and right
        # from a low one: clear of the curve's jumps, which are steep
        high = value >= 50
        axes.annotate(
            str(ply), (ply, value), xytext=(8, -8 if high else 8), textcoords="offset points",
            ha="left", va="top" if high else "bottom", fontsize=9, color=theme["vermillion"],
            zorder=6,
            bbox={"facecolor": theme["paper"], "edgecolor": "none", "alpha": 0.8, "pad": 0.5},
        )  # fmt: skip
    axes.axhline(50, color=theme["grid"], linewidth=1, zorder=0)
    axes.set_ylim(-3, 103)
    axes.set_xlim(0, last)
    axes.xaxis.set_major_locator(ticker.MaxNLocator(integer=True))  # moves are whole
    # the key to the hatching where the axis is named: no word on the chart to collide
    axes.set_xlabel("move (hatched: proven)" if any(proven) else "move", color=theme["ink"])
    axes.set_title(title, color=theme["ink"], fontsize=12)
    axes.tick_params(colors=theme["muted"])
    axes.grid(color=theme["faint"], linewidth=0.8)
    for spine in axes.spines.values():
        spine.set_color(theme["paper_edge"])
    if len(styles) != 2:
        # beside the chart, so a long name is never cut and never hides a curve
        legend = axes.legend(loc="upper left", bbox_to_anchor=(1.01, 1), frameon=True, fontsize=9)
        legend.get_frame().set_facecolor(theme["caption"])
        legend.get_frame().set_edgecolor(theme["paper_edge"])
    return figure


def _runs(flags: Sequence[bool]) -> list[tuple[int, int]]:
    """The stretches of consecutive True flags, as (first, last) indices."""
    runs: list[tuple[int, int]] = []
    for index, flag in enumerate(flags):
        if not flag:
            continue
        if runs and runs[-1][1] == index - 1:
            runs[-1] = (runs[-1][0], index)
        else:
            runs.append((index, index))
    return runs


def _colour(style: SeatStyle, theme: Mapping[str, str]) -> str:
    return theme.get(style.colour, style.colour)  # a theme key, or a colour


def _label_text(name: str) -> str:
    """A player's name as the boards show it (printable, ◇ for what no font has), whole
    up to NAME_LIMIT characters, with `$` escaped: matplotlib reads text between two `$`
    as mathematics, and a name like "$_$" failed the whole chart."""
    return clean_name(name, NAME_LIMIT).replace("$", r"\$")


def _lightness(colour: str) -> float:
    red, green, blue = (int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5))
    return (max(red, green, blue) + min(red, green, blue)) / 2
