"""Sessions and one-time sign-ins (the service's `sessions`): a link opens one session
once, an OAuth2 state is taken once, sessions run out and end."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest

from bot.service import GameService, Player, Refused
from bot.service.web.sessions import LINK_MINUTES, SESSION_DAYS
from tests.conftest import Clock

ANN = Player(101, "Ann")


async def test_a_session_is_found_by_its_secret_and_ends(service: GameService) -> None:
    opened = await service.sessions.start(ANN, "discord")
    found = await service.sessions.find(opened.secret)
    assert found is not None and found.player == ANN and found.csrf == opened.session.csrf
    assert await service.sessions.find(opened.secret[:-1] + "x") is None
    assert await service.sessions.find("x" * 100_000) is None
    await service.sessions.end(found)
    assert await service.sessions.find(opened.secret) is None


async def test_signing_out_everywhere_ends_every_browser_of_that_player(
    service: GameService,
) -> None:
    first = await service.sessions.start(ANN, "mail")
    second = await service.sessions.start(ANN, "bot")
    other = await service.sessions.start(Player(202, "Bo"), "bot")
    assert await service.sessions.count(ANN.id) == 2
    assert await service.sessions.end_all(ANN.id) == 2
    assert await service.sessions.find(first.secret) is None
    assert await service.sessions.find(second.secret) is None
    assert await service.sessions.find(other.secret) is not None


async def test_a_session_unused_for_its_days_runs_out(service: GameService, clock: Clock) -> None:
    opened = await service.sessions.start(ANN, "bot")
    clock.now += timedelta(days=SESSION_DAYS - 1)
    assert await service.sessions.find(opened.secret) is not None  # its use renews it
    clock.now += timedelta(days=SESSION_DAYS - 1)
    assert await service.sessions.find(opened.secret) is not None
    clock.now += timedelta(days=SESSION_DAYS + 1)
    assert await service.sessions.find(opened.secret) is None
    assert await service.sessions.cleanup() == 1


async def test_a_sign_in_link_opens_one_session_once(service: GameService) -> None:
    secret = await service.sessions.issue_link(ANN, "mail")
    clicks = await asyncio.gather(
        *(service.sessions.redeem_link(secret) for _ in range(3)), return_exceptions=True
    )
    opened = [click for click in clicks if not isinstance(click, BaseException)]
    refused = [click for click in clicks if isinstance(click, Refused)]
    assert len(opened) == 1 and len(refused) == 2
    assert opened[0].session.player == ANN and opened[0].session.via == "mail"
    assert "used already or has expired" in str(refused[0])


async def test_a_sign_in_link_runs_out(service: GameService, clock: Clock) -> None:
    secret = await service.sessions.issue_link(ANN, "bot")
    clock.now += timedelta(minutes=LINK_MINUTES + 1)
    with pytest.raises(Refused):
        await service.sessions.redeem_link(secret)


async def test_an_oauth_state_gives_its_verifier_once_and_is_no_link(
    service: GameService,
) -> None:
    await service.sessions.begin_oauth("state-1", "verifier-1")
    with pytest.raises(Refused):  # a state is no sign-in link
        await service.sessions.redeem_link("state-1")
    assert await service.sessions.take_oauth("state-1") == "verifier-1"
    assert await service.sessions.take_oauth("state-1") is None
    assert await service.sessions.take_oauth("never-given") is None


@pytest.mark.both_backends
async def test_a_link_to_mail_is_taken_once_and_given_back_when_unsent(
    service: GameService, clock: Clock
) -> None:
    """Mailed links wait in their rows: of two takers at once one gets each; a link not
    sent is given back; a GET's look at a link uses nothing."""
    await service.sessions.mail_link(ANN)
    first, second = await asyncio.gather(
        service.sessions.take_links_to_mail(), service.sessions.take_links_to_mail()
    )
    [link] = first + second
    assert link.player == ANN and await service.sessions.take_links_to_mail() == []
    await service.sessions.give_back_link(link)
    [again] = await service.sessions.take_links_to_mail()
    assert again == link
    assert await service.sessions.link_holder(link.secret) == ANN
    assert await service.sessions.link_holder(link.secret) == ANN  # looked at twice: unused
    opened = await service.sessions.redeem_link(link.secret)
    assert opened.session.via == "mail" and await service.sessions.link_holder(link.secret) is None
    await service.sessions.give_back_link(link)  # used meanwhile: nothing waits again
    assert await service.sessions.take_links_to_mail() == []
    await service.sessions.mail_link(ANN)
    clock.now += timedelta(minutes=LINK_MINUTES + 1)
    assert await service.sessions.take_links_to_mail() == []  # run out before it was sent
