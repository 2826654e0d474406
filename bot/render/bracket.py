"""A knockout's bracket drawn as a picture and as text: rounds side by side, each match
a box, the winners carried forward."""

from __future__ import annotations

from dataclasses import dataclass

from PIL import Image

from bot.render.canvas import Canvas, SpriteCanvas
from bot.render.encode import encode_png
from bot.render.fonts import fit_text
from bot.render.tables import (
    HEADER_HEIGHT,
    HEADER_SIZE,
    MARGIN,
    TITLE_HEIGHT,
    Bracket,
    BracketMatch,
    columns,
    pad,
    picture_name,
    plain_name,
    title_band,
)
from bot.render.theme import DEFAULT_THEME

#: The most first-round matches a bracket draws: 512 players, the knockout's limit.
MOST_FIRST_ROUND = 256


@dataclass(frozen=True)
class _BracketStyle:
    """Sizes of a bracket's pieces: brackets of more than 128 players are drawn smaller."""

    size: float  # the names' text
    line: int  # a name's line in a match box (a box is two)
    gap: int  # between two first-round boxes
    name: int  # the room for a name
    score: int  # the room for the score
    between: int  # between two rounds' columns, where the connectors run


BRACKET_STYLE = _BracketStyle(size=13, line=18, gap=10, name=170, score=58, between=28)
#: 512 players: about 1,900 x 8,280 px.
COMPACT_BRACKET_STYLE = _BracketStyle(size=11, line=14, gap=4, name=130, score=48, between=20)
BOX_PADDING = 6
_BLANK = BracketMatch(None, None, "", None)


def _full_rounds(bracket: Bracket) -> list[list[BracketMatch]]:
    """The rounds as a complete tree: the first round rounded up to a power of two of
    matches, later rounds filled with unknown matches (or cut) to half the round before."""
    first = len(bracket.rounds[0]) if bracket.rounds else 1
    if first > MOST_FIRST_ROUND:
        raise ValueError(
            f"A bracket shows at most {2 * MOST_FIRST_ROUND} players; this one has {2 * first}."
        )
    matches = 1 << max(0, first - 1).bit_length()
    rounds = []
    for index in range(matches.bit_length()):
        given = list(bracket.rounds[index]) if index < len(bracket.rounds) else []
        wanted = matches >> index
        rounds.append((given + [_BLANK] * wanted)[:wanted])
    return rounds


def _round_name(index: int, count: int) -> str:
    return {1: "Final", 2: "Semi-finals", 3: "Quarter-finals"}.get(
        count - index, f"Round {index + 1}"
    )


def _player(match: BracketMatch, side: int, first_round: bool) -> str | None:
    """The name on one line of a match; "bye" for a missing first-round player."""
    name = match.top if side == 0 else match.bottom
    if name is None:
        return "bye" if first_round else None
    return name


def _winner(match: BracketMatch) -> str | None:
    if match.winner not in (0, 1):
        return None
    return match.top if match.winner == 0 else match.bottom


