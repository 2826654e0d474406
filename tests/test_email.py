"""Play by email over real SMTP on loopback: the bot's listener takes the players' mail,
a capture server takes the bot's (tests/mailkit.py)."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import sys
import threading
from datetime import UTC, datetime
from email import message_from_bytes, policy
from email.message import EmailMessage
from functools import partial
from pathlib import Path

import aiosmtplib
import pytest
from pydantic import SecretStr

from bot.cli import main
from bot.discordbot import PaperboardBot
from bot.email.compose import Envelope, Picture, SmtpReady, mail, ready_for_data
from bot.email.reading import header_safe
from bot.email.runner import start_mail
from bot.email.tokens import Token, read_token, reply_address
from bot.service import GameService, Player, Result
from bot.store import Database
from tests.conftest import ANN, PATIENCE_SECONDS, ROOT, Clock
from tests.consolekit import transcript_of
from tests.fakediscord import Channel, FakeDiscord, run_bot
from tests.fakediscord.fixtures import fake_discord_fixture  # noqa: F401  (the fixture)
from tests.mailkit import BOT, DOMAIN, GUILD, Capture, MailWorld, mail_settings, mail_world, serve
from tests.test_reader_words import miswritten

ANNE, BEN = "anne@home.test", "ben@work.test"


async def registered(world: MailWorld) -> None:
    await world.send(ANNE, BOT, "join", name="Anne Example")
    await world.send(BEN, BOT, "join", name="Ben")
    assert "Welcome, Anne Example (by email)" in world.said(ANNE)


async def started(world: MailWorld) -> int:
    """Anne challenges Ben to Hex 4x4 by mail and Ben accepts: the game's id."""
    await registered(world)
    await world.send(ANNE, BOT, f"challenge hex {BEN} size=4 days=3")
    assert "challenges you to Hex" in world.said(BEN)
    await world.reply(BEN, "Accept")
    game = world.published[-1].game
    assert game.status == "active"
    return game.id


async def test_a_challenge_by_mail_says_who_moves_first(database_url: str, clock: Clock) -> None:
    async with mail_world(database_url, clock) as world:
        await registered(world)
        await world.send(ANNE, BOT, f"challenge hex {BEN} size=4 first=opponent")
        await world.reply(BEN, "Accept")
        game = world.published[-1].game
        assert (game.status, game.player_to_move) == ("active", game.seats[0].player_id)
        assert game.seats[0].name == "Ben (by email)"
        await world.send(ANNE, BOT, f"challenge hex {BEN} size=4 first=me")
        assert "Who moves first must be one of" in world.said(ANNE)


async def test_a_whole_game_by_two_mailboxes(database_url: str, clock: Clock) -> None:
    async with mail_world(database_url, clock) as world:
        game_id = await started(world)
        moves = iter(f"{col}{row}" for row in range(1, 5) for col in "abcd")
        game = world.published[-1].game
        while game.status == "active":
            mover = await address_to_move(world, game_id)
            before = len(world.published)
            for text in moves:  # the next empty cell in reading order
                await world.reply(mover, text)
                if len(world.published) > before:
                    break
            game = world.published[-1].game
        assert game.status == "finished"
        for address in (ANNE, BEN):
            last = world.capture.last(address)
            assert " win" in world.said(address) and "Result:" in world.said(address)
            assert last["Auto-Submitted"] == "auto-generated"
            assert last["In-Reply-To"] == f"<game{game_id}@{DOMAIN}>"
        mail = world.capture.last(ANNE)
        kinds = [part.get_content_type() for part in mail.walk()]
        assert kinds[:2] == ["multipart/mixed", "multipart/alternative"]
        assert "multipart/related" in kinds and kinds.count("image/png") == 2
        assert "Last moves:" in world.said(ANNE)
        for address in (ANNE, BEN):  # every mail of the game is written for its reader
            assert [miswritten(text) for text in world.all_said(address)] == [[]] * len(
                world.all_said(address)
            )


async def address_to_move(world: MailWorld, game_id: int) -> str:
    game = await world.service.mail.mail_game(game_id)
    found = await world.service.mail.address_of(game.player_to_move or 0)
    assert found is not None
    return found


def other(address: str) -> str:
    return BEN if address == ANNE else ANNE


