"""Mails the bot sends, built from plain words and a picture: no I/O, no service.

Every mail: From the bot, Auto-Submitted: auto-generated (RFC 3834: auto-responders
leave it unanswered), threaded per game (In-Reply-To and References name the game's
root Message-ID), a plain-text part that reads alone, and, with a board, an HTML part
showing it inline (multipart/related, by cid) and the same PNG attached.
"""

from __future__ import annotations

import hashlib
import html
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from email.message import Message
from email.mime.image import MIMEImage
from email.mime.multipart import MIMEMultipart
from email.mime.text import MIMEText
from email.policy import SMTP
from email.utils import format_datetime, formataddr, make_msgid

from bot.email.reading import header_safe

SENDER_NAME = "Paperboard"


@dataclass(frozen=True, slots=True)
class Envelope:
    """Who a mail is from and to, and where its answer goes."""

    sender: str  # EMAIL_FROM
    to: str
    to_name: str
    domain: str
    reply_to: str | None = None  # a token address; None: the bare address


def game_root(game_id: int, domain: str) -> str:
    """The Message-ID every mail of a game refers to: the thread it is in."""
    return f"<game{game_id}@{domain}>"


def outbox_message_id(outbox_id: int, address: str, domain: str) -> str:
    """A mail's Message-ID from its outbox row and recipient: sent again after a crash,
    it is the same message."""
    who = hashlib.sha256(address.encode()).hexdigest()[:16]
    return f"<o{outbox_id}.{who}@{domain}>"


def mail(
    envelope: Envelope,
    subject: str,
    paragraphs: Sequence[str],
    *,
    when: datetime,
    message_id: str | None = None,
    game_id: int | None = None,
    board: bytes | None = None,
    board_name: str = "board.png",
) -> Message:
    """One mail: `paragraphs` as its text (and its HTML, with `board` shown between the
    first paragraph and the rest), `board` attached too. Built with the MIME classes and
    written out with the SMTP policy (`as_bytes(policy=SMTP)`): a third of the CPU of
    EmailMessage's content manager, for the same mail."""
    text = MIMEText("\n\n".join(paragraphs) + "\n", "plain", "utf-8")
    message: Message = text
    if board is not None:
        cid = make_msgid(domain=envelope.domain)
        first, *rest = [f"<p>{html.escape(p).replace(chr(10), '<br>')}</p>" for p in paragraphs]
        picture = f'<p><img src="cid:{cid[1:-1]}" alt="the board"></p>'
        page = MIMEText(
            f"<html><body>{first}{picture}{''.join(rest)}</body></html>", "html", "utf-8"
        )
        inline = MIMEImage(board, "png")
        inline["Content-ID"] = cid
        inline.add_header("Content-Disposition", "inline", filename=board_name)
        attached = MIMEImage(board, "png")
        attached.add_header("Content-Disposition", "attachment", filename=board_name)
        related = MIMEMultipart("related", _subparts=[page, inline])
        message = MIMEMultipart(
            "mixed", _subparts=[MIMEMultipart("alternative", _subparts=[text, related]), attached]
        )
    message["From"] = formataddr((SENDER_NAME, envelope.sender))
    message["To"] = formataddr((header_safe(envelope.to_name), envelope.to))
    if envelope.reply_to is not None:
        message["Reply-To"] = envelope.reply_to
    message["Subject"] = header_safe(subject)
    message["Date"] = format_datetime(when)
    message["Message-ID"] = message_id or make_msgid(domain=envelope.domain)
    if game_id is not None:
        root = game_root(game_id, envelope.domain)
        message["In-Reply-To"] = root
        message["References"] = root
    message["Auto-Submitted"] = "auto-generated"
    message["X-Auto-Response-Suppress"] = "All"  # Exchange's out-of-office stays quiet
    return message


def written(message: Message) -> bytes:
    """The mail's bytes as they go over SMTP (CRLF lines, headers folded and encoded)."""
    return message.as_bytes(policy=SMTP)
