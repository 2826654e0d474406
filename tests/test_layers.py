"""The house's one rule: data flows one way. Checked on the source, import by import."""

from __future__ import annotations

import ast
import graphlib
import inspect
import sys
import typing
from pathlib import Path

import pytest

from bot.service import GameService
from tests.parsed_sources import ROOT, TREES
from tests.parsed_sources import SOURCES as ALL_SOURCES


def imports(path: Path) -> set[str]:
    """Every module a file imports, as dotted names."""
    found: set[str] = set()
    for node in ast.walk(TREES[path]):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


def engine_attributes(path: Path) -> set[str]:
    """Names used as engine.<name>."""
    return {
        node.attr
        for node in ast.walk(TREES[path])
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "engine"
    }


def under(path: Path, folder: str) -> bool:
    return path.is_relative_to(ROOT / folder)


#: The adapters: each calls the service and nothing below it.
ADAPTER_FOLDERS = ("bot/console", "bot/discordbot", "bot/email", "bot/web")

#: The engine's and the bot's files, the layers.
SOURCES = [path for path in ALL_SOURCES if under(path, "engine") or under(path, "bot")]


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
    if under(path, "bot/events"):  # a pure core like the engine: no store, render, Discord
        assert all(n.startswith("bot.events") for n in ours), ours
        outside = {n.split(".")[0] for n in names} - set(sys.stdlib_module_names) - {"bot"}
        assert outside <= {"rustworkx"}, f"events import only the standard library: {outside}"
    if not under(path, "bot/discordbot"):
        assert not {n for n in names if n.split(".")[0] == "discord"}, (
            "only the Discord adapter imports discord"
        )
    if not under(path, "bot/email"):
        mail = {n.split(".")[0] for n in names} & {"aiosmtplib", "aiosmtpd", "aioimaplib"}
        assert not mail, "only the mail adapter speaks SMTP and IMAP"
    if not under(path, "bot/web"):
        web = {n.split(".")[0] for n in names} & {"jinja2"}
        assert not web, "only the web adapter renders templates"
    if any(under(path, adapter) for adapter in ADAPTER_FOLDERS):
        below = {n for n in ours if n.startswith(("bot.store", "bot.render", "engine."))}
        assert not below, f"adapters call the service, not {below}"
        assert engine_attributes(path) <= {"GAMES"}, "adapters read only the registry of the engine"


ADAPTERS = [path for path in SOURCES if any(under(path, folder) for folder in ADAPTER_FOLDERS)]


def service_calls(tree: ast.AST) -> set[str]:
    """Names called on the service's families: `service.play.move(...)`,
    `self.service.lookups.x(...)`, `bot.service.events.x`."""

    def is_service(node: ast.expr) -> bool:
        return (isinstance(node, ast.Name) and node.id == "service") or (
            isinstance(node, ast.Attribute) and node.attr == "service"
        )

    def is_family(node: ast.expr) -> bool:
        return isinstance(node, ast.Attribute) and is_service(node.value)

    return {
        node.func.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and is_family(node.func.value)
    } | {  # getattr(service.x, "y"): a name the test cannot see counts as a call of anything
        "getattr"
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "getattr"
        and node.args
        and (is_service(node.args[0]) or is_family(node.args[0]))
    }


def engine_returning_methods() -> set[str]:
    """The families' methods that hand out engine objects (a GameState, ...)."""

    def of_engine(hint: object) -> bool:
        module = getattr(hint, "__module__", "") or ""
        return module.split(".")[0] == "engine" or any(
            of_engine(arg) for arg in typing.get_args(hint)
        )

    found = set()
    for family in typing.get_type_hints(GameService).values():
        for name, method in inspect.getmembers(family, inspect.isfunction):
            hints = typing.get_type_hints(method)
            if of_engine(hints.get("return")):
                found.add(name)
    return found


@pytest.mark.parametrize("path", ADAPTERS, ids=lambda p: str(p.relative_to(ROOT)))
def test_adapters_touch_no_engine_objects(path: Path) -> None:
    """Adapters get sentences, summaries and move hints from the service, never engine
    states; of the engine itself they read only the registry (for menus)."""
    tree = TREES[path]
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
        "self.service.lookups.state(1, 2)\nbot.service.play.move(1)\nservice.lookups.board(1)\n"
        "getattr(bot.service.challenges, action)(1)\nother.lookups.state(1)"
    )
    assert service_calls(tree) == {"state", "move", "board", "getattr"}


# -- the shape of bot/: no private names across modules, no import circle ---------------------
#
# What counts: every import a module runs (at module level or inside a function: a
# deferred import is how a circle hides) is a runtime edge. Imports under `if
# TYPE_CHECKING:` never run, so they cannot leave a module half-initialised; they are
# edges of the type graph, which must be acyclic too (a circle there is still two modules
# that each need the other to be understood): the Discord adapter too reads top-down, the
# bot class (client.py) at the top. `from package import submodule` is an edge to the
# submodule; the implicit import of a package's __init__ by its submodules is no edge
# (an __init__ only re-exports what lies below it).

