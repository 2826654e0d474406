"""Every mail handled once, whatever fails on the way (tests/mailkit.py's world over real
SMTP): a mail answered 451 is handled when it comes again, two deliveries of one mail
at once are one; mail from a null reverse path is never answered; a bounce counts only
for mail the bot sent, and a mail from a bounced address clears its mark."""

from __future__ import annotations

import asyncio

import aiosmtplib
import pytest
from sqlalchemy.exc import OperationalError

from bot.email.runner import start_mail
from bot.email.tokens import message_id, sent_to
from bot.service import GameService
from bot.store import Database
from tests.conftest import PATIENCE_SECONDS, Clock
from tests.mailkit import BOT, DOMAIN, MailWorld, fail_once, mail_world, move_mail
from tests.test_email import (
    address_to_move,
    bounce_report,
    genuine_bounce,
    nothing,
    other,
    started,
)

LOCKED = OperationalError("UPDATE games ...", {}, Exception("database is locked"))


async def refused_with_451(world: MailWorld, sender: str, to: str, raw: bytes, **kw: int) -> None:
    with pytest.raises(aiosmtplib.SMTPDataError) as refused:
        await world.send_raw(sender, to, raw, **kw)
    assert refused.value.code == 451


async def under_way(world: MailWorld) -> tuple[int, str, str]:
    """A game by mail under way: its id, the address to move, and the reply address of
    the last mail the bot sent there."""
    game_id = await started(world)
    mover = await address_to_move(world, game_id)
    return game_id, mover, str(world.capture.last(mover)["Reply-To"])


async def mailable(world: MailWorld, address: str) -> bool:
    """Whether the bot mails `address` (it has not bounced)."""
    found = await world.service.mail.player_by_address(address)
    assert found is not None
    return await world.service.mail.address_of(found[0].id) == address


def counts(world: MailWorld, *addresses: str) -> list[int]:
    return [len(world.capture.inbox(address)) for address in addresses]


