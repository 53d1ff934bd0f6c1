"""Rule 30 in honour mode: a revoke may be corrected until it is established (seed-CY l.145: until
a player of the offending side plays to the next trick), and it is on record as soon as it is.

Partnership seats (see calypso_table): N leads the first trick, play goes N, E, S, W; N and S are
partners (♣, ♦), E and W (♥, ♠). A card of clubs played by E to a diamond lead is a discard.
"""

import random

import pytest
from p2pcards_calypso.tricks import REVOKE_PENALTY

from p2pcards.bots import RandomBot
from p2pcards.dealer import LocalDealer
from p2pcards.engine import play, seeded_rng
from p2pcards.game import IllegalAction, Reveal, Turn
from p2pcards.testing import check_game

from .calypso_table import E, N, S, Table, W


def honour_table(**hands):
    return Table(hands=hands, allow_revoke=True)


def step(t):
    return t.game.next_step(t.state)


def audit(t):
    return t.game.audit(t.state, t.replica.actions, t.dealer.open_all())


def e_revokes_in_trick_1():
    """E holds ♦K but discards ♣7 to N's ♦4; S's ♦A wins, so S leads trick 2 (S, W, N, E)."""
    t = honour_table(N=["4d", "3s"], E=["Kd", "7c"], S=["Ad", "2s"], W=["9d"])
    assert t.trick("4d", "7c", "Ad", "9d") == S
    return t


def test_the_offender_gets_a_last_chance_before_its_partner_plays():
    t = e_revokes_in_trick_1()
    # S's lead is S's own last chance (it followed suit: nothing to own to).
    assert step(t) == Turn(S)
    t.act(S, "play 2s")
    # W's play would establish E's revoke, so E is asked first; nothing is on record yet.
    assert step(t) == Turn(E)
    assert t.state.revokes == []
    assert "correct" in t.game.view(t.state, E, t.known(E))["status"]
    kinds = {a["type"] for a in t.game.legal_actions(t.state, E, t.known(E))}
    assert kinds == {"let_stand", "correct"}
    # The honest client owns to the revoke when it lets the trick stand.
    assert t.parse(E, "stand") == {"type": "let_stand", "declare_revoke": True}
    assert t.parse(E, "ok") == t.parse(E, "let stand") == t.parse(E, "stand")
    assert (
        t.parse(E, "take back Kd") == t.parse(E, "correct Kd") == {"type": "correct", "card": t.parse(E, "Kd")["card"]}
    )
    shown = t.game.format_action(t.state, E, t.parse(E, "correct Kd"), t.known(E))
    assert shown == "takes back a revoke in the last trick and plays K♦ instead"
    assert t.parse(E, shown) == t.parse(E, "correct Kd")
    standing = t.game.format_action(t.state, E, t.parse(E, "stand"), t.known(E))
    assert standing == "lets the last trick stand, owning to a revoke in the last trick"
    assert t.parse(E, standing) == t.parse(E, "stand")


def test_a_correction_takes_back_the_revoke_and_every_card_after_it():
    t = e_revokes_in_trick_1()
    before = {seat: t.hand(seat) for seat in (N, E, S, W)}
    t.act(S, "play 2s")
    t.act(E, "correct Kd")
    state = t.state
    # Trick 1 is open again with N's ♦4 and E's ♦K; ♣7, ♦A, ♦9 and S's ♠2 are back in hand.
    assert state.trick_number == 1 and state.leader == N
    assert [(s, str(state.faces[h])) for s, h in state.trick] == [(N, "4d"), (E, "Kd")]
    assert t.hand(E) == sorted([c for c in before[E] if c != "Kd"] + ["7c"])
    assert "Ad" in t.hand(S) and "2s" in t.hand(S) and "9d" in t.hand(W)
    assert all(not tableau.pile and not tableau.current for tableau in state.tableaux.values())
    assert state.last_trick_winner is None
    # S and W play again; a card taken back is face up already and is not revealed again.
    steps_before = len(t.steps)
    t.act(S, "play Ad")
    assert not any(isinstance(s, Reveal) for s in t.steps[steps_before:])
    t.act(W, "play 9d")
    assert state.last_trick_winner == S and state.trick_number == 2
    t.play_out()
    details = state.result.details
    assert details["revokes"] == [] and details["players"][str(E)]["penalty"] == 0
    assert details["cards_accounted"] == 208
    assert [(c.seat, c.trick) for c in state.corrections] == [(E, 1)]
    assert audit(t) == []


