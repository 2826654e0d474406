"""Players by mail: addresses linked with a code, email-only players, hard bounces, and
the ledger of mails the outbox sent (one per outbox row and address).

An email-only player has a player row like anyone, with a negative id made from their
address: Discord's ids and the bot's are positive, so theirs never collide. Their name
says "(by email)", so every adapter shows them so without knowing of mail.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import unicodedata
from collections.abc import Iterable
from datetime import timedelta

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.service.core import outbox
from bot.service.core.models import (
    GameSummary,
    GuildSettings,
    MailBounced,
    Player,
    Refused,
    Result,
    ServiceCode,
    Typed,
)
from bot.service.core.records import Records
from bot.service.core.rules import check_ids
from bot.store.schema import (
    guild_settings,
    mail_addresses,
    mails_sent,
    moves,
    players,
    seats,
)
from engine.core import shown

#: How long a mailed code may be typed.
CODE_HOURS = 24
#: An address as players type it: one @, no spaces, no quoting (what the bot mails to).
ADDRESS = re.compile(r"[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+")
BY_EMAIL = " (by email)"
NAME_LENGTH = 32  # an email-only player's name, before " (by email)"


def clean_address(text: str) -> str:
    """The address in lower case, or a refusal."""
    address = text.strip().lower()
    if len(address) > 254 or not ADDRESS.fullmatch(address):
        raise Refused(
            "That is not an address I can mail: write it like ann@example.org.",
            code=ServiceCode.BAD_SETTING,
        )
    return address


def mail_player_id(address: str) -> int:
    """An email-only player's id: negative, from their address (62 bits of its SHA-256)."""
    digest = hashlib.sha256(address.encode()).digest()
    return -(int.from_bytes(digest[:8], "big") % 2**62 + 1)


def mail_name(display: str, address: str) -> str:
    """An email-only player's name from their mail's display name (else the address's
    local part): printable characters only, no line breaks, at most NAME_LENGTH."""
    text = unicodedata.normalize("NFKC", display or address.partition("@")[0])
    kept = "".join(c if c.isprintable() else " " for c in text)
    name = " ".join(kept.replace("@", " ").replace("<", " ").replace(">", " ").split())
    return (name[:NAME_LENGTH].strip() or "player") + BY_EMAIL


