"""The console's room for the bot's help (an analysis, a hint), and the wait for the bot's
work that piped input needs: its moves (console.py), a hint, an analysis."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from functools import partial
from typing import TypeVar

from bot.console.numbers import game_id
from bot.console.session import GUILD, Handler, Session
from bot.service import Refused, ServiceCode

#: How long a line waits for the bot (its move, for piped input; a hint; an analysis).
BOT_WAIT_SECONDS = 600.0
AI_POLL_SECONDS = 0.2  # how often a wait for the bot looks whether it is done
PROGRESS_SECONDS = 3.0  # how often an analysis under way says how far it got

T = TypeVar("T")


async def ai_work(
    console: Session, ask: Callable[[], Awaitable[T]], ready: Callable[[T], bool]
) -> T:
    """Ask again until the answer is ready (the bot has moved, a hint or an analysis is
    done), letting the AI runner take what is queued meanwhile (its searches run in
    worker processes; at a terminal its own loop may have taken the job already).
    The last answer, ready or not, after BOT_WAIT_SECONDS."""
    runner = console.runner
    if runner is None:
        raise Refused("Nobody plays the bot in this console.", code=ServiceCode.BUSY)
    deadline = asyncio.get_running_loop().time() + BOT_WAIT_SECONDS
    answer = await ask()
    while not ready(answer) and asyncio.get_running_loop().time() < deadline:
        if not await runner.run_once():
            await asyncio.sleep(AI_POLL_SECONDS)  # another loop or process holds the job
        answer = await ask()
    return answer


async def analysis(console: Session, words: list[str], _: str) -> None:
    game = await game_id(console, words, any_status=True)
    ask = partial(console.service.analysis.analysis, game, GUILD, console.me.id)
    working = asyncio.create_task(ai_work(console, ask, lambda found: found.done))
    while not working.done():
        await asyncio.wait({working}, timeout=PROGRESS_SECONDS)
        if not working.done():
            progress = await ask()
            console.say(f"analysing move {progress.progress}/{progress.total}")
    report = await working
    if not report.done:
        raise Refused("The analysis is queued; ask again in a while.", code=ServiceCode.BUSY)
    path = console.save(f"game-{game}-analysis.png", report.png)
    console.say(f"Analysis of {report.game.title} #{game}:\n{report.text}\nChart: {path}")


async def hint(console: Session, words: list[str], _: str) -> None:
    game = await game_id(console, words)
    found = await ai_work(
        console,
        partial(console.service.analysis.hint, game, GUILD, console.me.id),
        lambda hint: hint.move is not None,
    )
    if found.move is None:
        raise Refused("The bot is busy; ask for the hint again in a while.", code=ServiceCode.BUSY)
    path = console.save(f"game-{game}-hint.png", found.png)
    console.say(f"The bot would play {found.move}. Board: {path}")


HANDLERS: dict[str, Handler] = {"analysis": analysis, "hint": hint}
