"""The fake Discord's OAuth2 (authorization code with PKCE, as a web site's sign-in uses it).

``GET /oauth2/authorize`` is Discord's consent page: the fake's "logged-in user" is
``fake.oauth.signed_in`` (a test sets it; None: the page answers 401, as a browser nobody
signed in to would be stopped there); ``fake.oauth.approves = False`` makes the user say
no. It redirects to the ``redirect_uri`` with a one-time code (or ``error=access_denied``)
and the ``state``. ``POST /api/v10/oauth2/token`` exchanges the code: the client's id and
secret (HTTP Basic, or in the form), the code unused and unexpired, the same
``redirect_uri``, and the PKCE verifier whose S256 is the challenge; else Discord's
``invalid_client`` / ``invalid_grant`` errors. ``GET /api/v10/users/@me`` with
``Authorization: Bearer <token>`` answers the user who approved.
"""

from __future__ import annotations

import base64
import hashlib
import secrets
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from urllib.parse import urlencode

from aiohttp import BasicAuth, web

from .models import User

if TYPE_CHECKING:
    from .server import FakeDiscord

#: How long a code may wait for its exchange (Discord's is about ten minutes).
CODE_SECONDS = 600.0


@dataclass
class Grant:
    user: User
    client_id: str
    redirect_uri: str
    challenge: str
    scope: str
    made: float = field(default_factory=time.monotonic)


@dataclass
class OAuth2:
    """The OAuth2 side of the fake: its client, who is signed in, codes and tokens."""

    fake: FakeDiscord
    client_secret: str = "fake-client-secret"
    signed_in: User | None = None
    approves: bool = True
    codes: dict[str, Grant] = field(default_factory=dict)
    tokens: dict[str, User] = field(default_factory=dict)
    exchanges: list[str] = field(default_factory=list)
    """Each exchange's outcome: "ok" or the error it got."""

    @property
    def client_id(self) -> int:
        return self.fake.application_id

    async def authorize(self, request: web.Request) -> web.Response:
        query = request.query
        redirect_uri = query.get("redirect_uri", "")
        if query.get("client_id") != str(self.client_id) or not redirect_uri:
            return web.Response(status=400, text="Invalid OAuth2 application or redirect_uri")
        if query.get("response_type") != "code" or "identify" not in query.get("scope", ""):
            return web.Response(status=400, text="Invalid response_type or scope")
        if query.get("code_challenge_method") != "S256" or not query.get("code_challenge"):
            return web.Response(status=400, text="This fake wants PKCE with S256")
        if self.signed_in is None:
            return web.Response(status=401, text="Log in to Discord first")
        back: dict[str, str] = {}
        if self.approves:
            code = secrets.token_urlsafe(20)
            self.codes[code] = Grant(
                self.signed_in,
                str(self.client_id),
                redirect_uri,
                query["code_challenge"],
                query.get("scope", ""),
            )
            back["code"] = code
        else:
            back["error"] = "access_denied"
        if "state" in query:
            back["state"] = query["state"]
        return web.Response(status=302, headers={"Location": f"{redirect_uri}?{urlencode(back)}"})

    async def token(self, request: web.Request) -> web.Response:
        form = await request.post()
        fields = {k: v for k, v in form.items() if isinstance(v, str)}
        client_id, secret = fields.get("client_id", ""), fields.get("client_secret", "")
        if "Authorization" in request.headers:
            try:
                basic = BasicAuth.decode(request.headers["Authorization"])
            except ValueError:
                return self._error(401, "invalid_client")
            client_id, secret = basic.login, basic.password
        if client_id != str(self.client_id) or secret != self.client_secret:
            return self._error(401, "invalid_client")
        if fields.get("grant_type") != "authorization_code":
            return self._error(400, "unsupported_grant_type")
        grant = self.codes.pop(fields.get("code", ""), None)  # a code is used once
        if (
            grant is None
            or time.monotonic() - grant.made > CODE_SECONDS
            or grant.client_id != client_id
            or grant.redirect_uri != fields.get("redirect_uri")
            or s256(fields.get("code_verifier", "")) != grant.challenge
        ):
            return self._error(400, "invalid_grant")
        access = secrets.token_urlsafe(24)
        self.tokens[access] = grant.user
        self.exchanges.append("ok")
        return web.json_response(
            {
                "access_token": access,
                "token_type": "Bearer",
                "expires_in": 604800,
                "refresh_token": secrets.token_urlsafe(24),
                "scope": grant.scope,
            }
        )

    def bearer_user(self, request: web.Request) -> User | None:
        """The user of a request's Bearer token; None without one the fake gave."""
        scheme, _, token = request.headers.get("Authorization", "").partition(" ")
        return self.tokens.get(token) if scheme == "Bearer" else None

    def _error(self, status: int, error: str) -> web.Response:
        self.exchanges.append(error)
        return web.json_response({"error": error}, status=status)


def s256(verifier: str) -> str:
    """PKCE's S256 challenge of `verifier`."""
    digest = hashlib.sha256(verifier.encode()).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()
