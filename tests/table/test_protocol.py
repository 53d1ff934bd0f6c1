"""The table protocol's rules, run without trio or sockets (p2pcards/table/protocol.py), one
test per rule of protocol/table.md sections 3-5 and wire.md sections 6-7, in the manner of
h11's test_state.py: feed a :class:`TableProtocol` what arrives, check the effects it returns."""

from __future__ import annotations

import pytest

from p2pcards.deck import judge
from p2pcards.table.header import Seat, TableHeader
from p2pcards.table.protocol import (
    MAX_CHAT,
    Answer,
    ChatIn,
    DeckIn,
    Halted,
    Keep,
    Left,
    MoveIn,
    Named,
    SendTo,
    Stop,
    TableAborted,
    TableProtocol,
)
from p2pcards.table.timeouts import Timeouts
from p2pcards.wire.identity import Identity
from p2pcards.wire.log import Log
from p2pcards.wire.messages import Auth, Bye, Fetch, Fetched, sign_entry
from p2pcards.wire.sealed import entry_message_key, seal_body

PLAYERS = 4
IDS = [Identity.generate() for _ in range(PLAYERS)]
TABLE = bytes(range(16))
HEADER = TableHeader(
    TABLE,
    "crazy-eights",
    "1",
    {},
    tuple(Seat(f"p{s}", IDS[s].public, "127.0.0.1", 1000 + s) for s in range(PLAYERS)),
    2,
    Timeouts(),
)
WIRE = HEADER.to_wire()
STRANGER = Identity.generate()


class Table:
    """Every seat's own log, to sign entries as the seats would; ``me`` is the protocol under
    test (seat 0)."""

    def __init__(self, linked=(1, 2, 3)):
        self.me = TableProtocol(IDS[0], HEADER, WIRE, 0)
        self.me.linked.update(linked)
        self.logs = [Log(TABLE, WIRE, [i.public for i in IDS]) for _ in range(PLAYERS)]

    def sign(self, seat, kind="chat", body=None, *, seen_by=None):
        """Seat ``seat`` signs its next entry (having seen what its own log holds)."""
        log = self.logs[seat]
        entry = log.make_entry(IDS[seat], seat, kind, dict(body or {"text": "hi"}))
        return entry

    def forge(self, identity, seat, body):
        """Seat ``seat``'s next entry as its log would make it, signed by ``identity``."""
        log = self.logs[seat]
        return sign_entry(
            identity,
            table=TABLE,
            sender=seat,
            seq=log.next_seq(seat),
            kind="chat",
            prev=log.head(seat),
            body={**body, "seen": log.seen()},
        )

    def deliver(self, seat, entry):
        """Seat ``seat`` receives ``entry`` (so its later entries echo it)."""
        self.logs[seat].append(entry)

    def receive(self, via, entry, now=0.0):
        return self.me.receive(via, entry.to_wire(), now)

    def ready(self):
        out = []
        while (entry := self.me.next_ready()) is not None:
            out.append(entry)
        return out


def kinds(effects):
    return [type(e).__name__ for e in effects]


def named(effects):
    return [e.seat for e in effects if isinstance(e, Named)]


def stopped(effects):
    return [e.aborted.seat for e in effects if isinstance(e, Stop)]


# -- frames and fetches -------------------------------------------------------------------------


def test_a_message_that_is_not_one_names_the_connection_it_came_on():
    t = Table()
    assert named(t.me.receive(2, {"type": "nonsense"}, 0.0)) == [2]
    assert named(t.me.receive(3, [1, 2, 3], 0.0)) == [3]


def test_a_handshake_message_during_the_game_names_the_connection():
    # It used to reach the entry path and raise AttributeError (an auth has no sender).
    t = Table()
    assert named(t.me.receive(2, Auth(bytes(64)).to_wire(), 0.0)) == [2]


def test_a_fetch_is_answered_on_its_connection():
    t = Table()
    fetch = Fetch(TABLE, 1, 0)
    assert t.me.receive(2, fetch.to_wire(), 0.0) == [Answer(2, fetch)]


def test_a_fetch_for_a_seat_the_table_does_not_have_names_the_asker():
    t = Table()
    assert named(t.me.receive(2, Fetch(TABLE, 9, 0).to_wire(), 0.0)) == [2]


