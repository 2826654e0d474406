"""What events are typed as and said in: the formats, the names, the start times, the
tables as text.
"""

from __future__ import annotations

import logging
import re
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from bot.events import (
    LIMITS,
    MATCH_LENGTHS,
    Bye,
    ChallengeRefusal,
    Entrant,
    Finish,
    Format,
    GameResult,
    LadderRules,
    Standings,
    round_robin_standings,
    swiss_standings,
)
from bot.render.tables import Bracket, Crosstable, StandingRow, StandingsTable
from bot.service.core.models import (
    Refused,
    ServiceCode,
    TournamentSummary,
)
from bot.service.core.rules import local_time, zone
from engine import Code
from engine.core import End, shown

log = logging.getLogger("paperboard.tournaments")


#: The formats as typed (format=roundrobin) and what they are.
FORMATS: dict[str, Format] = {
    "roundrobin": Format.ROUND_ROBIN,
    "swiss": Format.SWISS,
    "knockout": Format.KNOCKOUT,
    "league": Format.LEAGUE,
    "ladder": Format.LADDER,
}


FORMAT_WORDS = tuple(FORMATS)


NAME_MOST = 50  # characters of an event's name: it heads every game's thread


ROUNDS_MOST = LIMITS[Format.SWISS].most - 1


MATCH_WORDS = tuple(str(n) for n in MATCH_LENGTHS)


#: The default name of an event of each format: "Swiss Hex".
DEFAULT_NAMES = {
    Format.ROUND_ROBIN: "Round robin",
    Format.SWISS: "Swiss",
    Format.KNOCKOUT: "Knockout",
    Format.LEAGUE: "League",
    Format.LADDER: "Ladder",
}


FINISHES: dict[str, Finish] = {End.TIME: Finish.TIME, End.FORFEIT: Finish.FORFEIT}


def scored_tables(
    row: Any,
    title: str,
    name: Callable[[int], str],
    listed: Sequence[Any],
    finished: Sequence[Any],
    byes: Sequence[Bye],
) -> tuple[tuple[StandingsTable, ...], tuple[Crosstable, ...], Bracket | None]:
    """The tables of a Swiss, a round robin or a league under way or ended, from its
    entrants and its games (`EventStore.event_tables`)."""
    kind = Format(row.format)
    left = Counter(p for r in finished if not r.done for p in (r.first_id, r.second_id))
    withdrawn = {e.player_id for e in listed if e.withdrawn}
    if kind is Format.SWISS:
        standings = swiss_standings(
            as_entrants(listed), [game_result(p) for p in finished if p.done], byes=byes
        )
        return (standings_table(title, standings, name, left, withdrawn),), (), None
    tables: list[StandingsTable] = []
    crosses: list[Crosstable] = []
    divisions: dict[int, list[Any]] = defaultdict(list)
    season = row.round if kind is Format.LEAGUE else None
    for e in listed:
        if kind is Format.ROUND_ROBIN or e.division is not None:
            divisions[e.division or 0].append(e)
    for index in sorted(divisions):
        order = [e.player_id for e in sorted(divisions[index], key=by_place)]
        members = set(order)
        games_of = [
            game_result(p)
            for p in finished
            if p.done
            and (season is None or p.round == season)
            and {p.first_id, p.second_id} <= members
        ]
        standings = round_robin_standings(
            order, games_of, double=row.double, withdrawn=withdrawn & members
        )
        heading = (
            title
            if kind is Format.ROUND_ROBIN
            else (f"{title} · season {season} · division {index + 1}")
        )
        table = standings_table(heading, standings, name, left, withdrawn)
        annulled = tuple(
            StandingRow("", name(p), 0.0, (), 0, "annulled") for p in standings.annulled
        )
        tables.append(StandingsTable(table.title, table.tiebreak_names, table.rows + annulled))
        # the crosstable's rows in the table's order (the annulled last, as seeded)
        ranked = [row.player for row in standings.rows]
        tabled = set(ranked)
        ranked += [p for p in order if p not in tabled]
        crosses.append(cross_table(heading, ranked, games_of, name))
    return tuple(tables), tuple(crosses), None


