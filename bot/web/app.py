"""The web application: aiohttp with Jinja2 templates (autoescaped), over the service.

`create_app(service, settings)` builds it; bot/web/runner.py serves it beside the bot or
alone. Every response gets the security headers (`SECURITY_HEADERS`: a strict
Content-Security-Policy, everything from this origin alone); every error is a page of
its status (404 for anything unknown, hostile or enormous), never a 500 for bad input;
each client address gets `WEB_RATE_LIMIT` requests a second, each signed-in browser
`WEB_SESSION_RATE` forms a second.

Pages register here: `SERVER_PAGES` are the pages under a server's prefix
(bot/web/urls.py), each answering at `/s/<guild>/...` and `/l/<token>/...` alike and
finding its server with `site.server_of(request)`; `SITE_PAGES` are the others.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from functools import partial

from aiohttp import web
from aiohttp.typedefs import Middleware

from bot.service import GameService, Refused
from bot.service.core.outbox import Publish
from bot.settings import Settings
from bot.web import acts, auth, game, home, live, pages, play, signin, urls
from bot.web.limits import Buckets, client_address
from bot.web.site import CONTENT_SECURITY_POLICY, NOINDEX, SITE, STATIC, Handler, Site

log = logging.getLogger("paperboard.web")

#: The pages under a server's prefix: (the path after it, handler).
SERVER_PAGES: tuple[tuple[str, Handler], ...] = (
    game.ROUTES + live.ROUTES + pages.ROUTES + play.ROUTES
)
#: The pages of no server (the home page, robots.txt and the static files aside).
SITE_PAGES: tuple[tuple[str, Handler], ...] = pages.SITE_ROUTES + signin.ROUTES
#: The forms that change something (each checks its session and CSRF token: bot/web/auth.py),
#: under a server's prefix and of no server; nothing changes by GET.
SERVER_FORMS: tuple[tuple[str, Handler], ...] = play.FORMS + acts.FORMS
SITE_FORMS: tuple[tuple[str, Handler], ...] = signin.FORMS + acts.SITE_FORMS
#: Ids in paths: at most 20 ASCII digits (the service refuses what a BIGINT does not
#: hold); anything else, an Arabic-Indic or full-width digit too (a route's `\d` would
#: take them), matches no route, a 404.
GUILD = r"{guild:[0-9]{1,20}}"
TOKEN = r"{token:[A-Za-z0-9_-]{1,64}}"

#: The headers of every response: the policy (`CONTENT_SECURITY_POLICY`), no sniffing, no
#: framing, no referrer (a link-mode address is a secret).
SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=(), interest-cohort=()",
}
#: A client (a session) may send this many seconds' worth of requests at once.
BURST_SECONDS = 5
#: The error pages' sentences.
ERRORS = {
    400: "That address has a parameter this site does not understand.",
    403: "That is not allowed here.",
    404: "There is no page here.",
    405: "That method is not allowed here: a change is made only by its form on the page.",
    414: "That address is too long.",
    429: "Too many requests from your address: wait a few seconds.",
    431: "That request's headers are too long.",
}


def create_app(
    service: GameService, settings: Settings, publish: Publish | None = None
) -> web.Application:
    app = web.Application(
        middlewares=[rate_limit(settings), errors, session_limit(settings), acts.said_once],
        client_max_size=64 * 1024,  # the pages take no uploads
    )
    app[SITE] = Site(service, settings, publish)
    signin.setup(app, settings)
    address = partial(client_address, forwarded=settings.web_forwarded)
    app[live.STREAMS] = live.Streams(settings, address)
    app.on_shutdown.append(app[live.STREAMS].shut)
    for tail, handler in SERVER_PAGES:
        app.router.add_get(f"/{urls.PUBLIC}/{GUILD}{tail}", handler)
        app.router.add_get(f"/{urls.LINK}/{TOKEN}{tail}", handler)
    for tail, handler in SERVER_FORMS:
        app.router.add_post(f"/{urls.PUBLIC}/{GUILD}{tail}", handler)
        app.router.add_post(f"/{urls.LINK}/{TOKEN}{tail}", handler)
    for path, handler in SITE_PAGES:
        app.router.add_get(path, handler)
    for path, handler in SITE_FORMS:
        app.router.add_post(path, handler)
    app.router.add_get("/", home.home_page)
    app.router.add_get("/robots.txt", robots)
    app.router.add_static("/static", STATIC, append_version=False)
    app.on_response_prepare.append(headers)
    return app


async def robots(request: web.Request) -> web.StreamResponse:
    return web.Response(
        text=urls.robots(request.app[SITE].urls.root),
        content_type="text/plain",
        headers={"Cache-Control": "public, max-age=3600"},
    )


async def headers(request: web.Request, response: web.StreamResponse) -> None:
    """Every response's headers: security, the pages' caching (a signed-in browser's
    pages private), and the static files' caching (a versioned address, `?v=`, never
    changes: the version is the file's hash)."""
    # a page may widen its own policy (the sign-in page's form leads to Discord)
    policy = response.headers.get("Content-Security-Policy", CONTENT_SECURITY_POLICY)
    response.headers.update(SECURITY_HEADERS)
    response.headers["Content-Security-Policy"] = policy
    if response.content_type == "text/html":
        # a page may say who is signed in: a shared cache keeps none, and none is served
        # to another browser
        response.headers["Vary"] = "Cookie"
        if auth.COOKIE in request.cookies and response.status < 400:
            response.headers["Cache-Control"] = "private, no-cache"
    if request.path.startswith("/static/") and response.status == 200:
        versioned = request.app[SITE].static_current(request.path, request.query.get("v"))
        response.headers["Cache-Control"] = (
            "public, max-age=31536000, immutable" if versioned else "public, max-age=300"
        )