def test_a_fetch_for_another_table_is_ignored():
    t = Table()
    assert t.me.receive(2, Fetch(bytes(16), 9, 0).to_wire(), 0.0) == []


# -- entries ----------------------------------------------------------------------------------


def test_an_entry_is_kept_and_delivered():
    t = Table()
    entry = t.sign(1)
    assert t.receive(1, entry) == [Keep(entry)]
    assert t.ready() == [entry]
    assert t.me.meaning(entry) == [ChatIn(1, "hi")]


def test_an_exact_copy_changes_nothing():
    t = Table()
    entry = t.sign(1)
    t.receive(1, entry)
    assert t.receive(2, entry) == []


@pytest.mark.parametrize("signer", ["stranger", "other seat"])
def test_an_entry_with_a_bad_signature_names_whoever_delivered_it_not_the_claimed_author(signer):
    t = Table()
    honest = t.sign(1)
    forged = t.forge(STRANGER if signer == "stranger" else IDS[3], 1, {"text": "I fold"})
    effects = t.receive(2, forged)
    assert named(effects) == [2] and not stopped(effects)
    assert t.receive(1, honest) == [Keep(honest)]  # the true author's entry is still welcome


def test_two_versions_of_one_entry_stop_the_game_naming_their_author_with_proof():
    t = Table()
    first = t.sign(1, body={"text": "I have the ace"})
    t.logs[1] = Log(TABLE, WIRE, [i.public for i in IDS])
    second = t.sign(1, body={"text": "I have the king"})
    t.receive(1, first)
    effects = t.receive(2, second)
    assert named(effects) == [1] and stopped(effects) == [1]
    assert t.me.evidence and t.me.evidence[0].seat == 1


def test_an_entry_beyond_a_gap_is_held_and_the_gap_asked_for_from_whoever_brought_it():
    t = Table()
    e0, e1, e2 = (t.sign(1, body={"text": str(i)}) for i in range(3))
    assert t.receive(2, e2) == [SendTo(2, Fetch(TABLE, 1, 0))]
    assert t.receive(2, e1) == []  # one ask per gap
    effects = t.receive(1, e0)
    assert [e.entry for e in effects if isinstance(e, Keep)] == [e0, e1, e2]
    assert t.ready() == [e0, e1, e2]


def test_an_entry_waits_until_everything_its_author_had_seen_is_here():
    t = Table()
    commit = t.sign(1, body={"text": "commit"})
    t.deliver(2, commit)
    answer = t.sign(2, body={"text": "answer"})
    effects = t.receive(2, answer)
    assert Keep(answer) in effects
    assert not [e for e in effects if isinstance(e, SendTo)]  # seat 1 is connected: it sends its own
    assert t.ready() == []
    t.receive(1, commit)
    assert t.ready() == [commit, answer]


def test_what_an_entry_waits_for_from_a_seat_we_are_not_connected_to_is_asked_for_at_once():
    t = Table(linked=(2, 3))
    commit = t.sign(1)
    t.deliver(2, commit)
    answer = t.sign(2)
    assert SendTo(2, Fetch(TABLE, 1, 0)) in t.receive(2, answer)


def test_an_entry_that_keeps_waiting_makes_us_ask_whoever_brought_it():
    t = Table()
    commit = t.sign(1)
    t.deliver(2, commit)
    t.receive(2, t.sign(2), now=10.0)
    assert t.me.overdue_fetches(10.1, 0.25) == []
    assert t.me.overdue_fetches(10.3, 0.25) == [SendTo(2, Fetch(TABLE, 1, 0))]
    assert t.me.overdue_fetches(10.4, 0.25) == []  # asked again only after another wait


def test_a_head_echo_naming_another_version_is_checked_with_its_reporter():
    t = Table()
    mine = t.sign(1, body={"text": "one"})
    t.logs[1] = Log(TABLE, WIRE, [i.public for i in IDS])
    other = t.sign(1, body={"text": "two"})
    t.deliver(2, other)
    echo = t.sign(2)
    t.receive(1, mine)
    effects = t.receive(2, echo)
    assert SendTo(2, Fetch(TABLE, 1, 0)) in effects
    # The reporter answers with the other version: proof against its author (seat 1).
    effects = t.receive(2, other)
    assert stopped(effects) == [1]


