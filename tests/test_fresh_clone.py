"""The README's two commands in a fresh clone, run the way a new user would: clone,
`make run` (the console, no Discord token), `make test`; nothing installed beforehand.

Minutes long (a new .venv, then the whole suite again), so it runs when
PAPERBOARD_FRESH_CLONE=1, as .ci/run sets it; the run inside the clone skips it.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
INSIDE = os.environ.get("PAPERBOARD_INSIDE_CLONE") == "1"
WANTED = os.environ.get("PAPERBOARD_FRESH_CLONE") == "1"


@pytest.mark.alone
@pytest.mark.skipif(INSIDE, reason="this run is the fresh clone's own")
@pytest.mark.skipif(
    not WANTED, reason="minutes long: PAPERBOARD_FRESH_CLONE=1 runs it (.ci/run does)"
)
def test_the_readme_commands_work_in_a_fresh_clone(tmp_path: Path) -> None:
    readme = (ROOT / "README.md").read_text()
    assert "make run" in readme and "make test" in readme
    clone = tmp_path / "paperboard"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True, timeout=120)
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("DISCORD_TOKEN", "VIRTUAL_ENV", "PAPERBOARD_FRESH_CLONE", "PYTHONPATH")
    }
    env["PAPERBOARD_INSIDE_CLONE"] = "1"

    ran = subprocess.run(
        ["make", "run"],
        cwd=clone,
        env=env,
        input="rules\nchallenge hex @bob size=4\nquit\n",
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert ran.returncode == 0, ran.stdout[-2000:] + ran.stderr[-2000:]
    assert "No DISCORD_TOKEN set: starting the console." in ran.stdout
    assert "challenges @bob to Hex #1" in ran.stdout

    try:
        tested = subprocess.run(
            ["make", "test"], cwd=clone, env=env, capture_output=True, text=True, timeout=2400
        )
    except subprocess.TimeoutExpired as late:  # what it printed says where it stood
        output = late.stdout or b""
        printed = output if isinstance(output, str) else output.decode(errors="replace")
        pytest.fail(f"make test ran past 2400 s; its output ended:\n{printed[-12000:]}")
    # a hung test's report holds its stacks: more than the last lines
    assert tested.returncode == 0, tested.stdout[-12000:] + tested.stderr[-2000:]
    assert " passed" in tested.stdout and " failed" not in tested.stdout
