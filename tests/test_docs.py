"""Docs written from code stay in step with it."""

from __future__ import annotations

import asyncio
import io
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import discord
import pytest
import sqlalchemy as sa

from bot.commands import COMMANDS
from bot.commands.page import markdown
from bot.console import Console
from bot.console.console import player_id
from bot.console.session import CHANNEL, GUILD
from bot.discordbot import aicog, errors
from bot.service import GameService, Place, Player, Refused
from bot.settings import Settings
from bot.store.schema import outbox
from tests.aiplaykit import ai_world, playing_the_bot
from tests.conftest import Clock
from tests.discordkit import World
from tests.doc_examples import (
    PROMPT,
    Example,
    Table,
    context_of,
    readme_blocks,
    readme_console_examples,
    readme_sequence,
    readme_slash_examples,
    registry_examples,
    slash_parts,
)
from tests.fakediscord import FakeDiscord
from tests.fakediscord.fixtures import fake_discord_fixture  # noqa: F401  (the fixture)

ROOT = Path(__file__).resolve().parents[1]


def test_commands_page_is_current() -> None:
    written = (ROOT / "docs" / "COMMANDS.md").read_text()
    assert written == markdown(), "run: .venv/bin/python -m bot.commands > docs/COMMANDS.md"


def test_every_command_has_an_example() -> None:
    for command in COMMANDS:
        assert command.discord or command.console or command.buttons, command.name


def test_env_example_documents_every_setting() -> None:
    example = (ROOT / ".env.example").read_text()
    for name in Settings.model_fields:
        assert f"\n{name.upper()}=" in example, f"{name.upper()} is missing from .env.example"


def test_the_readme_names_the_variables_the_tests_read() -> None:
    """PAPERBOARD_TEST_POSTGRES and the others a developer sets (not those a test sets for
    a run of its own, as the fresh clone's)."""
    tests = [path.read_text() for path in (ROOT / "tests").glob("*.py")]
    read = {name for text in tests for name in re.findall(r'environ\.get\(\s*"(\w+)"', text)}
    # set by a test for a process it starts: env["X"] = ..., {"X": ...}, f(X=...)
    setting = r'\["([A-Z]\w+)"\]\s*=|"([A-Z][A-Z0-9_]+)":|\b([A-Z][A-Z0-9_]+)='
    set_here = {name for text in tests for found in re.findall(setting, text) for name in found}
    readme = (ROOT / "README.md").read_text()
    assert "PAPERBOARD_TEST_POSTGRES" in read
    assert sorted(name for name in read - set_here if name not in readme) == []


# -- every example the docs show is accepted ------------------------------------------------


class WatchedConsole(Console):
    """The console, keeping each refusal with the line that was refused."""

    def __init__(self, service: GameService, out: io.StringIO, board_dir: Path) -> None:
        super().__init__(service, out, board_dir)
        self.line = ""
        self.refusals: list[str] = []

    async def handle(self, line: str) -> bool:
        self.line = line
        return await super().handle(line)

    def refused(self, refusal: Refused) -> None:
        self.refusals.append(f"{self.line!r} was refused: {refusal}")
        super().refused(refusal)

    async def read_line(self, prompt: str | None) -> str | None:
        """At a terminal the bot's move comes while the player may type; the README's
        session shows a player who waits for it, printed, before typing the next line."""
        if self.interactive:
            async with asyncio.timeout(120):
                while await self.bot_still_moving():
                    await asyncio.sleep(0.05)
        return await super().read_line(prompt)

    async def bot_still_moving(self) -> bool:
        """The bot is to move, or its move is committed but not yet printed (its
        announcement still undelivered)."""
        if any(
            g.to_move is not None and g.seats[g.to_move].bot is not None
            for g in await self.service.lookups.games(GUILD, status="active")
        ):
            return True
        async with self.service.records.db.read() as conn:
            undelivered = sa.select(outbox.c.id).where(outbox.c.delivered_at.is_(None))
            return (await conn.execute(undelivered.limit(1))).first() is not None


def echoed(lines: list[str], out: io.StringIO) -> Iterator[str]:
    """The lines as typed at a terminal, which shows them after the prompt."""
    for line in lines:
        out.write(line + "\n")
        yield line


