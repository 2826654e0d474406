"""The `paperboard` command."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import math
import re
import sys
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import ValidationError

import engine
from bot.heap import LongLived
from bot.settings import SettingRefused, Settings, refusal

if TYPE_CHECKING:
    from bot.service import GameService
    from bot.service.core.outbox import Publish


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.handler(args))
    except ValidationError as bad:  # a setting: one sentence, before anything starts
        print(f"paperboard: {refusal(bad)}", file=sys.stderr)
        return 2
    except (ValueError, engine.IllegalMove) as refused:
        print(f"paperboard: {refused}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # Ctrl-C: stopped, not failed
        return 130


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="paperboard", description="Slow games of pencil-and-paper connection games."
    )
    commands = parser.add_subparsers(required=True, metavar="COMMAND")

    run = commands.add_parser(
        "run", help="start the bot (with DISCORD_TOKEN set) or else the console"
    )
    run.add_argument("--console", action="store_true", help="the console even with a token")
    run.add_argument("--shard-count", type=int, help="shards in all (multi-process deployments)")
    run.add_argument(
        "--shard-ids", help="the shards this process runs, e.g. 0,1 (with --shard-count)"
    )
    run.set_defaults(handler=start)

    sync = commands.add_parser("sync", help="register the slash commands with Discord")
    sync.add_argument("--guild", type=int, help="only in this server (instant)")
    sync.set_defaults(handler=sync_slash_commands)

    invite = commands.add_parser("invite", help="print the link that adds the bot to a server")
    invite.set_defaults(handler=print_invite)

    pages = commands.add_parser(
        "web", help="serve the web pages alone, on WEB_HOST:WEB_PORT (beside a bot process)"
    )
    pages.set_defaults(handler=start_web_alone)

    worker = commands.add_parser(
        "worker",
        help="only take the AI's work (the bot's moves, analyses) from a shared PostgreSQL queue",
    )
    worker.set_defaults(handler=start_worker)

    health = commands.add_parser("health", help="exit 0 when the database answers (health checks)")
    health.set_defaults(handler=check_health)

    rules = commands.add_parser("rules", help="print a game's rules card, or list the games")
    rules.add_argument("game", nargs="?", choices=sorted(engine.GAMES))
    rules.set_defaults(handler=print_rules)

    render = commands.add_parser("render", help="draw any position of any game as PNG or GIF")
    render.add_argument("game", choices=sorted(engine.GAMES))
    render.add_argument(
        "--moves", default="", help='the record, moves separated by commas: "d5 g3, b2 c4"'
    )
    render.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a game option, e.g. size=5x5",
    )
    render.add_argument("--players", default="", help="display names, comma separated")
    render.add_argument("--ply", type=int, help="draw the position after this many moves")
    render.add_argument(
        "--groups", action="store_true", help="Hot Wire: shade the independent groups"
    )
    render.add_argument("--gif", action="store_true", help="a GIF replay of the whole record")
    render.add_argument("-o", "--output", type=Path, required=True, help="the file to write")
    render.set_defaults(handler=render_position)

    export = commands.add_parser(
        "export", help="every finished game of a server as JSON lines (operators)"
    )
    export.add_argument("--guild", type=_server_id, required=True, help="the server's id")
    export.add_argument(
        "--since",
        type=_moment,
        help="only games finished on or after this date (UTC), e.g. 2026-01-31",
    )
    export.add_argument("-o", "--output", type=Path, required=True, help="the .jsonl file to write")
    export.set_defaults(handler=export_games)

    mail = commands.add_parser("mail", help="mail: check the settings")
    mail_commands = mail.add_subparsers(required=True, metavar="ACTION")
    mail_test = mail_commands.add_parser(
        "test", help="send one mail through EMAIL_SMTP_URL and print what the server said"
    )
    mail_test.add_argument("address", help="where the mail goes")
    mail_test.set_defaults(handler=mail_test_send)

    think = commands.add_parser("ai", help="the AI's move and its analysis of any position")
    think.add_argument("game", choices=sorted(engine.GAMES))
    think.add_argument("--moves", default="", help="the record, moves separated by commas")
    think.add_argument(
        "--option", action="append", default=[], metavar="KEY=VALUE", help="a game option"
    )
    think.add_argument(
        "--seconds", type=_think_seconds, required=True, help="time to think (at most an hour)"
    )
    think.add_argument("--seed", type=int, help="the search's random seed")
    think.add_argument("--solve", action="store_true", help="also try to prove the result")
    think.add_argument("--json", action="store_true", help="print the fields as JSON")
    think.set_defaults(handler=print_analysis)
    return parser


def log_to_stdout(settings: Settings) -> None:
    logging.basicConfig(
        stream=sys.stdout,
        level=settings.log_level.upper(),
        format="%(asctime)s %(levelname)s %(name)s %(message)s",
    )
    # APScheduler tells of every run of a job (the outbox pass runs every few seconds)
    logging.getLogger("apscheduler.executors").setLevel(logging.WARNING)


def start(args: argparse.Namespace) -> int:
    settings = Settings()
    log_to_stdout(settings)
    if settings.discord_token is None or args.console:
        if not args.console:
            print(
                "No DISCORD_TOKEN set: starting the console. To connect Discord, put "
                "DISCORD_TOKEN=... in .env (README: Discord setup)."
            )
        logging.getLogger().setLevel(logging.WARNING)  # the terminal is for the game
        try:
            return asyncio.run(run_console(settings))
        except KeyboardInterrupt:  # Ctrl-C leaves the console; every move is already stored
            return 0
    from bot.discordbot import run_bot  # discord.py only when the bot runs

    shard_ids = [int(s) for s in args.shard_ids.split(",")] if args.shard_ids else None
    beside = partial(start_beside, settings)
    asyncio.run(run_bot(settings, shard_count=args.shard_count, shard_ids=shard_ids, beside=beside))
    return 0


async def start_beside(
    settings: Settings, service: GameService, publish: Publish
) -> Callable[[], Awaitable[None]] | None:
    """What runs beside the adapter, on its loop and service: the web pages
    (bot/web/runner.py) unless WEB_PORT=0, and mail (bot/email/runner.py) when
    EMAIL_SMTP_URL is set: how to stop them, or None."""
    from bot.email.runner import start_mail  # aiosmtpd and aiosmtplib only when mail runs
    from bot.web.runner import start_web  # the pages' templates only when they run

    stops = [await start_web(service, settings, publish)]
    runner = await start_mail(service, settings, publish, service.records.clock)
    stops.append(None if runner is None else runner.stop)
    running = [stop for stop in stops if stop is not None]
    if not running:
        return None

    async def stop_all() -> None:
        for stop in reversed(running):
            await stop()

    return stop_all


def mail_test_send(args: argparse.Namespace) -> int:
    """`paperboard mail test ADDRESS`: one mail through the configured server."""
    from bot.email.runner import MailNotSent, test_mail

    settings = Settings()
    if settings.email_smtp_url is None or settings.email_from is None:
        raise ValueError("set EMAIL_FROM, EMAIL_SMTP_URL and EMAIL_SECRET first (docs/EMAIL.md)")
    try:
        answer = asyncio.run(test_mail(settings, args.address))
    except MailNotSent as failed:
        print(f"paperboard: the mail was not sent: {failed}", file=sys.stderr)
        return 1
    print(f"sent to {args.address}; the server said: {answer}")
    return 0


async def run_console(settings: Settings) -> int:
    from bot.console import Console
    from bot.schedule import Scheduler
    from bot.schedule.airunner import AiRunner
    from bot.service import GameService

    # one person at one terminal: drawing in a thread is plenty; it searches for the bot
    # itself whatever AI_SEARCH says (it drives its runner between commands)
    service = await GameService.open(
        settings.model_copy(update={"render_processes": 0}),
        name=settings.process_name or "console",
    )
    console = Console(service, sys.stdout, Path(settings.board_dir))
    scheduler = Scheduler(service, console.print_result)  # reminders and timeouts, printed
    console.runner = AiRunner(
        service, console.bot_moved, processes=settings.ai_processes, nodes=settings.ai_nodes
    )
    stop_beside = await start_beside(settings, service, console.print_result)
    try:
        await scheduler.start()
        with LongLived():
            await console.run(interactive=sys.stdin.isatty())
    finally:
        if stop_beside is not None:
            await stop_beside()
        await scheduler.stop()  # before the database closes
        await console.runner.stop()
        await service.close()
    return 0


def sync_slash_commands(args: argparse.Namespace) -> int:
    from bot.discordbot import sync_commands

    count = asyncio.run(sync_commands(Settings(), args.guild))
    where = f"server {args.guild}" if args.guild else "every server (may take up to an hour)"
    print(f"synced {count} commands to {where}")
    return 0


def print_invite(args: argparse.Namespace) -> int:
    from bot.discordbot import invite_url

    print(invite_url(Settings()))
    return 0


def start_web_alone(args: argparse.Namespace) -> int:
    """`paperboard web`: the pages alone, reading the database the bot processes write."""
    settings = Settings()
    if settings.web_port == 0:
        raise ValueError("paperboard web needs a WEB_PORT")
    log_to_stdout(settings)
    return asyncio.run(run_web(settings))  # SIGINT and SIGTERM end it cleanly


async def run_web(settings: Settings) -> int:
    import signal

    from bot.service import GameService
    from bot.web.runner import start_web

    # no name: it holds no leases; no announcements: it changes nothing
    service = await GameService.open(settings, announces=False)
    try:
        stop_web = await start_web(service, settings)
        if stop_web is None:
            print("paperboard: the web pages could not start (see the log)", file=sys.stderr)
            return 1
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signal_number in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signal_number, stop.set)
        with LongLived():
            await stop.wait()
        await stop_web()
    finally:
        await service.close()
    return 0


def start_worker(args: argparse.Namespace) -> int:
    """A process that only searches: it claims AI jobs from the database (told of new ones
    at once) and commits the bot's moves; a bot process announces them at once (told by
    the same means)."""
    settings = Settings()
    if settings.database_url.startswith("sqlite"):
        raise ValueError(
            "paperboard worker needs DATABASE_URL on PostgreSQL; "
            "with SQLite, paperboard run does the searching itself"
        )
    log_to_stdout(settings)
    asyncio.run(run_worker(settings))  # SIGINT and SIGTERM end it cleanly
    return 0


async def run_worker(settings: Settings) -> None:
    import signal
    import socket

    from bot.schedule.airunner import AiRunner
    from bot.service import GameService

    service = await GameService.open(
        settings.model_copy(update={"render_processes": 0}),
        name=settings.process_name or f"worker-{socket.gethostname()}"[:40],
        announces=False,  # no Discord here: its moves are announced by a bot process
    )
    runner = AiRunner(service, None, processes=settings.ai_processes, nodes=settings.ai_nodes)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signal_number in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signal_number, stop.set)
    try:
        await runner.start()
        with LongLived():
            await stop.wait()
    finally:
        await runner.stop()
        await service.close()


#: How long `paperboard health` waits for the database.
HEALTH_SECONDS = 8


def check_health(args: argparse.Namespace) -> int:
    from bot.store import Database

    async def probe() -> None:
        async with asyncio.timeout(HEALTH_SECONDS):
            database = await Database.open(Settings().database_url)
            try:
                await database.ping()
            finally:
                await database.close()

    try:
        asyncio.run(probe())
    # a bad setting is "unhealthy" too, exit 1 (Docker's health checks reserve 2)
    except ValidationError as bad:  # pydantic's own words would quote the value: a password
        print(f"unhealthy: {refusal(bad)}", file=sys.stderr)
        return 1
    except SettingRefused as refused:
        print(f"unhealthy: {refused}", file=sys.stderr)
        return 1
    except TimeoutError:
        print(f"unhealthy: DATABASE_URL: no answer in {HEALTH_SECONDS} s", file=sys.stderr)
        return 1
    except Exception as exc:  # any failure is "unhealthy", said in one line
        print(f"unhealthy: {exc.__class__.__name__}: {exc}", file=sys.stderr)
        return 1
    print("healthy")
    return 0


def export_games(args: argparse.Namespace) -> int:
    """Stream every finished game of a server into a JSON-lines file, one game a line."""
    settings = Settings()  # a bad setting refused before the store's imports
    from bot.service.looks.exports import finished_games
    from bot.store import Database

    async def export() -> int:
        database = await Database.open(settings.database_url)  # before the file is written
        try:
            try:
                out = args.output.open("w", encoding="utf-8")
            except OSError as error:
                raise ValueError(f"cannot write {args.output}: {error.strerror or error}") from None
            with out:
                count = 0
                async for record in finished_games(database, args.guild, args.since):
                    out.write(json.dumps(record, ensure_ascii=False, separators=(",", ":")))
                    out.write("\n")
                    count += 1
        finally:
            await database.close()
        return count

    count = asyncio.run(export())
    print(f"{count} finished games written to {args.output}")
    return 0


def _moment(text: str) -> datetime:
    """A date or time as typed (ISO 8601); without a zone it is UTC."""
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{engine.core.shown(text)} is not a date like 2026-01-31"
        ) from None
    try:  # in UTC, the database's zone: a moment at either end of the calendar has none
        return moment.astimezone(UTC) if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
    except OverflowError:
        raise argparse.ArgumentTypeError(
            f"{engine.core.shown(text)} is outside the calendar in UTC"
        ) from None


def _think_seconds(text: str) -> float:
    """The AI's time: a number of seconds from 0 to an hour (a longer search is a
    benchmark's job, and 1e308 would never end)."""
    try:
        seconds = float(text)
    except ValueError:
        seconds = math.nan
    if not 0 <= seconds <= 3600:
        raise argparse.ArgumentTypeError(
            f"{engine.core.shown(text)} is not a number of seconds from 0 to 3600"
        )
    return seconds


