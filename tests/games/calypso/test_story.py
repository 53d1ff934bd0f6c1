"""The story of a Calypso game (issue 22): who cut what, who took each trick and why, each
calypso, each deal's scores and who deals next, with the players' names.

Seats as in calypso_table: W (seat 0, ♠) deals first, N (seat 2, ♣) leads, E (1, ♥), S (3, ♦)."""

from __future__ import annotations

import re

import pytest

from .calypso_table import Table

NAMES = ["walt", "emma", "nina", "sam"]  # W, E, N, S


def tricks(t: Table) -> list[str]:
    return [line for line in t.story(NAMES) if " takes trick " in line]


def test_the_cut_and_the_trump_suits_are_told_by_name():
    t = Table(hands={"N": ["4c"]})
    assert t.story(NAMES)[:7] == [
        "walt cuts an ace",
        "emma cuts a king",
        "nina cuts a queen",
        "sam cuts a jack",
        "walt cuts highest: chooses trumps first and deals first",
        "emma gets hearts, the partner suit of walt's spades",
        "sam gets diamonds, the partner suit of nina's clubs",
    ]


def test_tied_cutters_cut_again():
    t = Table(hands={"N": ["4c"]}, cuts=[14, 14, 12, 11], coins={"cut2/seat0": 3, "cut2/seat1": 9})
    assert t.story(NAMES)[4:7] == [
        "walt and emma tie and cut again",
        "walt cuts a 5 (cutting again)",
        "emma cuts a jack (cutting again)",
    ]


@pytest.mark.parametrize(
    ("cards", "void", "line"),
    [
        (["8h", "Kh", "2h", "10h"], {}, "emma takes trick 1 with Kh (highest heart)"),
        (["4d", "7h", "Ad", "9d"], {"E": "d"}, "emma takes trick 1 with 7h (own trump)"),
        (["9c", "Kc", "2c", "5c"], {}, "nina takes trick 1 with 9c (led own trump)"),
        (["6c", "8h", "10d", "3c"], {"E": "c", "S": "c"}, "sam takes trick 1 with 10d (highest own trump)"),
        (["3s", "Ks", "Ks", "2s"], {}, "emma takes trick 1 with Ks (highest spade, played first)"),
    ],
)
def test_each_trick_says_who_took_it_with_what_and_why(cards, void, line):
    t = Table(hands={seat: [card] for seat, card in zip("NESW", cards)}, void=void)
    t.trick(*cards)
    assert tricks(t) == [line]


def test_the_local_player_takes_a_trick_in_the_second_person():
    t = Table(hands={"N": ["9c"], "E": ["Kc"], "S": ["2c"], "W": ["5c"]})
    t.trick("9c", "Kc", "2c", "5c")
    assert [line for line in t.story(["walt", "emma", "you", "sam"]) if "trick" in line] == [
        "you take trick 1 with 9c (led own trump)"
    ]


def test_every_deal_ends_with_the_scores_of_the_sides_and_who_deals_next():
    t = Table(hands={"N": ["4c"]})
    t.play_out()
    lines = t.story(NAMES)
    assert len(tricks(t)) == 4 * 13
    deals = [line for line in lines if line.startswith("deal ")]
    assert [line.split(":")[0] for line in deals] == [f"deal {n} of 4" for n in range(1, 5)]
    nexts = [line for line in lines if line.startswith("next, ")]
    assert nexts == [
        "next, deal 2 of 4: nina deals, emma leads",  # the deal passes left: W, N, E, S
        "next, deal 3 of 4: emma deals, sam leads",
        "next, deal 4 of 4: sam deals, walt leads",
    ]
    sides = sorted(t.result.details["sides"], key=lambda side: -side["total"])
    expected = ", ".join(" & ".join(NAMES[s] for s in side["seats"]) + f" {side['total']:,}" for side in sides)
    assert deals[-1] == f"deal 4 of 4: {expected}"
    assert re.fullmatch(r"deal 4 of 4: \w+ & \w+ [\d,]+, \w+ & \w+ [\d,]+", deals[-1])
    for line in lines:
        if "completes calypso" in line:
            assert re.fullmatch(r"\w+ completes calypso \d \((500|750|1000) points\)", line)


def test_solo_deal_scores_list_every_player_highest_first():
    t = Table(mode="solo", hands={1: ["4c"]})
    t.play_out()
    deals = [line for line in t.story(NAMES) if line.startswith("deal ")]
    totals = t.result.details["players"]
    ranked = sorted(range(4), key=lambda s: -totals[str(s)]["total"])
    assert deals[-1] == "deal 4 of 4: " + ", ".join(f"{NAMES[s]} {totals[str(s)]['total']:,}" for s in ranked)
