"""The Making Intersections picture: size, what is drawn where, and robustness."""

from __future__ import annotations

import io
import random

import pytest
from PIL import Image

from bot.render import render_png
from bot.render.intersections import (
    LABEL_OFFSET,
    MARGIN,
    RESULT_BOX,
    SEAT_LOOKS,
    SPAN,
    IntersectionsRenderer,
    dot_centre,
    line_width,
    marker_point,
    score_row_box,
    scoring_radius,
    seat_marker_radius,
)
from bot.render.theme import MAX_SIDE, Point
from engine.intersections import IntersectionsState, IntersectionsView
from engine.notation import point
from tests.conftest import game as new_game
from tests.conftest import play
from tests.render_probes import rgb

MAX_BYTES = 300_000
NAMES = ["alice", "bob", "carol", "dave", "eve", "frank", "grace", "heidi"]


def game(players: int = 2, **options: object) -> IntersectionsState:
    return new_game(IntersectionsState, players=players, **options)


def picture(state: IntersectionsState, players: list[str] | None = None) -> Image.Image:
    data = render_png(state, players=players)
    assert len(data) <= MAX_BYTES
    image = Image.open(io.BytesIO(data)).convert("RGB")
    assert max(image.size) <= MAX_SIDE
    return image


def colour_at(image: Image.Image, at: Point) -> tuple[int, int, int]:
    pixel = image.getpixel((round(at[0]), round(at[1])))
    assert isinstance(pixel, tuple)
    return (pixel[0], pixel[1], pixel[2])


def near(found: tuple[int, int, int], key: str, tolerance: int = 24) -> bool:
    return all(abs(a - b) <= tolerance for a, b in zip(found, rgb(key), strict=True))


def along(size: int, start: str, end: str, fraction: float) -> Point:
    """A point `fraction` of the way from dot `start` to dot `end`."""
    (x0, y0), (x1, y1) = dot_centre(size, point(start)), dot_centre(size, point(end))
    return (x0 + (x1 - x0) * fraction, y0 + (y1 - y0) * fraction)


# -- size ---------------------------------------------------------------------------


@pytest.mark.parametrize(("players", "size"), [(2, 6), (2, 3), (8, 12), (3, 4), (4, 12)])
def test_size_and_bytes_at_start_middle_and_end(players: int, size: int) -> None:
    rng = random.Random(size * 10 + players)
    state = game(players, size=size)
    picture(state, NAMES[:players])
    for _ in range(state.segments_per_round - 1):
        state = state.play(rng.choice(state.legal_moves()))
    picture(state, NAMES[:players])
    picture(state.random_playout(rng), NAMES[:players])


# -- what is drawn where ------------------------------------------------------------


def test_segments_are_drawn_in_their_seats_colours_with_their_markers() -> None:
    state = play(game(), "b2-b5", "c3-e3")
    image = picture(state, ["alice", "bob"])
    assert near(colour_at(image, along(6, "b2", "b3", 0.3)), "vermillion")
    assert near(colour_at(image, marker_point(6, point("b2"), point("b5"))), "vermillion")
    # bob's segment, away from its marker and the last-move ring around it
    assert near(colour_at(image, along(6, "d3", "e3", 0.7)), "blue")
    assert near(colour_at(image, marker_point(6, point("c3"), point("e3"))), "blue")


def test_markers_sit_on_unit_edges_never_on_dots() -> None:
    assert marker_point(6, point("b2"), point("b5")) == along(6, "b3", "b4", 0.5)
    assert marker_point(6, point("a1"), point("c1")) == along(6, "a1", "b1", 0.5)
    assert marker_point(6, point("a1"), point("b1")) == along(6, "a1", "b1", 0.5)


def test_the_last_segment_has_a_halo_and_a_ring_around_its_marker() -> None:
    state = play(game(), "b2-b5")
    image = picture(state)
    marker = marker_point(6, point("b2"), point("b5"))
    ring = (marker[0] + seat_marker_radius(6) + 1.5, marker[1])  # beside the vertical line
    assert near(colour_at(image, ring), "last")
    x, y = along(6, "b2", "b3", 0.5)
    assert near(colour_at(image, (x + line_width(6) / 2 + 2, y)), "last")
    # an earlier segment has neither
    later = picture(play(state, "d1-d4"))
    assert near(colour_at(later, (x + line_width(6) / 2 + 2, y)), "paper")
    assert near(colour_at(later, ring), "paper")


