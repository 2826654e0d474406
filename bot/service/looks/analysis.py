"""Analysis of a game: each seat's chance after every move, the largest swings, the
first proven position, and a chart; and a hint (the bot's move) in a game against it.

Only for a finished game, or a game under way that the asker plays against the bot
alone: engine help in a game where another person holds a seat is cheating, and the
refusal says so. A request queues a job
(bot/service/core/jobs.py, kind `analysis` or `hint`, one per game and position); the
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
from bot.service.core import jobs as aiqueue
from bot.service.core.jobs import Job, Kind
from bot.service.core.models import GameSummary, Refused, ServiceCode
from bot.service.core.records import Records
from bot.service.core.rules import alone_with_the_bot
from bot.store.schema import games, moves
from engine import Code

#: Search time per position of an analysis; the solver gets as much before it.
SECONDS_PER_POSITION = 0.5
#: Going backwards, the solver is no longer tried after this many positions in a row
#: it did not prove: earlier positions are larger still, and the time goes to search.
PROOF_MISSES = 3
#: With a node budget (tests, benches), the solver's nodes per simulation of the search:
#: a solver node on Hex 7x7 costs ~0.3 s against a simulation's ~0.2 ms.
PROOF_NODES_PER_SIMULATION = 5
SWINGS = 3  # the largest swings the text names
#: A change of the mover's chance smaller than this is not named (the estimates' noise).
NOTICEABLE = 0.05
#: The mover's bias (`unbiased`): the evidence (summed gaps, two or three positions'
#: worth) a game's own fit is shrunk by: with few moves of the search's own choosing
#: the correction stays small rather than guess (a fixed prior weight of 0.35 made
#: the chart of a game of random moves swing 20-30 points a move: its gaps at 0.5 s
#: are mostly noise).
FIT_SHRINK = 0.5


@dataclasses.dataclass(frozen=True, slots=True)
class Judgement:
    """One position's verdict. `proven`: the chances are a proof's (the solver's or
    the search tree's: 1 for the winner, shared for a draw), not an estimate."""

    chances: tuple[float, ...]
    best: str | None  # the mover's best move found (a winning one when proven won)
    proven: bool = False
    #: the mover's estimated chance after `best` (None when proven or unknown)
    best_chance: float | None = None
    #: the solver proved that the record's next move does not win for the mover
    refuted: bool = False

    @property
    def winner(self) -> int | None:
        """The seat a proof shows wins (None: not proven, or a draw)."""
        if not self.proven:
            return None
        return next((seat for seat, chance in enumerate(self.chances) if chance == 1.0), None)


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
    game: str,
    options: Mapping[str, Any],
    record: Sequence[str],
    seconds: float,
    nodes: int | None,
    *,
    prove: bool = False,
    next_move: str | None = None,
) -> Judgement:
    """The verdict on the position after `record`: with `prove`, the solver's first
    (`seconds`, or PROOF_NODES_PER_SIMULATION times `nodes`; it tries `next_move`, the
    record's next, first), then, unproven, a search of `seconds` (or `nodes`)."""
    state = engine.replay(game, options, record)
    if prove:
        budget = None if nodes is None else nodes * PROOF_NODES_PER_SIMULATION
        proof = engine.ai.solve(state, seconds=seconds, nodes=budget, every=False, first=next_move)
        if proof is not None and state.outcome is None:
            mover = state.to_move
            chances = tuple(
                0.5 if proof.winner is None else float(seat == proof.winner)
                for seat in range(state.players)
            )
            return Judgement(
                chances,
                proof.winning_moves[0] if proof.winning_moves else None,
                proven=True,
                # `next_move` was tried first: it wins, or it is proven not to
                refuted=next_move is not None
                and (proof.winner != mover or proof.winning_moves[0] != next_move),
            )
    found = engine.ai.analyse(state, seconds=seconds, nodes=nodes, solver=not prove)
    proven = found.proven is not None or found.proven_winner is not None
    best = found.best[0] if found.best else None
    return Judgement(
        found.win_chance,
        best.move if best else None,
        proven=proven,
        best_chance=best.chance if best and not proven else None,
    )


