"""Analysis of a game: each seat's chance after every move, the largest swings, the
first proven position, and a chart; and a hint (the bot's move) in a game against it.

Only for a finished game or a game against the bot: engine help in a game under way
between people is cheating, and the refusal says so. A request queues a job
(bot/service/aiqueue.py, kind `analysis` or `hint`, one per game and position); the
AI runner (bot/schedule/airunner.py) judges every position in a worker process
(`judge`), writing its progress into the job row, then builds the report and chart
there too (`report`) and stores them in the row: asking again is instant, and
survives restarts. Whoever asked reads the row (`analysis`) until it is done.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

import sqlalchemy as sa

import engine
import engine.ai
from bot.render import RENDERERS
from bot.render.chart import win_chart
from bot.service import aiqueue
from bot.service.aiqueue import Job, Kind
from bot.service.models import GameSummary, Refused
from bot.service.records import Records
from bot.store.schema import games, moves
from engine import Code

#: Search time per position of an analysis.
SECONDS_PER_POSITION = 0.5
SWINGS = 3  # the largest swings the text names


@dataclasses.dataclass(frozen=True, slots=True)
class Judgement:
    """One position's verdict: chances per seat, the best move, the proven winner."""

    chances: tuple[float, ...]
    best: str | None
    proven: int | None  # the seat with a forced win, when a proof found one


@dataclasses.dataclass(frozen=True, slots=True)
class AnalysisReport:
    """An analysis as asked for: done, or how far it got."""

    game: GameSummary
    done: bool
    progress: int  # positions judged
    total: int
    text: str = ""
    png: bytes = b""


@dataclasses.dataclass(frozen=True, slots=True)
class Hint:
    game: GameSummary
    move: str | None  # None while the bot still thinks
    png: bytes = b""  # the board with the move suggested on it


# == in a worker process ==========================================================================


def judge(
    game: str, options: Mapping[str, Any], record: Sequence[str], seconds: float, nodes: int | None
) -> Judgement:
    """The verdict on the position after `record`."""
    state = engine.replay(game, options, record)
    found = engine.ai.analyse(state, seconds=seconds, nodes=nodes)
    return Judgement(
        found.win_chance, found.best[0].move if found.best else None, found.proven_winner
    )


def report(
    game: str,
    options: Mapping[str, Any],
    record: Sequence[str],
    verdicts: Sequence[Judgement],
    players: Sequence[str],
    title: str,
) -> tuple[dict[str, Any], bytes]:
    """The stored result (chances and text) and the chart, from every position's verdict
    (`verdicts[i]`: after i moves)."""
    # the position after each prefix (one cut before a forced pass includes the pass),
    # each built on the last: one replay of the record, not one per prefix
    states = [engine.replay(game, options, ())]
    for ply in range(1, len(record) + 1):
        states.append(engine.replay_onto(states[-1], record[:ply]))
    swings = []
    for ply in range(1, len(record) + 1):
        mover = states[-1].actors[ply - 1]
        text = record[ply - 1]
        if text == "pass":
            continue
        before = verdicts[ply - 1].chances[mover]
        after = verdicts[ply].chances[mover]
        swings.append((before - after, ply, mover, text, before, after))
    swings.sort(key=lambda swing: (-swing[0], swing[1]))
    lines = []
    for drop, ply, mover, text, before, after in sorted(swings[:SWINGS], key=lambda s: s[1]):
        if drop <= 0.05:
            continue
        name = states[ply - 1].seat_name(mover)
        line = f"move {ply} {text}: {name} {before:.0%} -> {after:.0%}"
        better = verdicts[ply - 1].best
        if better is not None and better != text:
            line += f"; better was {better}"
        lines.append(line)
    if not lines:
        lines.append("no move changed the chances much")
    # the first position from which every later one was proven for the same winner
    proven = None
    for ply in range(len(verdicts) - 1, -1, -1):
        if verdicts[ply].proven is None or verdicts[ply].proven != verdicts[-1].proven:
            break
        proven = ply
    if proven is not None:
        winner = states[proven].seat_name(verdicts[proven].proven or 0)
        when = "from the start" if proven == 0 else f"from move {proven}"
        lines.append(f"{when} {winner} had a forced win")
    styles = RENDERERS[game].seat_styles(states[-1])
    png = win_chart(title, [v.chances for v in verdicts], styles, players)
    result = {
        "chances": [list(v.chances) for v in verdicts],
        "best": [v.best for v in verdicts],
        "text": "\n".join(lines),
    }
    return result, png