def iso(moment: Any) -> str | None:
    return None if moment is None else moment.isoformat()


def clean_name(name: object) -> str:
    text = str(name).strip()
    if not text:
        raise Refused("An event needs a name.", code=Code.BAD_OPTION)
    if any(unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") for ch in text):
        raise Refused("An event's name cannot hold control characters.", code=Code.BAD_OPTION)
    if len(text) > NAME_MOST:
        raise Refused(
            f"An event's name has at most {NAME_MOST} characters; this one has {len(text):,}.",
            code=Code.TOO_LONG,
        )
    return text


CLOSED = {"open": "has not started yet", "finished": "is over", "cancelled": "was called off"}


def closed(status: str) -> str:
    return CLOSED.get(status, "is under way")


def standing(listed: Sequence[Any]) -> list[Any]:
    """The entrants who have not withdrawn, in entry order."""
    return [e for e in listed if not e.withdrawn]


def by_place(entry: Any) -> tuple[int, int]:
    return (entry.place if entry.place is not None else 1 << 30, entry.seq)


def as_entrants(listed: Sequence[Any]) -> list[Entrant]:
    return [Entrant(e.player_id, e.rating, e.withdrawn) for e in listed]


def game_result(p: Any) -> GameResult:
    return GameResult(p.round, p.first_id, p.second_id, p.winner_id, Finish(p.finish))


def points_text(value: float) -> str:
    whole_part = int(value)
    half = value - whole_part >= 0.5
    if half:
        return f"{whole_part}½" if whole_part else "½"
    return str(whole_part)


def result_words(p: Any, names: Mapping[int, str]) -> str:
    if p.winner_id is None:
        return "both forfeited" if p.finish == Finish.FORFEIT else "drawn"
    how = {"time": " on time", "forfeit": " by forfeit"}.get(p.finish or "", "")
    return f"{names.get(p.winner_id, '?')} won{how}"


def standings_table(
    title: str,
    standings: Standings,
    name: Any,
    left: Mapping[int, int],
    withdrawn: set[int],
) -> StandingsTable:
    shared = Counter(s.place for s in standings.rows)
    rows = tuple(
        StandingRow(
            f"={s.place}" if shared[s.place] > 1 else str(s.place),
            name(s.player),
            s.points,
            s.tiebreaks,
            left.get(s.player, 0),
            "withdrawn" if s.player in withdrawn else "",
        )
        for s in standings.rows
    )
    return StandingsTable(title, standings.tiebreaks, rows)


def cross_table(
    title: str, order: Sequence[int], results: Sequence[GameResult], name: Any
) -> Crosstable:
    cells: dict[tuple[int, int], str] = defaultdict(str)
    for r in results:
        for player in r.players:
            cells[player, r.opponent(player)] += points_text(r.points(player))
    return Crosstable(
        title,
        tuple(name(p) for p in order),
        tuple(tuple("×" if a == b else cells[a, b] for b in order) for a in order),
    )


def standings_text(table: StandingsTable) -> str:
    """The table in characters (the console's; bot/render/tables.py draws the picture)."""
    head = ["#", "player", "points", *table.tiebreak_names, "left"]
    body = [
        [
            row.place,
            row.name + (f" ({row.note})" if row.note else ""),
            points_text(row.score),
            *(f"{value:g}" for value in row.tiebreaks),
            *([""] * (len(table.tiebreak_names) - len(row.tiebreaks))),  # annulled: none
            str(row.games_left),
        ]
        for row in table.rows
    ]
    return table.title + "\n" + columns([head, *body])


def crosstable_text(table: Crosstable) -> str:
    head = ["", *(str(i) for i in range(1, len(table.names) + 1))]
    body = [
        [f"{i}. {name}", *(cell or "·" for cell in table.cells[i - 1])]
        for i, name in enumerate(table.names, 1)
    ]
    return table.title + "\n" + columns([head, *body])


def bracket_text(bracket: Bracket) -> str:
    lines = [bracket.title]
    for number, matches in enumerate(bracket.rounds, 1):
        lines.append(f"round {number}:")
        for m in matches:
            top = m.top or "?"
            bottom = m.bottom or "bye"
            mark = ("  <" if m.winner == 0 else "", "  <" if m.winner == 1 else "")
            lines.append(f"  {top}{mark[0]} v {bottom}{mark[1]}  {m.score}")
    return "\n".join(lines)


def columns(rows: Sequence[Sequence[str]]) -> str:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join(
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in rows
    )


RELATIVE = re.compile(r"in\s+(\d{1,3})\s+(hour|day|week)s?", re.IGNORECASE)


RELATIVE_UNITS = {"hour": timedelta(hours=1), "day": timedelta(days=1), "week": timedelta(weeks=1)}


def start_time(text: str, zone_name: str | None, now: datetime) -> datetime:
    """An event's start as typed: "2026-12-01T18:00" (or "2026-12-01 18:00") in the
    organizer's time zone, or "in 3 days" (hours, days, weeks) from `now`."""
    typed = " ".join(str(text).split())
    relative = RELATIVE.fullmatch(typed)
    if relative is not None:
        return now + int(relative[1]) * RELATIVE_UNITS[relative[2].lower()]
    try:
        moment = datetime.fromisoformat(typed)
    except ValueError:
        raise Refused(
            f"{shown(typed)} is not a start time; try 2026-12-01T18:00 or in 3 days.",
            code=Code.BAD_OPTION,
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=zone(zone_name))
    return moment


def start_words(
    summary: TournamentSummary, moment: Callable[[datetime], str] = lambda t: local_time(t, None)
) -> str:
    """The limit and the start of an open event, for its sign-up: "At most 16 players;
    starts when 8 have joined, or at 01 Dec 18:00 CET." (`moment` writes the time).
    Empty when neither is set."""
    parts = []
    if summary.max_players is not None:
        parts.append(f"At most {summary.max_players:,} players")
    starts = []
    if summary.start_players is not None:
        starts.append(f"when {summary.start_players} have joined")
    if summary.starts_at is not None:
        starts.append(f"at {moment(summary.starts_at)}")
    if starts:
        parts.append("starts " + ", or ".join(starts))
    if not parts:
        return ""
    sentence = "; ".join(parts)
    return sentence[0].upper() + sentence[1:] + "."


def challenge_refused(
    refusal: ChallengeRefusal, title: str, them: str, rules: LadderRules
) -> Refused:
    """One plain sentence for a ladder challenge not allowed."""
    sentences = {
        ChallengeRefusal.NOT_ON_LADDER: (f"You are not on {title}.", ServiceCode.NOT_ENTERED),
        ChallengeRefusal.TARGET_NOT_ON_LADDER: (
            f"{them} is not on {title}.",
            ServiceCode.NOT_ENTERED,
        ),
        ChallengeRefusal.SELF: ("You cannot challenge yourself.", ServiceCode.SELF_CHALLENGE),
        ChallengeRefusal.NOT_ABOVE: (
            f"{them} stands below you on {title}: challenge a player above you.",
            ServiceCode.OUT_OF_REACH,
        ),
        ChallengeRefusal.OUT_OF_REACH: (
            f"{them} is out of reach: you may challenge up to {rules.reach} places above you.",
            ServiceCode.OUT_OF_REACH,
        ),
        ChallengeRefusal.BUSY: (
            "You have an open ladder challenge already: it is played or forfeited first.",
            ServiceCode.BUSY,
        ),
        ChallengeRefusal.TARGET_BUSY: (
            f"{them} has an open ladder challenge already.",
            ServiceCode.BUSY,
        ),
    }
    sentence, code = sentences[refusal]
    return Refused(sentence, code=code)


def ordinal(number: int) -> str:
    """1st 2nd 3rd 4th ... 11th 12th 13th ... 21st."""
    if 10 <= number % 100 <= 20:
        return f"{number}th"
    return f"{number}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(number % 10, 'th') }"
