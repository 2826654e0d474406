"""Moves typed in a game's thread: the player to move plays by writing the move; a seated
player's message that reads as a move attempt gets the refusal, one that is a bare
command word (resign, undo, board: what the console and mail take) gets a pointer to
its slash command, and chat stays chat."""

from __future__ import annotations

import logging

import discord
from discord.ext import commands

import engine
from bot.discordbot.announce import CANNOT_READ, Announcer
from bot.discordbot.context import as_player
from bot.discordbot.text import MENTIONS
from bot.discordbot.views import preview_message
from bot.service import (
    NOT_A_MOVE,
    GameService,
    GameSummary,
    MovePreview,
    Refused,
    reads_as_move,
)

log = logging.getLogger("paperboard.discord")

#: Words a player may write alone in a thread for what a slash command does: each is
#: answered with the command, never acted on (a game is not resigned by one word).
BARE_COMMANDS = {
    "resign": "To resign, use /resign, which asks you to confirm; a message never resigns.",
    "undo": "To take back your last move, use /undo.",
    "board": "To see the board, use /board.",
}
#: Words that are a whole move in some game ("swap").
WORD_MOVES = frozenset(word for info in engine.GAMES.values() for word in info.word_moves)


class ThreadMovesCog(commands.Cog):
    def __init__(self, service: GameService, announcer: Announcer) -> None:
        self.service = service
        self.announcer = announcer
        self.warned_threads: set[int] = set()

    @commands.Cog.listener()
    async def on_message(self, message: discord.Message) -> None:
        """In a game's thread, a message from the player to move that reads as a move plays
        it; one from a seated player that reads as an attempt at a move is answered with
        why it is refused (whose turn it is, what the game's moves look like), and one
        that is a bare command word with the slash command for it."""
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
        pointer = bare_word_answer(message.content, game)
        if pointer is not None:
            await message.reply(pointer, allowed_mentions=MENTIONS)
            return
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


def bare_word_answer(text: str, game: GameSummary) -> str | None:
    """The answer to a message that is one command word ("resign", "Undo!"), or a word
    that is a move in other games but not in this one ("swap" in Hot Wire); None for
    anything else. "resign?" asks the opponent something: chat."""
    word = text.strip().lower().rstrip(".!")
    if word in BARE_COMMANDS:
        return BARE_COMMANDS[word]
    if word in WORD_MOVES and word not in engine.GAMES[game.game].word_moves:
        return f"There is no {word} in {game.title}."
    return None
