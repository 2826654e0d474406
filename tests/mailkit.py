"""Mail in tests, over real SMTP on loopback: a capture server (aiosmtpd) the bot sends
through, the bot's own listener the mailboxes send to, and the mailboxes themselves."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import datetime
from email import message_from_bytes, policy
from email.message import EmailMessage
from email.utils import formataddr, make_msgid
from typing import Any

import aiosmtplib
import pytest
from aiosmtpd.smtp import SMTP, Envelope, Session

from bot.email.runner import MailRunner, start_mail
from bot.service import GameService, Player, Result
from bot.settings import Settings
from bot.store import Database

DOMAIN = "paper.test"
BOT = f"play@{DOMAIN}"
SECRET = "a secret of twenty chars"
GUILD, CHANNEL = 5, 6


@dataclass
class Capture:
    """An SMTP server that keeps every mail it is given, by recipient; while `refusing`,
    it takes none (the operator's server down)."""

    mails: list[tuple[tuple[str, ...], EmailMessage]] = field(default_factory=list)
    refusing: bool = False

    async def handle_DATA(  # aiosmtpd's hook name
        self, server: SMTP, session: Session, envelope: Envelope
    ) -> str:
        if self.refusing:
            return "451 4.3.0 The server is down for the test"
        raw = envelope.original_content or envelope.content
        assert isinstance(raw, bytes)
        parsed = message_from_bytes(raw, policy=policy.default)
        assert isinstance(parsed, EmailMessage)
        self.mails.append((tuple(a.lower() for a in envelope.rcpt_tos), parsed))
        return "250 OK captured"

    def inbox(self, address: str) -> list[EmailMessage]:
        return [mail for to, mail in self.mails if address.lower() in to]

    def last(self, address: str) -> EmailMessage:
        return self.inbox(address)[-1]


async def serve(handler: object) -> tuple[asyncio.Server, int]:
    loop = asyncio.get_running_loop()
    # a hostname given: aiosmtpd's default is a DNS lookup (socket.getfqdn) per session
    server = await loop.create_server(
        lambda: SMTP(handler, hostname="capture.test", loop=loop), "127.0.0.1", 0
    )
    return server, int(server.sockets[0].getsockname()[1])


def mail_settings(database_url: str, smtp_port: int, **more: Any) -> Settings:
    return Settings(
        database_url=database_url,
        render_processes=0,
        email_from=BOT,
        email_secret=SECRET,
        email_smtp_url=f"smtp://127.0.0.1:{smtp_port}",
        email_listen="127.0.0.1:0",
        _env_file=None,  # type: ignore[call-arg]
        **more,
    )


@dataclass
class MailWorld:
    service: GameService
    runner: MailRunner
    capture: Capture
    published: list[Result]

    @property
    def port(self) -> int:
        assert self.runner.port is not None
        return self.runner.port

    async def send(
        self,
        sender: str,
        to: str,
        body: str,
        *,
        name: str = "",
        subject: str = "",
        headers: Mapping[str, str] | None = None,
    ) -> None:
        """A mail from `sender` to the bot's listener."""
        message = EmailMessage()
        message["From"] = formataddr((name, sender))
        message["To"] = to
        message["Subject"] = subject
        message["Message-ID"] = make_msgid(domain="home.test")  # as mail clients write
        for key, value in (headers or {}).items():
            message[key] = value
        message.set_content(body)
        await self.send_raw(sender, to, message.as_bytes())

    async def send_raw(self, sender: str, to: str, raw: bytes, *, port: int | None = None) -> None:
        """`raw` over SMTP with `sender` as the reverse path ("": the null one, `<>`), to
        the bot's listener (or the one on `port`)."""
        client = aiosmtplib.SMTP(
            hostname="127.0.0.1", port=port or self.port, local_hostname="home.test"
        )
        async with client:  # `aiosmtplib.send` wants a sender: no null path
            await client.sendmail(sender, [to], raw)

    async def reply(self, address: str, body: str) -> None:
        """`address` answers the last mail the bot sent them."""
        last = self.capture.last(address)
        await self.send(address, str(last["Reply-To"]), f"{body}\n\n> {last['Subject']}")

    async def linked(self, player: Player, address: str) -> None:
        """A Discord player's address linked and confirmed by the code mailed to it."""
        await self.service.mail.link_email(player, address)
        await self.runner.announcer.send_codes()
        code = self.said(address).split("code is ")[1][:6]
        await self.service.mail.confirm_email(player, code)

    def said(self, address: str) -> str:
        """The text of the last mail to `address`."""
        return self.all_said(address)[-1]

    def all_said(self, address: str) -> list[str]:
        """The texts of the mails to `address`, oldest first."""
        bodies = [mail.get_body(preferencelist=("plain",)) for mail in self.capture.inbox(address)]
        return [str(body.get_content()) for body in bodies if isinstance(body, EmailMessage)]


def move_mail(sender: str, to: str, text: str, message_id: str) -> bytes:
    """The bytes of a reply from `sender` to `to` whose first line is `text`."""
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = sender, to, "Re: your move"
    message["Message-ID"] = message_id
    message.set_content(text)
    return message.as_bytes()


def fail_once(monkeypatch: pytest.MonkeyPatch, target: object, name: str, error: Exception) -> None:
    """`target.name` raises `error` the next time it is called, then works again."""
    real = getattr(target, name)

    async def failing(*args: Any, **kwargs: Any) -> Any:
        monkeypatch.setattr(target, name, real)
        raise error

    monkeypatch.setattr(target, name, failing)


@asynccontextmanager
async def mail_world(
    database_url: str, clock: Callable[[], datetime], **settings: Any
) -> AsyncIterator[MailWorld]:
    """A service with mail: a server (GUILD) that lets players in by mail, the bot's
    listener, a capture server for what it sends; `published` holds what the process's
    own adapter was given."""
    capture = Capture()
    capture_server, smtp_port = await serve(capture)
    configured = mail_settings(database_url, smtp_port, **settings)
    database = await Database.open(database_url)
    service = GameService(database, configured, clock=clock, rng=random.Random(7))
    published: list[Result] = []

    async def publish(result: Result) -> None:
        published.append(result)

    runner = await start_mail(service, configured, publish, clock, codes=False)
    assert runner is not None
    await service.preferences.guild_settings(GUILD, email=True, email_channel=CHANNEL)
    try:
        yield MailWorld(service, runner, capture, published)
    finally:
        await runner.stop()
        capture_server.close()
        await capture_server.wait_closed()
        await service.close()
