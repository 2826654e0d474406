"""One error vocabulary: the same refusal has the same `Code` in every game, a game that
cannot start raises one typed error, code compares against `Code` members, and the
source cites the project's own docs."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import pytest

import engine
from bot.service import ServiceCode
from engine import NOT_A_MOVE, BadOptions, Code, IllegalMove
from tests.parsed_sources import ROOT, SOURCES, TREES
from tests.test_conformance import IDS, OPTION_SETS

#: What players chat in a game's thread, none of it a move in any game.
CHAT = ["hello there", "gg", "pass", "lol 123", "PASS", "pass the salt", "ok!"]


def refusal(state: engine.GameState, text: str) -> IllegalMove:
    with pytest.raises(IllegalMove) as caught:
        state.play(text)
    return caught.value


def off_board(state: engine.GameState) -> str:
    """A legal move moved off every board: each of its row numbers made 999."""
    move = next(m for m in state.legal_moves() if re.search(r"\d", m))
    return re.sub(r"\d+", "999", move)


def test_every_registered_game_is_checked() -> None:
    assert {name for name, _ in OPTION_SETS} == set(engine.GAMES)


@pytest.mark.parametrize(("name", "options"), OPTION_SETS, ids=IDS)
def test_chat_is_not_a_move_and_a_typed_pass_has_one_code(
    name: str, options: dict[str, Any]
) -> None:
    state = engine.new(name, **options)
    for text in CHAT:
        assert refusal(state, text).code in NOT_A_MOVE, text
    assert refusal(state, "pass").code == Code.NO_PASS
    assert "pass" in str(refusal(state, "pass"))


@pytest.mark.parametrize(("name", "options"), OPTION_SETS, ids=IDS)
def test_a_real_move_off_the_board_has_one_code_and_is_answered(
    name: str, options: dict[str, Any]
) -> None:
    state = engine.new(name, **options)
    refused = refusal(state, off_board(state))
    assert refused.code == Code.OFF_BOARD and refused.code not in NOT_A_MOVE
    assert "999" in str(refused)


def test_same_meaning_same_code_across_games() -> None:
    """One point where a line needs two, a line from a point to itself, a line of a shape
    the game never draws, a line along another. (Another player's piece, `NOT_YOURS`, is
    in test_livewire and test_shortcircuit.)"""
    assert refusal(engine.new("hotwire"), "c3 c3").code == Code.SAME_POINT
    assert refusal(engine.new("intersections"), "b2 b2").code == Code.SAME_POINT
    assert refusal(engine.new("hotwire", size="5x5"), "a1").code == Code.SYNTAX
    assert refusal(engine.new("intersections"), "b2").code == Code.SYNTAX
    assert refusal(engine.new("livewire"), "a8").code == Code.SYNTAX
    assert refusal(engine.new("intersections"), "b2 c3").code == Code.BAD_LINE
    assert refusal(engine.new("livewire"), "a8 d9").code == Code.BAD_LINE
    drawn = engine.new("intersections").play("b2 b5")
    assert refusal(drawn, "b3 b4").code == Code.OVERLAP


# -- a game that cannot start ----------------------------------------------------------------

#: Values no option of any game takes.
BAD_VALUES: list[object] = ["zzz", -5, 10**30, 2.5, [1], {}, "", "\x00"]


def bad_starts() -> list[tuple[str, dict[str, Any], Code]]:
    starts: list[tuple[str, dict[str, Any], Code]] = [
        ("chess", {}, Code.UNKNOWN_GAME),
        ("hotwire", {"size": "26x26", "lengths": "any"}, Code.BAD_OPTION),  # too many wires
        ("intersections", {"players": 3, "segments": 4}, Code.BAD_OPTION),  # not a multiple
        ("intersections", {"players": 3, "rounds": 4}, Code.BAD_OPTION),
        ("intersections", {"players": 8, "size": 2}, Code.BAD_OPTION),  # too small
    ]
    for name, info in engine.GAMES.items():
        starts.append((name, {"colour": "red"}, Code.BAD_OPTION))
        starts.append((name, {"players": info.max_players + 1}, Code.PLAYER_COUNT))
        starts.append((name, {"players": "many"}, Code.PLAYER_COUNT))
        for key in info.options:
            starts.extend((name, {key: value}, Code.BAD_OPTION) for value in BAD_VALUES)
    return starts


@pytest.mark.parametrize(("name", "options", "code"), bad_starts(), ids=repr)
def test_every_bad_option_of_every_game_raises_bad_options_with_a_code(
    name: str, options: dict[str, Any], code: Code
) -> None:
    with pytest.raises(ValueError) as caught:
        engine.new(name, **options)
    assert type(caught.value) is BadOptions
    assert caught.value.code == code
    sentence = str(caught.value)
    assert sentence.endswith(".") and sentence[0].isupper() and len(sentence) < 400, sentence


# -- codes are compared as members, never as text ------------------------------------------

CODE_VALUES = {code.value for code in Code} | {code.value for code in ServiceCode}
ENGINE_SOURCES = [path for path in SOURCES if path.is_relative_to(ROOT / "engine")]
#: The fake Discord speaks Discord's own error codes, not ours.
OUR_CODES = [path for path in SOURCES if not path.is_relative_to(ROOT / "tests" / "fakediscord")]


def literals(node: ast.AST) -> list[ast.Constant]:
    """String literals in `node` itself or in a tuple, list, set or repetition it builds."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node]
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return [found for element in node.elts for found in literals(element)]
    if isinstance(node, ast.BinOp):
        return literals(node.left) + literals(node.right)
    return []