# == the use cases ================================================================================


class Analyses(Records):
    """Asking for an analysis or a hint, and reading it."""

    async def analysis(self, game_id: int, guild_id: int) -> AnalysisReport:
        """The analysis of a finished game (or one against the bot): stored, or queued
        and under way. Refused for a game under way between people (engine help)."""
        async with self.db.write() as conn:
            row = await self.game_row(conn, game_id, guild_id)
            summary = await self.summary(conn, game_id, row)
            against_bot = any(s.bot is not None for s in summary.seats)
            if row.status == "open" or (row.status != "finished" and not against_bot):
                if row.status == "active":
                    raise Refused(
                        "This game is under way between people: analysing it would be engine "
                        "help, which is cheating. Ask again when it is over.",
                        code=Code.ENGINE_HELP,
                    )
                raise Refused(
                    "Only a finished game (or one against the bot) can be analysed.",
                    code=Code.NOT_FINISHED,
                )
            job = await aiqueue.request(conn, game_id, "analysis", row.ply, self.clock())
            if job.done and not job.result:  # put aside after failing: try again now
                await aiqueue.requeue(conn, job.id, self.clock())
                job = await aiqueue.job_row(conn, game_id, "analysis", row.ply)
        return AnalysisReport(
            summary,
            job.done,
            job.progress,
            job.total or row.ply + 1,
            (job.result or {}).get("text", ""),
            job.png or b"",
        )

    async def hint(self, game_id: int, guild_id: int, player_id: int) -> Hint:
        """The bot's suggestion for your move, in a casual game against the bot (training):
        None while it thinks; then the board with the move on it. Refused elsewhere."""
        async with self.db.write() as conn:
            row = await self.game_row(conn, game_id, guild_id)
            summary = await self.summary(conn, game_id, row)
            seat = summary.seat_of(player_id)
            against_bot = any(s.bot is not None for s in summary.seats)
            if row.rated or not against_bot or seat is None or summary.seats[seat].bot:
                raise Refused(
                    "Hints are for your casual games against the bot; in any other game they "
                    "would be engine help.",
                    code=Code.NOT_AGAINST_BOT,
                )
            if row.status != "active":
                raise Refused("This game is over: ask for its analysis.", code=Code.GAME_OVER)
            if row.to_move != seat:
                raise Refused("A hint is for your own turn.", code=Code.NOT_YOUR_TURN)
            job = await aiqueue.request(conn, game_id, "hint", row.ply, self.clock())
            if job.done and not job.result:
                # the worker found the game moved on (it came back here by an undo): ask again
                await aiqueue.requeue(conn, job.id, self.clock())
            if not job.done or not job.result:
                return Hint(summary, None)
            state = await self.load_state(conn, row)
        move = str(job.result["move"])
        players = [s.name or "" for s in summary.seats]
        png = await self.painter.png(state, players=players, suggestion=move, slow=True)
        return Hint(summary, move, png)

    async def work_on(self, job: Job) -> tuple[str, dict[str, Any], tuple[str, ...], str] | None:
        """An analysis or hint job's game: (name, options, record up to the job's
        position, title); None when the game is gone or (a hint) moved on."""
        async with self.db.read() as conn:
            row = (
                await conn.execute(sa.select(games).where(games.c.id == job.game_id))
            ).one_or_none()
            if row is None or (job.kind == "hint" and row.ply != job.ply):
                return None
            record = (
                await conn.scalars(
                    sa.select(moves.c.text)
                    .where(moves.c.game_id == row.id, moves.c.ply < job.ply)
                    .order_by(moves.c.ply)
                )
            ).all()
        title = f"{engine.GAMES[row.game].title} #{row.id}"
        return row.game, dict(row.options), tuple(record), title

    async def players_of(self, game_id: int) -> tuple[str, ...]:
        async with self.db.read() as conn:
            summary = await self.summary(conn, game_id)
        return tuple(s.name or "" for s in summary.seats)

    async def store_work(
        self, job: Job, worker: str, result: dict[str, Any] | None, png: bytes | None = None
    ) -> bool:
        """Store what a job found and mark it done, if the claim still holds."""
        async with self.db.write() as conn:
            if await aiqueue.lock_held(conn, job, worker) is None:
                return False
            await aiqueue.finish(conn, job.id, self.clock(), result, png)
        return True

    async def job_kind(self, game_id: int, kind: Kind, ply: int) -> Any:
        async with self.db.read() as conn:
            return await aiqueue.job_row(conn, game_id, kind, ply)