def test_a_revoke_left_standing_is_on_record_at_once():
    t = e_revokes_in_trick_1()
    t.act(S, "play 2s")
    score = t.state.totals()[E]
    t.act(E, "stand")
    assert [(r.seat, r.trick, r.established, r.declared) for r in t.state.revokes] == [(E, 1, True, True)]
    assert t.state.totals()[E] == score - REVOKE_PENALTY
    assert step(t) == Turn(W)  # and now it is established: W plays to trick 2
    log = t.game.format_action(t.state, E, t.replica.actions[-1][1], t.state.faces)
    assert log == "lets the last trick stand, owning to a revoke in the last trick"
    t.play_out()
    details = t.state.result.details
    assert details["revokes"] == [{"seat": E, "deal": 1, "trick": 1, "established": True, "declared": True}]
    assert details["players"][str(E)]["penalty"] == REVOKE_PENALTY
    assert audit(t) == []


def test_once_established_a_revoke_cannot_be_corrected():
    t = e_revokes_in_trick_1()
    t.act(S, "play 2s")
    t.act(E, "stand")
    t.act(W, "play " + next(c for c in t.hand(W)))
    t.act(N, "play " + next(c for c in t.hand(N)))
    with pytest.raises(IllegalAction, match="may still take back"):
        t.act(E, "correct Kd")


def test_a_hidden_revoke_is_penalised_and_named_by_the_audit():
    t = e_revokes_in_trick_1()
    t.act(S, "play 2s")
    # A modified client lets the trick stand without owning to the revoke.
    with pytest.raises(IllegalAction, match="own to it"):
        t.game.check_own(t.state, E, {"type": "let_stand"}, t.known(E))
    t.replica.act(E, {"type": "let_stand"})
    t.advance()
    assert t.state.revokes == []  # nobody else can know yet
    t.play_out()
    details = t.state.result.details
    assert details["revokes"][0] == {"seat": E, "deal": 1, "trick": 1, "established": True, "declared": False}
    assert details["players"][str(E)]["penalty"] == REVOKE_PENALTY
    [violation] = audit(t)
    assert violation.seat == E and "hid a revoke" in violation.message
    assert t.replica.actions[violation.action_index][1]["type"] == "play"  # the ♣7


def test_corrections_that_the_rules_refuse():
    t = e_revokes_in_trick_1()
    t.act(S, "play 2s")
    # S followed suit in trick 1: public information shows there is nothing to correct or own.
    with pytest.raises(IllegalAction):
        t.game.check(t.state, S, {"type": "correct", "card": t.state.hands[S][0]})
    with pytest.raises(IllegalAction, match="true or false"):
        t.game.check(t.state, E, {"type": "let_stand", "declare_revoke": "yes"})
    # The client refuses a correction with a card that does not follow the led suit.
    club = next(h for h in t.state.hands[E] if t.known(E)[h].suit.value != "d")
    with pytest.raises(IllegalAction, match="led suit"):
        t.game.check_own(t.state, E, {"type": "correct", "card": club}, t.known(E))
    t.act(E, "stand")
    # W's play is W's last chance, but W followed suit: nothing to own to.
    with pytest.raises(IllegalAction, match="no revoke"):
        t.game.check(t.state, W, {"type": "play", "card": t.state.hands[W][0], "declare_revoke": True})