def mentions_code(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Attribute) and n.attr == "code" for n in ast.walk(node))


def code_literals(tree: ast.AST, helpers: dict[str, int]) -> list[ast.Constant]:
    """Literals compared with a `.code`, passed as `code=`, in a `code` parameter's
    place of a call to one of `helpers`, or in a test's "code" parameter."""
    found: list[ast.Constant] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            if any(mentions_code(operand) for operand in operands):
                found.extend(lit for operand in operands for lit in literals(operand))
        elif isinstance(node, ast.Call):
            found.extend(
                lit for kw in node.keywords if kw.arg == "code" for lit in literals(kw.value)
            )
            callee = node.func.id if isinstance(node.func, ast.Name) else None
            place = helpers.get(callee or "")
            if place is not None and place < len(node.args):
                found.extend(literals(node.args[place]))
            if isinstance(node.func, ast.Attribute) and node.func.attr == "parametrize":
                found.extend(parametrized_codes(node))
    return found


def parametrized_codes(node: ast.Call) -> list[ast.Constant]:
    names, rows = node.args[0], node.args[1]
    if isinstance(names, ast.Constant) and isinstance(names.value, str):
        columns = [name.strip() for name in names.value.split(",")]
    elif isinstance(names, ast.Tuple):
        columns = [name.value for name in names.elts if isinstance(name, ast.Constant)]
    else:
        return []
    if "code" not in columns or not isinstance(rows, ast.List):
        return []
    place = columns.index("code")
    return [
        lit
        for row in rows.elts
        if isinstance(row, ast.Tuple) and place < len(row.elts)
        for lit in literals(row.elts[place])
    ]


