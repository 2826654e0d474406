"""Sending mail through the operator's server (EMAIL_SMTP_URL), with aiosmtplib.

smtps:// is TLS from the first byte (usually port 465); smtp:// upgrades with STARTTLS
whenever the server offers it, and insists on it when the URL carries a login: a
password never crosses the network in the clear.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from email.message import Message
from urllib.parse import unquote, urlsplit

import aiosmtplib

from bot.email.compose import written

TIMEOUT_SECONDS = 30.0


@dataclass(frozen=True, slots=True)
class SmtpServer:
    host: str
    port: int
    tls: bool  # TLS from the start (smtps://)
    username: str | None
    password: str | None

    @classmethod
    def from_url(cls, url: str) -> SmtpServer:
        """The server of a URL the settings checked: smtp[s]://[user:password@]host[:port]."""
        parts = urlsplit(url)
        tls = parts.scheme == "smtps"
        return cls(
            host=parts.hostname or "localhost",
            port=parts.port or (465 if tls else 587),
            tls=tls,
            username=None if parts.username is None else unquote(parts.username),
            password=None if parts.password is None else unquote(parts.password),
        )


class Mailer:
    """Sends one mail at a time through one server (a connection each: mail is rare)."""

    def __init__(self, server: SmtpServer, sender: str, local_hostname: str) -> None:
        self.server = server
        self.sender = sender  # the envelope's MAIL FROM
        # the name said in EHLO: aiosmtplib's default, socket.getfqdn(), is a blocking
        # DNS lookup (half a second on some hosts), on the event loop, for every mail
        self.local_hostname = local_hostname

    async def send(self, message: Message, to: str) -> str:
        """Send `message` to `to`; the server's last answer ("250 OK ..."). Raises
        aiosmtplib's errors (refused, unreachable): the outbox tries again. The mail is
        written out in a thread: a board's mail is milliseconds of CPU."""
        server = self.server
        raw = await asyncio.to_thread(written, message)
        _refused, answer = await aiosmtplib.send(
            raw,
            sender=self.sender,
            recipients=[to],
            hostname=server.host,
            port=server.port,
            username=server.username,
            password=server.password,
            use_tls=server.tls,
            start_tls=False if server.tls else (True if server.username else None),
            timeout=TIMEOUT_SECONDS,
            local_hostname=self.local_hostname,
        )
        return answer
