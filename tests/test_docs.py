"""Docs written from code stay in step with it."""

from __future__ import annotations

from pathlib import Path

from bot.commands import COMMANDS, markdown
from bot.settings import Settings

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
