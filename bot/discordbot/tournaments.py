"""Events on Discord: the /tournament commands and the sign-up message's Join and Leave
buttons. Thin, as the game commands' cogs: read Discord's types, call the service,
format the answer.

Who may create and run events is the service's to decide (the server's setting,
`/config tournaments:`); the adapter only tells it whether the member has Manage Server.
The Join and Leave buttons are DynamicItems whose custom_id carries the event's number,
so they keep working after a restart with no view in memory.
"""

from __future__ import annotations

import io
import re
from typing import Any, ClassVar, Self

import discord
from discord import app_commands
from discord.ext import commands

import engine
from bot.discordbot.announce import Announcer
from bot.discordbot.cog import described, key_values
from bot.discordbot.context import as_player, asker, context_of, guild_of
from bot.discordbot.errors import code_block, fit, reply, report_error, update
from bot.discordbot.text import MENTIONS, mention
from bot.discordbot.weblinks import view_kwargs, with_link
from bot.service import (
    DEFAULT_LEVEL,
    GameService,
    Place,
    Refused,
    ServiceCode,
    TournamentResult,
    TournamentSummary,
    clock_text,
    options_text,
    parse_days,
    start_words,
)

LATE_ENTRY = ("league", "ladder")  # events that take entries while under way
SHOWN_ENTRANTS = 40  # names on the sign-up message; the count says the rest


def manages(interaction: discord.Interaction) -> bool:
    """Whether the member has Manage Server (who runs events unless the server opened it)."""
    member = interaction.user
    return isinstance(member, discord.Member) and member.guild_permissions.manage_guild


def signup_text(event: TournamentSummary) -> str:
    """The sign-up message: what the event is, who entered, how to enter."""
    info = engine.GAMES.get(event.game)
    game = info.title if info is not None else event.game
    options = options_text(event.options)
    clock = f"clock {event.time_control}" if event.time_control else clock_text(event.days_per_move)
    terms = [clock, "rated" if event.rated else "casual"]
    if event.time_control and not event.auto_vacation:
        terms.append("no vacation days spent by the clock")
    if event.rounds:
        terms.append(f"{event.rounds} rounds")
    if event.match_games and event.match_games > 1:
        terms.append(f"best of {event.match_games}")
    if event.double:
        terms.append("each pair plays twice")
    standing = [e for e in event.entrants if not e.withdrawn]
    count = len(standing)
    names = ", ".join(e.name for e in standing[:SHOWN_ENTRANTS])
    if count > SHOWN_ENTRANTS:
        names += f" and {count - SHOWN_ENTRANTS:,} more"
    state = {
        "open": "Press Join to enter, Leave to leave.",
        "active": "Under way: `/tournament standings` and `/tournament pairings`.",
        "finished": "Over: `/tournament standings` has the final table.",
        "cancelled": "Called off.",
    }[event.status]
    if event.status == "active" and event.format in LATE_ENTRY:
        state = "Under way; Join still enters it."
    starts = start_words(event, lambda moment: discord.utils.format_dt(moment, "f"))
    if event.status == "open" and starts:
        state = f"{starts} {state}"
    return (
        f"**{event.title}** (event #{event.id}): a {event.format_title}"
        f" of {game}{f' ({options})' if options else ''}, {', '.join(terms)}. "
        f"Run by {mention(event.organizer_id)}.\n"
        f"{count} player{'s' * (count != 1)}{': ' + names if names else ''}\n{state}"
    )


def standings_headline(event: TournamentSummary) -> str:
    """What the standings of an event that has begun are: final, or where it stands."""
    title = f"**{event.title}**"
    if event.status == "finished":
        return f"{title}: final standings."
    if event.status == "cancelled":
        return f"{title}: standings when it was called off."
    if event.format == "ladder":
        return f"{title}: standings so far."
    return f"{title}: standings in round {event.round}."


def signup_view(event: TournamentSummary) -> discord.ui.View | None:
    """Join and Leave while the event takes entries (a league or a ladder's under way)."""
    open_ = event.status == "open" or (event.status == "active" and event.format in LATE_ENTRY)
    if not open_:
        return None
    view = discord.ui.View(timeout=None)
    view.add_item(SignupButton("join", event.id))
    view.add_item(SignupButton("leave", event.id))
    return view


class SignupButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"pb:t:(?P<action>join|leave):(?P<event>\d{1,19})",
):
    """Join or Leave on an event's sign-up message: `pb:t:join|leave:EVENT`."""

    STYLES: ClassVar[dict[str, discord.ButtonStyle]] = {
        "join": discord.ButtonStyle.primary,
        "leave": discord.ButtonStyle.secondary,
    }

    def __init__(self, action: str, event_id: int) -> None:
        super().__init__(
            discord.ui.Button(
                label=action.title(),
                style=self.STYLES[action],
                custom_id=f"pb:t:{action}:{event_id}",
            )
        )
        self.action, self.event_id = action, event_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> Self:
        return cls(match["action"], int(match["event"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        bot = context_of(interaction)
        use_case = (
            bot.service.events.join_tournament
            if self.action == "join"
            else bot.service.events.leave_tournament
        )
        try:
            result = await use_case(self.event_id, guild_of(interaction), asker(interaction))
        except Refused as refusal:
            if refusal.code is ServiceCode.NOT_OPEN:  # started or over: the message says so now
                event = await bot.service.event_reads.tournament(
                    self.event_id, guild_of(interaction)
                )
                await update(
                    interaction,
                    content=fit(signup_text(event)),
                    view=signup_view(event),
                    allowed_mentions=discord.AllowedMentions.none(),
                )
            await reply(interaction, str(refusal))
            return
        except Exception as error:  # a DynamicItem's errors are otherwise only logged
            await report_error(interaction, error)
            return
        await update(
            interaction,
            content=fit(signup_text(result.tournament)),
            view=signup_view(result.tournament),
            allowed_mentions=discord.AllowedMentions.none(),
        )
        for announced in result.results:  # a withdrawal after the start: its forfeits
            await bot.announcer.publish(announced)


class TournamentsCog(
    commands.GroupCog,
    group_name="tournament",
    group_description="Tournaments, leagues and ladders: create, start, standings, pairings.",
):
    def __init__(self, service: GameService, announcer: Announcer) -> None:
        self.service = service
        self.announcer = announcer
        super().__init__()

    async def cog_app_command_error(
        self, interaction: discord.Interaction, error: app_commands.AppCommandError
    ) -> None:
        await report_error(interaction, error)

    @described("tournament create", public=True)
    async def create(
        self,
        interaction: discord.Interaction,
        game: str,
        format: str,
        name: str | None = None,
        rounds: int | None = None,
        match: str | None = None,
        double: bool = False,
        days_per_move: str | None = None,
        rated: bool | None = None,
        vacations: bool = True,
        clock: str | None = None,
        auto_vacation: bool = True,
        max_players: int | None = None,
        start_players: int | None = None,
        starts: str | None = None,
        size: str | None = None,
        options: str | None = None,
    ) -> None:
        if interaction.guild_id is None:
            raise Refused("Events are run in a server's channel.", code=ServiceCode.DM)
        if isinstance(interaction.channel, discord.Thread):
            raise Refused(
                "Create events in a channel; each game gets its own thread.",
                code=ServiceCode.THREAD,
            )
        settings: dict[str, object] = dict(key_values(options))
        if size:
            settings["size"] = size
        result = await self.service.events.create_tournament(
            Place(interaction.guild_id, interaction.channel_id or 0),
            asker(interaction),
            game,
            format=format,
            name=name,
            options=settings,
            rounds=rounds,
            match=int(match) if match else None,
            double=double,
            days_per_move=parse_days(days_per_move, unset="default"),
            rated=rated,
            vacations=vacations,
            clock=clock,
            auto_vacation=auto_vacation,
            manages=manages(interaction),
            max_players=max_players,
            start_players=start_players,
            starts_at=starts,
        )
        await self.post_signup(interaction, result.tournament)

    async def post_signup(self, interaction: discord.Interaction, event: TournamentSummary) -> None:
        kwargs: dict[str, Any] = {"allowed_mentions": discord.AllowedMentions.none()}
        view = signup_view(event)
        if view is not None:
            kwargs["view"] = view
        await reply(interaction, signup_text(event), ephemeral=False, **kwargs)

    @described("tournament start", public=True)
    async def start(self, interaction: discord.Interaction, event: int) -> None:
        result = await self.service.events.start_tournament(
            event, guild_of(interaction), asker(interaction), manages=manages(interaction)
        )
        await self.answered(interaction, result, public=True)

    @described("tournament cancel", public=True)
    async def cancel(self, interaction: discord.Interaction, event: int) -> None:
        result = await self.service.events.cancel_tournament(
            event, guild_of(interaction), asker(interaction), manages=manages(interaction)
        )
        await self.answered(interaction, result, public=True)

    @described("tournament withdraw")
    async def withdraw(
        self, interaction: discord.Interaction, event: int, player: discord.User | None = None
    ) -> None:
        result = await self.service.events.withdraw_from_tournament(
            event,
            guild_of(interaction),
            asker(interaction),
            as_player(player) if player is not None else None,
            manages=manages(interaction),
        )
        await self.answered(interaction, result)

    @described("tournament add-bot")
    async def add_bot(
        self, interaction: discord.Interaction, event: int, level: str = DEFAULT_LEVEL
    ) -> None:
        result = await self.service.events.add_bot_to_tournament(
            event, guild_of(interaction), asker(interaction), level, manages=manages(interaction)
        )
        await self.answered(interaction, result)

    @described("tournament challenge", public=True)
    async def challenge(
        self, interaction: discord.Interaction, event: int, player: discord.User
    ) -> None:
        result = await self.service.ladders.ladder_challenge(
            event, guild_of(interaction), asker(interaction), as_player(player)
        )
        await self.answered(interaction, result, public=True)

    @described("tournament accept", public=True)
    async def accept(self, interaction: discord.Interaction, event: int) -> None:
        result = await self.service.ladders.accept_ladder_challenge(
            event, guild_of(interaction), asker(interaction)
        )
        await self.answered(interaction, result, public=True)

    @described("tournament decline", public=True)
    async def decline(self, interaction: discord.Interaction, event: int) -> None:
        result = await self.service.ladders.decline_ladder_challenge(
            event, guild_of(interaction), asker(interaction)
        )
        await self.answered(interaction, result, public=True)

    async def answered(
        self, interaction: discord.Interaction, result: TournamentResult, *, public: bool = False
    ) -> None:
        """The note for whoever asked; then what follows (games' threads, announcements)."""
        await reply(interaction, result.note, ephemeral=not public)
        for announced in result.results:
            await self.announcer.publish(announced)

    @described("tournament standings", public=True)
    async def standings(self, interaction: discord.Interaction, event: int) -> None:
        found = await self.service.event_reads.tournament_standings(event, guild_of(interaction))
        files = [
            discord.File(io.BytesIO(png), filename=f"event-{event}-{n}.png")
            for n, png in enumerate(found.pictures or (found.png,), 1)
            if png
        ][:10]  # Discord's most files on a message
        url = await self.announcer.links.event(guild_of(interaction), event)
        shown = found.tournament
        await reply(
            interaction,
            code_block(found.text, standings_headline(shown))
            if shown.round
            else f"**{shown.title}** has not started yet.",
            ephemeral=False,
            files=files,
            **view_kwargs(with_link(None, url)),
        )

    @described("tournament pairings", public=True)
    async def pairings(self, interaction: discord.Interaction, event: int) -> None:
        guild_id = guild_of(interaction)
        text = await self.service.event_reads.tournament_pairings(event, guild_id)
        threads = await self.service.lookups.games(guild_id, limit=200)
        links = {g.id: g.thread_id for g in threads if g.event_id == event and g.thread_id}
        text = re.sub(
            r"\(#(\d+)",
            lambda m: f"(<#{links[int(m[1])]}> #{m[1]}" if int(m[1]) in links else m[0],
            text,
        )
        await reply(interaction, text, ephemeral=False, allowed_mentions=MENTIONS)

    @described("tournament list")
    async def list_events(self, interaction: discord.Interaction) -> None:
        found = await self.service.event_reads.list_tournaments(guild_of(interaction))
        if not found:
            await reply(interaction, "No events on this server yet: `/tournament create`.")
            return
        rows = [
            f"#{e.id} **{e.title}**: {e.format_title}, "
            f"{len([x for x in e.entrants if not x.withdrawn])} players, {_state(e)}"
            for e in found
        ]
        await reply(interaction, "\n".join(rows))

    @described("tournament export")
    async def export(self, interaction: discord.Interaction, event: int) -> None:
        exported = await self.service.event_reads.export_tournament(event, guild_of(interaction))
        await reply(
            interaction,
            f"Event #{event} as JSON.",
            file=discord.File(io.BytesIO(exported.data), filename=exported.filename),
        )


def _state(event: TournamentSummary) -> str:
    if event.status == "active":
        return f"round {event.round}" if event.format != "ladder" else "under way"
    return {"open": "open for entries", "finished": "over", "cancelled": "called off"}.get(
        event.status, event.status
    )
