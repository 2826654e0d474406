"""A ladder's challenges: issued, accepted, declined, called off; a declined or expired
one is a forfeit.
"""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from bot.events import (
    Finish,
    Format,
    LadderRules,
    Pairing,
    after_challenge,
    challenge_refusal,
)
from bot.service.core import outbox
from bot.service.core.models import (
    Player,
    Refused,
    Result,
    ServiceCode,
    Status,
    TournamentNews,
    TournamentResult,
)
from bot.service.core.records import Records
from bot.service.core.rules import check_ids
from bot.service.core.turns import Turns
from bot.service.events.store import EventStore
from bot.service.events.words import (
    by_place,
    challenge_refused,
    closed,
    ordinal,
    standing,
)
from bot.store.schema import (
    games,
    pairings,
    seats,
)

log = logging.getLogger("paperboard.tournaments")


class Ladders:
    """The use cases of a ladder's challenges."""

    def __init__(self, records: Records, turns: Turns, store: EventStore) -> None:
        self.records = records
        self.turns = turns
        self.store = store
        self.db = records.db
        self.clock = records.clock

    # == ladder challenges =================================================================

    async def ladder_challenge(
        self, tournament_id: int, guild_id: int, challenger: Player, opponent: Player
    ) -> TournamentResult:
        """Challenge a player up to `reach` places above on a ladder: a game of the event,
        open until the player challenged accepts it (within `accept_days`, or they forfeit)."""
        rules = LadderRules()
        async with self.db.write() as conn:
            row = await self._ladder_event(conn, tournament_id, guild_id)
            title = await self.store.title(conn, row)
            ladder = await self._ladder(conn, row.id)
            busy = [(p.first_id, p.second_id) for p in await self._open_challenges(conn, row.id)]
            refusal = challenge_refusal(
                ladder, challenger.id, opponent.id, open_challenges=busy, rules=rules
            )
            if refusal is not None:
                raise challenge_refused(refusal, title, opponent.name, rules)
            await self.records.remember(conn, challenger)
            until = self.clock() + timedelta(days=rules.accept_days)
            pairing = Pairing(challenger.id, opponent.id)
            result = await self.store.open_game(conn, row, 0, pairing, until=until, by=challenger)
            result = await self.records.announce(conn, result)
            summary = await self.store.event_summary(conn, row.id)
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
            events = await self.turns.start_if_full(conn, game)
            result = await self.records.announce(
                conn, Result(await self.records.summary(conn, game.id), tuple(events))
            )
            summary = await self.store.event_summary(conn, tournament_id)
        note = f"{player.name} accepted the challenge: game #{game.id} has started."
        return TournamentResult(summary, note, (result,))

    async def decline_ladder_challenge(
        self, tournament_id: int, guild_id: int, player: Player
    ) -> TournamentResult:
        """The player challenged declines: a forfeit, as a challenge left unaccepted."""
        async with self.db.write() as conn:
            game = await self._challenge_for(conn, tournament_id, guild_id, player)
            result = await self.turns.close_challenge(conn, game.id, "declined", player.id)
            summary = await self.store.event_summary(conn, tournament_id)
        note = f"{player.name} declined the challenge and forfeits it."
        return TournamentResult(summary, note, (result,))

    async def challenge_closed(self, conn: AsyncConnection, game_id: int, status: Status) -> None:
        """An open challenge closed; a ladder's declined or expired one is forfeited by the
        player challenged (the challenger withdrawing theirs changes nothing)."""
        pairing = (
            await conn.execute(
                sa.select(pairings).where(pairings.c.game_id == game_id, pairings.c.done.is_(False))
            )
        ).one_or_none()
        if pairing is None:
            return
        if status not in ("declined", "expired"):  # withdrawn by its challenger: no game
            await conn.execute(pairings.delete().where(pairings.c.id == pairing.id))
            return
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
        event = await self.turns.lock_event(conn, pairing.tournament_id)
        if event.status == "active":
            for news in await self.after_challenge(conn, event, pairing, pairing.first_id):
                await outbox.write(self.records, conn, news, later=True)

    async def call_off_challenges(
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
            await self.turns.close_challenge(conn, game_id, "cancelled", player_id)
            for game_id in waiting.all()
        ]

    async def after_challenge(
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
                await self.store.set_entrant(conn, event.id, player, place=place)
        names = await self.store.names(conn, event.id)
        place = after.index(challenger) + 1
        text = f"{names[challenger]} takes {names[target]}'s place: {ordinal(place)}."
        news = TournamentNews(pairing.game_id, event.id, "ladder", text)
        log.info("tournament=%d ladder player=%d up to %d", event.id, challenger, place)
        return [await self.store.result(conn, news)]

    async def _ladder_event(self, conn: AsyncConnection, tournament_id: int, guild_id: int) -> Any:
        """A ladder under way, locked."""
        row = await self.store.event_row(conn, tournament_id, guild_id)
        title = await self.store.title(conn, row)
        if Format(row.format) is not Format.LADDER:
            raise Refused(
                f"{title} is not a ladder: its games are paired, not challenged.",
                code=ServiceCode.NOT_LADDER,
            )
        if row.status == "open":
            raise Refused(f"{title} has not started.", code=ServiceCode.NOT_STARTED)
        if row.status != "active":
            raise Refused(f"{title} {closed(row.status)}.", code=ServiceCode.NOT_OPEN)
        return row

    async def _ladder(self, conn: AsyncConnection, tournament_id: int) -> list[int]:
        """The ladder's players, the first place first."""
        listed = standing(await self.store.entrants(conn, tournament_id))
        return [e.player_id for e in sorted(listed, key=by_place) if e.place is not None]

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
            title = await self.store.title(conn, row)
            raise Refused(
                f"No challenge on {title} is waiting for you.", code=ServiceCode.NOT_INVITED
            )
        return game