def test_a_dot_of_degree_three_gets_the_win_ring() -> None:
    state = play(game(), "b2-b5", "a3-b3")  # b3: passed through (+2) and an end (+1)
    view = state.view()
    assert isinstance(view, IntersectionsView)
    assert view.scoring_dots == (point("b3"),)
    image = picture(state)
    x, y = dot_centre(6, point("b3"))
    assert near(colour_at(image, (x - scoring_radius(6) * 0.75, y)), "win")
    # b4 is only passed through: degree 2, no ring
    x, y = dot_centre(6, point("b4"))
    assert not near(colour_at(image, (x - scoring_radius(6) * 0.75, y)), "win")


def test_coordinates_are_on_all_four_edges() -> None:
    image = picture(game(size=7)).convert("L")
    paper = sum(rgb("paper")) / 3
    first, last = MARGIN - LABEL_OFFSET, MARGIN + SPAN + LABEL_OFFSET
    for x, y in [
        (dot_centre(7, point("a1"))[0], first),
        (dot_centre(7, point("g1"))[0], last),
        (first, dot_centre(7, point("a1"))[1]),
        (last, dot_centre(7, point("a7"))[1]),
    ]:
        box = (round(x) - 6, round(y) - 7, round(x) + 6, round(y) + 7)
        darkest, _ = image.crop(box).getextrema()
        assert isinstance(darkest, int) and darkest < paper - 80, (x, y)


def test_a_just_finished_round_stays_on_the_board_with_its_result() -> None:
    state = game()
    rng = random.Random(7)
    for _ in range(state.segments_per_round):
        state = state.play(rng.choice(state.legal_moves()))
    view = state.view()
    assert isinstance(view, IntersectionsView)
    assert view.segments == () and view.finished_round is not None
    image = picture(state)
    for segment in view.finished_round.segments:
        colour = SEAT_LOOKS[segment.seat][0]
        assert near(colour_at(image, marker_point(6, segment.start, segment.end)), colour)
    left, top, right, _ = RESULT_BOX
    assert near(colour_at(image, ((left + right) / 2, top + 0.5)), "win", tolerance=40)
    # the next move starts the new round on an empty array: no result box
    after = picture(state.play(rng.choice(state.legal_moves())))
    assert not near(colour_at(after, ((left + right) / 2, top + 0.5)), "win", tolerance=40)


def test_the_winners_rows_are_highlighted_at_the_end() -> None:
    final = game(3).random_playout(random.Random(3))
    assert final.outcome is not None
    image = picture(final, NAMES[:3])
    for seat in range(3):
        left, top, _, bottom = score_row_box(3, seat)
        found = colour_at(image, (left + 4, (top + bottom) / 2))
        assert near(found, "win") == (seat in final.outcome.winners)


def test_every_seat_has_its_own_colour_and_marker() -> None:
    styles = IntersectionsRenderer().seat_styles(game(8))
    assert len({style.colour for style in styles}) == 8
    assert len({style.marker for style in styles}) == 8


def test_status_line_names_round_and_result() -> None:
    renderer = IntersectionsRenderer()
    state = game(3)
    assert renderer.status_line(state, state.view()) == "Player 1 to move · round 1/3"
    final = state.random_playout(random.Random(1))
    assert final.outcome is not None
    words = renderer.status_line(final, final.view())
    assert "win" in words and str(max(final.scores)) in words


# -- robustness ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "options"),
    [
        (2, {}),
        (2, {"size": 3}),
        (3, {"size": 5, "segments": 6, "rounds": 6}),
        (5, {"size": 8}),
        (7, {"size": 12, "segments": 119}),
        (8, {"size": 4, "segments": 8}),
    ],
)
def test_random_positions_render(players: int, options: dict[str, object]) -> None:
    rng = random.Random(players)
    for trial in range(6):
        state = game(players, **options)
        for _ in range(rng.randrange(0, 3 * state.segments_per_round)):
            if state.outcome is not None:
                break
            state = state.play(rng.choice(state.legal_moves()))
        names = NAMES[:players] if trial % 2 else None
        picture(state, names)
