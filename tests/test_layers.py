"""The house's one rule: data flows one way. Checked on the source, import by import."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCES = sorted(path for folder in ("engine", "bot") for path in (ROOT / folder).rglob("*.py"))


def imports(path: Path) -> set[str]:
    """Every module a file imports, as dotted names."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


def engine_attributes(path: Path) -> set[str]:
    """Names used as engine.<name>."""
    return {
        node.attr
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "engine"
    }


def under(path: Path, folder: str) -> bool:
    return path.is_relative_to(ROOT / folder)


def project(names: set[str]) -> set[str]:
    return {n for n in names if n.split(".")[0] in ("engine", "bot")}


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_imports_flow_one_way(path: Path) -> None:
    names = imports(path)
    ours = project(names)
    if under(path, "engine"):
        assert not {n for n in ours if n.startswith("bot")}, "the engine imports nothing of bot/"
        assert not {n.split(".")[0] for n in names} & {"PIL", "sqlalchemy", "discord", "aiosqlite"}
    if under(path, "bot/render"):
        assert all(n.startswith(("engine", "bot.render")) for n in ours), ours
    if not under(path, "bot/discordbot"):
        assert not {n for n in names if n.split(".")[0] == "discord"}, (
            "only the Discord adapter imports discord"
        )
    if under(path, "bot/console") or under(path, "bot/discordbot"):
        below = {n for n in ours if n.startswith(("bot.store", "bot.render", "engine."))}
        assert not below, f"adapters call the service, not {below}"
        assert engine_attributes(path) <= {"GAMES"}, "adapters read only the registry of the engine"
