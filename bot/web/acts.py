"""What a seated player does on a game's page besides moving: resign (confirmed), ask for
an undo and answer one, set and clear conditional lines, start and end a vacation; and
answer a challenge (from the home page, bot/web/home.py).

Each is a form POSTed with the session's CSRF token (`auth.posted`) calling the use case
Discord's command calls, which decides who may (the page only offers the forms to the
game's players; a form sent by anyone else gets the use case's refusal). The answer is a
redirect back to the page (a reload acts once), which shows the result's sentence or the
refusal's, once: it travels in a short-lived cookie (`SAID`), signed with the session's
CSRF token, so only the browser that acted sees it.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime

from aiohttp import web

from bot.service import (
    GameService,
    GameSummary,
    Player,
    PlayerSettings,
    Refused,
    Result,
    ServiceCode,
    WebGame,
    WebPlace,
    WebSession,
    conditional_text,
    describe,
    local_time,
)
from bot.web import auth
from bot.web.signin import safe_next
from bot.web.site import SITE, Handler

#: The cookie that carries a form's sentence to the page it leads back to.
SAID = "paperboard_said"
#: How long that sentence waits for its page (the redirect follows at once).
SAID_SECONDS = 60
#: The most of a sentence carried, in UTF-8 bytes (a cookie holds 4 kB; base64 adds a third).
SAID_BYTES = 2400
#: Where a request keeps whether it showed the sentence (then its response clears it).
_SHOWN = web.RequestKey("said_shown", bool)
#: An undo's answers, as the form sends them.
UNDO_ANSWERS = ("accept", "decline")
#: The conditional lines' changes a form makes (their list is the page itself).
LINE_ACTIONS = ("add", "remove", "clear")
#: The longest line a form sends on (the service refuses a line of too many moves).
MAX_LINE_TEXT = 400

#: A use case behind a game's form: (service, game id, guild id, player, form) -> its
#: result (announced, and told to the player) or a sentence for the player alone.
GameAct = Callable[[GameService, int, int, Player, dict[str, str]], Awaitable[Result | str]]


@dataclass(frozen=True, slots=True)
class Acts:
    """The acts part of a game's page, for its visitor: what they may do there now (the
    service's reads say; its use cases decide when they act) and the last act's sentence."""

    base: str  # the game's address: each form posts under it
    csrf: str  # the session's token every form carries ("" for a visitor not signed in)
    said: str | None  # the sentence of the act that led here
    active: bool = False  # the game is under way (and the visitor seated in it)
    confirming: bool = False  # the visitor asked to resign: "Resign this game?"
    undo_by: str | None = None  # who asked for an undo that waits ("you": the visitor)
    undo_ply: int = 0  # the ply that undo request holds for (the answer says it)
    lines: tuple[str, ...] | None = None  # the visitor's conditional lines; None: none taken
    away: bool = False  # the visitor is on vacation


async def panel(request: web.Request, place: WebPlace, found: WebGame) -> Acts:
    """The acts part of `found`'s page for the request's visitor (`?act=resign` asks to
    confirm a resignation: the service says whether they could)."""
    site = request.app[SITE]
    service = site.service
    game = found.game
    base = site.urls.game(place, game.id)
    visitor = await auth.visitor_of(request)
    said = heard(request, visitor)
    seat = None if visitor is None else game.seat_of(visitor.player.id)
    if visitor is None or seat is None or game.status != "active":
        return Acts(base, visitor.csrf if visitor else "", said)
    player = visitor.player
    confirming = False
    if request.query.get("act") == "resign":
        try:
            await service.play.may_resign(game.id, place.guild_id, player)
            confirming = True
        except Refused as refusal:
            said = str(refusal)
    undo_by, undo_ply = None, 0
    asked = await service.lookups.undo_request(game.id, place.guild_id)
    if asked is not None:
        asker, undo_ply = asked
        undo_by = "you" if asker == player.id else name_in(game, asker)
    lines: tuple[str, ...] | None
    try:
        lines = (
            await service.conditionals.conditional_lines(game.id, place.guild_id, player)
        ).lines
    except Refused:  # a game against the bot, or of more than two players, takes none
        lines = None
    away = player.id in game.away
    return Acts(base, visitor.csrf, said, True, confirming, undo_by, undo_ply, lines, away)


def name_in(game: GameSummary, player_id: int) -> str:
    """A seated player's name in `game` ("someone" for anyone else)."""
    return next((s.name for s in game.seats if s.player_id == player_id and s.name), "someone")


def told(result: Result, player: Player) -> str:
    """What a use case's events say to the player who acted ("You resigned..."), as the
    mail tells each reader; times in their zone."""

    def when(moment: datetime, zone: str | None) -> str:
        return local_time(moment, result.game.zone_of(player.id) or zone)

    def mention(player_id: int) -> str:
        return name_in(result.game, player_id)

    sentences = [
        describe(event, result.game, mention, when, reader=player.id) for event in result.events
    ]
    return " ".join(sentences) or "Done."


def vacation_words(found: PlayerSettings) -> str:
    """Where a player's vacation stands after they started or ended it."""
    left = f"{found.vacation_days_left:g} day{'' if found.vacation_days_left == 1 else 's'}"
    if found.on_vacation_since is not None:
        return f"You are on vacation: your clocks are stopped ({left} of vacation left this year)."
    return f"You are back from vacation: your clocks run again ({left} of vacation left this year)."


# -- the forms ------------------------------------------------------------------------------


