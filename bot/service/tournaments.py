"""Events: tournaments (round robin, Swiss, knockout), leagues and ladders, stored and run.

The rules are bot/events' pure functions (pairings, brackets, divisions, standings); this
module stores an event (`tournaments`, `entrants`, `tournament_rounds`, `pairings`), starts
its games as ordinary games (a game row that names its event and round), and goes on when
one ends: `event_game_over`, which `Records.finish` calls in the transaction that ends the
game, with the event's row locked. A round is paired once, whoever ends its last game on
whichever process: the event's row lock orders them, and each step is a conditional
`UPDATE tournaments ... WHERE round = n` (or `status = 'active'`) that only one
transaction's update touches; a round's row (its primary key) is inserted once.

Announcements (round starts, byes, withdrawals, promotions, final standings) are
`TournamentNews` events, each with a game of the event (its channel is the event's). What
follows a game's end (the next round's games and news) is written into the outbox for the
announcing processes to deliver (`outbox.write(..., later=True)`): the use case that ended
the game returns only its own result.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import re
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timedelta
from functools import partial
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

import engine
from bot.events import (
    FORMAT_TITLES,
    LIMITS,
    MATCH_LENGTHS,
    Bye,
    ChallengeRefusal,
    Entrant,
    Finish,
    Format,
    GameResult,
    KnockoutRound,
    LadderRules,
    Match,
    MatchRules,
    Pairing,
    Standings,
    after_challenge,
    challenge_refusal,
    draw_lots,
    first_round,
    first_season,
    lost_twice_on_time,
    match_state,
    next_round,
    next_season,
    pair_swiss,
    round_robin,
    round_robin_standings,
    seeded,
    size_refusal,
    swiss_rounds,
    swiss_standings,
)
from bot.events import join as ladder_join
from bot.render.tables import Bracket, BracketMatch, Crosstable, StandingRow, StandingsTable
from bot.service import banks, outbox
from bot.service.clocks import chosen_clock
from bot.service.exports import ExportFile, stored_record
from bot.service.levels import LEVELS, bot_player
from bot.service.messages import unknown_game
from bot.service.models import (
    ChallengeIssued,
    EntrantLine,
    GameOver,
    GameStarted,
    Place,
    Player,
    Refused,
    Result,
    ServiceCode,
    Status,
    TournamentNews,
    TournamentResult,
    TournamentSummary,
    TournamentTables,
)
from bot.service.records import Records, first_position, new_state
from bot.service.rules import check_ids, game_terms, local_time, whole, zone
from bot.store.schema import (
    deadlines,
    entrants,
    games,
    pairings,
    players,
    ratings,
    seats,
    tournament_rounds,
    tournaments,
)
from engine import Code
from engine.core import End, shown

log = logging.getLogger("paperboard.tournaments")

#: The formats as typed (format=roundrobin) and what they are.
FORMATS: dict[str, Format] = {
    "roundrobin": Format.ROUND_ROBIN,
    "swiss": Format.SWISS,
    "knockout": Format.KNOCKOUT,
    "league": Format.LEAGUE,
    "ladder": Format.LADDER,
}
FORMAT_WORDS = tuple(FORMATS)
NAME_MOST = 50  # characters of an event's name: it heads every game's thread
ROUNDS_MOST = LIMITS[Format.SWISS].most - 1
MATCH_WORDS = tuple(str(n) for n in MATCH_LENGTHS)
#: An event with more games than this has its tables scored off the event loop (a
#: 1,000-player Swiss after six rounds: ~50 ms of scoring).
BIG_EVENT = 400
#: The default name of an event of each format: "Swiss Hex".
DEFAULT_NAMES = {
    Format.ROUND_ROBIN: "Round robin",
    Format.SWISS: "Swiss",
    Format.KNOCKOUT: "Knockout",
    Format.LEAGUE: "League",
    Format.LADDER: "Ladder",
}
_FINISHES: dict[str, Finish] = {End.TIME: Finish.TIME, End.FORFEIT: Finish.FORFEIT}


class Tournaments(Records):
    """The use cases of events, and what happens when one of their games ends."""

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
        title = _clean_name(DEFAULT_NAMES[kind] if name is None else name)
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
            guild = await self.load_guild_settings(conn, place.guild_id)
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
            zone_name = await self.time_zone_of(conn, organizer.id)
            when = (
                start_time(starts_at, zone_name, now) if isinstance(starts_at, str) else starts_at
            )
            if when is not None and when <= now:
                raise Refused("The start time has passed.", code=Code.BAD_OPTION)
            await self.remember(conn, organizer)
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
            summary = await self._summary(conn, tournament_id)
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
            row = await self._event(conn, tournament_id, guild_id)
            if bot is not None:
                await self._may_run(conn, row, *bot[:2])
            kind = Format(row.format)
            late = row.status == "active" and kind in (Format.LEAGUE, Format.LADDER)
            if row.status != "open" and not late:
                raise Refused(
                    f"{await self._title(conn, row)} {_closed(row.status)}.",
                    code=ServiceCode.NOT_OPEN,
                )
            listed = await self._entrants(conn, row.id)
            known = next((e for e in listed if e.player_id == player.id), None)
            title = await self._title(conn, row)
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
            await self.remember(conn, player)
            place = None
            if kind is Format.LADDER and row.status == "active":
                ladder = [e.player_id for e in sorted(_standing(listed), key=_by_place)]
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
                results = await self._start(conn, row, await self._entrants(conn, row.id))
            summary = await self._summary(conn, row.id)
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
            await self._lock_games_of(conn, tournament_id, player.id)
            row = await self._event(conn, tournament_id, guild_id)
            if by.id != player.id:
                await self._may_run(conn, row, by, manages)
            title = await self._title(conn, row)
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
                raise Refused(f"{title} {_closed(row.status)}.", code=ServiceCode.NOT_OPEN)
            results: list[Result] = []
            called_off: list[Result] = []  # announced as they closed
            if row.status == "open" or Format(row.format) is Format.LADDER:
                await conn.execute(
                    entrants.delete().where(
                        entrants.c.tournament_id == row.id, entrants.c.player_id == player.id
                    )
                )
                if Format(row.format) is Format.LADDER and entry.place is not None:
                    await self._renumber_ladder(conn, row.id)
                    called_off = await self._call_off_challenges(conn, row.id, player.id)
                note = f"{player.name} left {title}."
            else:
                results = await self._withdraw(conn, row, player.id, "left the event")
                note = f"{player.name} withdrew from {title}."
                results += await self._advance(conn, row.id)
            results = [await self._announce(conn, result) for result in results]
            summary = await self._summary(conn, row.id)
        return TournamentResult(summary, note, (*called_off, *results))

    # == running ===========================================================================

    async def start_tournament(
        self, tournament_id: int, guild_id: int, by: Player, *, manages: bool = False
    ) -> TournamentResult:
        """Start an event (the organizer or a manager): its first round's games (every
        game of a round robin, a league's first season) open at once."""
        async with self.db.write() as conn:
            row = await self._event(conn, tournament_id, guild_id)
            await self._may_run(conn, row, by, manages)
            title = await self._title(conn, row)
            if row.status == "active":
                raise Refused(f"{title} has started already.", code=ServiceCode.NOT_OPEN)
            if row.status != "open":
                raise Refused(f"{title} {_closed(row.status)}.", code=ServiceCode.NOT_OPEN)
            listed = await self._entrants(conn, row.id)
            refusal = size_refusal(Format(row.format), len(listed))
            if refusal is not None:
                raise Refused(refusal, code=ServiceCode.EVENT_SIZE)
            results = await self._start(conn, row, listed)
            summary = await self._summary(conn, row.id)
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
                    row = await self._event(conn, tournament_id, guild_id)
                    if row.status != "open":
                        continue  # another process started it, or it was called off
                    listed = await self._entrants(conn, row.id)
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
        await self._seed(conn, row, listed)
        touched = await conn.execute(
            tournaments.update()
            .where(tournaments.c.id == row.id, tournaments.c.status == "open")
            .values(status="active", round=1, started_at=self.clock())
        )
        if touched.rowcount != 1:  # cannot happen under the row lock; never start twice
            title = await self._title(conn, row)
            raise Refused(f"{title} has started already.", code=ServiceCode.NOT_OPEN)
        row = await self._fresh(conn, row.id)
        # announced: each result carries its outbox row, which its delivery marks
        results = [await self._announce(conn, result) for result in await self._begin(conn, row)]
        log.info("tournament=%d started players=%d", row.id, len(listed))
        return results

    async def cancel_tournament(
        self, tournament_id: int, guild_id: int, by: Player, *, manages: bool = False
    ) -> TournamentResult:
        """Call an event off (the organizer or a manager): games under way play on as
        ordinary games, and no round follows."""
        async with self.db.write() as conn:
            row = await self._event(conn, tournament_id, guild_id)
            await self._may_run(conn, row, by, manages)
            title = await self._title(conn, row)
            if row.status in ("finished", "cancelled"):
                raise Refused(f"{title} {_closed(row.status)}.", code=ServiceCode.NOT_OPEN)
            await conn.execute(
                tournaments.update()
                .where(tournaments.c.id == row.id)
                .values(status="cancelled", finished_at=self.clock())
            )
            results: list[Result] = []
            anchor = await self._anchor(conn, row.id)
            if anchor is not None:
                news = TournamentNews(anchor, row.id, "cancelled", f"{title} is called off.")
                results.append(await self._announce(conn, await self._result(conn, news)))
            summary = await self._summary(conn, row.id)
        return TournamentResult(summary, f"{title} is called off.", tuple(results))

    # == ladder challenges =================================================================

    async def ladder_challenge(
        self, tournament_id: int, guild_id: int, challenger: Player, opponent: Player
    ) -> TournamentResult:
        """Challenge a player up to `reach` places above on a ladder: a game of the event,
        open until the player challenged accepts it (within `accept_days`, or they forfeit)."""
        rules = LadderRules()
        async with self.db.write() as conn:
            row = await self._ladder_event(conn, tournament_id, guild_id)
            title = await self._title(conn, row)
            ladder = await self._ladder(conn, row.id)
            busy = [(p.first_id, p.second_id) for p in await self._open_challenges(conn, row.id)]
            refusal = challenge_refusal(
                ladder, challenger.id, opponent.id, open_challenges=busy, rules=rules
            )
            if refusal is not None:
                raise _challenge_refused(refusal, title, opponent.name, rules)
            await self.remember(conn, challenger)
            until = self.clock() + timedelta(days=rules.accept_days)
            pairing = Pairing(challenger.id, opponent.id)
            result = await self._open_game(conn, row, 0, pairing, until=until, by=challenger)
            result = await self._announce(conn, result)
            summary = await self._summary(conn, row.id)
        names = {e.player_id: e.name for e in summary.entrants}
        them = names.get(opponent.id, opponent.name)
        note = (
            f"{challenger.name} challenges {them} on {title} (game #{result.game.id}): "
            f"{them} accepts within {rules.accept_days} days or forfeits."
        )
        log.info("tournament=%d ladder challenge %d -> %d", row.id, challenger.id, opponent.id)
        return TournamentResult(summary, note, (result,))

    async def accept_ladder_challenge(
        self, tournament_id: int, guild_id: int, player: Player
    ) -> TournamentResult:
        """The player challenged accepts their open ladder challenge: its game starts."""
        async with self.db.write() as conn:
            game = await self._challenge_for(conn, tournament_id, guild_id, player)
            await conn.execute(
                seats.update()
                .where(seats.c.game_id == game.id, seats.c.player_id == player.id)
                .values(accepted=True)
            )
            events = await self.start_if_full(conn, game)
            result = await self._announce(
                conn, Result(await self.summary(conn, game.id), tuple(events))
            )
            summary = await self._summary(conn, tournament_id)
        note = f"{player.name} accepted the challenge: game #{game.id} has started."
        return TournamentResult(summary, note, (result,))

    async def decline_ladder_challenge(
        self, tournament_id: int, guild_id: int, player: Player
    ) -> TournamentResult:
        """The player challenged declines: a forfeit, as a challenge left unaccepted."""
        async with self.db.write() as conn:
            game = await self._challenge_for(conn, tournament_id, guild_id, player)
            result = await self.close_challenge(conn, game.id, "declined", player.id)
            summary = await self._summary(conn, tournament_id)
        note = f"{player.name} declined the challenge and forfeits it."
        return TournamentResult(summary, note, (result,))

    async def close_challenge(
        self, conn: AsyncConnection, game_id: int, status: Status, by: int | None
    ) -> Result:
        """An open challenge closes; a ladder's declined or expired one is forfeited by the
        player challenged (the challenger withdrawing theirs changes nothing)."""
        result = await super().close_challenge(conn, game_id, status, by)
        pairing = (
            await conn.execute(
                sa.select(pairings).where(pairings.c.game_id == game_id, pairings.c.done.is_(False))
            )
        ).one_or_none()
        if pairing is None:
            return result
        if status not in ("declined", "expired"):  # withdrawn by its challenger: no game
            await conn.execute(pairings.delete().where(pairings.c.id == pairing.id))
            return result
        await conn.execute(
            pairings.update()
            .where(pairings.c.id == pairing.id)
            .values(
                done=True,
                winner_id=pairing.first_id,
                finish=Finish.FORFEIT.value,
                ended_at=self.clock(),
            )
        )
        event = await self.lock_event(conn, pairing.tournament_id)
        if event.status == "active":
            for news in await self._after_challenge(conn, event, pairing, pairing.first_id):
                await outbox.write(self, conn, news, later=True)
        return result

    async def _call_off_challenges(
        self, conn: AsyncConnection, tournament_id: int, player_id: int
    ) -> list[Result]:
        """A player left the ladder: their challenges not yet accepted are off (no forfeit;
        their games under way play on and leave the ladder as it is)."""
        waiting = await conn.scalars(
            sa.select(games.c.id)
            .select_from(pairings.join(games, games.c.id == pairings.c.game_id))
            .where(
                pairings.c.tournament_id == tournament_id,
                pairings.c.done.is_(False),
                sa.or_(pairings.c.first_id == player_id, pairings.c.second_id == player_id),
                games.c.status == "open",
            )
            .order_by(games.c.id)
        )
        return [
            await self.close_challenge(conn, game_id, "cancelled", player_id)
            for game_id in waiting.all()
        ]

    async def _after_challenge(
        self, conn: AsyncConnection, event: Any, pairing: Any, winner: int | None
    ) -> list[Result]:
        """The ladder after a challenge's game or forfeit (the event's row is locked)."""
        before = await self._ladder(conn, event.id)
        challenger, target = pairing.first_id, pairing.second_id
        if challenger not in before or target not in before:
            return []  # one of them left the ladder meanwhile
        after = after_challenge(before, challenger, target, challenger_won=winner == challenger)
        if after == tuple(before):
            return []
        for place, player in enumerate(after, 1):
            if before[place - 1] != player:
                await self._set_entrant(conn, event.id, player, place=place)
        names = await self._names(conn, event.id)
        place = after.index(challenger) + 1
        text = f"{names[challenger]} takes {names[target]}'s place: {_ordinal(place)}."
        news = TournamentNews(pairing.game_id, event.id, "ladder", text)
        log.info("tournament=%d ladder player=%d up to %d", event.id, challenger, place)
        return [await self._result(conn, news)]

    async def _ladder_event(self, conn: AsyncConnection, tournament_id: int, guild_id: int) -> Any:
        """A ladder under way, locked."""
        row = await self._event(conn, tournament_id, guild_id)
        title = await self._title(conn, row)
        if Format(row.format) is not Format.LADDER:
            raise Refused(
                f"{title} is not a ladder: its games are paired, not challenged.",
                code=ServiceCode.NOT_LADDER,
            )
        if row.status == "open":
            raise Refused(f"{title} has not started.", code=ServiceCode.NOT_STARTED)
        if row.status != "active":
            raise Refused(f"{title} {_closed(row.status)}.", code=ServiceCode.NOT_OPEN)
        return row

    async def _ladder(self, conn: AsyncConnection, tournament_id: int) -> list[int]:
        """The ladder's players, the first place first."""
        listed = _standing(await self._entrants(conn, tournament_id))
        return [e.player_id for e in sorted(listed, key=_by_place) if e.place is not None]

    async def _open_challenges(self, conn: AsyncConnection, tournament_id: int) -> list[Any]:
        """The ladder's challenges not played out yet (open or under way)."""
        rows = await conn.execute(
            sa.select(pairings).where(
                pairings.c.tournament_id == tournament_id, pairings.c.done.is_(False)
            )
        )
        return list(rows.all())

    async def _challenge_for(
        self, conn: AsyncConnection, tournament_id: int, guild_id: int, player: Player
    ) -> Any:
        """The open challenge to `player` on a ladder, its game row locked (game rows
        before the event's: the lock order of a game's end)."""
        check_ids(tournament_id)
        game_id = await conn.scalar(
            sa.select(games.c.id)
            .select_from(pairings.join(games, games.c.id == pairings.c.game_id))
            .where(
                pairings.c.tournament_id == tournament_id,
                pairings.c.second_id == player.id,
                pairings.c.done.is_(False),
                games.c.status == "open",
                games.c.guild_id == guild_id,
            )
        )
        game = None
        if game_id is not None:
            game = (
                await conn.execute(sa.select(games).where(games.c.id == game_id).with_for_update())
            ).one()
        row = await self._ladder_event(conn, tournament_id, guild_id)
        if game is None or game.status != "open":  # none, or another press took it first
            title = await self._title(conn, row)
            raise Refused(
                f"No challenge on {title} is waiting for you.", code=ServiceCode.NOT_INVITED
            )
        return game

    # == reading ===========================================================================

    async def list_tournaments(self, guild_id: int) -> tuple[TournamentSummary, ...]:
        """The server's events, the newest first (finished and cancelled ones too)."""
        check_ids(guild_id)
        async with self.db.read() as conn:
            ids = (
                await conn.scalars(
                    sa.select(tournaments.c.id)
                    .where(tournaments.c.guild_id == guild_id)
                    .order_by(tournaments.c.id.desc())
                    .limit(50)
                )
            ).all()
            return tuple([await self._summary(conn, i) for i in ids])

    async def tournament(self, tournament_id: int, guild_id: int) -> TournamentSummary:
        async with self.db.read() as conn:
            row = await self._event(conn, tournament_id, guild_id, lock=False)
            return await self._summary(conn, row.id)

    async def tournament_pairings(self, tournament_id: int, guild_id: int) -> str:
        """The current round's games (every game of a round robin, a league's season, a
        ladder's challenges not played out), as text: "Round 2: ann v bob (#14, under way) ..."."""
        async with self.db.read() as conn:
            row = await self._event(conn, tournament_id, guild_id, lock=False)
            title = await self._title(conn, row)
            if row.status == "open":
                return f"{title} has not started yet."
            names = await self._names(conn, row.id)
            kind = Format(row.format)
            statement = (
                sa.select(pairings, games.c.status)
                .select_from(pairings.outerjoin(games, games.c.id == pairings.c.game_id))
                .where(pairings.c.tournament_id == row.id)
                .order_by(pairings.c.division, pairings.c.id)
            )
            if kind is Format.LADDER:  # its challenges not played out, whenever issued
                statement = statement.where(pairings.c.done.is_(False))
            elif kind is not Format.ROUND_ROBIN:  # a round robin: every game
                statement = statement.where(pairings.c.round == row.round)
            listed = (await conn.execute(statement)).all()
            bye = await conn.scalar(
                sa.select(tournament_rounds.c.bye_id).where(
                    tournament_rounds.c.tournament_id == row.id,
                    tournament_rounds.c.number == row.round,
                )
            )
        lines = [f"{title} · {'season' if kind is Format.LEAGUE else 'round'} {row.round}:"]
        if kind is Format.ROUND_ROBIN:
            lines = [f"{title}, every game:"]
        if kind is Format.LADDER:
            lines = [f"{title}, challenges:"]
        for p in listed:
            state = "under way" if not p.done else result_words(p, names)
            if p.status == "open":  # a ladder's challenge not accepted yet
                state = f"waiting for {names.get(p.second_id, '?')} to accept"
            where = f" division {p.division + 1}" if kind is Format.LEAGUE else ""
            where += f" round {p.round}" if kind is Format.ROUND_ROBIN else ""
            lines.append(
                f"  {names.get(p.first_id, '?')} v {names.get(p.second_id, '?')} "
                f"(#{p.game_id}{where}, {state})"
            )
        if bye is not None:
            lines.append(f"  {names.get(bye, '?')} has the bye")
        if len(lines) == 1:
            lines.append("  no games")
        return "\n".join(lines)

    async def tournament_standings(self, tournament_id: int, guild_id: int) -> TournamentTables:
        """The event's table (one per division of a league), crosstable, bracket, as text
        and as a picture."""
        async with self.db.read() as conn:
            row = await self._event(conn, tournament_id, guild_id, lock=False)
            summary = await self._summary(conn, row.id)
            tables, crosses, bracket = await self._tables(conn, row)
        text = "\n\n".join(
            [_standings_text(t) for t in tables]
            + [_crosstable_text(c) for c in crosses]
            + ([_bracket_text(bracket)] if bracket is not None else [])
        )
        drawn: list[StandingsTable | Crosstable | Bracket] = [*tables, *crosses]
        if bracket is not None:
            drawn.append(bracket)
        pictures = tuple([await self.painter.table(t) for t in drawn])
        png = b""
        shown = bracket if bracket is not None else tables[0] if tables else None
        if shown is not None:
            png = pictures[drawn.index(shown)]
        return TournamentTables(summary, tables, crosses, bracket, text, png, pictures)

    async def export_tournament(self, tournament_id: int, guild_id: int) -> ExportFile:
        """The event as JSON, for anyone in the server (the record's rule, as `export`):
        what it is, its entrants, its rounds, each game's pairing and result with the
        game's record, and its standings (tables, crosstables, bracket)."""
        async with self.db.read() as conn:
            row = await self._event(conn, tournament_id, guild_id, lock=False)
            summary = await self._summary(conn, row.id)
            listed = await self._entrants(conn, row.id)
            stored = await self._rounds(conn, row.id)
            paired = (
                await conn.execute(
                    sa.select(pairings)
                    .where(pairings.c.tournament_id == row.id)
                    .order_by(pairings.c.round, pairings.c.division, pairings.c.id)
                )
            ).all()
            game_rows = {
                g.id: g
                for g in await conn.execute(sa.select(games).where(games.c.tournament_id == row.id))
            }
            records = {i: await stored_record(self, conn, g) for i, g in game_rows.items()}
            tables, crosses, bracket = await self._tables(conn, row)
        names = {e.player_id: e.name for e in summary.entrants}
        data = {
            "id": row.id,
            "name": row.name,
            "title": summary.title,
            "game": row.game,
            "options": dict(row.options),
            "format": row.format,
            "status": row.status,
            "round": row.round,
            "rounds": row.rounds,
            "match_games": row.match_games,
            "double": row.double,
            "days_per_move": row.days_per_move,
            "clock": row.time_control,
            "auto_vacation": row.auto_vacation,
            "rated": row.rated,
            "organizer_id": row.organizer_id,
            "created_at": _iso(row.created_at),
            "entrants": [
                {
                    "id": e.player_id,
                    "name": names.get(e.player_id, "?"),
                    "bot": e.bot_level,
                    "withdrawn": e.withdrawn,
                    "division": e.division,
                    "place": e.place,
                }
                for e in listed
            ],
            "rounds_played": [
                {"number": r.number, "bye_id": r.bye_id, "matches": r.matches} for r in stored
            ],
            "games": [
                {
                    "round": p.round,
                    "division": p.division,
                    "match": p.match,
                    "first_id": p.first_id,
                    "second_id": p.second_id,
                    "done": p.done,
                    "winner_id": p.winner_id,
                    "finish": p.finish,
                    "record": records.get(p.game_id),
                }
                for p in paired
            ],
            "standings": [dataclasses.asdict(t) for t in tables],
            "crosstables": [dataclasses.asdict(c) for c in crosses],
            "bracket": dataclasses.asdict(bracket) if bracket is not None else None,
        }
        text = json.dumps(data, indent=1, ensure_ascii=False) + "\n"
        return ExportFile(f"event-{row.id}.json", text.encode())

    # == a game of an event ended (Records.finish, in its transaction) ======================

    async def event_game_over(self, conn: AsyncConnection, row: Any, over: GameOver) -> None:
        pairing = (
            await conn.execute(sa.select(pairings).where(pairings.c.game_id == row.id))
        ).one_or_none()
        if pairing is None or pairing.done:
            return
        winner = over.winners[0] if len(over.winners) == 1 else None
        finish = _FINISHES.get(over.reason, Finish.PLAYED)
        await conn.execute(
            pairings.update()
            .where(pairings.c.id == pairing.id)
            .values(done=True, winner_id=winner, finish=finish.value, ended_at=self.clock())
        )
        event = await self.lock_event(conn, row.tournament_id)
        results: list[Result] = []
        if Format(event.format) is Format.LADDER and event.status == "active":
            results += await self._after_challenge(conn, event, pairing, winner)
        if finish is Finish.TIME and winner is not None and event.status == "active":
            loser = pairing.second_id if winner == pairing.first_id else pairing.first_id
            if lost_twice_on_time(await self._results(conn, event.id), loser):
                why = "lost two games on time in a row"
                results += await self._withdraw(conn, event, loser, why)
        results += await self._advance(conn, event.id)
        for result in results:
            await outbox.write(self, conn, result, later=True)

    # == the steps of an event ==============================================================

    async def _begin(self, conn: AsyncConnection, row: Any) -> list[Result]:
        """The first round of a started event (`row.round` is 1)."""
        kind = Format(row.format)
        listed = _standing(await self._entrants(conn, row.id))
        if kind is Format.LADDER:
            for place, entry in enumerate(listed, 1):
                await self._set_entrant(conn, row.id, entry.player_id, place=place)
            return []
        if kind is Format.ROUND_ROBIN:
            return await self._round_robin(conn, row, [e.player_id for e in listed], 0)
        if kind is Format.LEAGUE:
            return await self._season(conn, row, first_season(_as_entrants(listed)), {})
        if kind is Format.SWISS:
            count = len(listed)
            rounds = min(row.rounds or swiss_rounds(count), count - 1)
            await conn.execute(
                tournaments.update().where(tournaments.c.id == row.id).values(rounds=rounds)
            )
            return await self._swiss_round(conn, await self._fresh(conn, row.id), 1)
        knockout = first_round(_as_entrants(listed))
        return await self._knockout_round(conn, row, knockout)

    async def _advance(self, conn: AsyncConnection, tournament_id: int) -> list[Result]:
        """What follows from the games ended so far: the next games of knockout matches,
        the next round or season, the end. Each step is taken by one transaction only."""
        results: list[Result] = []
        while True:
            row = await self._fresh(conn, tournament_id)
            if row.status != "active":
                return results
            kind = Format(row.format)
            if kind is Format.LADDER:
                return results
            if kind is Format.KNOCKOUT:
                step = await self._knockout_step(conn, row)
                if step is None:
                    return results
                results += step
                continue
            every_round = kind is Format.ROUND_ROBIN  # all its games started at once
            if await self._pending(conn, row.id, None if every_round else row.round):
                return results
            active = [e for e in await self._entrants(conn, row.id) if not e.withdrawn]
            if kind is Format.SWISS and row.round < (row.rounds or 0) and len(active) >= 2:
                if not await self._next_round_number(conn, row):
                    return results
                results += await self._swiss_round(conn, row, row.round + 1)
                continue
            if kind is Format.LEAGUE and len(active) >= LIMITS[Format.ROUND_ROBIN].least:
                if not await self._next_round_number(conn, row):
                    return results
                results += await self._next_season(conn, row)
                continue
            results += await self._conclude(conn, row)
            return results

    async def _next_round_number(self, conn: AsyncConnection, row: Any) -> bool:
        """Move the event on from `row.round`: True for the one transaction that does."""
        touched = await conn.execute(
            tournaments.update()
            .where(
                tournaments.c.id == row.id,
                tournaments.c.round == row.round,
                tournaments.c.status == "active",
            )
            .values(round=row.round + 1)
        )
        return touched.rowcount == 1

    async def _round_robin(
        self, conn: AsyncConnection, row: Any, players: Sequence[int], division: int
    ) -> list[Result]:
        """Every game of a round robin among `players` at once, in table order drawn by
        lot; for a league, a division of season `row.round`."""
        order = draw_lots(players, row.seed + 7919 * row.round + division)
        for number, player in enumerate(order, 1):
            await self._set_entrant(conn, row.id, player, place=number)
        results: list[Result] = []
        round_number = row.round if Format(row.format) is Format.LEAGUE else None
        await self._insert_round(conn, row.id, row.round, division=division)
        for scheduled in round_robin(order, double=row.double):
            for pairing in scheduled.games:
                results.append(
                    await self._open_game(
                        conn, row, round_number or scheduled.number, pairing, division=division
                    )
                )
        title = await self._title(conn, row)
        names = await self._names(conn, row.id)
        where = f" (division {division + 1})" if Format(row.format) is Format.LEAGUE else ""
        table = ", ".join(f"{n}. {names.get(p, '?')}" for n, p in enumerate(order, 1))
        text = f"{title}{where}: all {len(results)} games start now. Table order: {table}."
        if results:
            news = TournamentNews(results[0].game.id, row.id, "round", text)
            results.append(await self._result(conn, news))
        return results

    async def _swiss_round(self, conn: AsyncConnection, row: Any, number: int) -> list[Result]:
        listed = await self._entrants(conn, row.id)
        results_so_far = await self._results(conn, row.id)
        byes = await self._byes(conn, row.id)
        paired = await asyncio.to_thread(  # a round of 1,000 takes 0.2 s: off the loop
            pair_swiss, _as_entrants(listed), results_so_far, byes=byes, number=number
        )
        await self._insert_round(conn, row.id, number, bye=paired.bye)
        results = [await self._open_game(conn, row, number, p) for p in paired.games]
        names = await self._names(conn, row.id)
        title = await self._title(conn, row)
        games_text = "; ".join(
            f"{names.get(p.first, '?')} v {names.get(p.second, '?')}" for p in paired.games
        )
        text = f"{title} · round {number} of {row.rounds or number}: {games_text}."
        if paired.bye is not None:
            text += f" {names.get(paired.bye, '?')} has the bye (1 point)."
        if results:
            news = TournamentNews(results[0].game.id, row.id, "round", text)
            results.append(await self._result(conn, news))
        return results

    async def _knockout_round(
        self, conn: AsyncConnection, row: Any, knockout: KnockoutRound
    ) -> list[Result]:
        """Store a knockout round's matches and open their first games."""
        await self._insert_round(
            conn,
            row.id,
            knockout.number,
            matches=[[m.high, m.low] for m in knockout.matches],
        )
        fresh = await self._fresh(conn, row.id)
        step = await self._knockout_step(conn, fresh, announce=True)
        return step or []

    async def _knockout_step(
        self, conn: AsyncConnection, row: Any, *, announce: bool = False
    ) -> list[Result] | None:
        """Open the next game of each undecided match that has none under way; when every
        match is decided, the next round (or the end). None when nothing changed."""
        knockout, states = await self._knockout_states(conn, row)
        results: list[Result] = []
        pending = await self._pending_matches(conn, row.id, knockout.number)
        for index, state in enumerate(states):
            if state.next_game is not None and index not in pending:
                results.append(
                    await self._open_game(conn, row, knockout.number, state.next_game, match=index)
                )
        names = await self._names(conn, row.id)
        title = await self._title(conn, row)
        if announce:
            parts = []
            for match in knockout.matches:
                high = names.get(match.high, "?")
                parts.append(
                    f"{high} has a bye"
                    if match.low is None
                    else f"{high} v {names.get(match.low, '?')}"
                )
            text = f"{title} · round {knockout.number}: {'; '.join(parts)}."
            if results:
                news = TournamentNews(results[0].game.id, row.id, "round", text)
                results.append(await self._result(conn, news))
        if results:
            return results
        if any(state.winner is None for state in states):
            return None
        winners = [state.winner for state in states if state.winner is not None]
        if knockout.final:
            return await self._conclude(conn, row)
        if not await self._next_round_number(conn, row):
            return None
        return await self._knockout_round(conn, row, next_round(knockout, winners))

    async def _knockout_states(
        self, conn: AsyncConnection, row: Any
    ) -> tuple[KnockoutRound, list[Any]]:
        listed = await self._entrants(conn, row.id)
        left = {e.player_id for e in listed if e.withdrawn}
        seeds = seeded(_as_entrants(_standing(listed)))
        stored = await conn.scalar(
            sa.select(tournament_rounds.c.matches).where(
                tournament_rounds.c.tournament_id == row.id,
                tournament_rounds.c.number == row.round,
            )
        )
        knockout = KnockoutRound(
            row.round, tuple(Match(high, low) for high, low in stored or ()), seeds
        )
        played = (
            await conn.execute(
                sa.select(pairings)
                .where(
                    pairings.c.tournament_id == row.id,
                    pairings.c.round == row.round,
                    pairings.c.done.is_(True),
                )
                .order_by(pairings.c.id)
            )
        ).all()
        by_match: dict[int, list[GameResult]] = defaultdict(list)
        for p in played:
            by_match[p.match].append(_game_result(p))
        rules = MatchRules(games=row.match_games or 1)
        states = [
            match_state(match, by_match[index], rules, left=left)
            for index, match in enumerate(knockout.matches)
        ]
        return knockout, states

    async def _season(
        self,
        conn: AsyncConnection,
        row: Any,
        divisions: Sequence[Sequence[int]],
        before: Mapping[int, int],
    ) -> list[Result]:
        """Season `row.round` of a league: each division a round robin; `before`: each
        player's division last season (the moves are announced)."""
        await conn.execute(
            entrants.update().where(entrants.c.tournament_id == row.id).values(division=None)
        )
        for index, division in enumerate(divisions):
            for player in division:
                await self._set_entrant(conn, row.id, player, division=index)
        results: list[Result] = []
        for index, division in enumerate(divisions):
            results += await self._round_robin(conn, row, division, index)
        if before and results:
            names = await self._names(conn, row.id)
            moves = []
            for index, division in enumerate(divisions):
                for player in division:
                    was = before.get(player)
                    if was is not None and was != index:
                        way = "up" if index < was else "down"
                        moves.append(f"{names.get(player, '?')} {way} to division {index + 1}")
            title = await self._title(conn, row)
            text = f"{title} · season {row.round}: " + ("; ".join(moves) or "no moves") + "."
            news = TournamentNews(results[0].game.id, row.id, "season", text)
            results.append(await self._result(conn, news))
        return results

    async def _next_season(self, conn: AsyncConnection, row: Any) -> list[Result]:
        listed = await self._entrants(conn, row.id)
        before = {e.player_id: e.division for e in listed if e.division is not None}
        tables, _, _ = await self._tables(conn, row, ids=True)
        finals = [[int(r.name) for r in table.rows if r.note != "annulled"] for table in tables]
        leavers = {e.player_id for e in listed if e.withdrawn}
        newcomers = [e for e in _as_entrants(_standing(listed)) if e.id not in before]
        divisions = next_season(finals, leavers=leavers, newcomers=newcomers)
        fresh = await self._fresh(conn, row.id)
        return await self._season(conn, fresh, divisions, before)

    async def _conclude(self, conn: AsyncConnection, row: Any) -> list[Result]:
        """The event is over: its final standings are announced."""
        touched = await conn.execute(
            tournaments.update()
            .where(tournaments.c.id == row.id, tournaments.c.status == "active")
            .values(status="finished", finished_at=self.clock())
        )
        if touched.rowcount != 1:
            return []
        tables, _, _ = await self._tables(conn, row)
        title = await self._title(conn, row)
        text = f"{title} is over. Final standings:\n" + "\n\n".join(
            _standings_text(t) for t in tables
        )
        anchor = await self._anchor(conn, row.id)
        if anchor is None:
            return []
        log.info("tournament=%d finished", row.id)
        return [await self._result(conn, TournamentNews(anchor, row.id, "final", text))]

    async def _withdraw(
        self, conn: AsyncConnection, row: Any, player_id: int, why: str
    ) -> list[Result]:
        """`player_id` is out of a started event: never paired again, their games under
        way forfeited (each ends as a loss, unrated). In a round robin (a league's
        division), results of one who played fewer than half of their games are annulled."""
        touched = await conn.execute(
            entrants.update()
            .where(
                entrants.c.tournament_id == row.id,
                entrants.c.player_id == player_id,
                entrants.c.withdrawn.is_(False),
            )
            .values(withdrawn=True)
        )
        if touched.rowcount != 1:
            return []
        results: list[Result] = []
        under_way = (
            await conn.scalars(
                sa.select(pairings.c.game_id)
                .select_from(pairings.join(games, games.c.id == pairings.c.game_id))
                .where(
                    pairings.c.tournament_id == row.id,
                    pairings.c.done.is_(False),
                    sa.or_(pairings.c.first_id == player_id, pairings.c.second_id == player_id),
                    games.c.status == "active",
                )
                .order_by(pairings.c.game_id)
            )
        ).all()
        for game_id in under_way:
            await conn.execute(games.update().where(games.c.id == game_id).values(rated=False))
            game = await self.game_row(conn, game_id, row.guild_id, lock=True)
            summary = await self.summary(conn, game_id, game)
            seat = summary.seat_of(player_id)
            assert seat is not None
            over = await self.finish(
                conn, game, summary, (1 - seat,), End.FORFEIT, None, loser=seat
            )
            results.append(Result(await self.summary(conn, game_id), (over,)))
        names = await self._names(conn, row.id)
        title = await self._title(conn, row)
        name = names.get(player_id, "?")
        text = f"{name} {why} and is out of {title}"
        text += (
            f"; {len(under_way)} game{'s' * (len(under_way) != 1)} forfeited." if under_way else "."
        )
        kind = Format(row.format)
        if kind in (Format.ROUND_ROBIN, Format.LEAGUE):
            tables, _, _ = await self._tables(conn, row, ids=True)
            if any(
                r.name == str(player_id) and r.note == "annulled" for t in tables for r in t.rows
            ):
                text += (
                    f" {name} played fewer than half of their games: their results are "
                    "annulled, for them and their opponents."
                )
        anchor = under_way[0] if under_way else await self._anchor(conn, row.id, player_id)
        if anchor is not None:
            results.append(
                await self._result(conn, TournamentNews(anchor, row.id, "withdrawn", text))
            )
        log.info("tournament=%d player=%d withdrawn (%s)", row.id, player_id, why)
        return results

    # == storage helpers =====================================================================

    async def _open_game(
        self,
        conn: AsyncConnection,
        row: Any,
        number: int,
        pairing: Pairing,
        *,
        division: int = 0,
        match: int | None = None,
        until: datetime | None = None,
        by: Player | None = None,
    ) -> Result:
        """A game of the event starts at once, as any game does (its first turn, its
        deadline, the bot's move if it is to play); its result announces it. A ladder's
        challenge (`until`, issued `by` its challenger) waits instead, open, for the second
        player to accept it until then (the `expire` deadline); the bot accepts at once."""
        now = self.clock()
        bots = dict(
            (
                await conn.execute(
                    sa.select(entrants.c.player_id, entrants.c.bot_level).where(
                        entrants.c.tournament_id == row.id, entrants.c.bot_level.is_not(None)
                    )
                )
            ).all()
        )
        state = await new_state(row.game, row.options)
        with_bot = pairing.first in bots or pairing.second in bots
        inserted = await conn.execute(
            games.insert()
            .values(
                guild_id=row.guild_id,
                channel_id=row.channel_id,
                game=row.game,
                options=dict(row.options),
                rules_version=engine.GAMES[row.game].version,
                status="active" if until is None else "open",
                ply=0,
                to_move=state.to_move if until is None else None,
                challenger_id=row.organizer_id if by is None else by.id,
                days_per_move=row.days_per_move,
                time_control=row.time_control,
                first="challenger",
                rated=row.rated and not with_bot,  # games against the bot are casual
                created_at=now,
                updated_at=now,
                started_at=now if until is None else None,
                expires_at=until,
                tournament_id=row.id,
                tournament_round=number,
            )
            .returning(games.c.id)
        )
        game_id = int(inserted.scalar_one())
        await conn.execute(
            seats.insert(),
            [
                {
                    "game_id": game_id,
                    "seat": seat,
                    "player_id": player,
                    "accepted": until is None or seat == 0 or player in bots,
                    "bot_level": bots.get(player),
                }
                for seat, player in enumerate(pairing.players)
            ],
        )
        await conn.execute(
            pairings.insert().values(
                tournament_id=row.id,
                round=number,
                division=division,
                match=match,
                first_id=pairing.first,
                second_id=pairing.second,
                game_id=game_id,
            )
        )
        if until is not None and by is not None:
            await conn.execute(
                deadlines.insert().values(game_id=game_id, kind="expire", ply=0, due_at=until)
            )
            issued = ChallengeIssued(
                game_id, challenger=by, invited=(pairing.second,), open_seats=0
            )
            # the bot accepts at once
            started = await self.start_if_full(
                conn, await self.game_row(conn, game_id, row.guild_id)
            )
            return Result(await self.summary(conn, game_id), (issued, *started))
        self.cache_state(game_id, now, state)
        summary = await self.summary(conn, game_id)
        control = banks.control_of(row)
        start_banks = None if control is None else [banks.micros(control.initial)] * 2
        turn = await self.start_turn(conn, game_id, summary, state, start_banks)
        summary = await self.summary(conn, game_id)
        return Result(summary, (GameStarted(game_id, pairing.players), turn))

    async def _insert_round(
        self,
        conn: AsyncConnection,
        tournament_id: int,
        number: int,
        *,
        bye: int | None = None,
        matches: list[list[int | None]] | None = None,
        division: int = 0,
    ) -> None:
        """A round's row; its primary key makes a second pairing of it fail."""
        if division:  # a league's divisions share their season's row
            return
        await conn.execute(
            tournament_rounds.insert().values(
                tournament_id=tournament_id,
                number=number,
                bye_id=bye,
                matches=matches,
                started_at=self.clock(),
            )
        )

    async def _result(self, conn: AsyncConnection, news: TournamentNews) -> Result:
        return Result(await self.summary(conn, news.game_id), (news,))

    async def _event(
        self, conn: AsyncConnection, tournament_id: int, guild_id: int, *, lock: bool = True
    ) -> Any:
        check_ids(tournament_id)
        statement = sa.select(tournaments).where(tournaments.c.id == tournament_id)
        if lock:
            statement = statement.with_for_update()
        row = (await conn.execute(statement)).one_or_none()
        if row is None or row.guild_id != guild_id:
            raise Refused(f"There is no event #{tournament_id} here.", code=ServiceCode.NO_EVENT)
        return row

    async def _fresh(self, conn: AsyncConnection, tournament_id: int) -> Any:
        """The event's row as this transaction now sees it."""
        return (
            await conn.execute(sa.select(tournaments).where(tournaments.c.id == tournament_id))
        ).one()

    async def _may_run(self, conn: AsyncConnection, row: Any, by: Player, manages: bool) -> None:
        """The organizer runs their event; a manager runs any (an organizer who left the
        server leaves their event to the managers)."""
        if by.id != row.organizer_id and not manages:
            title = await self._title(conn, row)
            raise Refused(
                f"Only the organizer of {title} or a member who can manage the server runs it.",
                code=ServiceCode.NOT_ADMIN,
            )

    async def _title(self, conn: AsyncConnection, row: Any) -> str:
        return await self.event_title(conn, row.id)

    async def _rounds(self, conn: AsyncConnection, tournament_id: int) -> list[Any]:
        """The event's stored rounds, in order."""
        return list(
            (
                await conn.execute(
                    sa.select(tournament_rounds)
                    .where(tournament_rounds.c.tournament_id == tournament_id)
                    .order_by(tournament_rounds.c.number)
                )
            ).all()
        )

    async def _entrants(self, conn: AsyncConnection, tournament_id: int) -> list[Any]:
        return list(
            (
                await conn.execute(
                    sa.select(entrants)
                    .where(entrants.c.tournament_id == tournament_id)
                    .order_by(entrants.c.seq)
                )
            ).all()
        )

    async def _names(self, conn: AsyncConnection, tournament_id: int) -> dict[int, str]:
        rows = await conn.execute(
            sa.select(players.c.id, players.c.name)
            .select_from(entrants.join(players, players.c.id == entrants.c.player_id))
            .where(entrants.c.tournament_id == tournament_id)
        )
        return {r.id: r.name for r in rows}

    async def _set_entrant(
        self, conn: AsyncConnection, tournament_id: int, player: int, **values: Any
    ) -> None:
        await conn.execute(
            entrants.update()
            .where(entrants.c.tournament_id == tournament_id, entrants.c.player_id == player)
            .values(**values)
        )

    async def _seed(self, conn: AsyncConnection, row: Any, listed: Sequence[Any]) -> None:
        """Each entrant's rating in the event's game on this server, kept for seeding."""
        found = dict(
            (
                await conn.execute(
                    sa.select(ratings.c.player_id, ratings.c.mu).where(
                        ratings.c.guild_id == row.guild_id,
                        ratings.c.game == row.game,
                        ratings.c.player_id.in_([e.player_id for e in listed]),
                    )
                )
            ).all()
        )
        for entry in listed:
            mu = found.get(entry.player_id)
            if mu is not None:
                await self._set_entrant(conn, row.id, entry.player_id, rating=float(mu))

    async def _results(self, conn: AsyncConnection, tournament_id: int) -> list[GameResult]:
        """The event's finished games in the order they ended."""
        rows = (
            await conn.execute(
                sa.select(pairings)
                .where(pairings.c.tournament_id == tournament_id, pairings.c.done.is_(True))
                .order_by(pairings.c.ended_at, pairings.c.id)
            )
        ).all()
        return [_game_result(p) for p in rows]

    async def _byes(self, conn: AsyncConnection, tournament_id: int) -> list[Bye]:
        rows = await conn.execute(
            sa.select(tournament_rounds.c.number, tournament_rounds.c.bye_id).where(
                tournament_rounds.c.tournament_id == tournament_id,
                tournament_rounds.c.bye_id.is_not(None),
            )
        )
        return [Bye(r.number, r.bye_id) for r in rows]

    async def _pending(self, conn: AsyncConnection, tournament_id: int, number: int | None) -> bool:
        """Whether a game of round `number` (None: of any round) is still under way."""
        statement = (
            sa.select(sa.func.count())
            .select_from(pairings)
            .where(pairings.c.tournament_id == tournament_id, pairings.c.done.is_(False))
        )
        if number is not None:
            statement = statement.where(pairings.c.round == number)
        return bool(await conn.scalar(statement))

    async def _pending_matches(
        self, conn: AsyncConnection, tournament_id: int, number: int
    ) -> set[int]:
        rows = await conn.scalars(
            sa.select(pairings.c.match).where(
                pairings.c.tournament_id == tournament_id,
                pairings.c.round == number,
                pairings.c.done.is_(False),
            )
        )
        return {m for m in rows if m is not None}

    async def _anchor(
        self, conn: AsyncConnection, tournament_id: int, player_id: int | None = None
    ) -> int | None:
        """The latest game of the event (of `player_id` if they have one): what an
        announcement goes with."""
        statement = sa.select(sa.func.max(pairings.c.game_id)).where(
            pairings.c.tournament_id == tournament_id
        )
        if player_id is not None:
            mine = await conn.scalar(
                statement.where(
                    sa.or_(pairings.c.first_id == player_id, pairings.c.second_id == player_id)
                )
            )
            if mine is not None:
                return int(mine)
        found = await conn.scalar(statement)
        return int(found) if found is not None else None

    async def _lock_games_of(
        self, conn: AsyncConnection, tournament_id: int, player_id: int
    ) -> None:
        """Lock a player's games under way in an event, in id order (before the event's
        row, as a game's end does)."""
        ids = (
            await conn.scalars(
                sa.select(pairings.c.game_id).where(
                    pairings.c.tournament_id == tournament_id,
                    pairings.c.done.is_(False),
                    sa.or_(pairings.c.first_id == player_id, pairings.c.second_id == player_id),
                )
            )
        ).all()
        for game_id in sorted(i for i in ids if i is not None):
            await conn.execute(sa.select(games.c.id).where(games.c.id == game_id).with_for_update())

    async def _renumber_ladder(self, conn: AsyncConnection, tournament_id: int) -> None:
        """Places 1, 2, ... again after a player left: those below moved up."""
        listed = [e for e in await self._entrants(conn, tournament_id) if e.place is not None]
        for place, player in enumerate((e.player_id for e in sorted(listed, key=_by_place)), 1):
            await self._set_entrant(conn, tournament_id, player, place=place)

    async def _summary(self, conn: AsyncConnection, tournament_id: int) -> TournamentSummary:
        row = await self._fresh(conn, tournament_id)
        names = await self._names(conn, tournament_id)
        listed = await self._entrants(conn, tournament_id)
        return TournamentSummary(
            id=row.id,
            guild_id=row.guild_id,
            channel_id=row.channel_id,
            name=row.name,
            title=await self.event_title(conn, row.id),
            game=row.game,
            format=row.format,
            format_title=FORMAT_TITLES[Format(row.format)],
            options=dict(row.options),
            status=row.status,
            round=row.round,
            rounds=row.rounds,
            match_games=row.match_games,
            double=row.double,
            days_per_move=row.days_per_move,
            rated=row.rated,
            vacations=row.vacations,
            time_control=row.time_control,
            auto_vacation=row.auto_vacation,
            organizer_id=row.organizer_id,
            max_players=row.max_players,
            start_players=row.start_players,
            starts_at=row.starts_at,
            entrants=tuple(
                EntrantLine(e.player_id, names.get(e.player_id, "?"), e.bot_level, e.withdrawn)
                for e in listed
            ),
        )

    # == standings ===========================================================================

    async def _tables(
        self, conn: AsyncConnection, row: Any, *, ids: bool = False
    ) -> tuple[tuple[StandingsTable, ...], tuple[Crosstable, ...], Bracket | None]:
        """The event's tables; `ids`: rows named by player id (for the service's own use)."""
        kind = Format(row.format)
        listed = await self._entrants(conn, row.id)
        names = await self._names(conn, row.id)

        def name(player: int) -> str:
            return str(player) if ids else names.get(player, "?")

        title = await self._title(conn, row)
        finished = (
            await conn.execute(
                sa.select(pairings)
                .where(pairings.c.tournament_id == row.id)
                .order_by(pairings.c.ended_at, pairings.c.id)
            )
        ).all()
        if kind is Format.LADDER or row.status == "open":
            order = sorted(_standing(listed), key=_by_place) if kind is Format.LADDER else listed
            rows = tuple(
                StandingRow(str(e.place or i), name(e.player_id), 0.0, (), 0, "")
                for i, e in enumerate(order, 1)
            )
            return (StandingsTable(title, (), rows),), (), None
        if kind is Format.KNOCKOUT:
            return await self._knockout_tables(conn, row, title, name, listed, finished)
        byes = await self._byes(conn, row.id) if kind is Format.SWISS else ()
        scored = partial(_scored_tables, row, title, name, listed, finished, byes)
        if len(finished) > BIG_EVENT:
            return await asyncio.to_thread(scored)
        return scored()

    async def _knockout_tables(
        self,
        conn: AsyncConnection,
        row: Any,
        title: str,
        name: Any,
        listed: Sequence[Any],
        every: Sequence[Any],
    ) -> tuple[tuple[StandingsTable, ...], tuple[Crosstable, ...], Bracket | None]:
        """The knockout's table and bracket from its entrants and `every` pairing: a match
        decided stands as played (`match_state`), whoever left since."""
        stored = await self._rounds(conn, row.id)
        played = [p for p in every if p.done]
        games_left = Counter(p for r in every if not r.done for p in (r.first_id, r.second_id))
        left = {e.player_id for e in listed if e.withdrawn}
        rules = MatchRules(games=row.match_games or 1)
        reached: dict[int, int] = {}  # player -> the last round they won through
        champion: int | None = None
        rounds: list[tuple[BracketMatch, ...]] = []
        for stored_round in stored:
            line: list[BracketMatch] = []
            for index, (high, low) in enumerate(stored_round.matches or ()):
                match = Match(high, low)
                results = [
                    _game_result(p)
                    for p in played
                    if p.round == stored_round.number and p.match == index
                ]
                state = match_state(match, results, rules, left=left)
                for player in (high, low):
                    if player is not None:
                        reached.setdefault(player, 0)
                if state.winner is not None:
                    reached[state.winner] = stored_round.number
                    if len(stored_round.matches) == 1:
                        champion = state.winner
                score = (
                    "bye"
                    if low is None
                    else f"{points_text(state.points[0])}-{points_text(state.points[1])}"
                )
                winner = None if state.winner is None else (0 if state.winner == high else 1)
                line.append(
                    BracketMatch(name(high), None if low is None else name(low), score, winner)
                )
            rounds.append(tuple(line))
        depth = {p: won + (p == champion) for p, won in reached.items()}
        entry = {e.player_id: seq for seq, e in enumerate(listed)}  # a tie: in entry order
        order = sorted(depth, key=lambda p: (-depth[p], entry.get(p, len(entry))))
        rows = []
        for player in order:
            same = sum(1 for p in order if depth[p] == depth[player])
            first = 1 + sum(1 for p in order if depth[p] > depth[player])
            place = f"={first}" if same > 1 else str(first)
            note = "withdrawn" if player in left else ""
            rows.append(
                StandingRow(place, name(player), float(depth[player]), (), games_left[player], note)
            )
        table = StandingsTable(title, (), tuple(rows))
        return (table,), (), Bracket(title, tuple(rounds))