MODULES = {
    ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__"): path
    for path in SOURCES
}
#: Private names of the standard library that are its documented API.
PUBLIC_UNDERSCORES = {"os._exit"}


def private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def type_only(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def import_nodes(tree: ast.AST) -> list[tuple[ast.Import | ast.ImportFrom, bool]]:
    """Every import statement with whether it is type-only (under `if TYPE_CHECKING:`)."""
    found: list[tuple[ast.Import | ast.ImportFrom, bool]] = []

    def visit(node: ast.AST, typing_only: bool) -> None:
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.append((node, typing_only))
        if isinstance(node, ast.If) and type_only(node):
            for child in node.body:
                visit(child, True)
            for child in node.orelse:
                visit(child, typing_only)
            return
        for child in ast.iter_child_nodes(node):
            visit(child, typing_only)

    visit(tree, False)
    return found


def edges(module: str, *, with_types: bool) -> set[str]:
    """The project modules `module` imports."""
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    targets: set[str] = set()
    for node, typing_only in import_nodes(TREES[path]):
        if typing_only and not with_types:
            continue
        if isinstance(node, ast.Import):
            targets.update(alias.name for alias in node.names)
            continue
        base = node.module or ""
        if node.level:  # relative: from the package, one level up per extra dot
            parent = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
            base = f"{parent}.{base}" if base else parent
        for alias in node.names:
            submodule = f"{base}.{alias.name}"
            targets.add(submodule if submodule in MODULES else base)
    return {target for target in targets if target in MODULES and target != module}


def cycle(graph: dict[str, set[str]]) -> list[str] | None:
    try:
        graphlib.TopologicalSorter(graph).prepare()
    except graphlib.CycleError as error:
        found: list[str] = error.args[1]
        return found
    return None


def test_runtime_imports_are_acyclic() -> None:
    graph = {module: edges(module, with_types=False) for module in MODULES}
    assert cycle(graph) is None, f"import circle: {' -> '.join(cycle(graph) or ())}"


def test_type_imports_are_acyclic() -> None:
    graph = {module: edges(module, with_types=True) for module in MODULES}
    assert cycle(graph) is None, f"import circle: {' -> '.join(cycle(graph) or ())}"


def test_the_cycle_check_sees_a_circle() -> None:
    assert cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) is not None
    assert cycle({"a": {"b"}, "b": set()}) is None
    tree = ast.parse("if TYPE_CHECKING:\n    import x\nelse:\n    import y\ndef f():\n    import z")
    assert [(n.names[0].name, t) for n, t in import_nodes(tree)] == [
        ("x", True),
        ("y", False),
        ("z", False),
    ]


@pytest.mark.parametrize(
    "path", [p for p in SOURCES if under(p, "bot")], ids=lambda p: str(p.relative_to(ROOT))
)
def test_no_module_uses_another_modules_private_names(path: Path) -> None:
    """`from x import _y` and `x._y` (but `self._y`, `cls._y`) reach into another module's
    insides: a helper two modules share has a public name in one of them."""
    tree = TREES[path]
    imported = [
        f"{node.module}.{alias.name}"
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
        if private(alias.name) or any(private(part) for part in (node.module or "").split("."))
    ]
    imported += [
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
        if any(private(part) for part in alias.name.split("."))
    ]
    assert not imported, f"private names imported: {imported}"
    reached = [
        f"{ast.unparse(node.value)}.{node.attr}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and private(node.attr)
        and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))
    ]
    assert set(reached) <= PUBLIC_UNDERSCORES, f"private attributes of others: {reached}"


def test_no_name_is_kept_under_a_private_alias_for_the_tests() -> None:
    """A module of bot/ imports no project name as a private alias (`import x as _y`, the
    shape of a name kept only so a test can reach it), and no test imports a private name
    of bot/: a test imports a helper from the module that defines it, by its own name."""
    aliased = [
        f"{path.relative_to(ROOT)}: {alias.name} as {alias.asname}"
        for path in SOURCES
        if under(path, "bot")
        for node in ast.walk(TREES[path])
        if isinstance(node, ast.ImportFrom) and node.module and project({node.module})
        for alias in node.names
        if alias.asname and private(alias.asname)
    ]
    assert not aliased, aliased
    tests = sorted((ROOT / "tests").glob("test_*.py"))
    reached = [
        f"{path.name}: {node.module}.{alias.name}"
        for path in tests
        for node in ast.walk(TREES[path])
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("bot")
        for alias in node.names
        if private(alias.name)
    ]
    assert not reached, reached
