"""Three places where ``p2pcards verify`` disagreed with the spec's own words (found by an
independent implementation of protocol/; issue 28, section 2), each played as a cheating peer
among honest bot peers over loopback: every honest seat and ``verify`` of every honest transcript
name the cheater, as the spec and the threat model say (never name an honest seat; name the
cheater where the evidence is signed by it).

* an accusation about a pass the accuser held and that is valid, while its shuffle is
  unfinished (protocol/deck.md section 6: judged as it arrives on every seat's copy, which
  names the accuser; verify named nobody, waiting for an operation it never replayed);
* a seat that never sends its pass and never reveals its seed (protocol/table.md section 5:
  it left; verify named nobody, the public replay not checking the deck's passes);
* a signed deck message of an unknown type (protocol/transcript.md section 5 item 11: its
  signer; verify named the seat that was due next, an honest one, as a staller).
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest

from p2pcards.deck.party import Send
from p2pcards.table.timeouts import Timeouts

from .adv_table import blamed, run_table, verify
from .cheaters import Cheater

CHEATER = 1  # never seat 0: "seat 0" is what a wrong default would name
BS = ("cals-bs", 3, {"match_target": 1})
BS4 = ("cals-bs", 4, {"match_target": 1})
STALL = Timeouts(deck=1.0, turn=1.0, grace=0.3)


class AccusesHeldPass(Cheater):
    """Right after its own shuffle pass of the first shuffle, accuses seat 0's shuffle pass of
    that operation (which it received, checked and built on: valid), while the shuffle is still
    unfinished (the re-locks are to come)."""

    deviation = "accusation about a held, valid pass of an unfinished shuffle"

    async def deck_output(self, sends: list[Send]) -> list[Send]:
        mine = next((s.message for s in sends if s.message.get("type") == "shuffle"), None)
        if not self.cheated and mine is not None:
            self.cheated = True
            accusation = {"type": "accuse", "op": mine["op"], "step": "shuffle", "seat": 0, "reason": "bad pass"}
            sends = [*sends, Send(None, {**accusation, "evidence": None})]
        return await super().deck_output(sends)


class StallsDeckHidesSeed(Cheater):
    """Never sends its first shuffle pass, and never reveals its seed (its link stays up)."""

    deviation = "stalling (deck), seed withheld"

    def tamper_deck(self, to, message):
        if message.get("type") == "seed" or (message.get("type") == "shuffle" and not self.cheated):
            return None
        return message


class SignsUnknownDeckType(Cheater):
    """Right after its own shuffle pass of the first shuffle, signs a public deck message of a
    type the deck protocol does not know, where the next message due is another seat's."""

    deviation = "deck message of an unknown type"

    async def deck_output(self, sends: list[Send]) -> list[Send]:
        mine = next((s.message for s in sends if s.message.get("type") == "shuffle"), None)
        if not self.cheated and mine is not None:
            self.cheated = True
            sends = [*sends, Send(None, {"type": "shuffle2", "op": mine["op"]})]
        return await super().deck_output(sends)


CASES: dict[str, tuple[type[Cheater], tuple, dict[str, Any]]] = {
    "held valid pass accused": (AccusesHeldPass, BS, {}),
    "held valid pass accused (4 players)": (AccusesHeldPass, BS4, {}),
    "no pass, no seed": (StallsDeckHidesSeed, BS, {"timeouts": STALL, "virtual_time": True}),
    "no pass, no seed (4 players)": (StallsDeckHidesSeed, BS4, {"timeouts": STALL, "virtual_time": True}),
    "unknown deck message type": (SignsUnknownDeckType, BS, {}),
    "unknown deck message type (4 players)": (SignsUnknownDeckType, BS4, {}),
}

_DIR = Path(tempfile.mkdtemp(prefix="p2pcards-spec-disagreements-"))
atexit.register(shutil.rmtree, _DIR, ignore_errors=True)  # the tables of one test session


# The fast tier keeps each cheat at three seats; the four-seat tables run in the whole suite.
@pytest.mark.parametrize(
    "name",
    [pytest.param(n, id=n.replace(" ", "-"), marks=[pytest.mark.slow] if "(4 players)" in n else []) for n in CASES],
)
def test_every_honest_seat_and_verify_name_the_cheater(name):
    cheater, (game, players, options), extra = CASES[name]
    for attempt in range(3):
        run = run_table(
            game,
            players,
            options,
            cheater=CHEATER,
            peer_factory=cheater,
            transcript_dir=_DIR / f"{name.replace(' ', '-')}-{attempt}",
            seed=attempt,
            **extra,
        )
        if run.cheater_peer is not None and run.cheater_peer.cheated:
            break
    else:
        pytest.fail(f"{name}: the cheater never got its chance")
    info = run.describe()
    for seat, outcome in run.honest.items():
        assert outcome is not None and outcome.aborted is not None, f"seat {seat}\n{info}"
        # The seat it waited on when it stopped may have stopped first (naming nobody, its
        # stop's word is not proof); no honest seat is ever named, and one seat at least saw it.
        assert outcome.aborted.seat in (CHEATER, None), f"seat {seat}\n{info}"
        assert blamed(outcome.peer) <= {CHEATER}, f"seat {seat}\n{info}"
    assert any(o.aborted.seat == CHEATER for o in run.honest.values()), info
    for seat, outcome in run.honest.items():
        status, report = verify(outcome.transcript)
        problem = report.get("problem") or {}
        assert status == 1 and problem.get("seat") == CHEATER, f"seat {seat}'s transcript: {problem}\n{info}"
