"""Evidence from a peer is read field by field (p2pcards/deck/evidence.py, protocol/deck.md
section 6): whatever an accusation holds, it names its accuser (or nobody), never the seat it
accuses, and no verdict repeats the accuser's words.

Seat 1 (the accuser) is dealt cards, so it knows every seat's per-card key of them: enough to
build evidence that looks right. Its accusation goes to the other seats as the network would hand
it over (msgpack round trip; a private message's evidence only ever the payload its sender truly
sent, or None, as the peer opens it from the signed entry), then the game goes on to its audit,
so that an accusation kept aside is judged too. Real parties, real crypto, one process.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from p2pcards.deck import Party
from p2pcards.deck.backend import DeckFault
from p2pcards.deck.evidence import reuse_evidence
from p2pcards.deck.group import multiply_many
from p2pcards.deck.local import _decode, _encode
from p2pcards.deck.party import Blame, DealOp

from .deck_helpers import make_deck

PLAYERS, CARDS = 3, 6
ACCUSER, VICTIM = 1, 2  # never seat 0: "seat 0" is what a wrong default would name
WORDS = "THE-ACCUSER'S-OWN-WORDS"


class Table:
    """Three seats, one shuffle, every card dealt (two each); the private openings each seat
    received, as their senders sent them."""

    def __init__(self, *, party_factory: Any = Party):
        self.received: dict[tuple[int, int, int], dict[str, Any]] = {}  # (op, sender, receiver) -> message
        self.deck = make_deck(
            PLAYERS,
            cards=CARDS,
            multiply_many=multiply_many,
            tamper=self._note,
            party_factory=party_factory,
        )
        self.handles = self.deck.shuffle()
        self.deal = DealOp({h: h % PLAYERS for h in self.handles})
        self.deck.deal(self.deal.to)
        self.accuser = self.deck.parties[ACCUSER]

    def _note(self, sender: int, receiver: int | None, message: dict[str, Any]) -> dict[str, Any]:
        if receiver is not None and message.get("type") == "open":
            self.received[(message["op"], sender, receiver)] = copy.deepcopy(message)
        return message

    def mine(self) -> list[int]:
        """The handles dealt to the accuser."""
        return sorted(h for h, seat in self.deal.to.items() if seat == ACCUSER)

    def scalar(self, handle: int, lock: int) -> bytes:
        return self.accuser.cards_by_handle[handle].scalars[lock]

    def as_delivered(self, message: Any) -> Any:
        """What a receiving party is handed, as over the network: a private message's evidence
        becomes the payload its named sender signed to the accuser for that op (None if none)."""
        message = _decode(_encode(message))
        if not isinstance(message, dict) or message.get("step") != "open":
            return message
        evidence = message.get("evidence")
        if isinstance(evidence, dict) and "scalar" in evidence:
            return message
        sender = evidence.get("sender") if isinstance(evidence, dict) else None
        op = message.get("op")
        payload = None
        if type(sender) is int and type(op) is int:
            payload = copy.deepcopy(self.received.get((op, sender, ACCUSER)))
        return {**message, "evidence": {"sender": sender, "message": payload}}

    def accuse(self, message: Any) -> dict[int, Blame | None]:
        """Deliver the accusation to every other seat, play on to the audit; every seat's verdict."""
        delivered = self.as_delivered(message)
        net = self.deck.net
        for party in self.deck.parties:
            if party.seat != ACCUSER:
                net.call(party.seat, party.receive, ACCUSER, copy.deepcopy(delivered))
        net.run()
        try:
            self.deck.reveal(self.handles[:1], None)
            self.deck.shuffle()
            self.deck.open_all()
        except DeckFault:
            pass
        return {p.seat: p.blame for p in self.deck.parties if p.seat != ACCUSER}


