"""The bot's own SMTP listener (aiosmtpd, on the bot's event loop): mail for EMAIL_DOMAIN
only, never an open relay.

A recipient of another domain is refused at RCPT with 550; a mail over `SMTP_BYTES` is
refused by the SMTP session itself (552), so no one can make the bot hold more. A mail
taken is handled before the session answers 250: a crash before the answer leaves the
mail with the sending server, which tries again.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from aiosmtpd.smtp import SMTP, Envelope, Session

from bot.email.reading import MAX_BYTES
from bot.service import MailInFlight

log = logging.getLogger("paperboard.email")

#: The session's own limit: above the size the bot reads (a mail between the two gets the
#: bot's short refusal; one above this, the sending server's bounce).
SMTP_BYTES = 4 * MAX_BYTES
MAX_RECIPIENTS = 10
TIMEOUT_SECONDS = 60.0
Receive = Callable[[bytes, Sequence[str], str | None], Awaitable[None]]


class Handler:
    """aiosmtpd's hooks: who may be written to, and what is done with a mail."""

    def __init__(self, domain: str, receive: Receive) -> None:
        self.domain = domain.lower()
        self.receive = receive

    async def handle_RCPT(  # aiosmtpd's hook name
        self,
        server: SMTP,
        session: Session,
        envelope: Envelope,
        address: str,
        rcpt_options: list[str],
    ) -> str:
        if address.rpartition("@")[2].lower() != self.domain:
            return f"550 5.7.1 Relaying denied: this server takes mail for {self.domain} only"
        if len(envelope.rcpt_tos) >= MAX_RECIPIENTS:
            return "452 4.5.3 Too many recipients"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(  # aiosmtpd's hook name
        self, server: SMTP, session: Session, envelope: Envelope
    ) -> str:
        raw = envelope.original_content or envelope.content
        if not isinstance(raw, bytes):
            return "554 5.6.0 Unreadable message"
        try:  # with the reverse path: `<>` is a machine's, never answered
            await self.receive(raw, list(envelope.rcpt_tos), envelope.mail_from)
        except MailInFlight:  # the same mail, being handled meanwhile: nothing failed
            log.info("an inbound mail came again while it was being handled; try again later")
            return "451 4.3.0 Try again later"
        except Exception:  # the bot's part failed (database, mail out): the sender retries
            log.exception("an inbound mail could not be handled; the sender will try again")
            return "451 4.3.0 Try again later"
        return "250 OK"


async def listen(host: str, port: int, domain: str, receive: Receive) -> asyncio.Server:
    """Start the listener on this event loop; close the returned server to stop it."""
    handler = Handler(domain, receive)
    loop = asyncio.get_running_loop()

    def session() -> Any:
        return SMTP(
            handler,
            data_size_limit=SMTP_BYTES,
            hostname=domain,
            timeout=TIMEOUT_SECONDS,
            loop=loop,
        )

    return await loop.create_server(session, host, port)


def host_and_port(listen_setting: str) -> tuple[str, int]:
    """EMAIL_LISTEN's host and port (the settings checked its form)."""
    host, _, port = listen_setting.rpartition(":")
    return host.strip("[]"), int(port)
