"""Sentences told to their reader: a mail names its reader "you", and every verb agrees."""

from __future__ import annotations

import dataclasses
import re
from datetime import UTC, datetime

import pytest

from bot.service import describe
from bot.service.core.levels import LEVELS
from bot.service.core.messages import Mention
from bot.service.core.models import (
    BotThinking,
    ChallengeClosed,
    ChallengeIssued,
    ConditionalPlayed,
    ConditionalsDropped,
    Digest,
    DigestLine,
    Event,
    GameOver,
    GameStarted,
    GameSummary,
    MailBounced,
    MovePlayed,
    Player,
    Reminder,
    Seat,
    SeatTaken,
    TimedOut,
    TournamentNews,
    TurnStarted,
    UndoAnswered,
    UndoRequested,
)
from bot.service.core.rules import result_text

ANN, BOB, CAT = 101, 102, 103
SOON = datetime(2026, 3, 1, 9, tzinfo=UTC)
NAMES = {ANN: "ann", BOB: "bob", CAT: "cat"}
#: Words ending in s that may follow "you" and are no verb made third person.
NOT_VERBS = frozenset({"as", "this", "plus"})


def game(*players: int, status: str = "active") -> GameSummary:
    seats = tuple(Seat(i, pid, NAMES.get(pid, "Paperboard"), True) for i, pid in enumerate(players))
    return GameSummary(
        id=7, game="hex", title="Hex", options={}, status=status,  # type: ignore[arg-type]
        guild_id=1, channel_id=1, thread_id=None, message_id=None, seats=seats, ply=3,
        to_move=0, days_per_move=3, rated=True, first="random",  # type: ignore[arg-type]
        challenger_id=players[0], created_at=SOON, expires_at=SOON, deadline=SOON,
        seat_names=("Red", "Blue", "Green")[: len(players)],
    )  # fmt: skip


def events(subject: int, other: int) -> list[Event]:
    """Every kind of event `describe` says, with `subject` doing it to `other`."""
    line = DigestLine(7, 1, "Hex #7", None, SOON)
    return [
        ChallengeIssued(7, Player(subject, NAMES.get(subject, "Paperboard")), (other,), 0),
        ChallengeIssued(7, Player(subject, NAMES.get(subject, "Paperboard")), (other,), 1),
        SeatTaken(7, Player(subject, NAMES.get(subject, "Paperboard"))),
        ChallengeClosed(7, "declined", subject),
        ChallengeClosed(7, "cancelled", subject),
        ChallengeClosed(7, "expired", None),
        ChallengeClosed(7, "aborted", subject),
        GameStarted(7, (subject, other)),
        MovePlayed(7, subject, 2, ("swap",)),
        MovePlayed(7, subject, 3, ("c3",)),
        MovePlayed(7, subject, 3, ("c3",), passes=2),
        TurnStarted(7, subject, SOON),
        TurnStarted(7, subject, None),
        BotThinking(7, 2, 30),
        GameOver(7, (subject,), "connection", None, (subject, other)),
        GameOver(7, (subject,), "resignation", (3, 1), (subject, other)),
        GameOver(7, (subject, other), "points", None, (subject, other)),
        GameOver(7, (), "passes", None, (subject, other)),
        Reminder(7, subject, SOON, "email"),
        Reminder(7, subject, SOON, "email", 1.5, 3),
        TimedOut(7, subject),
        UndoRequested(7, subject, (other,), 3),
        UndoAnswered(7, subject, False, False, 3),
        UndoAnswered(7, subject, True, False, 3),
        UndoAnswered(7, subject, True, True, 2, ("c3",), (other,)),
        UndoAnswered(7, subject, True, True, 1, ("c3", "d4"), (other, subject)),
        UndoAnswered(7, subject, True, True, 2),
        TournamentNews(7, 1, "round", "Round 2 of Spring Hex begins."),
        MailBounced(7, subject, "ann@example.test"),
        Digest(7, subject, (line, line)),
        ConditionalPlayed(7, subject, ("c3",), ("d4",), 1),
        ConditionalPlayed(7, subject, ("c3",), ("d4",), 0),
        ConditionalsDropped(7, subject, ("c3",)),
    ]


def mistakes(text: str) -> list[str]:
    """What reads as written for someone else (`miswritten`), or a sentence that begins
    with "you" uncapitalised."""
    sentences = re.split(r"(?<=[.!?])\s+|\n", text)
    return miswritten(text) + [s for s in sentences if re.match(r"you\b|your\b", s)]


