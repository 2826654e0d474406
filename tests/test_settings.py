"""Settings: the shipped .env.example loads as it is, and an empty value means the default."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from bot.settings import Settings

EXAMPLE = Path(__file__).parent.parent / ".env.example"
KEYS = re.findall(r"^([A-Z_]+)=", EXAMPLE.read_text(), flags=re.MULTILINE)


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for key in KEYS:
        monkeypatch.delenv(key, raising=False)
    monkeypatch.chdir(tmp_path)  # no .env of the developer's


def test_every_setting_is_in_the_example() -> None:
    assert sorted(KEYS) == sorted(name.upper() for name in Settings.model_fields)


def test_a_copy_of_the_example_loads_as_the_defaults(tmp_path: Path) -> None:
    shutil.copy(EXAMPLE, tmp_path / ".env")  # the README's `cp .env.example .env`
    assert Settings() == Settings(_env_file=None)  # type: ignore[call-arg]
    assert Settings().discord_token is None and Settings().dev_guild_id is None


@pytest.mark.parametrize("key", KEYS)
def test_an_empty_setting_means_its_default(
    key: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv(key, "")
    from_environment = Settings(_env_file=None)  # type: ignore[call-arg]
    monkeypatch.delenv(key)
    (tmp_path / ".env").write_text(f"{key}=\n")
    from_file = Settings()
    default = Settings.model_fields[key.lower()].default
    assert getattr(from_environment, key.lower()) == default
    assert getattr(from_file, key.lower()) == default