def test_a_trick_is_corrected_once_per_player():
    t = e_revokes_in_trick_1()
    t.act(S, "play 2s")
    t.act(E, "correct Kd")
    t.act(S, "play Ad")
    t.act(W, "play 9d")
    t.act(S, "play 2s")
    state = t.state
    assert step(t) == Turn(E)  # asked again: its card now follows suit, nothing to do
    assert t.game.legal_actions(state, E, t.known(E)) == [{"type": "let_stand"}]
    with pytest.raises(IllegalAction, match="followed suit"):
        t.game.check(state, E, {"type": "correct", "card": state.hands[E][0]})


def test_a_modified_client_cannot_correct_the_same_trick_twice():
    t = e_revokes_in_trick_1()
    t.act(S, "play 2s")
    off_suit = [h for h in t.state.hands[E] if t.known(E)[h].suit.value != "d"]
    t.replica.act(E, {"type": "correct", "card": off_suit[0]})  # a revoke again, unchecked
    t.advance()
    t.act(S, "play Ad")
    t.act(W, "play 9d")
    t.act(S, "play 2s")
    assert step(t) == Turn(E)
    with pytest.raises(IllegalAction, match="once already"):
        t.game.check(t.state, E, {"type": "correct", "card": off_suit[1]})


def test_a_correction_without_a_revoke_is_named_by_the_audit():
    """A modified client takes back a card that followed suit... public checks stop that; one
    that 'corrects' with an off-suit card (so the first card was no revoke, or the new one is
    one) is named once the faces are open."""
    t = e_revokes_in_trick_1()
    t.act(S, "play 2s")
    spade = next(h for h in t.state.hands[E] if t.known(E)[h].suit.value != "d")
    t.replica.act(E, {"type": "correct", "card": spade})
    t.advance()
    t.play_out()
    violations = audit(t)
    assert any(v.seat == E and "does not follow" in v.message for v in violations)


def test_solo_the_offenders_own_next_play_is_its_last_chance():
    """Solo: seat 1 leads, play goes 1, 2, 3, 0. Seat 2 revokes; seat 3 wins and leads trick 2
    (3, 0, 1, 2): seat 2 corrects at its own turn and the three cards of trick 2 go back too."""
    t = Table(
        mode="solo", hands={1: ["4d", "2h"], 2: ["Kd", "7c"], 3: ["Ad", "2s"], 0: ["9d", "3s"]}, allow_revoke=True
    )
    assert t.trick("4d", "7c", "Ad", "9d") == 3
    for seat, card in ((3, "2s"), (0, "3s"), (1, "2h")):
        assert step(t) == Turn(seat)  # no pause in solo: nobody else is on the offender's side
        t.act(seat, f"play {card}")
    assert step(t) == Turn(2)
    assert t.parse(2, "Kd") == {"type": "play", "card": t.parse(2, "Kd")["card"], "declare_revoke": True}
    t.act(2, "correct Kd")
    assert t.state.trick_number == 1 and len(t.state.trick) == 2
    assert {"2s", "Ad"} <= set(t.hand(3)) and "3s" in t.hand(0) and "2h" in t.hand(1)
    t.play_out()
    assert t.state.result.details["revokes"] == [] and audit(t) == []