def test_a_head_echo_its_reporter_cannot_back_up_names_the_reporter():
    t = Table()
    real = t.sign(1)
    t.receive(1, real)
    t.ready()
    t.deliver(2, real)
    forged = t.forge(IDS[2], 2, {"text": "hi"})
    seen = forged.body["seen"]
    seen[1] = [1, b"\x55" * 32]  # a hash of an entry that seat 1 never signed
    forged = sign_entry(
        IDS[2], table=TABLE, sender=2, seq=0, kind="chat", prev=forged.prev, body={"text": "hi", "seen": seen}
    )
    effects = t.receive(2, forged)
    assert SendTo(2, Fetch(TABLE, 1, 0)) in effects
    assert named(t.receive(2, real)) == [2]  # it can only show the version we hold


# -- what entries mean --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "body", [{"turn": "1", "action": {}}, {"turn": True, "action": {}}, {"turn": 0, "action": "pass"}, {"action": {}}]
)
def test_a_malformed_signed_move_stops_the_game_naming_its_author(body):
    t = Table()
    entry = t.sign(3, "action", body)
    t.receive(3, entry)
    (ready,) = t.ready()
    effects = t.me.meaning(ready)
    assert named(effects) == [3] and stopped(effects) == [3]


def test_a_move_goes_to_its_seat():
    t = Table()
    entry = t.sign(3, "action", {"turn": 4, "action": {"type": "pass"}})
    t.receive(3, entry)
    assert t.me.meaning(*t.ready()) == [MoveIn(3, 4, {"type": "pass"}, entry)]


def test_a_chat_line_is_one_line_and_at_most_max_chat_characters():
    t = Table()
    entry = t.sign(2, "chat", {"text": "a\nb\r\n" + "x" * 2000})
    t.receive(2, entry)
    (effect,) = t.me.meaning(*t.ready())
    assert isinstance(effect, ChatIn) and "\n" not in effect.text and len(effect.text) == MAX_CHAT


def test_a_public_deck_message_goes_to_the_deck():
    t = Table()
    entry = t.sign(1, "deck", {"msg": {"type": "commit", "op": 0}})
    t.receive(1, entry)
    assert t.me.meaning(*t.ready()) == [DeckIn(1, {"type": "commit", "op": 0})]


def test_a_private_deck_message_that_does_not_open_stops_the_game_naming_its_sender():
    t = Table()
    entry = t.sign(1, "deck", {"to": 0, "box": b"\x00" * 64})
    t.receive(1, entry)
    assert stopped(t.me.meaning(*t.ready())) == [1]


def _private_open(t, seat, op):
    return _private_to(t, seat, 0, {"type": "open", "op": op})


@pytest.mark.parametrize("op", [True, False, 1.0, -1, None])
def test_a_private_opening_of_no_operation_keys_no_accusation(op):
    """Only a non-negative int keys the entry an accusation reveals (a bool is an int to
    Python: True would take operation 1's place, and its real opening's)."""
    t = Table()
    t.receive(1, _private_open(t, 1, op))
    t.me.meaning(*t.ready())
    t.receive(1, _private_open(t, 1, 1))
    t.me.meaning(*t.ready())
    assert t.me._private_in == {(1, 1): 1}


def _private_to(t, seat, to, payload):
    log = t.logs[seat]
    body = seal_body(
        IDS[seat],
        table=TABLE,
        seat=seat,
        seq=log.next_seq(seat),
        kind="deck",
        to=to,
        recipient=IDS[to].public,
        payload=payload,
    )
    return t.sign(seat, "deck", body)


NO_OPENINGS = [{"type": "open", "op": op} for op in (True, False, 1.0, -1, None, "1")] + [None, 3, [1]]
# Maps of another type (a pass, a seed, no type, a type that is not a string): only openings go
# to one seat, so these are proven against their sender the same way (issue 28).
NO_OPENINGS += [
    {"type": "shuffle", "op": 10**6, "points": [], "key": b"", "proof": {}},
    {"type": "seed", "seed": b"\x00" * 32},
    {"op": 1},
    {"type": ["open"], "op": 1},
]


