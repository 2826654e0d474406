"""Events: tournaments (round robin, Swiss, knockout), leagues and ladders, stored and run.

The rules are bot/events' pure functions (pairings, brackets, divisions, standings); this
module stores an event (`tournaments`, `entrants`, `tournament_rounds`, `pairings`), starts
its games as ordinary games (a game row that names its event and round), and goes on when
one ends: `game_over`, which `Turns.finish` calls through its event hooks in the
transaction that ends the game, with the event's row locked. A round is paired once,
whoever ends its last game on whichever process: the event's row lock orders them, and
each step is a conditional `UPDATE tournaments ... WHERE round = n` (or `status =
'active'`) that only one transaction's update touches; a round's row (its primary key)
is inserted once.

Announcements (round starts, byes, withdrawals, promotions, final standings) are
`TournamentNews` events, each with a game of the event (its channel is the event's). What
follows a game's end (the next round's games and news) is written into the outbox for the
announcing processes to deliver (`outbox.write(..., later=True)`): the use case that ended
the game returns only its own result.

Here the use cases of creating, entering and running an event; the event's rows
(store.py), its steps (rounds.py), a ladder's challenges (ladders.py), what is read of
an event (reads.py) and its words (words.py) are each a module of their own.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

import engine
from bot.events import (
    FORMAT_TITLES,
    LIMITS,
    MATCH_LENGTHS,
    Finish,
    Format,
    lost_twice_on_time,
    size_refusal,
)
from bot.events import join as ladder_join
from bot.service.clocks import chosen_clock
from bot.service.core import outbox
from bot.service.core.levels import LEVELS, bot_player
from bot.service.core.messages import unknown_game
from bot.service.core.models import (
    GameOver,
    Place,
    Player,
    Refused,
    Result,
    ServiceCode,
    Status,
    TournamentNews,
    TournamentResult,
)
from bot.service.core.records import Records, first_position
from bot.service.core.rules import check_ids, game_terms, local_time, whole
from bot.service.core.turns import Turns
from bot.service.events.ladders import Ladders
from bot.service.events.rounds import EventRounds
from bot.service.events.store import EventStore
from bot.service.events.words import (
    DEFAULT_NAMES,
    FINISHES,
    FORMAT_WORDS,
    FORMATS,
    ROUNDS_MOST,
    by_place,
    clean_name,
    closed,
    standing,
    start_time,
    start_words,
)
from bot.store.schema import (
    entrants,
    pairings,
    tournaments,
)
from engine import Code
from engine.core import shown

log = logging.getLogger("paperboard.tournaments")


class Tournaments:
    """The use cases of creating, entering and running an event, and what a game's end or a
    challenge's close does to it (the records' event hooks)."""

    def __init__(
        self,
        records: Records,
        turns: Turns,
        store: EventStore,
        rounds: EventRounds,
        ladders: Ladders,
    ) -> None:
        self.records = records
        self.turns = turns
        self.store = store
        self.rounds = rounds
        self.ladders = ladders
        self.db = records.db
        self.clock = records.clock
        self.rng = records.rng

    # == creating and entering =========================================================

    async def create_tournament(
        self,
        place: Place,
        organizer: Player,
        game: str,
        *,
        format: str,
        name: str | None = None,
        options: Mapping[str, object] | None = None,
        rounds: int | None = None,
        match: int | None = None,
        double: bool = False,
        days_per_move: int | str | None = "default",
        rated: bool | None = None,
        vacations: bool = True,
        clock: str | None = None,
        auto_vacation: bool = True,
        manages: bool = False,
        max_players: int | None = None,
        start_players: int | None = None,
        starts_at: datetime | str | None = None,
    ) -> TournamentResult:
        """A new event, open for entries. `manages`: the organizer has Manage Server (on a
        server where only managers run events: `guild_settings(tournaments=...)`).
        `max_players`: entries beyond it are refused; `start_players`: the join that makes
        this many starts the event; `starts_at` (a moment, or "2026-12-01T18:00" in the
        organizer's time zone, or "in 3 days"): the scheduler starts it then. `clock`: its
        games' bank clock instead of days per move; `auto_vacation`: whether those clocks
        may spend their players' vacation days by themselves."""
        check_ids(place.guild_id, place.channel_id, organizer.id)
        info = engine.GAMES.get(game)
        if info is None:
            raise unknown_game(game)
        if not info.min_players <= 2 <= info.max_players:
            raise Refused(f"{info.title} is not a two-player game.", code=Code.PLAYER_COUNT)
        kind = FORMATS.get(str(format).strip().lower())
        if kind is None:
            raise Refused(
                f"There is no format {shown(str(format))}; "
                f"the formats are {', '.join(FORMAT_WORDS)}.",
                code=Code.BAD_OPTION,
            )
        title = clean_name(DEFAULT_NAMES[kind] if name is None else name)
        if rounds is not None:
            if kind is not Format.SWISS:
                raise Refused("rounds= is for a Swiss tournament.", code=Code.BAD_OPTION)
            if not whole(rounds) or not 1 <= rounds <= ROUNDS_MOST:
                raise Refused(
                    f"A Swiss tournament has 1 to {ROUNDS_MOST} rounds.", code=Code.BAD_OPTION
                )
        if match is not None:
            if kind is not Format.KNOCKOUT:
                raise Refused("match= is for a knockout.", code=Code.BAD_OPTION)
            if not whole(match) or match not in MATCH_LENGTHS:
                raise Refused("A knockout's matches have 1, 3 or 5 games.", code=Code.BAD_OPTION)
        if double and kind is not Format.ROUND_ROBIN:
            raise Refused("double= is for a round robin.", code=Code.BAD_OPTION)
        if rated is not None and not isinstance(rated, bool):
            raise Refused("Rated is yes or no.", code=Code.BAD_OPTION)
        control = chosen_clock(clock, days_per_move != "default")
        settings = dict(options or {})
        if not all(isinstance(key, str) for key in settings) or "players" in settings:
            raise Refused("Game options are named, like size=7.", code=Code.BAD_OPTION)
        limit = LIMITS[kind]
        if max_players is not None and (
            not whole(max_players) or not limit.least <= max_players <= limit.most
        ):
            raise Refused(
                f"A {FORMAT_TITLES[kind]} takes {limit.least} to {limit.most:,} players.",
                code=Code.BAD_OPTION,
            )
        if start_players is not None:
            most = limit.most if max_players is None else max_players
            if not whole(start_players) or not limit.least <= start_players <= most:
                raise Refused(
                    f"A start when enough have joined takes {limit.least} to {most:,} players.",
                    code=Code.BAD_OPTION,
                )
        if kind is Format.LADDER and (start_players is not None or starts_at is not None):
            raise Refused("A ladder starts when its organizer starts it.", code=Code.BAD_OPTION)
        async with self.db.write() as conn:
            guild = await self.records.load_guild_settings(conn, place.guild_id)
            if guild.tournaments != "everyone" and not manages:
                raise Refused(
                    "Only members who can manage the server create events here.",
                    code=ServiceCode.NOT_ADMIN,
                )
            days = game_terms(guild, place.channel_id, days_per_move, rated, what="Events")
            if control is not None:
                days = None
            start = await first_position(game, settings, 2)
            now = self.clock()
            zone_name = await self.records.time_zone_of(conn, organizer.id)
            when = (
                start_time(starts_at, zone_name, now) if isinstance(starts_at, str) else starts_at
            )
            if when is not None and when <= now:
                raise Refused("The start time has passed.", code=Code.BAD_OPTION)
            await self.records.remember(conn, organizer)
            inserted = await conn.execute(
                tournaments.insert()
                .values(
                    guild_id=place.guild_id,
                    channel_id=place.channel_id,
                    name=title,
                    game=game,
                    options=dict(start.options),
                    format=kind.value,
                    rounds=rounds,
                    match_games=(match or 1) if kind is Format.KNOCKOUT else None,
                    double=bool(double),
                    days_per_move=days,
                    time_control=control,
                    auto_vacation=bool(auto_vacation),
                    vacations=bool(vacations),
                    rated=guild.rated if rated is None else rated,
                    organizer_id=organizer.id,
                    status="open",
                    round=0,
                    seed=self.rng.randrange(2**31),
                    created_at=now,
                    max_players=max_players,
                    start_players=start_players,
                    starts_at=when,
                )
                .returning(tournaments.c.id)
            )
            tournament_id = int(inserted.scalar_one())
            summary = await self.store.event_summary(conn, tournament_id)
        log.info("tournament=%d created %s %s", tournament_id, kind.value, game)
        note = (
            f"{summary.title} (#{tournament_id}), a {FORMAT_TITLES[kind]}, is open for "
            f"entries: tournament join {tournament_id}."
        )
        starts = start_words(summary, lambda moment: local_time(moment, zone_name))
        return TournamentResult(summary, f"{note} {starts}" if starts else note)

    async def join_tournament(
        self, tournament_id: int, guild_id: int, player: Player
    ) -> TournamentResult:
        """Enter an event: before its start; a league's newcomer joins the lowest division
        next season, a ladder's the bottom at once."""
        return await self._enter(tournament_id, guild_id, player, None)

    async def add_bot_to_tournament(
        self,
        tournament_id: int,
        guild_id: int,
        by: Player,
        level: str,
        *,
        manages: bool = False,
    ) -> TournamentResult:
        """The organizer (or a manager) enters the bot at `level`; the AI plays its games."""
        if level not in LEVELS:
            raise Refused(
                f"The bot's levels are {', '.join(LEVELS)}, not {shown(str(level))}.",
                code=Code.BAD_OPTION,
            )
        return await self._enter(tournament_id, guild_id, bot_player(level), (by, manages, level))

    async def _enter(
        self,
        tournament_id: int,
        guild_id: int,
        player: Player,
        bot: tuple[Player, bool, str] | None,
    ) -> TournamentResult:
        async with self.db.write() as conn:
            row = await self.store.event_row(conn, tournament_id, guild_id)
            if bot is not None:
                await self.store.may_run(conn, row, *bot[:2])
            kind = Format(row.format)
            late = row.status == "active" and kind in (Format.LEAGUE, Format.LADDER)
            if row.status != "open" and not late:
                raise Refused(
                    f"{await self.store.title(conn, row)} {closed(row.status)}.",
                    code=ServiceCode.NOT_OPEN,
                )
            listed = await self.store.entrants(conn, row.id)
            known = next((e for e in listed if e.player_id == player.id), None)
            title = await self.store.title(conn, row)
            if known is not None:
                who = "The bot at that level is" if bot else "You are"
                if known.withdrawn:
                    raise Refused(
                        f"{who} out of {title}: a player who left does not return.",
                        code=ServiceCode.ENTERED,
                    )
                raise Refused(f"{who} in {title} already.", code=ServiceCode.ENTERED)
            most = row.max_players or LIMITS[kind].most
            if len(listed) >= most:
                raise Refused(f"{title} is full: {most:,} players.", code=ServiceCode.EVENT_SIZE)
            await self.records.remember(conn, player)
            place = None
            if kind is Format.LADDER and row.status == "active":
                ladder = [e.player_id for e in sorted(standing(listed), key=by_place)]
                place = len(ladder_join(ladder, player.id))
            await conn.execute(
                entrants.insert().values(
                    tournament_id=row.id,
                    player_id=player.id,
                    seq=max((e.seq for e in listed), default=0) + 1,
                    bot_level=bot[2] if bot else None,
                    joined_at=self.clock(),
                    place=place,
                )
            )
            # the join that makes the start's number starts the event, under the row's lock
            results: list[Result] = []
            if row.status == "open" and len(listed) + 1 >= self._start_number(row):
                results = await self._start(conn, row, await self.store.entrants(conn, row.id))
            summary = await self.store.event_summary(conn, row.id)
        count = len(summary.entrants)
        note = f"{player.name} joined {summary.title} ({count} player{'s' * (count != 1)})."
        if results:
            note += f" {summary.title} has started."
        if kind is Format.LEAGUE and late:
            note = f"{player.name} joins {summary.title} in the lowest division next season."
        return TournamentResult(summary, note, tuple(results))

    def _start_number(self, row: Any) -> float:
        """How many entrants start an open event on joining: its `start_players`, or the
        format's least once its start time has passed with too few; never otherwise."""
        number = float("inf") if row.start_players is None else int(row.start_players)
        if row.starts_at is not None and row.starts_at <= self.clock():
            return min(number, LIMITS[Format(row.format)].least)
        return number

    async def leave_tournament(
        self, tournament_id: int, guild_id: int, player: Player
    ) -> TournamentResult:
        """Leave an event: before the start the entry is gone; after, the player is
        withdrawn (their games under way are forfeited, they are never paired again)."""
        return await self._withdraw_use_case(tournament_id, guild_id, player, player, False)

    async def withdraw_from_tournament(
        self,
        tournament_id: int,
        guild_id: int,
        by: Player,
        player: Player | None = None,
        *,
        manages: bool = False,
    ) -> TournamentResult:
        """Withdraw `player` (yourself by default; another player: the organizer or a
        manager), as `leave_tournament`."""
        return await self._withdraw_use_case(tournament_id, guild_id, by, player or by, manages)

    async def _withdraw_use_case(
        self, tournament_id: int, guild_id: int, by: Player, player: Player, manages: bool
    ) -> TournamentResult:
        async with self.db.write() as conn:
            # the player's games under way first, then the event's row: the lock order
            # of a game's end (game rows, then the event's)
            await self.store.lock_games_of(conn, tournament_id, player.id)
            row = await self.store.event_row(conn, tournament_id, guild_id)
            if by.id != player.id:
                await self.store.may_run(conn, row, by, manages)
            title = await self.store.title(conn, row)
            entry = (
                await conn.execute(
                    sa.select(entrants).where(
                        entrants.c.tournament_id == row.id, entrants.c.player_id == player.id
                    )
                )
            ).one_or_none()
            you = "You are" if by.id == player.id else f"{player.name} is"
            if entry is None:
                raise Refused(f"{you} not in {title}.", code=ServiceCode.NOT_ENTERED)
            if entry.withdrawn:
                raise Refused(f"{you} out of {title} already.", code=ServiceCode.NOT_ENTERED)
            if row.status in ("finished", "cancelled"):
                raise Refused(f"{title} {closed(row.status)}.", code=ServiceCode.NOT_OPEN)
            results: list[Result] = []
            called_off: list[Result] = []  # announced as they closed
            if row.status == "open" or Format(row.format) is Format.LADDER:
                await conn.execute(
                    entrants.delete().where(
                        entrants.c.tournament_id == row.id, entrants.c.player_id == player.id
                    )
                )
                if Format(row.format) is Format.LADDER and entry.place is not None:
                    await self.store.renumber_ladder(conn, row.id)
                    called_off = await self.ladders.call_off_challenges(conn, row.id, player.id)
                note = f"{player.name} left {title}."
            else:
                results = await self.rounds.withdraw(conn, row, player.id, "left the event")
                note = f"{player.name} withdrew from {title}."
                results += await self.rounds.advance(conn, row.id)
            results = [await self.records.announce(conn, result) for result in results]
            summary = await self.store.event_summary(conn, row.id)
        return TournamentResult(summary, note, (*called_off, *results))

    # == running ===========================================================================

    async def start_tournament(
        self, tournament_id: int, guild_id: int, by: Player, *, manages: bool = False
    ) -> TournamentResult:
        """Start an event (the organizer or a manager): its first round's games (every
        game of a round robin, a league's first season) open at once."""
        async with self.db.write() as conn:
            row = await self.store.event_row(conn, tournament_id, guild_id)
            await self.store.may_run(conn, row, by, manages)
            title = await self.store.title(conn, row)
            if row.status == "active":
                raise Refused(f"{title} has started already.", code=ServiceCode.NOT_OPEN)
            if row.status != "open":
                raise Refused(f"{title} {closed(row.status)}.", code=ServiceCode.NOT_OPEN)
            listed = await self.store.entrants(conn, row.id)
            refusal = size_refusal(Format(row.format), len(listed))
            if refusal is not None:
                raise Refused(refusal, code=ServiceCode.EVENT_SIZE)
            results = await self._start(conn, row, listed)
            summary = await self.store.event_summary(conn, row.id)
        return TournamentResult(summary, f"{title} has started.", tuple(results))

    async def start_due_tournaments(self) -> list[Result]:
        """Start the open events whose start time has come (the scheduler's tick): each in
        its own transaction under its row's lock, only while it is still open, so a start
        happens once whichever process gets there first. An event with too few entrants
        stays open: the join that reaches the format's least starts it."""
        now = self.clock()
        async with self.db.read() as conn:
            due = (
                await conn.execute(
                    sa.select(tournaments.c.id, tournaments.c.guild_id)
                    .where(
                        tournaments.c.status == "open",
                        tournaments.c.starts_at.is_not(None),
                        tournaments.c.starts_at <= now,
                    )
                    .order_by(tournaments.c.starts_at, tournaments.c.id)
                )
            ).all()
        results: list[Result] = []
        for tournament_id, guild_id in due:
            try:
                async with self.db.write() as conn:
                    row = await self.store.event_row(conn, tournament_id, guild_id)
                    if row.status != "open":
                        continue  # another process started it, or it was called off
                    listed = await self.store.entrants(conn, row.id)
                    if size_refusal(Format(row.format), len(listed)) is None:
                        results += await self._start(conn, row, listed)
            except Exception:  # one event's failure holds no other's start; the next tick retries
                log.exception("tournament=%d start failed", tournament_id)
        return results

    async def next_tournament_start(self) -> datetime | None:
        """The next start time of an open event still to come (the scheduler wakes then)."""
        async with self.db.read() as conn:
            found: datetime | None = await conn.scalar(
                sa.select(tournaments.c.starts_at)
                .where(tournaments.c.status == "open", tournaments.c.starts_at > self.clock())
                .order_by(tournaments.c.starts_at)
                .limit(1)
            )
        return found

    async def _start(self, conn: AsyncConnection, row: Any, listed: Sequence[Any]) -> list[Result]:
        """Start the open event of `row` (locked) with `listed`: seeds, its first round's
        games and news, written into the outbox in this transaction."""
        await self.store.seed(conn, row, listed)
        touched = await conn.execute(
            tournaments.update()
            .where(tournaments.c.id == row.id, tournaments.c.status == "open")
            .values(status="active", round=1, started_at=self.clock())
        )
        if touched.rowcount != 1:  # cannot happen under the row lock; never start twice
            title = await self.store.title(conn, row)
            raise Refused(f"{title} has started already.", code=ServiceCode.NOT_OPEN)
        row = await self.store.fresh(conn, row.id)
        # announced: each result carries its outbox row, which its delivery marks
        results = [
            await self.records.announce(conn, result)
            for result in await self.rounds.begin(conn, row)
        ]
        log.info("tournament=%d started players=%d", row.id, len(listed))
        return results

    async def cancel_tournament(
        self, tournament_id: int, guild_id: int, by: Player, *, manages: bool = False
    ) -> TournamentResult:
        """Call an event off (the organizer or a manager): games under way play on as
        ordinary games, and no round follows."""
        async with self.db.write() as conn:
            row = await self.store.event_row(conn, tournament_id, guild_id)
            await self.store.may_run(conn, row, by, manages)
            title = await self.store.title(conn, row)
            if row.status in ("finished", "cancelled"):
                raise Refused(f"{title} {closed(row.status)}.", code=ServiceCode.NOT_OPEN)
            await conn.execute(
                tournaments.update()
                .where(tournaments.c.id == row.id)
                .values(status="cancelled", finished_at=self.clock())
            )
            results: list[Result] = []
            anchor = await self.store.anchor(conn, row.id)
            if anchor is not None:
                news = TournamentNews(anchor, row.id, "cancelled", f"{title} is called off.")
                results.append(
                    await self.records.announce(conn, await self.store.result(conn, news))
                )
            summary = await self.store.event_summary(conn, row.id)
        return TournamentResult(summary, f"{title} is called off.", tuple(results))

    # == a game of an event ended (Turns.finish, in its transaction) ======================

    async def game_over(self, conn: AsyncConnection, row: Any, over: GameOver) -> None:
        pairing = (
            await conn.execute(sa.select(pairings).where(pairings.c.game_id == row.id))
        ).one_or_none()
        if pairing is None or pairing.done:
            return
        winner = over.winners[0] if len(over.winners) == 1 else None
        finish = FINISHES.get(over.reason, Finish.PLAYED)
        await conn.execute(
            pairings.update()
            .where(pairings.c.id == pairing.id)
            .values(done=True, winner_id=winner, finish=finish.value, ended_at=self.clock())
        )
        event = await self.turns.lock_event(conn, row.tournament_id)
        results: list[Result] = []
        if Format(event.format) is Format.LADDER and event.status == "active":
            results += await self.ladders.after_challenge(conn, event, pairing, winner)
        if finish is Finish.TIME and winner is not None and event.status == "active":
            loser = pairing.second_id if winner == pairing.first_id else pairing.first_id
            if lost_twice_on_time(await self.store.results(conn, event.id), loser):
                why = "lost two games on time in a row"
                results += await self.rounds.withdraw(conn, event, loser, why)
        results += await self.rounds.advance(conn, event.id)
        for result in results:
            await outbox.write(self.records, conn, result, later=True)

    async def challenge_closed(self, conn: AsyncConnection, game_id: int, status: Status) -> None:
        """An open challenge closed: a ladder's may be a forfeit (bot/service/events/ladders.py)."""
        await self.ladders.challenge_closed(conn, game_id, status)
