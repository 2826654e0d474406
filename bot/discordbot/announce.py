"""What the bot says in public: each game's thread, and the challenge message in the
parent channel, edited to the game's current status instead of posting more there.

Every result of the service goes through `Announcer.post`, whoever caused it (a
slash command, a button, a thread message, the scheduler): commands call `publish`,
which posts and marks the result delivered in the service's outbox; the scheduler
hands `post` the results a crashed process left undelivered. Each message carries a
nonce derived from the outbox row, so a result posted twice (a crash after the send,
before the mark) shows once: Discord returns the first message instead.
"""

from __future__ import annotations

import asyncio
import dataclasses
import io
import logging
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any

import aiohttp
import discord

from bot.discordbot.errors import code_block, fit, messages_of
from bot.discordbot.text import (
    MENTIONS,
    PRIVATE_EVENTS,
    board_file,
    lines,
    mention,
    status_text,
    thread_link,
    when,
)
from bot.discordbot.views import challenge_view, undo_view
from bot.discordbot.weblinks import view_kwargs, with_link
from bot.service import (
    BotThinking,
    ChallengeClosed,
    ChallengeIssued,
    Digest,
    Event,
    GameOver,
    GameService,
    GameStarted,
    GameSummary,
    MailBounced,
    MovePlayed,
    Reminder,
    Result,
    SeatTaken,
    TimedOut,
    TournamentNews,
    TurnStarted,
    UndoAnswered,
    UndoRequested,
    describe,
    digest_bank,
)
from bot.tasks import wait_set

if TYPE_CHECKING:
    from collections.abc import Sequence

    from bot.web.links import WebLinks

log = logging.getLogger("paperboard.discord")

#: Discord down or out of reach after discord.py's own retries: a post that failed so is
#: not given up but left undelivered, so the outbox posts it again (with the same nonce).
UNREACHABLE = (discord.DiscordServerError, aiohttp.ClientError, OSError, TimeoutError)
THREAD_EVENTS = (
    GameStarted, MovePlayed, TurnStarted, GameOver, UndoRequested, UndoAnswered, ChallengeClosed,
    TimedOut, BotThinking,
)  # fmt: skip
CANNOT_READ = "Play with `/move` here: this bot cannot read messages in threads."
STATUS_EVENTS = (SeatTaken, GameStarted, ChallengeClosed, MovePlayed, GameOver, UndoAnswered)
NEW_BOARD = (GameStarted, MovePlayed, UndoAnswered)


