"""The bot as a player: its levels, its identities, its moves and its manners.

Each level is one player identity ("Paperboard (hard)", a player row of its own
with a small id no Discord account has), so each keeps its own record per game.
A seat the bot plays says so in the database (`seats.bot_level`); games against
the bot are casual. When the turn passes to a bot seat, the move's transaction
queues a job (bot/service/core/jobs.py); a worker (bot/schedule/airunner.py) claims
it, runs `think` in a worker process, and commits the move here, through the same
move commit and outbox as a person's move, only while its claim still holds and
the game is still at the job's position. Undo against the bot is granted at once;
the bot resigns only when a proof (the solver's or its search tree's) shows it
lost or its chance is tiny after a long search, and offers nothing else. An
opening book's proof is no reason: it plays a lost opening on, as a player who
knows the theory but not that the opponent does.
"""

from __future__ import annotations

import dataclasses
import logging
import random
import time
from collections.abc import Mapping, Sequence
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

import engine
import engine.ai
from bot.service.core import jobs as aiqueue
from bot.service.core import outbox
from bot.service.core.jobs import Job
from bot.service.core.levels import HOPELESS_CHANCE, HOPELESS_SIMULATIONS, LEVELS, MAX_ACTIONS
from bot.service.core.models import (
    BotThinking,
    GameSummary,
    MoveResult,
    Player,
    Refused,
    Result,
    ServiceCode,
    UndoRequested,
)
from bot.service.core.rules import bot_to_move, forfeit
from bot.service.play.moves import Play
from bot.store.schema import games, seats

log = logging.getLogger("paperboard.ai")


# == the search, in a worker process ==============================================================


@dataclasses.dataclass(frozen=True, slots=True)
class Decision:
    """What the bot does with its turn: its actions (one, or a whole Short Circuit
    turn), or resign; and how long it searched."""

    texts: tuple[str, ...]
    resign: bool
    search_seconds: float


def think(
    game: str,
    options: Mapping[str, Any],
    record: Sequence[str],
    level: str,
    nodes: int | None = None,
    seed: int | None = None,
) -> Decision:
    """The bot's turn at the end of `record` (runs in a worker process: plain data in
    and out). `nodes` replaces every level's budget (tests, benches), with `seed`."""
    spec = LEVELS[level]
    state = engine.replay(game, options, record)
    seat = state.to_move
    rng = random.Random(seed)
    started = time.perf_counter()
    texts: list[str] = []
    budget = nodes if nodes is not None else spec.nodes
    while state.outcome is None and state.to_move == seat and len(texts) < MAX_ACTIONS:
        if texts and not state.mid_turn:
            break
        legal = state.legal_moves()
        if len(legal) == 1:
            move = legal[0]  # nothing to think about
        elif rng.random() < spec.random_share:
            move = rng.choice(legal)
        else:
            # A level's simulations stop at its seconds too (1,000 on the largest boards
            # took minutes), except the tests' and benches' budgets (`nodes`): exact.
            analysis = engine.ai.analyse(
                state,
                seconds=spec.seconds,
                nodes=budget,
                seed=rng.randrange(2**31),
                capped=nodes is None,
            )
            if not texts and seat is not None and _hopeless(analysis, seat):
                return Decision((), True, time.perf_counter() - started)
            move = analysis.best[0].move if analysis.best else legal[0]
        texts.append(move)
        state = state.play(move)
    return Decision(tuple(texts), False, time.perf_counter() - started)


def _hopeless(analysis: engine.ai.Analysis, seat: int) -> bool:
    """Proven lost (two players), or lost by a wide margin after a long search; never
    by the opening book (its chances are the proof's, not the search's)."""
    if analysis.from_book:
        return False
    if analysis.proven_winner is not None:
        return analysis.proven_winner != seat
    return (
        analysis.simulations >= HOPELESS_SIMULATIONS and analysis.win_chance[seat] < HOPELESS_CHANCE
    )


# == the use cases ================================================================================


@dataclasses.dataclass(frozen=True, slots=True)
class Turn:
    """What a worker needs to think about a move job: plain data."""

    game: str
    options: dict[str, Any]
    record: tuple[str, ...]
    level: str


