"""Tournament pictures: standings, crosstables and brackets, as PNG and as plain text.

The service builds these plain dataclasses from an event (bot/events computes the
scores, places and brackets); render draws them. Nothing here knows about events:
the values are already words and numbers.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from PIL import Image

from bot.render.canvas import Canvas, SpriteCanvas
from bot.render.encode import encode_png
from bot.render.fonts import clean_name, fit_text, text_width
from bot.render.theme import DEFAULT_THEME


@dataclass(frozen=True)
class StandingRow:
    """One line of a standings table."""

    place: str  # "1", "=3"
    name: str
    score: float
    tiebreaks: tuple[float, ...]
    games_left: int
    note: str  # "withdrawn", "annulled", ""


@dataclass(frozen=True)
class StandingsTable:
    title: str
    tiebreak_names: tuple[str, ...]
    rows: tuple[StandingRow, ...]


@dataclass(frozen=True)
class Crosstable:
    """`cells[i][j]` is row player i's result against column player j: "1", "½", "0",
    "" unplayed, "×" on the diagonal; a double round robin joins both games ("1½")."""

    title: str
    names: tuple[str, ...]
    cells: tuple[tuple[str, ...], ...]
    #: each row's points; when empty, the results in its cells are added up
    scores: tuple[float, ...] = ()


@dataclass(frozen=True)
class BracketMatch:
    """A knockout match: `winner` 0 is the top player, 1 the bottom; a None player is a bye
    or not yet known."""

    top: str | None
    bottom: str | None
    score: str
    winner: int | None


@dataclass(frozen=True)
class Bracket:
    """Rounds in order, the first round first; round k+1's match m is fed by round k's
    matches 2m and 2m+1."""

    title: str
    rounds: tuple[tuple[BracketMatch, ...], ...]


# --- numbers and names ---------------------------------------------------------------------

#: Names are shown whole up to this many characters (Discord's longest display name).
NAME_LIMIT = 32
#: At most this many combining marks ride on one character: a name stacked with hundreds
#: ("Zalgo" text) would otherwise draw far above and below its row.
MARKS_PER_CHARACTER = 2
#: Characters of a name looked at: a 5,000-character name costs no more than a long one.
NAME_SCAN = 8 * NAME_LIMIT
_FRACTIONS = {0.0: "", 0.25: "¼", 0.5: "½", 0.75: "¾"}


def number(value: float) -> str:
    """A score or tiebreak as people write it: 2, ½, 2½ (quarters as ¼ and ¾: Sonneborn-Berger
    can hold them); anything else rounded to one decimal; "–" for what is not a number."""
    if not math.isfinite(value):
        return "–"
    quarters = value * 4
    if quarters != round(quarters):
        return f"{value:.1f}"
    sign = "-" if value < 0 else ""
    whole, part = divmod(abs(value), 1)
    fraction = _FRACTIONS[part]
    return f"{sign}{int(whole) if whole or not fraction else ''}{fraction}"


def _marks_limited(words: str) -> str:
    kept: list[str] = []
    marks = 0
    for character in words[:NAME_SCAN]:
        if unicodedata.category(character).startswith("M"):
            marks += 1
            if marks > MARKS_PER_CHARACTER:
                continue
        else:
            marks = 0
        kept.append(character)
    return "".join(kept)


def picture_name(name: str | None, limit: int = NAME_LIMIT) -> str:
    """A name as the pictures draw it: what the fonts can draw (◇ for the rest), at most
    `limit` characters, a few combining marks per character."""
    return clean_name(_marks_limited(name or ""), limit)


def plain_name(name: str | None, limit: int = NAME_LIMIT) -> str:
    """A name as the text forms print it: printable characters on one line, at most `limit`
    characters with an ellipsis after, a few combining marks per character."""
    kept = "".join(
        " " if character.isspace() else character
        for character in _marks_limited(name or "")
        if character.isspace() or character.isprintable()
    ).strip()
    if len(kept) > limit:
        kept = kept[: limit - 1] + "…"
    return kept or "?"


def columns(words: str) -> int:
    """How many terminal columns the words take: wide (CJK, emoji) characters two, combining
    marks none."""
    return sum(
        0
        if unicodedata.category(c) in ("Mn", "Me", "Cf")
        else 2
        if unicodedata.east_asian_width(c) in ("W", "F")
        else 1
        for c in words
    )


def pad(words: str, width: int, align: str) -> str:
    room = " " * max(0, width - columns(words))
    if align == "r":
        return room + words
    if align == "m":
        half = len(room) // 2
        return room[:half] + words + room[half:]
    return words + room


# --- grids: standings and crosstables ------------------------------------------------------


@dataclass(frozen=True)
class _Cell:
    words: str  # as the picture draws them
    plain: str  # as the text form prints them
    colour: str = "ink"
    bold: bool = False
    fill: str | None = None  # a theme colour behind the cell (the crosstable's diagonal)


@dataclass(frozen=True)
class _Column:
    header: str
    align: str  # "l", "r" or "m"
    widest: float  # logical pixels a cell may take: longer words are shortened
    boxed: bool = False  # lines either side (the crosstable's results)


@dataclass(frozen=True)
class _Grid:
    title: str
    columns: tuple[_Column, ...]
    rows: tuple[tuple[_Cell, ...], ...]
    footer: str = ""


#: A picture's sizes, in pixels. Text is drawn at these sizes (the boards' fonts).
MARGIN = 16
TITLE_HEIGHT = 44
TITLE_SIZE = 17
HEADER_HEIGHT = 28
HEADER_SIZE = 12
ROW_HEIGHT = 22
CELL_SIZE = 14
CELL_PADDING = 10
#: The widest a name column gets: 32 characters of most names.
NAME_WIDTH = 250.0
#: The standings picture shows this many rows at most (5,700 px tall); the rest are
#: counted in a line below, and the text form lists everyone.
MOST_PICTURE_ROWS = 256
#: Tiebreak columns shown at most (the formats have three).
MOST_TIEBREAKS = 6
#: A crosstable draws at most this many players (a round robin has 20 at most, a league's
#: division 11).
MOST_CROSSTABLE = 32


def _cell_width(cells: Iterable[_Cell], size: float) -> float:
    return max((text_width(cell.words, size, bold=cell.bold) for cell in cells), default=0.0)


def _grid_widths(grid: _Grid) -> list[int]:
    widths = []
    for index, column in enumerate(grid.columns):
        cells = (row[index] for row in grid.rows if index < len(row))
        widest = max(_cell_width(cells, CELL_SIZE), text_width(column.header, HEADER_SIZE))
        widths.append(math.ceil(min(widest, column.widest)) + 2 * CELL_PADDING)
    # the results' columns all as wide as the widest: a square grid
    boxed = [index for index, column in enumerate(grid.columns) if column.boxed]
    for index in boxed:
        widths[index] = max(widths[i] for i in boxed)
    return widths


def _grid_image(grid: _Grid, theme: Mapping[str, str]) -> Image.Image:
    widths = _grid_widths(grid)
    width = max(2 * MARGIN + sum(widths), 320)
    rows_top = TITLE_HEIGHT + HEADER_HEIGHT
    footer = ROW_HEIGHT if grid.footer else 0
    height = rows_top + ROW_HEIGHT * len(grid.rows) + footer + MARGIN
    canvas = SpriteCanvas(Image.new("RGB", (width, height), theme["paper"]), theme)
    title_band(canvas, grid.title, width)
    lefts = [MARGIN + sum(widths[:i]) for i in range(len(widths))]
    for index, column in enumerate(grid.columns):
        header = fit_text(column.header, HEADER_SIZE, widths[index] - 2 * CELL_PADDING)
        canvas.text(
            (
                _anchor_x(lefts[index], widths[index], column.align),
                TITLE_HEIGHT + HEADER_HEIGHT / 2,
            ),
            header,
            HEADER_SIZE,
            "muted",
            anchor=f"{column.align}m",
        )
    for number_, row in enumerate(grid.rows):
        top = rows_top + ROW_HEIGHT * number_
        if number_ % 2:
            canvas.rectangle((MARGIN, top, width - MARGIN, top + ROW_HEIGHT), "caption")
        for index, cell in enumerate(row[: len(widths)]):
            left, column = lefts[index], grid.columns[index]
            if cell.fill:
                canvas.rectangle((left, top, left + widths[index], top + ROW_HEIGHT), cell.fill)
            words = fit_text(
                cell.words, CELL_SIZE, widths[index] - 2 * CELL_PADDING, bold=cell.bold
            )
            centre = (_anchor_x(left, widths[index], column.align), top + ROW_HEIGHT / 2)
            canvas.text(
                centre, words, CELL_SIZE, cell.colour, anchor=f"{column.align}m", bold=cell.bold
            )
    bottom = rows_top + ROW_HEIGHT * len(grid.rows)
    canvas.rectangle((MARGIN, rows_top - 1, width - MARGIN, rows_top), "grid")
    for index, column in enumerate(grid.columns):
        if column.boxed:
            for x in (lefts[index], lefts[index] + widths[index]):
                canvas.rectangle((x, rows_top, x + 1, bottom), "faint")
    if grid.footer:
        words = fit_text(grid.footer, HEADER_SIZE, width - 2 * MARGIN)
        canvas.text(
            (MARGIN + CELL_PADDING, bottom + ROW_HEIGHT / 2),
            words,
            HEADER_SIZE,
            "muted",
            anchor="lm",
        )
    return canvas.image


def _anchor_x(left: float, width: float, align: str) -> float:
    if align == "r":
        return left + width - CELL_PADDING
    if align == "m":
        return left + width / 2
    return left + CELL_PADDING


def title_band(canvas: Canvas, title: str, width: int) -> None:
    """The title on the caption's paper, as the boards' caption band."""
    canvas.rectangle((0, 0, width, TITLE_HEIGHT), "caption")
    canvas.rectangle((0, TITLE_HEIGHT - 1, width, TITLE_HEIGHT), "paper_edge")
    words = fit_text(picture_name(title, 200), TITLE_SIZE, width - 2 * MARGIN, bold=True)
    canvas.text((MARGIN, TITLE_HEIGHT / 2), words, TITLE_SIZE, anchor="lm", bold=True)


def _grid_text(grid: _Grid) -> str:
    """The grid in monospace columns, two spaces apart."""
    table = [[column.header for column in grid.columns]]
    table += [[cell.plain for cell in row[: len(grid.columns)]] for row in grid.rows]
    widths = [
        max(columns(line[index]) for line in table if index < len(line))
        for index in range(len(grid.columns))
    ]
    lines = [plain_name(grid.title, 100), ""]
    for line in table:
        padded = [
            pad(words, widths[index], grid.columns[index].align) for index, words in enumerate(line)
        ]
        lines.append("  ".join(padded).rstrip())
    if grid.footer:
        lines.append(grid.footer)
    return "\n".join(lines) + "\n"


def _short_cell(words: str, blank: str, colour: str = "ink") -> _Cell:
    """A cell of a few characters (a place, a result); `blank` in the text when empty."""
    if not words.strip():
        return _Cell("", blank, colour)
    return _Cell(picture_name(words, 6), plain_name(words, 6), colour)


# --- standings -------------------------------------------------------------------------------


def _standings_grid(table: StandingsTable, most_rows: int | None) -> _Grid:
    names = table.tiebreak_names[:MOST_TIEBREAKS]
    noted = any(row.note for row in table.rows)
    columns_ = (
        _Column("#", "r", 48),
        _Column("Player", "l", NAME_WIDTH),
        _Column("Score", "r", 64),
        *(_Column(plain_name(name, 24), "r", 140) for name in names),
        _Column("Games left", "r", 90),
        *((_Column("", "l", 120),) if noted else ()),
    )
    shown = table.rows if most_rows is None else table.rows[:most_rows]
    rows = []
    for row in shown:
        out = bool(row.note)
        tiebreaks = [number(value) for value in row.tiebreaks[: len(names)]]
        tiebreaks += [""] * (len(names) - len(tiebreaks))
        note = plain_name(row.note, 24) if row.note else ""
        rows.append(
            (
                _short_cell(row.place, "", "muted"),
                _Cell(picture_name(row.name), plain_name(row.name), "muted" if out else "ink"),
                _Cell(number(row.score), number(row.score), bold=True),
                *(_Cell(value, value) for value in tiebreaks),
                _Cell(str(row.games_left), str(row.games_left), "muted"),
                *((_Cell(note, note, "muted"),) if noted else ()),
            )
        )
    left_out = len(table.rows) - len(shown)
    footer = f"… and {left_out:,} more (the text lists everyone)" if left_out else ""
    return _Grid(table.title, columns_, tuple(rows), footer)


def standings_png(table: StandingsTable) -> bytes:
    """The standings as a PNG: place, player, score, each tiebreak, games left and a note
    (withdrawn...). At most MOST_PICTURE_ROWS rows (256 players: about 700 x 5,750 px); a
    line below counts the rest."""
    grid = _standings_grid(table, MOST_PICTURE_ROWS)
    return encode_png(_grid_image(grid, DEFAULT_THEME), DEFAULT_THEME)


def standings_text(table: StandingsTable) -> str:
    """The standings in monospace columns, every row."""
    return _grid_text(_standings_grid(table, None))


# --- crosstables -----------------------------------------------------------------------------

_RESULT_POINTS = {"1": 1.0, "½": 0.5, "0": 0.0}


def _row_score(cells: tuple[str, ...]) -> float:
    return sum(_RESULT_POINTS.get(character, 0.0) for cell in cells for character in cell)


def _crosstable_grid(table: Crosstable) -> _Grid:
    count = len(table.names)
    if count > MOST_CROSSTABLE:
        raise ValueError(
            f"A crosstable shows at most {MOST_CROSSTABLE} players; this one has {count}."
        )
    columns_ = (
        _Column("#", "r", 40),
        _Column("Player", "l", NAME_WIDTH),
        *(_Column(str(j + 1), "m", 40, boxed=True) for j in range(count)),
        _Column("Score", "r", 64),
    )
    rows = []
    for i, name in enumerate(table.names):
        cells = tuple(table.cells[i]) if i < len(table.cells) else ()
        cells = (cells + ("",) * count)[:count]
        score = table.scores[i] if i < len(table.scores) else _row_score(cells)
        results = []
        for j, cell in enumerate(cells):
            if i == j or cell == "×":
                results.append(_Cell("", "×", fill="paper_edge"))
            else:
                results.append(_result_cell(cell))
        rows.append(
            (
                _Cell(str(i + 1), str(i + 1), "muted"),
                _Cell(picture_name(name), plain_name(name)),
                *results,
                _Cell(number(score), number(score), bold=True),
            )
        )
    return _Grid(table.title, columns_, tuple(rows))


def _result_cell(cell: str) -> _Cell:
    """A game's cell: "" for a game not played yet ("·" in the text)."""
    return _short_cell(cell, "·")


def crosstable_png(table: Crosstable) -> bytes:
    """The crosstable as a PNG: a row per player, their result against each column's player
    (numbered as the rows), the diagonal shaded, the score last. At most MOST_CROSSTABLE
    players (a round robin has at most 20): more is a ValueError."""
    return encode_png(_grid_image(_crosstable_grid(table), DEFAULT_THEME), DEFAULT_THEME)


def crosstable_text(table: Crosstable) -> str:
    """The crosstable in monospace columns: "×" on the diagonal, "·" for a game not played."""
    return _grid_text(_crosstable_grid(table))
