"""Who a browser is: sessions signed in without passwords, and the one-time sign-ins that
open them.

A session is a random secret the browser keeps in a cookie; the database keeps only its
SHA-256 (`web_sessions`), so that whoever reads the table signs no one in. It lasts
`SESSION_DAYS` from its last use, is shared by every process of the database, and ends
when its player signs out (that browser) or signs out everywhere (every browser).

A session is opened by a one-time sign-in (`web_signins`): a link the bot gives its asker
(`/web`, the console's `web`) or mails to a linked address, good for `LINK_MINUTES` and
used once; or an OAuth2 sign-in with Discord, whose `state` is kept here with its PKCE
verifier for `OAUTH_MINUTES`, taken once. A link's secret is random (256 bits), kept as
its digest and marked used in the same statement that checks it: two clicks of one link
open one session.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import sqlalchemy as sa

from bot.service.core.models import Player, Refused, ServiceCode
from bot.service.core.records import Records
from bot.service.core.rules import check_ids
from bot.store.schema import web_sessions, web_signins

#: A session unused this long is over.
SESSION_DAYS = 30
#: A sign-in link mailed or given by the bot works this long, once.
LINK_MINUTES = 15
#: An OAuth2 sign-in must come back from Discord within this.
OAUTH_MINUTES = 10
#: A session's last use is written at most this often (each page read would be a write).
SEEN_EVERY = timedelta(minutes=5)
#: The longest secret a cookie or a link may hold (ours are 43 characters): anything
#: longer is refused before it is hashed.
SECRET_LENGTH = 64
#: How a session was opened.
VIA = ("discord", "mail", "bot", "console")
#: The one sentence of a link that does not sign in.
LINK_USED = (
    "This sign-in link has been used already or has expired: ask for a new one "
    "(/web on Discord, or by mail from the sign-in page)."
)


@dataclass(frozen=True, slots=True)
class WebSession:
    """A signed-in browser: its player, and the token its forms carry."""

    player: Player
    csrf: str
    via: str
    key: str  # the digest of its secret: what signs it out


@dataclass(frozen=True, slots=True)
class LinkToMail:
    """A sign-in link asked for by mail, taken by the mail runner to send."""

    key: str
    player: Player
    secret: str


@dataclass(frozen=True, slots=True)
class NewSession:
    """A session just opened: the secret for the browser's cookie, and the session."""

    secret: str
    session: WebSession


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def fresh_secret() -> str:
    return secrets.token_urlsafe(32)


