"""Signing in without passwords, and out: with Discord (OAuth2, bot/web/oauth.py), with a
link mailed to a player's address, or with the link the bot gives its asker (/web); the
account page and signing out everywhere. The service's `sessions` keeps it all.

A sign-in form has no session yet to carry a CSRF token: it carries a random token that
is also a cookie of this site (`FORM_COOKIE`, SameSite=Lax), so another site's form,
which cannot read or set it, signs nobody in (login CSRF). A sign-in link does nothing
on GET (mail scanners fetch links): its page asks "Sign in as <name>?" with a button.
"""

from __future__ import annotations

import hmac
import logging
import re
import secrets
from typing import Any

from aiohttp import web

from bot.service import Refused, clean_address
from bot.service.web.sessions import LINK_MINUTES, LINK_USED, OAUTH_MINUTES, NewSession
from bot.settings import Settings
from bot.web import auth
from bot.web.limits import Buckets, client_address
from bot.web.oauth import DiscordOAuth, DiscordSaidNo
from bot.web.site import CONTENT_SECURITY_POLICY, NOINDEX, SITE, Handler, page

log = logging.getLogger("paperboard.web")

#: The cookie a sign-in form's token is also in (the browser's session long).
FORM_COOKIE = "paperboard_form"
#: The cookies of an OAuth2 sign-in under way: its state (the browser that started it is
#: the one that comes back), and the path to go back to.
OAUTH_COOKIE = "paperboard_oauth"
NEXT_COOKIE = "paperboard_next"
#: A token or secret as these pages make them (`secrets.token_urlsafe(32)`).
TOKEN = re.compile(r"[A-Za-z0-9_-]{43}")
#: A path of this site to go back to after signing in: one leading slash (never `//`, a
#: path to another site), printable ASCII, no backslash; at most 500 characters.
SAFE_PATH = re.compile(r"/(?![/\\])[!-\[\]-~]{0,499}")
#: Links mailed to one address (a bucket: three at once, then one every five minutes),
#: and sign-in forms from one client (ten at once, then one a minute).
MAIL_PER_ADDRESS = (1 / 300, 3)
FORMS_PER_CLIENT = (1 / 60, 10)
#: How each way of signing in is said on the account page.
VIA_WORDS = {
    "discord": "Discord",
    "mail": "a link mailed to you",
    "bot": "a link from the bot",
    "console": "the console",
}
#: The sentences of the sign-in pages.
MAILED = (
    "If {address} is a player's address, a sign-in link is on its way to it: it works "
    f"once, within {LINK_MINUTES} minutes."
)
NO_MAIL = "Sign-in by mail is not set up on this site: sign in with Discord or the bot's link."
NO_DISCORD = "Sign-in with Discord is not set up on this site: sign in by mail or the bot's link."
OAUTH_LOST = (
    "That sign-in with Discord did not start in this browser, was used already or took over "
    f"{OAUTH_MINUTES} minutes: start again."
)
OAUTH_DENIED = "Discord did not sign you in: you may start again."
DISCORD_DOWN = "Discord did not say who you are: start again in a moment."


class SignInLimits:
    """The rate limits of the sign-in forms (`app[LIMITS]`)."""

    def __init__(self, settings: Settings) -> None:
        self.forwarded = settings.web_forwarded
        self.per_address = Buckets(*MAIL_PER_ADDRESS)
        self.per_client = Buckets(*FORMS_PER_CLIENT)


LIMITS = web.AppKey("signin_limits", SignInLimits)


def setup(app: web.Application, settings: Settings) -> None:
    app[LIMITS] = SignInLimits(settings)


def safe_next(text: str | None) -> str | None:
    """`text` when it is a path of this site (no open redirect), else None."""
    return text if text and SAFE_PATH.fullmatch(text) else None


def form_token(request: web.Request) -> str:
    """The sign-in forms' token: this browser's `FORM_COOKIE`, else a new one
    (`said` sets it)."""
    found = request.cookies.get(FORM_COOKIE, "")
    return found if TOKEN.fullmatch(found) else secrets.token_urlsafe(32)


