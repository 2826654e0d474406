"""Looking at games: /board (now or after any move), /next, /games, /record (with the
replay as a GIF), /web (the pages' addresses) and /export."""

from __future__ import annotations

import io

import discord
from discord import app_commands

from bot.discordbot.cog import GameCommandCog, described, game_line
from bot.discordbot.context import asker, guild_of
from bot.discordbot.errors import code_block, reply
from bot.discordbot.text import board_file, mention
from bot.discordbot.views import show_next
from bot.discordbot.weblinks import link_button, view_kwargs, with_link
from bot.web.links import SIGN_IN


def asked_public(interaction: discord.Interaction) -> bool:
    """A /board asked with public: True."""
    return bool(interaction.namespace.public)


class LookingCog(GameCommandCog):
    @described("board", public=asked_public)
    async def board(
        self,
        interaction: discord.Interaction,
        game: int | None = None,
        ply: app_commands.Range[int, 0, 100_000] | None = None,
        groups: bool = False,
        public: bool = False,
    ) -> None:
        summary = await self.game_meant(interaction, game, my_turn=False)
        board = await self.service.lookups.board(
            summary.id,
            summary.guild_id,
            ply=ply,
            groups=groups,
            viewer_id=None if public else interaction.user.id,  # its deadline in their zone
        )
        caption = f"{board.game.title} #{board.game.id}, move {board.ply}"
        await reply(
            interaction,
            caption,
            ephemeral=not public,
            file=board_file(board.game, board.png, board.ply),
        )

    board.autocomplete("game")(GameCommandCog.game_choices)

    @described("next")
    async def next_game(self, interaction: discord.Interaction) -> None:
        await show_next(interaction)

    @described("games")
    async def games(
        self,
        interaction: discord.Interaction,
        player: discord.User | None = None,
        status: str | None = None,
    ) -> None:
        whose = player or interaction.user
        listed = await self.service.lookups.games(
            guild_of(interaction),
            player_id=whose.id,
            status=status,
            viewer_id=interaction.user.id,
            limit=20,
        )
        if not listed:
            await reply(interaction, f"No games for {mention(whose.id)} here.")
            return
        rows = [game_line(g, interaction.user.id) for g in listed]
        await reply(interaction, "\n".join(rows))

    @described("record", public=True)
    async def record(self, interaction: discord.Interaction, game: int | None = None) -> None:
        summary = await self.game_meant(interaction, game, my_turn=False, finished=True)
        record = await self.service.lookups.record(
            summary.id, summary.guild_id, interaction.user.id
        )
        gif = await self.service.lookups.replay_gif(summary.id, summary.guild_id)
        url = await self.announcer.links.game(summary)
        await reply(
            interaction,
            code_block(record.text),
            ephemeral=False,
            file=discord.File(io.BytesIO(gif), filename=f"{summary.game}-{summary.id}.gif"),
            **view_kwargs(with_link(None, url)),
        )

    @described("web")
    async def web(
        self, interaction: discord.Interaction, game: int | None = None, event: int | None = None
    ) -> None:
        """The address of a page, to the asker: the game named or this thread's (and its
        event's), the event named, else the server's; and a link that signs the asker in
        on the web, once."""
        thread = interaction.channel if isinstance(interaction.channel, discord.Thread) else None
        pages = await self.announcer.links.pages(
            guild_of(interaction),
            game_id=game,
            event_id=event,
            thread_id=None if thread is None else thread.id,
        )
        view = discord.ui.View(timeout=None)
        lines = [f"{what}: <{url}>" for what, url in pages]
        for what, url in pages:
            view.add_item(link_button(url, what))
        sign_in = await self.announcer.links.sign_in(asker(interaction))
        if sign_in is not None:
            lines.append(SIGN_IN.format(f"<{sign_in}>"))
            view.add_item(link_button(sign_in, "Sign in on the web"))
        await reply(interaction, "\n".join(lines), view=view)

    @described("export")
    async def export(
        self, interaction: discord.Interaction, game: int | None = None, format: str = "json"
    ) -> None:
        summary = await self.game_meant(interaction, game, my_turn=False, finished=True)
        exported = await self.service.exports.export(summary.id, summary.guild_id, format)
        await reply(
            interaction,
            f"{summary.title} #{summary.id} as {format}.",
            file=discord.File(io.BytesIO(exported.data), filename=exported.filename),
        )
