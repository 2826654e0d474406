"""The console: the same commands as on Discord, typed in a terminal.

Several local players share one terminal (`as bob` switches), one SQLite store,
one pretend server. Every board is saved as a PNG (its path printed) and drawn
in characters. When standard input is not a terminal the commands are read
from it, so a whole game can be piped in; end of input ends the session.

The bot: at a terminal the AI runner's own loop plays its moves while the player
types on (they are printed as they come, as Discord posts them). Piped input is
a script: each line waits for the bot's moves it set off before the next line
is read, so a script's transcript is the same on every run.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import shlex
import sys
import unicodedata
import zlib
from collections.abc import Awaitable, Callable, Iterable, Iterator
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import TextIO, TypeVar

import engine
from bot.console.numbers import event_number, named_game, whole_number
from bot.console.vocabulary import ACTIONS_OF, KEYS, PARAMS, help_lines, no_command, typed_here
from bot.schedule.airunner import AiRunner
from bot.service import (
    DEFAULT_LEVEL,
    LEVELS,
    Event,
    GameService,
    GameSummary,
    MovePreview,
    MoveResult,
    Place,
    Player,
    Refused,
    Result,
    ServiceCode,
    TournamentResult,
    UndoAnswered,
    away_note,
    banks_text,
    bot_record_lines,
    clock_text,
    closest,
    conditional_text,
    describe,
    leaderboard_line,
    local_time,
    only_game,
    parse_days,
    rating_line,
    rules_card,
    settings_line,
    shown,
)
from bot.web.links import WebLinks

log = logging.getLogger("paperboard.console")

#: The console plays as one pretend server and channel.
GUILD, CHANNEL = 0, 0
#: `@ai` in a challenge is a seat for the bot (at `level=`, medium by default).
BOT_NAME = "ai"
#: The names `rating` reads as the bot: @ai, @Paperboard, "@Paperboard (easy)"...
BOT_NAMES = {BOT_NAME, "paperboard", *(f"paperboard ({level})" for level in LEVELS)}
#: How long a line waits for the bot (its move, for piped input; a hint; an analysis).
BOT_WAIT_SECONDS = 600.0
AI_POLL_SECONDS = 0.2  # how often a wait for the bot looks whether it is done
PROGRESS_SECONDS = 3.0  # how often an analysis under way says how far it got
#: Moves without a digit that may be typed bare, like "d5".
BARE_WORD_MOVES = {"swap", "pass"}  # "pass" gets the engine's sentence: it is never typed
CONDITIONAL_ACTIONS = PARAMS["conditional"]["action"].choices
#: The console's setting words (short forms too) and the service's names for them.
SETTING_NAMES = KEYS["settings"]
EXPORT_FORMATS = PARAMS["export"]["format"].choices
BOOLEAN_WORDS = {"yes": True, "on": True, "true": True, "no": False, "off": False, "false": False}
UNDO_ANSWERS = ("accept", "decline")
#: A word that reads as a player's name (after @ in a challenge) or a board size.
NAME_LIKE = re.compile(r"[^\W\d][\w.\-]{0,31}")
SIZE_LIKE = re.compile(r"\d{1,3}(x\d{1,3})?", re.IGNORECASE)

Handler = Callable[[list[str], str], Awaitable[None]]
T = TypeVar("T")


def player_id(name: str) -> int:
    """A local player's id, the same for the same name in every session."""
    return 1_000_000 + zlib.crc32(name.strip().lower().encode())


