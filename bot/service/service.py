"""GameService: the one object every adapter holds. Knows nothing of Discord.

Every use case takes ids and text, runs in one transaction, and returns a result
with the events an adapter announces; a refusal raises `Refused` and changes
nothing. GameService is the use cases put together, each family in its own module:

    challenges.py   challenge, accept, join, decline, cancel, rematch, the limits
    play.py         move, may_resign, resign, abort, request_undo, answer_undo
    aiplayer.py     the bot's moves (Play's commit), undo granted by the bot
    analysis.py     analysis, hint
    lookups.py      game, board, board_text, state, games, game_in_thread,
                    default_game, example_move, record, replay_gif, leaderboard,
                    ratings
    preferences.py  player_settings, guild_settings
    conditionals.py add_conditional, remove_conditional, clear_conditionals_of,
                    conditional_lines (play.py answers with them)
    queue.py        next_game (the games waiting for your move, least time left first)
    tournaments.py  create_tournament, join_tournament, leave_tournament,
                    withdraw_from_tournament, start_tournament, cancel_tournament,
                    add_bot_to_tournament, list_tournaments, tournament,
                    tournament_pairings, tournament_standings; and what a game's end
                    does to its event (event_game_over, called by Records.finish)
    mail.py         link_email, confirm_email, join_by_mail, bounces, the mails sent
    inbox.py        claim_mail, mail_handled, let_go_of_mail: each mail in handled once
    exports.py      export (a game as JSON or HexGui SGF; every finished game, streamed)
    web.py          what the web pages read: where a server's pages are
    webreads.py     the web's lists (games, leaderboards, events), event and player pages
    records.py      what they stand on: the game row, summary and state, the
                    caches, the turn's deadlines, the end of a game

and here the adapter's and the scheduler's plumbing: opening and closing, where a
game is shown, deadlines (bot/service/deadlines.py), the daily digests (digest.py) and
the outbox (outbox.py).
"""

from __future__ import annotations

import gc
import logging
import uuid
from datetime import datetime, timedelta
from typing import Any

import sqlalchemy as sa

from bot.service import aiqueue, digest, inbox, outbox
from bot.service import deadlines as clocks
from bot.service.aiplayer import AiPlay
from bot.service.analysis import Analyses
from bot.service.challenges import Challenges
from bot.service.conditionals import Conditionals
from bot.service.exports import Exports
from bot.service.inbox import Inbox
from bot.service.leases import release
from bot.service.lookups import Lookups
from bot.service.mail import Mail
from bot.service.models import Result
from bot.service.preferences import Preferences
from bot.service.queue import Queue
from bot.service.tournaments import Tournaments
from bot.service.web import WebPages
from bot.service.webreads import WebReads
from bot.settings import Settings
from bot.store import Database
from bot.store.schema import deadlines, digests, games

log = logging.getLogger("paperboard.service")