@pytest.mark.parametrize("payload", NO_OPENINGS)
def test_a_private_payload_that_is_no_opening_goes_to_the_deck_marked_and_its_accusation_reveals_it(payload):
    """Only the table layer knows a payload came in a box: it hands the deck one that is no
    opening of an operation as such, and the deck's accusation reveals that entry's key."""
    t = Table()
    entry = _private_to(t, 1, 0, payload)
    t.receive(1, entry)
    # (First its boxes, counted by the deck for the audit: deck.md section 7.)
    assert t.me.meaning(*t.ready()) == [DeckIn(1, judge.PrivateBoxes((0,))), DeckIn(1, judge.NotAnOpening(payload))]
    accusation = {"type": "accuse", "op": 2, "step": "open", "seat": 1, "reason": "r"}
    wire = t.me.revealed_evidence({**accusation, "evidence": {"sender": 1, "message": payload}})
    evidence = wire["evidence"]
    assert evidence["sender"] == 1 and evidence["entry"] == entry.seq
    assert evidence["key"] == entry_message_key(IDS[0], 0, entry, HEADER.seats[1].keys)


@pytest.mark.parametrize("payload", [*NO_OPENINGS, {"type": "open", "op": 1}])
def test_an_accusation_revealing_a_private_payload_is_opened_for_the_deck(payload):
    """Seat 2 reveals the key of seat 1's box to it: the deck gets what the box holds, marked
    if it is no opening of an operation (proof against seat 1 whatever operation the
    accusation names); an opening of another operation than the accused one gives nothing."""
    t = Table()
    entry = _private_to(t, 1, 2, payload)
    t.receive(1, entry)
    # Not ours: only its boxes, counted by the deck for the audit (deck.md section 7).
    assert t.me.meaning(*t.ready()) == [DeckIn(1, judge.PrivateBoxes((2,)))]
    t.deliver(2, entry)
    key = entry_message_key(IDS[2], 2, entry, HEADER.seats[1].keys)
    evidence = {"sender": 1, "entry": entry.seq, "key": key}
    accusation = {"type": "accuse", "op": 2, "step": "open", "seat": 1, "reason": "r", "evidence": evidence}
    t.receive(2, t.sign(2, "deck", {"msg": accusation}))
    [effect] = t.me.meaning(*t.ready())
    opened = judge.NotAnOpening(payload) if not judge.is_opening(payload) else None
    assert effect == DeckIn(2, {**accusation, "evidence": {"sender": 1, "message": opened}})


def test_a_blame_entry_that_proves_nothing_names_its_signer():
    t = Table()
    entry = t.sign(2, "blame", {"blame": {"seat": 1, "code": "equivocation", "reason": "x", "evidence": []}})
    t.receive(2, entry)
    effects = t.me.meaning(*t.ready())
    assert named(effects) == [2] and not stopped(effects)


def test_a_blame_entry_with_proof_stops_the_game_naming_the_proven_seat():
    t = Table()
    first = t.sign(1, body={"text": "ace"})
    t.logs[1] = Log(TABLE, WIRE, [i.public for i in IDS])
    second = t.sign(1, body={"text": "king"})
    prover = Table()
    prover.receive(1, first)
    prover.receive(2, second)
    (proof,) = prover.me.evidence
    entry = t.sign(2, "blame", {"blame": proof.to_wire()})
    t.receive(2, entry)
    effects = t.me.meaning(*t.ready())
    assert stopped(effects) == [1]


def test_our_own_entry_coming_back_means_nothing():
    t = Table()
    mine, fresh = t.me.sign("chat", lambda: {"text": "hi"})
    assert fresh and t.me.meaning(mine) == []


# -- leaving ----------------------------------------------------------------------------------


def test_a_signed_goodbye_during_the_game_ends_it_naming_the_seat_that_left():
    t = Table()
    entry = t.sign(2, "bye", {"reason": "quit"})
    t.receive(2, entry)
    effects = t.me.meaning(*t.ready())
    assert effects[0] == Left(2, "quit") and stopped(effects) == [2]
    assert t.me.left == {2: "quit"}


def test_an_unsigned_goodbye_only_takes_the_seat_away():
    """It proves nothing, so it stops nothing: the seat is waited for like one that dropped
    out, and named only if it does not come back when the game needs it."""
    t = Table()
    assert t.me.receive(2, Bye("quit").to_wire(), 0.0) == [Left(2, "quit")]


def test_a_goodbye_after_the_result_changes_nothing():
    t = Table()
    t.me.over = True
    assert t.me.receive(2, Bye("done").to_wire(), 0.0) == []
    entry = t.sign(2, "bye", {"reason": "done"})
    t.receive(2, entry)
    assert t.me.meaning(*t.ready()) == []