@dataclasses.dataclass(frozen=True, slots=True)
class JudgedPosition:
    """A judged position of the record, with what the report needs around it."""

    verdict: Judgement
    mover: int | None  # the seat to move, None when the game is over
    name: str | None  # the mover's name for its seat


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
    positions = [
        JudgedPosition(v, s.to_move, s.seat_name(s.to_move) if s.to_move is not None else None)
        for v, s in zip(verdicts, states, strict=True)
    ]
    if states[0].players == 2:
        positions = unbiased(positions, record)
    named = _swings(positions, record)
    lines = [line for _, _, line in named] or ["no move changed the chances much"]
    proven_from = _proven_from(positions)
    if proven_from is not None:
        winner = positions[-1].verdict.winner
        when = "from the start" if proven_from == 0 else f"from move {proven_from}"
        if winner is None:
            lines.append(f"the game was drawn with best play {when} (proven)")
        else:
            lines.append(f"{states[-1].seat_name(winner)} had a forced win {when} (proven)")
    styles = RENDERERS[game].seat_styles(states[-1])
    chances = [p.verdict.chances for p in positions]
    proven = [p.verdict.proven for p in positions]
    png = win_chart(
        title,
        chances,
        styles,
        players,
        proven=proven,
        marked=[(ply, mover) for ply, mover, _ in named],
    )
    result = {
        "chances": [list(c) for c in chances],
        "proven": proven,
        "best": [p.verdict.best for p in positions],
        "text": "\n".join(lines),
    }
    return result, png


def unbiased(positions: Sequence[JudgedPosition], record: Sequence[str]) -> list[JudgedPosition]:
    """Two-player chances with the search's bias towards or against its mover taken out.

    A search's chance for its mover is the mean of all its simulations, the moves it
    tried and dropped included, and reads low; its best move's own value reads high
    (the move chosen is the one whose value came out highest). The truth lies
    between, at `mean + w * (best - mean)` for a weight w; the weight is fitted on
    the game itself: a move the search would play itself keeps, on average, its
    mover's chance, so w is the one under which the chances before and after such
    moves agree on average (the ratio of the rises to the gaps over those moves,
    shrunk towards no correction while the game has few of them). Proven positions are
    exact and kept as they are."""
    gaps = [_gap(p) for p in positions]
    rise = evidence = 0.0
    for ply, text in enumerate(record[: len(positions) - 1]):
        before, after = positions[ply], positions[ply + 1]
        gap, next_gap = gaps[ply], gaps[ply + 1]
        if before.verdict.best != text or before.mover is None or after.mover is None:
            continue
        if gap is None or next_gap is None:
            continue
        # the mover's chance reads `w * gap` too low before; after, `w * next_gap` too low
        # for the next mover: too high for this one, unless it moves again (Short Circuit)
        sign = 1 if after.mover != before.mover else -1
        rise += after.verdict.chances[before.mover] - before.verdict.chances[before.mover]
        evidence += gap + sign * next_gap
    weight = rise / (FIT_SHRINK + evidence)
    weight = min(1.0, max(0.0, weight))
    corrected = []
    for position, gap in zip(positions, gaps, strict=True):
        if gap is None or position.mover is None:
            corrected.append(position)
            continue
        # between the mean and the best move's value, both chances: a chance too
        chance = position.verdict.chances[position.mover] + weight * gap
        chances = tuple(chance if seat == position.mover else 1 - chance for seat in range(2))
        corrected.append(
            dataclasses.replace(
                position, verdict=dataclasses.replace(position.verdict, chances=chances)
            )
        )
    return corrected


def _gap(position: JudgedPosition) -> float | None:
    """How much higher the mover's best move's value reads than the position's chance."""
    verdict = position.verdict
    if verdict.proven or verdict.best_chance is None or position.mover is None:
        return None
    return verdict.best_chance - verdict.chances[position.mover]