def assert_accuser_or_nobody(verdicts: dict[int, Blame | None], *, named: bool = True) -> None:
    """Every other seat names the accuser (or, ``named=False``, nobody), alike, in our words."""
    seats = {b.seat for b in verdicts.values() if b is not None}
    assert seats <= {ACCUSER}, verdicts
    if named:
        assert all(b is not None for b in verdicts.values()), verdicts
    assert len({(b.step, b.seat, b.reason) if b else None for b in verdicts.values()}) == 1, verdicts
    assert all(WORDS not in b.reason for b in verdicts.values() if b is not None), verdicts


def reuse(table: Table, places: Any, *, author: Any = VICTIM, scalar: bytes | None = None, **extra: Any) -> dict:
    h = table.mine()[0]
    evidence = {"scalar": scalar if scalar is not None else table.scalar(h, VICTIM), "author": author}
    evidence["places"] = places
    evidence.update(extra)
    return {"type": "accuse", "op": 1, "step": "open", "seat": VICTIM, "reason": WORDS, "evidence": evidence}


def _h(table: Table) -> int:
    return table.mine()[0]


# -- the reused key: one lock named twice, and every other way to make its places up -------------

PLACES = {
    "one lock through a negative index": lambda t: [[_h(t), VICTIM], [_h(t), VICTIM - PLAYERS]],
    "one lock named twice": lambda t: [[_h(t), VICTIM], [_h(t), VICTIM]],
    "a bool for a lock": lambda t: [[_h(t), 1], [_h(t), True]] if VICTIM == 1 else [[_h(t), VICTIM], [_h(t), True]],
    "a float for a lock": lambda t: [[_h(t), VICTIM], [_h(t), float(VICTIM)]],
    "a negative handle": lambda t: [[_h(t), VICTIM], [_h(t) - 2 * CARDS, VICTIM]],
    "the re-handled lock of a shuffled handle": lambda t: [[_h(t), VICTIM], [_h(t), PLAYERS]],
    "three places": lambda t: [[_h(t), VICTIM], [_h(t), VICTIM - PLAYERS], [t.mine()[1], VICTIM]],
    "one place": lambda t: [[_h(t), VICTIM]],
    "a place of three numbers": lambda t: [[_h(t), VICTIM, 0], [_h(t), VICTIM - PLAYERS]],
    "a handle never shuffled": lambda t: [[_h(t), VICTIM], [10_000, VICTIM]],
    "two handles, one key": lambda t: [[_h(t), VICTIM], [t.mine()[1], VICTIM]],
}


@pytest.mark.parametrize("kind", list(PLACES))
def test_a_reused_key_made_up_names_its_accuser(kind):
    table = Table()
    verdicts = table.accuse(reuse(table, PLACES[kind](table)))
    assert_accuser_or_nobody(verdicts)
    assert all(b.step == "accuse" for b in verdicts.values()), verdicts


@pytest.mark.parametrize(
    "field, value",
    [("author", 0), ("author", True), ("author", float(VICTIM)), ("author", None), ("extra", b"x")],
)
def test_a_reused_key_with_another_author_or_field_names_its_accuser(field, value):
    table = Table()
    h = _h(table)
    places = [[h, VICTIM], [h, VICTIM - PLAYERS]]
    message = reuse(table, places, **({"author": value} if field == "author" else {field: value}))
    assert_accuser_or_nobody(table.accuse(message))