async def anonymous_form(request: web.Request) -> dict[str, str]:
    """A sign-in form's fields, checked: a 403 unless its token is this browser's
    `FORM_COOKIE`; a 429 beyond `FORMS_PER_CLIENT`."""
    form = await request.post()
    fields = {name: value for name, value in form.items() if isinstance(value, str)}
    cookie = request.cookies.get(FORM_COOKIE, "")
    token = fields.get(auth.CSRF_FIELD, "")
    if not cookie or not hmac.compare_digest(token.encode(), cookie.encode()):
        raise web.HTTPForbidden(text=auth.FORGED)
    limits = request.app[LIMITS]
    limits.per_client.check(client_address(request, forwarded=limits.forwarded))
    return fields


def said(request: web.Request, template: str, *, status: int = 200, **context: Any) -> web.Response:
    """A sign-in page (a new form token in its cookie), never cached or indexed."""
    token = form_token(request)
    response = page(request, template, status=status, token=token, **context)
    response.headers["Cache-Control"] = "no-store"
    response.headers["X-Robots-Tag"] = NOINDEX
    if request.cookies.get(FORM_COOKIE) != token:
        auth.set_cookie(request, response, FORM_COOKIE, token)
    return response


def sentence(request: web.Request, words: str, *, status: int = 200) -> web.Response:
    """A sign-in page of one sentence, with the way back to the sign-in page."""
    return said(request, "signin_said.html", status=status, sentence=words)


def redirect(location: str) -> web.Response:
    """A 303: the browser GETs `location` (a form's answer)."""
    return web.Response(status=303, headers={"Location": location})


async def opened_here(request: web.Request, opened: NewSession, to: str) -> web.Response:
    """The session `opened` in this browser (ending the one it had), then off to `to`, a
    path of this site."""
    previous = await auth.visitor_of(request)
    if previous is not None:
        await request.app[SITE].service.sessions.end(previous)
    response = redirect(request.app[SITE].urls.root + to)
    auth.signed_in(request, response, opened)
    return response


# == the pages =================================================================================


async def signin_page(request: web.Request) -> web.StreamResponse:
    """The ways to sign in (`?next=`: the page to come back to)."""
    site = request.app[SITE]
    discord = DiscordOAuth.of(site.settings)
    response = said(
        request,
        "signin.html",
        discord=discord is not None,
        mail=site.settings.mails,
        next_path=safe_next(request.query.get("next")),
        minutes=LINK_MINUTES,
    )
    if discord is not None:  # a form's redirect is held to form-action: Discord's page is allowed
        response.headers["Content-Security-Policy"] = CONTENT_SECURITY_POLICY.replace(
            "form-action 'self'", f"form-action 'self' {discord.authorize_origin}"
        )
    return response


async def discord_start(request: web.Request) -> web.StreamResponse:
    """Off to Discord: a new state (kept with its PKCE verifier by the service, and in
    this browser's `OAUTH_COOKIE`)."""
    site = request.app[SITE]
    fields = await anonymous_form(request)
    client = DiscordOAuth.of(site.settings)
    if client is None:
        return sentence(request, NO_DISCORD, status=404)
    state, verifier = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
    await site.service.sessions.begin_oauth(state, verifier)
    back = site.absolute(site.urls.signin_discord_back())
    response = redirect(client.authorize_url(back, state, verifier))
    auth.set_cookie(request, response, OAUTH_COOKIE, state, OAUTH_MINUTES * 60)
    next_path = safe_next(fields.get("next"))
    if next_path is not None:
        auth.set_cookie(request, response, NEXT_COOKIE, next_path, OAUTH_MINUTES * 60)
    return response


