"""What the other adapters (Discord, the console) say of the pages: the address of a
game's, an event's or the server's page at PUBLIC_URL, while the server's pages are on,
and the sentence when there is none; a one-time sign-in link for whoever asks. Light: no
aiohttp server, no templates; the addresses themselves are bot/web/urls.py's.
"""

from __future__ import annotations

from bot.service import (
    GameService,
    GameSummary,
    GuildSettings,
    Player,
    Refused,
    ServiceCode,
    Typed,
    WebPlace,
)
from bot.service.web.pages import SHOWN
from bot.service.web.sessions import LINK_MINUTES
from bot.web import urls

#: The answer where a server's pages are on but have no address.
NO_ADDRESS = (
    "This server's pages on the web are on, but this bot has no address for them: its "
    "operator sets PUBLIC_URL (or WEB_PORT, to serve them from the bot's own process)."
)
#: The answer where a server's pages are off, a {} for each of the commands that turn
#: them on (`Refused.typed`: each front end words them its own way).
PAGES_OFF = (
    "This server's pages on the web are off: a manager turns them on with {} (anyone may "
    "find them) or {} (only through the links the bot posts)."
)
PAGES_ON = tuple(Typed("config", (("web", mode),)) for mode in ("public", "link"))
#: The answer where this process's own pages are not served (`service.web.pages_unserved`).
NOT_SERVED = (
    "This server's pages on the web are not served by this process: {} (another process "
    "may serve other games there)."
)


#: How `/web` offers its asker the sign-in link, a {} for the link.
SIGN_IN = f"Sign in on the web as you (this link works once, within {LINK_MINUTES} minutes): {{}}"


class WebLinks:
    """The addresses of a server's pages, when they are on (one read of its settings),
    at the PUBLIC_URL of the service's settings."""

    def __init__(self, service: GameService) -> None:
        self.service = service

    @property
    def unserved(self) -> str | None:
        """Why the pages at this process's own address are not its own (its WEB_PORT was
        taken): links there would lead to another process's games. None with a
        PUBLIC_URL: the operator says where the pages are."""
        return None if self.service.records.settings.public_url else self.service.web.pages_unserved

    @property
    def pages_url(self) -> str | None:
        """`Settings.pages_url`, or None where this process's pages are `unserved`."""
        return None if self.unserved else self.service.records.settings.pages_url

    def sentence(self, found: GuildSettings) -> str:
        """`pages_sentence`, as `/config` answers, at this process's address."""
        return urls.pages_sentence(found, self.pages_url, self.unserved)

    async def place(self, guild_id: int | None) -> WebPlace | None:
        """Where the server's pages are; None while they are off (or outside a server),
        or while they have no address (`pages_url`)."""
        if guild_id is None or self.pages_url is None:
            return None
        try:
            return await self.service.web.web_place(guild_id)
        except Refused:  # an id out of range: no server
            return None

    async def game(self, game: GameSummary) -> str | None:
        """A game's page; None while its server's pages are off, or before it started (a
        challenge has no page)."""
        if not has_page(game):
            return None
        place = await self.place(game.guild_id)
        return None if place is None else self.absolute(urls.game(place, game.id))

    async def event(self, guild_id: int, event_id: int) -> str | None:
        place = await self.place(guild_id)
        return None if place is None else self.absolute(urls.event(place, event_id))

    async def server(self, guild_id: int) -> str | None:
        place = await self.place(guild_id)
        return None if place is None else self.absolute(urls.server(place))

    async def pages(
        self,
        guild_id: int,
        *,
        game_id: int | None = None,
        event_id: int | None = None,
        thread_id: int | None = None,
    ) -> list[tuple[str, str]]:
        """`/web`'s answer, (what, address) pairs: the event named; the game named, else
        the game of the thread asked in (`thread_id`) when no event is named, and the
        event it belongs to; else the server's pages. Refused in one sentence where there
        is no page (the pages off, a challenge that never started, an unknown number)."""
        event = (
            None
            if event_id is None
            else await self.service.event_reads.tournament(event_id, guild_id)
        )
        game = None
        if game_id is not None:
            game = await self.service.lookups.game(game_id, guild_id)
        elif event is None and thread_id is not None:
            game = await self.service.lookups.game_in_thread(thread_id)
        wanted: list[tuple[str, str | None]] = []
        if game is not None:
            if not has_page(game):
                raise Refused(
                    f"{game.title} #{game.id} "
                    + (
                        "gets its page when it starts."
                        if game.status == "open"
                        else "never started, so it has no page."
                    ),
                    code=ServiceCode.NOT_STARTED,
                )
            wanted.append((f"{game.title} #{game.id}", await self.game(game)))
            if event is None and game.event_id is not None:
                event = await self.service.event_reads.tournament(game.event_id, guild_id)
        if event is not None:
            url = await self.event(guild_id, event.id)
            wanted.append((f"{event.title} (event #{event.id})", url))
        if not wanted:
            wanted.append(("This server's games", await self.server(guild_id)))
        pages = [(what, url) for what, url in wanted if url is not None]
        if len(pages) < len(wanted):
            if self.pages_url is not None or not await self.service.web.web_place(guild_id):
                raise Refused(PAGES_OFF, code=ServiceCode.WEB_OFF, typed=PAGES_ON)
            if self.unserved is not None:
                raise Refused(NOT_SERVED.format(self.unserved), code=ServiceCode.WEB_OFF)
            raise Refused(NO_ADDRESS, code=ServiceCode.WEB_OFF)
        return pages

    async def sign_in(self, player: Player) -> str | None:
        """A one-time sign-in link for `player`, the asker of `/web` (for their eyes only);
        None where the pages have no address."""
        if self.pages_url is None:
            return None
        secret = await self.service.sessions.issue_link(player, "bot")
        return self.absolute(urls.signin_link(secret))

    def absolute(self, path: str) -> str:
        """`path` at the pages' address (asked only once `place` found them, so
        `pages_url` is set: it is `site_url`)."""
        return urls.absolute(self.service.records.settings.site_url, path)


def has_page(game: GameSummary) -> bool:
    """Whether a game has a page: once it started (a challenge has none)."""
    return game.status in SHOWN