def game_form(act: GameAct, *, home: bool = False) -> Handler:
    """A form under a game's address: its visitor and CSRF token checked (403), the server's
    pages on (404), then `act`, whose sentence (or refusal's) the game's page shows; with
    `home`, the home page (a challenge has no page until it starts)."""

    async def handle(request: web.Request) -> web.StreamResponse:
        visitor, fields = await auth.posted(request)
        site = request.app[SITE]
        place = await site.server_of(request)
        game_id = int(request.match_info["game"])
        try:
            done = await act(site.service, game_id, place.guild_id, visitor.player, fields)
        except Refused as refusal:
            done = str(refusal)
        if isinstance(done, Result) and site.publish is not None:
            await site.service.outbox.deliver(done, site.publish)  # else the bot, at news
        sentence = done if isinstance(done, str) else told(done, visitor.player)
        back = site.urls.home() if home else site.urls.game(place, game_id) + "#acts"
        return led_back(request, visitor, back, sentence)

    return handle


async def resign(
    service: GameService, game_id: int, guild_id: int, player: Player, _: dict[str, str]
) -> Result:
    return await service.play.resign(game_id, guild_id, player)


async def ask_undo(
    service: GameService, game_id: int, guild_id: int, player: Player, _: dict[str, str]
) -> Result:
    return await service.play.request_undo(game_id, guild_id, player)


async def answer_undo(
    service: GameService, game_id: int, guild_id: int, player: Player, form: dict[str, str]
) -> Result:
    """Accept or decline the undo asked at the ply the page showed (a move since: refused)."""
    answer, ply = form.get("answer", ""), form.get("ply", "")
    if answer not in UNDO_ANSWERS or not (ply.isascii() and ply.isdecimal() and len(ply) < 7):
        raise Refused("Answer the undo with Accept or Decline.", code=ServiceCode.USAGE)
    return await service.play.answer_undo(
        game_id, guild_id, player, accept=answer == "accept", expected_ply=int(ply)
    )


async def conditional(
    service: GameService, game_id: int, guild_id: int, player: Player, form: dict[str, str]
) -> str:
    """Add or remove a line (typed as /conditional takes it: "e5 d6 c3 c4"), or clear them."""
    action = form.get("action", "")
    if action not in LINE_ACTIONS:
        raise Refused("Add a line, remove one, or clear them.", code=ServiceCode.USAGE)
    line = form.get("line", "").strip() or None
    if line is not None and len(line) > MAX_LINE_TEXT:  # cut short, it would be another line
        raise Refused(
            f"That line is too long: at most {MAX_LINE_TEXT} characters.", code=ServiceCode.USAGE
        )
    found = await service.conditionals.conditional(game_id, guild_id, player, action, line)
    return found.note or conditional_text(found)


async def accept(
    service: GameService, game_id: int, guild_id: int, player: Player, _: dict[str, str]
) -> Result:
    return await service.challenges.accept(game_id, guild_id, player)


async def decline(
    service: GameService, game_id: int, guild_id: int, player: Player, _: dict[str, str]
) -> Result:
    return await service.challenges.decline(game_id, guild_id, player)


async def vacation(request: web.Request) -> web.StreamResponse:
    """Start or end the visitor's vacation (as /settings vacation: does), led back to the
    page the form was on (`back`, a path of this site; else home)."""
    visitor, fields = await auth.posted(request)
    site = request.app[SITE]
    back = safe_next(fields.get("back")) or site.urls.home()
    wanted = fields.get("vacation", "")
    if wanted not in ("on", "off"):
        sentence = "Start your vacation, or end it."
    else:
        try:
            found = await site.service.preferences.player_settings(
                visitor.player, vacation=wanted == "on"
            )
            sentence = vacation_words(found)
        except Refused as refusal:
            sentence = str(refusal)
    return led_back(request, visitor, back, sentence)


# -- the sentence carried to the page ---------------------------------------------------------


def led_back(request: web.Request, visitor: WebSession, to: str, sentence: str) -> web.Response:
    """A 303 to `to` (the page a reload shows, acting nothing), carrying `sentence` for it."""
    response = web.Response(status=303, headers={"Location": to})
    text = sentence.encode()[:SAID_BYTES].decode(errors="ignore")  # a name's letters whole
    packed = base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")
    auth.set_cookie(request, response, SAID, f"{packed}.{_signature(visitor, text)}", SAID_SECONDS)
    return response


def heard(request: web.Request, visitor: WebSession | None) -> str | None:
    """The sentence an act left for this page, when this visitor's session signed it; the
    response then clears it (`said_once`): it shows once."""
    carried = request.cookies.get(SAID)
    if carried is None or visitor is None:
        return None
    request[_SHOWN] = True
    packed, _, signature = carried.partition(".")
    try:
        text = base64.urlsafe_b64decode(packed + "=" * (-len(packed) % 4)).decode()
    except ValueError:
        return None
    if not hmac.compare_digest(signature.encode(), _signature(visitor, text).encode()):
        return None
    return text


@web.middleware
async def said_once(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Clear the sentence an act left once a page showed it."""
    response = await handler(request)
    if request.get(_SHOWN):
        auth.clear_cookie(request, response, SAID)
    return response


def _signature(visitor: WebSession, text: str) -> str:
    digest = hmac.new(visitor.csrf.encode(), text.encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest[:18]).decode()


#: Under a server's prefix (bot/web/app.py adds it).
GAME = r"/g/{game:[0-9]{1,20}}"
FORMS: tuple[tuple[str, Handler], ...] = (
    (GAME + "/resign", game_form(resign)),
    (GAME + "/undo", game_form(ask_undo)),
    (GAME + "/undo/answer", game_form(answer_undo)),
    (GAME + "/conditional", game_form(conditional)),
    (GAME + "/accept", game_form(accept, home=True)),
    (GAME + "/decline", game_form(decline, home=True)),
)
#: Of no server.
SITE_FORMS: tuple[tuple[str, Handler], ...] = (("/vacation", vacation),)