# -- waiting on a seat --------------------------------------------------------------------------


def test_waiting_on_a_seat_asks_every_other_connected_seat_for_its_chain():
    t = Table(linked=(1, 2))
    t.receive(3, t.sign(3))
    assert t.me.ask_around({3}) == [SendTo(1, Fetch(TABLE, 3, 1)), SendTo(2, Fetch(TABLE, 3, 1))]
    assert t.me.ask_around({0}) == []  # never about ourselves


def test_a_pass_withheld_from_us_alone_comes_from_the_seats_that_hold_it():
    """The cheater (seat 1) sends its entry to seats 2 and 3 only: we ask them and take it."""
    t = Table()
    withheld = t.sign(1, "deck", {"msg": {"type": "shuffle", "op": 1}})
    asks = t.me.ask_around({1})
    assert SendTo(2, Fetch(TABLE, 1, 0)) in asks and all(a.seat != 1 for a in asks)
    assert t.receive(2, withheld) == [Keep(withheld)]  # seat 2's answer
    assert t.ready() == [withheld]


# -- after a restart ------------------------------------------------------------------------------


def _restarted(journal_length):
    """Seat 0 after a restart whose journal kept its first ``journal_length`` entries of 3."""
    t = Table()
    chain = [t.me.sign("chat", lambda i=i: {"text": str(i)})[0] for i in range(3)]
    again = TableProtocol(IDS[0], HEADER, WIRE, 0)
    again.linked.update((1, 2, 3))
    again.load_journal(chain[:journal_length])
    return again, chain


def test_while_we_recover_our_entries_that_come_back_are_kept_to_be_reused():
    me, chain = _restarted(1)
    assert me.recovering
    assert me.receive(1, chain[1].to_wire(), 0.0) == [Keep(chain[1])]
    assert me.receive(2, chain[1].to_wire(), 0.0) == []  # a copy
    for seat in (1, 2, 3):
        me.receive(seat, Fetched(TABLE, 0, 2).to_wire(), 0.0)
    assert not me.recovering and list(me.replay_own) == chain[:2]


def test_a_version_of_our_own_entry_that_we_never_signed_names_whoever_sent_it():
    me, chain = _restarted(1)
    t = Table()
    t.deliver(0, chain[0])
    fake = t.forge(STRANGER, 0, {"text": "forged"})
    assert named(me.receive(3, fake.to_wire(), 0.0)) == [3]


def test_nothing_is_delivered_while_we_recover():
    me, _ = _restarted(1)
    t = Table()
    entry = t.sign(1)
    me.receive(1, entry.to_wire(), 0.0)
    assert me.next_ready() is None


def test_a_seat_claiming_to_hold_more_of_our_chain_than_it_sent_is_named():
    me, _ = _restarted(1)
    assert named(me.receive(2, Fetched(TABLE, 0, 3).to_wire(), 0.0)) == [2]


# -- a seat that stops ------------------------------------------------------------------------------


def test_a_seat_that_stops_its_game_stops_a_step_that_waits_on_it_naming_nobody():
    """Its word proves nothing against the seat it blames; but it will not act again. Nobody
    is named even when the seat it blames is still connected to us: the link between those
    two may be what broke (tests/adversarial: StopsReading)."""
    t = Table()
    entry = t.sign(3, "stop", {"reason": "p1 left and did not come back in time", "seat": 1})
    t.receive(3, entry)
    halted = Halted(3, "p1 left and did not come back in time")
    assert t.me.meaning(*t.ready()) == [DeckIn(3, judge.ChainEnded()), halted]  # (its chain ended)
    assert t.me.halted_among({1, 2}) is None  # a step waiting on others goes on
    stopped_by = t.me.halted_among({1, 3})
    assert stopped_by is not None and stopped_by.seat is None and "p3's program stopped the game" in stopped_by.reason


@pytest.mark.parametrize(
    "kind, body",
    [
        ("action", {"turn": 3, "action": {"type": "pass"}}),
        ("deck", {"msg": {"type": "shuffle", "op": 1}}),
    ],
)
def test_a_move_or_deck_step_signed_after_its_authors_stop_names_the_author(kind, body):
    """From its stop on a seat signs nothing for the game but its evidence and its seed
    (table.md section 5): the seats that stopped for it no longer act, so what it signs after
    could make one of them look like a staller."""
    t = Table()
    stop = t.sign(1, "stop", {"reason": "pretending", "seat": None})
    t.receive(1, stop)
    t.me.meaning(*t.ready())
    t.receive(1, t.sign(1, kind, body))
    effects = t.me.meaning(*t.ready())
    assert named(effects) == [1] and stopped(effects) == [1]


