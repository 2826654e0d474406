"""Paperboard's slash commands and thread messages. Thin: read Discord's types, call the
service, format the answer. Names, descriptions, parameters' help and choices come from
bot.commands; tests/test_commands.py checks each signature against it."""

from __future__ import annotations

import inspect
import io
import re
from collections.abc import Callable
from typing import Any

import discord
from discord import app_commands
from discord.app_commands import Choice
from discord.ext import commands

import engine
from bot.commands import BY_NAME
from bot.commands.declaration import Param
from bot.discordbot.announce import Announcer
from bot.discordbot.context import as_player, asker, guild_of
from bot.discordbot.errors import PUBLIC_ANSWER, code_block, reply, report_error
from bot.discordbot.text import MENTIONS, board_file, lines, mention, status_text, when
from bot.discordbot.views import challenge_view, preview_message, resign_view, show_next
from bot.discordbot.weblinks import link_button, view_kwargs, with_link
from bot.service import (
    DEFAULT_LEVEL,
    Code,
    GameService,
    GameSummary,
    MovePlayed,
    MovePreview,
    Place,
    Refused,
    Result,
    ServiceCode,
    UndoAnswered,
    banks_text,
    bot_record_lines,
    clock_text,
    conditional_text,
    leaderboard_line,
    parse_days,
    rating_line,
    rules_card,
    settings_line,
    shown,
    taken_back_text,
)
from bot.web.links import WebLinks

MAX_CHOICES = 25  # Discord's limit for autocomplete


def described(name: str, *, public: bool | Callable[[discord.Interaction], bool] = False) -> Any:
    """The command's description, its parameters' help and choices, from the registry;
    `public`: whether its answer is (the audience of its "thinking..." when it is slow)."""
    spec = BY_NAME[name]

    def decorate(function: Any) -> Any:
        # a parameter missing from the signature is left to tests/test_commands.py to name
        taken = [p for p in spec.params if p.name in inspect.signature(function).parameters]
        helps = {param.name: param.help[:100] for param in taken}
        menus = {param.name: menu(param) for param in taken if param.choices}
        if menus:
            function = app_commands.choices(**menus)(function)
        if helps:
            function = app_commands.describe(**helps)(function)
        return app_commands.command(  # "tournament create": create, in a GroupCog
            name=name.split()[-1], description=spec.help[:100], extras={PUBLIC_ANSWER: public}
        )(function)

    return decorate


def menu(param: Param) -> list[Choice[str]]:
    """A parameter's choices as Discord lists them: a game by its title, days as days."""
    if param.kind == "game":
        return [Choice(name=engine.GAMES[game].title, value=game) for game in param.choices]
    if param.kind == "days":
        return [
            Choice(name=clock_text(days if isinstance(days, int) else None), value=d)
            for d in param.choices
            for days in [parse_days(d, unset="default")]
        ]
    return [Choice(name=choice, value=choice) for choice in param.choices]


def in_a_thread(interaction: discord.Interaction) -> bool:
    """A /move typed in a thread, the game's: its answer is the public board."""
    return isinstance(interaction.channel, discord.Thread)


def asked_public(interaction: discord.Interaction) -> bool:
    """A /board asked with public: True."""
    return bool(interaction.namespace.public)