def code_parameters(tree: ast.AST) -> dict[str, int]:
    """Functions taking a `code`: the name and the parameter's place."""
    places: dict[str, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            names = [arg.arg for arg in node.args.args]
            if "code" in names:
                places[node.name] = names.index("code")
    return places


HELPERS = {name: place for tree in TREES.values() for name, place in code_parameters(tree).items()}


@pytest.mark.parametrize("path", OUR_CODES, ids=lambda p: str(p.relative_to(ROOT)))
def test_codes_are_compared_as_members_never_as_text(path: Path) -> None:
    wrong = [
        f"line {lit.lineno}: {lit.value!r}"
        for lit in code_literals(TREES[path], HELPERS)
        if lit.value in CODE_VALUES or lit.value.isidentifier()
    ]
    assert not wrong, f"use Code members: {wrong}"


def test_the_literal_finder_finds_what_it_looks_for() -> None:
    """The walk above can fail: each form it forbids is found."""
    sample = ast.parse(
        "def refused(state, code): ...\n"
        "raise IllegalMove('x', code='syntax')\n"
        "assert error.code == 'syntax'\n"
        "assert refusal.code in ('stale', 'busy')\n"
        "assert [r.code for r in lost] == ['game_over'] * 2\n"
        "refused(state, 'occupied')\n"
        "@pytest.mark.parametrize(('typed', 'code'), [('a1', 'syntax')])\n"
        "def test(): ...\n"
    )
    found = code_literals(sample, code_parameters(sample))
    assert sorted(lit.value for lit in found) == [
        "busy", "game_over", "occupied", "stale", "syntax", "syntax", "syntax",
    ]  # fmt: skip


# -- the docs the source cites ------------------------------------------------------------

#: A game's rules page: docs/RULES.md links its own, inside; any other is outside.
RULES_PAGE = re.compile(r"(?<![\w/])rules/\w+\.md")
#: A path that leaves the repository: the house's shared folder, a parent, the machine.
OUTSIDE = re.compile(r"\bshared/|\.\./|/work/|(?<![\w/])rules/\w+\.md")
CITED_DOC = re.compile(r"\b(docs/[\w/.-]+\.md)\b")


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_source_cites_only_the_projects_own_docs(path: Path) -> None:
    text = path.read_text()
    if path == Path(__file__):
        text = text.replace(OUTSIDE.pattern, "")
    outside = [line for line in text.splitlines() if OUTSIDE.search(line)]
    assert not outside, outside
    for cited in CITED_DOC.findall(text):
        assert (ROOT / cited).is_file(), f"{cited} is not in the repository"


def test_the_codes_the_rules_page_names_exist() -> None:
    """The rules pages (docs/RULES.md, docs/rules/) name codes in brackets, [`no_pass`]:
    each is a member of Code."""
    pages = [ROOT / "docs" / "RULES.md", *sorted((ROOT / "docs" / "rules").glob("*.md"))]
    text = "\n".join(page.read_text() for page in pages)
    named = {
        code
        for group in re.findall(r"\[(`[a-z_]+`(?:, `[a-z_]+`)*)\]", text)
        for code in re.findall(r"`([a-z_]+)`", group)
    }
    assert Code.NO_PASS in named and named <= CODE_VALUES, named - CODE_VALUES


# -- the docs speak of the project alone ----------------------------------------------------

#: What a reader of the project has: the README, the docs, the deployment files.
DOCS = sorted(
    [
        ROOT / "README.md",
        ROOT / ".env.example",
        ROOT / "Makefile",
        *(ROOT / "docs").rglob("*.md"),
        *(path for path in (ROOT / "deploy").iterdir() if path.is_file()),
    ]
)
#: Words of the work around the project rather than of the project: the issues it was
#: asked in, its rounds of work and branches, the brief it was written from.
AROUND_THE_PROJECT = re.compile(
    r"\bissues? #?\d+|\bthe issue's"
    r"|\b(?:a|the) later round\b|\bthis round's|\b(?:changes|work) (?:of|in) this round\b"
    r"|\bproject brief\b|\bthe brief\b|\bother helpers\b|\bthis branch\b|\bthe coordinator\b",
    re.IGNORECASE,
)
RELATIVE_PATH = re.compile(r"(?:\.\./)+[\w.-][\w./-]*")
LINK = re.compile(r"\]\(([^)\s#]+)(?:#[^)\s]*)?\)")


def inside(path: Path) -> bool:
    return path.resolve().is_relative_to(ROOT)


@pytest.mark.parametrize("path", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_docs_speak_of_the_project_alone(path: Path) -> None:
    """No path out of the repository (a relative path is checked where it leads), no
    issue numbers, no rounds of work: a doc says things in the project's own words."""
    text = path.read_text()
    here = RELATIVE_PATH.sub(lambda found: "" if inside(path.parent / found[0]) else found[0], text)
    here = RULES_PAGE.sub(lambda page: "" if (path.parent / page[0]).is_file() else page[0], here)
    outside = [line.strip() for line in here.splitlines() if OUTSIDE.search(line)]
    assert not outside, f"{path.name} points out of the repository: {outside}"
    flowing = " ".join(text.split())  # a phrase may break across lines
    around = [
        flowing[max(0, m.start() - 40) : m.end() + 20] for m in AROUND_THE_PROJECT.finditer(flowing)
    ]
    assert not around, f"{path.name} speaks of the work around the project: {around}"
    for target in LINK.findall(text):
        if "://" not in target and not target.startswith("mailto:"):
            linked = path.parent / target
            assert inside(linked) and linked.exists(), f"{path.name} links to {target}"


def test_the_docs_check_finds_what_it_looks_for() -> None:
    """Each phrase the check forbids is found, and the game's own rounds are not."""
    flagged = [
        "Issue 13; this page", "(issue 15)", "issues 10 and 11", "issues 10-12",
        "the issue's measure", "a later round tunes", "this round's changes",
        "Livewire changes of this round", "rules text in the project brief",
        "other helpers' work", "this branch's test suite",
    ]  # fmt: skip
    assert [text for text in flagged if not AROUND_THE_PROJECT.search(text)] == []
    game_words = ["segment of this round", "drawn this round", "later rounds", "round 1"]
    assert [text for text in game_words if AROUND_THE_PROJECT.search(text)] == []
    assert not inside(ROOT / "deploy" / ".." / ".." / "x") and inside(
        ROOT / "deploy" / ".." / ".env"
    )


# -- each layer its own codes ------------------------------------------------------------------


def code_members(enum_name: str, paths: list[Path]) -> set[str]:
    """The members named as `<enum_name>.MEMBER` in the source of `paths`."""
    return {
        node.attr
        for path in paths
        for node in ast.walk(TREES[path])
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == enum_name
    }


def test_the_engine_keeps_only_the_rules_refusals() -> None:
    """Every member of `engine.Code` is a refusal the engine itself makes (one no rule
    raises belongs to the service), and the engine never names a service code."""
    assert code_members("Code", ENGINE_SOURCES) >= set(Code.__members__), set(
        Code.__members__
    ) - code_members("Code", ENGINE_SOURCES)
    assert not any("ServiceCode" in path.read_text() for path in ENGINE_SOURCES)
    assert {"NOT_ADMIN", "DM", "THREAD", "NO_VACATION"} <= set(ServiceCode.__members__)


def test_no_code_is_both_a_rules_and_a_service_code() -> None:
    """The two are StrEnums: a value in both would compare equal across them."""
    assert not set(Code.__members__) & set(ServiceCode.__members__)
    assert not {c.value for c in Code} & {c.value for c in ServiceCode}


def test_every_service_code_is_used_by_the_service_or_an_adapter() -> None:
    bot = [path for path in SOURCES if path.is_relative_to(ROOT / "bot")]
    assert code_members("ServiceCode", bot) >= set(ServiceCode.__members__)


def test_the_unknown_game_sentence_is_written_once() -> None:
    """The engine's refusal and the service's (which adds the name meant) are one sentence."""
    written = [
        path.relative_to(ROOT)
        for path in SOURCES
        if not path.is_relative_to(ROOT / "tests")
        for _ in range(path.read_text().count("no game called"))
    ]
    assert written == [Path("engine/registry.py")], written
    with pytest.raises(BadOptions) as caught:
        engine.new("hexx")
    assert str(caught.value) == str(engine.registry.unknown_game("hexx"))
    meant = str(engine.registry.unknown_game("hexx", "hex"))
    assert meant.startswith("There is no game called “hexx”; did you mean hex? The games are hex,")