class Mail:
    """The use cases of mail: linking an address, joining by mail, bounces, the ledger."""

    def __init__(self, records: Records) -> None:
        self.records = records
        self.db = records.db
        self.clock = records.clock

    async def link_email(self, player: Player, address: str) -> str:
        """Link `address` to a Discord player, unconfirmed: a code is mailed to it (the
        mail adapter sends the codes `codes_to_mail` lists). Reminders by email go back
        to DMs until it is confirmed."""
        if not self.records.settings.mails:
            raise Refused(
                "This bot sends no mail, so no code could reach you: its operator sets "
                "EMAIL_SMTP_URL first (docs/EMAIL.md).",
                code=ServiceCode.BAD_SETTING,
            )
        address = clean_address(address)
        code = f"{secrets.randbelow(10**6):06d}"
        now = self.clock()
        async with self.db.write() as conn:
            owner = await conn.scalar(
                sa.select(mail_addresses.c.player_id).where(mail_addresses.c.address == address)
            )
            if owner is not None and owner != player.id:
                raise Refused(
                    "That address belongs to another player.", code=ServiceCode.ADDRESS_TAKEN
                )
            await self.records.remember(conn, player)
            await conn.execute(
                mail_addresses.delete().where(mail_addresses.c.player_id == player.id)
            )
            if player.id > 0:  # until the new address is confirmed, reminders go by DM
                await conn.execute(
                    players.update()
                    .where(players.c.id == player.id, players.c.reminders == "email")
                    .values(reminders="dm")
                )
            await conn.execute(
                mail_addresses.insert().values(
                    player_id=player.id,
                    address=address,
                    confirmed=False,
                    code=code,
                    code_mailed=False,
                    code_expires_at=now + timedelta(hours=CODE_HOURS),
                    created_at=now,
                )
            )
        return (
            f"A code is on its way to {address}: confirm it with email_code within "
            f"{CODE_HOURS} hours."
        )

    async def confirm_email(self, player: Player, code: str) -> str:
        now = self.clock()
        async with self.db.write() as conn:
            row = (
                await conn.execute(
                    sa.select(mail_addresses).where(mail_addresses.c.player_id == player.id)
                )
            ).one_or_none()
            if row is None or row.code is None:
                raise Refused(
                    "No address is waiting for a code: give one with email first.",
                    code=ServiceCode.BAD_SETTING,
                )
            if row.code_expires_at <= now or not secrets.compare_digest(row.code, code.strip()):
                raise Refused(
                    "That code is wrong or too old: ask for a new one with email.",
                    code=ServiceCode.BAD_SETTING,
                )
            await conn.execute(
                mail_addresses.update()
                .where(mail_addresses.c.player_id == player.id)
                .values(confirmed=True, code=None, code_expires_at=None, bounced_at=None)
            )
        return (
            f"{row.address} is yours: reminders=email sends your turns there, and you may "
            "answer them by mail."
        )

    async def codes_to_mail(self) -> list[tuple[int, str, str]]:
        """(player id, address, code) of the codes asked for and not yet mailed."""
        c = mail_addresses.c
        async with self.db.read() as conn:
            rows = await conn.execute(
                sa.select(c.player_id, c.address, c.code).where(
                    c.code.is_not(None), c.code_mailed == sa.false()
                )
            )
            return [(row.player_id, row.address, row.code) for row in rows]

    async def code_mailed(self, player_id: int) -> None:
        async with self.db.write() as conn:
            await conn.execute(
                mail_addresses.update()
                .where(mail_addresses.c.player_id == player_id)
                .values(code_mailed=True)
            )

    async def join_by_mail(self, address: str, display_name: str, guild_id: int) -> Player:
        """Register an email-only player in a server that lets players in by mail (or
        find them: a second `join` changes nothing)."""
        address = clean_address(address)
        settings = await self.mail_guild(guild_id)
        if not settings.email:
            raise Refused("That server takes no players by mail.", code=ServiceCode.BAD_SETTING)
        player = Player(mail_player_id(address), mail_name(display_name, address))
        async with self.db.write() as conn:
            known = await conn.scalar(
                sa.select(mail_addresses.c.player_id).where(mail_addresses.c.address == address)
            )
            if known is not None:
                name = await conn.scalar(sa.select(players.c.name).where(players.c.id == known))
                return Player(known, str(name))
            await self.records.remember(conn, player)
            await conn.execute(
                players.update().where(players.c.id == player.id).values(reminders="email")
            )
            await conn.execute(
                mail_addresses.insert().values(
                    player_id=player.id,
                    address=address,
                    confirmed=True,
                    guild_id=guild_id,
                    created_at=self.clock(),
                )
            )
        return player

    async def player_by_address(self, address: str) -> tuple[Player, int | None] | None:
        """The player a confirmed address is (and an email-only player's server)."""
        c = mail_addresses.c
        async with self.db.read() as conn:
            row = (
                await conn.execute(
                    sa.select(c.player_id, c.guild_id, players.c.name)
                    .join(players, players.c.id == c.player_id)
                    .where(c.address == address.strip().lower(), c.confirmed == sa.true())
                )
            ).one_or_none()
        return None if row is None else (Player(row.player_id, row.name), row.guild_id)

    async def mail_opponent(self, guild_id: int, address: str) -> Player:
        """The player a challenge in `guild_id` names by address: an email-only player of
        that server, or a Discord player's confirmed address; only where the server lets
        players in by mail."""
        if not (await self.mail_guild(guild_id)).email:
            raise Refused(
                "This server takes no players by mail: its managers allow them with {}.",
                code=ServiceCode.BAD_SETTING,
                typed=(Typed("config", (("email", "on"),)),),
            )
        found = await self.player_by_address(clean_address(address))
        if found is None or found[1] not in (None, guild_id):
            raise Refused(
                f"{shown(address)} plays by mail nowhere here: ask them to mail join to "
                "the bot's address first.",
                code=ServiceCode.NOT_INVITED,
            )
        return found[0]

    async def mail_recipients(
        self, player_ids: Iterable[int], outbox_id: int | None = None
    ) -> dict[int, str]:
        """The addresses of those of `player_ids` whose turns go by mail: a confirmed
        address that has not bounced, and reminders by email (every email-only player);
        with `outbox_id`, not those the row was mailed to already (the ledger)."""
        async with self.db.read() as conn:
            return await self._recipients(conn, player_ids, outbox_id)

    async def mail_delivery(
        self, game: GameSummary, outbox_id: int | None, moves: int
    ) -> tuple[dict[int, str], list[str]]:
        """A delivery's mail_recipients and, when there are any, the game's last `moves`
        moves (as `last_moves`), in one read."""
        async with self.db.read() as conn:
            recipients = await self._recipients(conn, game.player_ids(), outbox_id)
            shown = await self._last_moves(conn, game, moves) if recipients and moves else []
        return recipients, shown

    async def _recipients(
        self, conn: AsyncConnection, player_ids: Iterable[int], outbox_id: int | None
    ) -> dict[int, str]:
        wanted = sorted(set(player_ids))
        if not wanted:
            return {}
        c = mail_addresses.c
        query = (
            sa.select(c.player_id, c.address)
            .join(players, players.c.id == c.player_id)
            .where(
                c.player_id.in_(wanted),
                c.confirmed == sa.true(),
                c.bounced_at.is_(None),
                players.c.reminders == "email",
            )
        )
        if outbox_id is not None:
            sent = mails_sent.c
            query = query.where(
                ~sa.exists().where(sent.outbox_id == outbox_id, sent.address == c.address)
            )
        rows = await conn.execute(query)
        return {row.player_id: row.address for row in rows}

    async def address_of(self, player_id: int) -> str | None:
        """A player's confirmed address that has not bounced (mail answered by the bot)."""
        async with self.db.read() as conn:
            address: str | None = await conn.scalar(_address_query(player_id))
        return address

    async def record_bounce(self, address: str) -> tuple[int | None, Result | None]:
        """A hard bounce: no more mail to `address`; a Discord player's reminders go back
        to DMs and they are told (a `MailBounced` in the outbox, on their latest game: a
        confirmed address is mailed about games only). Returns the player's id (None: an
        address nobody has, or stopped already) and that notice (None: nobody to tell)."""
        address = address.strip().lower()
        notice: Result | None = None
        async with self.db.write() as conn:
            player_id = await conn.scalar(
                mail_addresses.update()
                .where(mail_addresses.c.address == address, mail_addresses.c.bounced_at.is_(None))
                .values(bounced_at=self.clock())
                .returning(mail_addresses.c.player_id)
            )
            if player_id is not None and player_id > 0:
                await conn.execute(
                    players.update()
                    .where(players.c.id == player_id, players.c.reminders == "email")
                    .values(reminders="dm")
                )
                latest = await conn.scalar(
                    sa.select(sa.func.max(seats.c.game_id)).where(seats.c.player_id == player_id)
                )
                if latest is not None:
                    game = await self.records.summary(conn, latest)
                    told = MailBounced(latest, player_id, address)
                    notice = await outbox.write(self.records, conn, Result(game, (told,)))
        self.records.forget_rosters()
        return (None if player_id is None else int(player_id)), notice

    async def clear_bounce(self, address: str) -> bool:
        """A mail from `address` itself: it works again, and is mailed again (a Discord
        player's reminders stay where the bounce put them). Whether it had bounced."""
        c = mail_addresses.c
        async with self.db.write() as conn:
            player_id = await conn.scalar(
                mail_addresses.update()
                .where(c.address == address.strip().lower(), c.bounced_at.is_not(None))
                .values(bounced_at=None)
                .returning(c.player_id)
            )
        return player_id is not None

    async def mark_mailed(self, outbox_id: int, addresses: Iterable[str]) -> None:
        """Record that the outbox row was mailed to `addresses`."""
        now = self.clock()
        rows = [{"outbox_id": outbox_id, "address": a, "sent_at": now} for a in addresses]
        if rows:
            async with self.db.write() as conn:
                await conn.execute(mails_sent.insert(), rows)

    async def mail_guild(self, guild_id: int | None = None) -> GuildSettings:
        """The server a mail means: `guild_id`, or the only server that lets players in
        by mail (a refusal when none or several do)."""
        async with self.db.read() as conn:
            if guild_id is not None:
                return await self.records.load_guild_settings(conn, guild_id)
            ids = list(
                await conn.scalars(
                    sa.select(guild_settings.c.guild_id).where(guild_settings.c.email == sa.true())
                )
            )
            if len(ids) != 1:
                raise Refused(
                    "No server takes players by mail yet."
                    if not ids
                    else "Several servers take players by mail: write join and the server's "
                    f"number ({', '.join(str(i) for i in sorted(ids))}).",
                    code=ServiceCode.BAD_SETTING,
                )
            return await self.records.load_guild_settings(conn, ids[0])

    async def mail_game(self, game_id: int) -> GameSummary:
        """A game named by a signed reply address, whatever its server: the address is
        the authority (the adapter checked its MAC)."""
        check_ids(game_id)
        async with self.db.read() as conn:
            return await self._mail_game(conn, game_id)

    async def mail_seat(self, game_id: int, seat: int) -> tuple[GameSummary, str | None]:
        """`mail_game` and the `address_of` the player in its `seat` (None: no player
        there, or no address to answer), in one read."""
        check_ids(game_id)
        async with self.db.read() as conn:
            game = await self._mail_game(conn, game_id)
            player_id = game.seats[seat].player_id if 0 <= seat < len(game.seats) else None
            if player_id is None:
                return game, None
            address: str | None = await conn.scalar(_address_query(player_id))
        return game, address

    async def _mail_game(self, conn: AsyncConnection, game_id: int) -> GameSummary:
        row = await self.records.find_game_row(conn, game_id)
        if row is None:
            raise Refused(f"There is no game #{game_id}.", code=ServiceCode.NO_GAME)
        return await self.records.summary(conn, game_id, row)

    async def last_moves(self, game: GameSummary, count: int = 6) -> list[str]:
        """The game's last `count` moves as they read in a mail: "7. ann d5"."""
        async with self.db.read() as conn:
            return await self._last_moves(conn, game, count)

    async def _last_moves(self, conn: AsyncConnection, game: GameSummary, count: int) -> list[str]:
        entries = (
            await conn.execute(
                sa.select(moves.c.ply, moves.c.seat, moves.c.text)
                .where(moves.c.game_id == game.id)
                .order_by(moves.c.ply.desc())
                .limit(count)
            )
        ).all()
        names = {s.seat: s.name or game.seat_names[s.seat] for s in game.seats}
        return [f"{e.ply + 1}. {names.get(e.seat, '?')} {e.text}" for e in reversed(entries)]

    async def move_at(self, game_id: int, ply: int) -> tuple[int, str] | None:
        """The seat and text of the record's entry at `ply` (None: no such entry)."""
        async with self.db.read() as conn:
            row = (
                await conn.execute(
                    sa.select(moves.c.seat, moves.c.text).where(
                        moves.c.game_id == game_id, moves.c.ply == ply
                    )
                )
            ).one_or_none()
        return None if row is None else (row.seat, row.text)


def _address_query(player_id: int) -> sa.Select[tuple[str]]:
    """A player's confirmed address that has not bounced."""
    c = mail_addresses.c
    return sa.select(c.address).where(
        c.player_id == player_id, c.confirmed == sa.true(), c.bounced_at.is_(None)
    )