class Console:
    def __init__(
        self, service: GameService, out: TextIO, board_dir: Path, runner: AiRunner | None = None
    ) -> None:
        self.service = service
        self.runner = runner  # the bot's moves, driven from here (none: nobody plays the bot)
        self.out = out
        self.board_dir = board_dir
        self.me = Player(player_id("player"), "player")
        self.zone: str | None = None  # the time zone of `me`: the times they read are in it
        self.names: dict[int, str] = {self.me.id: self.me.name}
        self.source: Iterator[str] | None = None  # piped lines; None: standard input
        self.interactive = False  # at a terminal: the bot moves while the player types
        self.reading: str | None = None  # the prompt while a line is read from the terminal
        self.asides = 0  # output under way that came while a line was being read
        self.answering = False  # a command is under way: the bot's moves wait for its answer
        self.held: list[Result] = []  # the bot's moves that came while a command was answered
        self.handlers: dict[str, Handler] = {
            "challenge": self.challenge,
            "accept": self.accept,
            "decline": self.decline,
            "join": self.join,
            "cancel": self.cancel,
            "move": self.move,
            "board": self.board,
            "games": self.games,
            "next": self.next_game,
            "resign": self.resign,
            "abort": self.abort,
            "undo": self.undo,
            "rematch": self.rematch,
            "record": self.record,
            "export": self.export,
            "web": self.web,
            "conditional": self.conditional,
            "analysis": self.analysis,
            "hint": self.hint,
            "rules": self.rules,
            "rating": self.rating,
            "leaderboard": self.leaderboard,
            "settings": self.settings,
            "config": self.config,
            "tournament create": self.tournament_create,
            "tournament join": self.tournament_join,
            "tournament leave": self.tournament_leave,
            "tournament start": self.tournament_start,
            "tournament standings": self.tournament_standings,
            "tournament pairings": self.tournament_pairings,
            "tournament withdraw": self.tournament_withdraw,
            "tournament list": self.tournament_list,
            "tournament cancel": self.tournament_cancel,
            "tournament add-bot": self.tournament_add_bot,
            "tournament export": self.tournament_export,
            "tournament challenge": self.tournament_challenge,
            "tournament accept": self.tournament_accept,
            "tournament decline": self.tournament_decline,
            "as": self.act_as,
            "help": self.help,
        }

    # -- the loop -------------------------------------------------------------------

    async def run(self, lines: Iterable[str] | None = None, *, interactive: bool = False) -> None:
        """Read commands until `quit` or the end of input. `interactive` (a terminal): a
        prompt, and the bot thinks while the player types; otherwise each line waits for
        the bot's moves it set off."""
        self.say("Paperboard console. Type help for the commands, quit to leave.")
        self.source = iter(lines) if lines is not None else None
        self.zone = await self.service.lookups.time_zone(self.me.id)
        self.interactive = interactive
        if interactive and self.runner is not None:
            await self.runner.start()  # its loop plays the bot; bot_moved prints each move
        else:
            await self.bot_turns()  # a move the bot owed when the last session ended
        while True:
            line = await self.read_line(f"{self.me.name}> " if interactive else None)
            if line is None or not await self.handle(line):
                return

    async def read_line(self, prompt: str | None) -> str | None:
        """The next line typed or piped in; None at the end of input."""
        if prompt is not None:
            self.out.write(prompt)
            self.out.flush()
        if self.source is not None:
            return next(self.source, None)
        self.reading = prompt or ""
        try:
            line = await asyncio.to_thread(sys.stdin.readline)
        finally:
            self.reading = None
        # Bytes that are not UTF-8 arrive as lone surrogates, which nothing can encode
        # again (the database, the terminal): make them U+FFFD.
        return line.encode("utf-8", "surrogateescape").decode("utf-8", "replace") or None

    async def handle(self, line: str) -> bool:
        """One command line; False to stop."""
        text = line.strip()
        if not text or (text.startswith("#") and not text[1:2].isdecimal()):
            return True  # a comment ("#12 d5" names a game)
        word, _, rest = text.partition(" ")
        word = word.lower()
        if word in ("quit", "exit"):
            return False
        try:
            words = shlex.split(rest)
        except ValueError as error:
            self.say(f"I can't read that line ({error}).")
            return True
        if word in ACTIONS_OF:  # a command with an action: "tournament join 1"
            action = words[0].lower() if words else ""
            word = f"{word} {action}"
            if word not in self.handlers:
                self.say(
                    f"Say what to do: {text.split()[0].lower()} "
                    f"{', '.join(ACTIONS_OF[text.split()[0].lower()])}."
                )
                return True
            words, rest = words[1:], rest.strip().partition(" ")[2]
        handler = self.handlers.get(word)
        self.answering = True
        try:
            if handler is not None:
                await handler(words, rest.strip())
            elif self.reads_as_move(word, text):
                await self.move([], text)  # a bare move: "d5 g3", "swap", "c3 #12"
            else:
                raise no_command(word, [*self.handlers, "quit"])
            if not self.interactive:
                await self.bot_turns()
                # what followed from the line in the outbox (an event's next round after
                # its last game ended), printed before the next line is read
                await self.service.outbox.redeliver(self.print_result)
        except Refused as refusal:
            self.refused(refusal)
        except Exception:  # a bug must not end the session or lose the games
            log.exception("console command failed: %r", text[:200])
            self.say(
                "Something went wrong with that command; it is logged. "
                "Type games to see where your games stand."
            )
        finally:
            self.answering = False
        while self.held:  # the bot's replies after the move that set them off
            await self.show_bot_move(self.held.pop(0))
        return True

    def reads_as_move(self, word: str, line: str) -> bool:
        """Whether a line that names no command is a bare move: it holds a digit ("d5 g3",
        "c3 #12") or is a move word ("swap"), and its first word is no command mistyped
        ("chalenge hex size=5")."""
        if word in BARE_WORD_MOVES:
            return True
        if not any(ch.isdigit() for ch in line):
            return False
        return any(ch.isdigit() for ch in word) or self.command_meant(word) is None

    def command_meant(self, word: str) -> str | None:
        return closest(word, [*self.handlers, "quit"])

    def refused(self, refusal: Refused) -> None:
        """Say why a command was refused: one sentence, and nothing changed."""
        self.say(refusal.worded(typed_here))

    # -- commands -----------------------------------------------------------------------

    async def challenge(self, words: list[str], _: str) -> None:
        if not words:
            raise Refused("Name a game: challenge hotwire @bob.", code=ServiceCode.USAGE)
        game, *rest = words
        mentioned = [word[1:] for word in rest if word.startswith("@")]
        opponents = [self.player(name) for name in mentioned if name.lower() != BOT_NAME]
        settings = {
            key.replace("-", "_"): value for key, value in (_pair(w) for w in rest if "=" in w)
        }
        # a player by mail: their address, bare (ann@example.org) or as email=
        addresses = [w for w in rest if "@" in w[1:] and not w.startswith("@") and "=" not in w]
        loose = [w for w in rest if not w.startswith("@") and "=" not in w and w not in addresses]
        if loose:
            raise _loose_word(loose[0])
        given = _keyed(settings, "challenge")
        addresses += [given["email"]] if "email" in given else []
        opponents += [await self.service.mail.mail_opponent(GUILD, a) for a in addresses]
        if "level" in given and len(opponents) == len(mentioned):
            raise Refused(
                "level= is for a game against the bot: mention @ai.", code=ServiceCode.USAGE
            )
        options = {k: v for k, v in settings.items() if k not in KEYS["challenge"]}
        result = await self.service.challenges.challenge(
            Place(GUILD, CHANNEL),
            self.me,
            game.lower(),
            opponents=opponents,
            open_seats=whole_number(given.get("open_seats", "0"), "open_seats"),
            options=options,
            days_per_move=parse_days(given.get("days_per_move"), unset="default"),
            first=given.get("first", "random"),
            rated=_bool(given["rated"]) if "rated" in given else None,
            bots=[given.get("level", DEFAULT_LEVEL)] * (len(mentioned) - len(opponents)),
            clock=given.get("clock"),
        )
        await self.announce(result)

    async def accept(self, words: list[str], _: str) -> None:
        game = await self.game_id(words, challenge=True)
        await self.announce(await self.service.challenges.accept(game, GUILD, self.me))

    async def decline(self, words: list[str], _: str) -> None:
        game = await self.game_id(words, challenge=True)
        await self.announce(await self.service.challenges.decline(game, GUILD, self.me))

    async def join(self, words: list[str], _: str) -> None:
        await self.announce(
            await self.service.challenges.join(
                await self.game_id(words, challenge=True), GUILD, self.me
            )
        )

    async def cancel(self, words: list[str], _: str) -> None:
        await self.announce(
            await self.service.challenges.cancel(
                await self.game_id(words, challenge=True), GUILD, self.me
            )
        )

    async def move(self, words: list[str], rest: str) -> None:
        named, tokens = named_game(rest.split())
        text = " ".join(tokens)
        game = named if named is not None else await self.game_to_move()
        if not text:
            example = await self.service.lookups.example_move(game, GUILD, self.me.id)
            if example is not None:  # else the empty move hears why not (whose turn, over)
                raise Refused(f"Type the move: move {example}.", code=ServiceCode.USAGE)
        proposed = await self.service.play.propose_move(game, GUILD, self.me, text)
        if isinstance(proposed, MovePreview):  # the misclick guard: ask first
            self.say(proposed.text)
            self.say(f"Play {proposed.played} in game #{game}? Type y to play it, else n.")
            answer = await self.read_line(None)
            if (answer or "").strip().lower() not in ("y", "yes"):
                self.say(f"Move {proposed.played} not played.")
                return
            proposed = await self.service.play.move(
                game, GUILD, self.me, proposed.move, expected_ply=proposed.ply
            )
        result = proposed
        await self.announce(result)
        await self.show_board(result.game, result.png)

    async def bot_turns(self) -> None:
        """Piped input: let the bot play in every game where it is to move, after any
        command (a move, an accept or a rematch that seats it first, an undo) and at the
        start, before the next line is read. Each of its moves is printed like anyone's."""
        if self.runner is None:
            return
        for game in await self.service.lookups.games(GUILD, status="active"):
            if _bot_to_move(game):
                await self.ai_work(
                    partial(self.service.lookups.game, game.id, GUILD),
                    lambda g: not _bot_to_move(g),
                )

    async def ai_work(self, ask: Callable[[], Awaitable[T]], ready: Callable[[T], bool]) -> T:
        """Ask again until the answer is ready (the bot has moved, a hint or an analysis is
        done), letting the AI runner take what is queued meanwhile (its searches run in
        worker processes; at a terminal its own loop may have taken the job already).
        The last answer, ready or not, after BOT_WAIT_SECONDS."""
        runner = self.runner
        if runner is None:
            raise Refused("Nobody plays the bot in this console.", code=ServiceCode.BUSY)
        deadline = asyncio.get_running_loop().time() + BOT_WAIT_SECONDS
        answer = await ask()
        while not ready(answer) and asyncio.get_running_loop().time() < deadline:
            if not await runner.run_once():
                await asyncio.sleep(AI_POLL_SECONDS)  # another loop or process holds the job
            answer = await ask()
        return answer

    async def game_to_move(self) -> int:
        """The game a move without a number means: your only game on move, else your
        only game under way (so a move out of turn hears whose turn it is), else the
        refusal naming your games."""
        try:
            return (await self.service.lookups.default_game(GUILD, self.me.id, None)).id
        except Refused as refusal:
            if refusal.code != ServiceCode.NO_GAME:
                raise
        return (await self.service.lookups.default_game(GUILD, self.me.id, None, my_turn=False)).id

    async def board(self, words: list[str], _: str) -> None:
        settings = dict(_pair(word) for word in words if "=" in word)
        groups = "groups" in words
        numbers = [w for w in words if "=" not in w and w != "groups"]
        game = await self.game_id(numbers, any_status=True)
        ply = whole_number(settings["ply"], "ply") if "ply" in settings else None
        board = await self.service.lookups.board(
            game, GUILD, ply=ply, groups=groups, viewer_id=self.me.id
        )
        await self.show_board(board.game, board.png, ply=board.ply)

    async def games(self, words: list[str], _: str) -> None:
        whose = next((self.player(w[1:]) for w in words if w.startswith("@")), self.me)
        status = next((w.lower() for w in words if not w.startswith("@")), None)
        listed = await self.service.lookups.games(
            GUILD, player_id=whose.id, status=status, viewer_id=self.me.id
        )
        if not listed:
            self.say(f"No games for {whose.name}.")
        for game in listed:
            self.say(self.game_line(game))

    async def next_game(self, words: list[str], _: str) -> None:
        after = await self.game_id(words) if words else None
        found = await self.service.queue.next_game(GUILD, self.me.id, after=after)
        game = found.game
        due = f", due {self.when(game.deadline)}" if game.deadline else ""
        self.say(
            f"#{game.id} {game.title}: your move{due} "
            f"({found.position} of {found.waiting} waiting for you)"
        )
        await self.show_board(game, found.png)

    async def resign(self, words: list[str], _: str) -> None:
        game = (await self.service.play.may_resign(await self.game_id(words), GUILD, self.me)).id
        self.say(f"Resign game #{game}? Type y to resign, anything else to keep playing.")
        answer = await self.read_line(None)
        if (answer or "").strip().lower() not in ("y", "yes"):
            self.say(f"You did not resign game #{game}.")
            return
        await self.announce(await self.service.play.resign(game, GUILD, self.me))

    async def abort(self, words: list[str], _: str) -> None:
        await self.announce(
            await self.service.play.abort(await self.game_id(words), GUILD, self.me)
        )

    async def undo(self, words: list[str], _: str) -> None:
        """undo [GAME] asks; undo accept|decline [GAME] answers (the game before or after)."""
        answers = [w.lower() for w in words if w.lower() in UNDO_ANSWERS]
        rest = [w for w in words if w.lower() not in UNDO_ANSWERS]
        if len(answers) > 1:
            raise Refused("Answer once: undo accept or undo decline.", code=ServiceCode.USAGE)
        if not answers:  # the game meant: where your last move was
            game = await self.game_id(rest, last_moved=True)
            await self.announce(await self.service.play.request_undo(game, GUILD, self.me))
            return
        answer = answers[0]
        game = await self.game_id(rest, undo_answer=True)
        result = await self.service.play.answer_undo(
            game, GUILD, self.me, accept=answer == "accept"
        )
        await self.announce(result)
        if any(isinstance(e, UndoAnswered) and e.done for e in result.events):
            board = await self.service.lookups.board(game, GUILD)
            await self.show_board(board.game, board.png)

    async def rematch(self, words: list[str], _: str) -> None:
        await self.announce(
            await self.service.challenges.rematch(
                await self.game_id(words, any_status=True), GUILD, self.me
            )
        )

    async def record(self, words: list[str], _: str) -> None:
        game = await self.game_id(words, any_status=True)
        record = await self.service.lookups.record(game, GUILD, self.me.id)
        self.say(record.text)
        gif = await self.service.lookups.replay_gif(game, GUILD)
        path = self.save(f"game-{game}-replay.gif", gif)
        self.say(f"Replay: {path}")

    async def conditional(self, words: list[str], rest: str) -> None:
        """conditional [GAME] [add|list|remove|clear] [LINE] [GAME]: the line is the rest."""
        named, tokens = named_game(rest.split())
        action = tokens[0].lower() if tokens and tokens[0].lower() in CONDITIONAL_ACTIONS else None
        line = " ".join(tokens[1:] if action else tokens) or None
        game = named if named is not None else await self.game_meant(conditional=True)
        found = await self.service.conditionals.conditional(game, GUILD, self.me, action, line)
        self.say(conditional_text(found))

    async def export(self, words: list[str], _: str) -> None:
        fmt = next((w.lower() for w in words if w.lower() in EXPORT_FORMATS), EXPORT_FORMATS[0])
        named, others = named_game([w for w in words if w.lower() not in EXPORT_FORMATS])
        if others:
            raise Refused(
                f"Export game NUMBER as {' or '.join(EXPORT_FORMATS)}, "
                f"not {shown(' '.join(words))}.",
                code=ServiceCode.USAGE,
            )
        game = named if named is not None else await self.game_meant(any_status=True)
        exported = await self.service.exports.export(game, GUILD, fmt)
        path = self.save(exported.filename, exported.data)
        self.say(f"Export: {path}")

    async def web(self, words: list[str], _: str) -> None:
        """web [GAME] [event=N]: the address of a game's page (and its event's), an
        event's, or this server's."""
        named, rest = named_game(words)
        given = _keyed(dict(_pair(w) for w in rest if "=" in w), "web")
        loose = [w for w in rest if "=" not in w or _pair(w)[0] not in KEYS["web"]]
        if loose:
            raise Refused(
                f"Say web, web 12 or web event=1, not {shown(' '.join(words))}.",
                code=ServiceCode.USAGE,
            )
        event = whole_number(given["event"], "event") if "event" in given else None
        for what, url in await WebLinks(self.service).pages(GUILD, game_id=named, event_id=event):
            self.say(f"{what}: {url}")

    async def analysis(self, words: list[str], _: str) -> None:
        game = await self.game_id(words, any_status=True)
        ask = partial(self.service.analysis.analysis, game, GUILD, self.me.id)
        working = asyncio.create_task(self.ai_work(ask, lambda found: found.done))
        while not working.done():
            await asyncio.wait({working}, timeout=PROGRESS_SECONDS)
            if not working.done():
                progress = await ask()
                self.say(f"analysing move {progress.progress}/{progress.total}")
        report = await working
        if not report.done:
            raise Refused("The analysis is queued; ask again in a while.", code=ServiceCode.BUSY)
        path = self.save(f"game-{game}-analysis.png", report.png)
        self.say(f"Analysis of {report.game.title} #{game}:\n{report.text}\nChart: {path}")

    async def hint(self, words: list[str], _: str) -> None:
        game = await self.game_id(words)
        found = await self.ai_work(
            partial(self.service.analysis.hint, game, GUILD, self.me.id),
            lambda hint: hint.move is not None,
        )
        if found.move is None:
            raise Refused(
                "The bot is busy; ask for the hint again in a while.", code=ServiceCode.BUSY
            )
        path = self.save(f"game-{game}-hint.png", found.png)
        self.say(f"The bot would play {found.move}. Board: {path}")

    async def rules(self, words: list[str], _: str) -> None:
        if not words:
            for name, info in engine.GAMES.items():
                self.say(f"{name:<14} {info.title}")
            return
        self.say(rules_card(words[0].lower()))

    async def rating(self, words: list[str], _: str) -> None:
        game = next((w.lower() for w in words if not w.startswith("@")), None)
        named = next((w[1:] for w in words if w.startswith("@")), None)
        if named is not None and named.strip().lower() in BOT_NAMES:  # casual games only
            records = await self.service.play.bot_records(GUILD)
            shown = bot_record_lines([r for r in records if game is None or r[1] == game])
            self.say("\n".join(shown) or "Nobody has finished a game against the bot yet.")
            return
        whose = self.me if named is None else self.player(named)
        lines = await self.service.lookups.ratings(GUILD, whose.id, game)
        casual = await self.service.play.bot_records(GUILD, whose.id)
        said = [rating_line(line) for line in lines] or [f"{whose.name} has no rated games yet."]
        said += bot_record_lines([r for r in casual if game is None or r[1] == game], against=True)
        self.say("\n".join(said))

    async def leaderboard(self, words: list[str], _: str) -> None:
        if not words:
            raise Refused("Name a game: leaderboard hotwire.", code=ServiceCode.USAGE)
        lines = await self.service.lookups.leaderboard(GUILD, words[0].lower())
        if not lines:
            self.say("Nobody has finished a rated game of that yet.")
        for rank, line in enumerate(lines, 1):
            self.say(leaderboard_line(rank, f"@{line.name}", line))

    async def settings(self, words: list[str], _: str) -> None:
        for key, value in map(_pair, words):
            if key not in SETTING_NAMES:
                raise Refused(
                    f"There is no setting {shown(key)}; the settings are "
                    f"{', '.join(sorted(set(SETTING_NAMES.values())))}.",
                    code=ServiceCode.USAGE,
                )
            if not value:
                raise _no_value(key)
        values = {SETTING_NAMES[key]: value for key, value in map(_pair, words)}
        if "email" in values:
            self.say(await self.service.mail.link_email(self.me, values.pop("email")))
        if "email_code" in values:
            self.say(await self.service.mail.confirm_email(self.me, values.pop("email_code")))
        if not values and words:
            return
        vacation = values.get("vacation")
        confirm = values.get("confirm_moves")
        hour = values.get("digest_hour")
        reminders = values.get("reminders")
        auto = values.get("auto_vacation")
        profile = values.get("web_profile")
        settings = await self.service.preferences.player_settings(
            self.me,
            reminders=reminders.lower() if reminders is not None else None,
            time_zone=values.get("time_zone"),
            quiet_hours=values.get("quiet_hours"),
            vacation=_bool(vacation) if vacation is not None else None,
            confirm_moves=_bool(confirm) if confirm is not None else None,
            digest_hour=whole_number(hour, "digest") if hour is not None else None,
            auto_vacation=_bool(auto) if auto is not None else None,
            weekend=values.get("weekend"),
            web_profile=_bool(profile) if profile is not None else None,
        )
        self.zone = settings.time_zone
        self.say(f"{self.me.name} · {settings_line(settings, self.when)}")

    async def config(self, words: list[str], _: str) -> None:
        """The pretend server's settings (whoever types here manages it)."""
        typed = dict(map(_pair, words))
        unknown = [key for key in typed if key not in KEYS["config"]]
        if unknown:
            raise Refused(
                f"There is no server setting {shown(unknown[0])}; the settings are "
                f"{', '.join(sorted(set(KEYS['config'].values())))}.",
                code=ServiceCode.USAGE,
            )
        given = _keyed({k: v for k, v in typed.items() if v}, "config")
        rated, runners, web = given.get("rated"), given.get("tournaments"), given.get("web")
        email = _bool(given["email"]) if "email" in given else None
        found = await self.service.preferences.guild_settings(
            GUILD,
            days_per_move=parse_days(given.get("days_per_move"), unset="keep"),
            rated=_bool(rated) if rated is not None else None,
            tournaments=runners.lower() if runners is not None else None,
            email=email,
            email_channel=CHANNEL if email else None,  # games by mail start in the console
            web=web.lower() if web is not None else None,
        )
        self.say(
            f"This server: {clock_text(found.days_per_move)}; rated games "
            f"{'on' if found.rated else 'off'}; events run by {found.tournaments}; "
            f"{'players by mail play here' if found.email else 'no players by mail'}; "
            f"{WebLinks(self.service).sentence(found)}."
        )

    # -- events -------------------------------------------------------------------------

    async def tournament_create(self, words: list[str], _: str) -> None:
        game = next((w.lower() for w in words if "=" not in w), "")
        loose = [w for w in words if "=" not in w][1:]
        if loose:
            raise _loose_word(loose[0])
        settings = {key.replace("-", "_"): value for key, value in map(_pair, words) if value}
        given = _keyed(settings, "tournament create")
        options = {k: v for k, v in settings.items() if k not in KEYS["tournament create"]}
        rounds, match = given.get("rounds"), given.get("match")
        most, start = given.get("max_players"), given.get("start_players")
        result = await self.service.events.create_tournament(
            Place(GUILD, CHANNEL),
            self.me,
            game,
            format=given.get("format", ""),
            name=given.get("name"),
            options=options,
            rounds=whole_number(rounds, "rounds") if rounds is not None else None,
            match=whole_number(match, "match") if match is not None else None,
            double=_bool(given["double"]) if "double" in given else False,
            days_per_move=parse_days(given.get("days_per_move"), unset="default"),
            rated=_bool(given["rated"]) if "rated" in given else None,
            vacations=_bool(given["vacations"]) if "vacations" in given else True,
            clock=given.get("clock"),
            auto_vacation=_bool(given["auto_vacation"]) if "auto_vacation" in given else True,
            manages=True,  # the console is its own server's manager
            max_players=whole_number(most, "max_players") if most is not None else None,
            start_players=whole_number(start, "start_players") if start is not None else None,
            starts_at=given.get("starts"),
        )
        await self.tournament_said(result)

    async def tournament_join(self, words: list[str], _: str) -> None:
        event = event_number(words)
        await self.tournament_said(await self.service.events.join_tournament(event, GUILD, self.me))

    async def tournament_leave(self, words: list[str], _: str) -> None:
        event = event_number(words)
        await self.tournament_said(
            await self.service.events.leave_tournament(event, GUILD, self.me)
        )

    async def tournament_start(self, words: list[str], _: str) -> None:
        event = event_number(words)
        started = await self.service.events.start_tournament(event, GUILD, self.me, manages=True)
        await self.tournament_said(started)

    async def tournament_withdraw(self, words: list[str], _: str) -> None:
        named = [self.player(w[1:]) for w in words if w.startswith("@")]
        event = event_number([w for w in words if not w.startswith("@")])
        withdrawn = await self.service.events.withdraw_from_tournament(
            event, GUILD, self.me, named[0] if named else None, manages=True
        )
        await self.tournament_said(withdrawn)

    async def tournament_challenge(self, words: list[str], _: str) -> None:
        named = [self.player(w[1:]) for w in words if w.startswith("@")]
        if len(named) != 1:
            raise Refused(
                "Name the player to challenge: tournament challenge 1 @bob.",
                code=ServiceCode.USAGE,
            )
        event = event_number([w for w in words if not w.startswith("@")])
        challenged = await self.service.ladders.ladder_challenge(event, GUILD, self.me, named[0])
        await self.tournament_said(challenged)

    async def tournament_accept(self, words: list[str], _: str) -> None:
        event = event_number(words)
        accepted = await self.service.ladders.accept_ladder_challenge(event, GUILD, self.me)
        await self.tournament_said(accepted)

    async def tournament_decline(self, words: list[str], _: str) -> None:
        event = event_number(words)
        declined = await self.service.ladders.decline_ladder_challenge(event, GUILD, self.me)
        await self.tournament_said(declined)

    async def tournament_cancel(self, words: list[str], _: str) -> None:
        event = event_number(words)
        cancelled = await self.service.events.cancel_tournament(event, GUILD, self.me, manages=True)
        await self.tournament_said(cancelled)

    async def tournament_add_bot(self, words: list[str], _: str) -> None:
        level = dict(map(_pair, [w for w in words if "=" in w])).get("level", DEFAULT_LEVEL)
        event = event_number([w for w in words if "=" not in w])
        added = await self.service.events.add_bot_to_tournament(
            event, GUILD, self.me, level.lower(), manages=True
        )
        await self.tournament_said(added)

    async def tournament_export(self, words: list[str], _: str) -> None:
        exported = await self.service.event_reads.export_tournament(event_number(words), GUILD)
        self.say(f"Export: {self.save(exported.filename, exported.data)}")

    async def tournament_standings(self, words: list[str], _: str) -> None:
        event = event_number(words)
        standings = await self.service.event_reads.tournament_standings(event, GUILD)
        self.say(standings.text)
        if standings.png:
            self.say(f"Standings: {self.save(f'event-{event}-standings.png', standings.png)}")

    async def tournament_pairings(self, words: list[str], _: str) -> None:
        self.say(await self.service.event_reads.tournament_pairings(event_number(words), GUILD))

    async def tournament_list(self, words: list[str], _: str) -> None:
        listed = await self.service.event_reads.list_tournaments(GUILD)
        if not listed:
            self.say("No events here yet: tournament create hex format=swiss name=Spring.")
        for event in listed:
            players = len([e for e in event.entrants if not e.withdrawn])
            self.say(
                f"#{event.id} {event.title}: {event.format.replace('_', ' ')}, {event.status}, "
                f"{players} player{'s' * (players != 1)}"
            )

    async def tournament_said(self, result: TournamentResult) -> None:
        """A tournament use case's sentence, then each game and announcement it made."""
        self.say(result.note)
        for each in result.results:
            await self.announce(each)

    async def act_as(self, words: list[str], _: str) -> None:
        if not words:
            raise Refused("Name the player: as bob.", code=ServiceCode.USAGE)
        self.me = self.player(words[0].lstrip("@"))
        self.zone = await self.service.lookups.time_zone(self.me.id)
        self.say(f"You are {self.me.name}.")

    async def help(self, words: list[str], _: str) -> None:
        self.say("\n".join(help_lines(words, [*self.handlers, "quit"])))

    # -- helpers ------------------------------------------------------------------------

    def player(self, name: str) -> Player:
        cleaned = name.strip()[:32]
        if not cleaned:
            raise Refused("Name the player after @, as in @bob.", code=ServiceCode.USAGE)
        if any(unicodedata.category(ch) == "Cc" for ch in cleaned):  # NUL, escape codes
            raise Refused("A player's name cannot hold control characters.", code=ServiceCode.USAGE)
        player = Player(player_id(cleaned), cleaned)
        self.names[player.id] = cleaned
        return player

    async def game_id(
        self,
        words: list[str],
        *,
        challenge: bool = False,
        any_status: bool = False,
        last_moved: bool = False,
        undo_answer: bool = False,
    ) -> int:
        """The game named (12, #12, game=12) or, failing that, the one meant: a challenge
        waiting for you; your latest game (any_status); the game of your last move
        (last_moved); the one game asking you for an undo (undo_answer); your only game
        under way."""
        named, rest = named_game(words)
        if rest:
            raise Refused(f"{shown(rest[0])} is not a game number.", code=ServiceCode.USAGE)
        if named is not None:
            return named
        return await self.game_meant(
            challenge=challenge,
            any_status=any_status,
            last_moved=last_moved,
            undo_answer=undo_answer,
        )

    async def game_meant(
        self,
        *,
        challenge: bool = False,
        any_status: bool = False,
        last_moved: bool = False,
        undo_answer: bool = False,
        conditional: bool = False,
    ) -> int:
        """The game a command without a number means (game_id's defaults; `conditional`:
        the one game that takes your conditional lines)."""
        if undo_answer:
            asking = await self.service.lookups.undo_requests_for(GUILD, self.me.id)
            return only_game(asking, "asking you for an undo").id
        if conditional:
            mine = await self.service.lookups.conditional_games(GUILD, self.me.id)
            return only_game(mine, "between two people (where lines are kept)").id
        if challenge:
            open_games = await self.service.lookups.games(GUILD, status="open")
            invited = [
                g
                for g in open_games
                if any(s.player_id == self.me.id and not s.accepted for s in g.seats)
            ]
            pending = invited or open_games
            if len(pending) == 1:
                return pending[0].id
            raise Refused(
                "Name the challenge's number (games open lists them).", code=ServiceCode.NO_GAME
            )
        if any_status:
            mine = await self.service.lookups.games(
                GUILD, player_id=self.me.id, viewer_id=self.me.id
            )
            if mine:
                return mine[0].id
            raise Refused("You have no games here.", code=ServiceCode.NO_GAME)
        meant = await self.service.lookups.default_game(
            GUILD, self.me.id, None, my_turn=False, last_moved=last_moved
        )
        return meant.id

    async def announce(self, result: Result) -> None:
        """Print a use case's result and mark it delivered in the service's outbox."""
        await self.service.outbox.deliver(result, self.print_result)

    async def bot_moved(self, result: Result) -> None:
        """The AI runner's delivery: the bot's move printed like anyone's, with the board
        (at a terminal, perhaps while the player types); after the answer to a command
        under way (the move that set it off), not in the middle of it."""
        if self.answering:
            self.held.append(result)
        else:
            await self.show_bot_move(result)

    async def show_bot_move(self, result: Result) -> None:
        with self.aside():
            await self.announce(result)
            if isinstance(result, MoveResult) and result.png:
                await self.show_board(result.game, result.png)

    async def print_result(self, result: Result) -> None:
        """The console's delivery: each event's sentence (the scheduler calls it too)."""
        with self.aside():
            for event in result.events:
                self.say(self.describe(event, result.game))

    @contextlib.contextmanager
    def aside(self) -> Iterator[None]:
        """Output that comes while the player types (the bot's move, a reminder): on lines
        below the one being typed, then the prompt again."""
        if self.reading is not None and self.asides == 0:
            self.out.write("\n")
        self.asides += 1
        try:
            yield
        finally:
            self.asides -= 1
            if self.reading is not None and self.asides == 0:
                self.out.write(self.reading)
                self.out.flush()

    def describe(self, event: Event, game: GameSummary) -> str:
        names = {s.player_id: s.name for s in game.seats if s.player_id is not None}
        return describe(
            event, game, lambda pid: "@" + (names.get(pid) or self.names.get(pid, "?")), self.when
        )

    def when(self, moment: datetime, zone: str | None = None) -> str:
        """A time in the zone of whom it is for, else in the zone of who types here."""
        return local_time(moment, zone or self.zone)

    async def show_board(self, game: GameSummary, png: bytes, *, ply: int | None = None) -> None:
        shown = game.ply if ply is None else ply
        self.say(await self.service.lookups.board_text(game.id, GUILD, ply=shown))
        if png:  # empty when the picture could not be drawn (logged)
            path = self.save(f"game-{game.id}-move-{shown}.png", png)
            self.say(f"Board: {path}")

    def save(self, name: str, data: bytes) -> Path:
        """Write a picture or a file into the board folder; a refusal when that fails
        (what the command did stands: the file is all that is missing)."""
        path = self.board_dir / name
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        except OSError as error:
            raise Refused(
                f"I could not save {path} ({error.strerror or error}); check BOARD_DIR.",
                code=ServiceCode.USAGE,
            ) from None
        return path

    def game_line(self, game: GameSummary) -> str:
        players = " vs ".join(s.name or "(open seat)" for s in game.seats)
        line = f"#{game.id} {game.title} {game.status}: {players}, move {game.ply}"
        if game.player_to_move is not None:
            line += f", {game.name_of_seat(game.to_move or 0)} to move"
            if game.deadline:
                line += f" (due {self.when(game.deadline)})"
        if game.banks:
            line += f"; clock {game.time_control}: {banks_text(game)}"
        away = away_note(game, lambda pid: "@" + self.names.get(pid, "?"))
        return f"{line}. {away}" if away else line

    def say(self, text: str) -> None:
        self.out.write(text + "\n")
        self.out.flush()


