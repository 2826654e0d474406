"""The deployment files agree with each other: an operator's install step installs the bot
alone (no test or lint tools, no tests run as root), and the systemd unit runs what the
steps of deploy/README.md install, where they install it."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from tests.conftest import ROOT

DEPLOY = ROOT / "deploy"
#: What a developer needs and a server does not: the dev extra, the tools, the tests.
DEV_TOOLS = re.compile(r"\[dev\]|\bpytest\b|\bruff\b|\bmypy\b|\bmake (?:test|lint|bench)\b")


def systemd_steps() -> str:
    """The commands of deploy/README.md's systemd section (its indented block)."""
    section = (DEPLOY / "README.md").read_text().split("## systemd", 1)[1].split("\n## ", 1)[0]
    return "\n".join(line.strip() for line in section.splitlines() if line.startswith("    "))


def unit() -> dict[str, str]:
    text = (DEPLOY / "paperboard.service").read_text()
    return dict(re.findall(r"^(\w+)=(.*)$", text, flags=re.MULTILINE))


def test_the_systemd_steps_install_the_bot_alone() -> None:
    steps = systemd_steps()
    assert not DEV_TOOLS.search(steps), steps
    assert "make install" in steps, steps


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_make_install_installs_no_dev_tools() -> None:
    """What `make install` would run from scratch (make -n prints it, runs nothing; without
    the directory lines, as a clone under a path such as /tmp/pytest-of-root would match)."""
    planned = subprocess.run(
        ["make", "--no-print-directory", "-n", "-B", "install"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "pip install" in planned and not DEV_TOOLS.search(planned), planned


def test_the_image_installs_the_bot_alone() -> None:
    runs = re.findall(r"^RUN (.*)$", (DEPLOY / "Dockerfile").read_text(), flags=re.MULTILINE)
    assert runs and not [run for run in runs if DEV_TOOLS.search(run)], runs


def test_the_systemd_unit_runs_what_the_steps_install() -> None:
    steps, service = systemd_steps(), unit()
    home = service["WorkingDirectory"]
    assert f"git clone <this repository> {home}" in steps, steps
    assert f"useradd --system --home {home}" in steps and service["User"] in steps.split()
    assert service["ExecStart"].startswith(f"{home}/.venv/bin/paperboard ")
    assert service["EnvironmentFile"] == f"{home}/.env" and "cp .env.example .env" in steps
    assert "cp deploy/paperboard.service /etc/systemd/system/" in steps