async def typed(
    service: GameService, lines: list[str], *, interactive: bool = False
) -> tuple[list[str], list[str]]:
    """What the console prints for `lines` (boards saved under ./boards, as `make run`
    does) and what it refused. Fails on "Something went wrong"."""
    out = io.StringIO()
    async with playing_the_bot(WatchedConsole(service, out, Path("boards"))) as console:
        assert isinstance(console, WatchedConsole)
        await console.run(echoed(lines, out) if interactive else lines, interactive=interactive)
    text = out.getvalue()
    said = text.splitlines()
    if not text.endswith("\n"):
        said.pop()  # the prompt that met the end of input
    assert not [line for line in said if "Something went wrong" in line], said
    return said, console.refusals


def console_table(service: GameService) -> Table:
    return Table(service, Place(GUILD, CHANNEL), lambda name: Player(player_id(name), name))


def pytest_id(example: object) -> str:
    return str(example)


SQLITE = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)


@SQLITE
@pytest.mark.parametrize(
    "example", [*registry_examples("console"), *readme_console_examples()], ids=pytest_id
)
async def test_every_console_example_is_accepted(
    service: GameService, example: Example, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    context = context_of(example)
    if context.build is not None:
        await context.build(console_table(service), example)
    _, refusals = await typed(service, [f"as {context.me}", example.text, *context.answers])
    assert not refusals, f"{example}: {refusals}"


BEFORE, NEXT = readme_sequence()


@SQLITE
@pytest.mark.parametrize("example", NEXT, ids=pytest_id)
async def test_the_readmes_console_examples_agree_with_the_lines_before_them(
    service: GameService, example: Example, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Typed after the README's session and its piped example, in the same store, as
    the text goes on, each following example is accepted."""
    monkeypatch.chdir(tmp_path)
    _, refusals = await typed(service, [*BEFORE, example.text])
    assert not refusals, f"{example}, after {BEFORE}: {refusals}"


def session(block: str) -> list[tuple[str, list[str]]]:
    """A README console session: each prompt line ("player> c3") with the lines the
    console printed after it."""
    chunks: list[tuple[str, list[str]]] = []
    for line in block.splitlines():
        if PROMPT.match(line):
            chunks.append((line.rstrip(), []))
        elif chunks:
            chunks[-1][1].append(line.rstrip())
    return chunks


#: A line that names the bot's move: the move depends on its search, so any move matches.
BOT_CHOICE = re.compile(r"Paperboard|The bot")
MOVE_WORD = re.compile(r"\b[a-z]{1,2}\d{1,2}\b")


def matches(shown: str, printed: str) -> bool:
    if not BOT_CHOICE.search(shown):
        return shown == printed
    pattern = MOVE_WORD.pattern.join(re.escape(part) for part in MOVE_WORD.split(shown))
    return re.fullmatch(pattern, printed) is not None


def first_not_printed(shown: list[str], printed: list[str]) -> str | None:
    """The first of the README's lines the console did not print in that order (it may
    print more lines between them: the README leaves the boards out)."""
    rest = iter(printed)
    return next((line for line in shown if not any(matches(line, out) for out in rest)), None)


@SQLITE
@pytest.mark.parametrize(
    "block", readme_blocks(), ids=lambda block: "README.md: " + block.splitlines()[0]
)
async def test_every_console_block_of_the_readme_runs_as_shown(
    service: GameService, block: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A session (prompt lines) prints what the README shows after each line; a list of
    commands (each line a command, then a note after two spaces) is accepted."""
    monkeypatch.chdir(tmp_path)
    chunks = session(block)
    if not chunks:
        commands = [re.split(r"\s{2,}", line.strip())[0] for line in block.splitlines()]
        _, refusals = await typed(service, [c for c in commands if c])
        assert not refusals, f"README.md: {refusals}"
        return
    lines = [PROMPT.match(prompt)["line"] for prompt, _ in chunks]  # type: ignore[index]
    said, refusals = await typed(service, lines, interactive=True)
    assert not refusals, f"README.md: {refusals}"
    printed = session("\n".join(said))
    assert [p for p, _ in printed] == [p for p, _ in chunks], f"README.md: the prompts: {said}"
    for (prompt, shown), (_, out) in zip(chunks, printed, strict=True):
        missing = first_not_printed(shown, out)
        assert missing is None, f"README.md, after {prompt!r}: {missing!r} is not printed: {out}"


# -- the Discord examples against the commands the bot registers -----------------------------

#: Discord's option types the examples use besides text: integer, boolean, user.
INTEGER, BOOLEAN, USER = 4, 5, 6


def option_value(world: World, option: dict[str, Any], text: str) -> object:
    """What a player picks in Discord's form for `text`: a user for @name, a number..."""
    kind = option["type"]
    if kind == USER:
        assert text.startswith("@"), f"{option['name']}: a user is written @name, not {text!r}"
        name = text[1:]
        people = {**world.users, world.fake.bot.username: world.fake.bot}
        return people.get(name) or world.fake.create_user(name)
    if kind == INTEGER:
        return int(text)
    if kind == BOOLEAN:
        assert text in ("true", "false"), f"{option['name']}: Discord shows true or false"
        return text == "true"
    return text


def slash_options(
    world: World, registered: list[dict[str, Any]], example: Example
) -> tuple[str, dict[str, object]]:
    """The example's command and its options as values of the registered types; fails
    naming the example on a command, parameter or choice the bot does not register."""
    try:
        name, params = slash_parts(example.text)
    except AssertionError as error:
        raise AssertionError(f"{example.source}: {error}") from None
    group, _, sub = name.partition(" ")
    command = next((c for c in registered if c["name"] == group), None)
    if command is not None and sub:  # a subcommand: its options are the group's option's
        command = next((o for o in command.get("options", []) if o["name"] == sub), None)
    assert command is not None, f"{example}: the bot registers no /{name}"
    options = {o["name"]: o for o in command.get("options", [])}
    values: dict[str, object] = {}
    for param, text in params.items():
        assert param in options, f"{example}: /{name} has no parameter {param}: {list(options)}"
        option = options[param]
        choices = [c["value"] for c in option.get("choices", [])]
        assert not choices or text in choices, f"{example}: {param} is one of {choices}"
        values[param] = option_value(world, option, text)
    needed = [o["name"] for o in options.values() if o.get("required") and o["name"] not in params]
    assert not needed or example.text == f"/{name}", f"{example}: /{name} needs {needed}"
    return name, values


DISCORD_EXAMPLES = registry_examples("discord")


@SQLITE
async def test_every_discord_example_names_registered_commands_parameters_and_choices(
    fake_discord: FakeDiscord, database_url: str, clock: Clock
) -> None:
    """Each `discord=` example of the registry and each `/command` README.md shows."""
    examples = [*DISCORD_EXAMPLES, *readme_slash_examples()]
    async with ai_world(fake_discord, database_url, clock) as world, world.running():
        registered = world.fake.commands(world.guild)
        wrong = []
        for example in examples:
            try:
                slash_options(world, registered, example)
            except AssertionError as error:
                wrong.append(str(error).splitlines()[0])
    assert not wrong, wrong


def watch_refusals(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every refusal or failure the bot answers an interaction with, kept."""
    answered = errors.report_error
    kept: list[str] = []

    async def keeping(interaction: discord.Interaction, error: BaseException) -> None:
        kept.append(str(getattr(error, "original", error)))
        await answered(interaction, error)

    for name, module in list(sys.modules.items()):
        if name.startswith("bot.discordbot") and getattr(module, "report_error", None) is answered:
            monkeypatch.setattr(module, "report_error", keeping)
    return kept


async def commands_done() -> None:
    """Wait for the slash commands under way to end (an answer may come before the rest of
    the command's work); discord.py runs each in a task of this name."""
    for _ in range(6000):  # a minute at most
        running = [t for t in asyncio.all_tasks() if t.get_name() == "CommandTree-invoker"]
        if all(task.done() for task in running):
            return
        await asyncio.sleep(0.01)
    raise AssertionError("a slash command never ended")


@SQLITE
@pytest.mark.parametrize("example", DISCORD_EXAMPLES, ids=pytest_id)
async def test_every_discord_example_of_the_registry_is_accepted(
    fake_discord: FakeDiscord,
    database_url: str,
    clock: Clock,
    example: Example,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Typed in the games channel, after what the example needs (the same as the console's)."""
    refusals = watch_refusals(monkeypatch)
    monkeypatch.setattr(aicog, "PROGRESS_SECONDS", 0.05)  # how often /analysis looks
    context = context_of(example)
    async with ai_world(fake_discord, database_url, clock) as world:
        people = {**world.users, "owner": world.fake.owner}

        def player(name: str) -> Player:  # the padding challenger has no Discord account
            return Player(people[name].id if name in people else player_id(name), name)

        if context.build is not None:
            await context.build(
                Table(world.service, Place(world.guild.id, world.channel.id), player), example
            )
        async with world.running():
            name, options = slash_options(world, world.fake.commands(world.guild), example)
            handle = await world.fake.slash(
                people[context.me], name, options, channel=world.channel
            )
            answer = await handle.reply()
            await commands_done()
    assert not refusals, f"{example}: {refusals}"
    assert errors.SORRY not in answer.content, example
