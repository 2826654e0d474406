"""One place that turns an error into a reply: a refusal is the service's sentence,
shown only to the person who asked; anything else is logged and apologised for. Every
answer to an interaction goes through `reply` (or `update`, for the message of a button),
which keeps it within Discord's limits (a long text comes in several messages), and every
interaction is answered in Discord's time (`answer_in_time`)."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import Any

import discord
from discord import app_commands

from bot.service import Refused

log = logging.getLogger("paperboard.discord")

SORRY = "Something went wrong on my side; it is logged. Nothing was changed."
NO_PINGS = discord.AllowedMentions.none()  # an ephemeral answer has no one to notify
MESSAGE_LIMIT = 2000  # characters of a message's content; Discord refuses more (400)
#: Discord takes an interaction's first answer within 3 s of its creation, or never (404,
#: 10062). One still unanswered this long after its creation is deferred, leaving the rest
#: of the 3 s for the defer itself to arrive from a loaded host (1 s left too little: a
#: starved test process's defer arrived after 3 s; a quiet host answers in milliseconds).
DEFER_AFTER_SECONDS = 0.5
#: A command's `extras` key: whether its answer is public (a bool, or a function of the
#: interaction); a late defer shows its "thinking..." to the same people.
PUBLIC_ANSWER = "public answer"


async def report_error(interaction: discord.Interaction, error: BaseException) -> None:
    if isinstance(error, app_commands.CommandInvokeError):
        error = error.original
    if isinstance(error, Refused):
        text = str(error)
    elif isinstance(error, app_commands.CheckFailure):
        text = "You need the Manage Server permission for that."
    else:
        command = interaction.command.name if interaction.command else interaction.data
        log.error("interaction failed: %s", command, exc_info=error)
        text = SORRY
    await reply(interaction, text)


@dataclass
class Answering:
    """An interaction's first answer under way. The lock keeps a late defer and the answer
    from crossing; `placeholder` is the deferred "thinking..." message's audience (True:
    public) until an answer replaces it."""

    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    placeholder: bool | None = None


def answering(interaction: discord.Interaction) -> Answering:
    found = interaction.extras.get(Answering)
    if not isinstance(found, Answering):
        found = interaction.extras[Answering] = Answering()
    return found


async def answer_in_time(interaction: discord.Interaction) -> None:
    """Defer `interaction` when it is still unanswered DEFER_AFTER_SECONDS after its creation
    (a move's board waiting for a busy core, a record's GIF, a query on a loaded host), so
    that its answer, coming later, is not lost. Runs beside the command or button from the
    moment the interaction arrives: one watch for every one of them."""
    command = interaction.type is discord.InteractionType.application_command
    if not command and interaction.type is not discord.InteractionType.component:
        return  # autocomplete is answered with its choices or not at all
    await asyncio.sleep(defer_delay(interaction.created_at.timestamp(), time.time()))
    state = answering(interaction)
    async with state.lock:
        if interaction.response.is_done():
            return
        if not command:  # a button: nothing shown; its message is edited, or a follow-up comes
            await taken(interaction, interaction.response.defer())
            return
        public = public_answer(interaction)
        if await taken(interaction, interaction.response.defer(ephemeral=not public)):
            state.placeholder = public


def defer_delay(created: float, now: float) -> float:
    """Seconds until an interaction created at `created` (Discord's clock, from its id) is
    deferred: what is left of DEFER_AFTER_SECONDS since then, and never more than that
    from `now` (a local clock behind Discord's)."""
    return min(DEFER_AFTER_SECONDS, max(0.0, created + DEFER_AFTER_SECONDS - now))


def public_answer(interaction: discord.Interaction) -> bool:
    """Whether the command's answer is public, as the command says (PUBLIC_ANSWER)."""
    command = interaction.command
    public = command.extras.get(PUBLIC_ANSWER, False) if command is not None else False
    return bool(public(interaction) if callable(public) else public)


def fit(text: str) -> str:
    """The text cut to what Discord takes, the last line of defence: an answer Discord
    refuses leaves the player with none at all. (The bot sends no embeds.)"""
    return text if len(text) <= MESSAGE_LIMIT else text[: MESSAGE_LIMIT - 1] + "…"


def messages_of(lines: list[str]) -> list[str]:
    """The lines packed into as few messages as Discord takes, each cut between lines
    (a single line too long for a message is cut by `fit`)."""
    packed: list[str] = []
    for line in lines:
        if packed and len(packed[-1]) + 1 + len(line) <= MESSAGE_LIMIT:
            packed[-1] += "\n" + line
        else:
            packed.append(fit(line))
    return packed


def code_block(text: str, headline: str = "") -> str:
    """`text` in a code block under `headline`, so its columns line up, in one message:
    when it is too long, the lines that fit, then how many more there are (the pictures
    and the page have them all). A name's backticks cannot close the block."""
    lines = text.replace("```", "``\u200b`").rstrip("\n").splitlines()
    start, end = f"{headline}\n```\n" if headline else "```\n", "\n```"
    if len(start) + len("\n".join(lines)) + len(end) <= MESSAGE_LIMIT:
        return start + "\n".join(lines) + end
    room = MESSAGE_LIMIT - len(start) - len(end) - len(f"\n… and {len(lines):,} more lines.")
    kept: list[str] = []
    for line in lines:
        room -= len(line) + 1
        if room < 0:
            break
        kept.append(line)
    while kept and not kept[-1].strip():  # no blank line before the count
        kept.pop()
    left = sum(1 for line in lines[len(kept) :] if line.strip())
    more = f"… and {left:,} more line{'s' * (left != 1)}."
    return fit(start + "\n".join([*kept, more]) + end)


async def reply(
    interaction: discord.Interaction,
    text: str,
    *,
    ephemeral: bool = True,
    allowed_mentions: discord.AllowedMentions = NO_PINGS,
    **extra: Any,
) -> bool:
    """Answer an interaction (ephemeral unless said otherwise; files and views in
    `extra`), or follow up when it was answered or deferred already. A long text
    without files or views comes in several messages, cut between lines. False when
    Discord did not take the answer (the interaction expired, or Discord is down):
    a caller whose answer was also the announcement must post it another way."""
    parts = [fit(text)] if extra else messages_of(text.splitlines() or [""])
    state = answering(interaction)
    for part in parts:
        async with state.lock:
            if not interaction.response.is_done():
                answer = interaction.response.send_message(
                    part, ephemeral=ephemeral, allowed_mentions=allowed_mentions, **extra
                )
            else:
                # The first follow-up takes the "thinking..." placeholder's place and its
                # audience: a placeholder shown to others than the answer is removed first
                # (a refusal after a public defer stays the asker's own).
                shown_to_others = state.placeholder == ephemeral  # public vs ephemeral
                if shown_to_others and not await taken(
                    interaction, interaction.delete_original_response()
                ):
                    return False
                state.placeholder = None
                answer = interaction.followup.send(
                    part, ephemeral=ephemeral, allowed_mentions=allowed_mentions, **extra
                )
            if not await taken(interaction, answer):
                return False
    return True


async def update(interaction: discord.Interaction, **fields: Any) -> bool:
    """Edit the message whose button was pressed (content, view, attachments...), through
    the interaction's webhook once a late defer answered it. False when Discord did not take
    the edit (see `taken`)."""
    async with answering(interaction).lock:
        if interaction.response.is_done():
            return await taken(interaction, interaction.edit_original_response(**fields))
        return await taken(interaction, interaction.response.edit_message(**fields))


async def taken(interaction: discord.Interaction, answer: Awaitable[object]) -> bool:
    """Send `answer` to `interaction`; False when Discord did not take it (the
    interaction expired: the 3 s ran out under load; or Discord is down), logged."""
    try:
        await answer
    except discord.HTTPException:
        log.warning("could not answer interaction %s", interaction.id, exc_info=True)
        return False
    return True