async def test_the_mail_on_your_move_gives_a_move_legal_in_that_game(
    database_url: str, clock: Clock
) -> None:
    async with mail_world(database_url, clock) as world:
        await registered(world)
        for name, options in (("hex", "size=3 swap=off"), ("hotwire", "size=3x3")):
            await world.send(ANNE, BOT, f"challenge {name} {BEN} {options} days=3")
            await world.reply(BEN, "accept")
            game_id = world.published[-1].game.id
            for _ in range(2):
                mover = await address_to_move(world, game_id)
                offered = re.search(r"first line \(like ([^)]+)\)", world.said(mover))
                assert offered is not None, world.said(mover)
                assert (
                    offered[1] in (await world.service.lookups.state(game_id, GUILD)).legal_moves()
                )
                assert "first line, or" in world.said(other(mover))  # not theirs to play
                await world.reply(mover, offered[1])
                assert (await world.service.lookups.state(game_id, GUILD)).moves[-1] == offered[1]


async def test_an_old_mail_cannot_move_twice(database_url: str, clock: Clock) -> None:
    async with mail_world(database_url, clock) as world:
        game_id = await started(world)
        mover = await address_to_move(world, game_id)
        first_mail = world.capture.last(mover)
        await world.reply(mover, "a1")
        ply = (await world.service.mail.mail_game(game_id)).ply
        await world.send(mover, str(first_mail["Reply-To"]), "b1")  # the same mail again
        assert "That game has moved on" in world.said(mover)
        assert (await world.service.mail.mail_game(game_id)).ply == ply


async def test_an_altered_token_acts_for_no_one(database_url: str, clock: Clock) -> None:
    async with mail_world(database_url, clock) as world:
        game_id = await started(world)
        mover = await address_to_move(world, game_id)
        token = str(world.capture.last(other(mover))["Reply-To"])
        seat = ".s0." if ".s1." in token else ".s1."
        forged = token.replace(".s0.", seat).replace(".s1.", seat, 1)
        await world.send(mover, forged, "a1")  # From the player to move, to a forged seat
        await world.send(other(mover), token, "a1")  # their own token: not their turn
        assert "not one I gave out" in world.said(mover)
        assert (await world.service.mail.mail_game(game_id)).ply == 0
        assert "turn" in world.said(other(mover))


async def test_the_listener_is_no_open_relay(database_url: str, clock: Clock) -> None:
    async with mail_world(database_url, clock) as world:
        with pytest.raises(aiosmtplib.SMTPRecipientsRefused) as refused:
            await aiosmtplib.send(
                b"Subject: hi\r\n\r\nhello\r\n",
                sender="spammer@evil.test",
                recipients=["victim@elsewhere.test"],
                hostname="127.0.0.1",
                port=world.port,
            )
        assert refused.value.recipients[0].code == 550
        assert world.capture.mails == []


async def test_a_name_cannot_inject_headers(database_url: str, clock: Clock) -> None:
    async with mail_world(database_url, clock) as world:
        raw = (
            b"From: =?utf-8?q?Eve=0D=0ABcc=3A_victim=40evil=2Etest?= <eve@home.test>\r\n"
            b"To: " + BOT.encode() + b"\r\nSubject: join\r\n\r\njoin\r\n"
        )
        await world.send_raw("eve@home.test", BOT, raw)
        (recipients, answer), *_ = world.capture.mails
        assert recipients == ("eve@home.test",)
        assert answer["Bcc"] is None and "\n" not in str(answer["To"])
        found = await world.service.mail.player_by_address("eve@home.test")
        assert found is not None and "\n" not in found[0].name and "\r" not in found[0].name


async def test_an_auto_reply_is_never_answered(database_url: str, clock: Clock) -> None:
    async with mail_world(database_url, clock) as world:
        await world.send(ANNE, BOT, "help", headers={"Auto-Submitted": "auto-replied"})
        await world.send(ANNE, BOT, "help", headers={"Precedence": "bulk"})
        assert world.capture.mails == []
        await world.send(ANNE, BOT, "help")
        assert "Paperboard plays" in world.said(ANNE)


async def test_a_hard_bounce_stops_mail(database_url: str, clock: Clock) -> None:
    async with mail_world(database_url, clock) as world:
        game_id = await started(world)
        mover = await address_to_move(world, game_id)
        before = len(world.capture.mails)
        await world.send_raw("mailer-daemon@work.test", BOT, genuine_bounce(world, other(mover)))
        assert len(world.capture.mails) == before  # a report is never answered
        mailed = len(world.capture.inbox(other(mover)))
        await world.reply(mover, "a1")
        assert (await world.service.mail.mail_game(game_id)).ply == 1
        assert len(world.capture.inbox(other(mover))) == mailed
        assert "b1" not in world.said(mover) and "a1" in world.said(mover)


