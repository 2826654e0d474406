"""An event's tables and pairings as they stand: a knockout's decided matches stay as
they were played when a player leaves later, its table counts each player's games under
way and lists a tie in entry order; a ladder's pairings show its challenges."""

from __future__ import annotations

from bot.service import GameService, Player
from tests.eventkit import GUILD, ORGANIZER, PEOPLE, open_event, under_way

#: Entered k1 to k4 (seeds 1 to 4, no ratings), their ids the other way round: an order
#: by id is not the entry order.
K1, K2, K3, K4 = (Player(9104 - i, f"k{i + 1}") for i in range(4))
BY_ID = {k.id: k for k in (K1, K2, K3, K4)}


def _rows(text: str) -> list[list[str]]:
    """A standings table's rows as text, split on the columns' spaces (the heading out)."""
    return [line.split() for line in text.split("\n\n")[0].splitlines()[2:]]


async def test_a_withdrawal_in_the_final_leaves_the_first_round_as_played(
    service: GameService,
) -> None:
    tid = await open_event(service, "knockout", (K1, K2, K3, K4))
    await service.events.start_tournament(tid, GUILD, ORGANIZER)
    first, second = await under_way(service, tid)
    assert {first[1], first[2]} == {K1.id, K4.id} and {second[1], second[2]} == {K2.id, K3.id}
    await service.play.resign(first[0], GUILD, K1)
    await service.play.resign(second[0], GUILD, K3)
    [(final, *_)] = await under_way(service, tid)
    during = await service.event_reads.tournament_standings(tid, GUILD)
    # the final's players have its game left; the others none
    assert _rows(during.text) == [
        ["=1", "k2", "1", "1"],
        ["=1", "k4", "1", "1"],
        ["=3", "k1", "0", "0"],
        ["=3", "k3", "0", "0"],
    ]
    await service.events.withdraw_from_tournament(tid, GUILD, ORGANIZER, K4, manages=True)
    assert (await service.lookups.game(final, GUILD)).status == "finished"
    after = await service.event_reads.tournament_standings(tid, GUILD)
    assert after.tournament.status == "finished"
    assert _rows(after.text) == [
        ["1", "k2", "3", "0"],
        ["2", "k4", "(withdrawn)", "1", "0"],
        ["=3", "k1", "0", "0"],  # entry order: k1 before k3, whose id is lower
        ["=3", "k3", "0", "0"],
    ]
    bracket = after.text.split("\n\n")[1].splitlines()
    assert bracket[1:] == [
        "round 1:",
        "  k1 v k4  <  0-1",
        "  k2  < v k3  1-0",
        "round 2:",
        "  k2  < v k4  1-0",
    ]


async def test_a_ladders_pairings_show_its_challenges(service: GameService) -> None:
    p1, p2, p3, p4 = PEOPLE[:4]
    tid = await open_event(service, "ladder", PEOPLE[:4])
    await service.events.start_tournament(tid, GUILD, ORGANIZER)
    assert (await service.event_reads.tournament_pairings(tid, GUILD)).endswith("no games")
    played = await service.ladders.ladder_challenge(tid, GUILD, p2, p1)
    await service.ladders.accept_ladder_challenge(tid, GUILD, p1)
    waiting = await service.ladders.ladder_challenge(tid, GUILD, p4, p3)
    listed = await service.event_reads.tournament_pairings(tid, GUILD)
    assert listed.splitlines() == [
        "Ladder Hex, challenges:",
        f"  p2 v p1 (#{played.results[0].game.id}, under way)",
        f"  p4 v p3 (#{waiting.results[0].game.id}, waiting for p3 to accept)",
    ]
    await service.play.resign(played.results[0].game.id, GUILD, p1)
    await service.ladders.decline_ladder_challenge(tid, GUILD, p3)
    assert (await service.event_reads.tournament_pairings(tid, GUILD)).endswith("no games")