async def test_a_move_mail_answered_451_is_played_once_when_it_comes_again(
    database_url: str, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with mail_world(database_url, clock) as world:
        game_id, mover, token = await under_way(world)
        raw = move_mail(mover, token, "a1", "<m1@home.test>")
        before = counts(world, mover, other(mover))
        fail_once(monkeypatch, world.service.play, "move", LOCKED)  # the database busy
        await refused_with_451(world, mover, token, raw)
        assert (await world.service.mail.mail_game(game_id)).ply == 0
        await world.send_raw(mover, token, raw)  # the sending server tries again
        assert (await world.service.mail.mail_game(game_id)).ply == 1
        assert counts(world, mover, other(mover)) == [n + 1 for n in before]
        assert "a1" in world.said(mover) and "a1" in world.said(other(mover))
        await world.send_raw(mover, token, raw)  # and again: handled already
        assert (await world.service.mail.mail_game(game_id)).ply == 1
        assert counts(world, mover, other(mover)) == [n + 1 for n in before]


async def test_a_mail_whose_answer_could_not_be_sent_is_answered_when_it_comes_again(
    database_url: str, clock: Clock
) -> None:
    """The operator's server down: a refusal not mailed is a 451, and the retry gets it;
    a move played is a 250 (its mails are the outbox's), and the retry plays nothing."""
    async with mail_world(database_url, clock) as world:
        game_id, mover, token = await under_way(world)
        bad = move_mail(mover, token, "z99", "<bad@home.test>")
        before = counts(world, mover)
        world.capture.refusing = True
        await refused_with_451(world, mover, token, bad)
        world.capture.refusing = False
        await world.send_raw(mover, token, bad)
        assert counts(world, mover) == [before[0] + 1]
        assert "z99" in world.said(mover)
        await world.send_raw(mover, token, bad)
        assert counts(world, mover) == [before[0] + 1]

        good = move_mail(mover, token, "a1", "<good@home.test>")
        before = counts(world, mover, other(mover))
        world.capture.refusing = True
        await world.send_raw(mover, token, good)
        world.capture.refusing = False
        await world.send_raw(mover, token, good)
        assert (await world.service.mail.mail_game(game_id)).ply == 1
        assert counts(world, mover, other(mover)) == before
        clock.advance(minutes=1)  # the outbox's lease runs out: it mails the move
        assert await world.service.outbox.redeliver(nothing) == 1
        assert counts(world, mover, other(mover)) == [n + 1 for n in before]
        assert "a1" in world.said(other(mover))


@pytest.mark.both_backends
async def test_two_deliveries_of_one_mail_at_once_are_handled_once(
    database_url: str, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two processes on one database, each with its listener: while the first handles a
    mail, the same mail at the second is a 451; once the first is done, a 250 and
    nothing more."""
    async with mail_world(database_url, clock) as world:
        game_id, mover, token = await under_way(world)
        raw = move_mail(mover, token, "a1", "<twice@home.test>")
        entered, go = asyncio.Event(), asyncio.Event()
        move = world.service.play.move

        async def held(*args: object, **kwargs: object) -> object:
            entered.set()
            await go.wait()
            return await move(*args, **kwargs)  # type: ignore[arg-type]

        monkeypatch.setattr(world.service.play, "move", held)
        second = GameService(
            await Database.open(database_url), world.service.records.settings, clock=clock
        )
        runner = await start_mail(second, second.records.settings, nothing, clock, codes=False)
        assert runner is not None and runner.port is not None
        try:
            before = counts(world, mover, other(mover))
            first = asyncio.create_task(world.send_raw(mover, token, raw))
            await asyncio.wait_for(entered.wait(), PATIENCE_SECONDS)
            await refused_with_451(world, mover, token, raw, port=runner.port)
            go.set()
            await first
            assert (await world.service.mail.mail_game(game_id)).ply == 1
            await world.send_raw(mover, token, raw, port=runner.port)
            assert (await world.service.mail.mail_game(game_id)).ply == 1
            assert counts(world, mover, other(mover)) == [n + 1 for n in before]
        finally:
            await runner.stop()
            await second.close()


async def test_mail_from_the_null_reverse_path_is_never_answered_nor_acted_on(
    database_url: str, clock: Clock
) -> None:
    """MAIL FROM:<> (RFC 5321 4.5.5): whatever its headers say, a machine's mail."""
    async with mail_world(database_url, clock) as world:
        game_id, mover, token = await under_way(world)
        mailed = len(world.capture.mails)
        await world.send_raw("", token, move_mail(mover, token, "a1", "<null@home.test>"))
        await world.send_raw("", BOT, move_mail(mover, BOT, "help", "<help@home.test>"))
        await world.send_raw("MAILER-DAEMON@home.test", BOT, move_mail(mover, BOT, "help", "<d@h>"))
        assert (await world.service.mail.mail_game(game_id)).ply == 0
        assert len(world.capture.mails) == mailed


async def test_a_bounce_for_mail_the_bot_never_sent_stops_nothing(
    database_url: str, clock: Clock
) -> None:
    """Anyone can mail a report: it counts only when it quotes a mail the bot sent to the
    address it reports (its Message-ID is signed for that address)."""
    async with mail_world(database_url, clock) as world:
        _, mover, _ = await under_way(world)
        victim = other(mover)
        sent_to_mover = str(world.capture.last(mover)["Message-ID"])
        for quoted in ("", f"<o1.aaaaaaaaaaaaaaaa@{DOMAIN}>", sent_to_mover):
            await world.send_raw("mailer-daemon@evil.test", BOT, bounce_report(victim, quoted))
        assert await mailable(world, victim)
        await world.reply(mover, "a1")
        assert "a1" in world.said(victim)
        await world.send_raw("mailer-daemon@work.test", BOT, genuine_bounce(world, victim))
        assert not await mailable(world, victim)


async def test_a_mail_from_a_bounced_address_clears_its_mark_and_plays(
    database_url: str, clock: Clock
) -> None:
    async with mail_world(database_url, clock) as world:
        game_id, mover, _ = await under_way(world)
        victim = other(mover)
        await world.reply(mover, "a1")
        await world.send_raw("mailer-daemon@work.test", BOT, genuine_bounce(world, victim))
        assert not await mailable(world, victim)
        await world.reply(victim, "b2")  # their own move, from their own address
        assert (await world.service.mail.mail_game(game_id)).ply == 2
        assert await mailable(world, victim)
        said = world.all_said(victim)
        assert any("works again" in text for text in said[-2:]) and "b2" in said[-1]
        assert "b2" in world.said(mover)

        await world.send_raw("mailer-daemon@work.test", BOT, genuine_bounce(world, victim))
        assert not await mailable(world, victim)
        await world.send(victim, BOT, "join")
        assert await mailable(world, victim)
        assert any("works again" in text for text in world.all_said(victim)[-2:])
        assert "Welcome" in world.said(victim)


def test_a_message_id_is_signed_for_its_recipient() -> None:
    old, new = "the secret of last month", "the secret of this month"
    signed = message_id("o12", "ann@home.test", DOMAIN, old)
    assert sent_to(signed, "Ann@Home.test", DOMAIN, (new, old))
    assert not sent_to(signed, "ann@home.test", DOMAIN, (new,))  # the old secret dropped
    assert not sent_to(signed, "ben@home.test", DOMAIN, (new, old))
    assert not sent_to(signed.replace("<o12.", "<o13."), "ann@home.test", DOMAIN, (old,))
    assert not sent_to(signed, "ann@home.test", "other.test", (old,))
    assert not sent_to(f"<o12.abcdefghijklmnop@{DOMAIN}>", "ann@home.test", DOMAIN, (old,))