def rate_limit(settings: Settings) -> Middleware:
    """A token bucket per client address: `WEB_RATE_LIMIT` a second, `BURST_SECONDS`
    worth at once; beyond it a 429 with Retry-After."""
    buckets = Buckets(settings.web_rate_limit, settings.web_rate_limit * BURST_SECONDS)

    @web.middleware
    async def limit(request: web.Request, handler: Handler) -> web.StreamResponse:
        buckets.check(client_address(request, forwarded=settings.web_forwarded))
        return await handler(request)

    return limit


def session_limit(settings: Settings) -> Middleware:
    """Who is signed in, looked up once for the page's header (bot/web/auth.py); and a
    token bucket per session for its forms: `WEB_SESSION_RATE` a second, `BURST_SECONDS`
    worth at once (a 429 with Retry-After beyond)."""
    buckets = Buckets(settings.web_session_rate, settings.web_session_rate * BURST_SECONDS)

    @web.middleware
    async def limit(request: web.Request, handler: Handler) -> web.StreamResponse:
        if auth.COOKIE in request.cookies:
            visitor = await auth.visitor_of(request)
            if visitor is not None and request.method == "POST":
                buckets.check(visitor.key)
        return await handler(request)

    return limit


@web.middleware
async def errors(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Errors as pages: a refusal of the service (an unknown game, an id out of range) is
    a 404; an HTTP error keeps its status; anything else is logged, and a 500."""
    try:
        return await handler(request)
    except web.HTTPException as error:
        if error.status < 400:
            raise
        said = error.text if error.text != f"{error.status}: {error.reason}" else None
        return error_answer(request.app[SITE], error.status, error.headers, said)
    except Refused:
        return error_page(request, 404)
    except Exception:
        log.exception("web: %s %s failed", request.method, _loggable(request.path_qs))
        return error_page(request, 500)


def error_page(
    request: web.Request, status: int, extra: Mapping[str, str] | None = None
) -> web.Response:
    return error_answer(request.app[SITE], status, extra)


def error_answer(
    site: Site,
    status: int,
    extra: Mapping[str, str] | None = None,
    sentence: str | None = None,
) -> web.Response:
    """The page of an error's `status` (its sentence, unless another is given), never
    indexed or cached; `extra` headers kept where they say when to come back."""
    sentence = sentence or ERRORS.get(status, "Something went wrong on our side.")
    try:
        body = site.render(
            "error.html", place=None, indexable=False, sentence=sentence, code=status
        )
        response = web.Response(text=body, content_type="text/html", status=status)
        response.headers["X-Robots-Tag"] = NOINDEX
    except Exception:  # the error page itself failed: a line of text, not a traceback
        log.exception("web: the error page failed")
        response = web.Response(text=sentence, status=status)
    for name in ("Retry-After", "Allow"):
        if extra and name in extra:
            response.headers[name] = extra[name]
    response.headers["Cache-Control"] = "no-store"
    return response


def _loggable(text: str) -> str:
    """A path as a log line takes it: printable, at most 200 characters."""
    return re.sub(r"[^\x20-\x7e]", "?", text)[:200]
