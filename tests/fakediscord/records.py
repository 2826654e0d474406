"""What the fake keeps of each request, and the faults a test injects into them."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

PLACEHOLDER_RE = re.compile(r"\{[^}]*\}")


@dataclass(frozen=True)
class UploadedFile:
    index: int
    filename: str
    data: bytes
    content_type: str | None


@dataclass
class RequestRecord:
    """One REST request the bot made, with perf_counter() timestamps."""

    method: str
    path: str
    route: str
    """``METHOD /template``, with discord.py's placeholder names where they exist."""
    query: dict[str, str]
    started: float
    finished: float | None = None
    status: int | None = None
    fault: str | None = None
    """'ratelimit', 'error' or None when the fake answered normally."""
    request_bytes: int = 0

    @property
    def duration(self) -> float | None:
        return None if self.finished is None else self.finished - self.started


@dataclass
class Fault:
    kind: str
    """'ratelimit', 'error' or 'delay'."""
    route: str | Callable[[RequestRecord], bool] | None
    times: int | None
    """How many requests it applies to; None: all of them until cleared."""
    status: int = 500
    retry_after: float = 0.05
    is_global: bool = False
    scope: str = "user"
    delay: float = 0.0
    code: int = 0
    message: str | None = None
    hits: int = 0

    def matches(self, record: RequestRecord) -> bool:
        if self.times is not None and self.hits >= self.times:
            return False
        route = self.route
        if route is None:
            return True
        if callable(route):
            return route(record)
        return route_matches(route, record.route)


def normalise_route(route: str) -> str:
    route = route.strip()
    method, _, path = route.partition(" ")
    if not path:
        method, path = "*", method
    path = PLACEHOLDER_RE.sub("{}", path.rstrip("/"))
    return f"{method.upper()} {path}"


def route_matches(pattern: str, route: str) -> bool:
    want_method, want_path = normalise_route(pattern).split(" ", 1)
    method, path = normalise_route(route).split(" ", 1)
    return want_path == path and want_method in ("*", method)


class Faults:
    """FakeDiscord's faults: rate limits, errors, latency, a dropped or invalidated
    gateway session."""

    # ----------------------------------------------------------------------------------------
    # Faults.

    def inject_rate_limit(
        self,
        route: str | Callable[[RequestRecord], bool] | None = None,
        *,
        times: int = 1,
        retry_after: float = 0.05,
        is_global: bool = False,
        scope: str = "user",
    ) -> Fault:
        """Answer the next ``times`` matching requests with a Discord-shaped 429 (JSON
        ``retry_after``, ``X-RateLimit-*`` and ``Via`` headers: discord.py sleeps and retries)."""
        fault = Fault(
            "ratelimit",
            route,
            times,
            429,
            retry_after=retry_after,
            is_global=is_global,
            scope="global" if is_global else scope,
        )
        self.faults.append(fault)
        return fault

    def inject_error(
        self,
        route: str | Callable[[RequestRecord], bool] | None = None,
        *,
        times: int = 1,
        status: int = 500,
        code: int = 0,
        message: str | None = None,
    ) -> Fault:
        """Answer the next ``times`` matching requests with ``status``. discord.py retries
        500/502/504/524 after sleeping 1 + 2*attempt seconds (5 attempts in all)."""
        fault = Fault("error", route, times, status, code=code, message=message)
        self.faults.append(fault)
        return fault

    def inject_latency(
        self,
        seconds: float,
        route: str | Callable[[RequestRecord], bool] | None = None,
        *,
        times: int | None = None,
    ) -> Fault:
        """Delay matching requests (all of them until cleared, by default)."""
        fault = Fault("delay", route, times, delay=seconds)
        self.faults.append(fault)
        return fault

    def clear_faults(self) -> None:
        self.faults.clear()

    async def drop_gateway(
        self, shard_id: int | None = None, *, code: int = 4000, abort: bool = False
    ) -> int:
        """Close the live gateway connection(s) (all shards unless ``shard_id``) with ``code``,
        or cut the TCP connection if ``abort``. Sessions survive: dispatches made meanwhile are
        replayed when discord.py RESUMEs. Returns how many connections were dropped."""
        await self._flush()
        dropped = await self.gateway.drop(shard_id, code, abort)
        self._notify()
        return dropped

    async def invalidate_session(
        self, shard_id: int | None = None, *, resumable: bool = False
    ) -> int:
        """Send INVALID_SESSION; with ``resumable=False`` the session is forgotten, so
        discord.py must IDENTIFY again (through DiscordWebSocket.DEFAULT_GATEWAY)."""
        await self._flush()
        return await self.gateway.invalidate(shard_id, resumable)

    async def request_reconnect(self, shard_id: int | None = None) -> int:
        """Send op 7 RECONNECT: discord.py closes and RESUMEs."""
        await self._flush()
        return await self.gateway.reconnect(shard_id)
