"""Playing: /move (its menu offers the legal moves), /undo, /resign (which asks to
confirm), /abort and /conditional, the moves played for you when the opponent answers
as you foresaw. Moves typed as messages in a game's thread are threads.py's."""

from __future__ import annotations

import discord
from discord.app_commands import Choice

from bot.discordbot.cog import MAX_CHOICES, GameCommandCog, described
from bot.discordbot.context import asker
from bot.discordbot.errors import reply
from bot.discordbot.text import MENTIONS, board_file, lines, mention
from bot.discordbot.views import preview_message, resign_view
from bot.discordbot.weblinks import view_kwargs, with_link
from bot.service import (
    MovePlayed,
    MovePreview,
    Refused,
    UndoAnswered,
    conditional_text,
    taken_back_text,
)


def in_a_thread(interaction: discord.Interaction) -> bool:
    """A /move typed in a thread, the game's: its answer is the public board."""
    return isinstance(interaction.channel, discord.Thread)


class MovesCog(GameCommandCog):
    @described("move", public=in_a_thread)
    async def move(
        self, interaction: discord.Interaction, move: str, game: int | None = None
    ) -> None:
        summary = await self.game_meant(interaction, game, my_turn=True)
        result = await self.service.play.propose_move(
            summary.id, summary.guild_id, asker(interaction), move
        )
        if isinstance(result, MovePreview):  # the misclick guard: nothing played yet
            question, extra = preview_message(result)
            await reply(interaction, question, **extra)
            return
        board_shown = False  # the answer in the game's thread is the public board
        if interaction.channel_id == result.game.thread_id:
            files = [board_file(result.game, result.png)] if result.png else []
            url = await self.announcer.links.game(result.game)
            board_shown = await reply(
                interaction,
                lines(result.events, result.game),
                ephemeral=False,
                files=files,
                allowed_mentions=MENTIONS,
                **view_kwargs(with_link(None, url)),
            )
        else:
            played = next(e for e in result.events if isinstance(e, MovePlayed))
            where = f" in <#{result.game.thread_id}>" if result.game.thread_id else ""
            texts = ", ".join(played.texts)
            await reply(
                interaction, f"You played {texts} in {result.game.title} #{result.game.id}{where}."
            )
        # A board Discord did not take (the interaction expired) is posted by the announcer.
        await self.announcer.publish(result, thread_done=board_shown, png=result.png)

    move.autocomplete("game")(GameCommandCog.game_choices)

    @move.autocomplete("move")
    async def move_choices(
        self, interaction: discord.Interaction, current: str
    ) -> list[Choice[str]]:
        """Legal moves that start like what was typed (at most 25)."""
        try:
            game_id = interaction.namespace.game
            summary = await self.game_meant(interaction, game_id, my_turn=True)
            hints = await self.service.lookups.move_hints(
                summary.id, summary.guild_id, interaction.user.id, current, limit=MAX_CHOICES
            )
        except Refused:
            return []
        return [Choice(name=move, value=move) for move in hints]

    @described("resign")
    async def resign(self, interaction: discord.Interaction, game: int | None = None) -> None:
        meant = await self.game_meant(interaction, game, my_turn=False)
        # refused at once (not playing, over) rather than after the confirmation
        summary = await self.service.play.may_resign(meant.id, meant.guild_id, asker(interaction))
        await reply(
            interaction,
            f"Resign {summary.title} #{summary.id}? This cannot be taken back.",
            view=resign_view(summary.id, summary.ply),
        )

    resign.autocomplete("game")(GameCommandCog.game_choices)

    @described("abort")
    async def abort(self, interaction: discord.Interaction, game: int | None = None) -> None:
        summary = await self.game_meant(interaction, game, my_turn=False)
        result = await self.service.play.abort(summary.id, summary.guild_id, asker(interaction))
        await reply(interaction, f"{summary.title} #{summary.id} is aborted.")
        await self.announcer.publish(result)

    abort.autocomplete("game")(GameCommandCog.game_choices)

    @described("undo")
    async def undo(self, interaction: discord.Interaction, game: int | None = None) -> None:
        summary = await self.game_meant(interaction, game, my_turn=False, last_moved=True)
        result = await self.service.play.request_undo(
            summary.id, summary.guild_id, asker(interaction)
        )
        granted = next((e for e in result.events if isinstance(e, UndoAnswered) and e.done), None)
        await reply(  # the bot grants an undo at once: what went, the bot's reply too
            interaction,
            taken_back_text(granted, result.game, mention, you=interaction.user.id)
            if granted is not None
            else "Your opponents have been asked.",
        )
        await self.announcer.publish(result)

    undo.autocomplete("game")(GameCommandCog.game_choices)

    @described("conditional")
    async def conditional(
        self,
        interaction: discord.Interaction,
        line: str | None = None,
        action: str | None = None,
        game: int | None = None,
    ) -> None:
        summary = await self.game_meant(interaction, game, my_turn=False)
        found = await self.service.conditionals.conditional(
            summary.id, summary.guild_id, asker(interaction), action, line
        )
        await reply(interaction, conditional_text(found))  # ephemeral: the owner's only

    conditional.autocomplete("game")(GameCommandCog.game_choices)