class GameService(
    Challenges,
    AiPlay,
    Analyses,
    Lookups,
    Preferences,
    Exports,
    Conditionals,
    Queue,
    WebReads,
    Tournaments,
    Mail,
    Inbox,
    WebPages,
):
    """The application core every adapter calls."""

    @classmethod
    async def open(
        cls, settings: Settings, *, name: str | None = None, **kwargs: Any
    ) -> GameService:
        """Connect (and migrate) for a process named `name`, the holder of its leases
        (deadlines, outbox rows, AI jobs). A process that holds its name takes back at once
        what its name still held: a crashed predecessor's work. While a live process holds
        the name, this one runs under a name of its own and takes nothing back."""
        database = await Database.open(settings.database_url)
        worker_id = name
        if name is not None and not await database.hold_name(name):
            worker_id = f"{name}~{uuid.uuid4().hex[:12]}"
            log.warning(
                "another process runs as %s; this one runs as %s (give each its own PROCESS_NAME)",
                name,
                worker_id,
            )
        service = cls(database, settings, worker_id=worker_id, **kwargs)
        if worker_id is not None and worker_id == name:
            released = await service.release_held()
            if released:
                log.info("%s took back %d rows it held before it started", name, released)
        # Everything loaded by now (modules, metadata: ~100k objects) leaves the collector's
        # generations; a full collection scanning them held the event loop 100-300 ms.
        gc.freeze()
        return service

    async def release_held(self) -> int:
        """Make claimable at once every unfinished row this process's name holds (its
        predecessor's, dead: `open` checked that the name was free); how many."""
        async with self.db.write() as conn:
            return (
                await outbox.release(self, conn)
                + await aiqueue.release(conn, self.worker_id)
                + await release(
                    conn,
                    deadlines,
                    self.worker_id,
                    deadlines.c.done == sa.false(),
                    deadlines.c.claimed_by != clocks.HELD_BY,  # not a vacation's hold
                )
                + await release(conn, digests, self.worker_id)
                + await inbox.release(conn, self.worker_id)
            )

    async def close(self) -> None:
        self.holds.let_go_all()
        self.painter.close()
        await self.db.close()

    async def attach(
        self, game_id: int, *, thread_id: int | None = None, message_id: int | None = None
    ) -> None:
        """Remember where an adapter shows a game (its thread, its status message)."""
        values = {
            k: v for k, v in (("thread_id", thread_id), ("message_id", message_id)) if v is not None
        }
        if values:
            async with self.db.write() as conn:
                await conn.execute(games.update().where(games.c.id == game_id).values(**values))

    # == deadlines and reminders (the scheduler calls these) ==================================

    async def claim_deadlines(
        self, worker: str, lease: timedelta, *, limit: int = clocks.CLAIM_BATCH
    ) -> list[clocks.Claim]:
        """Lease up to `limit` due deadline rows to `worker`, the earliest first: no other
        worker claims them until the lease runs out (bot/service/deadlines.py)."""
        return await clocks.claim(self, worker, lease, limit)

    async def act_on_deadline(self, claim: clocks.Claim, worker: str) -> Result | None:
        """Act on a claimed row while it is still its game's current one: a Reminder, a
        loss on time (TimedOut, GameOver), an expired challenge (ChallengeClosed). None
        when there is nothing to announce (superseded, postponed, held, reminders off)."""
        return await clocks.act(self, claim, worker)

    async def next_deadline(self) -> datetime | None:
        """When a deadline row next becomes claimable (due, or its lease runs out)."""
        return await clocks.next_due(self)

    async def end_vacations(self) -> int:
        """End the vacations whose days ran out; their clocks run again."""
        ended = await clocks.end_vacations(self)
        if ended:
            self.forget_rosters()  # they are no longer away
        return ended

    async def claim_digests(
        self, worker: str, lease: timedelta, *, limit: int = clocks.CLAIM_BATCH
    ) -> list[digest.DigestClaim]:
        """Lease up to `limit` due daily digests to `worker` (bot/service/digest.py)."""
        return await digest.claim(self, worker, lease, limit)

    async def send_digests(self, claims: list[digest.DigestClaim], worker: str) -> list[Result]:
        """Act on claimed digests: each moves to the player's next day; those with games
        where it is the player's move are written to the outbox and returned."""
        return await digest.send(self, claims, worker)

    async def cleanup_deadlines(self) -> int:
        """Delete the deadline rows of games that are over; returns how many."""
        return await clocks.cleanup(self)

    # == the outbox: announcements after the commit (bot/service/outbox.py) ======================

    async def deliver(self, result: Result, publish: outbox.Publish) -> None:
        """Announce a use case's result through the adapter's `publish`, then mark it
        delivered. If `publish` raises, `redeliver` sends it again later."""
        await outbox.deliver(self, result, publish)

    async def redeliver(self, publish: outbox.Publish, worker: str | None = None) -> int:
        """Deliver the results a crashed process (or a failed delivery) left undelivered,
        once their lease has run out, with the game as it is now; returns how many."""
        return await outbox.redeliver(self, publish, worker or self.worker_id)

    async def cleanup_ai_jobs(self) -> int:
        """Delete the bot's move and hint jobs finished more than a day ago; returns how many."""
        return await aiqueue.cleanup(self.db, self.clock())

    async def cleanup_outbox(self) -> int:
        """Delete the outbox rows delivered more than a day ago; returns how many."""
        return await outbox.cleanup(self)
