"""Hostile review of issue 28 (one referee): cheaters aimed at the new rules."""

from __future__ import annotations

import pytest
import trio

from p2pcards.game import Round, Turn

from .adv_table import play_until_cheated, verify
from .cheaters import Cheater


class PrivateOpenBadOp(Cheater):
    """Its first private opening carries an ``op`` of a wrong type or range."""

    deviation = "private opening with a bad op"
    bad: object = True

    def tamper_deck(self, to, message):
        if self.cheated or to is None or message.get("type") != "open":
            return message
        return {**message, "op": self.bad}


def check(run, cheater):
    info = run.describe()
    for seat, outcome in run.honest.items():
        assert outcome is not None, info
        assert all(b.startswith(f"seat {cheater} ") for b in outcome.peer.blames), info
        assert outcome.aborted is None or outcome.aborted.seat in (cheater, None), info
        status, report = verify(outcome.transcript)
        problem = report.get("problem") or {}
        assert problem.get("seat") in (cheater, None), f"seat {seat}'s transcript: exit {status}, {report}\n{info}"
    return info


class LatePrivateOpenBadOp(PrivateOpenBadOp):
    """The same, sent a second after the deal's other openings (well within the deck
    timeout): its receiver then holds every other message of the deal."""

    async def deck_output(self, sends):
        if not self.cheated and any(s.to is not None and s.message.get("type") == "open" for s in sends):
            await trio.sleep(1.0)
        return await super().deck_output(sends)


# One bad op in the fast tier (None); the other four, a table each, in the slow tier.
@pytest.mark.parametrize("bad", [None, *(pytest.param(b, marks=pytest.mark.slow) for b in (-1, 2.0, True, False))])
def test_private_opening_with_a_bad_op(bad, tmp_path):
    """Found by the review of issue 28: such an opening was judged by its receiver alone (it
    stopped naming the sender, the others named nobody, and verify named the receiver as a
    staller). Its receiver now accuses with the box's key, which proves it to every seat and
    to verify (protocol/deck.md section 6): every honest seat and every transcript name it."""
    from .cheaters import CHEATERS

    name = f"LatePrivateOpenBadOp{bad!r}"
    CHEATERS[name] = type(name, (LatePrivateOpenBadOp,), {"bad": bad})
    run = play_until_cheated(tmp_path, "cals-bs", 3, {"match_target": 1}, name, cheater=1, virtual_time=True)
    info = check(run, 1)
    for seat, outcome in run.honest.items():
        assert outcome.aborted is not None and outcome.aborted.seat == 1, f"seat {seat}\n{info}"
        status, report = verify(outcome.transcript)
        assert (report.get("problem") or {}).get("seat") == 1, f"seat {seat}'s transcript: {report}\n{info}"


class PrivateBoxJunk(Cheater):
    """While another seat is due to move, signs a private deck entry to seat ``victim`` whose
    box does not open: the victim stops (naming it), a fault nobody else can see."""

    deviation = "a private box that does not open"
    victim = 2

    async def misbehave(self):
        await self.until(lambda: self.turns >= 1)
        async with self.send_lock:
            self.cheated = True
            await self.publish("deck", {"to": self.victim, "box": b"\x00" * 40})


class OpeningBoxJunk(Cheater):
    """Its first private opening's box, to one seat, is junk that opens for nobody (in its
    place in the schedule: the entry is where the opening is due)."""

    deviation = "a private opening whose box does not open"

    def outgoing(self, kind, body):
        # (Every private deck message is an opening: the first sealed body is its first.)
        if self.cheated or kind != "deck" or not ("box" in body or "boxes" in body):
            return body
        self.cheated = True
        if "boxes" in body:
            boxes = [list(b) for b in body["boxes"]]
            boxes[-1][1] = b"\x00" * len(boxes[-1][1])
            return {"boxes": boxes}
        return {**body, "box": b"\x00" * len(body["box"])}


class LateOpeningBoxJunk(OpeningBoxJunk):
    """The same, sent a second after the deal's other openings (well within the deck timeout):
    its victim then holds every other message, and its stop looks like a stall."""

    async def deck_output(self, sends):
        if not self.cheated and any(s.to is not None and s.message.get("type") == "open" for s in sends):
            await trio.sleep(1.0)
        return await super().deck_output(sends)


@pytest.mark.parametrize(
    "cls",
    # Junk in a private box in the fast tier; in an opening's box, on time or late (a table
    # each), in the slow tier.
    [
        PrivateBoxJunk,
        pytest.param(OpeningBoxJunk, marks=pytest.mark.slow),
        pytest.param(LateOpeningBoxJunk, marks=pytest.mark.slow),
    ],
    ids=lambda c: c.__name__,
)
def test_a_private_box_that_does_not_open(cls, tmp_path):
    from .cheaters import CHEATERS

    CHEATERS[cls.__name__] = cls
    run = play_until_cheated(
        tmp_path,
        "cals-bs",
        3,
        {"match_target": 1},
        cls.__name__,
        cheater=1,
        virtual_time=True,
    )
    info = check(run, 1)
    if cls is PrivateBoxJunk:
        # The seat it was not sealed to never finishes as if nothing happened (it was a
        # "sometimes" disagreement: that seat ignored the entry and in 1 run in 3 finished), and
        # its verdict is verify's on its file, the sender or nobody: by the box count at the
        # audit (deck.md section 7), or on the victim's stop. Nobody when the victim stopped
        # while the game waited on it and its stop shows it lacked an entry the game had
        # reached (the first move a doubt: the victim owed the reveal): a withheld entry or a
        # failed link, nobody can tell (table.md section 5), and the off-schedule box is judged
        # only at the audit, which a stopped game does not reach.
        outcome = run.honest[0]
        assert outcome.aborted is not None and outcome.aborted.seat in (1, None), info
        status, report = verify(outcome.transcript)
        assert (report.get("problem") or {}).get("seat") == outcome.aborted.seat, f"{report}\n{info}"


class StatesAbsentThenStalls(Cheater):
    """Signs an ``absent`` statement about a present follower, then nothing more (its link
    stays alive): its last entry shows a statement it has not seen the others' answers to, so
    the honest seats take it for settling (the referee's exemption), which must end."""

    deviation = "states a present follower absent, then stalls"

    async def misbehave(self):
        for _ in range(100_000):  # bounded: a game has far fewer steps
            step = self.session.step
            seats = step.seats if isinstance(step, Round) else (step.seat,) if isinstance(step, Turn) else ()
            for seat in seats:
                if seat != self.seat and self.session.game.absent_action(self.session.state, seat) is not None:
                    self.cheated = True
                    await self.publish("absent", {"turn": self.turns, "seat": seat})
                    self.frozen = True
                    return
            await trio.sleep(0.002)

    async def before_signing(self, kinds):
        if getattr(self, "frozen", False):
            await trio.sleep_forever()


@pytest.mark.parametrize("mode", ["clockwise", "free"])
def test_a_seat_that_states_then_stalls_is_named(mode, tmp_path):
    from .cheaters import CHEATERS

    CHEATERS["StatesAbsentThenStalls"] = StatesAbsentThenStalls
    run = play_until_cheated(
        tmp_path,
        "cals-bs",
        3,
        {"match_target": 1, "turn_mode": mode},
        "StatesAbsentThenStalls",
        cheater=1,
        virtual_time=True,
    )
    info = check(run, 1)
    assert any(o.aborted is not None and o.aborted.seat == 1 for o in run.honest.values()), info
