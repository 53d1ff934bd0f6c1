"""Hostile review of 7c07d6f ("A mover owed a box we lack is named only once its stop shows
it"): a wait on a seat's move that runs out while that seat is owed private deck boxes that
have not reached us (``Party.boxes_awaited``) stops our game naming it provisionally
(``TableAborted.owed_by``); the wind-down waits for its stop while such a box is still missing
(``referee.stop_awaited``), and ``_judge_the_stopper`` adopts our file's verdict when it names
one of those senders.

Each attack is one cheating seat among honest ones, Crazy Eights at three seats, a whole table
in-process on trio's autojump clock over loopback (127.0.0.1), with a turn timeout no longer
than the deck timeout (the case the change is about). The questions: does an honest seat get
named (live, or by ``p2pcards verify`` of an honest file)? does the cheater escape? does an
honest seat's live verdict differ from verify's of its file (agreement.py)? how long do the
honest seats wind down?"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
import trio

from p2pcards.table.protocol import TableAborted
from p2pcards.table.timeouts import Timeouts

from . import adv_table
from .adv_table import named, run_table, verify
from .cheaters import Cheater, CheatingSeat, stop_naming
from .faults import DropsLinks, _silence

pytestmark = pytest.mark.slow  # whole tables on the mental-poker deck

CHEATER = 1
EQUAL = Timeouts(deck=4.0, turn=4.0, grace=0.5)
SHORTER = Timeouts(deck=4.0, turn=3.0, grace=0.5)


@pytest.fixture
def judged(monkeypatch) -> list[tuple[int, TableAborted, TableAborted, float]]:
    """Every ``_judge_the_stopper`` call: (seat, verdict given, verdict returned, when)."""
    from p2pcards.net import table as net_table

    calls: list[tuple[int, TableAborted, TableAborted, float]] = []
    judge = net_table._judge_the_stopper

    async def recording(peer, aborted, path):
        after = await judge(peer, aborted, path)
        calls.append((peer.seat, aborted, after, trio.current_time()))
        return after

    monkeypatch.setattr(net_table, "_judge_the_stopper", recording)
    monkeypatch.setattr(adv_table, "TABLE_SECONDS", 120.0)
    return calls


@pytest.fixture
def ends(monkeypatch) -> list[str]:
    """Every wait that ended (``Wait.look`` returned an ``End``): phase, started, when, verdict."""
    from p2pcards.table import referee

    found: list[str] = []
    look = referee.Wait.look

    def recording(self, links, owed, **kwargs):
        effects = look(self, links, owed, **kwargs)
        for e in effects:
            if isinstance(e, referee.End):
                a = e.aborted
                found.append(
                    f"seat {links.me} {self.phase} wait (due {self.deadline:.2f}) on {list(owed)} ended"
                    f" t={links.now:.2f}: {a.seat}/{a.step} owed_by={set(a.owed_by)} awaits={a.awaits_stop:.1f}"
                    f" unheard={links.unheard} awaited={dict(links.boxes_awaited)}"
                )
        return effects

    monkeypatch.setattr(referee.Wait, "look", recording)
    return found


def _verdicts(run, judged) -> dict[int, dict[str, Any]]:
    """For each honest seat: whom it named live, verify's seat on its file, and the path its
    verdict took (owed_by, awaits_stop, before/after _judge_the_stopper, when it ended)."""
    found: dict[int, dict[str, Any]] = {}
    for seat, outcome in run.honest.items():
        assert outcome is not None, run.describe()
        status, report = verify(outcome.transcript)
        problem = report.get("problem") or {}
        found[seat] = {"live": named(outcome), "verify": problem.get("seat")}
    for seat, before, after, when in judged:
        if seat in found:
            found[seat]["path"] = (
                f"{before.seat}/{before.step} owed_by={set(before.owed_by)} awaits={before.awaits_stop:.1f}"
                f" -> {after.seat}/{after.step} at t={when:.1f}"
            )
    return found


def _innocents(found: dict[int, dict[str, Any]], faulty: set[int]) -> list[str]:
    wrong = []
    for seat, v in found.items():
        if not v["live"] <= faulty - {seat}:
            wrong.append(f"seat {seat} named {v['live']} live")
        if v["verify"] not in {None} | (faulty - {seat}):
            wrong.append(f"verify of seat {seat}'s file names {v['verify']}")
    return wrong


# -- the withholder controls when, and to whom, its box goes ------------------------------------


class HoldsDrawBox(Cheater):
    """Signs its key of the first card another seat (the drawer) draws from turn ``after`` on,
    but holds the signed entry back; then sends it to the drawer ``to_drawer`` seconds after
    signing it and to the third seat ``to_third`` seconds after (``None``: never; it never
    answers a fetch of that entry from a seat it has not sent it to). The other seats relay
    it (a seat that has it answers fetches), as honest seats do."""

    deviation = "holds back its box of a drawn card, then sends it late, or to one seat only"
    after = 1
    to_drawer: float | None = None
    to_third: float | None = None
    #: Seconds after signing the box: it signs a stop naming the drawer (None: never on its own).
    stop_at: float | None = None
    #: Its own waits last a minute: it never ends the game itself (its wait on the drawer's
    #: move would, naming it, and its stop would end the others' game naming nobody).
    patient = False

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        if self.patient:
            self.timings = replace(self.timings, deck=60.0, turn=60.0)
        self.target: int | None = None
        self.began: float | None = None
        self.box: Any = None
        self.released: set[int] = set()

    def tamper_deck(self, to, message):
        if (
            self.target is None
            and message.get("type") == "open"
            and to is not None
            and to != self.seat
            and self.turns >= self.after
        ):
            self.target = to
            self.began = trio.current_time()
            self.notes.append(f"holds its opening to seat {to} at turn {self.turns}, t={self.began:.2f}")
        return message

    def entry_to(self, seat, entry):
        if (
            self.box is None
            and self.target is not None
            and entry.sender == self.seat
            and entry.kind == "deck"
            and isinstance(entry.body, dict)
            and ("box" in entry.body or "boxes" in entry.body)
        ):
            self.box = entry
            self.cheated = True
            self.notes.append(f"its box is entry {entry.seq}")
        return not (self.box is not None and entry.seq == self.box.seq and seat not in self.released)

    def answers_fetch(self, seat, fetch):
        if self.box is not None and fetch.seat == self.seat and seat not in self.released:
            return fetch.start > self.box.seq
        return True

    async def misbehave(self) -> None:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._release)
            if self.stop_at is not None:
                await self.until(lambda: self.box is not None)
                await trio.sleep(max(0.0, self.began + self.stop_at - trio.current_time()))
                if self.aborted is None:
                    self.notes.append(f"stops naming the drawer, t={trio.current_time():.2f}")
                    self.abort(TableAborted(f"seat-{self.target} did not move in time", self.target, "action"))

    async def _release(self) -> None:
        await self.until(lambda: self.box is not None)
        third = next(s for s in self.others if s != self.target)
        plan = sorted((d, s) for s, d in ((self.target, self.to_drawer), (third, self.to_third)) if d is not None)
        for delay, seat in plan:
            await trio.sleep(max(0.0, self.began + delay - trio.current_time()))
            self.released.add(seat)
            conn = self.connections.get(seat)
            if conn is not None and not conn.closed:
                await self.send_entry(seat, self.box)
            self.notes.append(f"sends its box to seat {seat}, t={trio.current_time():.2f}")


def _table(path, cls, timeouts, seed, **kwargs):
    """One table of Crazy Eights, three seats, ``cls`` at seat 1 (``kwargs``: as run_table's)."""
    return run_table(
        "crazy-eights",
        3,
        {},
        cheater=CHEATER,
        peer_factory=cls,
        transcript_dir=path,
        timeouts=timeouts,
        seed=seed,
        **kwargs,
    )


def _tables(tmp_path, judged, cls, timeouts, *, tables=2, tries=6, known=None, ends=None):
    """Tables of ``cls`` at seat 1 until ``tables`` had its box held; each one's verdicts."""
    found = []
    for seed in range(tries):
        run = _table(tmp_path / f"{cls.__name__}-{seed}", cls, timeouts, seed, known_disagreement=known)
        verdicts = _verdicts(run, judged)
        judged.clear()
        print(f"\n{cls.__name__} seed {seed}: {verdicts}\n{run.describe()}\n{run.cheater_peer.notes}")
        if ends is not None:
            print("\n".join(ends))
            ends.clear()
        if run.cheater_peer is not None and run.cheater_peer.box is not None and run.cheater_peer.cheated:
            found.append((run, verdicts))
            if len(found) == tables:
                return found
    pytest.fail(f"the cheater held a box in {len(found)} of {tries} tables, not {tables}")


def _holds(name: str, **how: Any) -> type:
    return type(name, (HoldsDrawBox,), how)


#: The waits, measured from the box's signing (t0): the third seat's on the drawer's move runs
#: out at t0 + turn + 2 s (the deadline, then QUIET_SECONDS on a seat not heard from since),
#: the drawer's on the box at t0 + deck + 2 s: with SHORTER at about t0 + 5 and t0 + 6, with
#: EQUAL both at about t0 + 6.
SCENARIOS = {
    # never sent (review 29x's case: the provisional verdict, owed_by, adopts verify's)
    "never": ({}, EQUAL),
    "never-shorter": ({}, SHORTER),
    # to the third seat only, at once: the drawer fetches it from there and plays on
    "third-only": ({"to_third": 0.0}, EQUAL),
    # to the drawer only, at once: its move echoes the box, the third seat fetches it from it
    "drawer-only": ({"to_drawer": 0.0}, EQUAL),
    # to both, past the third seat's wait on the drawer's move but before the drawer's on the
    # box: the provisional verdict's box comes while it waits for the drawer's stop
    "both-late": ({"to_drawer": 5.5, "to_third": 5.5}, SHORTER),
    # to the third seat only, just after its wait on the drawer's move ran out (owed_by set)
    "third-5.1": ({"to_third": 5.1}, SHORTER),
    # to the third seat only, as both waits run out together (turn = deck)
    "third-5.9-equal": ({"to_third": 5.9}, EQUAL),
    "third-6.1-equal": ({"to_third": 6.1}, EQUAL),
    # to the drawer only, after the third seat's wait ran out (the drawer stopped on its stop)
    "drawer-5.5": ({"to_drawer": 5.5}, SHORTER),
    # never sent; the withholder signs a stop naming the drawer before anyone's wait runs out,
    # or between the third seat's verdict and the drawer's
    "stop-naming-drawer-early": ({"stop_at": 2.0}, SHORTER),
    "stop-naming-drawer-between": ({"stop_at": 5.5}, SHORTER),
}


@pytest.mark.sample(2)  # of the timings (every one with --full: the suite's time budget)
@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_a_held_draw_box_never_gets_an_honest_seat_named(tmp_path, judged, ends, scenario):
    """Whenever and to whomever the withholder sends its box (these timings), no honest seat
    is named, live or by verify of an honest file, and each honest seat's live verdict is
    verify's of its file (or verify knows less: agreement.py). Measured: 2 tables each, every
    one passed (the never cases: the third seat's verdict took the owed_by path, D's stop came
    with or just after its own verdict, and it adopted verify's, naming the withholder)."""
    how, timeouts = SCENARIOS[scenario]
    cls = _holds(f"Holds_{scenario.replace('-', '_').replace('.', '_')}", **how)
    for run, verdicts in _tables(tmp_path, judged, cls, timeouts, known="sometimes: checked below", ends=ends):
        assert not _innocents(verdicts, {CHEATER}), f"{verdicts}\n{run.describe()}"
        assert run.agreement.ok, f"{run.agreement}\n{verdicts}"


@pytest.mark.sample(1)
@pytest.mark.parametrize("patient", [False, True], ids=["stops", "patient"])
@pytest.mark.parametrize("at", [4.5, 4.9])
def test_a_key_sent_to_the_third_seat_alone_before_its_deadline_names_no_drawer(tmp_path, judged, ends, at, patient):
    """As above, but the box goes to the third seat only, ``at`` seconds after it was signed:
    shortly before the third seat's wait on the drawer's move runs out (turn 3 s + QUIET), a
    moment too late for the drawer to fetch it from there before that wait ends (it asks
    around once a second). The box reached the third seat, so nothing marks its verdict
    ``owed_by``; the drawer's turn runs from then there (``Wait._boxes_came``), and it moves
    once it fetched the box. ``patient``: the withholder never ends the game on its own wait
    on the drawer. Before that change (review 29c) the third seat named the innocent drawer at
    20 tables in 20, while verify of its file named nobody."""
    cls = _holds(f"Holds_third_at_{str(at).replace('.', '_')}", to_third=at, patient=patient)
    for run, verdicts in _tables(tmp_path, judged, cls, SHORTER, known="sometimes: checked below", ends=ends):
        assert not _innocents(verdicts, {CHEATER}), f"{verdicts}\n{run.describe()}"
        assert run.agreement.ok, f"{run.agreement}\n{verdicts}"


# -- the drawer is the cheater: owed a box, it stalls ---------------------------------------------


class _StallsAfterDraw(CheatingSeat):
    """Its first turn right after it drew a card (its keys came: the others are honest) it
    never moves."""

    async def choose(self, session, seat):
        peer = self.peer
        if peer.stall_began is None and peer.last_action == "draw":
            peer.stall_began = trio.current_time()
            peer.cheated = True
            peer.notes.append(f"stalls after its draw at turn {peer.turns}, t={peer.stall_began:.2f}")
            await trio.sleep_forever()
        action = await super().choose(session, seat)
        peer.last_action = action.get("type") if isinstance(action, dict) else None
        return action


class StallsAfterDraw(Cheater):
    """The drawer, owed the others' keys of the card it drew, never moves after its draw;
    ``stop_after`` seconds into the stall (None: never) it signs a stop naming the seat before
    it (``blamed``), with a head echo that leaves out that seat's last entry (``hide``: as if
    its key of the drawn card never came)."""

    deviation = "stalls right after its draw, then maybe stops naming a key's sender"
    stop_after: float | None = None
    hide = False

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.stall_began: float | None = None
        self.last_action: str | None = None
        self.box: Any = True  # (for _tables: the chance came once it stalled)
        self.session.seats[self.seat] = _StallsAfterDraw(self, self.session.seats[self.seat].agent)

    @property
    def blamed(self) -> int:
        return (self.seat - 1) % self.header.players

    async def misbehave(self) -> None:
        if self.stop_after is None:
            return
        await self.until(lambda: self.stall_began is not None)
        await trio.sleep(self.stop_after)
        if self.aborted is None:
            victim = self.blamed
            self.notes.append(f"stops naming seat {victim} (hide={self.hide}), t={trio.current_time():.2f}")
            stop_naming(self, victim, f"seat-{victim} did not send its deck message in time", "open", hide=self.hide)


STALLS = {
    "never-stops": {},
    # a stop before the others' wait ends: it ends their waits (its stop is judged by verify)
    "stops-naming-sender": {"stop_after": 4.5},
    "stops-hiding-sender": {"stop_after": 4.5, "hide": True},
    # a stop just after the others' wait ran out, while they wind down
    "stops-late-naming-sender": {"stop_after": 7.0},
    # after their wind-down
    "stops-later-hiding-sender": {"stop_after": 9.0, "hide": True},
}


@pytest.mark.sample(1)
@pytest.mark.parametrize("how", list(STALLS))
def test_a_drawer_that_stalls_after_its_keys_came_names_no_honest_seat(tmp_path, judged, ends, how):
    """The drawer is the cheater (turn = deck = 4 s): the others' keys of its card reached
    every seat, so no seat marks its stall ``owed_by`` and the new path never runs. It is
    named when it never stops or stops after the others' wind-down; a stop it signs before
    their wait ends, or while they wind down (their last deck entry unheard: they wait for
    it), spares it (stall rule 5: its stop was the first thing it signed after private
    entries to it; verify agrees, naming nobody). That escape is older than 7c07d6f. Never is
    the honest sender it names in its stop named, live or by verify."""
    cls = type(f"StallsAfterDraw_{how.replace('-', '_')}", (StallsAfterDraw,), STALLS[how])
    for run, verdicts in _tables(tmp_path, judged, cls, EQUAL, known="sometimes: checked below", ends=ends):
        assert not _innocents(verdicts, {CHEATER}), f"{verdicts}\n{run.describe()}"
        assert run.agreement.ok, f"{run.agreement}\n{verdicts}"
        if how in ("never-stops", "stops-later-hiding-sender"):
            assert all(v["live"] == {CHEATER} for v in verdicts.values()), verdicts


# -- a surplus box masks a missing one: boxes_awaited counts boxes, not operations ----------------


class PadsThenWithholds(Cheater):
    """With its key of the first card another seat (the drawer) draws from turn ``after`` on,
    it also sends the drawer a second box: a copy of that opening for an operation far in the
    future (the drawer's deck keeps it for that operation; nobody checks it before the game's
    end). Every seat counts one box more from it to the drawer than the operations call for
    (``Party._boxes``). Its key of the drawer's next card it then withholds, as
    review 29x's ``WithholdsBoxThenVanishes`` (never vanishing): at the third seat, the boxes
    counted still match the boxes due, so ``boxes_awaited`` shows nothing missing."""

    deviation = "a surplus box to the drawer, then withholds its key of the drawer's next card"
    after = 1

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.target: int | None = None
        self.padded = False
        self.began: float | None = None
        self.box: Any = None

    async def deck_output(self, sends):
        out = []
        for send in sends:
            m = send.message
            private = m.get("type") == "open" and send.to is not None and send.to != self.seat
            if private and self.turns >= self.after and self.target is None:
                self.target = send.to
                out.append(send)
                out.append(type(send)(send.to, {**m, "op": m["op"] + 1000}))
                self.padded = True
                self.notes.append(f"pads its box to seat {send.to} (op {m['op']}) at turn {self.turns}")
                continue
            if private and send.to == self.target and self.padded and self.began is None:
                self.began = trio.current_time()
                self.box = True
                self.cheated = True
                self.notes.append(f"withholds its opening to seat {send.to} (op {m['op']}), t={self.began:.2f}")
                continue
            out.append(send)
        return out


@pytest.mark.xfail(
    strict=True,
    raises=AssertionError,
    reason="review 29c: boxes_awaited compares a sender's box count to a receiver with the count "
    "due, and a surplus box is proven only at the end-of-game step: one surplus box to the drawer "
    "masks the withheld key, owed_by stays empty at the third seat, which names the innocent drawer "
    "while verify of its file names the withholder (review 29x's bug back); measured 6 tables of 24 "
    "(3 of 12 at 4/4 s, 3 of 12 at 4/3 s; the others: stall rule 5, nobody everywhere)",
)
def test_a_surplus_box_does_not_hide_a_withheld_key(tmp_path, judged, ends, sample):
    """:class:`PadsThenWithholds`: the third seat must not name the drawer (it waited on the
    withheld key), at 4/4 s and 4/3 s, 12 tables each. Measured (seeds 100-111): the cheater
    withheld at 12 tables of 12 each; the third seat named the drawer at 3 of them each (verify
    of its file named the withholder); at the others the drawer's stop was the first thing it
    signed after private entries to it (stall rule 5), and every seat named nobody."""
    if not sample.full:
        # 24 tables (14 s) for a known problem that shows in a quarter of them: with --full.
        pytest.xfail("review 29c's surplus box: played with --full")
    for timeouts in (EQUAL, SHORTER):
        for seed in range(12):
            run = _table(
                tmp_path / f"{timeouts.turn}-{seed}",
                PadsThenWithholds,
                timeouts,
                seed,
                known_disagreement="sometimes: checked below",
            )
            verdicts = _verdicts(run, judged)
            judged.clear()
            print(f"\nseed {seed}: {verdicts}\n{run.describe()}\n{run.cheater_peer.notes}\n" + "\n".join(ends))
            ends.clear()
            assert not _innocents(verdicts, {CHEATER}), f"{verdicts}\n{run.describe()}"
            assert run.agreement.ok, f"{run.agreement}\n{verdicts}"


# -- the drawer's links drop while the provisional verdict waits for its stop ---------------------


class DropsWhileOwed(DropsLinks):
    """Not a cheater: an honest seat whose every link drops, never to come back, ``delay``
    seconds after it began waiting on seat 1's key of a card it drew (the others' wait on its
    move has run out by then, its own on the key has not): its stop never reaches them."""

    deviation = "none (every link drops while it waits on a key)"
    outage = float("inf")
    delay = 5.3

    async def misbehave(self):
        await self.until(lambda: CHEATER in self.party.boxes_awaited().get(self.seat, ()))
        waiting = trio.current_time()
        await trio.sleep(self.delay)
        if CHEATER not in self.party.boxes_awaited().get(self.seat, ()) or self.aborted is not None:
            return
        self.cheated = True
        self.notes.append(f"drops every link, t={trio.current_time():.2f} (waiting since {waiting:.2f})")
        self.down_until = trio.current_time() + self.outage
        for conn in list(self.connections.values()):
            await _silence(conn)


def test_a_drawer_cut_off_while_owed_a_withheld_key_is_not_named(tmp_path, judged, ends):
    """Review 29x's withholder (its key of a drawn card never sent), turn 3 s and deck 4 s;
    the drawer (honest, its network fails: :class:`DropsWhileOwed`) loses every link for good
    after the third seat's wait on its move ran out and before its own wait on the key did:
    its stop never reaches the third seat. The third seat's verdict was provisional
    (``owed_by`` = the withholder); the key is still missing there: it names nobody, as verify
    of its file does (nothing in it proves a fault), not the drawer. Measured before the fix:
    the drawer named in 6 tables of 6 (_judge_the_stopper judged only a stop that came)."""
    cls = _holds("Holds_never_dropped")
    found = 0
    for seed in range(8):
        run = _table(
            tmp_path / f"drop-{seed}",
            cls,
            SHORTER,
            seed,
            others={0: DropsWhileOwed, 2: DropsWhileOwed},
            known_disagreement="sometimes: the dropped seat's own verdict (cut off: nobody; verify: the withholder)",
        )
        verdicts = _verdicts(run, judged)
        judged.clear()
        dropped = [s for s, o in run.outcomes.items() if s != CHEATER and o is not None and o.peer.cheated]
        print(f"\ndropped {dropped} seed {seed}: {verdicts}\n{run.describe()}\n{run.cheater_peer.notes}")
        print("\n".join(ends) + f"\n{run.agreement}")
        ends.clear()
        if not dropped:
            continue
        (drawer,) = dropped
        third = 2 - drawer
        assert drawer not in verdicts[third]["live"], f"{verdicts}\n{run.describe()}"
        assert verdicts[third]["verify"] is None, verdicts
        found += 1
        if found == 2:
            return
    pytest.fail(f"the drawer dropped in {found} tables of 8, not 2")
