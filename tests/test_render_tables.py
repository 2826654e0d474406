"""Tournament pictures: standings, crosstables and brackets, as PNG and as text."""

from __future__ import annotations

import io

import pytest
from PIL import Image, ImageChops

from bot.render import bracket as bracket_drawing
from bot.render import tables
from bot.render.bracket import bracket_png, bracket_text
from bot.render.tables import (
    Bracket,
    BracketMatch,
    Crosstable,
    StandingRow,
    StandingsTable,
    columns,
    crosstable_png,
    crosstable_text,
    number,
    standings_png,
    standings_text,
)

#: Names that have broken pictures elsewhere: markup, emoji, CJK, right-to-left, control
#: characters, thousands of characters, stacked combining marks, nothing at all.
ODD_NAMES = (
    "<script>alert(1)</script>",
    "😀🎉 party 🎉😀",
    "x" * 5000,
    "Z" + "\u0301\u0302\u0303" * 300 + "algo",
    "李小龙李小龙李小龙李小龙李小龙李小龙李小龙李小龙",
    "عبد الله بن محمد",
    "tab\tnew\nline\x00\x1b[31m",
    "",
    "   ",
)
#: Discord's most for an attachment, and the pixel bounds chosen for the pictures.
DISCORD_BYTES = 8 * 1024 * 1024
MOST_WIDTH, MOST_HEIGHT = 2400, 8400


def picture(png: bytes) -> Image.Image:
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(png) < DISCORD_BYTES
    image = Image.open(io.BytesIO(png))
    image.load()
    assert image.format == "PNG"
    assert image.width <= MOST_WIDTH and image.height <= MOST_HEIGHT
    return image


def standings(count: int, name: str = "player", note: str = "") -> StandingsTable:
    rows = tuple(
        StandingRow(
            f"={i + 1}" if i % 5 == 4 else str(i + 1),
            name if i == 0 else f"{'W' * 40}{i}",
            (count - i) / 2,
            ((count - i) / 4, i / 2, 1500 + i),
            i % 3,
            note if i == 0 else "",
        )
        for i in range(count)
    )
    return StandingsTable("Swiss · round 5", ("Buchholz cut 1", "Sonneborn-Berger", "rating"), rows)


def crosstable(count: int, first: str = "ann", double: bool = False) -> Crosstable:
    results = ("1", "½", "0", "")
    cells = tuple(
        tuple(
            "×"
            if i == j
            else results[(i * 7 + j * 3) % 4] + (results[(i + j) % 3] if double else "")
            for j in range(count)
        )
        for i in range(count)
    )
    names = (first, "W" * 40, *(f"player{i}" for i in range(2, count)))
    return Crosstable("Round robin", names, cells)


def knockout(players: int, first: str = "ann") -> Bracket:
    """A bracket of `players` lines with the first round played, the rest to come."""
    names = [first, *(f"p{i}" for i in range(1, players))]
    first_round = tuple(
        BracketMatch(names[k], names[k + 1], "2–1", (k // 2 + 1) % 2) for k in range(0, players, 2)
    )
    winners = [m.top if m.winner == 0 else m.bottom for m in first_round]
    second = tuple(
        BracketMatch(winners[k], winners[k + 1], "", None) for k in range(0, len(winners) - 1, 2)
    )
    return Bracket("Knockout", (first_round, second) if second else (first_round,))


# --- numbers ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (0, "0"),
        (0.5, "½"),
        (1, "1"),
        (2.5, "2½"),
        (8.75, "8¾"),
        (3.25, "3¼"),
        (-1.5, "-1½"),
        (1523.4, "1523.4"),
        (float("nan"), "–"),
    ],
)
def test_numbers_are_written_with_halves(value: float, shown: str) -> None:
    assert number(value) == shown


# --- standings --------------------------------------------------------------------------------


def test_standings_small_and_largest() -> None:
    small = picture(standings_png(standings(4)))
    large = picture(standings_png(standings(256)))
    assert small.height < 400
    # every row drawn: 256 rows of ROW_HEIGHT pixels each
    assert large.height >= 256 * tables.ROW_HEIGHT
    assert small.width <= large.width < 1000


def test_standings_beyond_the_picture_are_counted_and_listed_in_the_text() -> None:
    table = standings(300)
    cut = picture(standings_png(table))
    rows = tables.MOST_PICTURE_ROWS + 1  # the last line: "… and 44 more"
    assert (
        cut.height
        == tables.TITLE_HEIGHT + tables.HEADER_HEIGHT + rows * tables.ROW_HEIGHT + tables.MARGIN
    )
    text = standings_text(table)
    assert len(text.splitlines()) == 3 + 300  # title, blank line, header, every row
    assert text.splitlines()[-1].startswith("=300 ") and "more" not in text


