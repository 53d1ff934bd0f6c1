"""Refusals that point the right way, and Tab completing a move begun: each message as the
player sees it (through the controller, at the player's turn)."""

from __future__ import annotations

import pytest
import trio

from p2pcards.console.completion import next_words
from p2pcards.console.controller import MoveChoice

from .support import require_game, table
from .test_controller import completions, controller_for


async def _handle(session, lines):
    controller = controller_for(session)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(session.run)
        with trio.fail_after(10):
            while not (session.my_turn and session.view().get("hand", True)):
                if session.my_turn:
                    session.submit(session.legal_actions()[0])  # a trump choice, say
                await trio.sleep(0.001)
        replies = {line: controller.handle(line) for line in lines}
        offered = {line: completions(controller, line) for line in lines}
        hand = [str(c) for c in session.view().get("hand", [])]
        nursery.cancel_scope.cancel()
    return replies, offered, hand


async def test_help_with_words_opens_the_help(host):
    session = table(host, "high-card", players=2)
    replies, _, _ = await _handle(session, ["help me", "help", "? rules"])
    assert replies["help me"].intent == "help" and not replies["help me"].error
    assert replies["help me"].message == "'help' needs no words after it: here is the help (F1 or Esc closes it)"
    assert replies["help"].intent == "help" and replies["? rules"].intent == "help"


async def test_cals_bs_quads_without_quads_and_a_joker_named_as_a_rank(host):
    require_game(host, "cals-bs")
    session = table(host, "cals-bs", players=3, options={"quads": False}, seed=7)
    lines = ["quads 2c 2d 2h 5c", "+2 5c", "play 2c as JK", "play 2c as joker"]
    replies, _, _ = await _handle(session, lines)
    for line in lines[:2]:
        assert replies[line].error and replies[line].keep_text
        assert "quads are not played at this table (option quads is off)" in replies[line].message
        assert "play CARDS as RANK" in replies[line].message
    for line in lines[2:]:
        assert replies[line].error
        assert "a joker is not a rank: jokers are wild, so claim the rank they stand for" in replies[line].message


async def test_cals_bs_with_quads_still_reads_a_quads_lead(host):
    require_game(host, "cals-bs")
    session = table(host, "cals-bs", players=3, options={"quads": True}, seed=7)
    replies, _, _ = await _handle(session, ["quads 2c 2d 2h 5c"])
    assert "not played at this table" not in replies["quads 2c 2d 2h 5c"].message


@pytest.mark.parametrize("line", ["play JK", "joker", "jokers?", "play joker"])
async def test_crazy_eights_says_it_has_no_jokers(host, line):
    require_game(host, "crazy-eights")
    session = table(host, "crazy-eights", players=2, seed=7)
    replies, _, _ = await _handle(session, [line])
    assert replies[line].error
    assert "Crazy Eights is played without jokers" in replies[line].message


async def test_tab_offers_the_next_card_and_the_claim_in_a_move_begun(host):
    require_game(host, "cals-bs")
    session = table(host, "cals-bs", players=3, seed=7)
    _, _, hand = await _handle(session, [])
    first, second = hand[0], hand[1]
    session2 = table(host, "cals-bs", players=3, seed=7)
    typed = f"play {first} {second} "
    _, offered, _ = await _handle(session2, [typed])
    words = offered[typed]
    assert set(hand[2:]) <= set(words), words  # the cards not typed yet
    assert any(w.startswith("as ") for w in words), words


def test_next_words_cards_left_claims_and_ranks():
    choices = [MoveChoice("play 5c as 5", ""), MoveChoice("play 10c as 10", ""), MoveChoice("pass", "")]
    hand = ["2c", "5c", "Ac", "Ad", "Ad"]
    words = [w for w, _, _ in next_words("play Ac Ad ", choices, hand)]
    assert words[:3] == ["2c", "5c", "Ad"]  # Ac typed once and held once: no longer offered
    assert words[3] == "as A"  # the honest claim first, then every rank (leading may bluff)
    assert "as 7" in words and len([w for w in words if w.startswith("as ")]) == 13
    assert [w for w, _, _ in next_words("play Ac Ad as ", choices, hand)][:2] == ["A", "2"]
    assert next_words("play Ac as A ", choices, hand) == []  # the claim is made
    assert next_words("pla", choices, hand) == []  # the verb: whole-line completion says it
    following = [MoveChoice("play 7h as 7", ""), MoveChoice("play 7h 7s as 7", "")]
    assert [w for w, _, _ in next_words("play 7h ", following, ["7h", "7s", "Kd"])] == ["7s", "Kd", "as 7"]
