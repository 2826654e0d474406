"""Every address of the web pages, written here once (the pages and the Discord adapter's
links both write them from here).

A server's pages live under its prefix:

    /s/<guild id>/...     public pages (`/config web:public`): search engines may index them
    /l/<token>/...        link mode (`/config web:link`): the token is the only way in
                          (128 random bits); never indexed

and below it, the same for both:

    /                     the server: games under way and finished, leaderboards,
                          events (?status=active|finished, ?game=hex, ?player=<id>,
                          ?before=<game id>: a list, filtered, its next page)
    /g/<game>             a game (?ply=N: the board after N moves)
    /g/<game>/live        the game's new positions as they come (Server-Sent Events)
    /g/<game>/board/<ply>.png    the board after <ply> moves (?v= its version: cached for good;
                          <ply>@2x.png: at twice the pixels, for high-DPI screens)
    /g/<game>/game.json, /g/<game>/game.sgf, /g/<game>/game.gif   downloads
    /g/<game>/analysis.png       the analysis chart, when there is one
    /e/<event>            an event (?round=N: the games of round N)
    /p/<player>           a player

Pages of no server: `/` (the home page), `/rules/` and `/rules/<game>` (with
`/rules/<game>/<stage>.png`, the gallery's pictures), `/static/...`, `/robots.txt`, and
signing in and out (bot/web/signin.py):

    /signin               the ways to sign in (?next=<a path of this site>: where to go after)
    /signin/discord       (POST) off to Discord's OAuth2 page
    /signin/discord/back  where Discord sends the browser back (?code=...&state=...)
    /signin/mail          (POST) "mail me a link"
    /signin/<secret>      a one-time sign-in link: "Sign in as <name>", a button that POSTs
    /signout              (POST) sign this browser out
    /account              who is signed in, on how many browsers
    /account/everywhere   (POST) sign out on every browser
Behind a proxy that serves the pages under a path (PUBLIC_URL
`https://example.org/paperboard`), the pages write every address under that path
(`Rooted`), while this server routes from the root: the proxy strips the path.

A server whose pages are off has no address: every URL under its prefix is a 404, and so
is `/s/<guild>` of a server in link mode (its id is no secret). A link-mode address of a
server that went public answers with a redirect to the public one.
"""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import urlencode

from bot.service.core.models import GuildSettings, WebPlace

PUBLIC, LINK = "s", "l"


def prefix(place: WebPlace) -> str:
    """The path every page of a server starts with."""
    if place.mode == "link" and place.token is not None:
        return f"/{LINK}/{place.token}"
    return f"/{PUBLIC}/{place.guild_id}"


def server(place: WebPlace) -> str:
    return prefix(place) + "/"


def game(place: WebPlace, game_id: int, ply: int | None = None) -> str:
    path = f"{prefix(place)}/g/{game_id}"
    return path if ply is None else f"{path}?ply={int(ply)}"


def live(place: WebPlace, game_id: int) -> str:
    """A game's live stream (Server-Sent Events: bot/web/live.py)."""
    return f"{game(place, game_id)}/live"


#: How a picture's address ends at each scale: the 2x picture's, `@2x` before the
#: extension (bot/web/static/game.js writes it so too).
ENDINGS = {1: ".png", 2: "@2x.png"}


def board(
    place: WebPlace, game_id: int, ply: int, version: str | None = None, scale: int = 1
) -> str:
    """A board picture's address; `version` (hex digits, `WebGame.board_tags`) makes it
    one that never changes; `scale` 2, the picture at twice the pixels."""
    path = f"{prefix(place)}/g/{game_id}/board/{int(ply)}{ENDINGS[scale]}"
    if version is None:
        return path
    if not version.isalnum() or not version.isascii():
        raise ValueError(f"a board's version is hex digits, not {version!r}")
    return f"{path}?v={version}"


def download(place: WebPlace, game_id: int, fmt: str) -> str:
    """A game's file: `fmt` json, sgf or gif."""
    return f"{prefix(place)}/g/{game_id}/game.{fmt}"


def play(place: WebPlace, game_id: int, step: str) -> str:
    """Where a player's move goes: `step` taps, preview or move (bot/web/play.py)."""
    return f"{prefix(place)}/g/{game_id}/{step}"


def preview_picture(place: WebPlace, game_id: int, ply: int, move: str, scale: int = 1) -> str:
    """The board after `move`, played after `ply` moves, for its player alone (`scale` 2:
    at twice the pixels)."""
    query = urlencode({"ply": ply, "move": move})
    return f"{prefix(place)}/g/{game_id}/preview{ENDINGS[scale]}?{query}"


def analysis_chart(place: WebPlace, game_id: int) -> str:
    return f"{prefix(place)}/g/{game_id}/analysis.png"