def _scored_tables(
    row: Any,
    title: str,
    name: Callable[[int], str],
    listed: Sequence[Any],
    finished: Sequence[Any],
    byes: Sequence[Bye],
) -> tuple[tuple[StandingsTable, ...], tuple[Crosstable, ...], Bracket | None]:
    """The tables of a Swiss, a round robin or a league under way or ended, from its
    entrants and its games (`Tournaments._tables`)."""
    kind = Format(row.format)
    left = Counter(p for r in finished if not r.done for p in (r.first_id, r.second_id))
    withdrawn = {e.player_id for e in listed if e.withdrawn}
    if kind is Format.SWISS:
        standings = swiss_standings(
            _as_entrants(listed), [_game_result(p) for p in finished if p.done], byes=byes
        )
        return (_table(title, standings, name, left, withdrawn),), (), None
    tables: list[StandingsTable] = []
    crosses: list[Crosstable] = []
    divisions: dict[int, list[Any]] = defaultdict(list)
    season = row.round if kind is Format.LEAGUE else None
    for e in listed:
        if kind is Format.ROUND_ROBIN or e.division is not None:
            divisions[e.division or 0].append(e)
    for index in sorted(divisions):
        order = [e.player_id for e in sorted(divisions[index], key=_by_place)]
        members = set(order)
        games_of = [
            _game_result(p)
            for p in finished
            if p.done
            and (season is None or p.round == season)
            and {p.first_id, p.second_id} <= members
        ]
        standings = round_robin_standings(
            order, games_of, double=row.double, withdrawn=withdrawn & members
        )
        heading = (
            title
            if kind is Format.ROUND_ROBIN
            else (f"{title} · season {season} · division {index + 1}")
        )
        table = _table(heading, standings, name, left, withdrawn)
        annulled = tuple(
            StandingRow("", name(p), 0.0, (), 0, "annulled") for p in standings.annulled
        )
        tables.append(StandingsTable(table.title, table.tiebreak_names, table.rows + annulled))
        # the crosstable's rows in the table's order (the annulled last, as seeded)
        ranked = [row.player for row in standings.rows]
        tabled = set(ranked)
        ranked += [p for p in order if p not in tabled]
        crosses.append(_crosstable(heading, ranked, games_of, name))
    return tuple(tables), tuple(crosses), None