def _server_id(text: str) -> int:
    """A Discord server's id (a snowflake: a whole number that fits in 63 bits)."""
    if not text.strip().isdecimal() or int(text) >= 2**63:
        raise argparse.ArgumentTypeError(f"{engine.core.shown(text)} is not a server id")
    return int(text)


def print_rules(args: argparse.Namespace) -> int:
    from bot.service import rules_card

    if args.game is None:
        for name, info in engine.GAMES.items():
            print(f"{name:<14} {info.title} ({_players(info)})")
        return 0
    print(rules_card(args.game))
    return 0


def render_position(args: argparse.Namespace) -> int:
    from bot.render import render_gif, render_png  # Pillow only when drawing

    players = [name.strip() for name in args.players.split(",") if name.strip()] or None
    state = _position(args.game, args.option, args.moves, players)
    if players and len(players) != state.players:
        raise ValueError(f"--players names {len(players)} players; the game has {state.players}")
    if args.ply is not None and not 0 <= args.ply <= state.ply:
        raise ValueError(f"--ply must be from 0 to {state.ply}, the moves in the record")
    record = state.moves if args.ply is None else state.moves[: args.ply]
    if args.gif:
        data = render_gif(args.game, state.options, record, players=players)
    else:
        position = engine.replay(args.game, state.options, record)
        data = render_png(position, players=players, groups=args.groups)
    try:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_bytes(data)
    except OSError as error:
        raise ValueError(f"cannot write {args.output}: {error.strerror or error}") from None
    print(f"{args.output} ({len(data) // 1024} KB)")
    return 0


