"""Inbound mail from an ordinary mailbox: an IMAP poller.

`ImapPoller(url, receive).run()` logs in, hands every unseen mail of the mailbox to
`receive` one at a time, and marks it \\Seen only after `receive` returns: a mail whose
`receive` raised stays unseen and comes again on the next pass, so nothing is lost (and a
mail can come twice when the connection drops between the two: `receive` must take a
second copy calmly). Mails stay in the mailbox, marked read: the operator's mail client or
server rules archive them. Between passes it waits with IDLE where the server has it, else
polls; a dropped connection is made again after a growing pause.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import random
import ssl
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlsplit

from aioimaplib import IMAP4, AioImapException, Command

from bot.email.reading import MAX_BYTES
from bot.service import MailInFlight
from bot.tasks import wait_set

log = logging.getLogger("paperboard.email.imap")

#: More than the size limit, so that a mail cut here is refused as too big by its reader;
#: a bigger mail is never read whole.
FETCH_BYTES = MAX_BYTES + 1
PORTS = {"imap": 143, "imaps": 993}

Receive = Callable[[bytes], Awaitable[None]]


class ImapError(Exception):
    """The server refused something the poller needs (a login, the mailbox, a command)."""


#: How connections fail: logged in a line, without a traceback.
EXPECTED = (OSError, TimeoutError, AioImapException, ImapError)


@dataclass(frozen=True, slots=True)
class Mailbox:
    """Where to read: the parts of an `imap://` or `imaps://` URL."""

    tls: bool  # imaps: TLS from the first byte; imap: STARTTLS when the server offers it
    host: str
    port: int
    user: str
    password: str
    name: str  # the mailbox, INBOX when the URL names none

    @classmethod
    def from_url(cls, url: str) -> Mailbox:
        """The URL's mailbox; a ValueError with one sentence when the URL cannot be one."""
        try:
            parts = urlsplit(url)
            port = parts.port
        except ValueError as exc:
            raise ValueError(f"The IMAP URL cannot be read: {exc}.") from None
        if parts.scheme not in PORTS:
            raise ValueError("The IMAP URL must start with imaps:// or imap://.")
        if not parts.hostname or not parts.username or parts.password is None:
            raise ValueError("The IMAP URL needs a user, a password and a host.")
        return cls(
            tls=parts.scheme == "imaps",
            host=parts.hostname,
            port=port or PORTS[parts.scheme],
            user=unquote(parts.username),
            password=unquote(parts.password),
            name=unquote(parts.path.strip("/")) or "INBOX",
        )

    @property
    def loopback(self) -> bool:
        if self.host == "localhost":
            return True
        try:
            return ipaddress.ip_address(self.host).is_loopback
        except ValueError:
            return False


class ImapPoller:
    """Reads a mailbox until `stop()`; see the module's docstring for what it promises."""

    def __init__(
        self,
        url: str,
        receive: Receive,
        *,
        poll_seconds: float = 60.0,
        timeout_seconds: float = 30.0,
        backoff_seconds: tuple[float, float] = (1.0, 300.0),
        ssl_context: ssl.SSLContext | None = None,
    ) -> None:
        """`poll_seconds`: the pause between passes without IDLE, and the longest IDLE
        (a mail whose `receive` failed is tried again after it). `backoff_seconds`: the
        first and the longest pause before connecting again. `ssl_context`: for TLS and
        STARTTLS, the system's trusted certificates by default."""
        self.mailbox = Mailbox.from_url(url)
        self.receive = receive
        self.poll_seconds = poll_seconds
        self.timeout_seconds = timeout_seconds
        self.backoff_seconds = backoff_seconds
        self.ssl_context = ssl_context or ssl.create_default_context()
        self._stopping = asyncio.Event()
        self._logged_in = False

    def stop(self) -> None:
        """Ends `run()` at its next pause (a mail being received is finished first)."""
        self._stopping.set()

    async def run(self) -> None:
        """Reads the mailbox until `stop()` (at once if it came first), connecting again
        after any failure."""
        first, longest = self.backoff_seconds
        pause = first
        while not self._stopping.is_set():
            self._logged_in = False
            try:
                await self._session()
            except Exception as exc:  # any failure of a connection: inbound mail must go on
                if self._logged_in:  # it had worked: start the pauses again from the first
                    pause = first
                jittered = pause * random.uniform(0.5, 1.0)  # pollers of one server not in step
                log.warning(
                    "IMAP %s:%d: %s; connecting again in %.1f s",
                    self.mailbox.host,
                    self.mailbox.port,
                    str(exc) or type(exc).__name__,
                    jittered,
                    exc_info=not isinstance(exc, EXPECTED),  # a surprise gets its traceback
                )
                await self._pause(jittered)
                pause = min(longest, pause * 2)

    async def _session(self) -> None:
        """One connection: log in, then read and wait until `stop()` or a failure."""
        lost = asyncio.Event()
        client = IMAP4(
            host=self.mailbox.host,
            port=self.mailbox.port,
            timeout=self.timeout_seconds,
            conn_lost_cb=lambda _exc: lost.set(),
            ssl_context=self.ssl_context if self.mailbox.tls else None,
        )
        try:
            await client.wait_hello_from_server()
            session = _Session(self, client, lost, self._stopping)
            await session.open()
            self._logged_in = True
            log.info(
                "IMAP %s:%d: reading %s", self.mailbox.host, self.mailbox.port, self.mailbox.name
            )
            while not self._stopping.is_set():
                await session.read_unseen()
                if not self._stopping.is_set():
                    await session.wait()
            await session.command(client.logout())
        finally:
            with contextlib.suppress(Exception):  # the connection may be gone already
                client.protocol.transport.close()

    async def _pause(self, seconds: float) -> None:
        await wait_set(self._stopping, seconds)