def _iso(moment: Any) -> str | None:
    return None if moment is None else moment.isoformat()


def _clean_name(name: object) -> str:
    text = str(name).strip()
    if not text:
        raise Refused("An event needs a name.", code=Code.BAD_OPTION)
    if any(unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") for ch in text):
        raise Refused("An event's name cannot hold control characters.", code=Code.BAD_OPTION)
    if len(text) > NAME_MOST:
        raise Refused(
            f"An event's name has at most {NAME_MOST} characters; this one has {len(text):,}.",
            code=Code.TOO_LONG,
        )
    return text


_CLOSED = {"open": "has not started yet", "finished": "is over", "cancelled": "was called off"}


def _closed(status: str) -> str:
    return _CLOSED.get(status, "is under way")


def _standing(listed: Sequence[Any]) -> list[Any]:
    """The entrants who have not withdrawn, in entry order."""
    return [e for e in listed if not e.withdrawn]


def _by_place(entry: Any) -> tuple[int, int]:
    return (entry.place if entry.place is not None else 1 << 30, entry.seq)


def _as_entrants(listed: Sequence[Any]) -> list[Entrant]:
    return [Entrant(e.player_id, e.rating, e.withdrawn) for e in listed]


def _game_result(p: Any) -> GameResult:
    return GameResult(p.round, p.first_id, p.second_id, p.winner_id, Finish(p.finish))


def points_text(value: float) -> str:
    whole_part = int(value)
    half = value - whole_part >= 0.5
    if half:
        return f"{whole_part}½" if whole_part else "½"
    return str(whole_part)


def result_words(p: Any, names: Mapping[int, str]) -> str:
    if p.winner_id is None:
        return "both forfeited" if p.finish == Finish.FORFEIT else "drawn"
    how = {"time": " on time", "forfeit": " by forfeit"}.get(p.finish or "", "")
    return f"{names.get(p.winner_id, '?')} won{how}"


def _table(
    title: str,
    standings: Standings,
    name: Any,
    left: Mapping[int, int],
    withdrawn: set[int],
) -> StandingsTable:
    shared = Counter(s.place for s in standings.rows)
    rows = tuple(
        StandingRow(
            f"={s.place}" if shared[s.place] > 1 else str(s.place),
            name(s.player),
            s.points,
            s.tiebreaks,
            left.get(s.player, 0),
            "withdrawn" if s.player in withdrawn else "",
        )
        for s in standings.rows
    )
    return StandingsTable(title, standings.tiebreaks, rows)


def _crosstable(
    title: str, order: Sequence[int], results: Sequence[GameResult], name: Any
) -> Crosstable:
    cells: dict[tuple[int, int], str] = defaultdict(str)
    for r in results:
        for player in r.players:
            cells[player, r.opponent(player)] += points_text(r.points(player))
    return Crosstable(
        title,
        tuple(name(p) for p in order),
        tuple(tuple("×" if a == b else cells[a, b] for b in order) for a in order),
    )


def _standings_text(table: StandingsTable) -> str:
    """The table in characters (the console's; bot/render/tables.py draws the picture)."""
    head = ["#", "player", "points", *table.tiebreak_names, "left"]
    body = [
        [
            row.place,
            row.name + (f" ({row.note})" if row.note else ""),
            points_text(row.score),
            *(f"{value:g}" for value in row.tiebreaks),
            *([""] * (len(table.tiebreak_names) - len(row.tiebreaks))),  # annulled: none
            str(row.games_left),
        ]
        for row in table.rows
    ]
    return table.title + "\n" + _columns([head, *body])


def _crosstable_text(table: Crosstable) -> str:
    head = ["", *(str(i) for i in range(1, len(table.names) + 1))]
    body = [
        [f"{i}. {name}", *(cell or "·" for cell in table.cells[i - 1])]
        for i, name in enumerate(table.names, 1)
    ]
    return table.title + "\n" + _columns([head, *body])


def _bracket_text(bracket: Bracket) -> str:
    lines = [bracket.title]
    for number, matches in enumerate(bracket.rounds, 1):
        lines.append(f"round {number}:")
        for m in matches:
            top = m.top or "?"
            bottom = m.bottom or "bye"
            mark = ("  <" if m.winner == 0 else "", "  <" if m.winner == 1 else "")
            lines.append(f"  {top}{mark[0]} v {bottom}{mark[1]}  {m.score}")
    return "\n".join(lines)


def _columns(rows: Sequence[Sequence[str]]) -> str:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join(
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in rows
    )


_RELATIVE = re.compile(r"in\s+(\d{1,3})\s+(hour|day|week)s?", re.IGNORECASE)
_RELATIVE_UNITS = {"hour": timedelta(hours=1), "day": timedelta(days=1), "week": timedelta(weeks=1)}


def start_time(text: str, zone_name: str | None, now: datetime) -> datetime:
    """An event's start as typed: "2026-12-01T18:00" (or "2026-12-01 18:00") in the
    organizer's time zone, or "in 3 days" (hours, days, weeks) from `now`."""
    typed = " ".join(str(text).split())
    relative = _RELATIVE.fullmatch(typed)
    if relative is not None:
        return now + int(relative[1]) * _RELATIVE_UNITS[relative[2].lower()]
    try:
        moment = datetime.fromisoformat(typed)
    except ValueError:
        raise Refused(
            f"{shown(typed)} is not a start time; try 2026-12-01T18:00 or in 3 days.",
            code=Code.BAD_OPTION,
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=zone(zone_name))
    return moment


def start_words(
    summary: TournamentSummary, moment: Callable[[datetime], str] = lambda t: local_time(t, None)
) -> str:
    """The limit and the start of an open event, for its sign-up: "At most 16 players;
    starts when 8 have joined, or at 01 Dec 18:00 CET." (`moment` writes the time).
    Empty when neither is set."""
    parts = []
    if summary.max_players is not None:
        parts.append(f"At most {summary.max_players:,} players")
    starts = []
    if summary.start_players is not None:
        starts.append(f"when {summary.start_players} have joined")
    if summary.starts_at is not None:
        starts.append(f"at {moment(summary.starts_at)}")
    if starts:
        parts.append("starts " + ", or ".join(starts))
    if not parts:
        return ""
    sentence = "; ".join(parts)
    return sentence[0].upper() + sentence[1:] + "."


def _challenge_refused(
    refusal: ChallengeRefusal, title: str, them: str, rules: LadderRules
) -> Refused:
    """One plain sentence for a ladder challenge not allowed."""
    sentences = {
        ChallengeRefusal.NOT_ON_LADDER: (f"You are not on {title}.", ServiceCode.NOT_ENTERED),
        ChallengeRefusal.TARGET_NOT_ON_LADDER: (
            f"{them} is not on {title}.",
            ServiceCode.NOT_ENTERED,
        ),
        ChallengeRefusal.SELF: ("You cannot challenge yourself.", ServiceCode.SELF_CHALLENGE),
        ChallengeRefusal.NOT_ABOVE: (
            f"{them} stands below you on {title}: challenge a player above you.",
            ServiceCode.OUT_OF_REACH,
        ),
        ChallengeRefusal.OUT_OF_REACH: (
            f"{them} is out of reach: you may challenge up to {rules.reach} places above you.",
            ServiceCode.OUT_OF_REACH,
        ),
        ChallengeRefusal.BUSY: (
            "You have an open ladder challenge already: it is played or forfeited first.",
            ServiceCode.BUSY,
        ),
        ChallengeRefusal.TARGET_BUSY: (
            f"{them} has an open ladder challenge already.",
            ServiceCode.BUSY,
        ),
    }
    sentence, code = sentences[refusal]
    return Refused(sentence, code=code)


def _ordinal(number: int) -> str:
    """1st 2nd 3rd 4th ... 11th 12th 13th ... 21st."""
    if 10 <= number % 100 <= 20:
        return f"{number}th"
    return f"{number}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(number % 10, 'th') }"