def bounce_report(address: str, message_id: str = "") -> bytes:
    """A delivery status notification: mail to `address` failed for good; with
    `message_id`, the headers of the mail that failed (that Message-ID) come back in it."""
    returned = (
        "--b\r\nContent-Type: text/rfc822-headers\r\n\r\n"
        f"From: {BOT}\r\nTo: {address}\r\nMessage-ID: {message_id}\r\n"
        if message_id
        else ""
    )
    return (
        "From: MAILER-DAEMON@work.test\r\nTo: " + BOT + "\r\nSubject: failure\r\n"
        "MIME-Version: 1.0\r\n"
        'Content-Type: multipart/report; report-type=delivery-status; boundary="b"\r\n\r\n'
        "--b\r\nContent-Type: text/plain\r\n\r\nCould not deliver.\r\n"
        "--b\r\nContent-Type: message/delivery-status\r\n\r\nReporting-MTA: dns; work.test\r\n"
        f"\r\nFinal-Recipient: rfc822; {address}\r\nAction: failed\r\nStatus: 5.1.1\r\n"
        f"\r\n{returned}--b--\r\n"
    ).encode()


def genuine_bounce(world: MailWorld, address: str) -> bytes:
    """A report that the bot's last mail to `address` failed for good."""
    return bounce_report(address, str(world.capture.last(address)["Message-ID"]))


async def test_a_flood_is_told_once_to_slow_down(database_url: str, clock: Clock) -> None:
    async with mail_world(database_url, clock) as world:
        world.runner.desk.limits.limit = 3
        for _ in range(6):
            await world.send(ANNE, BOT, "help")
        said = [
            str(m.get_body(preferencelist=("plain",)).get_content())
            for m in world.capture.inbox(ANNE)
        ]  # type: ignore[union-attr]
        assert len(said) == 4
        assert said[-1].strip() == (
            "Slow down: I read at most 3 mails an hour from you; this one was not read."
        )
        clock.advance(hours=1, seconds=1)
        await world.send(ANNE, BOT, "help")
        assert "Paperboard plays" in world.said(ANNE)


async def test_a_discord_player_links_an_address(database_url: str, clock: Clock) -> None:
    async with mail_world(database_url, clock) as world:
        said = await world.service.mail.link_email(ANN, "Ann@Example.test")
        assert "ann@example.test" in said
        assert await world.runner.announcer.send_codes() == 1
        text = world.said("ann@example.test")
        code = text.split("code is ")[1][:6]
        wrong = "000000" if code != "000000" else "111111"
        with pytest.raises(Exception, match="wrong or too old"):
            await world.service.mail.confirm_email(ANN, wrong)
        await world.service.mail.confirm_email(ANN, code)
        settings = await world.service.preferences.player_settings(ANN, reminders="email")
        assert settings.reminders == "email"
        assert await world.service.mail.mail_recipients([ANN.id]) == {ANN.id: "ann@example.test"}
        with pytest.raises(Exception, match="another player"):
            await world.service.mail.link_email(Player(9009, "zed"), "ann@example.test")


