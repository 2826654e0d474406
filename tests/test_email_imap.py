"""The IMAP poller against a real Dovecot: every mail once, marked seen only after it was
received, a failure kept for the next pass, IDLE, polling, TLS both ways, a restart."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Iterator

import pytest

from bot.email.imap import FETCH_BYTES, ImapPoller, Mailbox
from tests.conftest import Clock
from tests.mailkit import fail_once, mail_world, move_mail
from tests.mailserver import INSTALL, Dovecot, installed
from tests.test_email import address_to_move, started

#: Time for what happens at once on loopback (a poller's first pass): a bound, not a pause.
SOON = 10.0


@pytest.fixture(scope="module")
def dovecot() -> Iterator[Dovecot]:
    if not installed():
        pytest.skip(INSTALL)
    server = Dovecot()
    try:
        server.start()
        yield server
    finally:  # a server that did not start leaves no directory behind either
        server.close()


@pytest.fixture
def mailbox(dovecot: Dovecot, request: pytest.FixtureRequest) -> str:
    """A mailbox of its own for each test."""
    name = request.node.name.replace("[", "-").replace("]", "")
    dovecot.create(name)
    return name


def mail(number: int, body: str = "d5") -> bytes:
    return f"From: ann@example.org\r\nSubject: move {number}\r\n\r\n{body}\r\n".encode()


class Inbox:
    """The poller's `receive`: what came, in order; a mail can be made to fail once."""

    def __init__(self) -> None:
        self.received: list[bytes] = []
        self.fail_once: set[bytes] = set()
        self.arrived = asyncio.Condition()

    async def receive(self, raw: bytes) -> None:
        if raw in self.fail_once:
            self.fail_once.discard(raw)
            raise RuntimeError("the database is down")
        async with self.arrived:
            self.received.append(raw)
            self.arrived.notify_all()

    async def wait_for(self, count: int, seconds: float = SOON) -> None:
        async with self.arrived:
            await asyncio.wait_for(
                self.arrived.wait_for(lambda: len(self.received) >= count), seconds
            )


@pytest.fixture
async def inbox() -> Inbox:
    return Inbox()


@contextlib.asynccontextmanager
async def running(poller: ImapPoller) -> AsyncIterator[None]:
    """The poller runs inside; on leaving, it is stopped and has finished."""
    task = asyncio.create_task(poller.run())
    try:
        yield
    finally:
        poller.stop()
        await asyncio.wait_for(task, SOON)


def poller_for(dovecot: Dovecot, url: str, inbox: Inbox, poll_seconds: float = 60) -> ImapPoller:
    return ImapPoller(
        url,
        inbox.receive,
        poll_seconds=poll_seconds,
        ssl_context=dovecot.ssl_context,
        backoff_seconds=(0.05, 0.2),
    )


@pytest.mark.parametrize("scheme,user", [("imap", "ann"), ("imaps", "ann"), ("imap", "plain")])
async def test_every_unseen_mail_reaches_receive_once_then_is_seen(
    dovecot: Dovecot, mailbox: str, inbox: Inbox, scheme: str, user: str
) -> None:
    """STARTTLS on imap://, TLS on imaps://; IDLE for ann, polling for plain."""
    if user != "ann":
        dovecot.create(mailbox, user=user)
    dovecot.deliver(mailbox, mail(1), mail(2), user=user)
    url = dovecot.url(mailbox, user=user, scheme=scheme)
    async with running(poller_for(dovecot, url, inbox, poll_seconds=0.2)):
        await inbox.wait_for(2)
        dovecot.deliver(mailbox, mail(3), user=user)
        await inbox.wait_for(3)
    assert inbox.received == [mail(1), mail(2), mail(3)]
    assert dovecot.unseen(mailbox, user=user) == 0
    logins = dovecot.logins()
    assert logins and all(", TLS, " in line for line in logins), logins  # never in clear

    async with running(poller_for(dovecot, url, inbox, poll_seconds=0.2)):  # nothing new
        await asyncio.sleep(0.3)
    assert len(inbox.received) == 3


async def test_a_failing_receive_leaves_the_mail_for_the_next_pass(
    dovecot: Dovecot, mailbox: str, inbox: Inbox, caplog: pytest.LogCaptureFixture
) -> None:
    dovecot.deliver(mailbox, mail(1), mail(2), mail(3))
    inbox.fail_once.add(mail(2))
    poller = poller_for(dovecot, dovecot.url(mailbox), inbox, poll_seconds=0.3)
    with caplog.at_level(logging.ERROR, "paperboard.email.imap"):
        async with running(poller):
            await inbox.wait_for(2)
            assert inbox.received == [mail(1), mail(3)]
            await inbox.wait_for(3)  # the next pass: the IDLE ended after poll_seconds
    assert inbox.received == [mail(1), mail(3), mail(2)]
    assert dovecot.unseen(mailbox) == 0
    assert "stays unseen for the next pass" in caplog.text
    assert "the database is down" in caplog.text


async def test_idle_wakes_the_poller_when_a_mail_arrives(
    dovecot: Dovecot, mailbox: str, inbox: Inbox
) -> None:
    dovecot.deliver(mailbox, mail(1))
    poller = poller_for(dovecot, dovecot.url(mailbox), inbox, poll_seconds=60)
    async with running(poller):
        await inbox.wait_for(1)
        await asyncio.sleep(0.2)  # now in IDLE: the next pass would be a minute away
        sent = time.monotonic()
        await asyncio.to_thread(dovecot.deliver, mailbox, mail(2))
        await inbox.wait_for(2)
        assert time.monotonic() - sent < 1.0


