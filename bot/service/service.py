"""GameService: the one object every adapter holds, the families of use cases put
together. Knows nothing of Discord.

Every use case takes ids and text, runs in one transaction, and returns a result with
the events an adapter announces; a refusal raises `Refused` and changes nothing. Each
family is an object built with exactly what it uses (the game records of the core, and
now and then one other family), and keeps its own state; an adapter reaches a use case
through its family: `service.play.move(...)`, `service.events.create_tournament(...)`.

    records       the core: the game's row, summary and state, the caches, the outbox
                  write (core/records.py); the turn's writes and a game's end are
                  core/turns.py's, handed to the families that make them
    challenges    challenge, accept, join, decline, cancel, rematch, the limits
    play          move, resign, abort, undo, and the bot's moves (play/)
    conditionals  conditional lines, answered by play
    analysis      analysis, hint (looks/analysis.py)
    lookups       a game, its board and record, the lists, the leaderboards, where a game
                  is shown (looks/lookups.py)
    queue         the games waiting for your move, least time left first
    exports       a game as JSON or SGF; every finished game, streamed
    preferences   a player's settings, a server's settings, the welcome
    events        tournaments and leagues: create, enter, run (events/tournaments.py)
    ladders       a ladder's challenges (events/ladders.py)
    event_reads   the list of events, one event, its pairings and standings, its export
    mail          linked addresses, sign-ups by mail, bounces (mail/addresses.py)
    inbox         each mail handled once (mail/inbox.py)
    web           where a server's pages are, a game's page (web/pages.py)
    web_lists     the web's lists, event and player pages (web/lists.py)
    sessions      who a browser is: sign-in links, OAuth2 states, sessions (web/sessions.py)
    schedule      the scheduler's deadlines, digests, vacations, cleanups
    outbox        delivery after the commit, and again after a crash
"""

from __future__ import annotations

import gc
import logging
import random
import uuid
from collections.abc import Callable
from datetime import datetime

import sqlalchemy as sa

from bot.service.core import jobs, outbox
from bot.service.core.leases import release
from bot.service.core.records import Records, utcnow
from bot.service.core.turns import Turns
from bot.service.events.ladders import Ladders
from bot.service.events.reads import EventReads
from bot.service.events.rounds import EventRounds
from bot.service.events.store import EventStore
from bot.service.events.tournaments import Tournaments
from bot.service.looks.analysis import Analyses
from bot.service.looks.exports import Exports
from bot.service.looks.lookups import Lookups
from bot.service.looks.queue import Queue
from bot.service.mail import inbox
from bot.service.mail.addresses import Mail
from bot.service.mail.inbox import Inbox
from bot.service.play.aiplayer import AiPlay
from bot.service.play.challenges import Challenges
from bot.service.play.conditionals import Conditionals
from bot.service.preferences import Preferences
from bot.service.time import deadlines
from bot.service.time.schedule import Schedule
from bot.service.web.lists import WebReads
from bot.service.web.pages import WebPages
from bot.service.web.sessions import Sessions
from bot.settings import Settings
from bot.store import Database
from bot.store.schema import deadlines as deadline_rows
from bot.store.schema import digests

log = logging.getLogger("paperboard.service")


class GameService:
    """The application core every adapter calls: its families, by name."""

    records: Records
    challenges: Challenges
    play: AiPlay
    conditionals: Conditionals
    analysis: Analyses
    lookups: Lookups
    queue: Queue
    exports: Exports
    events: Tournaments
    ladders: Ladders
    event_reads: EventReads
    web: WebPages
    web_lists: WebReads
    sessions: Sessions
    preferences: Preferences
    mail: Mail
    inbox: Inbox
    schedule: Schedule
    outbox: outbox.Delivery

    def __init__(
        self,
        database: Database,
        settings: Settings,
        *,
        clock: Callable[[], datetime] = utcnow,
        rng: random.Random | None = None,
        worker_id: str | None = None,
        announces: bool = True,
    ) -> None:
        self.records = Records(
            database, settings, clock=clock, rng=rng, worker_id=worker_id, announces=announces
        )
        turns = Turns(self.records)
        store = EventStore(self.records, turns)
        self.ladders = Ladders(self.records, turns, store)
        rounds = EventRounds(self.records, turns, store)
        self.events = Tournaments(self.records, turns, store, rounds, self.ladders)
        self.event_reads = EventReads(self.records, store)
        turns.event_hooks = self.events
        self.challenges = Challenges(self.records, turns)
        self.play = AiPlay(self.records, turns)
        self.conditionals = Conditionals(self.records)
        self.analysis = Analyses(self.records)
        self.lookups = Lookups(self.records)
        self.queue = Queue(self.records)
        self.exports = Exports(self.records)
        self.web = WebPages(self.records)
        self.web_lists = WebReads(self.records, store)
        self.sessions = Sessions(self.records)
        self.preferences = Preferences(self.records, self.web)
        self.mail = Mail(self.records)
        self.inbox = Inbox(self.records)
        self.schedule = Schedule(self.records, turns)
        self.outbox = outbox.Delivery(self.records)

    @classmethod
    async def open(
        cls,
        settings: Settings,
        *,
        name: str | None = None,
        clock: Callable[[], datetime] = utcnow,
        rng: random.Random | None = None,
        announces: bool = True,
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
        service = cls(
            database, settings, clock=clock, rng=rng, worker_id=worker_id, announces=announces
        )
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
        records = self.records
        async with records.db.write() as conn:
            return (
                await outbox.release(records, conn)
                + await jobs.release(conn, records.worker_id)
                + await release(
                    conn,
                    deadline_rows,
                    records.worker_id,
                    deadline_rows.c.done == sa.false(),
                    deadline_rows.c.claimed_by != deadlines.HELD_BY,  # not a vacation's hold
                )
                + await release(conn, digests, records.worker_id)
                + await inbox.release(conn, records.worker_id)
            )

    async def close(self) -> None:
        self.records.holds.let_go_all()
        self.records.painter.close()
        await self.records.changes.close()
        await self.records.db.close()
