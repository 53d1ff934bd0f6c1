"""A seat's head echo never goes back (protocol/wire.md section 6, protocol/table.md section 9,
"Late answers"): an entry whose echo counts fewer entries of some seat than its signer's
previous entry did is refused and names its signer, with the two signed entries as proof that
anyone holding the roster checks offline. Synchronous, real signatures, no sockets.

The free-order race this closes: a follower that answered a round after it had shown (in an
earlier signed entry) that it held another follower's response cannot sign its response with an
older echo, to be ordered as if it had not seen it."""

from __future__ import annotations

import pytest

from p2pcards.game import Round
from p2pcards.table.rounds import order_by_echoes
from p2pcards.wire.identity import Identity
from p2pcards.wire.log import ECHO_BACK, Blame, Log, Rejected, echo_went_back
from p2pcards.wire.messages import sign_entry
from p2pcards.wire.spill import MemorySpill

PLAYERS = 3
IDS = [Identity.generate() for _ in range(PLAYERS)]
ROSTER = [i.public for i in IDS]
TABLE = bytes(range(16))
HEADER = {"game": "cals-bs"}


def new_log(spill: bool = False) -> Log:
    log = Log(TABLE, HEADER, ROSTER)
    if spill:
        log.spill_to(MemorySpill(), keep=1)
    return log


def signed(log: Log, seat: int, seen, body=None, kind="action"):
    """Seat ``seat``'s next entry on ``log`` with the head echo ``seen``, signed by hand (what a
    modified client sends)."""
    seen = [list(item) for item in seen]
    seen[seat] = [log.next_seq(seat), log.head(seat)]
    body = {"turn": 5, "action": {"type": "doubt"}} if body is None else body
    return sign_entry(
        IDS[seat],
        table=TABLE,
        sender=seat,
        seq=log.next_seq(seat),
        kind=kind,
        prev=log.head(seat),
        body={**body, "seen": seen},
    )


def copy_to(log: Log, *entries) -> None:
    for entry in entries:
        assert log.append(entry)


@pytest.mark.parametrize("spill", [False, True])
def test_an_echo_that_counts_less_than_its_signers_last_one_is_refused_and_proven(spill):
    """Seat 2 shows it holds seat 1's response (a chat line echoing it), then signs a response
    whose echo is the one from before seat 1's answer: refused, naming seat 2; the pair is
    the proof, offline, from the roster alone."""
    log = new_log(spill)
    stale = log.seen()
    answer = log.make_entry(IDS[1], 1, "action", {"turn": 5, "action": {"type": "doubt"}})
    chat = signed(log, 2, log.seen(), {"text": "hm"}, kind="chat")
    copy_to(log, chat)
    late = signed(log, 2, stale)
    with pytest.raises(Rejected) as caught:
        log.append(late)
    blame = caught.value.blame
    assert (blame.seat, blame.code, blame.provable) == (2, ECHO_BACK, True)
    assert blame.evidence == (chat, late) and "went back" in blame.reason
    assert blame.verify(TABLE, ROSTER)  # no log needed
    assert Blame.from_wire(blame.to_wire()).verify(TABLE, ROSTER)
    assert log.blames == [blame] and log.next_seq(2) == 1  # refused: the log is unchanged
    assert answer.sender == 1


def test_an_echo_equal_to_or_beyond_the_last_one_is_accepted():
    log = new_log()
    first = signed(log, 2, log.seen(), {"text": "a"}, kind="chat")
    copy_to(log, first)
    same = signed(log, 2, log.seen(), {"text": "b"}, kind="chat")  # counts what `first` did
    copy_to(log, same)
    log.make_entry(IDS[0], 0, "chat", {"text": "c"})
    copy_to(log, signed(log, 2, log.seen()))


def test_only_a_seats_own_previous_entry_binds_it():
    """Seat 1's echo may count less of seat 0 than seat 2's did: each seat's echo is its own."""
    log = new_log()
    log.make_entry(IDS[0], 0, "chat", {"text": "x"})
    copy_to(log, signed(log, 2, log.seen(), {"text": "y"}, kind="chat"))
    copy_to(log, signed(log, 1, [new_log().seen()[0], log.seen()[1], log.seen()[2]]))


def test_the_first_entry_of_a_seat_is_bound_by_nothing():
    log = new_log()
    log.make_entry(IDS[0], 0, "chat", {"text": "x"})
    seen = log.seen()
    seen[0] = new_log().seen()[0]  # "saw nothing" of seat 0
    copy_to(log, signed(log, 1, seen))


