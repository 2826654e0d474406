"""The inbox: each inbound mail handled once, by its Message-ID.

The mail adapter claims a mail before it acts (`claim_mail`): a row keyed by its
Message-ID, held by this process (`worker_id`) for a lease. It marks the mail handled
(`mail_handled`) only once its handling is done, answers mailed included; a failure
lets go of it (`let_go_of_mail`), so the mail's next delivery (the sending server's
retry after a 451, the IMAP poller's next pass) is handled in full. A delivery of a
mail that another holds is told to come again (`MailInFlight`): two deliveries of one
mail never act at once, in one process or in several. A process that dies while
handling leaves its claim to run out, or to its successor of the same name, which lets
go of it at start (`release`); the mail's next delivery finds what was committed (a
move played once is not played again: its mails are the outbox's).
"""

from __future__ import annotations

import hashlib
from datetime import timedelta

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.service.core.leases import release as release_rows
from bot.service.core.records import Records
from bot.store.schema import mails_received
from bot.store.upserts import insert_or_nothing

#: Longer than any handling takes (the database's busy wait, the mail server's timeouts).
LEASE = timedelta(minutes=10)
#: Longer than sending servers keep retrying a mail (five days is their usual limit).
KEPT = timedelta(days=30)


class MailInFlight(Exception):
    """Another delivery of this mail is being handled now: the sender comes again later."""


def mail_key(identity: bytes) -> str:
    """The key of a mail whose Message-ID (else, for one without, whose bytes) is
    `identity`: a digest, as a Message-ID's length has no bound."""
    return hashlib.sha256(identity).hexdigest()


class Inbox:
    """Claims on inbound mail (bot/email/desk.py's `receive`)."""

    def __init__(self, records: Records) -> None:
        self.records = records
        self.db = records.db
        self.clock = records.clock
        self.worker_id = records.worker_id

    async def claim_mail(self, key: str) -> bool:
        """Claim the mail of `key` (`mail_key`) for this process: True to handle it, False
        when it was handled already; MailInFlight while another delivery holds it."""
        now = self.clock()
        c = mails_received.c
        claimed = {"claimed_by": self.worker_id, "claimed_until": now + LEASE}
        async with self.db.write() as conn:
            await conn.execute(mails_received.delete().where(c.received_at < now - KEPT))
            inserted = await conn.execute(
                insert_or_nothing(mails_received, conn.dialect.name)
                .values(key=key, received_at=now, handled=False, **claimed)
                .returning(c.key)
            )
            if inserted.first() is not None:
                return True
            taken = await conn.execute(  # one that failed, or whose holder died
                mails_received.update()
                .where(
                    c.key == key,
                    c.handled == sa.false(),
                    sa.or_(c.claimed_until.is_(None), c.claimed_until <= now),
                )
                .values(**claimed)
                .returning(c.key)
            )
            if taken.first() is not None:
                return True
            handled = await conn.scalar(sa.select(c.handled).where(c.key == key))
        if handled:
            return False
        raise MailInFlight("another delivery of this mail is being handled")

    async def mail_handled(self, key: str) -> None:
        """The mail of `key` was handled: any later delivery of it is ignored."""
        async with self.db.write() as conn:
            await conn.execute(
                mails_received.update()
                .where(mails_received.c.key == key)
                .values(handled=True, claimed_until=None)
            )

    async def let_go_of_mail(self, key: str) -> None:
        """Handling the mail of `key` failed: its next delivery is handled at once."""
        c = mails_received.c
        async with self.db.write() as conn:
            await conn.execute(
                mails_received.update()
                .where(c.key == key, c.claimed_by == self.worker_id, c.handled == sa.false())
                .values(claimed_until=None)
            )


async def release(conn: AsyncConnection, worker: str) -> int:
    """Let go of the mails `worker` was handling when it died; how many."""
    return await release_rows(conn, mails_received, worker, mails_received.c.handled == sa.false())
