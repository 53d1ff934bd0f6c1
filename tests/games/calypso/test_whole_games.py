"""Whole games through engine.play with the local dealer, bots from the real plugin host, and
the revoke tests: the audit names a modified client; honour mode charges 260."""

import pytest

from p2pcards.bots import RandomBot
from p2pcards.dealer import LocalDealer
from p2pcards.engine import play, seeded_rng
from p2pcards.game import Bot
from p2pcards.plugins import load_plugins
from p2pcards.testing import check_game

from .calypso_table import calypso_game

MODES = [("partnership", 4), ("solo", 4), ("three", 3)]


def run(options, players, bots, seed=0, check_own=True):
    game = calypso_game()
    resolved = game.resolve_options(options, players)
    deck = LocalDealer(game.deck(resolved, players), players, seeded_rng(seed, "deck"))
    seats = [cls(game, seat, resolved, seeded_rng(seed, "bot", seat)) for seat, cls in enumerate(bots)]
    return play(game, resolved, players, deck, seats, check_own=check_own)


@pytest.mark.parametrize("rule", ["BEAT_THE_LEADER", "ANY_RUFF_BEATS_TRUMP_LEAD"])
@pytest.mark.parametrize("seating", ["cut", "random"])
@pytest.mark.parametrize("mode, players", MODES)
def test_whole_game_scores_add_up_and_the_audit_is_clean(mode, players, seating, rule):
    strategic = load_plugins().bots_for("calypso")["strategic"]
    for seed in range(3):
        record = run(
            {"mode": mode, "seating": seating, "trump_lead_rule": rule},
            players,
            [strategic, RandomBot, strategic, RandomBot][:players],
            seed,
        )
        details = record.result.details
        assert record.violations == []
        assert details["cards_accounted"] == (117 if mode == "three" else 208)
        assert (
            sum(p["calypsos"] * 13 + p["in_progress"] + p["pile"] for p in details["players"].values())
            == details["cards_accounted"]
        )
        totals = [p["total"] for p in details["players"].values()]
        assert list(record.result.scores) == totals
        plays = sum(a["type"] == "play" for _, a in record.actions)
        assert plays == details["cards_accounted"]


class RevokingBot(Bot):
    """A modified client: whenever it could follow suit it plays another suit instead (only in
    trick ``only_trick`` of a deal when that is given)."""

    name = "revoker"
    only_trick = None

    def choose(self, state, known):
        hand = [h for h in state.hands[self.seat] if h in known]
        led = state.led_suit()
        off = [h for h in hand if led is not None and known[h].suit != led]
        holds_led = any(known[h].suit == led for h in hand)
        legal = self.game.legal_actions(state, self.seat, known)
        if holds_led and off and self.only_trick in (None, state.trick_number) and state.to_play() == self.seat:
            # In honour mode it owns to an earlier revoke as an honest client does.
            owning = {"declare_revoke": True} if legal[0].get("declare_revoke") else {}
            return {"type": "play", "card": self.rng.choice(off), **owning}
        # It never takes a revoke back (that is in test_revoke_correction.py).
        return self.rng.choice([a for a in legal if a["type"] != "correct"])


def test_the_audit_names_a_modified_client_that_revokes():
    record = run({}, 4, [RandomBot, RevokingBot, RandomBot, RandomBot], check_own=False)
    assert record.violations
    assert {v.seat for v in record.violations} == {1}
    for v in record.violations:
        seat, action = record.actions[v.action_index]
        assert seat == 1 and action["type"] == "play" and "revoke" in v.message
    assert record.result.details["revokes"] == []  # not honour mode: no penalty, a cheat report


def test_an_honest_client_refuses_to_revoke():
    from p2pcards.engine import PlayerError

    with pytest.raises(PlayerError, match="follow suit"):
        run({}, 4, [RevokingBot] * 4)


@pytest.mark.parametrize("mode, players", MODES)
def test_honour_mode_charges_260_per_established_revoke(mode, players):
    record = run({"mode": mode, "allow_revoke": True}, players, [RevokingBot] + [RandomBot] * (players - 1))
    assert record.violations == []
    details = record.result.details
    revokes = details["revokes"]
    assert revokes and {r["seat"] for r in revokes} == {0}
    established = sum(r["established"] for r in revokes)
    assert details["players"]["0"]["penalty"] == 260 * established
    assert all(r["established"] == (r["trick"] != 12) for r in revokes)


def test_honour_mode_a_revoke_in_the_12th_trick_is_never_established():
    class TwelfthTrickRevoker(RevokingBot):
        only_trick = 12

    for seed in range(40):
        record = run({"allow_revoke": True}, 4, [TwelfthTrickRevoker] + [RandomBot] * 3, seed)
        revokes = record.result.details["revokes"]
        if revokes:
            assert all(r["trick"] == 12 and not r["established"] for r in revokes)
            assert record.result.details["players"]["0"]["penalty"] == 0
            return
    pytest.fail("no 12th-trick revoke came up in 40 games")


def test_honour_mode_penalty_in_partnership_lowers_the_side_total():
    record = run({"allow_revoke": True}, 4, [RevokingBot] + [RandomBot] * 3, seed=4)
    details = record.result.details
    side = next(s for s in details["sides"] if 0 in s["seats"])
    assert side["total"] == sum(details["players"][str(s)]["total"] for s in side["seats"])
    assert details["players"]["0"]["penalty"] > 0


@pytest.mark.slow  # many whole games
def test_check_game_every_variant():
    """p2pcards.testing's checks on whole games, the text round trip included: the log's phrases
    ("plays Q♥", "chooses hearts and the place at the first dealer's left") read back."""
    check_game("calypso", games=2)


def test_check_game_with_the_removed_suit_drawn():
    """removed_suit=random adds the set-aside turns ("sets aside 2♣ 9♣", "sets nothing aside")."""
    checks = check_game("calypso", variants=["three"], options={"removed_suit": "random"}, games=2)
    asides = [a for check in checks for _, a in check.record.actions if a["type"] == "set_aside"]
    assert any(a["cards"] for a in asides) and any(not a["cards"] for a in asides)
