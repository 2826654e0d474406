"""Settings from the environment or a .env file (every one is in .env.example)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    # A key left empty (`DEV_GUILD_ID=`, as .env.example ships them) means its default.
    model_config = SettingsConfigDict(
        env_file=".env", env_file_encoding="utf-8", extra="ignore", env_ignore_empty=True
    )

    discord_token: SecretStr | None = Field(default=None, description="the bot's token")
    database_url: str = Field(
        default="sqlite:///paperboard.db", description="sqlite:///FILE or postgresql://..."
    )
    discord_api_base: str | None = Field(default=None, description="a Discord-compatible REST base")
    discord_gateway_url: str | None = Field(
        default=None, description="a Discord-compatible gateway"
    )
    dev_guild_id: int | None = Field(default=None, description="sync commands to this guild only")
    discord_message_content: bool = Field(
        default=False, description="read moves typed in threads (a privileged intent)"
    )
    log_level: str = Field(default="INFO", description="DEBUG, INFO, WARNING or ERROR")

    challenge_hours: int = Field(default=24, ge=1, description="unanswered challenges expire")
    max_open_challenges: int = Field(default=10, ge=1, description="per player")
    max_active_games: int = Field(default=50, ge=1, description="per player")
    vacation_days: int = Field(default=14, ge=0, description="vacation days per player per year")
    board_cache_size: int = Field(default=512, ge=0, description="rendered boards kept in memory")
    board_dir: Path = Field(default=Path("boards"), description="where the console saves boards")
    render_processes: int = Field(
        default=1, ge=0, le=32, description="worker processes drawing boards (0: a thread)"
    )
    ai_processes: int = Field(
        default=1, ge=0, le=32, description="worker processes searching for the bot (0: a thread)"
    )
    ai_search: Literal["here", "workers"] = Field(
        default="here",
        description="here: this process searches for the bot; workers: `paperboard worker` "
        "processes do (PostgreSQL)",
    )
    process_name: str | None = Field(
        default=None,
        pattern=r"^[A-Za-z0-9][A-Za-z0-9._,-]{0,39}$",
        description="this process's name in the database's leases (default: from its kind "
        "and shards)",
    )
    ai_nodes: int | None = Field(
        default=None, ge=1, description="every bot level searches this many simulations (tests)"
    )

    @field_validator("process_name")
    @classmethod
    def _not_reserved(cls, name: str | None) -> str | None:
        if name == "vacation":  # the holder of deadlines held while a player is away
            raise ValueError("PROCESS_NAME vacation is reserved; choose another name")
        return name

    @property
    def searches_here(self) -> bool:
        """Whether a bot process searches for the bot itself: unless AI_SEARCH=workers on
        PostgreSQL (on SQLite one process does it all)."""
        return self.ai_search == "here" or self.database_url.startswith("sqlite")
