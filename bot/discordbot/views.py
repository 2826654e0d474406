"""Buttons that survive restarts: each is a DynamicItem whose custom_id carries the game
(and, for undo answers, the ply it was asked at), so no view needs to live in memory.
The service decides; a stale button says the game has moved on."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Self

import discord

from bot.discordbot.errors import fit, reply, report_error
from bot.discordbot.text import MENTIONS, lines, status_text
from bot.service import Code, GameSummary, Player, Refused, Result

if TYPE_CHECKING:
    from bot.discordbot.client import PaperboardBot

CHALLENGE_LABELS = {
    "accept": ("Accept", discord.ButtonStyle.success),
    "decline": ("Decline", discord.ButtonStyle.danger),
    "join": ("Join", discord.ButtonStyle.primary),
    "cancel": ("Cancel", discord.ButtonStyle.secondary),
}


def as_player(user: discord.abc.User) -> Player:
    return Player(user.id, user.display_name)


def asker(interaction: discord.Interaction) -> Player:
    """The person who pressed or typed."""
    return as_player(interaction.user)


def guild_of(interaction: discord.Interaction) -> int:
    """The server a command or button is used in. Every game lives in a server; in a
    direct message there is none (and guild 0 is the console's pretend server)."""
    if interaction.guild_id is None:
        raise Refused("Use this in the server where the game is.", code=Code.DM)
    return interaction.guild_id


def paperboard(interaction: discord.Interaction) -> PaperboardBot:
    return interaction.client  # type: ignore[return-value]


class ChallengeButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"pb:c:(?P<action>accept|decline|join|cancel):(?P<game>\d{1,19})",
):
    def __init__(self, action: str, game_id: int) -> None:
        label, style = CHALLENGE_LABELS[action]
        super().__init__(
            discord.ui.Button(label=label, style=style, custom_id=f"pb:c:{action}:{game_id}")
        )
        self.action, self.game_id = action, game_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> Self:
        return cls(match["action"], int(match["game"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        bot = paperboard(interaction)
        try:
            use_case = getattr(bot.service, self.action)
            result = await use_case(self.game_id, guild_of(interaction), asker(interaction))
        except Refused as refusal:
            await _refuse(interaction, self.game_id, refusal)
            return
        except Exception as error:  # a DynamicItem's errors are otherwise only logged
            await report_error(interaction, error)
            return
        await interaction.response.edit_message(
            content=fit(status_text(result.game)),
            view=challenge_view(result.game),
            allowed_mentions=MENTIONS,
        )
        await bot.announcer.publish(result, status_done=True)


class AnswerButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"pb:(?P<kind>[ur]):(?P<answer>yes|no):(?P<game>\d{1,19}):(?P<ply>\d{1,9})",
):
    """A yes or no about a game as it was at a ply: `pb:KIND:yes|no:GAME:PLY`."""

    KIND: ClassVar[str]
    LABELS: ClassVar[Mapping[str, tuple[str, discord.ButtonStyle]]]  # by answer

    def __init__(self, answer: str, game_id: int, ply: int) -> None:
        label, style = self.LABELS[answer]
        custom_id = f"pb:{self.KIND}:{answer}:{game_id}:{ply}"
        super().__init__(discord.ui.Button(label=label, style=style, custom_id=custom_id))
        self.answer, self.game_id, self.ply = answer, game_id, ply

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> Self:
        return cls(match["answer"], int(match["game"]), int(match["ply"]))

    async def answered(
        self, interaction: discord.Interaction, decide: Callable[[], Awaitable[Result]]
    ) -> Result | None:
        """The service's answer; None when it refused or failed (the presser was told)."""
        try:
            return await decide()
        except Refused as refusal:
            await _refuse(interaction, self.game_id, refusal)
        except Exception as error:  # a DynamicItem's errors are otherwise only logged
            await report_error(interaction, error)
        return None


class UndoButton(
    AnswerButton, template=r"pb:u:(?P<answer>yes|no):(?P<game>\d{1,19}):(?P<ply>\d{1,9})"
):
    KIND = "u"
    LABELS: ClassVar[Mapping[str, tuple[str, discord.ButtonStyle]]] = {
        "yes": ("Accept undo", discord.ButtonStyle.success),
        "no": ("Decline", discord.ButtonStyle.danger),
    }

    async def callback(self, interaction: discord.Interaction) -> None:
        bot = paperboard(interaction)
        result = await self.answered(
            interaction,
            lambda: bot.service.answer_undo(
                self.game_id,
                guild_of(interaction),
                asker(interaction),
                accept=self.answer == "yes",
                expected_ply=self.ply,
            ),
        )
        if result is None:
            return
        settled = any(
            getattr(e, "done", False) or not getattr(e, "accepted", True) for e in result.events
        )
        asked = interaction.message.content if interaction.message else ""
        await interaction.response.edit_message(
            content=fit(f"{asked}\n{lines(result.events[:1], result.game)}"),
            view=None if settled else undo_view(self.game_id, self.ply),
            allowed_mentions=MENTIONS,
        )
        await bot.announcer.publish(result)


class ResignButton(
    AnswerButton, template=r"pb:r:(?P<answer>yes|no):(?P<game>\d{1,19}):(?P<ply>\d{1,9})"
):
    """Confirm or cancel a /resign, on the asker's own (ephemeral) message. The ply it was
    asked at makes a confirmation stale once the game has moved on."""

    KIND = "r"
    LABELS: ClassVar[Mapping[str, tuple[str, discord.ButtonStyle]]] = {
        "yes": ("Resign", discord.ButtonStyle.danger),
        "no": ("Keep playing", discord.ButtonStyle.secondary),
    }

    async def callback(self, interaction: discord.Interaction) -> None:
        if self.answer == "no":
            await interaction.response.edit_message(
                content=f"You did not resign game #{self.game_id}.", view=None
            )
            return
        bot = paperboard(interaction)
        guild_id = interaction.guild_id or 0

        async def resign() -> Result:
            game = await bot.service.game(self.game_id, guild_id)
            if game.ply != self.ply:
                raise Refused(f"the game is at move {game.ply} now.", code=Code.STALE)
            return await bot.service.resign(self.game_id, guild_id, asker(interaction))

        result = await self.answered(interaction, resign)
        if result is None:
            return
        await interaction.response.edit_message(
            content=f"You resigned {result.game.title} #{self.game_id}.", view=None
        )
        await bot.announcer.publish(result)


async def _refuse(interaction: discord.Interaction, game_id: int, refusal: Refused) -> None:
    if refusal.code in (Code.STALE, Code.NO_UNDO, Code.NOT_OPEN, Code.EXPIRED, Code.GAME_OVER):
        await paperboard(interaction).announcer.latest_board(
            interaction, game_id, f"This game has moved on: {refusal}"
        )
    else:
        await reply(interaction, str(refusal))


def challenge_view(game: GameSummary) -> discord.ui.View | None:
    """The buttons an open challenge shows; none once it is settled."""
    if game.status != "open":
        return None
    view = discord.ui.View(timeout=None)
    if any(s.player_id is not None and not s.accepted for s in game.seats):
        view.add_item(ChallengeButton("accept", game.id))
        view.add_item(ChallengeButton("decline", game.id))
    if any(s.player_id is None for s in game.seats):
        view.add_item(ChallengeButton("join", game.id))
    view.add_item(ChallengeButton("cancel", game.id))
    return view


def resign_view(game_id: int, ply: int) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(ResignButton("yes", game_id, ply))
    view.add_item(ResignButton("no", game_id, ply))
    return view


def undo_view(game_id: int, ply: int) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(UndoButton("yes", game_id, ply))
    view.add_item(UndoButton("no", game_id, ply))
    return view