def test_a_true_reuse_names_its_author_in_our_words():
    """Seat 2 re-handles a transfer with its own per-card key of a card revealed to everyone:
    one scalar behind two locks of its (a shuffled handle's and the transfer's). Any seat that
    saw the reveal proves it; the verdict names seat 2, with the rule's reason, not the
    accuser's."""

    class ReusesItsCardKey(Party):
        reused: int | None = None

        def _rehandle_key(self, op: int) -> bytes:
            if self.reused is None:
                return super()._rehandle_key(op)
            return self._card_key(self.reused)

    table = Table(party_factory=lambda seat, *a, **k: (ReusesItsCardKey if seat == VICTIM else Party)(seat, *a, **k))
    shown = _h(table)
    table.deck.reveal([shown], None)
    cheat = table.deck.parties[VICTIM]
    cheat.reused = shown
    moved = table.deck.transfer([table.mine()[1]], VICTIM)
    op = len(table.accuser.ops) - 1
    evidence = {
        "scalar": table.scalar(shown, VICTIM),
        "author": VICTIM,
        "places": [[shown, VICTIM], [moved[0], PLAYERS]],
    }
    message = {"type": "accuse", "op": op, "step": "open", "seat": VICTIM, "reason": WORDS, "evidence": evidence}
    net = table.deck.net
    for party in table.deck.parties:
        if party.seat != ACCUSER:
            net.call(party.seat, party.receive, ACCUSER, _decode(_encode(message)))
    net.run()
    for seat in (0,):  # seat 2 is the cheater: what it thinks does not matter
        blame = table.deck.parties[seat].blame
        assert blame is not None and (blame.step, blame.seat, blame.op) == ("open", VICTIM, op), blame
        assert blame.reason == f"reused key (handles {shown} and {moved[0]})", blame
    # Two cards of one transfer share its lock: naming that lock twice proves nothing.
    other = {"scalar": table.scalar(shown, VICTIM), "author": VICTIM, "places": [[moved[0], PLAYERS], [moved[0], -1]]}
    assert table.accuser._proves_reuse(VICTIM, other, op) is None


# -- the other kinds ---------------------------------------------------------------------------


def decode(table: Table, **change: Any) -> dict:
    h = table.mine()[0]
    evidence = {
        "handles": [h],
        "scalars": [[[lock, table.scalar(h, lock)] for lock in range(PLAYERS)]],
        "chains": [[]],
    }
    evidence.update(change)
    return {"type": "accuse", "op": 1, "step": "decode", "seat": ACCUSER, "reason": WORDS, "evidence": evidence}


DECODES = {
    "the truth": lambda t: {},
    "a bool for a lock": lambda t: {
        "scalars": [[[0, t.scalar(_h(t), 0)], [True, t.scalar(_h(t), 1)], [2, t.scalar(_h(t), 2)]]]
    },
    "a handle twice": lambda t: {
        "handles": [_h(t)] * 2,
        "scalars": [[[lock, t.scalar(_h(t), lock)] for lock in range(PLAYERS)]] * 2,
        "chains": [[], []],
    },
    "a negative handle": lambda t: {"handles": [_h(t) - 2 * CARDS]},
    "no chains": lambda t: {"chains": None},
    "more handles than cards": lambda t: {"handles": [_h(t)] * (CARDS + 1)},
    "locks from the end": lambda t: {"scalars": [[[lock - PLAYERS, t.scalar(_h(t), lock)] for lock in range(PLAYERS)]]},
}


@pytest.mark.parametrize("kind", list(DECODES))
def test_a_decode_failure_made_up_names_its_accuser(kind):
    """Protocol version 11 has no decode accusation (no card can fail to decode once every pass
    is proven and every lock checked): whatever its evidence, it names its accuser as it
    arrives, as an accusation of no known kind, at every seat."""
    table = Table()
    verdicts = table.accuse(decode(table, **DECODES[kind](table)))
    assert_accuser_or_nobody(verdicts)
    assert verdicts and all(b is not None and b.seat == ACCUSER and "no kind" in b.reason for b in verdicts.values()), (
        verdicts
    )


@pytest.mark.parametrize(
    "head",
    [
        {"seat": True},
        {"seat": -1},
        {"seat": PLAYERS},
        {"seat": 2.0},
        {"op": True},
        {"op": -1},
        {"op": 1.0},
        {"op": None},
        {"step": ["open"]},
        {"step": {"open": 1}},
        {"step": WORDS},
        {"step": "shuffle", "evidence": {"x": 1}},
        {"step": "open", "evidence": None},
    ],
    ids=repr,
)
def test_an_accusation_of_no_known_form_names_its_accuser_in_our_words(head):
    """Fields of another type or range, and steps of no known kind (a list for a step crashed
    the party: a set cannot hold it)."""
    table = Table()
    h = _h(table)
    message = reuse(table, [[h, VICTIM], [h, VICTIM - PLAYERS]])
    message.update(head)
    verdicts = table.accuse(message)
    assert_accuser_or_nobody(verdicts)
    assert all(b.step == "accuse" for b in verdicts.values()), verdicts