class Announcer:
    """Posts results where players see them."""

    def __init__(
        self,
        client: discord.Client,
        service: GameService,
        *,
        reads_messages: bool,
        links: WebLinks,
    ) -> None:
        self.client = client
        self.service = service
        self.reads_messages = reads_messages
        self.links = links  # "View on the web" on the posts, when the server's pages are on
        # told of every new deadline (the scheduler's poke), once the scheduler runs
        self.on_deadline: Callable[[datetime], None] | None = None
        self._in_flight = 0  # publishes under way: closing waits for them (`drain`)
        self._idle = asyncio.Event()
        self._idle.set()

    async def drain(self, timeout: float) -> None:
        """Wait (at most `timeout` seconds) for the announcements under way to be posted."""
        if not await wait_set(self._idle, timeout):
            log.warning("closing with %d announcements still under way", self._in_flight)

    async def publish(
        self,
        result: Result,
        *,
        thread_done: bool = False,
        status_done: bool = False,
        png: bytes | None = None,
    ) -> None:
        """Post `result` (see `post`) and mark it delivered in the service's outbox."""

        async def post(result: Result) -> None:
            await self.post(result, thread_done=thread_done, status_done=status_done, png=png)

        try:
            await self.service.outbox.deliver(result, post)
        except UNREACHABLE:  # left undelivered: the outbox sends it again after its lease
            log.warning("game=%d Discord is unreachable; posting again later", result.game.id)

    async def post(
        self,
        result: Result,
        *,
        thread_done: bool = False,
        status_done: bool = False,
        png: bytes | None = None,
    ) -> GameSummary:
        """Announce `result`'s events: open the thread when a game starts, post what
        happened there (with the new board), edit the status message, or post it when a
        challenge has none yet. `thread_done` / `status_done`: the caller already
        answered there (an interaction reply)."""
        self._in_flight += 1
        self._idle.clear()
        try:
            return await self._post(result, thread_done, status_done, png)
        finally:
            self._in_flight -= 1
            if not self._in_flight:
                self._idle.set()

    async def _post(
        self, result: Result, thread_done: bool, status_done: bool, png: bytes | None
    ) -> GameSummary:
        game = result.game
        events = result.events
        for event in events:
            if isinstance(event, TurnStarted) and event.deadline and self.on_deadline:
                self.on_deadline(event.deadline)
            if isinstance(event, Reminder):
                await self.remind(game, event, nonce=_nonce(result, "r"))
            if isinstance(event, Digest):
                await self.send_digest(event, nonce=_nonce(result, "d"))
            if isinstance(event, TournamentNews):  # in the event's channel
                await self.post_news(game, event, nonce=_nonce(result, "n"))
            if isinstance(event, MailBounced):  # the player alone, by DM
                text = describe(event, game, mention, when)
                if not await self.direct(event.player_id, text, nonce=_nonce(result, "b")):
                    log.info("DM closed for %d: bounce notice dropped", event.player_id)
            if isinstance(event, PRIVATE_EVENTS):  # for the owner's eyes only
                text = describe(event, game, mention, when) + f" {thread_link(game)}"
                if not await self.direct(event.player_id, text, nonce=_nonce(result, "c")):
                    log.info(
                        "game=%d DM closed for %d: conditional note dropped",
                        game.id,
                        event.player_id,
                    )
        if any(isinstance(e, GameStarted) for e in events) and game.thread_id is None:
            game = await self.open_thread(game)
        thread_events = [e for e in events if isinstance(e, THREAD_EVENTS)]
        under_way = game.thread_id is not None or game.status in ("active", "finished", "aborted")
        in_thread = thread_events and not thread_done and under_way
        new_status = not status_done and (
            (any(isinstance(e, ChallengeIssued) for e in events) and game.message_id is None)
            or any(isinstance(e, STATUS_EVENTS) for e in events)
        )
        url = await self.links.game(game) if in_thread or new_status else None  # one read
        if in_thread:
            await self.post_in_thread(
                game, thread_events, png=png, nonce=_nonce(result, "t"), url=url
            )
        if not status_done:
            if any(isinstance(e, ChallengeIssued) for e in events) and game.message_id is None:
                await self.post_status(game, nonce=_nonce(result, "s"), url=url)  # none answered
            elif any(isinstance(e, STATUS_EVENTS) for e in events):
                await self.edit_status(game, url=url)
        return game

    async def post_status(
        self, game: GameSummary, *, nonce: str | None = None, url: str | None = None
    ) -> None:
        """The challenge message, in the game's channel; it stands for the game (`url`:
        its page's, once it has one)."""
        channel = await self.channel(game.channel_id)
        if channel is None:
            return
        kwargs = view_kwargs(with_link(challenge_view(game), url))
        message = await self.send(
            channel, status_text(game), nonce=nonce, allowed_mentions=MENTIONS, **kwargs
        )
        if message is not None:
            await self.service.lookups.attach(game.id, message_id=message.id)

    async def post_news(
        self, game: GameSummary, news: TournamentNews, *, nonce: str | None = None
    ) -> None:
        """An event's announcement in its channel (the channel of its games); the final
        standings come in a code block, with their pictures."""
        channel = await self.channel(game.channel_id)
        if channel is None:
            return
        kwargs: dict[str, Any] = {"allowed_mentions": MENTIONS}
        url = await self.links.event(game.guild_id, news.tournament_id)
        kwargs |= view_kwargs(with_link(None, url))
        text = news.text
        if news.kind == "final":  # its sentence, then the tables
            headline, _, tables = news.text.partition("\n")
            text = code_block(tables, headline)
            found = await self.service.event_reads.tournament_standings(
                news.tournament_id, game.guild_id
            )
            pictures = [p for p in found.pictures or (found.png,) if p][:10]
            if pictures:
                kwargs["files"] = [
                    discord.File(io.BytesIO(png), filename=f"event-{news.tournament_id}-{n}.png")
                    for n, png in enumerate(pictures, 1)
                ]
        await self.send(channel, text, nonce=nonce, **kwargs)

    async def post_in_thread(
        self,
        game: GameSummary,
        events: Sequence[Event],
        *,
        png: bytes | None = None,
        nonce: str | None = None,
        url: str | None = None,
    ) -> None:
        """`events` in the game's thread, with the new board when there is one, the undo
        buttons for a request, and the link to the game's page (`url`)."""
        new_board = any(isinstance(e, NEW_BOARD) for e in events) and not any(
            isinstance(e, UndoAnswered) and not e.done for e in events
        )
        board = png if new_board else None
        if new_board and not board:
            try:
                board = (await self.service.lookups.board(game.id, game.guild_id)).png
            except Exception:  # post the words without the picture
                log.exception("game=%d no board to post", game.id)
        request = next((e for e in events if isinstance(e, UndoRequested)), None)

        def extras() -> dict[str, Any]:  # a File is read once: a new one for each try
            kwargs: dict[str, Any] = {"allowed_mentions": MENTIONS}
            if board:
                kwargs["file"] = board_file(game, board)
            undo = undo_view(game.id, request.ply) if request is not None else None
            return kwargs | view_kwargs(with_link(undo, url))

        text = lines(events, game)
        if any(isinstance(e, GameStarted) for e in events):
            text += "\n" + await self.how_to_play(game)
        await self.post_for_game(game, text, nonce=nonce, extras=extras)

    async def post_for_game(
        self,
        game: GameSummary,
        text: str,
        *,
        nonce: str | None,
        extras: Callable[[], dict[str, Any]],
    ) -> None:
        """Post in the game's thread; when the thread is gone (deleted by a moderator,
        never opened) or locked, in a new thread, else in the game's channel: the
        player to move is told either way, not left to lose on time. A post refused
        for another reason (a missing permission) is logged, the thread kept."""
        thread = await self.channel(game.thread_id)
        if thread is not None:
            if await self.send(thread, text, nonce=nonce, **extras()):
                return
            if not getattr(thread, "locked", False):
                return
        log.warning("game=%d thread %s is gone or locked", game.id, game.thread_id)
        moved = await self.open_thread(game, replacing=True)
        if moved.thread_id != game.thread_id:
            new = await self.channel(moved.thread_id)
            note = "This game's thread is gone or closed, so the game goes on here."
            if new is not None and await self.send(new, f"{note}\n{text}", nonce=nonce, **extras()):
                return
        channel = await self.channel(game.channel_id)
        if channel is not None:
            note = f"This game's thread is gone or closed: play with `/move game:{game.id}`."
            await self.send(channel, f"{note}\n{text}", nonce=nonce, **extras())

    async def remind(
        self, game: GameSummary, reminder: Reminder, *, nonce: str | None = None
    ) -> None:
        """A reminder where the player asked for it: a DM (falling back to the thread when
        their DMs are closed) or the game's thread."""
        if reminder.via == "email":  # the mail adapter mails it
            return
        text = lines([reminder], game)
        if reminder.via == "dm":
            if await self.direct(reminder.player_id, f"{text} {thread_link(game)}", nonce=nonce):
                return
            log.info(
                "game=%d DM closed for %d: reminding in the thread", game.id, reminder.player_id
            )
        await self.post_for_game(
            game, text, nonce=nonce, extras=lambda: {"allowed_mentions": MENTIONS}
        )

    async def send_digest(self, digest: Digest, *, nonce: str | None = None) -> None:
        """The daily digest by DM: each game where it is the player's move, its time left
        and a link to its thread."""
        rows = [
            f"· {line.title}"
            + (f", due {when(line.deadline)}" if line.deadline else "")
            + digest_bank(line)
            + f": https://discord.com/channels/{line.guild_id}/{line.thread_id or ''}"
            for line in digest.games
        ]
        count = f"{len(rows)} game{'s' if len(rows) > 1 else ''}"
        # a long digest comes in several DMs, cut between games
        for part, text in enumerate(messages_of([f"Your move in {count}:", *rows])):
            if not await self.direct(digest.player_id, text, nonce=_part(nonce, part)):
                log.info("DM closed for %d: digest dropped", digest.player_id)
                return

    async def direct(self, player_id: int, text: str, *, nonce: str | None = None) -> bool:
        """A direct message; False when the player's DMs are closed (or they are gone)."""
        try:
            user = await self.client.fetch_user(player_id)
            await user.send(fit(text), **_once(nonce), allowed_mentions=MENTIONS)
        except discord.HTTPException:
            return False
        return True

    async def how_to_play(self, game: GameSummary) -> str:
        """How to move in the game's thread, with a move legal in it now as the example."""
        if not self.reads_messages:
            return CANNOT_READ
        example = await self.service.lookups.example_move(game.id, game.guild_id)
        for_example = f" (for example `{example}`)" if example else ""
        return f"Type your moves here{for_example} or use `/move`."

    async def open_thread(self, game: GameSummary, *, replacing: bool = False) -> GameSummary:
        """A public thread under the challenge message (or the channel) for the game;
        one `replacing` a lost thread is the channel's (a message keeps its first)."""
        channel = await self.channel(game.channel_id)
        if game.event:  # a game of an event: "Spring Hex · round 2 · ann v bob"
            name = f"{game.event} · {' v '.join(s.name or '?' for s in game.seats)}"[:100]
        else:
            names = " vs ".join(s.name or "?" for s in game.seats)
            name = f"{game.title} #{game.id}: {names}"[:100]
        thread: discord.abc.Snowflake | None = None
        try:
            if isinstance(channel, discord.TextChannel):
                if game.message_id is not None and not replacing:
                    message = channel.get_partial_message(game.message_id)
                    thread = await message.create_thread(name=name, auto_archive_duration=10080)
                else:
                    thread = await channel.create_thread(
                        name=name,
                        type=discord.ChannelType.public_thread,
                        auto_archive_duration=10080,
                    )
        except UNREACHABLE:
            raise
        except discord.HTTPException:
            log.warning("game=%d could not open a thread", game.id, exc_info=True)
        if thread is None:
            return game
        await self.service.lookups.attach(game.id, thread_id=thread.id)
        log.info("game=%d thread=%d", game.id, thread.id)
        return dataclasses.replace(game, thread_id=thread.id)

    async def edit_status(self, game: GameSummary, *, url: str | None = None) -> None:
        """The challenge message as the game is now (`url`: its page's)."""
        if game.message_id is None:
            return
        channel = await self.channel(game.channel_id)
        if not isinstance(channel, discord.TextChannel | discord.Thread):
            return
        try:
            await channel.get_partial_message(game.message_id).edit(
                content=fit(status_text(game)),
                view=with_link(challenge_view(game), url),
                allowed_mentions=MENTIONS,
            )
        except discord.HTTPException:
            log.warning("game=%d could not edit its status message", game.id, exc_info=True)

    async def channel(self, channel_id: int | None) -> Any:
        if channel_id is None:
            return None
        found = self.client.get_channel(channel_id)
        if found is not None:
            return found
        try:
            return await self.client.fetch_channel(channel_id)
        except UNREACHABLE:
            raise  # not gone: the caller leaves the result to the outbox
        except discord.HTTPException:
            log.warning("channel %s is gone", channel_id)
            return None

    async def send(
        self, channel: Any, text: str, *, nonce: str | None = None, **kwargs: Any
    ) -> discord.Message | None:
        try:
            message: discord.Message = await channel.send(fit(text), **_once(nonce), **kwargs)
        except UNREACHABLE:
            raise  # worth another try: the caller leaves the result to the outbox
        except discord.HTTPException:  # refused for good (no permission, gone, too big)
            log.warning("could not post in channel %s", getattr(channel, "id", "?"), exc_info=True)
            return None
        return message


def _nonce(result: Result, where: str) -> str | None:
    """The nonce of one message of a result (`where`: t thread, r reminder, s status):
    the same each time the result's outbox row is delivered."""
    return None if result.outbox_id is None else f"pb{result.outbox_id}{where}"


def _part(nonce: str | None, part: int) -> str | None:
    """The nonce of the part-th message of one delivery (the first keeps the nonce)."""
    return nonce if nonce is None or part == 0 else f"{nonce}{part}"


def _once(nonce: str | None) -> dict[str, Any]:
    """discord.py sends a nonce with enforce_nonce: Discord answers a repeat within a few
    minutes with the first message. Without one, discord.py picks a random nonce."""
    return {"nonce": nonce} if nonce else {}
