"""Mail in: every inbound mail (the SMTP listener's, the IMAP poller's) goes through
`MailDesk.receive`.

What it does, in order: automatic mail (a null reverse path too) is never answered (a
hard bounce of a mail the bot sent stops mail to the address); each other mail is
handled once (bot/service/mail/inbox.py); a flood from one address gets one "slow down" an
hour, then silence; a mail from an address that had bounced clears the mark, and says
so; a mail too big gets one short refusal; then its command acts. A reply to a signed
address acts as that seat in that game (the token, not the From header, is the
authority); the bare address takes only help, join (register), games and challenge.
Every answer is one sentence, mailed in the game's thread when it is about a game.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import defaultdict, deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from email.message import EmailMessage
from email.utils import getaddresses

from bot.email.announce import MailAnnouncer, picture_of
from bot.email.reading import (
    address_of,
    automatic,
    bounce,
    command_text,
    header_safe,
    machine_path,
    name_of,
    parse,
    plain,
    too_big,
)
from bot.email.tokens import Token, read_token, sent_to
from bot.service import (
    GameService,
    GameSummary,
    Place,
    Player,
    Refused,
    Result,
    ServiceCode,
    mail_key,
    parse_days,
    shown,
)
from bot.service.core.outbox import Publish

log = logging.getLogger("paperboard.email")

#: Mails an address may send in an hour before it is told to slow down.
MAILS_PER_HOUR = 60
HOUR = timedelta(hours=1)
#: Headers a mail's recipients are read from when the envelope does not say (IMAP).
RECIPIENT_HEADERS = ("Delivered-To", "X-Original-To", "To", "Cc")
HELP = (
    "Paperboard plays slow board games by mail. Mail join to this address to play (join "
    "and a server's number where several take players by mail); games lists yours; "
    "challenge hex ann@example.org days=3 challenges a player by their address. Then answer "
    "each game's mail with your move on its first line (the mail on your move gives a "
    "legal one as an example), or board, resign, undo, accept or decline."
)
ADDRESSES_KEPT = 10_000  # addresses counted before those quiet for an hour are dropped
WORKS_AGAIN = (
    "Your mail shows that {address} works again after a bounce: Paperboard mails it again."
)
MOVED_ON = "That game has moved on: this mail was about move {then}, the game is at move {now}."
ANSWERS = {"accept": True, "decline": False}


@dataclass
class RateLimit:
    """Mails per address in the last hour, by the injected clock (per process)."""

    clock: Callable[[], datetime]
    limit: int = MAILS_PER_HOUR
    seen: dict[str, deque[datetime]] = field(default_factory=lambda: defaultdict(deque))
    warned: dict[str, datetime] = field(default_factory=dict)

    def check(self, address: str) -> str:
        """ "ok", "warn" (the first mail over the limit this hour) or "drop"."""
        now = self.clock()
        if len(self.seen) > ADDRESSES_KEPT:  # memory stays bounded whoever writes
            self.forget_before(now - HOUR)
        times = self.seen[address]
        while times and times[0] <= now - HOUR:
            times.popleft()
        times.append(now)
        if len(times) <= self.limit:
            return "ok"
        told = self.warned.get(address)
        if told is not None and told > now - HOUR:
            return "drop"
        self.warned[address] = now
        return "warn"

    def forget_before(self, moment: datetime) -> None:
        """Drop the addresses not heard from since `moment`."""
        self.seen = defaultdict(deque, {a: t for a, t in self.seen.items() if t and t[-1] > moment})
        self.warned = {a: told for a, told in self.warned.items() if told > moment}


class MailDesk:
    """Reads inbound mail and acts on it through the service."""

    def __init__(
        self,
        service: GameService,
        announcer: MailAnnouncer,
        publish: Publish,
        secrets: Sequence[str],
        clock: Callable[[], datetime],
        *,
        limit: int = MAILS_PER_HOUR,
    ) -> None:
        self.service = service
        self.announcer = announcer
        self.publish = publish  # the process's own adapter: Discord's posts, the console's
        self.secrets = tuple(secrets)
        self.limits = RateLimit(clock, limit)

    @property
    def local(self) -> str:
        return self.announcer.local

    @property
    def domain(self) -> str:
        return self.announcer.domain

    async def receive(
        self, raw: bytes, recipients: Sequence[str] = (), return_path: str | None = None
    ) -> None:
        """Handle one inbound mail; `recipients`: the SMTP envelope's (else its headers');
        `return_path`: the envelope's reverse path (None over IMAP: the Return-Path header
        records it). Whatever the mail holds, it gets a sentence or silence, once: a copy
        of a mail handled already (its Message-ID, else its bytes) is ignored. This raises
        only when the bot cannot do its part (the database or the mail server down), or
        while another delivery of the same mail is handled (`MailInFlight`): the mail then
        stays where it came from (the listener answers 451, the poller leaves it unseen)
        and comes again, to be handled in full. A move already committed is not played
        again: its mails are the outbox's."""
        # most move mails are small and plain: read on the loop in a tenth of a ms; the
        # rest is CPU work (a hostile mail within the limits takes a second): a thread's
        mail = read_plain(raw, recipients)
        if mail is None:
            mail = await asyncio.to_thread(read, raw, recipients)
        if mail.automatic or (return_path is not None and machine_path(return_path)):
            await self._bounced(mail)  # never answered (RFC 3834)
            return
        sender = mail.sender
        if sender is None:
            return
        key = mail_key(mail.message_id.encode("utf-8", "surrogateescape") or raw)
        if not await self.service.inbox.claim_mail(key):
            return  # a copy (IMAP after a dropped connection), a sender's retry
        try:
            await self._handle(mail, sender)
        except Exception:
            with contextlib.suppress(Exception):  # else the claim's lease runs out
                await self.service.inbox.let_go_of_mail(key)
            raise
        await self.service.inbox.mail_handled(key)

    async def _bounced(self, mail: Mail) -> None:
        """A hard bounce of a mail the bot sent stops mail to the address; one that quotes
        no such mail (anyone can write a report) changes nothing."""
        for address in mail.bounced:
            if not any(sent_to(i, address, self.domain, self.secrets) for i in mail.bounce_ids):
                log.info("a bounce quoting no mail the bot sent to that address: ignored")
                continue
            player_id, notice = await self.service.mail.record_bounce(address)
            log.info("mail to player=%s bounced: no more mail to it", player_id)
            if notice is not None:  # a Discord player is told there
                await self._deliver(notice)

    async def _handle(self, mail: Mail, sender: str) -> None:
        verdict = self.limits.check(sender)
        if verdict != "ok":
            if verdict == "warn":
                await self.announcer.answer(
                    sender,
                    "",
                    f"Slow down: I read at most {self.limits.limit} mails an hour from you; "
                    "this one was not read.",
                )
            return
        if await self.service.mail.clear_bounce(sender):  # the address works after all
            await self.announcer.answer(sender, mail.name, WORKS_AGAIN.format(address=sender))
        if mail.too_big is not None:
            await self.announcer.answer(sender, "", mail.too_big)
            return
        tokened = [a for a in mail.recipients if a.startswith(f"{self.local.lower()}+")]
        if tokened:
            token = next(
                (t for a in tokened if (t := read_token(a, self.local, self.domain, self.secrets))),
                None,
            )
            if token is None:
                await self.announcer.answer(
                    sender, "", "That reply address is not one I gave out: answer my last mail."
                )
                return
            await self._in_game(token, mail.command)
            return
        await self._bare(sender, mail.name, mail.command)

    # == a reply to a game's mail ===============================================================

    async def _in_game(self, token: Token, text: str) -> None:
        """Act as the token's seat in its game; any refusal is mailed to that seat's
        player (never to the From address: the token is the authority)."""
        game, address = await self.service.mail.mail_seat(token.game_id, token.seat)
        if address is None:  # nobody in the seat, or bounced or unlinked since: nowhere
            log.info("game=%d seat=%d has no address to answer: mail dropped", game.id, token.seat)
            return
        seat = game.seats[token.seat]
        assert seat.player_id is not None  # it has an address
        player = Player(seat.player_id, seat.name or "")
        try:
            result = await self._act(game, token, player, text, address)
        except Refused as refused:
            await self.announcer.answer(
                address,
                player.name,
                str(refused),
                subject=f"{game.title} #{game.id}",
                game_id=game.id,
                reply_to=self.announcer.reply_to(game.id, token.seat, game.ply),
            )
            return
        if result is not None:
            await self._deliver(result)

    async def _deliver(self, result: Result) -> None:
        """Announce a committed result; a failure leaves it to the outbox's next pass."""
        try:
            await self.service.outbox.deliver(result, self.publish)
        except Exception:
            log.exception("game=%d delivery failed; the outbox sends it again", result.game.id)

    async def _act(
        self, game: GameSummary, token: Token, player: Player, text: str, address: str
    ) -> Result | None:
        word = text.strip().lower()
        guild = game.guild_id
        if word == "board":
            board = await self.service.lookups.board(game.id, guild, viewer_id=player.id)
            await self.announcer.mail_game(
                game,
                player.id,
                address,
                board=picture_of(game, board.png),
                note="The board as it is now.",
            )
            return None
        if word == "resign":
            return await self.service.play.resign(game.id, guild, player)
        if word == "undo":
            return await self.service.play.request_undo(game.id, guild, player)
        if word in ANSWERS:
            if game.status == "open":
                if ANSWERS[word]:
                    return await self.service.challenges.accept(game.id, guild, player)
                return await self.service.challenges.decline(game.id, guild, player)
            return await self.service.play.answer_undo(game.id, guild, player, accept=ANSWERS[word])
        if not word:
            raise Refused(
                "I found no command in that mail: put your move on its first line.",
                code=ServiceCode.USAGE,
            )
        if token.ply != game.ply:
            if await self.service.mail.move_at(game.id, token.ply) == (token.seat, word):
                return None  # the same mail again (a sender retrying): it was played once
            raise Refused(
                MOVED_ON.format(then=token.ply + 1, now=game.ply + 1), code=ServiceCode.STALE
            )
        return await self.service.play.move(game.id, guild, player, text, expected_ply=token.ply)

    # == the bare address ========================================================================

    async def _bare(self, sender: str, name: str, text: str) -> None:
        words = text.split()
        verb = words[0].lower() if words else ""
        try:
            answer = await self._bare_command(sender, name, verb, words[1:])
        except Refused as refused:
            answer = str(refused)
        if answer:
            await self.announcer.answer(sender, name, answer)

    async def _bare_command(self, sender: str, name: str, verb: str, args: list[str]) -> str:
        if verb in ("join", "register"):
            number = int(args[0]) if args and args[0].isdecimal() and len(args[0]) < 20 else None
            server = await self.service.mail.mail_guild(number)
            player = await self.service.mail.join_by_mail(sender, name, server.guild_id)
            return (
                f"Welcome, {player.name}: you play on this server by mail. Mail games for "
                "your games, or challenge hex someone@example.org days=3."
            )
        if verb == "games":
            me, guild = await self._known(sender)
            listed = await self.service.lookups.games(guild, player_id=me.id, status="active")
            if not listed:
                return "You have no games under way."
            return "Your games: " + "; ".join(_game_line(g, me.id) for g in listed) + "."
        if verb == "challenge":
            return await self._challenge(sender, args)
        if verb == "help":
            return HELP
        return f"I don't know {shown(verb or 'an empty mail')}: mail help for the commands."

    async def _known(self, sender: str) -> tuple[Player, int]:
        """The player mailing and their server (a Discord player's: the one server that
        takes players by mail)."""
        found = await self.service.mail.player_by_address(sender)
        if found is None:
            raise Refused(
                "I don't know this address: mail join first.", code=ServiceCode.NOT_SEATED
            )
        player, guild = found
        if guild is None:
            guild = (await self.service.mail.mail_guild()).guild_id
        return player, guild

    async def _challenge(self, sender: str, args: list[str]) -> str:
        """challenge GAME ADDRESS [days=N] [first=challenger|opponent|random] [option=value ...]"""
        me, guild = await self._known(sender)
        server = await self.service.mail.mail_guild(guild)
        if not server.email or server.email_channel is None:
            raise Refused("That server takes no players by mail.", code=ServiceCode.BAD_SETTING)
        plain = [a for a in args if "=" not in a]
        keyed = dict(a.split("=", 1) for a in args if "=" in a)
        if len(plain) != 2:
            raise Refused(
                "Write challenge, the game and the address: challenge hex ann@example.org.",
                code=ServiceCode.USAGE,
            )
        game_name, address = plain
        opponent = await self.service.mail.mail_opponent(guild, address)
        days = parse_days(keyed.pop("days", None), unset="default")
        result = await self.service.challenges.challenge(
            Place(guild, server.email_channel),
            me,
            game_name.lower(),
            opponents=[opponent],
            options=keyed,
            days_per_move=days,
            first=keyed.pop("first", "random"),
        )
        await self._deliver(result)
        return ""


