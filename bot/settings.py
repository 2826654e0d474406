"""Settings from the environment or a .env file (every one is in .env.example)."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Literal, get_args, get_origin
from urllib.parse import SplitResult, urlsplit

from annotated_types import Ge, Le
from pydantic import Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, SettingsConfigDict

if TYPE_CHECKING:
    from sqlalchemy.engine import URL

#: An address as the settings take it (the bot's own: no quoting, no comments).
EMAIL_ADDRESS = re.compile(r"[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+")
DOMAIN = re.compile(r"[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+")


#: What DATABASE_URL looks like, in the sentences that refuse it.
DATABASE_FORMS = "sqlite:///paperboard.db or postgresql://user:password@host:5432/dbname"
#: The levels LOG_LEVEL takes (CRITICAL too, which the docs leave out).
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


class SettingRefused(ValueError):
    """A setting that cannot work, found only when it is first used (a database that does
    not answer, a Discord out of reach), in one sentence that names it."""


def database_url(url: str) -> URL:
    """DATABASE_URL as SQLAlchemy reads it: a SQLite file or a PostgreSQL database, else a
    ValueError that names the setting (and not its value, which may hold a password)."""
    from sqlalchemy.engine import make_url  # SQLAlchemy only when a database is named
    from sqlalchemy.exc import ArgumentError

    try:
        parsed = make_url(url)  # a port that is not a number raises ValueError
    except (ArgumentError, ValueError):
        parsed = None
    backend = None if parsed is None else parsed.get_backend_name()
    if parsed is not None and (
        (backend == "sqlite" and parsed.database not in (None, "", ":memory:"))
        or (backend in ("postgresql", "postgres") and 0 < (parsed.port or 5432) < 65536)
    ):
        return parsed
    raise ValueError(f"DATABASE_URL should look like {DATABASE_FORMS}")


def reason(error: OSError) -> str:
    """Why a file or a connection failed, in a few words: "connection refused"."""
    if isinstance(error, FileExistsError):  # made as a folder, but a file is in the way
        return f"{error.filename} is a file, not a folder"
    words = os.strerror(error.errno) if error.errno and error.errno > 0 else error.strerror
    said = words.lower() if words else str(error) or "timed out"
    return f"{error.filename}: {said}" if error.filename else said


def refusal(bad: ValidationError) -> str:
    """The first bad setting in one sentence: its validator's own, else its name and the
    form it takes (never its value: it may be a password)."""
    error = bad.errors()[0]
    if "error" in error.get("ctx", {}):
        return str(error["ctx"]["error"])
    field = Settings.model_fields.get(str(error["loc"][0])) if error["loc"] else None
    form = None if field is None else _form(field)
    names = ".".join(str(part) for part in error["loc"]).upper()
    if form is not None:
        return f"{names} is {form}"
    return f"{names}: {error['msg']}" if names else str(error["msg"])


def _form(field: FieldInfo) -> str | None:
    """What a setting of this type and these bounds takes: "a whole number from 0 to 65535"."""
    if get_origin(field.annotation) is Literal:
        return " or ".join(str(choice) for choice in get_args(field.annotation))
    kind = next((k for k in get_args(field.annotation) if k is not type(None)), field.annotation)
    if kind is bool:
        return "true or false"
    words = "a whole number" if kind is int else "a number" if kind is float else None
    if words is None:
        return None
    low = next((bound.ge for bound in field.metadata if isinstance(bound, Ge)), None)
    high = next((bound.le for bound in field.metadata if isinstance(bound, Le)), None)
    if low is not None and high is not None:
        return f"{words} from {low:g} to {high:g}"
    return words if low is None else f"{words} of at least {low:g}"


def _bad_port(parts: SplitResult) -> bool:
    try:
        parts.port  # noqa: B018  # reading it raises for a port out of range
    except ValueError:
        return True
    return False


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
        description="this process's name in the database's leases (default: from its kind "
        "and shards)",
    )
    ai_nodes: int | None = Field(
        default=None, ge=1, description="every bot level searches this many simulations (tests)"
    )

    email_from: str | None = Field(
        default=None, description="the bot's address, the From of its mail: play@example.org"
    )
    email_smtp_url: SecretStr | None = Field(
        default=None,
        description="the server mail goes out through: smtp://user:password@host:587 "
        "(STARTTLS) or smtps://user:password@host:465 (TLS)",
    )
    email_listen: str | None = Field(
        default=None, description="host:port of the bot's own SMTP listener: 0.0.0.0:2525"
    )
    email_domain: str | None = Field(
        default=None, description="the domain the listener takes mail for (default: EMAIL_FROM's)"
    )
    email_secret: SecretStr | None = Field(
        default=None, description="signs the reply addresses; at least 16 characters"
    )
    email_old_secret: SecretStr | None = Field(
        default=None, description="the secret before the last change, still accepted"
    )
    email_imap_url: SecretStr | None = Field(
        default=None, description="a mailbox polled for mail: imaps://user:password@host/INBOX"
    )

    web_host: str = Field(default="127.0.0.1", description="the address the web pages listen on")
    web_port: int = Field(
        default=8080, ge=0, le=65535, description="their port (0: `paperboard run` serves none)"
    )
    public_url: str | None = Field(
        default=None,
        description="the address players reach the pages at, https://games.example.org "
        "(default: http://WEB_HOST:WEB_PORT)",
    )
    web_rate_limit: float = Field(
        default=20.0, ge=0, description="requests a second per client address (0: no limit)"
    )
    web_session_rate: float = Field(
        default=2.0, ge=0, description="forms a second per signed-in browser (0: no limit)"
    )
    discord_client_id: int | None = Field(
        default=None,
        ge=1,
        description="sign-in with Discord on the web pages: the application's id (OAuth2 "
        "client id, the developer portal's OAuth2 page)",
    )
    discord_client_secret: SecretStr | None = Field(
        default=None, description="and its OAuth2 client secret (keep it secret)"
    )
    web_forwarded: bool = Field(
        default=False,
        description="behind a proxy: the client's address is the last of X-Forwarded-For",
    )
    web_live_streams: int = Field(
        default=10_000,
        ge=0,
        description="live game pages (Server-Sent Events) open at once in this process (0: none)",
    )
    web_live_per_address: int = Field(
        default=50, ge=0, description="live game pages open at once per client address"
    )
    web_cache_mb: int = Field(
        default=128,
        ge=1,
        le=65536,
        description="the memory each of the web pages' two caches may take, in MB (the games "
        "as read, the parts of pages drawn): about 20 kB a game of 80 moves in each",
    )

    @field_validator("database_url")
    @classmethod
    def _a_database(cls, url: str) -> str:
        database_url(url)
        return url

    @field_validator("log_level")
    @classmethod
    def _a_level(cls, level: str) -> str:
        if level.upper() not in LOG_LEVELS:
            raise ValueError("LOG_LEVEL is DEBUG, INFO, WARNING or ERROR")
        return level.upper()

    @field_validator("public_url")
    @classmethod
    def _a_site(cls, url: str | None) -> str | None:
        if url is not None:
            parts = urlsplit(url)
            if (
                parts.scheme not in ("http", "https")
                or not parts.hostname
                or parts.query
                or parts.fragment
                or _bad_port(parts)
            ):
                raise ValueError("PUBLIC_URL is an address like https://games.example.org")
            url = url.rstrip("/")
        return url

    @property
    def site_url(self) -> str:
        """Where players reach the web pages: PUBLIC_URL, else the address they listen on."""
        if self.public_url is not None:
            return self.public_url
        host = f"[{self.web_host}]" if ":" in self.web_host else self.web_host
        return f"http://{host}:{self.web_port}"

    @property
    def pages_url(self) -> str | None:
        """Where the bot's posts send players for the web pages (`site_url`); None when
        they have no address: no PUBLIC_URL, and this process serves none (WEB_PORT=0)."""
        return None if self.public_url is None and self.web_port == 0 else self.site_url

    @field_validator("email_from")
    @classmethod
    def _an_address(cls, address: str | None) -> str | None:
        if address is not None and not EMAIL_ADDRESS.fullmatch(address):
            raise ValueError("EMAIL_FROM is an address like play@example.org")
        return address

    @field_validator("email_domain")
    @classmethod
    def _a_domain(cls, domain: str | None) -> str | None:
        if domain is not None and not DOMAIN.fullmatch(domain):
            raise ValueError("EMAIL_DOMAIN is a domain like example.org")
        return None if domain is None else domain.lower()

    @field_validator("email_listen")
    @classmethod
    def _host_and_port(cls, listen: str | None) -> str | None:
        if listen is not None:
            host, _, port = listen.rpartition(":")
            if not host or not port.isdecimal() or not 0 <= int(port) < 65536:
                raise ValueError("EMAIL_LISTEN is host:port, like 0.0.0.0:2525")
        return listen

    @field_validator("email_smtp_url")
    @classmethod
    def _smtp_url(cls, url: SecretStr | None) -> SecretStr | None:
        if url is not None:
            parts = urlsplit(url.get_secret_value())
            if parts.scheme not in ("smtp", "smtps") or not parts.hostname or _bad_port(parts):
                raise ValueError(
                    "EMAIL_SMTP_URL is smtp://user:password@host:587 or smtps://...@host:465"
                )
        return url

    @field_validator("email_imap_url")
    @classmethod
    def _imap_url(cls, url: SecretStr | None) -> SecretStr | None:
        if url is not None:
            parts = urlsplit(url.get_secret_value())
            if parts.scheme not in ("imap", "imaps") or not parts.hostname or _bad_port(parts):
                raise ValueError("EMAIL_IMAP_URL is imaps://user:password@host/INBOX")
        return url

    @field_validator("email_secret", "email_old_secret")
    @classmethod
    def _long_enough(cls, secret: SecretStr | None) -> SecretStr | None:
        if secret is not None and len(secret.get_secret_value()) < 16:
            raise ValueError("EMAIL_SECRET and EMAIL_OLD_SECRET are at least 16 characters")
        return secret

    @model_validator(mode="after")
    def _mail_is_whole(self) -> Settings:
        """Mail needs its address and its secret together: the reply addresses are signed
        and sent from the bot's domain."""
        wanted = (self.email_smtp_url, self.email_listen, self.email_imap_url)
        if any(setting is not None for setting in wanted) and (
            self.email_from is None or self.email_secret is None
        ):
            raise ValueError("mail needs EMAIL_FROM and EMAIL_SECRET set too")
        return self

    @model_validator(mode="after")
    def _oauth_is_whole(self) -> Settings:
        """Sign-in with Discord needs both its client's id and secret."""
        if (self.discord_client_id is None) != (self.discord_client_secret is None):
            raise ValueError("DISCORD_CLIENT_ID and DISCORD_CLIENT_SECRET are set together")
        return self

    @property
    def mail_domain(self) -> str | None:
        """The domain of the reply addresses: EMAIL_DOMAIN, else EMAIL_FROM's."""
        if self.email_domain is not None:
            return self.email_domain
        return None if self.email_from is None else self.email_from.rpartition("@")[2].lower()

    @property
    def mails(self) -> bool:
        """Whether this process sends mail (EMAIL_SMTP_URL with its address and secret)."""
        return self.email_smtp_url is not None

    @field_validator("process_name")
    @classmethod
    def _a_process_name(cls, name: str | None) -> str | None:
        if name is not None and not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._,-]{0,39}", name):
            raise ValueError(
                "PROCESS_NAME is up to 40 letters, digits and . _ , -, starting with a letter "
                "or digit"
            )
        if name == "vacation":  # the holder of deadlines held while a player is away
            raise ValueError("PROCESS_NAME vacation is reserved; choose another name")
        return name

    @property
    def searches_here(self) -> bool:
        """Whether a bot process searches for the bot itself: unless AI_SEARCH=workers on
        PostgreSQL (on SQLite one process does it all)."""
        return self.ai_search == "here" or self.database_url.startswith("sqlite")
