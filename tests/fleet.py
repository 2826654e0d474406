"""Real `paperboard` processes for tests and benches: started together (each says
"ready" and waits for a line), their output kept, killed when done, crashed on cue."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from tests.conftest import PATIENCE_SECONDS as PATIENCE

ROOT = Path(__file__).resolve().parents[1]


async def until(condition: Callable[[], Any], what: str, timeout: float = PATIENCE) -> None:
    async def check() -> None:
        while not await condition():
            await asyncio.sleep(0.05)

    try:
        await asyncio.wait_for(check(), timeout)
    except TimeoutError:
        raise AssertionError(f"{what} did not happen within {timeout} s") from None


#: One `paperboard` process. It imports what the command needs, says "ready" and waits for
#: a line: the test starts several at the same instant. The test's crashes, by environment:
#: PB_DIE_AFTER_MOVE=TEXT: kill -9 right after a person's move TEXT commits (before it is
#: announced); PB_DIE_SEARCHING=FILE: kill -9 in a search when FILE exists (the first
#: process to remove it dies; AI_PROCESSES=0 searches in the process itself).
CHILD = """
import os, signal, sys
import bot.cli, bot.console, bot.discordbot, bot.schedule.airunner as airunner
from bot.service.play.aiplayer import AiPlay
from bot.service import GameService

def die():
    os.kill(os.getpid(), signal.SIGKILL)

after_move = os.environ.get("PB_DIE_AFTER_MOVE")
if after_move:
    move = AiPlay.move
    async def move_then_die(self, *args, **kwargs):
        result = await move(self, *args, **kwargs)
        if args[-1] == after_move:
            die()
        return result
    AiPlay.move = move_then_die

flag = os.environ.get("PB_DIE_SEARCHING")
if flag:
    think = airunner.think
    def think_or_die(*args, **kwargs):
        try:
            os.remove(flag)
        except FileNotFoundError:
            return think(*args, **kwargs)
        die()
    airunner.think = think_or_die

print("ready", flush=True)
sys.stdin.readline()
sys.exit(bot.cli.main(sys.argv[1:]))
"""


class Child:
    """A `paperboard` process of the test's: what it printed, and its end."""

    def __init__(self, name: str, process: asyncio.subprocess.Process) -> None:
        self.name = name
        self.process = process
        self.lines: list[str] = []
        self.reading = asyncio.create_task(self._read())

    async def _read(self) -> None:
        assert self.process.stdout is not None
        async for line in self.process.stdout:
            self.lines.append(line.decode(errors="replace").rstrip())

    async def printed(self, text: str, timeout: float = PATIENCE) -> None:
        async def seen() -> bool:
            if any(text in line for line in self.lines):
                return True
            if self.process.returncode is not None and self.reading.done():
                raise AssertionError(f"{self.name} ended without printing {text!r}")
            return False

        await until(seen, f"{self.name} printing {text!r}", timeout)

    async def ended(self, timeout: float = PATIENCE) -> int:
        """Its exit code, once it has exited (its output may go on a little: a worker
        process it started holds the pipe until it notices and exits too)."""
        return await asyncio.wait_for(self.process.wait(), timeout)

    def stop(self) -> None:
        if self.process.returncode is None:
            self.process.send_signal(signal.SIGTERM)

    def output(self) -> str:
        return f"--- {self.name} (exit {self.process.returncode})\n" + "\n".join(self.lines[-40:])


class Fleet:
    """`paperboard` processes started together in `folder`; whatever is left is killed."""

    def __init__(self, folder: Path, environment: dict[str, str]) -> None:
        self.folder = folder
        self.environment = {
            **{k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "AI_"))},
            "PYTHONPATH": str(ROOT),
            "RENDER_PROCESSES": "0",
            "LOG_LEVEL": "INFO",
            **environment,
        }
        self.children: dict[str, Child] = {}

    async def start(self, commands: dict[str, tuple[list[str], dict[str, str]]]) -> float:
        """Start each named command (arguments, environment) at the same instant: when
        (time.perf_counter()) they were told to go."""
        started = []
        for name, (arguments, environment) in commands.items():
            process = await asyncio.create_subprocess_exec(
                sys.executable, "-c", CHILD, *arguments,
                cwd=self.folder, env={**self.environment, **environment},
                stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.STDOUT,
            )  # fmt: skip
            self.children[name] = child = Child(name, process)
            started.append(child)
        for child in started:
            await child.printed("ready")
        went = time.perf_counter()
        for child in started:  # go, all at once
            assert child.process.stdin is not None
            child.process.stdin.write(b"go\n")
            child.process.stdin.close()  # and the end of input: a console leaves at once
        return went

    def __getitem__(self, name: str) -> Child:
        return self.children[name]

    def failed(self) -> list[str]:
        """The processes that printed a traceback."""
        return [n for n, c in self.children.items() if any("Traceback" in x for x in c.lines)]

    def report(self) -> str:
        return "\n".join(child.output() for child in self.children.values())

    async def close(self) -> None:
        for child in self.children.values():
            if child.process.returncode is None:
                child.process.kill()
            await child.ended()
            with contextlib.suppress(TimeoutError):  # the last of its output
                await asyncio.wait_for(child.reading, PATIENCE)


@contextlib.asynccontextmanager
async def fleet_on(url: str, folder: Path, **environment: str) -> AsyncIterator[Fleet]:
    fleet = Fleet(folder, {"DATABASE_URL": url, **environment})
    try:
        yield fleet
    except BaseException:
        print(fleet.report())  # pytest shows it with the failure
        raise
    finally:
        await fleet.close()