def test_standings_text_has_halves_and_aligned_columns() -> None:
    text = standings_text(standings(6, name="李小龙😀"))
    lines = text.splitlines()
    assert lines[0] == "Swiss · round 5"
    table = lines[2:]
    assert table[0].split()[:3] == ["#", "Player", "Score"]
    assert "3" in table[1].split() and "2½" in table[2].split() and "½" in table[6].split()
    assert "0.5" not in text and "2.5" not in text
    # the last column is right-aligned: every line ends at the same terminal column
    assert len({columns(line) for line in table}) == 1


def test_standings_text_shows_notes() -> None:
    text = standings_text(standings(3, note="withdrawn"))
    assert text.splitlines()[3].endswith("withdrawn")


def changed_box(first: bytes, second: bytes) -> tuple[int, int, int, int]:
    a, b = Image.open(io.BytesIO(first)).convert("RGB"), Image.open(io.BytesIO(second))
    assert a.size == b.size
    box = ImageChops.difference(a, b.convert("RGB")).getbbox()
    assert box is not None
    return box


@pytest.mark.parametrize("name", ODD_NAMES)
def test_an_odd_name_stays_in_its_standings_cell(name: str) -> None:
    """Against a name that fills the widest column, only the name's cell changes."""
    widest = standings_png(standings(3, name="W" * 60))
    odd = standings_png(standings(3, name=name))
    left, top, right, bottom = changed_box(widest, odd)
    widths = tables._grid_widths(tables._standings_grid(standings(3, name="W" * 60), None))
    rows_top = tables.TITLE_HEIGHT + tables.HEADER_HEIGHT
    assert left >= tables.MARGIN + widths[0]
    assert right <= tables.MARGIN + widths[0] + widths[1] - tables.CELL_PADDING // 2
    assert top >= rows_top and bottom <= rows_top + tables.ROW_HEIGHT


@pytest.mark.parametrize("name", ODD_NAMES)
def test_odd_names_in_text_are_one_short_line(name: str) -> None:
    text = standings_text(standings(2, name=name))
    row = text.splitlines()[3]
    assert len(text.splitlines()) == 5
    assert "\x00" not in text and "\x1b" not in text and "\t" not in text
    shown = tables.plain_name(name)
    assert shown in row and len(shown) <= tables.NAME_LIMIT


# --- crosstables ------------------------------------------------------------------------------


def test_crosstable_small_and_largest() -> None:
    small = picture(crosstable_png(crosstable(3)))
    largest = tables.MOST_CROSSTABLE
    large = picture(crosstable_png(crosstable(largest, double=True)))
    assert large.height >= largest * tables.ROW_HEIGHT > small.height
    assert large.width > small.width + (largest - 3) * 20


def test_a_crosstable_larger_than_any_event_is_refused() -> None:
    with pytest.raises(ValueError, match="at most 32 players"):
        crosstable_png(crosstable(tables.MOST_CROSSTABLE + 1))


def test_crosstable_text_scores_and_alignment() -> None:
    table = Crosstable(
        "Division 1",
        ("ann", "李小龙", "cat"),
        (("×", "1", "½"), ("0", "×", ""), ("½", "", "×")),
    )
    lines = crosstable_text(table).splitlines()
    assert lines[2].split() == ["#", "Player", "1", "2", "3", "Score"]
    assert lines[2].startswith("#") and lines[3].startswith("1")
    assert lines[3].split() == ["1", "ann", "×", "1", "½", "1½"]
    assert lines[4].split() == ["2", "李小龙", "0", "×", "·", "0"]
    assert lines[5].split() == ["3", "cat", "½", "·", "×", "½"]
    assert len({columns(line) for line in lines[2:]}) == 1
    # given scores win over the cells' sum (a forfeit the cells cannot show)
    scored = Crosstable(table.title, table.names, table.cells, scores=(2.0, 0.0, 0.5))
    assert crosstable_text(scored).splitlines()[3].split()[-1] == "2"


def test_double_round_robin_cells_join_both_games() -> None:
    text = crosstable_text(crosstable(4, double=True))
    assert {"1½", "½1", "00"} <= set(text.split())


def test_a_ragged_crosstable_is_drawn_not_refused() -> None:
    ragged = Crosstable("Ragged", ("ann", "bob", "cat"), (("×", "1"),))
    picture(crosstable_png(ragged))
    assert crosstable_text(ragged).splitlines()[4].split() == ["2", "bob", "·", "×", "·", "0"]