def event(place: WebPlace, event_id: int) -> str:
    return f"{prefix(place)}/e/{event_id}"


def player(place: WebPlace, player_id: int) -> str:
    return f"{prefix(place)}/p/{player_id}"


def home() -> str:
    return "/"


def vacation() -> str:
    """The form that starts and ends the visitor's vacation (bot/web/acts.py)."""
    return "/vacation"


def challenge_answer(place: WebPlace, game_id: int, answer: str) -> str:
    """The form that answers a challenge: `answer` is accept or decline (bot/web/acts.py)."""
    return f"{game(place, game_id)}/{answer}"


def rules(game_name: str | None = None) -> str:
    return "/rules/" if game_name is None else f"/rules/{game_name}"


def rules_picture(game_name: str, stage: str) -> str:
    """The gallery's picture of a game at `stage` (opening, middle, finished)."""
    return f"/rules/{game_name}/{stage}.png"


def games(
    place: WebPlace,
    *,
    status: str | None = None,
    game: str | None = None,
    player: int | None = None,
    before: int | None = None,
) -> str:
    """The server's page listing games: of `status` (active, finished), of one `game`,
    of one `player`, below the id `before` (the next page)."""
    asked = {"status": status, "game": game, "player": player, "before": before}
    query = urlencode({key: value for key, value in asked.items() if value is not None})
    return server(place) + (f"?{query}" if query else "")


def event_round(place: WebPlace, event_id: int, number: int) -> str:
    """An event's page showing the games of round `number` (a league's season)."""
    return f"{event(place, event_id)}?{urlencode({'round': number})}"


def signin(next_path: str | None = None) -> str:
    """The sign-in page; `next_path` (a path of this site) is where it leads after."""
    return "/signin" + ("" if next_path is None else f"?{urlencode({'next': next_path})}")


def signin_discord() -> str:
    return "/signin/discord"


def signin_discord_back() -> str:
    """The OAuth2 redirect URI (its whole address is registered with Discord)."""
    return "/signin/discord/back"


def signin_mail() -> str:
    return "/signin/mail"


def signin_link(secret: str) -> str:
    """A one-time sign-in link (the service's `issue_link` gives its secret)."""
    if not secret.isascii() or not secret.replace("-", "").replace("_", "").isalnum():
        raise ValueError("a sign-in link's secret is URL-safe base64")
    return f"/signin/{secret}"


def signout() -> str:
    return "/signout"


def account() -> str:
    return "/account"


def account_everywhere() -> str:
    return "/account/everywhere"


def static(name: str, version: str | None = None) -> str:
    path = f"/static/{name}"
    return path if version is None else f"{path}?{urlencode({'v': version})}"


def robots(root: str = "") -> str:
    """robots.txt: link-mode addresses are never crawled; a public server's pages may be."""
    return f"User-agent: *\nDisallow: {root}/{LINK}/\nAllow: /\n"


#: The addresses `Rooted` writes under PUBLIC_URL's path.
PATHS = frozenset(
    ("prefix", "server", "game", "board", "download", "analysis_chart", "event", "player",
     "home", "rules", "rules_picture", "games", "event_round", "static", "play",
     "preview_picture", "signin", "signin_discord", "signin_discord_back", "signin_mail",
     "signin_link", "signout", "account", "account_everywhere", "vacation", "challenge_answer",
     "live")
)  # fmt: skip


class Rooted:
    """This module's addresses as the pages write them: under `root`, the path of
    PUBLIC_URL ("" for none), where the proxy in front serves the pages."""

    def __init__(self, root: str) -> None:
        self.root = root

    def __getattr__(self, name: str) -> Callable[..., str]:
        if name not in PATHS:
            raise AttributeError(name)
        write: Callable[..., str] = globals()[name]
        return lambda *args, **kwargs: self.root + write(*args, **kwargs)


def absolute(public_url: str, path: str) -> str:
    """`path` at the address players reach (PUBLIC_URL)."""
    return public_url.rstrip("/") + path


def pages_sentence(found: GuildSettings, pages_url: str | None, unserved: str | None = None) -> str:
    """A server's pages in words, as `/config` answers: off, or where they are (none
    where the bot has no address for them: `Settings.pages_url`; none where this
    process's own pages are `unserved`, and why)."""
    place = found.web_place
    if place is None:
        return "pages on the web off"
    if unserved is not None:
        where = f"not served here ({unserved})"
    elif pages_url is None:
        where = "no address yet (the bot's operator sets PUBLIC_URL)"
    else:
        where = absolute(pages_url, server(place))
    if place.mode == "link":
        return f"pages on the web by link only (never indexed): {where}"
    return f"pages on the web public: {where}"
