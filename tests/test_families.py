"""The service's families each keep their own state and use another family only through
its public door: no family reads or writes another's private attributes, none assigns
another's attributes, and no two families share a mutable container."""

from __future__ import annotations

import ast
import inspect
import typing
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.service import GameService
from bot.service.core.records import Records

FAMILIES = typing.get_type_hints(GameService)
#: The classes a family is built from: its own, and those it extends within its family.
CLASSES = {
    cls
    for family in FAMILIES.values()
    for cls in family.__mro__
    if cls.__module__.startswith("bot.service.")
}
#: What a family may be built with besides the records: the collaborators of the core and
#: of the events, and other families.
COLLABORATORS = {
    "Records",
    "Host",
    "Turns",
    "EventStore",
    "EventRounds",
    *(f.__name__ for f in FAMILIES.values()),
}


def reaches(tree: ast.AST) -> Iterator[str]:
    """Every place where code reaches into another object's state through `self`:
    `self.other._private` read or called, and `self.other.attribute = ...` assigned."""
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and node.attr.startswith("_")
            and not node.attr.startswith("__")
            and isinstance(node.value, ast.Attribute)
            and isinstance(node.value.value, ast.Name)
            and node.value.value.id == "self"
        ):
            yield f"self.{node.value.attr}.{node.attr} (line {node.lineno})"
        targets = (
            node.targets
            if isinstance(node, ast.Assign)
            else [node.target]
            if isinstance(node, ast.AugAssign | ast.AnnAssign)
            else []
        )
        for target in targets:
            if (
                isinstance(target, ast.Attribute)
                and isinstance(target.value, ast.Attribute)
                and isinstance(target.value.value, ast.Name)
                and target.value.value.id == "self"
            ):
                yield f"self.{target.value.attr}.{target.attr} = ... (line {target.lineno})"


@pytest.mark.parametrize("cls", sorted(CLASSES, key=lambda c: c.__name__), ids=lambda c: c.__name__)
def test_a_family_uses_another_only_through_its_door(cls: type) -> None:
    tree = ast.parse(Path(inspect.getfile(cls)).read_text())
    [node] = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls.__name__]
    assert not list(reaches(node)), f"{cls.__name__} reaches into another object's state"


@pytest.mark.parametrize("cls", sorted(CLASSES, key=lambda c: c.__name__), ids=lambda c: c.__name__)
def test_a_family_is_built_with_what_it_uses(cls: type) -> None:
    """Its constructor names its collaborators: the records and other families, nothing
    that is all of them (no family is handed the GameService)."""
    if "__init__" not in vars(cls) or cls is Records:
        return  # built as the class it extends; the records are built from the database
    hints = typing.get_type_hints(cls.__init__)
    hints.pop("return", None)
    names = {getattr(hint, "__name__", str(hint)) for hint in hints.values()}
    assert names and names <= COLLABORATORS, f"{cls.__name__} is built with {names - COLLABORATORS}"


def test_the_check_sees_a_reach_into_another_familys_state() -> None:
    tree = ast.parse(
        "class Prefs:\n"
        "    def f(self):\n"
        "        self.web._web_places.clear()\n"
        "        self.records.pages = 1\n"
        "        self.records.summary()\n"
    )
    assert sorted(line.split(" ")[0] for line in reaches(tree)) == [
        "self.records.pages",
        "self.web._web_places",
    ]


def test_no_two_families_share_a_mutable_container(service: GameService) -> None:
    """Each cache lives in one family (the records' caches are the core's, shared by
    design: every family reads games through them)."""
    owners: dict[int, str] = {}
    for name in FAMILIES:
        family = getattr(service, name)
        if isinstance(family, Records):
            continue
        for attribute, value in vars(family).items():
            if isinstance(value, dict | list | set) or hasattr(value, "forget"):
                where = f"{name}.{attribute}"
                assert id(value) not in owners, f"{where} is {owners[id(value)]} too"
                owners[id(value)] = where
    assert "web._web_places" in owners.values()  # the check sees the pages' caches