def bracket_png(bracket: Bracket) -> bytes:
    """The bracket as a PNG: a column per round, each match a box of its two players (the
    winner in bold, the loser grey) with the score, joined to the match its winner plays
    next; the winner of the final beside it. Up to 512 players: more is a ValueError."""
    rounds = _full_rounds(bracket)
    byes = bool(bracket.rounds)  # a missing first-round player is a bye
    style = COMPACT_BRACKET_STYLE if len(rounds[0]) > 64 else BRACKET_STYLE
    box = style.name + style.score + 2 * BOX_PADDING
    pitch = 2 * style.line + style.gap
    champion = _winner(rounds[-1][0])
    columns_ = len(rounds) + (1 if champion is not None else 0)
    width = max(2 * MARGIN + columns_ * box + (columns_ - 1) * style.between, 320)
    top = TITLE_HEIGHT + HEADER_HEIGHT
    height = top + pitch * len(rounds[0]) + MARGIN
    theme = DEFAULT_THEME
    canvas = SpriteCanvas(Image.new("RGB", (width, height), theme["paper"]), theme)
    title_band(canvas, bracket.title, width)
    for index, matches in enumerate(rounds):
        left = MARGIN + index * (box + style.between)
        header = _round_name(index, len(rounds))
        canvas.text(
            (left + box / 2, TITLE_HEIGHT + HEADER_HEIGHT / 2), header, HEADER_SIZE, "muted"
        )
        span = pitch << index
        for number_, match in enumerate(matches):
            centre = top + span * (number_ + 0.5)
            _match_box(canvas, style, match, (left, centre), index == 0 and byes)
            if index + 1 < len(rounds):
                _connector(canvas, style, left + box, centre, top + 2 * span * (number_ // 2 + 0.5))
    if champion is not None:
        left = MARGIN + len(rounds) * (box + style.between)
        centre = top + pitch * len(rounds[0]) / 2
        canvas.text(
            (left + box / 2, TITLE_HEIGHT + HEADER_HEIGHT / 2), "Winner", HEADER_SIZE, "muted"
        )
        canvas.rectangle(
            (left, centre - style.line, left + box, centre + style.line),
            "white",
            "win",
            2,
            radius=3,
        )
        name = fit_text(picture_name(champion), style.size + 1, box - 2 * BOX_PADDING, bold=True)
        canvas.text((left + BOX_PADDING, centre), name, style.size + 1, anchor="lm", bold=True)
        canvas.rectangle((left - style.between, centre, left, centre + 1), "grid")
    return encode_png(canvas.image, theme)


def _match_box(
    canvas: Canvas,
    style: _BracketStyle,
    match: BracketMatch,
    at: tuple[float, float],
    first_round: bool,
) -> None:
    left, centre = at
    right = left + style.name + style.score + 2 * BOX_PADDING
    canvas.rectangle(
        (left, centre - style.line, right, centre + style.line), "white", "paper_edge", 1, radius=3
    )
    canvas.rectangle((left + 1, centre, right - 1, centre + 1), "faint")
    for side in (0, 1):
        name = _player(match, side, first_round)
        if name is None:
            continue
        won = match.winner == side
        lost = match.winner in (0, 1) and not won
        colour = (
            "muted" if lost or (first_round and name == "bye" and _missing(match, side)) else "ink"
        )
        words = fit_text(picture_name(name), style.size, style.name, bold=won)
        y = centre + (side - 0.5) * style.line
        canvas.text((left + BOX_PADDING, y), words, style.size, colour, anchor="lm", bold=won)
    if match.score.strip():
        score_left = right - style.score
        canvas.rectangle(
            (score_left, centre - style.line + 1, score_left + 1, centre + style.line - 1), "faint"
        )
        score = fit_text(picture_name(match.score, 12), style.size - 1, style.score - 4)
        canvas.text((score_left + style.score / 2, centre), score, style.size - 1, "muted")


def _missing(match: BracketMatch, side: int) -> bool:
    return (match.top if side == 0 else match.bottom) is None


def _connector(canvas: Canvas, style: _BracketStyle, x: float, y: float, next_y: float) -> None:
    """The line from a match's box to the box of the match its winner plays next."""
    middle = x + style.between / 2
    canvas.rectangle((x, y, middle, y + 1), "grid")
    low, high = sorted((y, next_y))
    canvas.rectangle((middle, low, middle + 1, high + 1), "grid")
    canvas.rectangle((middle, next_y, x + style.between, next_y + 1), "grid")


def _text_match(match: BracketMatch, first_round: bool) -> tuple[str, str, str, str | None]:
    """A match's words for the text: both players ("?" not yet known), score, winner."""
    top, bottom = (_player(match, side, first_round) for side in (0, 1))
    return (
        plain_name(top) if top is not None else "?",
        plain_name(bottom) if bottom is not None else "?",
        plain_name(match.score, 12) if match.score.strip() else "",
        _winner(match),
    )


def bracket_text(bracket: Bracket) -> str:
    """The bracket round by round, a match a line: "ann  v  bob  2–1  → ann"."""
    rounds = _full_rounds(bracket)
    byes = bool(bracket.rounds)
    shown = [
        [_text_match(match, index == 0 and byes) for match in matches]
        for index, matches in enumerate(rounds)
    ]
    every = [line for matches in shown for line in matches]
    name_width = max(max(columns(top), columns(bottom)) for top, bottom, _, _ in every)
    score_width = max(columns(line[2]) for line in every)
    out = [plain_name(bracket.title, 100)]
    for index, matches in enumerate(shown):
        out += ["", _round_name(index, len(rounds))]
        for top, bottom, score, winner in matches:
            line = f"  {pad(top, name_width, 'l')}  v  {pad(bottom, name_width, 'l')}"
            line += f"  {pad(score, score_width, 'l')}"
            if winner is not None:
                line += f"  → {plain_name(winner)}"
            out.append(line.rstrip())
    champion = _winner(rounds[-1][0])
    if champion is not None:
        out += ["", f"Winner: {plain_name(champion)}"]
    return "\n".join(out) + "\n"
