"""Sign-in with Discord: OAuth2's authorization code with PKCE (S256), scope `identify`.

Discord's addresses come from the setting that points discord.py at Discord
(DISCORD_API_BASE: the fake Discord in tests; real Discord by default): the page the
browser is sent to is that base's origin's `/oauth2/authorize`, the code is exchanged at
the base's `/oauth2/token`, and the player is read at `/users/@me`.
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass
from urllib.parse import urlencode

import aiohttp
import yarl

from bot.service import Player
from bot.settings import Settings

#: Real Discord's REST base (discord.py's, the API version it speaks).
DISCORD_API = "https://discord.com/api/v10"
#: How long a call to Discord may take.
TIMEOUT = aiohttp.ClientTimeout(total=10)


class DiscordSaidNo(Exception):
    """Discord refused the exchange or could not be reached: the sign-in fails."""


@dataclass(frozen=True, slots=True)
class DiscordOAuth:
    """The OAuth2 client of these pages: its id and secret, and Discord's addresses."""

    client_id: int
    client_secret: str
    api_base: str

    @classmethod
    def of(cls, settings: Settings) -> DiscordOAuth | None:
        """The client of DISCORD_CLIENT_ID and DISCORD_CLIENT_SECRET; None without them."""
        if settings.discord_client_id is None or settings.discord_client_secret is None:
            return None
        base = (settings.discord_api_base or DISCORD_API).rstrip("/")
        secret = settings.discord_client_secret.get_secret_value()
        return cls(settings.discord_client_id, secret, base)

    def authorize_url(self, redirect_uri: str, state: str, verifier: str) -> str:
        """Where the browser asks Discord to sign it in."""
        query = {
            "response_type": "code",
            "client_id": str(self.client_id),
            "scope": "identify",
            "redirect_uri": redirect_uri,
            "state": state,
            "code_challenge": challenge(verifier),
            "code_challenge_method": "S256",
            "prompt": "none",  # a player who allowed it once is not asked again
        }
        page = yarl.URL(self.authorize_origin) / "oauth2" / "authorize"
        return f"{page}?{urlencode(query)}"

    @property
    def authorize_origin(self) -> str:
        """Where Discord's sign-in page is: the sign-in form's answer leads there."""
        return str(yarl.URL(self.api_base).origin())

    async def player(self, code: str, redirect_uri: str, verifier: str) -> Player:
        """The Discord user who signed in: `code` exchanged for a token (with the PKCE
        `verifier`), then their id and name (global_name, else username)."""
        form = {
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": redirect_uri,
            "code_verifier": verifier,
        }
        login = {
            "Authorization": aiohttp.encode_basic_auth(str(self.client_id), self.client_secret)
        }
        async with aiohttp.ClientSession(timeout=TIMEOUT) as http:
            try:
                async with http.post(
                    f"{self.api_base}/oauth2/token", data=form, headers=login
                ) as got:
                    token = await _json(got)
                access = token.get("access_token")
                if not isinstance(access, str) or token.get("token_type", "Bearer") != "Bearer":
                    raise DiscordSaidNo("no token")
                bearer = {"Authorization": f"Bearer {access}"}
                async with http.get(f"{self.api_base}/users/@me", headers=bearer) as got:
                    user = await _json(got)
            except (aiohttp.ClientError, TimeoutError, ValueError) as failed:
                raise DiscordSaidNo(str(failed) or type(failed).__name__) from None
        user_id = str(user.get("id", ""))
        name = user.get("global_name") or user.get("username")
        if not (user_id.isascii() and user_id.isdecimal()) or not isinstance(name, str):
            raise DiscordSaidNo("no user")
        return Player(int(user_id), name)


def challenge(verifier: str) -> str:
    """PKCE's S256 challenge of `verifier`: unpadded base64url of its SHA-256."""
    digest = hashlib.sha256(verifier.encode()).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


async def _json(response: aiohttp.ClientResponse) -> dict[str, object]:
    """A 2xx answer's JSON object, else `DiscordSaidNo`."""
    if response.status // 100 != 2:
        raise DiscordSaidNo(f"{response.status} from {response.url.path}")
    found = await response.json(content_type=None)
    if not isinstance(found, dict):
        raise DiscordSaidNo(f"not an object from {response.url.path}")
    return found