# -- the evidence readers alone -------------------------------------------------------------------


def test_reuse_evidence_reads_only_two_distinct_places_in_range():
    good = {"scalar": b"\x01" * 32, "author": 2, "places": [[4, 2], [5, 3]]}
    assert reuse_evidence(good, 2, 3) == (b"\x01" * 32, [(4, 2), (5, 3)])
    for places in ([[4, 2], [4, 2]], [[4, 2], [4, -1]], [[4, 2], [4, 4]], [[-4, 2], [4, 1]], [[4, True], [4, 2]]):
        assert reuse_evidence({**good, "places": places}, 2, 3) is None, places
    assert reuse_evidence({**good, "author": 1}, 2, 3) is None
    assert reuse_evidence({**good, "more": 1}, 2, 3) is None
    assert reuse_evidence({**good, "scalar": b"\x01" * 31}, 2, 3) is None


# -- fuzzing: random and mutated evidence ---------------------------------------------------------

FUZZ = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
#: Numbers a peer may put where an index goes: in range, negative (read from the end), past
#: the end, bools and floats that compare equal to one, huge, or no number at all.
NUMBERS = st.sampled_from([0, 1, 2, 3, 4, -1, -2, -3, -4, True, False, 1.0, 2.0, 2**31, 2**63 - 1, -(2**63), None, "1"])
JUNK = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**64 - 1)
    | st.floats(allow_nan=False)
    | st.text(max_size=12)
    | st.binary(max_size=40),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=10,
)


def _mutate(data: st.DataObject, value: Any, depth: int = 0) -> Any:
    """``value`` with a few of its parts replaced, dropped, duplicated or retyped."""
    choice = data.draw(st.integers(0, 9), label="mutation")
    if choice == 0:
        return data.draw(JUNK, label="junk")
    if choice == 1 and not isinstance(value, (list, dict)):
        return data.draw(NUMBERS, label="number")
    if isinstance(value, list) and value and depth < 4:
        i = data.draw(st.integers(0, len(value) - 1), label="index")
        out = list(value)
        what = data.draw(st.integers(0, 3), label="list op")
        if what == 0:
            out[i] = _mutate(data, out[i], depth + 1)
        elif what == 1:
            out.append(copy.deepcopy(out[i]))
        elif what == 2:
            del out[i]
        else:
            out[i] = _mutate(data, out[i], depth + 1)
            out = out + [_mutate(data, copy.deepcopy(value[i]), depth + 1)]
        return out
    if isinstance(value, dict) and value and depth < 4:
        key = data.draw(st.sampled_from(sorted(value)), label="key")
        out = dict(value)
        what = data.draw(st.integers(0, 2), label="dict op")
        if what == 0:
            out[key] = _mutate(data, out[key], depth + 1)
        elif what == 1:
            del out[key]
        else:
            out[data.draw(st.text(max_size=6), label="new key")] = data.draw(JUNK, label="junk")
        return out
    return value