def print_analysis(args: argparse.Namespace) -> int:
    from engine import ai  # the search only when asked

    state = _position(args.game, args.option, args.moves)
    analysis = ai.analyse(state, seconds=args.seconds, seed=args.seed)
    proven = ai.solve(state, seconds=args.seconds) if args.solve else analysis.proven
    move = analysis.best[0].move if analysis.best else None
    if args.json:
        print(
            json.dumps(
                {
                    "game": args.game,
                    "moves": list(state.moves),
                    "move": move,
                    "win_chance": list(analysis.win_chance),
                    "best": [{"move": m.move, "chance": m.chance} for m in analysis.best],
                    "pv": list(analysis.pv),
                    "proven": None
                    if proven is None
                    else {"winner": proven.winner, "winning_moves": list(proven.winning_moves)},
                    "proven_winner": analysis.proven_winner,
                    "simulations": analysis.simulations,
                }
            )
        )
        return 0
    info = engine.GAMES[args.game]
    print(f"move: {move or '(the game is over)'}")
    chances = ", ".join(
        f"{info.seat_name(seat)} {chance:.0%}" for seat, chance in enumerate(analysis.win_chance)
    )
    print(f"chances: {chances} ({analysis.simulations} simulations)")
    print("best: " + ", ".join(f"{m.move} {m.chance:.0%}" for m in analysis.best[:8]))
    print(f"line: {' '.join(analysis.pv)}")
    if proven is None and analysis.proven_winner is not None:
        name = info.seat_name(analysis.proven_winner)
        print(f"proven: {name} wins (by the one winning move found; the other moves not settled)")
    elif proven is None:
        print("proven: no")
    else:
        winner = "a draw" if proven.winner is None else info.seat_name(proven.winner) + " wins"
        print(f"proven: {winner}; winning moves: {', '.join(proven.winning_moves) or 'none'}")
    return 0


