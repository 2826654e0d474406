"""Sending mail through the operator's server (EMAIL_SMTP_URL), with aiosmtplib.

smtps:// is TLS from the first byte (usually port 465); smtp:// upgrades with STARTTLS
whenever the server offers it, and insists on it when the URL carries a login: a
password never crosses the network in the clear.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

import aiosmtplib

from bot.email.compose import SmtpReady, ready_for_data

TIMEOUT_SECONDS = 30.0
#: An open connection unused this long is closed rather than used (servers drop idle
#: clients after a few minutes).
IDLE_SECONDS = 60.0


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
    """Sends mail through one server over a few connections kept open between mails (at
    most `connections` at once; one waiting longer than IDLE_SECONDS is closed rather
    than used: servers drop idle clients). A connection costs six round trips and a
    TLS handshake; a mail over an open one, four round trips."""

    def __init__(
        self, server: SmtpServer, sender: str, local_hostname: str, *, connections: int = 4
    ) -> None:
        self.server = server
        self.sender = sender  # the envelope's MAIL FROM
        # the name said in EHLO: aiosmtplib's default, socket.getfqdn(), is a blocking
        # DNS lookup (half a second on some hosts), on the event loop, for every mail
        self.local_hostname = local_hostname
        self.idle: list[tuple[float, aiosmtplib.SMTP]] = []  # (when it was last used, it)
        self.slots = asyncio.Semaphore(connections)

    async def send(self, raw: bytes, to: str) -> str:
        """Send the mail `raw` (compose.mail's bytes) to `to`; the server's last answer
        ("250 OK ..."). Raises aiosmtplib's errors (refused, unreachable): the outbox
        tries again. An open connection the server dropped meanwhile is replaced once."""
        async with self.slots:
            client, reused = await self._client()
            try:
                answer = await self._transaction(client, to, raw)
            except (aiosmtplib.SMTPServerDisconnected, ConnectionError):
                client.close()
                if not reused:
                    raise
                client = await self._connect()
                try:
                    answer = await self._transaction(client, to, raw)
                except BaseException:
                    client.close()
                    raise
            except BaseException:  # a refusal or a timeout: the connection is not trusted
                client.close()
                raise
            self.idle.append((time.monotonic(), client))
            return answer

    async def _transaction(self, client: aiosmtplib.SMTP, to: str, raw: bytes) -> str:
        """MAIL, RCPT, DATA: the server's last answer. aiosmtplib's `sendmail` passes
        over the whole mail three times (its line endings made CRLF twice, once to
        measure it; lines starting with a dot doubled), 0.5 ms each for a mail with a
        board; a mail already in SMTP's form (compose.mail's, marked `SmtpReady`, or
        one `ready_for_data` finds so) is written after DATA as it is, the same bytes
        those passes would give."""
        if not (isinstance(raw, SmtpReady) or ready_for_data(raw)):
            _refused, answer = await client.sendmail(self.sender, [to], raw)
            return answer
        size = [f"size={len(raw)}"] if client.supports_extension("size") else []
        await client.mail(self.sender, options=size)
        await client.rcpt(to)
        started = await client.execute_command(b"DATA")
        if started.code != 354:
            raise aiosmtplib.SMTPDataError(started.code, started.message)
        protocol = client.protocol
        if protocol is None:
            raise aiosmtplib.SMTPServerDisconnected("Connection lost")
        protocol.write(raw + b".\r\n")
        done = await protocol.read_response(timeout=TIMEOUT_SECONDS)
        if done.code != 250:
            raise aiosmtplib.SMTPDataError(done.code, done.message)
        return done.message

    async def _client(self) -> tuple[aiosmtplib.SMTP, bool]:
        """An open connection (True: one used before), else a new one."""
        while self.idle:
            used, client = self.idle.pop()
            if client.is_connected and time.monotonic() - used < IDLE_SECONDS:
                return client, True
            client.close()
        return await self._connect(), False

    async def _connect(self) -> aiosmtplib.SMTP:
        server = self.server
        client = aiosmtplib.SMTP(
            hostname=server.host,
            port=server.port,
            username=server.username,
            password=server.password,
            use_tls=server.tls,
            start_tls=False if server.tls else (True if server.username else None),
            timeout=TIMEOUT_SECONDS,
            local_hostname=self.local_hostname,
        )
        await client.connect()
        return client

    async def close(self) -> None:
        """Say goodbye on the connections kept open."""
        idle, self.idle = self.idle, []
        for _, client in idle:
            try:
                await client.quit()
            except (aiosmtplib.SMTPException, OSError):
                client.close()