def miswritten(text: str) -> list[str]:
    """What reads as written for someone else: "you wins", "you is", "you, it is your
    move" (a vocative: the reader is told, not called)."""
    found = [
        m.group(0)
        for m in re.finditer(r"\byou (\w+s)\b", text, re.IGNORECASE)
        if m.group(1).lower() not in NOT_VERBS
    ]
    found += re.findall(r"\byou (?:is|has|was)\b", text, re.IGNORECASE)
    found += re.findall(r"(?:^|[.;!?]\s+)you,", text, re.IGNORECASE)
    found += re.findall(r"\byou's\b|\bthey (?:is|has|was)\b", text, re.IGNORECASE)
    return found


def mail_mention(reader: int, g: GameSummary) -> Mention:
    """How a mail to `reader` names players."""
    names = {s.player_id: s.name for s in g.seats}
    return lambda pid: "you" if pid == reader else names.get(pid, "someone")


@pytest.mark.parametrize("against_bot", [False, True])
def test_every_sentence_a_mail_tells_its_reader_is_written_for_them(against_bot: bool) -> None:
    bot = next(iter(LEVELS.values())).id
    other = bot if against_bot else BOB
    g = game(ANN, other)
    said = []
    for reader, subject, obj in ((ANN, ANN, other), (ANN, other, ANN)):
        for event in events(subject, obj):
            text = describe(event, g, mail_mention(reader, g), lambda t, z: "soon", reader=reader)
            said.append(text)
            assert not mistakes(text), (event, text)
    assert "You challenge bob to Hex #7" in said[0] or against_bot
    assert "It is your move in Hex #7. Due soon." in said


def test_a_mail_names_the_reader_you_and_the_others_by_name() -> None:
    g = game(ANN, BOB, CAT)
    tell = {e.__class__.__name__ + str(i): e for i, e in enumerate(events(ANN, BOB))}

    def to(reader: int, event: Event) -> str:
        return describe(event, g, mail_mention(reader, g), lambda t, z: "soon", reader=reader)

    assert to(ANN, tell["SeatTaken2"]) == "You take a seat in Hex #7."
    assert to(BOB, tell["SeatTaken2"]) == "ann takes a seat in Hex #7."
    assert to(ANN, tell["GameOver14"]) == (
        "Hex #7 is over: you win by connecting your edges. bob loses."
    )
    assert to(BOB, tell["GameOver14"]) == (
        "Hex #7 is over: ann wins by connecting their edges. You lose."
    )
    assert to(BOB, tell["TurnStarted11"]) == "It is ann's move in Hex #7. Due soon."
    assert to(BOB, tell["UndoRequested21"]) == (
        "ann asks to take back their last move in Hex #7; you may accept or decline."
    )
    assert to(ANN, tell["UndoRequested21"]) == (
        "You ask to take back your last move in Hex #7; bob may accept or decline."
    )
    assert to(ANN, tell["MovePlayed8"]) == (
        "You swapped. You now play Red, bob plays Blue, cat plays Green."
    )
    assert to(ANN, tell["Reminder18"]) == "Your move in Hex #7 is due soon."


def test_the_result_line_of_a_mail_tells_its_reader() -> None:
    over = dataclasses.replace(
        game(ANN, BOB), status="finished", winners=(0,), reason="resignation"
    )
    assert result_text(over) == "Result: ann wins (resignation)."
    assert result_text(over, reader=ANN) == "Result: you win (resignation)."
    assert result_text(over, reader=BOB) == "Result: ann wins (resignation)."


def test_a_thread_or_a_terminal_calls_players_by_their_mentions() -> None:
    """With no reader (Discord's threads, the console), every player is mentioned and
    the one whose turn it is is called by their mention."""
    g = game(ANN, BOB)
    said = [describe(e, g, lambda p: f"<@{p}>", lambda t, z: "soon") for e in events(ANN, BOB)]
    assert not re.search(r"\bYou\b|\byou (?!are\b)\w", " ".join(said))  # no one is "you"
    assert "<@101> takes a seat in Hex #7." in said
    assert "<@101>, it is your move in Hex #7. Due soon." in said
    assert "Hex #7 is over: <@101> wins by connecting their edges. <@102> loses." in said
    assert "<@101> asks to take back their last move in Hex #7; <@102>: accept or decline." in (
        said
    )