@pytest.mark.parametrize(
    "case",
    ["order swapped", "not consecutive", "not linked", "no decrease", "other signer", "malformed echo", "other table"],
)
def test_evidence_that_does_not_show_an_echo_going_back_proves_nothing(case):
    """Every field of the evidence is checked: a pair that is not two consecutive, linked
    entries of the named seat whose echo decreased names nobody."""
    log = new_log()
    stale = log.seen()
    log.make_entry(IDS[1], 1, "chat", {"text": "answer"})
    a = signed(log, 2, log.seen(), {"text": "hm"}, kind="chat")
    copy_to(log, a)
    b = signed(log, 2, stale)
    seat, evidence, table = 2, (a, b), TABLE
    if case == "order swapped":
        evidence = (b, a)
    elif case == "not consecutive":
        copy_to(log, signed(log, 2, log.seen(), {"text": "more"}, kind="chat"))
        evidence = (a, signed(log, 2, stale))
    elif case == "not linked":
        evidence = (a, sign_entry(IDS[2], table=TABLE, sender=2, seq=1, kind="action", prev=bytes(32), body=b.body))
    elif case == "no decrease":
        evidence = (a, signed(log, 2, log.seen()))
    elif case == "other signer":
        seat = 1
    elif case == "malformed echo":
        body = {**b.body, "seen": [[True, x[1]] if i == 1 else x for i, x in enumerate(b.body["seen"])]}
        evidence = (a, sign_entry(IDS[2], table=TABLE, sender=2, seq=1, kind="action", prev=a.hash, body=body))
    elif case == "other table":
        table = bytes(16)
    blame = Blame(seat, ECHO_BACK, "went back", evidence, provable=True)
    assert not blame.verify(table, ROSTER)


def test_echo_went_back_reads_hostile_bodies_without_failing():
    log = new_log()
    a = log.make_entry(IDS[0], 0, "chat", {"text": "x"})
    for body in ({}, {"seen": 3}, {"seen": [[1, b""]]}, {"seen": [[-1, b""]] * 3}, {"seen": [["1", b""]] * 3}):
        b = sign_entry(IDS[0], table=TABLE, sender=0, seq=1, kind="chat", prev=a.hash, body=body)
        assert echo_went_back(a, b, PLAYERS) is None


def test_an_honest_seat_that_lost_entries_in_a_restart_never_signs_an_echo_that_went_back():
    """After a power cut its log may hold less of a seat than its last entry had seen: its next
    entry still counts them (it had accepted them), so the others accept it."""
    other = new_log()
    seat1 = [other.make_entry(IDS[1], 1, "chat", {"text": f"{n}"}) for n in range(3)]
    before = new_log()
    copy_to(before, *seat1)
    mine = before.make_entry(IDS[2], 2, "chat", {"text": "saw three"})
    restarted = new_log()
    copy_to(restarted, seat1[0], mine)  # the journal kept one of seat 1's entries, and ours
    nxt = restarted.make_entry(IDS[2], 2, "chat", {"text": "back"})
    assert nxt.body["seen"][1] == mine.body["seen"][1]
    copy_to(other, mine, nxt)  # a seat that holds them all accepts it


def test_a_table_protocol_names_the_signer_and_stops_with_the_proof():
    """At a seat (sans-IO): the entry that went back is refused, its signer named, the game
    stopped with the proof (every honest seat that gets the entry does the same)."""
    from tests.table.test_protocol import IDS as TIDS
    from tests.table.test_protocol import Table, named, stopped

    t = Table()
    stale = t.logs[2].seen()
    answer = t.sign(3, "action", {"turn": 5, "action": {"type": "doubt"}})
    t.deliver(2, answer)
    chat = t.sign(2, "chat", {"text": "hm"})  # seat 2 shows it holds seat 3's answer
    log = t.logs[2]
    seen = [list(item) for item in stale]
    seen[2] = [log.next_seq(2), log.head(2)]
    late = sign_entry(
        TIDS[2],
        table=TABLE,
        sender=2,
        seq=log.next_seq(2),
        kind="action",
        prev=log.head(2),
        body={"turn": 5, "action": {"type": "doubt"}, "seen": seen},
    )
    assert named(t.receive(3, answer)) == [] and named(t.receive(2, chat)) == []
    effects = t.receive(2, late)
    assert named(effects) == [2] and stopped(effects) == [2]
    assert t.me.evidence[0].code == ECHO_BACK and t.me.evidence[0].verify(TABLE, [i.public for i in TIDS])


def test_an_echo_that_did_not_go_back_cannot_be_ordered_before_what_it_counted():
    """The order it protects: once seat 2's entry counted seat 3's response, seat 2's response
    comes after seat 3's, though seat 2 sits nearer the opener's left."""
    players = [*IDS, Identity.generate()]
    roster = [p.public for p in players]
    log = Log(TABLE, HEADER, roster)
    x = log.make_entry(players[3], 3, "action", {"turn": 5, "action": {"type": "doubt"}})
    c = log.make_entry(players[2], 2, "action", {"turn": 5, "action": {"type": "doubt"}})
    ordered = order_by_echoes(Round((1, 2, 3), 0), {2: c.body["action"], 3: x.body["action"]}, {2: c, 3: x}, 4)
    assert [s for s, _ in ordered] == [3, 2]