def _swings(
    positions: Sequence[JudgedPosition], record: Sequence[str]
) -> list[tuple[int, int, str]]:
    """The largest swings against their mover (move number, mover, words), in the
    order of the moves, each in words that say
    what was proven and what estimated. A move in a position already lost (proven,
    or no move found better) is not a swing: the words say the position was lost."""
    found = []
    for ply in range(1, len(positions)):
        text = record[ply - 1]
        before, after = positions[ply - 1], positions[ply]
        mover, name = before.mover, before.name
        if text == "pass" or mover is None or name is None:
            continue
        was, now = before.verdict.chances[mover], after.verdict.chances[mover]
        if before.verdict.proven:
            # `refuted`: the move played is proven not to win (a win thrown away); a
            # draw thrown away shows in the proven loss after it
            thrown = (was == 1.0 and before.verdict.refuted) or (after.verdict.proven and now < was)
            if thrown:
                kept = "win" if was == 1.0 else "draw"
                better = (
                    f"; {before.verdict.best} won" if was == 1.0 and before.verdict.best else ""
                )
                found.append(
                    (
                        was - now,
                        ply,
                        mover,
                        f"move {ply} {text}: {name} threw away a forced {kept} (proven){better}",
                    )
                )
            continue  # a proven loss was lost whatever the move; a kept result is no swing
        if was - now <= NOTICEABLE:
            continue
        best, best_chance = before.verdict.best, before.verdict.best_chance
        nothing_better = (
            best is None
            or best == text
            or (best_chance is not None and best_chance <= now + NOTICEABLE)
        )
        if nothing_better:
            if after.verdict.proven and now == 0.0:
                found.append(
                    (
                        was,
                        ply,
                        mover,
                        f"move {ply} {text}: {name}'s position was already lost: no move "
                        f"found was better (estimated {was:.0%} before, lost after it, proven)",
                    )
                )
            continue  # the best move found: the drop is the estimates' own noise
        after_words = (
            f"{name}'s chances: {was:.0%} (estimated) -> {_proven_words(now)} (proven)"
            if after.verdict.proven
            else f"{name}'s chances, estimated: {was:.0%} -> {now:.0%}"
        )
        found.append(
            (was - now, ply, mover, f"move {ply} {text}: {after_words}; better was {best}")
        )
    found.sort(key=lambda swing: (-swing[0], swing[1]))
    return sorted((swing[1:] for swing in found[:SWINGS]), key=lambda named: named[0])


def _proven_words(chance: float) -> str:
    return "won" if chance == 1.0 else "lost" if chance == 0.0 else "drawn"


def _proven_from(positions: Sequence[JudgedPosition]) -> int | None:
    """The first position from which every later one is proven, with the same result."""
    last = positions[-1].verdict
    if not last.proven:
        return None
    first = None
    for ply in range(len(positions) - 1, -1, -1):
        verdict = positions[ply].verdict
        if not verdict.proven or verdict.chances != last.chances:
            break
        first = ply
    return first


# == the use cases ================================================================================


class Analyses:
    """Asking for an analysis or a hint, and reading it."""

    def __init__(self, records: Records) -> None:
        self.records = records
        self.db = records.db
        self.clock = records.clock
        self.painter = records.painter

    async def analysis(
        self, game_id: int, guild_id: int, player_id: int | None = None
    ) -> AnalysisReport:
        """The analysis of a finished game (or of one `player_id` plays against the bot
        alone): stored, or queued and under way. Refused for a game under way where
        another person holds a seat (engine help)."""
        async with self.db.write() as conn:
            row = await self.records.game_row(conn, game_id, guild_id)
            summary = await self.records.summary(conn, game_id, row)
            training = alone_with_the_bot(summary, player_id)
            if row.status == "open" or (row.status != "finished" and not training):
                if row.status == "active":
                    raise Refused(
                        "This game is under way with people in it: analysing it would be "
                        "engine help, which is cheating. Ask again when it is over.",
                        code=ServiceCode.ENGINE_HELP,
                    )
                raise Refused(
                    "Only a finished game (or one against the bot) can be analysed.",
                    code=ServiceCode.NOT_FINISHED,
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
        """The bot's suggestion for your move, in a casual game against the bot alone
        (training): None while it thinks; then the board with the move on it. Refused
        elsewhere, and where another person holds a seat (help against them)."""
        async with self.db.write() as conn:
            row = await self.records.game_row(conn, game_id, guild_id)
            summary = await self.records.summary(conn, game_id, row)
            seat = summary.seat_of(player_id)
            if row.rated or not alone_with_the_bot(summary, player_id):
                raise Refused(
                    "Hints are for your casual games against the bot alone; in any other game "
                    "they would be engine help.",
                    code=ServiceCode.NOT_AGAINST_BOT,
                )
            if row.status != "active":
                raise Refused("This game is over: ask for its analysis.", code=Code.GAME_OVER)
            if row.to_move != seat:
                raise Refused("A hint is for your own turn.", code=ServiceCode.NOT_YOUR_TURN)
            job = await aiqueue.request(conn, game_id, "hint", row.ply, self.clock())
            if job.done and not job.result:
                # the worker found the game moved on (it came back here by an undo): ask again
                await aiqueue.requeue(conn, job.id, self.clock())
            if not job.done or not job.result:
                return Hint(summary, None)
            state = await self.records.load_state(conn, row)
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
            summary = await self.records.summary(conn, game_id)
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
