"""The house's one rule: data flows one way. Checked on the source, import by import."""

from __future__ import annotations

import ast
import inspect
import typing
from pathlib import Path

import pytest

from bot.service import GameService

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


ADAPTERS = [path for path in SOURCES if under(path, "bot/console") or under(path, "bot/discordbot")]


def service_calls(tree: ast.AST) -> set[str]:
    """Names called on the service: `service.x(...)`, `self.service.x(...)`, `bot.service.x`."""

    def is_service(node: ast.expr) -> bool:
        return (isinstance(node, ast.Name) and node.id == "service") or (
            isinstance(node, ast.Attribute) and node.attr == "service"
        )

    return {
        node.func.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and is_service(node.func.value)
    } | {  # getattr(service, "x"): a name the test cannot see counts as a call of anything
        "getattr"
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "getattr"
        and node.args
        and is_service(node.args[0])
    }


def engine_returning_methods() -> set[str]:
    """GameService's methods that hand out engine objects (a GameState, ...)."""

    def of_engine(hint: object) -> bool:
        module = getattr(hint, "__module__", "") or ""
        return module.split(".")[0] == "engine" or any(
            of_engine(arg) for arg in typing.get_args(hint)
        )

    found = set()
    for name, method in inspect.getmembers(GameService, inspect.isfunction):
        hints = typing.get_type_hints(method)
        if of_engine(hints.get("return")):
            found.add(name)
    return found


@pytest.mark.parametrize("path", ADAPTERS, ids=lambda p: str(p.relative_to(ROOT)))
def test_adapters_touch_no_engine_objects(path: Path) -> None:
    """Adapters get sentences, summaries and move hints from the service, never engine
    states; of the engine itself they read only the registry (for menus)."""
    tree = ast.parse(path.read_text())
    forbidden = engine_returning_methods()
    assert "state" in forbidden  # the check sees what it is meant to refuse
    called = service_calls(tree)
    assert "getattr" not in called, "adapters call the service by name, not getattr"
    assert not called & forbidden, f"{called & forbidden} hand out engine objects"
    from_engine = {
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module == "engine"
        for alias in node.names
    }
    assert from_engine <= {"GAMES"}, f"adapters read only the registry, not {from_engine}"


def test_the_service_check_sees_every_way_of_calling() -> None:
    tree = ast.parse(
        "self.service.state(1, 2)\nbot.service.move(1)\nservice.board(1)\n"
        "getattr(bot.service, action)(1)\nother.state(1)"
    )
    assert service_calls(tree) == {"state", "move", "board", "getattr"}


def test_the_discord_adapter_reads_top_down() -> None:
    """No import circle inside bot/discordbot, counting imports made only for type checking:
    the bot class (client.py) imports the cog, the views and the announcer, and none of
    them imports it back."""
    package = ROOT / "bot" / "discordbot"
    modules = {
        ".".join(path.relative_to(ROOT).with_suffix("").parts): path
        for path in package.glob("*.py")
        if path.name != "__init__.py"
    }
    graph = {name: imports(path) & modules.keys() for name, path in modules.items()}
    assert cycle(graph) is None, f"import circle: {' -> '.join(cycle(graph) or [])}"


def cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle of `graph` (module -> modules it imports), or None."""
    done: set[str] = set()

    def visit(name: str, path: list[str]) -> list[str] | None:
        if name in path:
            return [*path[path.index(name) :], name]
        if name in done:
            return None
        for imported in sorted(graph.get(name, ())):
            found = visit(imported, [*path, name])
            if found:
                return found
        done.add(name)
        return None

    return next((found for name in sorted(graph) if (found := visit(name, []))), None)


def test_cycle_finds_a_circle_and_only_a_circle() -> None:
    assert cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None
    assert cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