def test_an_earlier_follower_whose_revoke_stays_in_the_trick_gets_its_last_chance_again():
    """Solo (trumps: seat 0 ♠, 1 ♥, 2 ♦, 3 ♣): seats 2 and 3 both revoke to seat 1's ♦4 (♣7 and
    ♥8 are discards for them); seat 0 wins with ♦9 and leads trick 2 (0, 1, 2, 3). Seat 2
    corrects at its turn: trick 2's cards and seat 3's and seat 0's cards of trick 1 go back.
    Seat 3 revokes again in the replay and has a last chance for it in the new trick 2."""
    t = Table(
        mode="solo", hands={1: ["4d", "2h"], 2: ["Kd", "7c"], 3: ["5d", "8h"], 0: ["9d", "3s"]}, allow_revoke=True
    )
    assert t.trick("4d", "7c", "8h", "9d") == 0
    t.act(0, "play 3s")
    t.act(1, "play 2h")
    t.act(2, "correct Kd")
    assert "8h" in t.hand(3) and {"9d", "3s"} <= set(t.hand(0))
    t.act(3, "play 8h")  # seat 3 revokes again in the replay
    t.act(0, "play 9d")
    assert t.state.last_trick_winner == 2  # ♦K now wins
    assert t.state.unsettled == [2, 3, 0]
    assert t.game.legal_actions(t.state, 2, t.known(2))[0].get("declare_revoke") is None
    t.act(2, "play 2s" if "2s" in t.hand(2) else t.hand(2)[0])
    t.act(3, t.hand(3)[0])  # seat 3's client owns to its revoke by itself
    assert [(r.seat, r.trick, r.declared) for r in t.state.revokes] == [(3, 1, True)]


def test_no_last_chance_after_the_12th_trick():
    t = honour_table()
    while t.state.trick_number < 13:
        for _ in range(1):
            seat = step(t).seat
            t.replica.act(seat, t.game.legal_actions(t.state, seat, t.known(seat))[0])
            t.advance()
    assert t.state.trick_number == 13 and t.state.unsettled == [] and t.state.closed is None


def test_without_honour_mode_nothing_changes():
    t = Table(hands={"N": ["4d"], "E": ["Kd", "7c"]})
    t.act(N, "play 4d")
    with pytest.raises(IllegalAction, match="follow suit"):
        t.act(E, "play 7c")
    t.act(E, "play Kd")
    with pytest.raises(IllegalAction):
        t.game.check(t.state, S, {"type": "play", "card": t.state.hands[S][0], "declare_revoke": True})


class CorrectingRevoker(RandomBot):
    """An honest honour-mode client that revokes when it can and, at its last chance, corrects
    or lets the revoke stand at random."""

    name = "correcting-revoker"

    def choose(self, state, known):
        legal = self.game.legal_actions(state, self.seat, known)
        led = state.led_suit()
        hand = [h for h in state.hands[self.seat] if h in known]
        off = [h for h in hand if led is not None and known[h].suit != led]
        # off is empty before play (nothing led), when the table order may not be known yet
        if off and state.to_play() == self.seat and any(known[h].suit == led for h in hand) and self.rng.random() < 0.3:
            owning = {"declare_revoke": True} if legal[0].get("declare_revoke") else {}
            return {"type": "play", "card": self.rng.choice(off), **owning}
        return self.rng.choice(legal)


@pytest.mark.parametrize("mode, players", [("partnership", 4), ("solo", 4), ("three", 3)])
def test_whole_games_with_corrections_verify(mode, players):
    game = Table().game
    options = game.resolve_options({"mode": mode, "allow_revoke": True}, players)
    corrected = established = 0
    for seed in range(6):
        bots = [CorrectingRevoker(game, s, options, seeded_rng(seed, "bot", s)) for s in range(players)]
        dealer = LocalDealer(game.deck(options, players), players, random.Random(seed))
        record = play(game, options, players, dealer, bots)
        assert record.violations == []
        details = record.result.details
        assert details["cards_accounted"] == len(game.deck(options, players))
        assert all(r["declared"] == r["established"] for r in details["revokes"])
        corrected += sum(a["type"] == "correct" for _, a in record.actions)
        established += sum(r["established"] for r in details["revokes"])
    assert corrected and established


def test_check_game_with_revokes_owned_and_corrected():
    """check_game in honour mode between revoking clients: the corrections and the plays and
    stands that own to a revoke round-trip through the log's text like every other move."""
    checks = check_game("calypso", variants=["honour"], players=4, games=2, bots=CorrectingRevoker)
    actions = [a for check in checks for _, a in check.record.actions]
    assert any(a["type"] == "correct" for a in actions)
    assert any(a["type"] == "play" and a.get("declare_revoke") for a in actions)
