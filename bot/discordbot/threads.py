"""Moves typed in a game's thread: the player to move plays by writing the move; a seated
player's message that reads as a move attempt gets the refusal, and chat stays chat."""

from __future__ import annotations

import logging

import discord
from discord.ext import commands

from bot.discordbot.announce import CANNOT_READ, Announcer
from bot.discordbot.context import as_player
from bot.discordbot.text import MENTIONS
from bot.discordbot.views import preview_message
from bot.service import NOT_A_MOVE, GameService, MovePreview, Refused, reads_as_move

log = logging.getLogger("paperboard.discord")


class ThreadMovesCog(commands.Cog):
    def __init__(self, service: GameService, announcer: Announcer) -> None:
        self.service = service
        self.announcer = announcer
        self.warned_threads: set[int] = set()

    @commands.Cog.listener()
    async def on_message(self, message: discord.Message) -> None:
        """In a game's thread, a message from the player to move that reads as a move plays
        it; one from a seated player that reads as an attempt at a move is answered with
        why it is refused (whose turn it is, what the game's moves look like)."""
        if message.author.bot or not isinstance(message.channel, discord.Thread):
            return
        game = await self.service.lookups.game_in_thread(message.channel.id)
        if game is None or game.status != "active" or game.seat_of(message.author.id) is None:
            return
        attempt = reads_as_move(message.content)
        on_move = game.player_to_move == message.author.id
        if not message.content:
            if on_move and not self.announcer.reads_messages:
                await self.cannot_read(message.channel)
            return  # a picture or a sticker: chat, not a move
        if not (on_move or attempt):
            return  # chat of the player waiting for their turn
        try:
            result = await self.service.play.propose_move(
                game.id, game.guild_id, as_player(message.author), message.content
            )
            if isinstance(result, MovePreview):  # the misclick guard: the mover confirms
                question, extra = preview_message(result)
                await message.reply(question, **extra, allowed_mentions=MENTIONS)
                return
        except Refused as refusal:
            if attempt or refusal.code not in NOT_A_MOVE:
                await message.reply(str(refusal), allowed_mentions=MENTIONS)
            return  # chat that is not a move stays chat
        except Exception:
            log.exception("game=%d thread move failed", game.id)
            return
        await self.announcer.publish(result, png=result.png)

    async def cannot_read(self, thread: discord.Thread) -> None:
        """Without the message-content intent messages arrive empty: say so once."""
        if thread.id in self.warned_threads:
            return
        self.warned_threads.add(thread.id)
        await self.announcer.send(thread, CANNOT_READ)
