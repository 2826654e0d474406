"""The fake gateway: one aiohttp websocket endpoint speaking Discord's gateway protocol v10.

Implemented: HELLO, IDENTIFY -> READY + GUILD_CREATE per guild of the shard, HEARTBEAT ->
HEARTBEAT_ACK, RESUME -> replay of the missed dispatches + RESUMED, REQUEST_GUILD_MEMBERS ->
GUILD_MEMBERS_CHUNK, PRESENCE_UPDATE (recorded), INVALID_SESSION, RECONNECT, sharding
(``guild_id >> 22 % shard_count``), intents (events a session did not ask for are not sent),
privileged-intent refusal (close 4014), and ``zlib-stream`` transport compression when the
client asks for it (discord.py does unless ``zstandard`` is installed, see server.py).
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
import zlib
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from aiohttp import WSMsgType, web

from .constants import (
    INTENT_DIRECT_MESSAGES,
    INTENT_GUILD_MEMBERS,
    INTENT_GUILD_MESSAGES,
    INTENT_GUILDS,
    PRIVILEGED_INTENTS,
)
from .models import JSON

if TYPE_CHECKING:
    from .server import FakeDiscord

log = logging.getLogger("fakediscord.gateway")

DISPATCH = 0
HEARTBEAT = 1
IDENTIFY = 2
PRESENCE_UPDATE = 3
VOICE_STATE_UPDATE = 4
RESUME = 6
RECONNECT = 7
REQUEST_GUILD_MEMBERS = 8
INVALID_SESSION = 9
HELLO = 10
HEARTBEAT_ACK = 11

REPLAY_BUFFER = 10_000

DataFor = Callable[["GatewaySession"], JSON | None]
"""Builds the ``d`` of a dispatch for one session (None: do not send it to that session)."""


@dataclass(frozen=True)
class GatewayLogEntry:
    at: float
    direction: str
    """'send' (fake -> bot) or 'recv' (bot -> fake)."""
    op: int
    event: str | None
    seq: int | None
    shard_id: int | None


class GatewayConnection:
    """One websocket. Sends are serialised so that compression and sequence order hold."""

    def __init__(
        self, gateway: Gateway, ws: web.WebSocketResponse, request: web.Request, compress: bool
    ) -> None:
        self.gateway = gateway
        self.ws = ws
        self.request = request
        self.path = request.path
        self.query = dict(request.query)
        self.compressor = zlib.compressobj() if compress else None
        self.lock = asyncio.Lock()
        self.session: GatewaySession | None = None
        self.opened_at = time.perf_counter()
        self.closed_by_fake = False

    @property
    def closed(self) -> bool:
        return self.ws.closed

    async def send(self, payload: JSON | str) -> None:
        text = payload if isinstance(payload, str) else json.dumps(payload)
        async with self.lock:
            if self.ws.closed:
                raise ConnectionResetError("gateway connection closed")
            if self.compressor is not None:
                data = self.compressor.compress(text.encode()) + self.compressor.flush(
                    zlib.Z_SYNC_FLUSH
                )
                await self.ws.send_bytes(data)
            else:
                await self.ws.send_str(text)

    async def send_op(self, op: int, d: Any) -> None:
        self.gateway.log_frame("send", op, None, None, self.session)
        await self.send({"op": op, "d": d, "s": None, "t": None})

    async def close(self, code: int, *, abort: bool = False) -> None:
        self.closed_by_fake = True
        if abort:
            transport = self.request.transport
            if transport is not None:
                transport.abort()
            return
        await self.ws.close(code=code)


@dataclass(eq=False)
class GatewaySession:
    id: str
    shard_id: int
    shard_count: int
    intents: int
    token: str
    resume_gateway_url: str
    seq: int = 0
    buffer: deque[tuple[int, str]] = field(default_factory=lambda: deque(maxlen=REPLAY_BUFFER))
    conn: GatewayConnection | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    identified_at: float = field(default_factory=time.perf_counter)
    ready: bool = False
    """READY and every GUILD_CREATE of the shard have been sent."""
    resumes: int = 0
    presence: JSON | None = None
    heartbeats: int = 0

    def has_intent(self, intent: int) -> bool:
        return bool(self.intents & intent)

    def covers_guild(self, guild_id: int | None) -> bool:
        if guild_id is None:
            return self.shard_id == 0
        return (guild_id >> 22) % self.shard_count == self.shard_id

    async def dispatch(self, gateway: Gateway, event: str, d: JSON) -> None:
        async with self.lock:
            self.seq += 1
            text = json.dumps({"op": DISPATCH, "t": event, "s": self.seq, "d": d})
            self.buffer.append((self.seq, text))
            gateway.log_frame("send", DISPATCH, event, self.seq, self)
            conn = self.conn
            if conn is not None and not conn.closed:
                try:
                    await conn.send(text)
                except (ConnectionResetError, RuntimeError):
                    log.info("shard %s: %s buffered for RESUME", self.shard_id, event)


class Gateway:
    def __init__(self, fake: FakeDiscord) -> None:
        self.fake = fake
        self.sessions: dict[str, GatewaySession] = {}
        self.connections: list[GatewayConnection] = []
        self.log: list[GatewayLogEntry] = []

    # ----------------------------------------------------------------------------------------
    # Helpers used by the fake.

    def log_frame(
        self,
        direction: str,
        op: int,
        event: str | None,
        seq: int | None,
        session: GatewaySession | None,
    ) -> None:
        shard = session.shard_id if session is not None else None
        self.log.append(GatewayLogEntry(time.perf_counter(), direction, op, event, seq, shard))

    def live_sessions(self) -> list[GatewaySession]:
        return list(self.sessions.values())

    def sessions_for(self, guild_id: int | None) -> list[GatewaySession]:
        return [s for s in self.sessions.values() if s.covers_guild(guild_id)]

    async def dispatch(
        self,
        event: str,
        data: JSON | DataFor,
        *,
        guild_id: int | None,
        intent: int | None = None,
    ) -> int:
        """Send a dispatch to every session that should see it; returns how many did."""
        sent = 0
        for session in self.sessions_for(guild_id):
            if intent is not None and not session.has_intent(intent):
                continue
            d = data(session) if callable(data) else data
            if d is None:
                continue
            await session.dispatch(self, event, d)
            sent += 1
        return sent

    def _pick_connections(self, shard_id: int | None) -> list[GatewayConnection]:
        conns = [c for c in self.connections if not c.closed and c.session is not None]
        if shard_id is not None:
            conns = [c for c in conns if c.session is not None and c.session.shard_id == shard_id]
        return conns

    async def drop(self, shard_id: int | None, code: int, abort: bool) -> int:
        conns = self._pick_connections(shard_id)
        for conn in conns:
            await conn.close(code, abort=abort)
        return len(conns)

    async def invalidate(self, shard_id: int | None, resumable: bool) -> int:
        conns = self._pick_connections(shard_id)
        for conn in conns:
            session = conn.session
            if session is not None and not resumable:
                self.sessions.pop(session.id, None)
            await conn.send_op(INVALID_SESSION, resumable)
        return len(conns)

    async def reconnect(self, shard_id: int | None) -> int:
        conns = self._pick_connections(shard_id)
        for conn in conns:
            await conn.send_op(RECONNECT, None)
        return len(conns)

    async def close_all(self) -> None:
        for conn in list(self.connections):
            if not conn.closed:
                await conn.close(1001)

    # ----------------------------------------------------------------------------------------
    # The websocket endpoint.

    async def handle(self, request: web.Request) -> web.StreamResponse:
        ws = web.WebSocketResponse(autoping=True, compress=False, max_msg_size=0)
        await ws.prepare(request)
        encoding = request.query.get("encoding", "json")
        requested = request.query.get("compress")
        compress = self.fake.gateway_compression and requested == "zlib-stream"
        conn = GatewayConnection(self, ws, request, compress)
        self.connections.append(conn)
        self.fake._notify()
        try:
            if encoding != "json":
                await ws.close(code=4002, message=b"fake discord speaks encoding=json only")
                return ws
            await conn.send_op(HELLO, {"heartbeat_interval": self.fake.heartbeat_interval_ms})
            async for msg in ws:
                if msg.type is WSMsgType.TEXT:
                    raw = msg.data
                elif msg.type is WSMsgType.BINARY:
                    raw = msg.data.decode()
                else:
                    break
                try:
                    payload = json.loads(raw)
                except ValueError:
                    await ws.close(code=4002, message=b"decode error")
                    break
                await self._on_payload(conn, payload)
                if ws.closed:
                    break
        except ConnectionResetError:
            pass
        finally:
            session = conn.session
            if session is not None and session.conn is conn:
                session.conn = None
                # Discord: a client closing with 1000/1001 ends its session (no RESUME).
                if not conn.closed_by_fake and ws.close_code in (1000, 1001):
                    self.sessions.pop(session.id, None)
            self.fake._notify()
        return ws

    async def _on_payload(self, conn: GatewayConnection, payload: JSON) -> None:
        op = payload.get("op")
        d = payload.get("d")
        self.log_frame("recv", op if isinstance(op, int) else -1, None, None, conn.session)
        if op == HEARTBEAT:
            if conn.session is not None:
                conn.session.heartbeats += 1
            await conn.send_op(HEARTBEAT_ACK, None)
            self.fake._notify()
        elif op == IDENTIFY:
            if conn.session is not None:
                await conn.close(4005)
                return
            await self._identify(conn, d or {})
        elif op == RESUME:
            if conn.session is not None:
                await conn.close(4005)
                return
            await self._resume(conn, d or {})
        elif conn.session is None:
            await conn.close(4003)
        elif op == PRESENCE_UPDATE:
            conn.session.presence = d
        elif op == REQUEST_GUILD_MEMBERS:
            await self._request_members(conn.session, d or {})
        elif op == VOICE_STATE_UPDATE:
            pass
        else:
            await conn.close(4001)

    async def _identify(self, conn: GatewayConnection, d: JSON) -> None:
        fake = self.fake
        if d.get("token") != fake.token:
            await conn.close(4004)
            return
        intents = int(d.get("intents", 0))
        for name, bit in PRIVILEGED_INTENTS.items():
            if intents & bit and name not in fake.privileged_intents:
                await conn.close(4014)
                return
        shard_id, shard_count = d.get("shard") or [0, 1]
        if shard_count < 1 or not 0 <= shard_id < shard_count:
            await conn.close(4010)
            return
        # A new IDENTIFY for a shard replaces whatever session that shard had.
        for old in [s for s in self.sessions.values() if s.shard_id == shard_id]:
            del self.sessions[old.id]
        session = GatewaySession(
            id=secrets.token_hex(16),
            shard_id=shard_id,
            shard_count=shard_count,
            intents=intents,
            token=d["token"],
            resume_gateway_url=fake.resume_gateway_url,
        )
        session.presence = d.get("presence")
        self.sessions[session.id] = session
        session.conn = conn
        conn.session = session

        guilds = [g for g in fake.guilds.values() if session.covers_guild(g.id)]
        await session.dispatch(
            self,
            "READY",
            {
                "v": 10,
                "user": fake.bot_user_dict(),
                "guilds": [{"id": str(g.id), "unavailable": True} for g in guilds],
                "session_id": session.id,
                "session_type": "normal",
                "resume_gateway_url": session.resume_gateway_url,
                "shard": [shard_id, shard_count],
                "application": {"id": str(fake.application_id), "flags": fake.application_flags},
                "private_channels": [],
                "relationships": [],
                "presences": [],
                "guild_join_requests": [],
                "geo_ordered_rtc_regions": ["fake"],
                "user_settings": {},
                "auth": {},
            },
        )
        if session.has_intent(INTENT_GUILDS):
            for guild in guilds:
                with_members = session.has_intent(INTENT_GUILD_MEMBERS)
                data = guild.to_dict(members=True)
                if not with_members:
                    # Without GUILD_MEMBERS Discord only sends the bot's own member.
                    data["members"] = [
                        m.to_dict() for m in guild.members.values() if m.user.id == fake.bot.id
                    ]
                await session.dispatch(self, "GUILD_CREATE", data)
        session.ready = True
        fake._notify()

    async def _resume(self, conn: GatewayConnection, d: JSON) -> None:
        session = self.sessions.get(d.get("session_id", ""))
        seq = d.get("seq") or 0
        if (
            session is None
            or d.get("token") != session.token
            or (session.buffer and seq < session.buffer[0][0] - 1)
        ):
            await conn.send_op(INVALID_SESSION, False)
            return
        old = session.conn
        if old is not None and old is not conn and not old.closed:
            await old.close(4000)
        async with session.lock:
            session.conn = conn
            conn.session = session
            for s, text in list(session.buffer):
                if s > seq:
                    await conn.send(text)
        session.resumes += 1
        await session.dispatch(self, "RESUMED", {})
        self.fake._notify()

    async def _request_members(self, session: GatewaySession, d: JSON) -> None:
        guild = self.fake.guilds.get(int(d.get("guild_id", 0)))
        if guild is None:
            return
        members = list(guild.members.values())
        user_ids = d.get("user_ids")
        query = d.get("query")
        if user_ids:
            wanted = {int(u) for u in (user_ids if isinstance(user_ids, list) else [user_ids])}
            members = [m for m in members if m.user.id in wanted]
        elif query:
            members = [m for m in members if m.user.username.lower().startswith(query.lower())]
        limit = d.get("limit") or 0
        if limit:
            members = members[:limit]
        chunk: JSON = {
            "guild_id": str(guild.id),
            "members": [m.to_dict() for m in members],
            "chunk_index": 0,
            "chunk_count": 1,
            "not_found": [],
        }
        if d.get("nonce") is not None:
            chunk["nonce"] = d["nonce"]
        await session.dispatch(self, "GUILD_MEMBERS_CHUNK", chunk)


def message_intent_for(guild_id: int | None) -> int:
    return INTENT_GUILD_MESSAGES if guild_id is not None else INTENT_DIRECT_MESSAGES