@pytest.mark.parametrize("name", ODD_NAMES[:5])
def test_an_odd_name_stays_in_its_crosstable_cell(name: str) -> None:
    widest = crosstable_png(crosstable(3, first="W" * 60))
    odd = crosstable_png(crosstable(3, first=name))
    left, top, right, bottom = changed_box(widest, odd)
    widths = tables._grid_widths(tables._crosstable_grid(crosstable(3, first="W" * 60)))
    rows_top = tables.TITLE_HEIGHT + tables.HEADER_HEIGHT
    assert tables.MARGIN + widths[0] <= left
    assert right <= tables.MARGIN + widths[0] + widths[1] - tables.CELL_PADDING // 2
    assert rows_top <= top and bottom <= rows_top + tables.ROW_HEIGHT


# --- brackets ---------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 4, 64, 128, 512])
def test_brackets_from_two_players_to_the_largest(players: int) -> None:
    image = picture(bracket_png(knockout(players)))
    rounds = max(1, (players - 1).bit_length())
    assert image.width >= rounds * 150
    assert image.height >= players // 2 * 30


def test_a_bracket_larger_than_any_knockout_is_refused() -> None:
    with pytest.raises(ValueError, match="at most 512 players"):
        bracket_png(knockout(1024))


def test_bracket_text_byes_unknowns_and_winner() -> None:
    bracket = Bracket(
        "Cup",
        (
            (BracketMatch("ann", None, "", 0), BracketMatch("bob", "李小龙", "1½–½", 1)),
            (BracketMatch("ann", "李小龙", "1–0", 0),),
        ),
    )
    lines = bracket_text(bracket).splitlines()
    assert lines[:3] == ["Cup", "", "Semi-finals"]
    assert lines[3].split() == ["ann", "v", "bye", "→", "ann"]
    assert lines[4].split() == ["bob", "v", "李小龙", "1½–½", "→", "李小龙"]
    assert lines[7].split() == ["ann", "v", "李小龙", "1–0", "→", "ann"]
    assert lines[-1] == "Winner: ann"
    matches = [lines[3], lines[4], lines[7]]
    assert len({columns(line[: line.index(" v ")]) for line in matches}) == 1
    # the winner of the final gets a column of their own
    undecided = Bracket("Cup", (bracket.rounds[0], (BracketMatch("ann", "李小龙", "½–½", None),)))
    assert "Winner" not in bracket_text(undecided)
    won, open_ = picture(bracket_png(bracket)), picture(bracket_png(undecided))
    assert won.width > open_.width + bracket_drawing.BRACKET_STYLE.name


def test_rounds_not_given_yet_are_drawn_as_unknown() -> None:
    bracket = knockout(8)
    assert len(bracket.rounds) == 2
    text = bracket_text(bracket)
    assert "Final\n  ?" in text and "Winner" not in text
    empty = Bracket("Nothing yet", ())
    picture(bracket_png(empty))
    assert bracket_text(empty).splitlines()[-1].split() == ["?", "v", "?"]


@pytest.mark.parametrize("name", ODD_NAMES[:5])
def test_an_odd_name_stays_in_its_bracket_line(name: str) -> None:
    widest = bracket_png(knockout(4, first="W" * 60))
    odd = bracket_png(knockout(4, first=name))
    left, top, right, bottom = changed_box(widest, odd)
    style = bracket_drawing.BRACKET_STYLE
    box_top = tables.TITLE_HEIGHT + tables.HEADER_HEIGHT + style.gap / 2
    assert left >= tables.MARGIN + bracket_drawing.BOX_PADDING
    assert right <= tables.MARGIN + bracket_drawing.BOX_PADDING + style.name + 1
    assert box_top <= top and bottom <= box_top + style.line + 1


def test_blank_places_and_scores_stay_blank() -> None:
    row = StandingRow("", "ann", 1.0, (), 0, "")
    text = standings_text(StandingsTable("Table", (), (row,)))
    assert text.splitlines()[3].split() == ["ann", "1", "0"]
    match = BracketMatch("ann", "bob", "  ", None)
    assert bracket_text(Bracket("Cup", ((match,),))).splitlines()[-1].split() == ["ann", "v", "bob"]
    blank, spaces = (
        bracket_png(Bracket("Cup", ((BracketMatch("ann", "bob", score, None),),)))
        for score in ("", "  ")
    )
    assert blank == spaces
