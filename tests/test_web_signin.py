"""Signing in on the web pages, over HTTP (aiohttp's test client): with Discord against the
fake Discord's OAuth2, with a link mailed through a real SMTP server (tests/mailkit.py),
with the bot's link; signing out, everywhere; the cookies, the forms' tokens, the rate
limits, hostile names."""

from __future__ import annotations

import html
import re
from collections.abc import AsyncIterator, Mapping
from typing import Any

import pytest
from aiohttp import ClientResponse, ClientSession
from aiohttp.test_utils import TestClient, TestServer
from pydantic import SecretStr

from bot.service import GameService, Player
from bot.service.web.sessions import LINK_USED
from bot.settings import Settings
from bot.web import auth, signin
from bot.web.app import create_app
from bot.web.oauth import DiscordOAuth, DiscordSaidNo
from tests.conftest import ANN, WEB_URL, Clock
from tests.fakediscord import FakeDiscord
from tests.mailkit import GUILD, mail_world
from tests.webkit import Client

HOSTILE = "<script>alert(1)</script>"


class Browser:
    """A browser over the test client that keeps this site's cookies itself (they are
    Secure under the https PUBLIC_URL: aiohttp's jar would not send them over http)."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.cookies: dict[str, str] = {}
        self.set_cookies: list[str] = []  # every Set-Cookie header seen

    async def get(self, path: str) -> ClientResponse:
        return await self._kept(await self.client.get(path, **self._sent()))

    async def post(self, path: str, data: Mapping[str, str]) -> ClientResponse:
        return await self._kept(await self.client.post(path, data=data, **self._sent()))

    async def token(self) -> str:
        """The sign-in forms' token, as the sign-in page sets it."""
        await self.get("/signin")
        return self.cookies[signin.FORM_COOKIE]

    def _sent(self) -> dict[str, Any]:
        cookie = "; ".join(f"{name}={value}" for name, value in self.cookies.items())
        return {"headers": {"Cookie": cookie} if cookie else {}, "allow_redirects": False}

    async def _kept(self, response: ClientResponse) -> ClientResponse:
        await response.read()
        self.set_cookies += response.headers.getall("Set-Cookie", [])
        for name, morsel in response.cookies.items():
            if morsel["max-age"] == "0" or not morsel.value:
                self.cookies.pop(name, None)
            else:
                self.cookies[name] = morsel.value
        return response


async def said(response: ClientResponse) -> str:
    """A page's text as the reader sees it (its entities read)."""
    return html.unescape(await response.text())


def path_of(location: str) -> str:
    """A Location at PUBLIC_URL as the test client asks it."""
    assert location.startswith(WEB_URL + "/") or location.startswith("/"), location
    return location.removeprefix(WEB_URL)


@pytest.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    async with FakeDiscord() as discord:
        yield discord


@pytest.fixture
async def site(service: GameService, fake: FakeDiscord) -> AsyncIterator[Client]:
    """The pages, with sign-in with Discord pointed at the fake Discord."""
    settings = service.records.settings.model_copy(
        update={
            "web_rate_limit": 0,
            "public_url": WEB_URL,
            "discord_api_base": fake.api_base,
            "discord_client_id": fake.application_id,
            "discord_client_secret": SecretStr(fake.oauth.client_secret),
        }
    )
    async with TestClient(TestServer(create_app(service, settings))) as client:
        yield client


async def to_discord(browser: Browser, next_path: str | None = None) -> str:
    """Press "Sign in with Discord": the address of Discord's page it sends to."""
    form = {"csrf": await browser.token()} | ({"next": next_path} if next_path else {})
    sent = await browser.post("/signin/discord", form)
    assert sent.status == 303, await sent.text()
    return sent.headers["Location"]


async def approved(fake: FakeDiscord, authorize: str) -> str:
    """Discord's page approves: the path it sends the browser back to."""
    async with ClientSession() as http, http.get(authorize, allow_redirects=False) as page:
        assert page.status == 302, await page.text()
        return path_of(page.headers["Location"])


