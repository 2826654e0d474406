"""Events as sentences, one formatter for every adapter.

Adapters pass how to mention a player (`<@id>` on Discord, `@name` in a
terminal) and how to show a time: `when(moment, zone)`, where `zone` is the time
zone of the player the time is for (their deadline, their vacation), or None when
it is for whoever reads. Discord writes a timestamp each reader sees in their own
zone; a terminal writes `local_time(moment, zone)`, in the asker's zone for None.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

import engine
from bot.service.clocks import PRESETS, bank_text
from bot.service.core.levels import bot_name, levels_text
from bot.service.core.models import (
    DAYS_PER_MOVE,
    BotThinking,
    ChallengeClosed,
    ChallengeIssued,
    ConditionalLines,
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
    PlayerSettings,
    RatingLine,
    Refused,
    Reminder,
    SeatTaken,
    ServiceCode,
    TimedOut,
    TournamentNews,
    TurnStarted,
    UndoAnswered,
    UndoRequested,
)
from bot.service.core.rules import option_word, options_text
from engine import End

Mention = Callable[[int], str]
NO_CLOCK = "none"  # the days-per-move word for no clock
#: How alike a typed word and a name must be to suggest the name (difflib's ratio).
CLOSE_ENOUGH = 0.75
When = Callable[[datetime, str | None], str]  # a moment, and the zone of whom it is for

#: How a game was won, after "wins": a sentence for every way of ending that has a
#: winner (each game's `GameInfo.ends`, and the service's own: engine.core.SERVICE_ENDS).
#: `{their}` is the winners' possessive ("your" told to a winner).
REASONS: dict[str, str] = {
    End.CONNECTION: "by connecting {their} edges",
    End.LAST_WIRE: "because the opponent connected the last wire",
    End.LOOP: "by closing a loop",
    End.NO_CONNECTORS: "because the opponent has no connector left",
    End.BASE_REACHED: "by reaching a base",
    End.POINTS: "on points",
    End.RESIGNATION: "by resignation",
    End.TIME: "on time",
    End.FORFEIT: "by forfeit (the opponent left the event)",
}
#: The ways of ending that are always draws, named by their own words: "Livewire #3
#: ends in a draw (passes)."
DRAWS = frozenset({End.PASSES, End.TURN_LIMIT})


def thread_title(game: GameSummary) -> str:
    """The name of a game's thread: "Hex #12: ann vs bob", or for a game of an event
    "Spring Hex · round 2 · ann v bob" (at most 100 characters, Discord's limit)."""
    if game.event is not None:
        names = " v ".join(s.name or "?" for s in game.seats)
        return f"{game.event} · {names}"[:100]
    names = " vs ".join(s.name or "?" for s in game.seats)
    return f"{game.title} #{game.id}: {names}"[:100]


def describe(
    event: Event, game: GameSummary, mention: Mention, when: When, *, reader: int | None = None
) -> str:
    """One line for the game's thread (or the terminal), or for one `reader` (a mail): then
    the reader is "you", their verbs agree ("you win") and they are told, not called."""
    title = f"{game.title} #{game.id}"
    voice = Voice(mention, reader)
    match event:
        case ChallengeIssued(challenger=challenger, invited=invited, open_seats=open_seats):
            # the bot's seats are named too: it sat down at once, but it is the opponent
            bots = tuple(s.player_id for s in game.seats if s.bot is not None and s.player_id)
            named = invited + bots
            clock = game_clock_text(game)
            kind = "rated" if game.rated else "casual"
            whom = voice.names(named) or "anyone"
            chosen = options_text(game.options)
            terms = ", ".join(part for part in (chosen, clock, kind) if part)
            text = f"{voice.does(challenger.id, 'challenges')} {whom} to {title} ({terms})."
            if named and open_seats:
                text += f" {open_seats} more seat{'s' if open_seats > 1 else ''} open to anyone."
            if game.expires_at is not None:
                text += f" The challenge expires {when(game.expires_at, None)}."
            return text
        case SeatTaken(player=player):
            return f"{voice.does(player.id, 'takes')} a seat in {title}."
        case ChallengeClosed(status="declined", by=by):
            return f"{voice.does(by or 0, 'declined')} the challenge to {title}."
        case ChallengeClosed(status="cancelled"):
            return f"The challenge to {title} was cancelled."
        case ChallengeClosed(status="expired"):
            return f"The challenge to {title} expired unanswered."
        case ChallengeClosed(status="aborted", by=by):
            return f"{voice.does(by or 0, 'aborted')} {title}."
        case GameStarted(players=seated):
            seats = ", ".join(
                f"{name}: {voice.name(pid)}"
                for name, pid in zip(game.seat_names, seated, strict=False)
            )
            return f"{title} begins. {seats}."
        case MovePlayed(player_id=player_id, texts=("swap",)):
            return f"{voice.does(player_id, 'swapped')}. {_colours(game, player_id, voice)}."
        case MovePlayed(player_id=player_id, texts=texts, passes=passes):
            played = ", ".join(texts)
            extra = " (the next player had no move and passed)" if passes == 1 else ""
            if passes > 1:
                extra = f" ({passes} forced passes followed)"
            return f"{voice.does(player_id, 'played')} {played}{extra}."
        case TurnStarted(player_id=player_id) if bot_name(player_id) is not None:
            return f"{mention(player_id)} is thinking about its move in {title}."
        case BotThinking(ahead=ahead, seconds=seconds):
            wait = f"{seconds} seconds" if seconds < 90 else f"{round(seconds / 60)} minutes"
            return (
                f"The bot is busy: {ahead} search{'es' if ahead > 1 else ''} "
                f"came first. Expect its move in {title} in about {wait}."
            )
        case TurnStarted(player_id=player_id, deadline=deadline):
            due = f" Due {when(deadline, game.zone_of(player_id))}." if deadline else ""
            if reader not in (None, player_id):  # told to another player: whose move it is
                return f"It is {voice.name(player_id)}'s move in {title}.{due}"
            if deadline and player_id in game.away:
                due = " Your clock is stopped while you are on vacation."
            return voice.calls(player_id, f"it is your move in {title}.{due}")
        case GameOver(winners=winners, reason=reason, scores=scores, players=seated):
            how = REASONS.get(reason, f"({reason})").format(their=voice.their(winners))
            if not winners:
                result = f"{title} ends in a draw ({reason})."
            elif len(winners) == 1:
                result = f"{title} is over: {voice.does(winners, 'wins', start=False)} {how}."
            else:
                result = f"{title} is over: {voice.names(winners)} share the win {how}."
            losers = [pid for pid in seated if pid not in winners]
            if winners and losers:
                result += f" {voice.does(losers, 'loses')}."
            if scores is not None:
                result += (
                    " Scores: "
                    + ", ".join(
                        f"{voice.name(pid)} {score}"
                        for pid, score in zip(seated, scores, strict=True)
                    )
                    + "."
                )
            return result
        case Reminder(
            player_id=player_id,
            deadline=deadline,
            vacation_days_spent=spent,
            vacation_days_left=days_left,
        ) if spent:
            due = when(deadline, game.zone_of(player_id))
            days = f"{spent:g} vacation day" + ("" if spent == 1 else "s")
            return voice.calls(
                player_id,
                f"your clock in {title} ran out: {days} of yours "
                f"kept it going ({days_left:g} left this year). Your move is due {due}.",
            )
        case Reminder(player_id=player_id, deadline=deadline):
            due = when(deadline, game.zone_of(player_id))
            return voice.calls(player_id, f"your move in {title} is due {due}.")
        case TimedOut(player_id=player_id):
            return f"{voice.does(player_id, 'ran')} out of time in {title}."
        case UndoRequested(requester=requester, waiting_for=waiting):
            answer = (
                f"{voice.does(waiting, 'may', start=False)} accept or decline"
                if reader is not None  # the reader is told who answers, not called
                else f"{voice.names(waiting)}: accept or decline"
            )
            return (
                f"{voice.does(requester, 'asks')} to take back {voice.their([requester])} "
                f"last move in {title}; {answer}."
            )
        case UndoAnswered(player_id=player_id, accepted=False):
            return f"{voice.does(player_id, 'declined')} the undo in {title}."
        case UndoAnswered(done=True, taken_back=()):  # announced before moves were named
            return f"The last move in {title} was taken back by agreement."
        case UndoAnswered(done=True) as undone:
            return taken_back_text(undone, game, mention, you=reader or 0, place=f" in {title}")
        case UndoAnswered(player_id=player_id):
            return (
                f"{voice.does(player_id, 'accepted')} the undo in {title}; waiting for the others."
            )
        case TournamentNews(text=text):
            return text
        case MailBounced(address=address):
            return bounced_text(address)
        case Digest(player_id=player_id, games=listed):
            count = f"{len(listed)} game{'s' if len(listed) > 1 else ''}"
            zone = game.zone_of(player_id)  # the digest's game is one of theirs
            rows = [
                f"· {line.title}"
                + (f": due {when(line.deadline, zone)}" if line.deadline else "")
                + digest_bank(line)
                for line in listed
            ]
            return "\n".join([voice.calls(player_id, f"your move in {count}:"), *rows])
        case ConditionalPlayed(player_id=player_id, answered=answered, texts=texts, lines_left=n):
            left = (
                ("1 line of yours goes on" if n == 1 else f"{n} lines of yours go on")
                if n
                else "no lines left"
            )
            return voice.calls(
                player_id,
                f"in {title} your opponent played {', '.join(answered)}: "
                f"your conditional line played {', '.join(texts)} for you ({left}).",
            )
        case ConditionalsDropped(player_id=player_id, answered=answered):
            return voice.calls(
                player_id,
                f"in {title} your opponent played {', '.join(answered)}, "
                "which none of your conditional lines expected: they are cleared.",
            )
    return f"{title}: {type(event).__name__}"


@dataclass(frozen=True, slots=True)
class Voice:
    """How a sentence names players: by `mention`, except its `reader` (a mail's), who is
    "you", with verbs that agree ("you win", "ann wins") and told, not called."""

    mention: Mention
    reader: int | None = None

    def name(self, pid: int, *, start: bool = False) -> str:
        if pid != self.reader:
            return self.mention(pid)
        return "You" if start else "you"

    def names(self, pids: Sequence[int], *, start: bool = False) -> str:
        return _join([self.name(pid, start=start and i == 0) for i, pid in enumerate(pids)])

    def does(self, pids: int | Sequence[int], verb: str, *, start: bool = True) -> str:
        """The subject and its verb, given as it follows one other player ("wins"):
        "ann wins", "You win", "ann and bob lose"."""
        group = (pids,) if isinstance(pids, int) else tuple(pids)
        plural = len(group) > 1 or self.reader in group
        return f"{self.names(group, start=start)} {_plural(verb) if plural else verb}"

    def their(self, pids: Sequence[int]) -> str:
        """The possessive of whoever `pids` are: "your" when the reader is among them."""
        return "your" if self.reader in pids else "their"

    def calls(self, pid: int, text: str) -> str:
        """`text` said to `pid` ("your move is due"): called by name in a thread
        ("@ann, your move…"), simply said to the reader ("Your move…")."""
        if pid == self.reader:
            return text[:1].upper() + text[1:]
        return f"{self.mention(pid)}, {text}"


#: Third-person verbs whose other form is not the same word less its "s".
IRREGULAR = {"is": "are", "has": "have", "was": "were"}


def _plural(verb: str) -> str:
    """The form of a third-person verb ("now plays") for "you" or many ("now play"); a
    past tense ("played") or a modal ("may") is the same for everyone."""
    *before, last = verb.split(" ")
    if last in IRREGULAR:
        last = IRREGULAR[last]
    elif last.endswith(("ches", "shes", "sses", "xes", "zes")):
        last = last[:-2]
    elif last.endswith("s") and not last.endswith("ss"):
        last = last[:-1]
    return " ".join([*before, last])


def taken_back_text(
    undone: UndoAnswered, game: GameSummary, mention: Mention, *, you: int = 0, place: str = ""
) -> str:
    """What an undo took back, by whom: "@ann's move c3 and the bot's reply d4 in Hex #1
    were taken back." Against the bot its reply goes too (it would only play it again);
    `you`: the player told, whose moves are "your move"."""
    runs: list[tuple[int, list[str]]] = []  # each player's moves in a row, in order
    for text, pid in zip(undone.taken_back, undone.taken_from, strict=True):
        if runs and runs[-1][0] == pid:
            runs[-1][1].append(text)
        else:
            runs.append((pid, [text]))

    def whose(pid: int) -> str:
        if pid == you:
            return "Your" if pid == runs[0][0] else "your"
        return "the bot's" if bot_name(pid) is not None else f"{mention(pid)}'s"

    parts = [
        f"{whose(pid)} {'move' if i == 0 else 'reply'} {', '.join(texts)}"
        for i, (pid, texts) in enumerate(runs)
    ]
    text = _join(parts)
    asker = runs[0][0] if runs else 0
    agreed = any(s.bot is None and s.player_id not in (asker, None) for s in game.seats)
    verb = "were" if len(parts) > 1 else "was"
    return (
        f"{text[:1].upper()}{text[1:]}{place} {verb} taken back{' by agreement' if agreed else ''}."
    )


def bounced_text(address: str) -> str:
    """What a player is told when mail to their address bounced for good."""
    return (
        f"Mail to {address} bounced, so Paperboard stopped mailing it: "
        "set a new address with /settings email:."
    )


def digest_bank(line: DigestLine) -> str:
    """A digest line's bank clock: " (bank 6d 4h)", or nothing."""
    if line.bank_seconds is None:
        return ""
    return f" (bank {bank_text(timedelta(seconds=line.bank_seconds))})"


def game_clock_text(game: GameSummary) -> str:
    """A game's clock in words: "clock 10d+36h/10d", "3 days per move", "no clock"."""
    if game.time_control is not None:
        return f"clock {game.time_control}"
    return clock_text(game.days_per_move)


def clock_text(days: int | None) -> str:
    """The clock in words: "3 days per move", "1 day per move", or "no clock"."""
    if not days:
        return "no clock"
    return f"{days} day{'s' if days != 1 else ''} per move"


def conditional_text(found: ConditionalLines) -> str:
    """A player's conditional lines in a game, for their eyes only."""
    title = f"{found.game.title} #{found.game.id}"
    note = f"{found.note} " if found.note else ""
    if not found.lines:
        return f"{note}You have no conditional lines in {title}."
    listed = "\n".join(f"{i}. {line}" for i, line in enumerate(found.lines, 1))
    return f"{note}Your conditional lines in {title} (only you see them):\n{listed}"


def away_note(game: GameSummary, mention: Mention) -> str | None:
    """A line for a game's status while any of its players is on vacation."""
    if not game.away:
        return None
    who = _join([mention(pid) for pid in game.away])
    verb = "is" if len(game.away) == 1 else "are"
    return f"{who} {verb} on vacation: clocks stop on their turns."


def _colours(game: GameSummary, swapper: int, voice: Voice) -> str:
    """ "@bob now plays Black, @ann plays White": who has which colour after a swap."""
    seated = sorted(
        (seat for seat in game.seats if seat.player_id is not None),
        key=lambda seat: seat.player_id != swapper,
    )
    return ", ".join(
        f"{voice.does(seat.player_id or 0, 'now plays' if i == 0 else 'plays', start=i == 0)} "
        f"{game.seat_names[seat.seat]}"
        for i, seat in enumerate(seated)
    )


def _join(items: list[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def closest(word: str, names: Iterable[str]) -> str | None:
    """The name a mistyped word most likely meant ("chalenge": "challenge"), if any is close."""
    found = difflib.get_close_matches(word.lower(), list(names), n=1, cutoff=CLOSE_ENOUGH)
    return found[0] if found else None


def unknown_game(name: str) -> Refused:
    """The refusal of a game name that is none of ours, with the name it most likely meant."""
    refusal = engine.registry.unknown_game(name, closest(name, engine.GAMES))
    return Refused(str(refusal), code=refusal.code)


def game_info(name: str) -> engine.GameInfo:
    """The game called `name`; refused (with the name it most likely meant) if none is."""
    info = engine.GAMES.get(name)
    if info is None:
        raise unknown_game(name)
    return info


def rules_card(name: str) -> str:
    """A game's rules card: how to play, how a move is typed, the options, the credit."""
    info = game_info(name)
    players = (
        f"{info.min_players} players"
        if info.min_players == info.max_players
        else f"{info.min_players} to {info.max_players} players"
    )
    lines = [f"{info.title} ({players})", "", info.summary, "", notation_text(name), "", "Options:"]
    for option in info.options.values():
        default = "set from the others" if option.default is None else option_word(option.default)
        lines.append(f"  {option.name}: {option.allowed} (default {default})")
    lines += ["", f"Against the bot (casual): {levels_text()}.", "", clocks_text(), "", info.credit]
    return "\n".join(lines)


def notation_text(name: str) -> str:
    """How a move is typed, with moves of one game's opening as the engine plays them."""
    examples = ", ".join(
        f"{example.move} (move {len(example.before) + 1})"
        for example in engine.notation_examples(name)
    )
    return (
        f"How to type a move: {game_info(name).notation} For example, in one game's "
        f"opening on the default board: {examples}."
    )


def clocks_text() -> str:
    """The clocks a game may have, with the bank clocks' presets by name."""
    presets = ", ".join(f"{name} {control}" for name, control in PRESETS.items())
    days = ", ".join(str(d) for d in DAYS_PER_MOVE)
    return (
        f"Clocks: days per move ({days}) or a bank clock, bank+increment/cap like "
        f"10d+36h/10d; by name: {presets}."
    )


def rating_text(line: RatingLine) -> str:
    """A rating as players read it: "1578", or "1578?" while it is provisional."""
    return f"{line.rating}{'?' if line.provisional else ''}"


def rating_line(line: RatingLine) -> str:
    """A player's standing in one game: "Hex: rating 1578? · 3/5 won · streak +2"."""
    return (
        f"{engine.GAMES[line.game].title}: rating {rating_text(line)} · "
        f"{line.wins}/{line.games} won · streak {line.streak:+d}"
    )


def leaderboard_line(rank: int, name: str, line: RatingLine) -> str:
    """One row of a leaderboard: "1. @ann 1578? · 3/5 won"."""
    return f"{rank}. {name} {rating_text(line)} · {line.wins}/{line.games} won"


def bot_record_lines(
    records: Sequence[tuple[str, str, int, int, int]], *, against: bool = False
) -> list[str]:
    """Casual records against the bot per game and level (AiPlay.bot_records), one line a
    game: the bot's own, "Hex: easy 3 won 1 lost · hard 0 won 2 lost"; a player's
    (`against`), "Hex against the bot: easy 1 won 3 lost"."""
    by_game: dict[str, list[str]] = {}
    for level, game, won, lost, drawn in records:
        tally = f"{level} {won} won {lost} lost" + (f" {drawn} drawn" if drawn else "")
        by_game.setdefault(game, []).append(tally)
    whom = " against the bot" if against else ""
    return [
        f"{engine.GAMES[game].title}{whom}: {' · '.join(tallies)}"
        for game, tallies in by_game.items()
    ]


def settings_line(found: PlayerSettings, when: When) -> str:
    """A player's settings, as /settings and the console's `settings` answer."""
    quiet = f"{found.quiet_hours[0]}:00-{found.quiet_hours[1]}:00" if found.quiet_hours else "off"
    reminders: str = found.reminders
    if reminders == "digest":
        reminders = f"a daily digest at {found.digest_hour}:00"
    away = (
        f"on vacation since {when(found.on_vacation_since, found.time_zone)}"
        if found.on_vacation_since
        else "not on vacation"
    )
    return (
        f"Reminders: {reminders} · time zone {found.time_zone} · quiet hours {quiet} · "
        f"confirm moves {'on' if found.confirm_moves else 'off'} · {away} · "
        f"{_days(found.vacation_days_left)} left this year · bank clocks: weekend "
        f"{found.weekend}, auto-vacation {'on' if found.auto_vacation else 'off'} · "
        f"web profile {'on' if found.web_profile else 'off'}."
    )


def _days(days: float) -> str:
    """Vacation days as a player counts them: "14 vacation days", "13.5 vacation days",
    "1 vacation day" (to a tenth)."""
    number = f"{days:.1f}".removesuffix(".0")
    return f"{number} vacation day{'' if number == '1' else 's'}"


#: Days per move as menus offer them: each number the service takes, and no clock.
DAYS_PER_MOVE_CHOICES = (*(str(days) for days in DAYS_PER_MOVE), NO_CLOCK)


def parse_days(text: str | None, *, unset: str) -> int | str | None:
    """Days per move as typed or chosen: a whole number, "none" (no clock), or `unset`
    (the service's word for "not given": "default" for a challenge, "keep" for a server's
    setting) when nothing was given. The service checks the number is one it offers."""
    if text is None:
        return unset
    word = text.strip().lower()
    if word == NO_CLOCK:
        return None
    if word == unset:
        return unset
    if not word.isdecimal() or len(word) > 4:
        raise Refused(
            f"Days per move is a whole number or {NO_CLOCK}, not {engine.core.shown(text)}.",
            code=ServiceCode.BAD_SETTING,
        )
    return int(word)