class Sessions:
    """Sessions and sign-ins (bot/web/auth.py is their door on the web)."""

    def __init__(self, records: Records) -> None:
        self.records = records
        self.db = records.db
        self.clock = records.clock

    async def start(self, player: Player, via: str) -> NewSession:
        """Open a session for `player` (signed in `via` one of `VIA`)."""
        check_ids(player.id)
        if via not in VIA:
            raise ValueError(f"a session is opened via one of {VIA}, not {via!r}")
        secret, csrf, now = fresh_secret(), fresh_secret(), self.clock()
        key = digest(secret)
        async with self.db.write() as conn:
            await conn.execute(
                web_sessions.insert().values(
                    key=key,
                    player_id=player.id,
                    name=player.name[:100],
                    csrf=csrf,
                    via=via,
                    created_at=now,
                    seen_at=now,
                )
            )
        return NewSession(secret, WebSession(player, csrf, via, key))

    async def find(self, secret: str) -> WebSession | None:
        """The session of a cookie's `secret`; None for one signed out, run out or never
        opened."""
        if not secret or len(secret) > SECRET_LENGTH:
            return None
        key, now = digest(secret), self.clock()
        c = web_sessions.c
        async with self.db.read() as conn:
            row = (await conn.execute(sa.select(web_sessions).where(c.key == key))).first()
        if row is None or row.seen_at < now - timedelta(days=SESSION_DAYS):
            return None
        if row.seen_at < now - SEEN_EVERY:
            async with self.db.write() as conn:
                await conn.execute(web_sessions.update().where(c.key == key).values(seen_at=now))
        return WebSession(Player(row.player_id, row.name), row.csrf, row.via, key)

    async def end(self, session: WebSession) -> None:
        """Sign this browser out."""
        async with self.db.write() as conn:
            await conn.execute(web_sessions.delete().where(web_sessions.c.key == session.key))

    async def end_all(self, player_id: int) -> int:
        """Sign `player_id` out everywhere; how many sessions ended."""
        check_ids(player_id)
        async with self.db.write() as conn:
            ended = await conn.execute(
                web_sessions.delete().where(web_sessions.c.player_id == player_id)
            )
        return ended.rowcount or 0

    async def count(self, player_id: int) -> int:
        """How many browsers `player_id` is signed in on."""
        c = web_sessions.c
        async with self.db.read() as conn:
            found = await conn.scalar(
                sa.select(sa.func.count()).select_from(web_sessions).where(c.player_id == player_id)
            )
        return int(found or 0)

    async def issue_link(self, player: Player, kind: str) -> str:
        """A one-time sign-in secret for `player`, given by the bot (`kind` bot) or mailed
        (`kind` mail): the web's address /signin/<secret> opens a session with it."""
        check_ids(player.id)
        if kind not in ("bot", "mail"):
            raise ValueError(f"a sign-in link is the bot's or a mail's, not {kind!r}")
        secret = fresh_secret()
        await self._keep(
            secret, kind, timedelta(minutes=LINK_MINUTES), player_id=player.id, name=player.name
        )
        return secret

    async def mail_link(self, player: Player) -> None:
        """A one-time sign-in link for `player`, to be mailed to their address: its secret
        waits in its row for the mail runner (`take_links_to_mail`), which alone sends it,
        whichever process was asked."""
        check_ids(player.id)
        secret = fresh_secret()
        await self._keep(
            secret,
            "mail",
            timedelta(minutes=LINK_MINUTES),
            player_id=player.id,
            name=player.name,
            secret=secret,
        )

    async def take_links_to_mail(self) -> list[LinkToMail]:
        """The links waiting to be mailed, each taken by one process (its secret cleared
        by the statement that finds it there): none is mailed twice. The sender gives back
        one it could not send (`give_back_link`)."""
        c = web_signins.c
        waiting = (
            c.kind == "mail",
            c.secret.is_not(None),
            c.used == sa.false(),
            c.expires_at > self.clock(),
        )
        async with self.db.read() as conn:
            rows = (await conn.execute(sa.select(web_signins).where(*waiting))).all()
        taken: list[LinkToMail] = []
        for row in rows:
            async with self.db.write() as conn:
                took = await conn.execute(
                    web_signins.update().where(c.key == row.key, *waiting).values(secret=None)
                )
            if took.rowcount == 1 and row.player_id is not None:
                taken.append(LinkToMail(row.key, Player(row.player_id, row.name or ""), row.secret))
        return taken

    async def give_back_link(self, link: LinkToMail) -> None:
        """A link taken to mail and not sent (the mail server refused it, or was down):
        the next pass sends it."""
        async with self.db.write() as conn:
            await conn.execute(
                web_signins.update()
                .where(web_signins.c.key == link.key, web_signins.c.used == sa.false())
                .values(secret=link.secret)
            )

    async def link_holder(self, secret: str) -> Player | None:
        """Who a sign-in link would sign in, without using it (a mail scanner fetching the
        link burns nothing); None for one used, run out or never issued."""
        if not secret or len(secret) > SECRET_LENGTH:
            return None
        c = web_signins.c
        async with self.db.read() as conn:
            row = (
                await conn.execute(
                    sa.select(c.player_id, c.name).where(
                        c.key == digest(secret),
                        c.kind.in_(("bot", "mail")),
                        c.used == sa.false(),
                        c.expires_at > self.clock(),
                    )
                )
            ).first()
        if row is None or row.player_id is None:
            return None
        return Player(row.player_id, row.name or "")

    async def redeem_link(self, secret: str) -> NewSession:
        """Open a session with a sign-in link's secret: refused (`LINK_USED`) for one used,
        run out or never issued."""
        row = await self._take(secret, ("bot", "mail"))
        if row is None or row.player_id is None:
            raise Refused(LINK_USED, code=ServiceCode.SIGN_IN)
        return await self.start(Player(row.player_id, row.name or ""), row.kind)

    async def begin_oauth(self, state: str, verifier: str) -> None:
        """Keep an OAuth2 sign-in's `state` with its PKCE `verifier` until it comes back."""
        await self._keep(state, "oauth", timedelta(minutes=OAUTH_MINUTES), secret=verifier)

    async def take_oauth(self, state: str) -> str | None:
        """The PKCE verifier of an OAuth2 sign-in's `state`, once; None for a state never
        given, run out or used."""
        row = await self._take(state, ("oauth",))
        return None if row is None else row.secret

    async def cleanup(self) -> int:
        """Forget run-out sessions and sign-ins (the scheduler's hourly cleanup)."""
        now = self.clock()
        async with self.db.write() as conn:
            signins = await conn.execute(
                web_signins.delete().where(web_signins.c.expires_at < now - timedelta(days=1))
            )
            sessions = await conn.execute(
                web_sessions.delete().where(
                    web_sessions.c.seen_at < now - timedelta(days=SESSION_DAYS)
                )
            )
        return (signins.rowcount or 0) + (sessions.rowcount or 0)

    async def _keep(self, given: str, kind: str, lasting: timedelta, **values: object) -> None:
        """Keep a sign-in whose secret the browser is `given`."""
        async with self.db.write() as conn:
            await conn.execute(
                web_signins.insert().values(
                    key=digest(given), kind=kind, expires_at=self.clock() + lasting, **values
                )
            )

    async def _take(self, secret: str, kinds: tuple[str, ...]) -> sa.Row[Any] | None:
        """The sign-in of `secret` among `kinds`, marked used by the statement that finds
        it unused and unexpired: of two takers at once, one gets it."""
        if not secret or len(secret) > SECRET_LENGTH:
            return None
        c = web_signins.c
        key = digest(secret)
        async with self.db.write() as conn:
            taken = await conn.execute(
                web_signins.update()
                .where(
                    c.key == key,
                    c.kind.in_(kinds),
                    c.used == sa.false(),
                    c.expires_at > self.clock(),
                )
                .values(used=True)
            )
            if taken.rowcount != 1:
                return None
            return (await conn.execute(sa.select(web_signins).where(c.key == key))).first()