class _Session:
    """A logged-in connection: every command is abandoned when the connection drops."""

    def __init__(
        self, poller: ImapPoller, client: IMAP4, lost: asyncio.Event, stopping: asyncio.Event
    ) -> None:
        self.poller = poller
        self.client = client
        self.lost = lost
        self.stopping = stopping

    async def command(self, awaitable: Awaitable[Any], *, waiting: bool = False) -> Any:
        """The command's result; ConnectionError as soon as the connection drops (aioimaplib
        would wait), TimeoutError when the server does not answer within timeout_seconds
        (not while `waiting` for news, which is long by design)."""
        seconds = None if waiting else self.poller.timeout_seconds
        task = asyncio.ensure_future(awaitable)
        lost = asyncio.ensure_future(self.lost.wait())
        try:
            await asyncio.wait({task, lost}, timeout=seconds, return_when=asyncio.FIRST_COMPLETED)
        finally:
            lost.cancel()
        if task.done():
            return task.result()
        task.cancel()
        if self.lost.is_set():
            raise ConnectionError("the server closed the connection")
        raise TimeoutError(f"the server did not answer in {seconds:g} s")

    async def ok(self, awaitable: Awaitable[Any], doing: str) -> Any:
        """The response of a command that must succeed; ImapError with the server's words."""
        response = await self.command(awaitable)
        if response.result != "OK":
            said = b" ".join(line for line in response.lines if isinstance(line, bytes))
            raise ImapError(f"{doing} refused: {said.decode(errors='replace')}")
        return response

    async def open(self) -> None:
        mailbox = self.poller.mailbox
        if not mailbox.tls:
            if self.client.has_capability("STARTTLS"):
                await self.start_tls()
            elif not mailbox.loopback:
                raise ImapError(
                    "the server offers no STARTTLS: use imaps://, the password is not sent in clear"
                )
        await self.ok(self.client.login(mailbox.user, mailbox.password), "login")
        await self.read_capabilities()  # a server may offer more once logged in, or less
        await self.ok(self.client.select(_quoted(mailbox.name)), f"opening {mailbox.name}")

    async def start_tls(self) -> None:
        """STARTTLS (RFC 3501 6.2.1), which aioimaplib lacks: the command, the handshake on
        the same connection, then the capabilities again (they may change under TLS)."""
        protocol = self.client.protocol
        starttls = Command("STARTTLS", protocol.new_tag(), loop=protocol.loop)
        await self.ok(protocol.execute(starttls), "STARTTLS")
        protocol.transport = await self.command(
            asyncio.get_running_loop().start_tls(
                protocol.transport,
                protocol,
                self.poller.ssl_context,
                server_hostname=self.poller.mailbox.host,
            )
        )
        await self.read_capabilities()

    async def read_capabilities(self) -> None:
        """The server's capabilities, asked again: they change with TLS and with a login."""
        await self.command(self.client.protocol.capability())

    async def read_unseen(self) -> None:
        """Every unseen mail to `receive`, one at a time, each marked \\Seen after."""
        found = await self.ok(self.client.uid_search("UNSEEN", charset=None), "searching")
        # aioimaplib gives the words after "* SEARCH", then the tagged status line's text
        uids = [
            word for line in found.lines[:-1] for word in line.decode().split() if word.isdigit()
        ]
        for uid in uids:
            if self.stopping.is_set():
                return
            raw = await self.fetch(uid)
            if raw is None:  # expunged meanwhile
                continue
            try:
                await self.poller.receive(raw)
            except MailInFlight:  # another delivery of it is being handled: nothing failed
                log.info("IMAP: mail %s is being handled already; it stays unseen", uid)
                continue
            except Exception:
                log.exception(
                    "IMAP: receiving mail %s failed; it stays unseen for the next pass", uid
                )
                continue
            await self.ok(
                self.client.uid("store", uid, "+FLAGS.SILENT", r"(\Seen)"), "marking seen"
            )

    async def fetch(self, uid: str) -> bytes | None:
        """The mail's first FETCH_BYTES bytes (the whole of any mail within the limit),
        without marking it seen (PEEK)."""
        response = await self.ok(
            self.client.uid("fetch", uid, f"(BODY.PEEK[]<0.{FETCH_BYTES}>)"), "fetching"
        )
        literal = next((line for line in response.lines if isinstance(line, bytearray)), None)
        return None if literal is None else bytes(literal)

    async def wait(self) -> None:
        """Until there may be new mail: IDLE's news, else `poll_seconds`; or `stop()`."""
        stopping = asyncio.ensure_future(self.stopping.wait())
        try:
            if self.client.has_capability("IDLE"):
                await self.idle(stopping)
            else:
                await self.command(
                    asyncio.wait({stopping}, timeout=self.poller.poll_seconds), waiting=True
                )
        finally:
            stopping.cancel()

    async def idle(self, stopping: asyncio.Future[Any]) -> None:
        idle = await self.command(self.client.idle_start(timeout=self.poller.poll_seconds))
        news = asyncio.ensure_future(self.client.wait_server_push())
        try:
            await self.command(
                asyncio.wait({news, stopping}, return_when=asyncio.FIRST_COMPLETED), waiting=True
            )
        finally:
            news.cancel()
        if news.done() and not news.cancelled():
            log.debug("IMAP: IDLE ends on %s", news.result())
        self.client.idle_done()
        await self.command(idle)


def _quoted(mailbox: str) -> str:
    """A mailbox name as an IMAP quoted string (names may hold spaces)."""
    return '"' + mailbox.replace("\\", "\\\\").replace('"', '\\"') + '"'