def _position(
    game: str,
    option_texts: Sequence[str],
    moves_text: str,
    players: Sequence[str] | None = None,
) -> engine.GameState:
    """The position after the typed moves (separated by commas) of a game with options;
    `players`: names, one a seat (how many play, unless an option says so)."""
    options = dict(_option(text) for text in option_texts)
    if players and "players" not in options:
        options["players"] = str(len(players))
    state = engine.new(game, **options)
    made = 0  # entries of the game's record the typed ones have matched
    for text in (m.strip() for m in re.split(r"[,;\n]", moves_text)):
        if not text:
            continue
        # the engine makes forced passes itself: a record may show them or leave them out
        typed_pass = text.lower() == "pass"
        while made < len(state.moves) and not typed_pass:
            made += 1  # a forced pass left out of the typed record
        if made < len(state.moves):  # a forced pass, typed as the record shows it
            made += 1
            continue
        state = state.play(text)  # a "pass" the engine did not make gets its refusal
        made += 1
    return state


def _option(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep:
        raise ValueError(f"an option is KEY=VALUE, not {engine.core.shown(text)}")
    return key.strip().replace("-", "_"), value.strip()


def _players(info: engine.GameInfo) -> str:
    if info.min_players == info.max_players:
        return f"{info.min_players} players"
    return f"{info.min_players}-{info.max_players} players"


if __name__ == "__main__":
    raise SystemExit(main())