def _template(table: Table, data: st.DataObject) -> dict[str, Any]:
    """A well-formed accusation of one kind, from what the accuser knows."""
    kind = data.draw(st.sampled_from(["reuse", "decode", "private", "public", "random"]), label="kind")
    mine = table.mine()
    h = data.draw(st.sampled_from(mine), label="handle")
    if kind == "reuse":
        lock = data.draw(st.integers(0, PLAYERS - 1), label="lock")
        other = data.draw(st.sampled_from(mine), label="other handle")
        seat = data.draw(st.integers(0, PLAYERS - 1), label="accused")
        evidence: Any = {
            "scalar": table.scalar(h, lock),
            "author": seat,
            "places": [[h, lock], [other, lock - PLAYERS]],
        }
        return {"type": "accuse", "op": 1, "step": "open", "seat": seat, "reason": WORDS, "evidence": evidence}
    if kind == "decode":
        return decode(table)
    if kind == "private":
        sender = data.draw(st.sampled_from([s for s in range(PLAYERS) if s != ACCUSER]), label="sender")
        seat = data.draw(st.integers(0, PLAYERS - 1), label="accused")
        evidence = {"sender": sender, "message": None}
        return {"type": "accuse", "op": 1, "step": "open", "seat": seat, "reason": WORDS, "evidence": evidence}
    if kind == "public":
        step = data.draw(st.sampled_from(["shuffle", "relock", "rehandle"]), label="step")
        seat = data.draw(st.integers(0, PLAYERS - 1), label="accused")
        return {"type": "accuse", "op": 0, "step": step, "seat": seat, "reason": WORDS, "evidence": None}
    return {
        "type": "accuse",
        "op": data.draw(NUMBERS, label="op"),
        "step": data.draw(st.sampled_from(["open", "decode", "shuffle", "relock", "rehandle", WORDS]) | JUNK),
        "seat": data.draw(NUMBERS, label="seat"),
        "reason": WORDS,
        "evidence": data.draw(JUNK, label="evidence"),
    }


# Slow tier (~10 s): the scripted evidence cases of this file run in the fast tier.
@pytest.mark.slow
@FUZZ
@given(data=st.data())
def test_fuzzed_evidence_names_the_accuser_or_nobody(data):
    table = Table()
    message = _template(table, data)
    for _ in range(data.draw(st.integers(0, 3), label="mutations")):
        message = _mutate(data, message)
    if isinstance(message, dict):
        message["type"] = "accuse"
        message["reason"] = WORDS
    verdicts = table.accuse(message)
    # Anything but an accusation (a junk message) is its sender's fault too.
    assert_accuser_or_nobody(verdicts)


# -- many accusations kept aside (issue 28) ------------------------------------------------------


class _CountingParty(Party):
    """A party that counts how often it judges an accusation."""

    judged = 0

    def _judge(self, *args: Any, **kwargs: Any) -> bool:
        type(self).judged += 1
        return super()._judge(*args, **kwargs)


def test_accusations_kept_aside_are_judged_once_as_they_arrive_and_once_when_reached():
    """3,000 accusations about an operation far ahead (kept aside until the audit), then the
    game goes on to its audit: each is judged as it arrives and again only once the audit is
    reached, where the first names its accuser. Before, every one kept aside was judged again
    at every message after it (quadratic: 7 s of CPU for 2,000 of them; a 3-seat budget holds
    40,000 entries)."""
    flood = 3_000
    _CountingParty.judged = 0
    table = Table(party_factory=_CountingParty)
    message = reuse(table, [[_h(table), VICTIM], [_h(table), 0]])
    message["op"] = 10**6
    net = table.deck.net
    for _ in range(flood):
        for party in table.deck.parties:
            if party.seat != ACCUSER:
                net.call(party.seat, party.receive, ACCUSER, copy.deepcopy(message))
    net.run()
    assert all(p.blame is None for p in table.deck.parties), "kept aside, not judged yet"
    assert _CountingParty.judged == 2 * flood  # the two other seats, once each as it arrived
    table.deck.reveal(table.handles[:1], None)
    table.deck.shuffle()
    try:
        table.deck.open_all()
    except DeckFault:
        pass
    verdicts = {p.seat: p.blame for p in table.deck.parties if p.seat != ACCUSER}
    assert_accuser_or_nobody(verdicts)
    # At the audit each seat judged the first one it held, and stopped.
    assert _CountingParty.judged == 2 * flood + 2