def test_chat_after_a_stop_is_allowed_but_a_seed_message_names_its_signer():
    """No seed is revealed since protocol version 12: a ``seed`` deck message after its
    signer's stop is a deck step played after it, named like any (protocol/table.md §5)."""
    t = Table()
    t.receive(2, t.sign(2, "stop", {"reason": "timeout", "seat": None}))
    t.me.meaning(*t.ready())
    t.receive(2, t.sign(2, "chat", {"text": "gg"}))
    assert not named(t.me.meaning(*t.ready()))
    t.receive(2, t.sign(2, "deck", {"msg": {"type": "seed", "seed": b"s" * 32}}))
    assert named(t.me.meaning(*t.ready()))


def test_after_our_own_stop_we_sign_no_move_or_deck_step_not_even_a_seed():
    t = Table()
    t.me.sign("stop", lambda: {"reason": "timeout", "seat": None})
    for kind, body in [
        ("action", {"turn": 1, "action": {"type": "pass"}}),
        ("deck", {"msg": {"type": "shuffle", "op": 1}}),
        ("deck", {"to": 2, "box": b""}),
        ("deck", {"msg": {"type": "seed", "seed": b"s" * 32}}),  # (none since protocol version 12)
    ]:
        with pytest.raises(TableAborted, match="our game has stopped"):
            t.me.sign(kind, lambda body=body: body)


def test_entries_waiting_on_one_chain_make_one_ask_not_one_each():
    t = Table()
    commit = t.sign(1)
    t.deliver(2, commit)
    for i in range(5):
        t.receive(2, t.sign(2, body={"text": str(i)}), now=0.0)
    assert t.me.overdue_fetches(1.0, 0.25) == [SendTo(2, Fetch(TABLE, 1, 0))]


def test_a_result_reaches_the_deck_after_every_box_of_its_chain_even_when_it_arrives_first():
    """The end of a seat's chain for the deck's box count (Party.boxes_missing) is its signed
    ``result``, handed on as ``ChainEnded`` in the chain's order: a box entry delayed on the
    way (the result arrives first) is still counted before it, so a late box names nobody."""
    t = Table()
    box = _private_to(t, 1, 2, {"type": "open", "op": 1})
    result = t.sign(1, "result", {"result": {"winners": [1]}, "violations": []})
    t.receive(1, result)  # the result first: held until the entry before it comes
    assert t.ready() == []
    t.receive(1, box)
    effects = [effect for entry in t.ready() for effect in t.me.meaning(entry)]
    assert effects == [DeckIn(1, judge.PrivateBoxes((2,))), DeckIn(1, judge.ChainEnded())]


@pytest.mark.parametrize("over", [False, True])
def test_a_stop_ends_its_authors_chain_for_the_decks_box_count_as_a_result_does(over):
    """A signed ``stop`` ends its author's chain (it signs no deck step after it), so it reaches
    the deck as ``ChainEnded`` in the chain's order, after every box of it, whether or not our
    own game is still on (the boxes are counted after our result: Party.boxes_missing). Issue
    28: a seat that stopped, passed for since as an absent follower, owed the receiver of a
    picked-up pile the keys of its cards; a seat the transfer did not wait on finished the game
    while verify of its own file stopped at the transfer, the game having waited on the
    stopper."""
    t = Table()
    t.me.over = over
    box = _private_to(t, 1, 2, {"type": "open", "op": 1})
    stop = t.sign(1, "stop", {"reason": "p2 did not move in time", "seat": 2})
    t.receive(1, stop)  # the stop first: held until the entry before it comes
    assert t.ready() == []
    t.receive(1, box)
    effects = [effect for entry in t.ready() for effect in t.me.meaning(entry)]
    ended = [DeckIn(1, judge.PrivateBoxes((2,))), DeckIn(1, judge.ChainEnded())]
    assert effects == ended + ([] if over else [Halted(1, "p2 did not move in time")])
    assert t.me.stopped == {1}