async def test_a_server_restart_is_survived(dovecot: Dovecot, mailbox: str, inbox: Inbox) -> None:
    dovecot.deliver(mailbox, mail(1))
    poller = poller_for(dovecot, dovecot.url(mailbox), inbox, poll_seconds=60)
    async with running(poller):
        await inbox.wait_for(1)
        await asyncio.to_thread(dovecot.stop)
        await asyncio.sleep(0.2)  # a few attempts refused while it is down
        await asyncio.to_thread(dovecot.start)
        dovecot.deliver(mailbox, mail(2))
        await inbox.wait_for(2)
    assert inbox.received == [mail(1), mail(2)]


async def test_a_mail_over_the_size_limit_is_read_only_so_far(
    dovecot: Dovecot, mailbox: str, inbox: Inbox
) -> None:
    huge = mail(1, "x" * 100 + "\r\n") * 4000  # about 400 KB
    dovecot.deliver(mailbox, huge)
    async with running(poller_for(dovecot, dovecot.url(mailbox), inbox)):
        await inbox.wait_for(1)
    assert inbox.received == [huge[:FETCH_BYTES]]


async def test_a_refused_login_is_logged_without_the_password_and_the_poller_goes_on(
    dovecot: Dovecot, mailbox: str, inbox: Inbox, caplog: pytest.LogCaptureFixture
) -> None:
    """One refusal only: Dovecot makes each further one from the same address wait longer."""
    url = dovecot.url(mailbox).replace(":secret@", ":wrong@")
    poller = poller_for(dovecot, url, inbox)
    with caplog.at_level(logging.WARNING, "paperboard.email.imap"):
        async with running(poller), asyncio.timeout(SOON):
            while "login refused" not in caplog.text:
                await asyncio.sleep(0.02)
    assert "connecting again" in caplog.text
    assert "wrong" not in caplog.text


async def test_a_server_that_stops_answering_is_left_and_tried_again(
    inbox: Inbox, caplog: pytest.LogCaptureFixture
) -> None:
    """A half-open connection: the server greets and logs in, then never answers again."""
    connections = 0

    async def silent_after_login(
        reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        nonlocal connections
        connections += 1
        writer.write(b"* OK [CAPABILITY IMAP4rev1] ready\r\n")
        while line := await reader.readline():
            tag, _, command = line.decode().partition(" ")
            if command.startswith("CAPABILITY"):
                writer.write(f"* CAPABILITY IMAP4rev1\r\n{tag} OK done\r\n".encode())
            elif command.startswith("LOGIN"):
                writer.write(f"{tag} OK logged in\r\n".encode())

    server = await asyncio.start_server(silent_after_login, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    poller = ImapPoller(
        f"imap://ann:secret@127.0.0.1:{port}/INBOX",
        inbox.receive,
        timeout_seconds=0.2,
        backoff_seconds=(0.05, 0.05),
    )
    async with server:
        with caplog.at_level(logging.WARNING, "paperboard.email.imap"):
            async with running(poller), asyncio.timeout(SOON):
                while connections < 2:
                    await asyncio.sleep(0.02)
    assert "the server did not answer in 0.2 s; connecting again" in caplog.text


@pytest.mark.parametrize(
    "url,sentence",
    [
        ("pop3://a:b@host/INBOX", "must start with imaps:// or imap://"),
        ("imaps://host/INBOX", "needs a user, a password and a host"),
        ("imaps://a:b@host:99999/", "cannot be read"),
    ],
)
def test_a_bad_url_is_one_sentence(url: str, sentence: str) -> None:
    with pytest.raises(ValueError, match=sentence):
        Mailbox.from_url(url)


def test_the_url_names_the_mailbox() -> None:
    mailbox = Mailbox.from_url("imaps://play%40example.org:p%2Fss@mail.example.org/Paper%20board")
    assert (mailbox.user, mailbox.password) == ("play@example.org", "p/ss")
    assert (mailbox.host, mailbox.port, mailbox.name, mailbox.tls) == (
        "mail.example.org",
        993,
        "Paper board",
        True,
    )
    plain = Mailbox.from_url("imap://a:b@127.0.0.1")
    assert (plain.port, plain.name, plain.tls, plain.loopback) == (143, "INBOX", False, True)
    assert not Mailbox.from_url("imap://a:b@mail.example.org").loopback


async def test_a_move_whose_handling_failed_is_played_on_the_next_pass(
    dovecot: Dovecot, mailbox: str, database_url: str, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The desk behind the poller: a move mail whose handling failed stays unseen, and
    the next pass plays it and mails it, once."""
    async with mail_world(database_url, clock) as world:
        game_id = await started(world)
        mover = await address_to_move(world, game_id)
        token = str(world.capture.last(mover)["Reply-To"])
        before = len(world.capture.mails)
        fail_once(monkeypatch, world.service.play, "move", RuntimeError("the database is down"))
        dovecot.deliver(mailbox, move_mail(mover, token, "a1", "<imap@home.test>"))
        poller = ImapPoller(
            dovecot.url(mailbox),
            world.runner.desk.receive,
            poll_seconds=0.2,
            ssl_context=dovecot.ssl_context,
            backoff_seconds=(0.05, 0.2),
        )
        async with running(poller), asyncio.timeout(SOON):
            while dovecot.unseen(mailbox) or len(world.capture.mails) < before + 2:
                await asyncio.sleep(0.05)
            await asyncio.sleep(0.3)  # another pass: nothing more
        assert (await world.service.mail.mail_game(game_id)).ply == 1
        assert len(world.capture.mails) == before + 2  # the move, to each player once
