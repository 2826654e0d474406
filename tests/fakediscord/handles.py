"""What a test gets back from an interaction it sends: its acknowledgement, reply,
follow-ups, modal or choices, awaited, and their latency."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from .constants import FLAG_LOADING
from .messages import Interaction, InteractionEvent, Message
from .models import JSON

if TYPE_CHECKING:
    from .server import FakeDiscord


class FakeDiscordTimeout(TimeoutError):
    pass


class InteractionHandle:
    """What a test gets back from slash/press/select/submit_modal/autocomplete."""

    def __init__(self, fake: FakeDiscord, interaction: Interaction) -> None:
        self.fake = fake
        self.interaction = interaction

    def __repr__(self) -> str:
        i = self.interaction
        return f"<InteractionHandle id={i.id} type={i.type} callback={i.callback_type}>"

    @property
    def id(self) -> int:
        return self.interaction.id

    @property
    def callback_type(self) -> int | None:
        return self.interaction.callback_type

    @property
    def original(self) -> Message | None:
        return self.interaction.original

    @property
    def followups(self) -> list[Message]:
        return list(self.interaction.followups)

    @property
    def events(self) -> list[InteractionEvent]:
        return list(self.interaction.events)

    @property
    def modal(self) -> JSON | None:
        i = self.interaction
        return i.callback_data if i.callback_type == 9 else None

    @property
    def choices(self) -> list[JSON] | None:
        i = self.interaction
        if i.callback_type != 8 or i.callback_data is None:
            return None
        return list(i.callback_data.get("choices", []))

    def _describe(self) -> str:
        i = self.interaction
        name = i.command_name or i.data.get("custom_id") or "?"
        return f"interaction {i.id} ({name!r}, type {i.type})"

    async def ack(self, timeout: float | None = None) -> int:
        """Wait for the initial response; returns its callback type (4, 5, 6, 7, 8 or 9)."""
        return await self.fake.wait_for(
            lambda: self.interaction.callback_type,
            timeout,
            what=f"the bot to answer {self._describe()}",
        )

    def _first(self, predicate: Callable[[InteractionEvent], bool]) -> InteractionEvent | None:
        for event in self.interaction.events:
            if predicate(event):
                return event
        return None

    @staticmethod
    def _is_reply(event: InteractionEvent) -> bool:
        return (
            event.kind in ("callback", "original_edit", "followup")
            and event.revision is not None
            and not event.revision.flags & FLAG_LOADING
        )

    async def reply(self, timeout: float | None = None) -> Message:
        """The first message the interaction produced that is not a "thinking..." placeholder:
        the type 4/7 response, or the first edit of the deferred original, or a follow-up."""
        event = await self.fake.wait_for(
            lambda: self._first(self._is_reply), timeout, what=f"a reply to {self._describe()}"
        )
        assert event.message is not None
        return event.message

    async def followup(self, index: int = 0, timeout: float | None = None) -> Message:
        """The index-th follow-up message (0-based)."""
        followups = self.interaction.followups
        return await self.fake.wait_for(
            lambda: followups[index] if len(followups) > index else None,
            timeout,
            what=f"follow-up #{index} to {self._describe()}",
        )

    async def wait_for_attachment(self, timeout: float | None = None) -> Message:
        """The first message of this interaction that carries an attachment."""
        event = await self.fake.wait_for(
            lambda: self._first(lambda e: bool(e.revision and e.revision.attachments)),
            timeout,
            what=f"an attachment in reply to {self._describe()}",
        )
        assert event.message is not None
        return event.message

    async def wait_for_modal(self, timeout: float | None = None) -> JSON:
        await self.ack(timeout)
        if self.modal is None:
            raise AssertionError(f"{self._describe()} was answered with type {self.callback_type}")
        return self.modal

    async def wait_for_choices(self, timeout: float | None = None) -> list[JSON]:
        await self.ack(timeout)
        choices = self.choices
        if choices is None:
            raise AssertionError(f"{self._describe()} was answered with type {self.callback_type}")
        return choices

    # Latency, in seconds since the INTERACTION_CREATE was written to the websocket.

    def _since_sent(self, event: InteractionEvent | None) -> float | None:
        sent = self.interaction.sent_at
        if event is None or sent is None:
            return None
        return event.at - sent

    @property
    def ack_latency(self) -> float | None:
        return self._since_sent(self._first(lambda e: e.kind == "callback"))

    @property
    def reply_latency(self) -> float | None:
        return self._since_sent(self._first(self._is_reply))

    @property
    def attachment_latency(self) -> float | None:
        return self._since_sent(self._first(lambda e: bool(e.revision and e.revision.attachments)))