class GamesCog(commands.Cog):
    def __init__(self, service: GameService, announcer: Announcer) -> None:
        self.service = service
        self.announcer = announcer

    async def cog_app_command_error(
        self, interaction: discord.Interaction, error: app_commands.AppCommandError
    ) -> None:
        await report_error(interaction, error)

    # -- challenges ----------------------------------------------------------------------

    @described("challenge", public=True)
    async def challenge(
        self,
        interaction: discord.Interaction,
        game: str,
        opponent: discord.User | None = None,
        opponent2: discord.User | None = None,
        opponent3: discord.User | None = None,
        opponent4: discord.User | None = None,
        opponent5: discord.User | None = None,
        opponent6: discord.User | None = None,
        opponent7: discord.User | None = None,
        email: str | None = None,
        open_seats: app_commands.Range[int, 0, 7] = 0,
        size: str | None = None,
        options: str | None = None,
        days_per_move: str | None = None,
        clock: str | None = None,
        first: str = "random",
        rated: bool | None = None,
        level: str | None = None,
    ) -> None:
        if interaction.guild_id is None:
            raise Refused(
                "Challenges are made in a server's channel, where the game gets its own "
                "thread; not in direct messages.",
                code=ServiceCode.DM,
            )
        if isinstance(interaction.channel, discord.Thread):
            raise Refused(
                "Start challenges in a channel; each game gets its own thread.",
                code=ServiceCode.THREAD,
            )
        named = [
            u
            for u in (opponent, opponent2, opponent3, opponent4, opponent5, opponent6, opponent7)
            if u
        ]
        me = interaction.client.user
        robots = [u for u in named if me is not None and u.id == me.id]  # a seat each
        people = [u for u in named if u not in robots]
        if any(user.bot for user in people):
            raise Refused(
                "Other bots can't play; challenge a person, or me.", code=ServiceCode.BOT_OPPONENT
            )
        bots = [level or DEFAULT_LEVEL] * len(robots) or ([level] if level else [])
        settings = key_values(options)
        if size:
            settings["size"] = size
        opponents = [as_player(user) for user in people]
        if email:  # a player by mail, named by their address
            opponents.append(await self.service.mail_opponent(guild_of(interaction), email))
        result = await self.service.challenge(
            Place(guild_of(interaction), interaction.channel_id or 0),
            asker(interaction),
            game,
            opponents=opponents,
            open_seats=open_seats,
            options=settings,
            days_per_move=parse_days(days_per_move, unset="default"),
            first=first,
            rated=rated,
            bots=bots,
            clock=clock,
        )
        await self.post_challenge(interaction, result)

    async def post_challenge(self, interaction: discord.Interaction, result: Result) -> None:
        """The challenge message is the command's public answer; it stands for the game."""
        game = result.game
        view = with_link(challenge_view(game), await self.announcer.links.game(game))
        answered = await reply(
            interaction,
            status_text(game),
            ephemeral=False,
            allowed_mentions=MENTIONS,
            **view_kwargs(view),
        )
        if answered:
            message = await interaction.original_response()
            await self.service.attach(game.id, message_id=message.id)
        # Not answered (the interaction expired): the announcer posts the message instead.
        await self.announcer.publish(result, status_done=answered)

    # -- moves -----------------------------------------------------------------------------

    @described("move", public=in_a_thread)
    async def move(
        self, interaction: discord.Interaction, move: str, game: int | None = None
    ) -> None:
        summary = await self.game_meant(interaction, game, my_turn=True)
        result = await self.service.propose_move(
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

    @move.autocomplete("game")
    async def game_choices(
        self, interaction: discord.Interaction, current: str
    ) -> list[Choice[int]]:
        return await self.my_games(interaction, current)

    @move.autocomplete("move")
    async def move_choices(
        self, interaction: discord.Interaction, current: str
    ) -> list[Choice[str]]:
        """Legal moves that start like what was typed (at most 25)."""
        try:
            game_id = interaction.namespace.game
            summary = await self.game_meant(interaction, game_id, my_turn=True)
            hints = await self.service.move_hints(
                summary.id, summary.guild_id, interaction.user.id, current, limit=MAX_CHOICES
            )
        except Refused:
            return []
        return [Choice(name=move, value=move) for move in hints]

    # -- looking ----------------------------------------------------------------------------

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
        board = await self.service.board(
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

    board.autocomplete("game")(game_choices)

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
        listed = await self.service.games(
            guild_of(interaction),
            player_id=whose.id,
            status=status,
            viewer_id=interaction.user.id,
            limit=20,
        )
        if not listed:
            await reply(interaction, f"No games for {mention(whose.id)} here.")
            return
        rows = [_game_line(g, interaction.user.id) for g in listed]
        await reply(interaction, "\n".join(rows))

    # -- ending and taking back ------------------------------------------------------------------

    @described("resign")
    async def resign(self, interaction: discord.Interaction, game: int | None = None) -> None:
        meant = await self.game_meant(interaction, game, my_turn=False)
        # refused at once (not playing, over) rather than after the confirmation
        summary = await self.service.may_resign(meant.id, meant.guild_id, asker(interaction))
        await reply(
            interaction,
            f"Resign {summary.title} #{summary.id}? This cannot be taken back.",
            view=resign_view(summary.id, summary.ply),
        )

    resign.autocomplete("game")(game_choices)

    @described("abort")
    async def abort(self, interaction: discord.Interaction, game: int | None = None) -> None:
        summary = await self.game_meant(interaction, game, my_turn=False)
        result = await self.service.abort(summary.id, summary.guild_id, asker(interaction))
        await reply(interaction, f"{summary.title} #{summary.id} is aborted.")
        await self.announcer.publish(result)

    abort.autocomplete("game")(game_choices)

    @described("undo")
    async def undo(self, interaction: discord.Interaction, game: int | None = None) -> None:
        summary = await self.game_meant(interaction, game, my_turn=False, last_moved=True)
        result = await self.service.request_undo(summary.id, summary.guild_id, asker(interaction))
        granted = next((e for e in result.events if isinstance(e, UndoAnswered) and e.done), None)
        await reply(  # the bot grants an undo at once: what went, the bot's reply too
            interaction,
            taken_back_text(granted, result.game, mention, you=interaction.user.id)
            if granted is not None
            else "Your opponents have been asked.",
        )
        await self.announcer.publish(result)

    undo.autocomplete("game")(game_choices)

    @described("rematch", public=True)
    async def rematch(self, interaction: discord.Interaction, game: int | None = None) -> None:
        summary = await self.game_meant(interaction, game, my_turn=False, finished=True)
        result = await self.service.rematch(summary.id, summary.guild_id, asker(interaction))
        channel = await self.announcer.channel(result.game.channel_id)
        if channel is None or interaction.channel_id == result.game.channel_id:
            await self.post_challenge(interaction, result)
            return
        # Answered first: the challenge message is posted in its channel afterwards.
        await reply(interaction, f"Rematch offered in <#{result.game.channel_id}>.")
        await self.announcer.publish(result)  # the challenge message, in the game's channel

    @described("record", public=True)
    async def record(self, interaction: discord.Interaction, game: int | None = None) -> None:
        summary = await self.game_meant(interaction, game, my_turn=False, finished=True)
        record = await self.service.record(summary.id, summary.guild_id, interaction.user.id)
        gif = await self.service.replay_gif(summary.id, summary.guild_id)
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
        event's), the event named, else the server's."""
        thread = interaction.channel if isinstance(interaction.channel, discord.Thread) else None
        pages = await self.announcer.links.pages(
            guild_of(interaction),
            game_id=game,
            event_id=event,
            thread_id=None if thread is None else thread.id,
        )
        view = discord.ui.View(timeout=None)
        for what, url in pages:
            view.add_item(link_button(url, what))
        await reply(interaction, "\n".join(f"{what}: <{url}>" for what, url in pages), view=view)

    @described("conditional")
    async def conditional(
        self,
        interaction: discord.Interaction,
        line: str | None = None,
        action: str | None = None,
        game: int | None = None,
    ) -> None:
        summary = await self.game_meant(interaction, game, my_turn=False)
        found = await self.service.conditional(
            summary.id, summary.guild_id, asker(interaction), action, line
        )
        await reply(interaction, conditional_text(found))  # ephemeral: the owner's only

    conditional.autocomplete("game")(game_choices)

    @described("export")
    async def export(
        self, interaction: discord.Interaction, game: int | None = None, format: str = "json"
    ) -> None:
        summary = await self.game_meant(interaction, game, my_turn=False, finished=True)
        exported = await self.service.export(summary.id, summary.guild_id, format)
        await reply(
            interaction,
            f"{summary.title} #{summary.id} as {format}.",
            file=discord.File(io.BytesIO(exported.data), filename=exported.filename),
        )

    # -- about games and players ----------------------------------------------------------------

    @described("rules")
    async def rules(self, interaction: discord.Interaction, game: str) -> None:
        await reply(interaction, rules_card(game))

    @described("rating")
    async def rating(
        self,
        interaction: discord.Interaction,
        player: discord.User | None = None,
        game: str | None = None,
    ) -> None:
        whose = player or interaction.user
        me = interaction.client.user
        if me is not None and whose.id == me.id:  # the bot plays casual games only
            await self._bot_record(interaction, game)
            return
        found = await self.service.ratings(guild_of(interaction), whose.id, game)
        casual = await self.service.bot_records(guild_of(interaction), whose.id)
        said = [rating_line(r) for r in found] or ["No rated games here yet."]
        said += bot_record_lines([r for r in casual if game is None or r[1] == game], against=True)
        await reply(
            interaction,
            f"{mention(whose.id)}\n" + "\n".join(said),
            allowed_mentions=discord.AllowedMentions.none(),
        )

    async def _bot_record(self, interaction: discord.Interaction, game: str | None) -> None:
        records = await self.service.bot_records(guild_of(interaction))
        shown = bot_record_lines([r for r in records if game is None or r[1] == game])
        if not shown:
            await reply(interaction, "Nobody here has finished a game against me yet.")
            return
        await reply(interaction, "My casual games here, per level:\n" + "\n".join(shown))

    @described("leaderboard")
    async def leaderboard(self, interaction: discord.Interaction, game: str) -> None:
        found = await self.service.leaderboard(guild_of(interaction), game)
        if not found:
            await reply(interaction, "Nobody has finished a rated game of that here yet.")
            return
        rows = [leaderboard_line(i, mention(r.player_id), r) for i, r in enumerate(found, 1)]
        await reply(
            interaction,
            f"**{engine.GAMES[game].title}**\n" + "\n".join(rows),
            allowed_mentions=discord.AllowedMentions.none(),
        )

    @described("settings")
    async def settings(
        self,
        interaction: discord.Interaction,
        reminders: str | None = None,
        time_zone: str | None = None,
        quiet_hours: str | None = None,
        vacation: bool | None = None,
        confirm_moves: bool | None = None,
        digest_hour: app_commands.Range[int, 0, 23] | None = None,
        auto_vacation: bool | None = None,
        weekend: str | None = None,
        email: str | None = None,
        email_code: str | None = None,
        web_profile: bool | None = None,
    ) -> None:
        said = []
        if email is not None:
            said.append(await self.service.link_email(asker(interaction), email))
        if email_code is not None:
            said.append(await self.service.confirm_email(asker(interaction), email_code))
        found = await self.service.player_settings(
            asker(interaction),
            reminders=reminders,
            time_zone=time_zone,
            quiet_hours=quiet_hours,
            vacation=vacation,
            confirm_moves=confirm_moves,
            digest_hour=digest_hour,
            auto_vacation=auto_vacation,
            weekend=weekend,
            web_profile=web_profile,
        )
        await reply(interaction, "\n".join([*said, settings_line(found, when)]))

    @described("config")
    @app_commands.default_permissions(manage_guild=True)
    @app_commands.guild_only()
    async def config(
        self,
        interaction: discord.Interaction,
        channels: str | None = None,
        days_per_move: str | None = None,
        rated: bool | None = None,
        tournaments: str | None = None,
        email: bool | None = None,
        web: str | None = None,
    ) -> None:
        member = interaction.user
        if not isinstance(member, discord.Member) or not member.guild_permissions.manage_guild:
            raise Refused(
                "You need the Manage Server permission for that.", code=ServiceCode.NOT_ADMIN
            )
        found = await self.service.guild_settings(
            guild_of(interaction),
            channels=_channel_ids(channels),
            days_per_move=parse_days(days_per_move, unset="keep"),
            rated=rated,
            tournaments=tournaments,
            email=email,
            email_channel=interaction.channel_id if email else None,
            web=web,
        )
        where = ", ".join(f"<#{c}>" for c in found.channels) or "every channel"
        rated_words = "on" if found.rated else "off"
        by_mail = (
            f"players by mail play in <#{found.email_channel}>"
            if found.email and found.email_channel
            else "no players by mail"
        )
        await reply(
            interaction,
            f"Games may start in {where}; {clock_text(found.days_per_move)}; "
            f"rated games {rated_words}; events run by {found.tournaments}; {by_mail}; "
            f"{WebLinks(self.service).sentence(found)}.",
        )

    # -- helpers -----------------------------------------------------------------------------------

    async def game_meant(
        self,
        interaction: discord.Interaction,
        game_id: int | None,
        *,
        my_turn: bool,
        finished: bool = False,
        last_moved: bool = False,
    ) -> GameSummary:
        """The game named, or this thread's, or the player's only one (on move, for moves;
        `last_moved`: the game of their last move)."""
        guild_id = guild_of(interaction)
        if game_id is not None:
            return await self.service.game(game_id, guild_id)
        thread_id = (
            interaction.channel_id if isinstance(interaction.channel, discord.Thread) else None
        )
        if finished and thread_id is None:
            mine = await self.service.games(
                guild_id, player_id=interaction.user.id, status="finished", limit=1
            )
            if mine:
                return mine[0]
        return await self.service.default_game(
            guild_id, interaction.user.id, thread_id, my_turn=my_turn, last_moved=last_moved
        )

    async def my_games(self, interaction: discord.Interaction, current: str) -> list[Choice[int]]:
        if interaction.guild_id is None:
            return []  # games live in servers
        listed = await self.service.games(
            interaction.guild_id,
            player_id=interaction.user.id,
            viewer_id=interaction.user.id,
            limit=MAX_CHOICES,
        )
        choices = []
        for game in listed:
            label = _game_line(game, interaction.user.id, plain=True)
            if current.strip().lstrip("#") in label:
                choices.append(Choice(name=label[:100], value=game.id))
        return choices[:MAX_CHOICES]


def _game_line(game: GameSummary, viewer: int, *, plain: bool = False) -> str:
    names = " vs ".join(s.name or "open seat" for s in game.seats)
    standing: str = game.status
    if game.status == "active":
        mover = game.player_to_move
        standing = (
            "your move" if mover == viewer else f"{game.name_of_seat(game.to_move or 0)} to move"
        )
        if game.deadline and not plain:
            standing += f", due {when(game.deadline)}"
        if game.banks:
            standing += f" · {banks_text(game)}"
    return f"#{game.id} {game.title}: {names} · {standing}"


def key_values(text: str | None) -> dict[str, str]:
    """key=value pairs typed in one field ("lengths=1,3,5 swap=off")."""
    found: dict[str, str] = {}
    for word in (text or "").split():
        key, sep, value = word.partition("=")
        if not sep or not key or not value:
            raise Refused(
                f"Options are key=value, like lengths=1,3,5; {shown(word)} is not.",
                code=Code.BAD_OPTION,
            )
        found[key.lower().replace("-", "_")] = value
    return found


def _channel_ids(text: str | None) -> list[int] | None:
    if text is None:
        return None
    if text.strip().lower() in ("all", "any", "every", "*"):
        return []
    ids = [int(match) for match in re.findall(r"\d{15,20}", text)]
    if not ids:
        raise Refused(
            "Name channels with #mentions or ids, or say all.", code=ServiceCode.BAD_SETTING
        )
    return ids