def test_mail_test_prints_what_the_server_said(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    capture = Capture()
    loop = asyncio.new_event_loop()
    server, port = loop.run_until_complete(serve(capture))
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    monkeypatch.chdir(tmp_path)  # no .env of the developer's
    for key, value in {
        "EMAIL_FROM": BOT,
        "EMAIL_SECRET": "x" * 16,
        "EMAIL_SMTP_URL": f"smtp://127.0.0.1:{port}",
    }.items():
        monkeypatch.setenv(key, value)
    try:
        assert main(["mail", "test", "Op@Example.test"]) == 0
        assert "the server said: OK captured" in capsys.readouterr().out
        ((recipients, sent),) = capture.mails
        assert recipients == ("op@example.test",) and sent["Auto-Submitted"] == "auto-generated"
        monkeypatch.setenv("EMAIL_SMTP_URL", "smtp://127.0.0.1:1")  # nobody listens there
        assert main(["mail", "test", "op@example.test"]) == 1
        assert "the mail was not sent" in capsys.readouterr().err
        monkeypatch.setenv("EMAIL_SMTP_URL", "http://127.0.0.1")
        assert main(["mail", "test", "op@example.test"]) == 2
        assert capsys.readouterr().err == (
            "paperboard: EMAIL_SMTP_URL is smtp://user:password@host:587 or smtps://...@host:465\n"
        )
    finally:
        loop.call_soon_threadsafe(server.close)
        loop.call_soon_threadsafe(loop.stop)
        thread.join()


MAIL_CHILD = """
import asyncio, os, signal, sys
from datetime import datetime
from bot.email.compose import Envelope, Picture, mail
from bot.email.reading import header_safe
from bot.email.runner import start_mail
from bot.email.tokens import Token, read_token, reply_address
from bot.service import GameService
from bot.service.play.aiplayer import AiPlay
from tests.mailkit import mail_settings

async def main(url, smtp_port, when):
    at = datetime.fromisoformat(when)
    settings = mail_settings(url, int(smtp_port))
    service = await GameService.open(settings, name="mailer", clock=lambda: at)
    move = AiPlay.move
    async def move_then_die(self, *args, **kwargs):  # the move is stored; nothing is sent
        await move(self, *args, **kwargs)
        os.kill(os.getpid(), signal.SIGKILL)
    AiPlay.move = move_then_die
    async def publish(result):
        pass
    runner = await start_mail(service, settings, publish, lambda: at, codes=False)
    print(runner.port, flush=True)
    await asyncio.Event().wait()

asyncio.run(main(*sys.argv[1:]))
"""


async def test_a_move_killed_before_its_mail_is_mailed_once_after_restart(
    database_url: str, clock: Clock
) -> None:
    async with mail_world(database_url, clock) as world:
        game_id = await started(world)
        mover = await address_to_move(world, game_id)
        smtp = world.service.records.settings.email_smtp_url
        assert smtp is not None
        smtp_port = smtp.get_secret_value().rpartition(":")[2]
        child = await asyncio.create_subprocess_exec(
            sys.executable, "-c", MAIL_CHILD, database_url, smtp_port, clock().isoformat(),
            cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
            stdout=asyncio.subprocess.PIPE,
        )  # fmt: skip
        assert child.stdout is not None
        port = int(await asyncio.wait_for(child.stdout.readline(), PATIENCE_SECONDS))
        token = str(world.capture.last(mover)["Reply-To"])
        move = EmailMessage()
        move["From"], move["To"], move["Subject"] = mover, token, "move"
        move.set_content("a1")
        mailed = len(world.capture.mails)
        with pytest.raises(aiosmtplib.SMTPException):  # the bot died before its 250
            await aiosmtplib.send(move, hostname="127.0.0.1", port=port)
        assert await asyncio.wait_for(child.wait(), PATIENCE_SECONDS) == -signal.SIGKILL
        assert (await world.service.mail.mail_game(game_id)).ply == 1  # committed, not mailed
        assert len(world.capture.mails) == mailed
        clock.advance(seconds=30)
        restarted = await GameService.open(
            world.service.records.settings, name="mailer", clock=clock
        )
        try:
            runner = await start_mail(
                restarted, restarted.records.settings, nothing, clock, codes=False
            )
            assert runner is not None
            assert await restarted.outbox.redeliver(nothing) == 1
            assert await restarted.outbox.redeliver(nothing) == 0
            assert len(world.capture.mails) == mailed + 2  # the move, once to each player
            assert "a1" in world.said(mover) and "a1" in world.said(other(mover))
            await world.send_raw(mover, token, move.as_bytes())  # the sender tries again
            assert len(world.capture.mails) == mailed + 2
            assert (await world.service.mail.mail_game(game_id)).ply == 1
            await runner.stop()
        finally:
            await restarted.close()


async def nothing(result: Result) -> None:
    """The adapter of a process with mail alone."""


def mailed(world: MailWorld, text: str) -> bool:
    return f"ann played {text}" in world.said(ANNE)


def posted(thread: Channel, before: int, text: str) -> bool:
    return any(text in message.content for message in thread.messages[before:])


async def test_a_mixed_game_one_player_on_discord_one_by_mail(
    fake_discord: FakeDiscord, database_url: str, clock: Clock
) -> None:
    guild = fake_discord.create_guild("Paper club", channels=["games"])
    ann = fake_discord.create_user("ann")
    games = guild.channel("games")
    capture = Capture()
    capture_server, smtp_port = await serve(capture)
    settings = mail_settings(
        database_url, smtp_port, dev_guild_id=guild.id, discord_message_content=True
    )
    service = GameService(await Database.open(database_url), settings, clock=clock)
    bot = PaperboardBot(service, settings)
    try:
        async with run_bot(fake_discord, bot):
            runner = await start_mail(service, settings, bot.announcer.post, clock, codes=False)
            assert runner is not None
            world = MailWorld(service, runner, capture, [])
            await service.preferences.guild_settings(guild.id, email=True, email_channel=games.id)
            discord_ann = Player(ann.id, "ann")
            await world.linked(discord_ann, "ann@discord.test")
            await world.send(ANNE, BOT, "join", name="Anne")
            await world.send(ANNE, BOT, "challenge hex ann@discord.test size=4 swap=off")
            challenge = await fake_discord.wait_for(
                lambda: next((m for m in games.messages if m.custom_ids), None),
                what="the challenge in the channel",
            )
            assert (
                "**Anne (by email)**" in challenge.content and f"<@{ann.id}>" in challenge.content
            )
            [game] = await service.lookups.games(guild.id, status="open")
            await (await fake_discord.press(ann, challenge, f"pb:c:accept:{game.id}")).ack()
            await fake_discord.wait_for(lambda: len(capture.inbox(ANNE)) >= 3, what="the start")
            for text in ("a1", "a2", "b1", "b2"):
                game = await service.lookups.game(game.id, guild.id)
                thread = next(t for t in fake_discord.threads if t.id == game.thread_id)
                before = len(thread.messages)
                if game.player_to_move == ann.id:
                    handle = await fake_discord.slash(ann, "move", {"move": text}, channel=thread)
                    await handle.reply()
                    await fake_discord.wait_for(
                        partial(mailed, world, text), what="Anne's mail of ann's move"
                    )
                else:
                    await world.reply(ANNE, text)
                    await fake_discord.wait_for(
                        partial(posted, thread, before, text), what="Anne's move in the thread"
                    )
            assert (await service.lookups.game(game.id, guild.id)).ply == 4
            assert capture.inbox("ann@discord.test")[1:] == []  # ann reads Discord, not mail
            await service.preferences.player_settings(discord_ann, reminders="email")
            mails = len(capture.mails)
            bounced = genuine_bounce(world, "ann@discord.test")
            await world.send_raw("mailer-daemon@x.test", BOT, bounced)
            await fake_discord.wait_for(lambda: fake_discord.dms(ann), what="the bounce notice")
            assert fake_discord.dms(ann)[-1].content == (
                "Mail to ann@discord.test bounced, so Paperboard stopped mailing it: "
                "set a new address with /settings email:."
            )
            assert len(capture.mails) == mails  # the notice is not mailed where mail bounces
            assert (await service.preferences.player_settings(discord_ann)).reminders == "dm"
            assert await service.mail.address_of(ann.id) is None
            await world.send_raw("mailer-daemon@x.test", BOT, bounced)
            assert len(fake_discord.dms(ann)) == 1  # told once
            handle = await fake_discord.slash(
                ann, "challenge", {"game": "hex", "email": ANNE.upper()}, channel=games
            )
            assert "**Anne (by email)**" in (await handle.reply()).content
            await fake_discord.wait_for(
                lambda: "challenges you to Hex" in world.said(ANNE), what="Anne's challenge"
            )
            await runner.stop()
    finally:
        await service.close()
        capture_server.close()


def test_a_reply_address_holds_under_the_old_secret_and_breaks_when_altered() -> None:
    old, new = "the secret of last month", "the secret of this month"
    token = Token(12, 1, 5)
    signed = reply_address(token, "play", DOMAIN, old)
    assert read_token(signed.upper(), "play", DOMAIN, (new, old)) == token  # case: any
    assert read_token(signed, "play", DOMAIN, (new,)) is None  # the old secret dropped
    for altered in (signed.replace("g12", "g13"), signed.replace(".p5.", ".p6.")):
        assert read_token(altered, "play", DOMAIN, (new, old)) is None
    assert read_token(signed, "play", "other.test", (old,)) is None
    assert read_token(BOT, "play", DOMAIN, (old,)) is None


async def test_the_console_links_an_address_with_a_code(
    service: GameService, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mailing = {"email_smtp_url": SecretStr("smtp://127.0.0.1:2525")}  # codes go by mail
    monkeypatch.setattr(
        service.records, "settings", service.records.settings.model_copy(update=mailing)
    )
    said = await transcript_of(
        service, tmp_path, ["settings email=Player@Home.test", "settings email_code=000000"]
    )
    assert said[1] == (
        "A code is on its way to player@home.test: confirm it with email_code within 24 hours."
    )
    [(_, address, code)] = await service.mail.codes_to_mail()
    wrong = "That code is wrong or too old: ask for a new one with email."
    assert address == "player@home.test" and (said[2] == wrong) == (code != "000000")


async def test_the_console_challenges_a_player_by_mail_by_their_address(
    service: GameService, tmp_path: Path
) -> None:
    """Where the server takes players by mail, an address names a player who joined by
    mail (or a Discord player's confirmed address); elsewhere, one sentence."""
    line = "challenge hex ann@example.test size=5"
    said = await transcript_of(service, tmp_path, [line])
    assert said[-1] == (
        "This server takes no players by mail: its managers allow them with config email=on."
    )
    await service.preferences.guild_settings(0, email=True, email_channel=0)  # the console's server
    said = await transcript_of(service, tmp_path, [line])
    assert said[-1] == (
        "“ann@example.test” plays by mail nowhere here: ask them to mail join to the bot's "
        "address first."
    )
    assert await service.lookups.games(0, status="open") == []
    ann = await service.mail.join_by_mail("Ann@Example.test", "Ann", 0)
    await transcript_of(service, tmp_path, [line, "challenge hex email=ann@example.test"])
    games = await service.lookups.games(0, status="open")
    assert len(games) == 2 and all(ann.id in game.player_ids() for game in games)


def test_a_mail_reads_back_as_written_whatever_the_names() -> None:
    """compose writes the bytes itself: any name, subject and board read back the same
    through the standard library's parser, without defects or extra headers."""
    png = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 40
    envelope = Envelope(BOT, "zoe@home.test", 'Zoë "Z" Bcc: x@evil.test\r\nCc: y', DOMAIN)
    subject = "Ünïcode " + "long subject " * 8
    raw = mail(
        envelope, subject, ["Zoë played d5.", "Your move."], when=datetime(2026, 1, 5, tzinfo=UTC),
        game_id=7, board=Picture.of(png, "hex-7-move-3.png"),
    )  # fmt: skip
    parsed = message_from_bytes(raw, policy=policy.default)
    assert isinstance(parsed, EmailMessage)
    assert all(not part.defects for part in parsed.walk())
    assert [a.addr_spec for a in parsed["To"].addresses] == ["zoe@home.test"]
    assert parsed["To"].addresses[0].display_name == 'Zoë "Z" Bcc: x@evil.test Cc: y'
    assert parsed["Bcc"] is None and parsed["Cc"] is None
    assert str(parsed["Subject"]) == header_safe(subject)  # cut at 64 characters
    assert max(len(line) for line in raw.split(b"\r\n")) <= 78
    assert isinstance(raw, SmtpReady) and ready_for_data(raw)  # sent as it is
    pictures = [p for p in parsed.walk() if p.get_content_type() == "image/png"]
    assert [p.get_content() for p in pictures] == [png, png]
    assert [p.get_content_disposition() for p in pictures] == ["inline", "attachment"]
    body = parsed.get_body(preferencelist=("plain",))
    assert body is not None and body.get_content() == "Zoë played d5.\n\nYour move.\n"


async def test_the_mailer_sends_every_mail_byte_for_byte() -> None:
    """A mail in SMTP's form goes after DATA as it is; one with a line starting with a dot
    or bare line endings through aiosmtplib's own passes: both arrive as written."""
    from aiosmtpd.smtp import Envelope as SmtpEnvelope

    from bot.email.smtp import Mailer, SmtpServer

    class Raw:
        def __init__(self) -> None:
            self.mails: list[bytes] = []

        async def handle_DATA(  # aiosmtpd's hook name
            self, server: object, session: object, envelope: SmtpEnvelope
        ) -> str:
            assert isinstance(envelope.original_content, bytes)
            self.mails.append(envelope.original_content)
            return "250 OK kept"

    capture = Raw()
    server, port = await serve(capture)
    mailer = Mailer(SmtpServer("127.0.0.1", port, False, None, None), BOT, DOMAIN)
    clean = b"Subject: a\r\n\r\nline\r\n a dot . inside\r\n"
    dotted = b"Subject: b\r\n\r\n.\r\n..two\r\nbare\nend\r\n"
    try:
        assert ready_for_data(clean) and not ready_for_data(dotted)
        assert (await mailer.send(clean, "a@home.test")).startswith("OK kept")
        await mailer.send(dotted, "a@home.test")  # over the connection kept open
    finally:
        await mailer.close()
        server.close()
    assert capture.mails == [clean, dotted.replace(b"bare\n", b"bare\r\n")]
