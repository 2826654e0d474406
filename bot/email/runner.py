"""Mail beside the process's adapter: the announcer (results mailed from the outbox), the
desk (mail in), the SMTP listener, the IMAP poller, and the codes and sign-in links
mailed every few seconds. `start_mail` puts them together from the settings;
`MailRunner.stop` ends them.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from datetime import UTC, datetime

import aiosmtplib

from bot.email.announce import MailAnnouncer
from bot.email.compose import Envelope, mail
from bot.email.desk import MailDesk
from bot.email.imap import ImapPoller
from bot.email.listener import host_and_port, listen
from bot.email.smtp import Mailer, SmtpServer
from bot.service import GameService, clean_address
from bot.service.core.outbox import Publish
from bot.settings import Settings
from bot.tasks import stop_task

log = logging.getLogger("paperboard.email")

CODES_SECONDS = 5.0  # how often codes and sign-in links asked for are mailed


class MailNotSent(Exception):
    """The server refused the mail or could not be reached: its words."""


class MailRunner:
    """What `start_mail` started."""

    def __init__(self, announcer: MailAnnouncer, desk: MailDesk) -> None:
        self.announcer = announcer
        self.desk = desk
        self.listener: asyncio.Server | None = None
        self.tasks: list[asyncio.Task[None]] = []
        self.stoppers: list[Callable[[], object]] = []

    @property
    def port(self) -> int | None:
        """The listener's port (EMAIL_LISTEN may ask for port 0: any free one)."""
        if self.listener is None or not self.listener.sockets:
            return None
        return int(self.listener.sockets[0].getsockname()[1])

    async def mail_codes(self) -> None:
        """Mail the codes and sign-in links asked for, every `CODES_SECONDS`."""
        while True:
            try:
                await self.announcer.send_codes()
                await self.announcer.send_sign_in_links()
            except Exception:  # the server is down: they wait for the next pass
                log.exception("codes or sign-in links could not be mailed; trying again")
            await asyncio.sleep(CODES_SECONDS)

    async def stop(self) -> None:
        for stop in self.stoppers:
            stop()
        for task in self.tasks:
            await stop_task(task)
        if self.listener is not None:
            self.listener.close()
            await self.listener.wait_closed()
        await self.announcer.mailer.close()


def mailer_of(settings: Settings) -> Mailer:
    """The mailer of EMAIL_SMTP_URL, sending as EMAIL_FROM."""
    assert settings.email_smtp_url is not None and settings.email_from is not None
    server = SmtpServer.from_url(settings.email_smtp_url.get_secret_value())
    return Mailer(server, settings.email_from, settings.mail_domain or "localhost")


async def start_mail(
    service: GameService,
    settings: Settings,
    publish: Publish,
    clock: Callable[[], datetime],
    *,
    codes: bool = True,
) -> MailRunner | None:
    """Mail for this process, when EMAIL_SMTP_URL is set (None otherwise): every result
    the process delivers is also mailed; the listener (EMAIL_LISTEN) and the IMAP poller
    (EMAIL_IMAP_URL) take mail in. `publish` is the process's own adapter's delivery
    (Discord's posts, the console's prints): what a mail does is announced there too."""
    if settings.email_smtp_url is None or settings.email_secret is None:
        return None
    mailer = mailer_of(settings)
    announcer = MailAnnouncer(service, settings, mailer, clock)
    secrets = [
        secret.get_secret_value()
        for secret in (settings.email_secret, settings.email_old_secret)
        if secret is not None
    ]
    desk = MailDesk(service, announcer, publish, secrets, clock)
    service.records.also_publish.append(announcer.publish)
    runner = MailRunner(announcer, desk)
    if settings.email_listen is not None:
        host, port = host_and_port(settings.email_listen)
        runner.listener = await listen(host, port, announcer.domain, desk.receive)
        log.info("taking mail for %s on %s", announcer.domain, settings.email_listen)
    if settings.email_imap_url is not None:
        poller = ImapPoller(settings.email_imap_url.get_secret_value(), desk.receive)
        runner.stoppers.append(poller.stop)
        runner.tasks.append(asyncio.create_task(poller.run(), name="paperboard-imap"))
        log.info("reading the mailbox of EMAIL_IMAP_URL")
    if codes:
        runner.tasks.append(asyncio.create_task(runner.mail_codes(), name="paperboard-codes"))
    return runner


async def test_mail(settings: Settings, address: str) -> str:
    """Send one mail to `address` through EMAIL_SMTP_URL; the server's answer."""
    assert settings.email_smtp_url is not None and settings.email_from is not None
    to = clean_address(address)
    message = mail(
        Envelope(settings.email_from, to, "", settings.mail_domain or "localhost"),
        "Paperboard: a test mail",
        ["This mail tests Paperboard's settings: it went through EMAIL_SMTP_URL."],
        when=datetime.now(UTC),
    )
    mailer = mailer_of(settings)
    try:
        return await mailer.send(message, to)
    except (aiosmtplib.SMTPException, OSError) as failed:
        raise MailNotSent(str(failed) or type(failed).__name__) from None
    finally:
        await mailer.close()
