"""Who is asking: the session a request's cookie names (the service's `sessions`), and
the checks every form that changes something passes.

The cookie holds the session's secret: `HttpOnly` (no script reads it), `SameSite=Lax`
(another site's form does not carry it), `Secure` where PUBLIC_URL is https, scoped to
the pages' path. Every POST carries the session's CSRF token in its form (`CSRF_FIELD`)
and is refused without it; a page read by a signed-in browser is never cached by a
shared cache (bot/web/app.py's `headers`).
"""

from __future__ import annotations

import hmac

from aiohttp import web

from bot.service import NewSession, WebSession
from bot.web.site import SITE, VISITOR

#: The session's cookie.
COOKIE = "paperboard_session"
#: The form field every POST carries: the session's CSRF token.
CSRF_FIELD = "csrf"
#: A session's cookie lasts as long as the session can (it is renewed by use).
COOKIE_SECONDS = 30 * 24 * 3600
#: The sentence of a form sent without its session.
SIGN_IN_FIRST = "Sign in first: this page changes nothing for a visitor who is not signed in."
#: The sentence of a form whose token is not its session's.
FORGED = "That form is out of date or not from this site: load the page again and retry."


async def visitor_of(request: web.Request) -> WebSession | None:
    """The session signed in on this browser, or None."""
    if VISITOR in request:
        found: WebSession | None = request[VISITOR]
        return found
    secret = request.cookies.get(COOKIE)
    found = None if secret is None else await request.app[SITE].service.sessions.find(secret)
    request[VISITOR] = found
    return found


async def posted(request: web.Request) -> tuple[WebSession, dict[str, str]]:
    """A POST's visitor and its form's text fields (the first of each name): 403 for a
    visitor not signed in, or a form without its session's CSRF token (forged, or from a
    session that ended)."""
    form = await request.post()
    visitor = await visitor_of(request)
    if visitor is None:
        raise web.HTTPForbidden(text=SIGN_IN_FIRST)
    fields: dict[str, str] = {}
    for name, value in form.items():
        if isinstance(value, str):
            fields.setdefault(name, value)
    token = fields.get(CSRF_FIELD, "")
    if not hmac.compare_digest(token.encode(), visitor.csrf.encode()):
        raise web.HTTPForbidden(text=FORGED)
    return visitor, fields


def signed_in(request: web.Request, response: web.StreamResponse, opened: NewSession) -> None:
    """Set the cookie of a session just opened on `response`."""
    request[VISITOR] = opened.session
    set_cookie(request, response, COOKIE, opened.secret, COOKIE_SECONDS)


def signed_out(request: web.Request, response: web.StreamResponse) -> None:
    """Clear the session's cookie on `response`."""
    request[VISITOR] = None
    clear_cookie(request, response, COOKIE)


def set_cookie(
    request: web.Request,
    response: web.StreamResponse,
    name: str,
    value: str,
    max_age: int | None = None,
) -> None:
    """A cookie of the pages (HttpOnly, SameSite=Lax, Secure under an https PUBLIC_URL,
    scoped to the pages' path); without `max_age`, it ends with the browser's session."""
    response.set_cookie(
        name,
        value,
        max_age=max_age,
        path=_path(request),
        secure=_secure(request),
        httponly=True,
        samesite="Lax",
    )


def clear_cookie(request: web.Request, response: web.StreamResponse, name: str) -> None:
    response.del_cookie(name, path=_path(request), secure=_secure(request), samesite="Lax")


def _path(request: web.Request) -> str:
    return request.app[SITE].urls.root or "/"


def _secure(request: web.Request) -> bool:
    return request.app[SITE].settings.site_url.startswith("https:")