@dataclass(frozen=True, slots=True)
class Mail:
    """What the desk needs of an inbound mail (bot/email/reading.py reads it)."""

    recipients: list[str]  # lower case: the envelope's, else the headers'
    automatic: bool
    bounced: tuple[str, ...]  # the addresses a hard bounce gives up on
    bounce_ids: tuple[str, ...]  # the Message-IDs it quotes of the mail that failed
    sender: str | None
    name: str  # the From's display name, fit for a header
    message_id: str
    too_big: str | None  # the refusal of a mail too big
    command: str


def read(raw: bytes, recipients: Sequence[str]) -> Mail:
    """Read a mail's bytes: pure, never raises (reading.py's functions never do)."""
    message = parse(raw)
    failed = bounce(message)
    return Mail(
        recipients=[a.lower() for a in recipients] or _header_recipients(message),
        automatic=automatic(message),
        bounced=failed.recipients if failed is not None and failed.hard else (),
        bounce_ids=failed.message_ids if failed is not None else (),
        sender=address_of(message),
        name=name_of(message),
        message_id=_header(message, "Message-ID")[:200],
        too_big=too_big(raw, message),
        command=command_text(message),
    )


def read_plain(raw: bytes, recipients: Sequence[str]) -> Mail | None:
    """`read` of a small plain-text mail that came with its recipients (reading.plain);
    None for any other, which `read` reads."""
    fields = plain(raw) if recipients else None
    if fields is None:
        return None
    return Mail(
        recipients=[a.lower() for a in recipients],
        automatic=fields.automatic,
        bounced=(),
        bounce_ids=(),
        sender=fields.sender,
        name=fields.name,
        message_id=fields.message_id,
        too_big=None,
        command=fields.command,
    )


def _header_recipients(message: EmailMessage) -> list[str]:
    try:
        values = [str(v) for name in RECIPIENT_HEADERS for v in (message.get_all(name) or [])]
    except Exception:  # a header the policy cannot parse: no recipients read from them
        return []
    return _addresses(values)


def _addresses(values: Iterable[str]) -> list[str]:
    try:
        return [a.strip().lower() for _, a in getaddresses(list(values)) if "@" in a]
    except Exception:  # getaddresses on garbage: no recipients read
        return []


def _header(message: EmailMessage, name: str) -> str:
    """A header's value fit for a header, "" when absent or beyond reading."""
    try:
        return header_safe(str(message.get(name, "")))
    except Exception:  # a header the policy cannot parse
        return ""


def _game_line(game: GameSummary, player_id: int) -> str:
    turn = "your move" if game.player_to_move == player_id else "waiting"
    return f"#{game.id} {game.title} ({turn})"