async def test_signing_in_with_discord_end_to_end(
    service: GameService, site: Client, fake: FakeDiscord
) -> None:
    fake.oauth.signed_in = fake.create_user("ann", global_name=HOSTILE)
    browser = Browser(site)
    authorize = await to_discord(browser, "/rules/")
    assert authorize.startswith(f"{fake.base_url}/oauth2/authorize?")
    assert "code_challenge_method=S256" in authorize and "scope=identify" in authorize
    back = await approved(fake, authorize)
    assert back.startswith("/signin/discord/back?code=")
    arrived = await browser.get(back)
    assert arrived.status == 303 and arrived.headers["Location"] == "/rules/"
    opened = next(c for c in browser.set_cookies if c.startswith(auth.COOKIE + "="))
    assert {"HttpOnly", "Secure", "SameSite=Lax", "Path=/"} <= set(re.split(r";\s*", opened))
    page = await browser.get("/rules/")
    body = await page.text()
    assert "Signed in as" in body and HOSTILE not in body and "&lt;script&gt;" in body
    assert page.headers["Cache-Control"] == "private, no-cache" and "Cookie" in page.headers["Vary"]
    visitor = await service.sessions.find(browser.cookies[auth.COOKIE])
    assert visitor is not None and visitor.player == Player(fake.oauth.signed_in.id, HOSTILE)
    assert visitor.via == "discord"
    # the same answer from Discord again (a replay): its state was used
    again = await browser.get(back)
    assert again.status == 400 and signin.OAUTH_LOST in await said(again)


async def test_a_missing_forged_or_foreign_state_is_refused(
    service: GameService, site: Client, fake: FakeDiscord
) -> None:
    fake.oauth.signed_in = fake.create_user("ann")
    browser = Browser(site)
    back = await approved(fake, await to_discord(browser))
    state = re.search(r"state=([^&]+)", back)
    assert state is not None
    for wrong in (
        back.replace(f"state={state[1]}", ""),  # none
        back.replace(f"state={state[1]}", "state=" + "A" * 43),  # never given
    ):
        refused = await browser.get(wrong)
        assert refused.status == 400 and signin.OAUTH_LOST in await said(refused)
    # another browser sent to this one's answer (login CSRF): not its state
    stranger = Browser(site)
    refused = await stranger.get(back)
    assert refused.status == 400 and auth.COOKIE not in stranger.cookies
    # a forged state in both the cookie and the address: never given
    stranger.cookies[signin.OAUTH_COOKIE] = "B" * 43
    refused = await stranger.get(back.replace(state[1], "B" * 43))
    assert refused.status == 400
    # the browser that started it still signs in: nothing above used its state
    assert (await browser.get(back)).status == 303
    assert await service.sessions.count(fake.oauth.signed_in.id) == 1


async def test_the_fake_discord_refuses_a_wrong_verifier(
    service: GameService, site: Client, fake: FakeDiscord
) -> None:
    """A code whose challenge is another sign-in's verifier's (two sign-ins started in one
    browser, the first one's code brought back with the second's state)."""
    fake.oauth.signed_in = fake.create_user("ann")
    browser = Browser(site)
    first = await approved(fake, await to_discord(browser))
    second = await approved(fake, await to_discord(browser))
    code = re.search(r"code=([^&]+)", first)
    assert code is not None
    mixed = re.sub(r"code=[^&]+", f"code={code[1]}", second)
    refused = await browser.get(mixed)
    assert refused.status == 502 and signin.DISCORD_DOWN in await said(refused)
    assert fake.oauth.exchanges == ["invalid_grant"] and auth.COOKIE not in browser.cookies
    # and a wrong client secret
    settings = Settings(
        discord_api_base=fake.api_base,
        discord_client_id=fake.application_id,
        discord_client_secret="not the secret",
        _env_file=None,  # type: ignore[call-arg]
    )
    client = DiscordOAuth.of(settings)
    assert client is not None
    with pytest.raises(DiscordSaidNo):
        await client.player("a code", "https://x.test/back", "D" * 43)
    assert fake.oauth.exchanges[-1] == "invalid_client"


