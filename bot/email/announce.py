"""The mail announcer: each result that concerns a player whose turns go by mail is mailed
to them from the outbox, once per outbox row and address.

It runs beside whatever adapter this process has (Discord, the console): it is one of the
service's `also_publish` deliveries, so every result delivered is mailed too. When a
delivery fails part way (the server refuses the second address), the addresses mailed
are marked in the ledger (`mails_sent`), and the outbox's next try mails only the
others; a delivery that succeeds writes nothing here (its row is marked delivered). A
crash between a send and the mark sends the mail again with the same Message-ID, which
mail clients show once.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable, Sequence
from datetime import datetime

from bot.email.compose import Envelope, Picture, mail
from bot.email.smtp import Mailer
from bot.email.tokens import Token, reply_address
from bot.email.tokens import message_id as signed_message_id
from bot.service import (
    ConditionalPlayed,
    ConditionalsDropped,
    Digest,
    Event,
    GameService,
    GameSummary,
    MailBounced,
    MoveResult,
    Refused,
    Reminder,
    Result,
    banks_text,
    describe,
    game_clock_text,
    local_time,
    result_text,
)
from bot.service.web.sessions import LINK_MINUTES
from bot.settings import Settings
from bot.web import urls

log = logging.getLogger("paperboard.email")

#: Events for one player's eyes: mailed to that player alone.
PRIVATE = (ConditionalPlayed, ConditionalsDropped)
#: Events never mailed: the digest goes by DM, a bounce notice to where mail cannot go.
UNMAILED = (Digest, MailBounced)
LAST_MOVES = 6
HOW_TO_ANSWER = (
    "Answer this mail with your move on its first line{for_example}, or with board, "
    "resign, undo, accept or decline. Mail help to {bare} for more."
)


class MailAnnouncer:
    """Mails results, codes and one-sentence answers through a `Mailer`."""

    def __init__(
        self,
        service: GameService,
        settings: Settings,
        mailer: Mailer,
        clock: Callable[[], datetime],
    ) -> None:
        assert settings.email_from is not None and settings.email_secret is not None
        self.service = service
        self.mailer = mailer
        self.clock = clock
        self.sender = settings.email_from
        self.local = settings.email_from.partition("@")[0]
        self.domain = settings.mail_domain or "localhost"  # EMAIL_FROM is set: never
        self.secret = settings.email_secret.get_secret_value()
        self.site_url = settings.site_url  # where a sign-in link leads

    def reply_to(self, game_id: int, seat: int, ply: int) -> str:
        return reply_address(Token(game_id, seat, ply), self.local, self.domain, self.secret)

    def message_id(
        self, address: str, outbox_id: int | None = None, *, name: str | None = None
    ) -> str:
        """A Message-ID signed for `address` (a bounce is believed only when it quotes
        one); a result's is made from its outbox row: sent again after a crash, it is the
        same message (another mail's from its `name`)."""
        if name is None:
            name = f"a{secrets.token_hex(8)}" if outbox_id is None else f"o{outbox_id}"
        return signed_message_id(name, address, self.domain, self.secret)

    # == results from the outbox ================================================================

    async def publish(self, result: Result) -> None:
        """Mail `result` to each player of its game whose turns go by mail (one delivery
        of the service's outbox: raising leaves the row for another try)."""
        game = result.game
        recipients, moves = await self.service.mail.mail_delivery(
            game, result.outbox_id, _moves_shown(game)
        )
        board: Picture | None = None
        sent: list[str] = []
        try:
            for player_id, address in sorted(recipients.items()):
                events = [e for e in result.events if _for(e, player_id)]
                if not events:
                    continue
                if board is None:  # encoded once for every mail of the result
                    board = await self._board(result)
                message_id = self.message_id(address, result.outbox_id)
                await self.mail_game(game, player_id, address, events, board, message_id, moves)
                sent.append(address)
        except BaseException:  # what was sent is recorded: the next try mails the rest
            if result.outbox_id is not None and sent:
                await self.service.mail.mark_mailed(result.outbox_id, sent)
            raise

    async def mail_game(
        self,
        game: GameSummary,
        player_id: int,
        address: str,
        events: Sequence[Event] = (),
        board: Picture | None = None,
        message_id: str | None = None,
        moves: Sequence[str] | None = None,
        note: str | None = None,
    ) -> None:
        """A mail in the game's thread: what happened (`events`, or `note`), the board,
        the last moves, whose move it is and the clock, and how to answer."""
        zone = game.zone_of(player_id)
        names = {s.player_id: s.name or "someone" for s in game.seats if s.player_id}

        def mention(pid: int) -> str:
            return "you" if pid == player_id else names.get(pid, "someone")

        def when(moment: datetime, zone_name: str | None) -> str:
            return local_time(moment, zone_name or zone)

        said = [describe(event, game, mention, when, reader=player_id) for event in events]
        paragraphs = ["\n".join(said + ([note] if note else []))]
        paragraphs.append(self._standing(game, player_id, zone))
        if moves is None:
            moves = await self._last_moves(game)
        if moves:
            paragraphs.append("Last moves: " + "  ".join(moves))
        seat = game.seat_of(player_id)
        reply_to = None if seat is None else self.reply_to(game.id, seat, game.ply)
        if game.status in ("open", "active"):
            example = await self._example_move(game, player_id)
            for_example = f" (like {example})" if example else ""
            paragraphs.append(HOW_TO_ANSWER.format(for_example=for_example, bare=self.sender))
        envelope = Envelope(self.sender, address, names.get(player_id, ""), self.domain, reply_to)
        message = mail(  # a tenth of a millisecond, the board's base64 made already
            envelope,
            f"{game.title} #{game.id}",
            paragraphs,
            when=self.clock(),
            message_id=message_id or self.message_id(address),
            game_id=game.id,
            board=board if board is not None and board.lines else None,
        )
        await self.mailer.send(message, address)
        log.info("game=%d mailed player=%d", game.id, player_id)

    @staticmethod
    def _standing(game: GameSummary, player_id: int, zone: str | None) -> str:
        """Whose move it is and the clock; the result of a finished game."""
        if game.status == "finished":
            return result_text(game, reader=player_id)
        if game.status != "active":
            return f"{game.title} #{game.id}: {game_clock_text(game)}."
        mover = game.player_to_move
        text = (
            "It is your move"
            if mover == player_id
            else f"{game.name_of_seat(game.to_move or 0)} is to move"
        )
        if game.deadline is not None:
            text += f", due {local_time(game.deadline, zone)}"
        text += f" ({game_clock_text(game)}"
        text += f": {banks_text(game)})." if game.banks else ")."
        return text

    async def _example_move(self, game: GameSummary, player_id: int) -> str | None:
        """A move legal now in the game, for the reader when it is their move (none for
        the others: a move of the mover's is no example of theirs)."""
        if game.status != "active" or game.player_to_move != player_id:
            return None
        return await self.service.lookups.example_move(game.id, game.guild_id, player_id)

    async def _last_moves(self, game: GameSummary) -> list[str]:
        shown = _moves_shown(game)
        return await self.service.mail.last_moves(game, shown) if shown else []

    async def _board(self, result: Result) -> Picture:
        """The board after the result: the move's own picture, else drawn now (no lines
        for a challenge not started)."""
        game = result.game
        if isinstance(result, MoveResult) and result.png:
            return picture_of(game, result.png)
        if game.status not in ("active", "finished"):
            return picture_of(game, b"")
        try:
            return picture_of(game, (await self.service.lookups.board(game.id, game.guild_id)).png)
        except Refused:
            return picture_of(game, b"")

    # == codes and answers ======================================================================

    async def send_codes(self) -> int:
        """Mail the confirmation codes asked for; how many were sent."""
        sent = 0
        for player_id, address, code in await self.service.mail.codes_to_mail():
            text = (
                f"Your Paperboard code is {code}. Type it on Discord with /settings "
                f"email_code:{code} (in the console: settings email_code={code}) within a day. "
                "If you did not ask for it, ignore this mail."
            )
            await self.answer(address, "", text, subject="Your Paperboard code")
            await self.service.mail.code_mailed(player_id)
            sent += 1
        return sent

    async def send_sign_in_links(self) -> int:
        """Mail the sign-in links asked for on the web pages (each taken by one process:
        none is mailed twice; one not sent is given back for the next pass); how many
        were sent."""
        sent = 0
        for link in await self.service.sessions.take_links_to_mail():
            address = await self.service.mail.address_of(link.player.id)
            if address is None:  # unlinked or bounced since it was asked for
                continue
            url = urls.absolute(self.site_url, urls.signin_link(link.secret))
            text = (
                f"To sign in to Paperboard as {link.player.name}, open {url} and press its "
                f"button. The link works once, within {LINK_MINUTES} minutes. If you did "
                "not ask for it, ignore this mail: nobody signs in without it."
            )
            try:
                await self.answer(
                    address,
                    link.player.name,
                    text,
                    subject="Sign in to Paperboard",
                    message_id=self.message_id(address, name=f"s{link.key[:20]}"),
                )
            except BaseException:
                await self.service.sessions.give_back_link(link)
                raise
            sent += 1
        return sent

    async def answer(
        self,
        address: str,
        name: str,
        text: str,
        *,
        subject: str = "Paperboard",
        game_id: int | None = None,
        reply_to: str | None = None,
        message_id: str | None = None,
    ) -> None:
        """One short mail: `text`, in the game's thread when it is about one."""
        envelope = Envelope(self.sender, address, name, self.domain, reply_to)
        message = mail(
            envelope,
            subject,
            [text],
            when=self.clock(),
            message_id=message_id or self.message_id(address),
            game_id=game_id,
        )
        await self.mailer.send(message, address)


def _moves_shown(game: GameSummary) -> int:
    """How many of the game's last moves its mails show (none before it starts)."""
    return LAST_MOVES if game.status in ("active", "finished") and game.ply else 0


def picture_of(game: GameSummary, png: bytes) -> Picture:
    """A board of `game` as it is now, ready for its mails (no lines: no board)."""
    name = f"{game.game}-{game.id}-move-{game.ply}.png"
    return Picture.of(png, name) if png else Picture(name, b"")


def _for(event: Event, player_id: int) -> bool:
    """Whether `event` is mailed to `player_id`: a reminder only to whom it reminds (by
    mail), a private event only to its owner, a digest or a bounce notice never."""
    if isinstance(event, Reminder):
        return event.player_id == player_id and event.via == "email"
    if isinstance(event, PRIVATE):
        return event.player_id == player_id
    return not isinstance(event, UNMAILED)