class AiPlay(Play):
    """The bot's side of a game: its moves, its resignations, undo granted at once."""

    async def move(
        self,
        game_id: int,
        guild_id: int,
        player: Player,
        text: str,
        *,
        expected_ply: int | None = None,
    ) -> MoveResult:
        """A person's move (Play.move); when the bot's queue is long, the player hears how
        long its move will take."""
        result = await super().move(game_id, guild_id, player, text, expected_ply=expected_ply)
        game = result.game
        level = bot_to_move(game)
        if level is None:
            return result
        async with self.db.read() as conn:
            job = await aiqueue.job_row(conn, game_id, "move", game.ply)
            ahead = await aiqueue.ahead_of(conn, job, self.clock()) if job is not None else 0
        searches = max(1, self.records.settings.ai_processes)
        if ahead < searches:
            return result  # a worker is free: no wait worth telling
        seconds = round((ahead // searches + 1) * LEVELS[level].seconds)
        told = BotThinking(game_id, ahead, seconds)
        return dataclasses.replace(result, events=(*result.events, told))

    async def bot_turn(self, job: Job) -> Turn | None:
        """The position a move job is about, or None when the game moved on (the job is
        then stale: `settle_job` marks it done)."""
        async with self.db.read() as conn:
            row = (
                await conn.execute(sa.select(games).where(games.c.id == job.game_id))
            ).one_or_none()
            if row is None or row.status != "active" or row.ply != job.ply:
                return None
            summary = await self.records.summary(conn, row.id, row)
            level = summary.seats[row.to_move].bot if row.to_move is not None else None
            if level is None or level not in LEVELS:
                return None
            state = await self.records.load_state(conn, row)
        return Turn(row.game, dict(row.options), tuple(state.moves), level)

    async def settle_job(self, job: Job, worker: str) -> None:
        """A job with nothing to do (its game moved on) is done, if the claim still holds."""
        async with self.db.write() as conn:
            if await aiqueue.lock_held(conn, job, worker) is not None:
                await aiqueue.finish(conn, job.id, self.clock())

    async def play_for_bot(
        self, job: Job, worker: str, decision: Decision, *, draw: bool = True
    ) -> MoveResult | None:
        """Commit the bot's turn (or its resignation) and mark the job done, in one
        transaction, only if the claim still holds and the game is still at the job's
        position; None otherwise (another worker's claim, an undo, a resignation).
        `draw`: the result carries the board after the move (a process that announces)."""
        async with self.db.write() as conn:
            # the game row first, as every use case locks it
            row = (
                await conn.execute(
                    sa.select(games).where(games.c.id == job.game_id).with_for_update()
                )
            ).one_or_none()
            if await aiqueue.lock_held(conn, job, worker) is None:
                return None
            if row is None or row.status != "active" or row.ply != job.ply:
                await aiqueue.finish(conn, job.id, self.clock())
                return None
            summary = await self.records.summary(conn, row.id, row)
            seat = row.to_move
            state = await self.records.load_state(conn, row)
            await aiqueue.finish(conn, job.id, self.clock())
            if decision.resign:
                winners, scores = forfeit(state, seat)
                over = await self.turns.finish(
                    conn, row, summary, winners, str(engine.End.RESIGNATION), scores, loser=seat
                )
                log.info("game=%d the bot resigns at ply %d", row.id, row.ply)
                result = await self.records.announce(
                    conn, Result(await self.records.summary(conn, row.id), (over,))
                )
                return MoveResult(result.game, result.events, outbox_id=result.outbox_id)
            after = state
            for text in decision.texts:
                after = after.play(text)  # the worker searched this very position
            events, now_summary = await self._commit_moves(conn, row, summary, state, after, seat)
            result = await self.records.announce(conn, Result(now_summary, tuple(events)))
        if not draw:  # the process that announces it draws the board
            return MoveResult(result.game, result.events, outbox_id=result.outbox_id)
        try:
            png = await self.records.render(
                job.game_id, after, result.game, groups=False, after_move=True
            )
        except Exception:  # the move is made and kept; only its picture is missing
            log.exception("game=%d the board after the bot's move could not be drawn", job.game_id)
            png = b""
        return MoveResult(result.game, result.events, outbox_id=result.outbox_id, png=png)

    def agreeing_at_once(self, summary: GameSummary, seat: int) -> set[int]:
        return {s.seat for s in summary.seats if s.bot is not None and s.seat != seat}

    async def request_undo(self, game_id: int, guild_id: int, player: Player) -> Result:
        """Ask for an undo; the bot's seats agree in the request itself, so against the
        bot alone the move is taken back at once (the result is the answer's), and with
        people too the request waits for them only."""
        asked = await super().request_undo(game_id, guild_id, player)
        request = next(e for e in asked.events if isinstance(e, UndoRequested))
        bots = [s for s in asked.game.seats if s.bot is not None and s.player_id != player.id]
        if request.waiting_for or not bots:
            return asked
        try:
            answered = await self.answer_undo(
                game_id, guild_id, Player(bots[0].player_id or 0, bots[0].name or ""), accept=True
            )
        except Refused:  # the bot moved between the two: the request is stale, say so
            answered = None
        if asked.outbox_id is not None:  # the answer (or the refusal) says it all
            await outbox.mark_delivered(self.records, asked.outbox_id)
        if answered is None:
            raise Refused(
                "The bot moved while you asked; ask for the undo again.", code=ServiceCode.NO_UNDO
            )
        return answered

    async def bot_records(
        self, guild_id: int, player_id: int | None = None
    ) -> list[tuple[str, str, int, int, int]]:
        """Each bot level's record per game in this server: (level, game, won, lost, drawn);
        with `player_id`, that player's record against each level (their casual games
        against the bot, which no rating counts)."""
        async with self.db.read() as conn:
            return await bot_records(conn, guild_id, player_id)


async def bot_records(
    conn: AsyncConnection, guild_id: int, player_id: int | None = None
) -> list[tuple[str, str, int, int, int]]:
    """AiPlay.bot_records, in a transaction of the caller's."""
    bot = seats.alias("bot")
    # the seat whose result is counted: the bot's own, or the player's beside it
    counted = bot if player_id is None else seats
    query = (
        sa.select(bot.c.bot_level, counted.c.seat, games.c.game, games.c.winners)
        .select_from(bot.join(games, games.c.id == bot.c.game_id))
        .where(
            bot.c.bot_level.is_not(None),
            games.c.guild_id == guild_id,
            games.c.status == "finished",
        )
    )
    if player_id is not None:
        query = query.join(seats, seats.c.game_id == games.c.id).where(
            seats.c.player_id == player_id
        )
    rows = (await conn.execute(query)).all()
    tally: dict[tuple[str, str], list[int]] = {}
    for r in rows:
        counts = tally.setdefault((r.bot_level, r.game), [0, 0, 0])
        winners = r.winners or []
        counts[0 if r.seat in winners else 2 if not winners else 1] += 1
    order = list(LEVELS)
    return sorted(
        ((level, game, *counts) for (level, game), counts in tally.items()),  # type: ignore[misc]
        key=lambda line: (order.index(line[0]), line[1]),
    )