async def test_a_visitor_who_says_no_to_discord_is_not_signed_in(
    site: Client, fake: FakeDiscord
) -> None:
    fake.oauth.signed_in, fake.oauth.approves = fake.create_user("ann"), False
    browser = Browser(site)
    back = await approved(fake, await to_discord(browser))
    refused = await browser.get(back)
    assert refused.status == 400 and signin.OAUTH_DENIED in await said(refused)
    assert auth.COOKIE not in browser.cookies


async def test_without_its_settings_discord_sign_in_is_not_offered(web: Client) -> None:
    browser = Browser(web)
    page = await (await browser.get("/signin")).text()
    assert "Sign-in with Discord is not set up" in page and "Sign-in by mail is not set up" in page
    refused = await browser.post("/signin/discord", {"csrf": await browser.token()})
    assert refused.status == 404 and signin.NO_DISCORD in await said(refused)
    assert "/oauth2/" not in refused.headers.get("Location", "")


async def test_sign_in_forms_without_this_browsers_token_are_refused(web: Client) -> None:
    """Login CSRF: another site's form carries no token of this browser's cookie."""
    browser = Browser(web)
    token = await browser.token()
    stranger = Browser(web)
    for path in ("/signin/discord", "/signin/mail", "/signin/" + "E" * 43):
        refused = await stranger.post(path, {"csrf": token, "address": "ann@example.org"})
        assert refused.status == 403 and auth.FORGED in await said(refused), path


async def signed_in(service: GameService, browser: Browser, player: Player = ANN) -> str:
    """`browser` signed in as `player` (the bot's link): its CSRF token."""
    opened = await service.sessions.start(player, "bot")
    browser.cookies[auth.COOKIE] = opened.secret
    return opened.session.csrf


async def test_signing_out_takes_the_sessions_token_and_ends_it(
    service: GameService, web: Client
) -> None:
    browser = Browser(web)
    csrf = await signed_in(service, browser)
    secret = browser.cookies[auth.COOKIE]
    forged = await browser.post("/signout", {"csrf": "F" * 43})
    assert forged.status == 403 and auth.FORGED in await said(forged)
    assert await service.sessions.find(secret) is not None
    out = await browser.post("/signout", {"csrf": csrf})
    assert out.status == 303 and auth.COOKIE not in browser.cookies
    assert await service.sessions.find(secret) is None
    assert "Sign in</a>" in await (await browser.get("/rules/")).text()


async def test_signing_out_everywhere_ends_every_browser(service: GameService, web: Client) -> None:
    here, there = Browser(web), Browser(web)
    csrf = await signed_in(service, here)
    there_csrf = await signed_in(service, there)
    account = await here.get("/account")
    body = await account.text()
    assert (
        account.status == 200
        and "signed in on 2 browsers" in body
        and "a link from the bot" in body
    )
    assert account.headers["Cache-Control"] == "private, no-cache"
    ended = await here.post("/account/everywhere", {"csrf": csrf})
    assert ended.status == 200 and "(2 signed in until now)" in await said(ended)
    # the other browser's session is over: its pages say so, its forms are refused
    moved = await there.get("/account")
    assert moved.status == 303 and moved.headers["Location"] == "/signin?next=%2Faccount"
    refused = await there.post("/signout", {"csrf": there_csrf})
    assert refused.status == 403 and auth.SIGN_IN_FIRST in await said(refused)
    assert await service.sessions.count(ANN.id) == 0


async def test_forms_are_rate_limited_per_session(service: GameService) -> None:
    settings = service.records.settings.model_copy(
        update={"web_rate_limit": 0, "public_url": WEB_URL, "web_session_rate": 1.0}
    )
    async with TestClient(TestServer(create_app(service, settings))) as client:
        browser, other = Browser(client), Browser(client)
        await signed_in(service, browser)
        statuses = [(await browser.post("/signout", {"csrf": "x"})).status for _ in range(6)]
        assert statuses == [403] * 5 + [429]
        limited = await browser.post("/signout", {"csrf": "x"})
        assert limited.status == 429 and int(limited.headers["Retry-After"]) >= 1
        await signed_in(service, other, Player(9003, "cat"))  # another session: its own
        assert (await other.post("/signout", {"csrf": "x"})).status == 403


