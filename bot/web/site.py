"""What every page shares: the service and settings, the templates, the static files'
versions, finding the server of an address, and answering with a page or a file.
"""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable, Hashable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import jinja2
from aiohttp import web

from bot.service import GameService, SizedCache, WebPlace, WebSession
from bot.service.core.outbox import Publish
from bot.service.web.lists import isolated
from bot.settings import Settings
from bot.web import urls

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
HERE = Path(__file__).parent
STATIC = HERE / "static"
#: The policy of every page: nothing but this origin (no CDN, no fonts, no inline script
#: or style).
CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self'",
        "connect-src 'self'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    )
)
#: A page of a server in link mode, and every error page: never indexed.
NOINDEX = "noindex, nofollow"
#: Where a request keeps its visitor once looked up (bot/web/auth.py `visitor_of`): the
#: pages' header says who is signed in.
VISITOR: web.RequestKey[WebSession | None] = web.RequestKey("visitor")


class Compiled(jinja2.BytecodeCache):
    """The templates' compiled code, kept for the process: each Site's environment
    compiles a template once at most."""

    def __init__(self) -> None:
        self.codes: dict[str, bytes] = {}

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        code = self.codes.get(bucket.key)
        if code is not None:
            bucket.bytecode_from_string(code)

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        self.codes[bucket.key] = bucket.bytecode_to_string()


COMPILED = Compiled()


class Site:
    """The application's shared state (`request.app[SITE]`)."""

    def __init__(
        self, service: GameService, settings: Settings, publish: Publish | None = None
    ) -> None:
        self.service = service
        self.settings = settings
        #: how the process the pages run in announces a result (none: another process does)
        self.publish = publish
        self.templates = jinja2.Environment(
            loader=jinja2.FileSystemLoader(HERE / "templates"),
            autoescape=True,  # every value is text: names like <script> stay text
            undefined=jinja2.StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
            auto_reload=False,  # the templates are the package's: no stat() a page
            bytecode_cache=COMPILED,
        )
        self.versions = {
            path.name: hashlib.sha256(path.read_bytes()).hexdigest()[:12]
            for path in STATIC.iterdir()
            if path.is_file()
        }
        #: the addresses the pages write: under PUBLIC_URL's path, behind a proxy serving
        #: them there (it strips the path: the routes start from the root)
        self.urls = urls.Rooted(urlsplit(settings.site_url).path)
        self.origin = settings.site_url.removesuffix(self.urls.root)
        self.templates.globals.update(urls=self.urls, static=self.static, site_url=self.absolute)
        self.templates.filters["isolated"] = isolated  # a name inside a sentence or a title
        # every template loaded now: compiling one at its page's first visit held the
        # loop up to 60 ms (180 ms for all, once a process)
        for name in self.templates.list_templates():
            self.templates.get_template(name)
        #: parts of pages drawn once per version of what they show (bot/web/game.py), within
        #: WEB_CACHE_MB (a game's about 20 kB for 80 moves; bench/web.py's 3,000 games of 140
        #: moves on average take 100 MB); the least recently shown forgotten first
        self.drawn: SizedCache[Hashable, Any] = SizedCache(
            settings.web_cache_mb * 2**20, lambda part: part.size
        )

    def render(self, template: str, **context: Any) -> str:
        """A page's HTML from its template (`page` answers with it); `visitor`, the
        session signed in, is None unless given (an error page says nobody)."""
        context.setdefault("visitor", None)
        return self.templates.get_template(template).render(**context)

    def static(self, name: str) -> str:
        """A static file's address, versioned by its content (cached for good)."""
        return self.urls.static(name, self.versions[name])

    def static_current(self, path: str, version: str | None) -> bool:
        """Whether `version` is the current one of the static file at `path`."""
        name = path.removeprefix("/static/")
        return version is not None and self.versions.get(name) == version

    def absolute(self, path: str) -> str:
        """An address as the pages write it (`urls`) whole, at PUBLIC_URL (Open Graph wants
        whole addresses)."""
        return self.origin + path

    async def server_of(self, request: web.Request) -> WebPlace:
        """The server an address under /s/<guild> or /l/<token> names, when its pages are
        on and the address is the one they are at; else a 404 (a public server's link-mode
        address, a redirect to the public one)."""
        token = request.match_info.get("token")
        if token is not None:
            place = await self.service.web.web_place_of_token(token)
            if place is not None and place.mode == "public":
                public = WebPlace(place.guild_id, "public")
                tail = request.path.removeprefix(f"/{urls.LINK}/{token}")
                raise web.HTTPFound(self.urls.prefix(public) + tail + _query(request))
        else:
            place = await self.service.web.web_place(int(request.match_info["guild"]))
            if place is not None and place.mode != "public":
                place = None  # a link-mode server's id is no secret: its address is
        if place is None:
            raise web.HTTPNotFound()
        return place


def _query(request: web.Request) -> str:
    return f"?{request.query_string}" if request.query_string else ""


SITE = web.AppKey("site", Site)


def page(
    request: web.Request,
    template: str,
    *,
    place: WebPlace | None = None,
    status: int = 200,
    **context: Any,
) -> web.Response:
    """A page from its template: not indexed for a link-mode server or an error; its
    header names the visitor signed in (`here`: the page to come back to after signing
    in)."""
    indexable = status == 200 and (place is None or place.indexable)
    body = request.app[SITE].render(
        template,
        place=place,
        indexable=indexable,
        visitor=request.get(VISITOR),
        here=request.path_qs,
        **context,
    )
    return answer(request, body, indexable, status)


def answer(request: web.Request, body: str, indexable: bool, status: int) -> web.Response:
    """A rendered page: its ETag (a 304 when the reader has it), noindex unless
    `indexable`."""
    response = web.Response(text=body, content_type="text/html", status=status)
    if not indexable:
        response.headers["X-Robots-Tag"] = NOINDEX
    if status == 200:  # a link-mode server's pages stay in the reader's own cache
        return fresh(request, response, "no-cache" if indexable else "private, no-cache")
    return response


def file(
    request: web.Request,
    data: bytes,
    content_type: str,
    cache: str,
    *,
    place: WebPlace | None = None,
    filename: str | None = None,
    tag: str | None = None,
) -> web.Response:
    """A picture or a download, with its ETag (`tag`, else the content's hash): a
    request that has it already gets a 304."""
    response = web.Response(body=data, content_type=content_type)
    if filename is not None:
        response.headers["Content-Disposition"] = f'attachment; filename="{filename}"'
    if place is not None and not place.indexable:
        response.headers["X-Robots-Tag"] = NOINDEX
    return fresh(request, response, cache, tag)


def fresh(
    request: web.Request, response: web.Response, cache: str, tag: str | None = None
) -> web.Response:
    """`response` with its ETag and Cache-Control; a 304 when the client has it."""
    if tag is None:
        body = response.body
        data = body if isinstance(body, bytes) else b""
        tag = hashlib.blake2b(data, digest_size=12).hexdigest()
    etag = f'"{tag}"'
    response.headers["ETag"] = etag
    response.headers["Cache-Control"] = cache
    if _if_none_match(request) & {etag, "*"}:
        not_modified = web.Response(status=304)
        for name in ("ETag", "Cache-Control", "X-Robots-Tag"):
            if name in response.headers:
                not_modified.headers[name] = response.headers[name]
        return not_modified
    return response


def _if_none_match(request: web.Request) -> set[str]:
    header = request.headers.get("If-None-Match", "")
    return {part.strip().removeprefix("W/") for part in header.split(",")[:32]}