async def discord_back(request: web.Request) -> web.StreamResponse:
    """Back from Discord: the state must be this browser's and unused; the code is
    exchanged (with the verifier) for who signed in."""
    site = request.app[SITE]
    client = DiscordOAuth.of(site.settings)
    if client is None:
        return sentence(request, NO_DISCORD, status=404)
    state = request.query.get("state", "")
    mine = request.cookies.get(OAUTH_COOKIE, "")
    if not TOKEN.fullmatch(state) or not hmac.compare_digest(state.encode(), mine.encode()):
        return sentence(request, OAUTH_LOST, status=400)
    verifier = await site.service.sessions.take_oauth(state)
    if verifier is None:
        return sentence(request, OAUTH_LOST, status=400)
    code = request.query.get("code", "")
    if "error" in request.query or not code or len(code) > 200:
        return sentence(request, OAUTH_DENIED, status=400)
    try:
        player = await client.player(code, site.absolute(site.urls.signin_discord_back()), verifier)
    except DiscordSaidNo as failed:
        log.warning("web: a sign-in with Discord failed: %s", failed)
        return sentence(request, DISCORD_DOWN, status=502)
    opened = await site.service.sessions.start(player, "discord")
    response = await opened_here(
        request, opened, safe_next(request.cookies.get(NEXT_COOKIE)) or "/"
    )
    auth.clear_cookie(request, response, OAUTH_COOKIE)
    auth.clear_cookie(request, response, NEXT_COOKIE)
    return response


async def mail_form(request: web.Request) -> web.StreamResponse:
    """ "Mail me a link": mailed only to an address a player confirmed, and the same answer
    either way (it tells nobody whose address it is)."""
    site = request.app[SITE]
    fields = await anonymous_form(request)
    if not site.settings.mails:
        return sentence(request, NO_MAIL, status=404)
    try:
        address = clean_address(fields.get("address", ""))
    except Refused as refused:
        return sentence(request, str(refused), status=400)
    request.app[LIMITS].per_address.check(address)
    found = await site.service.mail.player_by_address(address)
    if found is not None:
        await site.service.sessions.mail_link(found[0])
    return sentence(request, MAILED.format(address=address))


async def link_page(request: web.Request) -> web.StreamResponse:
    """A sign-in link: who it signs in, and a button (a GET uses nothing)."""
    secret = request.match_info["secret"]
    holder = await request.app[SITE].service.sessions.link_holder(secret)
    if holder is None:
        return sentence(request, LINK_USED, status=410)
    return said(request, "signin_link.html", holder=holder, secret=secret)


async def link_form(request: web.Request) -> web.StreamResponse:
    """The sign-in link's button: the link is used, a session opened."""
    site = request.app[SITE]
    await anonymous_form(request)
    try:
        opened = await site.service.sessions.redeem_link(request.match_info["secret"])
    except Refused:
        return sentence(request, LINK_USED, status=410)
    return await opened_here(request, opened, "/")


async def signout_form(request: web.Request) -> web.StreamResponse:
    visitor, _ = await auth.posted(request)
    await request.app[SITE].service.sessions.end(visitor)
    response = redirect(request.app[SITE].urls.home())
    auth.signed_out(request, response)
    return response


async def account_page(request: web.Request) -> web.StreamResponse:
    """Who is signed in, how, on how many browsers; signing out everywhere."""
    site = request.app[SITE]
    visitor = await auth.visitor_of(request)
    if visitor is None:
        return redirect(site.urls.signin(site.urls.account()))
    browsers = await site.service.sessions.count(visitor.player.id)
    return page(
        request, "account.html", via=VIA_WORDS.get(visitor.via, visitor.via), browsers=browsers
    )


async def everywhere_form(request: web.Request) -> web.StreamResponse:
    """Sign out on every browser of the visitor's player."""
    visitor, _ = await auth.posted(request)
    ended = await request.app[SITE].service.sessions.end_all(visitor.player.id)
    response = sentence(
        request, f"You are signed out on every browser ({ended} signed in until now)."
    )
    auth.signed_out(request, response)
    return response


#: Of no server (bot/web/app.py adds them).
SECRET = r"{secret:[A-Za-z0-9_-]{43}}"
ROUTES: tuple[tuple[str, Handler], ...] = (
    ("/signin", signin_page),
    ("/signin/discord/back", discord_back),
    (f"/signin/{SECRET}", link_page),
    ("/account", account_page),
)
FORMS: tuple[tuple[str, Handler], ...] = (
    ("/signin/discord", discord_start),
    ("/signin/mail", mail_form),
    (f"/signin/{SECRET}", link_form),
    ("/signout", signout_form),
    ("/account/everywhere", everywhere_form),
)