def _bot_to_move(game: GameSummary) -> bool:
    return (
        game.status == "active"
        and game.to_move is not None
        and game.seats[game.to_move].bot is not None
    )


def _loose_word(word: str) -> Refused:
    """A word in a challenge that is neither @player nor key=value, and what it likely meant."""
    if word.lower() in LEVELS:
        meant = f"to play the bot at that level, write @{BOT_NAME} level={word.lower()}"
    elif SIZE_LIKE.fullmatch(word):
        meant = f"for the board's size, write size={word.lower()}"
    elif NAME_LIKE.fullmatch(word):
        meant = f"to challenge that player, write @{word}"
    else:
        meant = "options are key=value"
    return Refused(f"I don't understand {shown(word)}; {meant}.", code=ServiceCode.USAGE)


def _no_value(word: str) -> Refused:
    """A setting typed without its value: the values it takes."""
    param = PARAMS["settings"][SETTING_NAMES[word]]
    choices = ("on", "off") if param.kind == "bool" else param.choices
    if choices:
        return Refused(
            f"Say {word}={', '.join(choices[:-1])} or {choices[-1]}.", code=ServiceCode.USAGE
        )
    return Refused(f"Give {word} a value ({param.help}).", code=ServiceCode.USAGE)


def _keyed(settings: dict[str, str], command: str) -> dict[str, str]:
    """A command's key=value parameters among the pairs typed, by name; one typed under
    its name wins over a shorter key (days_per_move= over days=)."""
    found: dict[str, str] = {}
    for key, name in reversed(KEYS[command].items()):  # each name's own key last
        if key in settings:
            found[name] = settings[key]
    return found


def _pair(word: str) -> tuple[str, str]:
    key, _, value = word.partition("=")
    return key.strip().lower(), value.strip()


def _bool(text: str) -> bool:
    try:
        return BOOLEAN_WORDS[text.strip().lower()]
    except KeyError:
        raise Refused(f"Say yes or no, not {shown(text)}.", code=ServiceCode.USAGE) from None
