"""Settings: the shipped .env.example loads as it is, and an empty value means the default."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from pydantic import ValidationError

from bot.settings import DATABASE_FORMS, Settings, refusal

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


@pytest.mark.parametrize(
    ("key", "value", "sentence"),
    [
        ("DATABASE_URL", "nonsense", f"DATABASE_URL should look like {DATABASE_FORMS}"),
        (
            "DATABASE_URL",
            "mysql://root@db/games",
            f"DATABASE_URL should look like {DATABASE_FORMS}",
        ),
        ("DATABASE_URL", "postgresql://u:secret@db:port/x", "DATABASE_URL should look like"),
        ("DATABASE_URL", "postgresql://u@db:99999/x", "DATABASE_URL should look like"),
        ("DATABASE_URL", "sqlite://", "DATABASE_URL should look like"),
        ("DATABASE_URL", "sqlite:///:memory:", "DATABASE_URL should look like"),
        ("LOG_LEVEL", "LOUD", "LOG_LEVEL is DEBUG, INFO, WARNING or ERROR"),
        ("WEB_PORT", "notaport", "WEB_PORT is a whole number from 0 to 65535"),
        ("WEB_PORT", "70000", "WEB_PORT is a whole number from 0 to 65535"),
        ("DEV_GUILD_ID", "a server", "DEV_GUILD_ID is a whole number"),
        ("MAX_ACTIVE_GAMES", "0", "MAX_ACTIVE_GAMES is a whole number of at least 1"),
        ("WEB_RATE_LIMIT", "fast", "WEB_RATE_LIMIT is a number of at least 0"),
        ("WEB_FORWARDED", "maybe", "WEB_FORWARDED is true or false"),
        ("AI_SEARCH", "there", "AI_SEARCH is here or workers"),
        ("PROCESS_NAME", "-a", "PROCESS_NAME is up to 40 letters"),
    ],
)
def test_a_bad_setting_is_refused_naming_it_and_its_form(
    key: str, value: str, sentence: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One sentence, the setting's name and what it takes, never the value (a password)."""
    monkeypatch.setenv(key, value)
    with pytest.raises(ValidationError) as bad:
        Settings()
    assert refusal(bad.value).startswith(sentence)
    assert "secret" not in refusal(bad.value)


@pytest.mark.parametrize(
    "url", ["sqlite:///paperboard.db", "postgresql://u:p@db/x", "postgres://db:6432/x"]
)
def test_the_database_forms_and_any_log_level_case_load(
    url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DATABASE_URL", url)
    monkeypatch.setenv("LOG_LEVEL", "debug")
    assert Settings().database_url == url and Settings().log_level == "DEBUG"