async def test_cookies_are_secure_only_under_an_https_address(service: GameService) -> None:
    settings = service.records.settings.model_copy(
        update={"web_rate_limit": 0, "public_url": "http://games.example.org"}
    )
    async with TestClient(TestServer(create_app(service, settings))) as client:
        browser = Browser(client)
        await browser.get("/signin")
        [form] = browser.set_cookies
        assert "HttpOnly" in form and "SameSite=Lax" in form and "Secure" not in form


def test_only_a_path_of_this_site_is_gone_back_to() -> None:
    for good in ("/", "/rules/", "/s/77/g/1?ply=2"):
        assert signin.safe_next(good) == good
    for bad in ("//evil.example/", "/\\evil.example", "https://evil.example/", "rules", "", None):
        assert signin.safe_next(bad) is None, bad


async def test_a_mailed_link_signs_in_once(database_url: str, clock: Clock) -> None:
    async with mail_world(database_url, clock, public_url=WEB_URL) as world:
        service = world.service
        ann = await service.mail.join_by_mail("ann@home.test", "Ann", GUILD)
        settings = service.records.settings.model_copy(
            update={"web_rate_limit": 0, "public_url": WEB_URL}
        )
        async with TestClient(TestServer(create_app(service, settings))) as client:
            browser = Browser(client)
            answers = []
            for address in ("Ann@Home.test", "nobody@home.test"):
                asked = await browser.post(
                    "/signin/mail", {"csrf": await browser.token(), "address": address}
                )
                assert asked.status == 200
                answers.append((await asked.text()).replace(address.lower(), "ADDRESS"))
            assert answers[0] == answers[1]  # it tells nobody whose address it is
            # mailed once by the mail runner, even asked twice; a refusal is tried again
            world.capture.refusing = True
            with pytest.raises(Exception):  # noqa: B017  (the SMTP refusal)
                await world.runner.announcer.send_sign_in_links()
            world.capture.refusing = False
            assert await world.runner.announcer.send_sign_in_links() == 1
            assert await world.runner.announcer.send_sign_in_links() == 0
            [text] = world.all_said("ann@home.test")
            found = re.search(re.escape(WEB_URL) + r"(/signin/[A-Za-z0-9_-]{43})", text)
            assert found is not None and "works once" in text
            link = found[1]
            assert world.capture.inbox("nobody@home.test") == []
            # a GET (a mail scanner's) uses nothing: twice the same question
            for _ in range(2):
                page = await browser.get(link)
                body = await page.text()
                assert page.status == 200 and "Sign in as" in body
                assert page.headers["X-Robots-Tag"] == "noindex, nofollow"
            token = re.search(r'name="csrf" value="([^"]+)"', body)
            assert token is not None
            arrived = await browser.post(link, {"csrf": token[1]})
            assert arrived.status == 303 and arrived.headers["Location"] == "/"
            visitor = await service.sessions.find(browser.cookies[auth.COOKIE])
            assert visitor is not None and visitor.player == ann and visitor.via == "mail"
            # used: one sentence, by GET and by POST
            for replay in (await browser.get(link), await browser.post(link, {"csrf": token[1]})):
                assert replay.status == 410 and LINK_USED in await said(replay)


async def test_mailed_links_are_rate_limited_per_address_and_per_client(
    database_url: str, clock: Clock
) -> None:
    async with mail_world(database_url, clock) as world:
        settings = world.service.records.settings.model_copy(
            update={"web_rate_limit": 0, "public_url": WEB_URL}
        )
        async with TestClient(TestServer(create_app(world.service, settings))) as client:
            browser = Browser(client)
            token = await browser.token()

            async def ask(address: str) -> int:
                answer = await browser.post("/signin/mail", {"csrf": token, "address": address})
                return answer.status

            assert [await ask("same@home.test") for _ in range(4)] == [200] * 3 + [429]
            statuses = [await ask(f"p{n}@home.test") for n in range(7)]
            assert statuses == [200] * 6 + [429]  # ten forms from one client at once
            bad = await browser.post("/signin/mail", {"csrf": token, "address": "not mail"})
            assert bad.status == 429
