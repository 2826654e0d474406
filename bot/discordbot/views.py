"""Buttons that survive restarts: each is a DynamicItem whose custom_id carries the game
(and, for undo answers, the ply it was asked at), so no view needs to live in memory.
The service decides; a stale button says the game has moved on."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Self, TypeVar

import discord

from bot.discordbot.context import asker, context_of, guild_of
from bot.discordbot.errors import fit, reply, report_error, update
from bot.discordbot.text import MENTIONS, board_file, lines, status_text, when
from bot.discordbot.weblinks import with_link
from bot.service import (
    Code,
    GameSummary,
    MovePlayed,
    MovePreview,
    Player,
    Refused,
    Result,
    ServiceCode,
    UndoAnswered,
)
from bot.service.play.challenges import Challenges


@dataclass(frozen=True, slots=True)
class ChallengeAction:
    """What a challenge button shows and the use case it calls."""

    label: str
    style: discord.ButtonStyle
    use_case: Callable[[Challenges, int, int, Player], Awaitable[Result]]


#: The challenge buttons, by the action word in their custom_id.
CHALLENGE_ACTIONS: Mapping[str, ChallengeAction] = {
    "accept": ChallengeAction("Accept", discord.ButtonStyle.success, Challenges.accept),
    "decline": ChallengeAction("Decline", discord.ButtonStyle.danger, Challenges.decline),
    "join": ChallengeAction("Join", discord.ButtonStyle.primary, Challenges.join),
    "cancel": ChallengeAction("Cancel", discord.ButtonStyle.secondary, Challenges.cancel),
}


class ChallengeButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"pb:c:(?P<action>{'|'.join(CHALLENGE_ACTIONS)}):(?P<game>\d{{1,19}})",
):
    def __init__(self, action: str, game_id: int) -> None:
        self.action = CHALLENGE_ACTIONS[action]
        super().__init__(
            discord.ui.Button(
                label=self.action.label,
                style=self.action.style,
                custom_id=f"pb:c:{action}:{game_id}",
            )
        )
        self.game_id = game_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> Self:
        return cls(match["action"], int(match["game"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        bot = context_of(interaction)
        result = await decided(
            interaction,
            self.game_id,
            lambda: self.action.use_case(
                bot.service.challenges, self.game_id, guild_of(interaction), asker(interaction)
            ),
        )
        if result is None:
            return
        edited = await update(
            interaction,
            content=fit(status_text(result.game)),
            view=with_link(challenge_view(result.game), await bot.links.game(result.game)),
            allowed_mentions=MENTIONS,
        )
        await bot.announcer.publish(result, status_done=edited)


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
        return await decided(interaction, self.game_id, decide)


class UndoButton(
    AnswerButton, template=r"pb:u:(?P<answer>yes|no):(?P<game>\d{1,19}):(?P<ply>\d{1,9})"
):
    KIND = "u"
    LABELS: ClassVar[Mapping[str, tuple[str, discord.ButtonStyle]]] = {
        "yes": ("Accept undo", discord.ButtonStyle.success),
        "no": ("Decline", discord.ButtonStyle.danger),
    }

    async def callback(self, interaction: discord.Interaction) -> None:
        bot = context_of(interaction)
        result = await self.answered(
            interaction,
            lambda: bot.service.play.answer_undo(
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
            isinstance(e, UndoAnswered) and (e.done or not e.accepted) for e in result.events
        )
        asked = interaction.message.content if interaction.message else ""
        await update(
            interaction,
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
            await update(
                interaction, content=f"You did not resign game #{self.game_id}.", view=None
            )
            return
        bot = context_of(interaction)
        guild_id = interaction.guild_id or 0

        async def resign() -> Result:
            game = await bot.service.lookups.game(self.game_id, guild_id)
            if game.ply != self.ply:
                raise Refused(f"the game is at move {game.ply} now.", code=ServiceCode.STALE)
            return await bot.service.play.resign(self.game_id, guild_id, asker(interaction))

        result = await self.answered(interaction, resign)
        if result is None:
            return
        await update(
            interaction, content=f"You resigned {result.game.title} #{self.game_id}.", view=None
        )
        await bot.announcer.publish(result)


class ConfirmMoveButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"pb:m:(?P<answer>yes|no):(?P<game>\d{1,19}):(?P<ply>\d{1,9}):(?P<move>.{1,60})",
):
    """The misclick guard's Confirm and Cancel: `pb:m:yes|no:GAME:PLY:MOVE`. A confirmation
    plays the move only on the position it was shown on (the service refuses a stale one)."""

    LABELS: ClassVar[Mapping[str, tuple[str, discord.ButtonStyle]]] = {
        "yes": ("Confirm", discord.ButtonStyle.success),
        "no": ("Cancel", discord.ButtonStyle.secondary),
    }

    def __init__(self, answer: str, game_id: int, ply: int, move: str) -> None:
        label, style = self.LABELS[answer]
        custom_id = f"pb:m:{answer}:{game_id}:{ply}:{move}"
        super().__init__(discord.ui.Button(label=label, style=style, custom_id=custom_id))
        self.answer, self.game_id, self.ply, self.move = answer, game_id, ply, move

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> Self:
        return cls(match["answer"], int(match["game"]), int(match["ply"]), match["move"])

    async def callback(self, interaction: discord.Interaction) -> None:
        bot = context_of(interaction)
        if self.answer == "no":
            # A typed move's question is public: only its player may cancel it.
            game = await decided(
                interaction,
                self.game_id,
                lambda: bot.service.lookups.game(self.game_id, guild_of(interaction)),
            )
            if game is None:
                return
            asked_here = game.status == "active" and game.ply == self.ply
            if asked_here and game.player_to_move != interaction.user.id:
                await reply(interaction, "Only the player who asked can cancel this move.")
                return
            await update(
                interaction, content=f"Move {self.move} not played.", attachments=[], view=None
            )
            return
        result = await decided(
            interaction,
            self.game_id,
            lambda: bot.service.play.move(
                self.game_id,
                guild_of(interaction),
                asker(interaction),
                self.move,
                expected_ply=self.ply,
            ),
        )
        if result is None:
            return
        played = next(e for e in result.events if isinstance(e, MovePlayed))
        texts = ", ".join(played.texts)
        await update(
            interaction,
            content=f"You played {texts} in {result.game.title} #{self.game_id}.",
            attachments=[],
            view=None,
        )
        await bot.announcer.publish(result, png=result.png)


#: The longest typed move a confirmation button can carry (custom_ids hold 100 characters).
MAX_CONFIRMED_MOVE = 60


def preview_message(preview: MovePreview) -> tuple[str, dict[str, Any]]:
    """The misclick guard's question: the board with the move drawn, Confirm and Cancel."""
    game = preview.game
    if len(preview.move) > MAX_CONFIRMED_MOVE:
        raise Refused(
            "That move is too long to confirm with a button; turn confirm_moves off in "
            "/settings to play it.",
            code=Code.TOO_LONG,
        )
    view = discord.ui.View(timeout=None)
    for answer in ("yes", "no"):
        view.add_item(ConfirmMoveButton(answer, game.id, preview.ply, preview.move))
    question = (
        f"Play {preview.played} in {game.title} #{game.id}? Nothing is played until you confirm."
    )
    return question, {"file": board_file(game, preview.png, preview.ply + 1), "view": view}


class NextButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"pb:n:(?P<game>\d{1,19})"
):
    """The next-game queue's "Next game": the game after this one where it is your move."""

    def __init__(self, game_id: int) -> None:
        super().__init__(
            discord.ui.Button(
                label="Next game", style=discord.ButtonStyle.primary, custom_id=f"pb:n:{game_id}"
            )
        )
        self.game_id = game_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> Self:
        return cls(int(match["game"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        try:
            await show_next(interaction, after=self.game_id)
        except Refused as refusal:
            await reply(interaction, str(refusal))
        except Exception as error:  # a DynamicItem's errors are otherwise only logged
            await report_error(interaction, error)


async def show_next(interaction: discord.Interaction, *, after: int | None = None) -> None:
    """The next game of the queue, to the asker only: board, thread, time left, a button."""
    found = await context_of(interaction).service.queue.next_game(
        guild_of(interaction), interaction.user.id, after=after
    )
    game = found.game
    due = f", due {when(game.deadline)}" if game.deadline else ""
    where = f" in <#{game.thread_id}>" if game.thread_id else ""
    text = (
        f"{game.title} #{game.id}: your move{due}{where} "
        f"({found.position} of {found.waiting} waiting for you)"
    )
    extra: dict[str, Any] = {"file": board_file(game, found.png)}
    if found.waiting > 1:
        view = discord.ui.View(timeout=None)
        view.add_item(NextButton(game.id))
        extra["view"] = view
    await reply(interaction, text, **extra)


AnswerT = TypeVar("AnswerT")


async def decided(
    interaction: discord.Interaction, game_id: int, decide: Callable[[], Awaitable[AnswerT]]
) -> AnswerT | None:
    """A button's use case: its result, or None when it was refused or failed (the
    presser was told: a stale button shows the board as it is now)."""
    try:
        return await decide()
    except Refused as refusal:
        await _refuse(interaction, game_id, refusal)
    except Exception as error:  # a DynamicItem's errors are otherwise only logged
        await report_error(interaction, error)
    return None


async def _refuse(interaction: discord.Interaction, game_id: int, refusal: Refused) -> None:
    if refusal.code in (
        ServiceCode.STALE,
        ServiceCode.NO_UNDO,
        ServiceCode.NOT_OPEN,
        ServiceCode.EXPIRED,
        Code.GAME_OVER,
    ):
        await latest_board(interaction, game_id, f"This game has moved on: {refusal}")
    else:
        await reply(interaction, str(refusal))


async def latest_board(interaction: discord.Interaction, game_id: int, note: str) -> None:
    """A stale button: say so, and show the board as it is now, to the presser only."""
    try:
        board = await context_of(interaction).service.lookups.board(
            game_id, guild_of(interaction), viewer_id=interaction.user.id
        )
    except Refused as refusal:
        await reply(interaction, str(refusal))
        return
    await reply(interaction, note, file=board_file(board.game, board.png))


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
