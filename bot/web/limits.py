"""Rate limits: token buckets by key (a client's address, a session, a mail address), and
who a request comes from. In memory, per process: behind a proxy spreading clients over
several processes, each keeps its own.
"""

from __future__ import annotations

import time
from collections import OrderedDict

from aiohttp import web

#: Keys remembered by a limit (the oldest are forgotten first).
KEYS_KEPT = 10_000


class Buckets:
    """A token bucket per key: `rate` a second, `burst` at once."""

    def __init__(self, rate: float, burst: float) -> None:
        self.rate = rate
        self.burst = max(1.0, burst)
        self.buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()  # tokens, when

    def take(self, key: str) -> int:
        """Take a token of `key`'s bucket: 0 when there was one, else the seconds to wait
        (nothing is taken)."""
        if self.rate <= 0:
            return 0
        now = time.monotonic()
        tokens, then = self.buckets.pop(key, (self.burst, now))
        tokens = min(self.burst, tokens + (now - then) * self.rate)
        if tokens < 1:
            self.buckets[key] = (tokens, now)
            return max(1, round((1 - tokens) / self.rate))
        self.buckets[key] = (tokens - 1, now)
        while len(self.buckets) > KEYS_KEPT:
            self.buckets.popitem(last=False)
        return 0

    def check(self, key: str) -> None:
        """`take`, as a 429 with Retry-After when the bucket is empty."""
        wait = self.take(key)
        if wait:
            raise web.HTTPTooManyRequests(headers={"Retry-After": str(wait)})


def client_address(request: web.Request, *, forwarded: bool) -> str:
    """Who sent the request: the peer, or behind a proxy (`WEB_FORWARDED`) the address
    the proxy saw, the last of X-Forwarded-For."""
    if forwarded:
        hops = [hop.strip() for hop in request.headers.get("X-Forwarded-For", "").split(",")]
        if hops[-1]:
            return hops[-1][:64]
    return request.remote or "unknown"
