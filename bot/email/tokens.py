"""Reply addresses: `play+g12.s1.p5.<mac>@domain`, one per player, game and position; and
the Message-IDs of the bot's mail, signed for their recipient.

The token, not the From header, says who acts: a reply to it is that seat's in that game,
at that ply. The MAC is HMAC-SHA256 over "g12.s1.p5" with EMAIL_SECRET, truncated to 80
bits and written in lower-case base32 (mail systems may lower-case a local part); the
previous secret (EMAIL_OLD_SECRET) is still accepted, so mail sent before a rotation can
be answered.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
from dataclasses import dataclass

MAC_CHARS = 16  # 80 bits of base32
TOKEN = re.compile(r"g(\d{1,19})\.s(\d)\.p(\d{1,9})\.([a-z2-7]{16})")
MESSAGE_ID = re.compile(r"<([a-z0-9]{1,24})\.([a-z2-7]{16})@([^<>@\s]+)>")


@dataclass(frozen=True, slots=True)
class Token:
    game_id: int
    seat: int
    ply: int

    @property
    def text(self) -> str:
        return f"g{self.game_id}.s{self.seat}.p{self.ply}"


def mac(secret: str, text: str) -> str:
    digest = hmac.new(secret.encode(), text.encode(), hashlib.sha256).digest()
    return base64.b32encode(digest).decode()[:MAC_CHARS].lower()


def reply_address(token: Token, local: str, domain: str, secret: str) -> str:
    """The address a reply about `token` goes to: `local+g12.s1.p5.<mac>@domain`."""
    return f"{local}+{token.text}.{mac(secret, token.text)}@{domain}"


def read_token(address: str, local: str, domain: str, secrets: tuple[str, ...]) -> Token | None:
    """The token of a reply address signed with one of `secrets`; None for any other
    address (the bare one, another domain, a wrong or altered MAC)."""
    name, at, host = address.strip().lower().rpartition("@")
    base, plus, tail = name.partition("+")
    if not at or host != domain or base != local.lower() or not plus:
        return None
    match = TOKEN.fullmatch(tail)
    if match is None:
        return None
    token = Token(int(match[1]), int(match[2]), int(match[3]))
    signed = any(hmac.compare_digest(mac(secret, token.text), match[4]) for secret in secrets)
    return token if signed else None


def message_id(name: str, address: str, domain: str, secret: str) -> str:
    """The Message-ID of the bot's mail `name` to `address`: `<name.mac@domain>`, the MAC
    over both. A bounce quoting it shows that the bot sent that mail to that address:
    no one else can make one (`sent_to`)."""
    return f"<{name}.{mac(secret, f'{name}>{address.lower()}')}@{domain}>"


def sent_to(message_id: str, address: str, domain: str, secrets: tuple[str, ...]) -> bool:
    """Whether `message_id` is one the bot signed (`message_id`) for a mail to `address`."""
    match = MESSAGE_ID.fullmatch(message_id.strip().lower())
    if match is None or match[3] != domain.lower():
        return False
    signed = f"{match[1]}>{address.lower()}"
    return any(hmac.compare_digest(mac(secret, signed), match[2]) for secret in secrets)
