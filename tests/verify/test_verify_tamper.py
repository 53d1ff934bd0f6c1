"""``p2pcards verify`` on damaged, forged and unsupported transcripts: exit 1 (tampering or
cheating, with the step and the seat to blame) or 2 (unreadable, incomplete, unsupported)."""

from __future__ import annotations

import pytest

from p2pcards import PROTOCOL_VERSION
from p2pcards.table.header import Seat, TableHeader
from p2pcards.verify import EXIT_FAILED, EXIT_UNREADABLE, verify_file
from p2pcards.wire import framing
from p2pcards.wire.identity import Identity
from p2pcards.wire.log import CHAT_ENTRIES, Log
from p2pcards.wire.messages import new_table_id, sign_entry
from p2pcards.wire.transcript import TranscriptEnd, TranscriptError, TranscriptHeader, TranscriptWriter

from .verify_tables import backed, chains_of, flip, rechain, records, resign, resign_own, write

SAMPLES = 60


def verified(path):
    return verify_file(path)


def save(tmp_path, name: str, data: bytes):
    path = tmp_path / name
    path.write_bytes(data)
    return path


def spread(start: int, stop: int, count: int) -> list[int]:
    return sorted({start + (stop - start - 1) * i // (count - 1) for i in range(count)})


def assert_refused(report, what: str) -> None:
    assert report.status in (EXIT_FAILED, EXIT_UNREADABLE), f"{what}: verified"
    assert report.problem is not None and report.problem.reason, what
    line = report.problem_line()
    assert line and len(line) > 10, what


# -- damage: any single byte ---------------------------------------------------------------------


def test_flipping_any_byte_is_caught(bs_table, tmp_path):
    data = bs_table.path.read_bytes()
    transcript = bs_table.read()
    header_at, header_len = records(data)[0]
    end_at, end_len = records(data)[-1]
    assert transcript.end is not None  # (no seed in it: none is revealed since protocol version 12)
    positions = spread(0, len(data), SAMPLES) + [header_at + header_len // 2, end_at + end_len // 3]
    for position in positions:
        report = verified(save(tmp_path, f"flip{position}.p2pt", flip(data, position)))
        assert_refused(report, f"byte {position}")
        assert report.status == EXIT_UNREADABLE  # the record checks see accidents first


def _informational_spans(data: bytes, transcript) -> list[range]:
    """Bytes no check covers on purpose: the program version and the end note, for people."""
    spans = []
    for key, value in (("program", transcript.header.program), ("note", transcript.end.note)):
        encoded = framing.encode(key) + framing.encode(value)
        at = data.find(encoded)
        assert at > 0
        spans.append(range(at, at + len(encoded)))
    return spans


def test_a_forger_who_fixes_the_checks_is_caught_too(bs_table, tmp_path):
    """The record checks are not a signature: flip a byte inside a record and recompute every
    check. Signatures, the genesis hash and the recomputed result must still catch it."""
    data = bs_table.path.read_bytes()
    transcript = bs_table.read()
    skip = _informational_spans(data, transcript)
    bodies = [p for at, length in records(data) for p in range(at, at + length)]
    candidates = [p for p in bodies if not any(p in span for span in skip)]
    chosen = [candidates[i * (len(candidates) - 1) // (SAMPLES - 1)] for i in range(SAMPLES)]
    failed = 0
    for position in chosen:
        report = verified(save(tmp_path, f"forged{position}.p2pt", rechain(flip(data, position))))
        assert_refused(report, f"byte {position}")
        failed += report.status == EXIT_FAILED
    assert failed >= SAMPLES // 2  # most land in signed entries: tampering, not damage


@pytest.mark.parametrize("keep", [0.999, 0.5, 0.05])
def test_a_truncated_file_is_incomplete(bs_table, tmp_path, keep):
    data = bs_table.path.read_bytes()
    report = verified(save(tmp_path, "cut.p2pt", data[: int(len(data) * keep)]))
    assert report.status == EXIT_UNREADABLE
    assert "incomplete" in report.problem.reason or "torn" in report.problem.reason


def test_a_transcript_without_its_end_is_incomplete(bs_table, tmp_path):
    data = bs_table.path.read_bytes()
    last_at, _ = records(data)[-1]
    report = verified(save(tmp_path, "open.p2pt", data[: last_at - 4]))
    assert report.status == EXIT_UNREADABLE
    assert "no end record" in report.problem.reason


# -- forgery and cheating: re-signed content ---------------------------------------------------


def test_an_end_record_with_seeds_is_malformed(bs_table, tmp_path):
    """No seed is revealed since protocol version 12 and the end record has no ``seeds`` field
    (transcript.md section 3): a record with one (the altered record of a file, or a file of an
    older table) is refused as malformed, naming nobody."""
    data = bs_table.path.read_bytes()
    transcript = bs_table.read()
    path = write(tmp_path / "plain.p2pt", transcript)
    end_at, _ = records(data)[-1]
    body = {**transcript.end.to_wire(), "seeds": [{"seat": 1, "seed": bytes(32)}]}
    with pytest.raises(TranscriptError, match="unknown field 'seeds'"):
        TranscriptEnd.from_wire(body)
    assert verified(path).verdict == "verified"


def test_a_result_cut_from_the_file_that_an_echo_counts_names_nobody(bs_table, tmp_path):
    """A seat's last signed entry (its result) cut out: its chain still holds, but another
    seat's signed echo counts the entry (here a chat line signed after every result), so the
    file lacks what was signed (transcript.md section 5): refused, naming nobody."""
    transcript = bs_table.read()
    final = {e.sender: e for e in transcript.entries}  # each seat's last entry
    result = next(e for e in final.values() if e.kind == "result")
    talker = next(s for s in final if s != result.sender)
    chat = transcript.log().make_entry(bs_table.identities[talker], talker, "chat", {"text": "gg"})
    assert chat.body["seen"][result.sender][0] == result.seq + 1
    entries = [e for e in transcript.entries if e is not result] + [chat]
    report = verified(write(tmp_path / "cut-result.p2pt", transcript, entries))
    assert report.status == EXIT_FAILED and report.problem.seat is None, report.problem_line()
    assert "the file was altered" in report.problem.reason
    assert report.problem.step.startswith("head echo of seat ")  # the chat's, or a result's
    assert f"entries of seat {result.sender}, the file holds {result.seq}:" in report.problem.reason
    # With the result kept, the chat line changes nothing.
    kept = write(tmp_path / "chat.p2pt", transcript, [*transcript.entries, chat])
    assert verified(kept).verdict == "verified"


def test_a_result_nobody_echoed_may_be_missing(bs_table, tmp_path):
    """The last result signed is counted by no echo: without it the game still verifies (the
    result is recomputed), and the report says that seat signed no result."""
    transcript = bs_table.read()
    counted = {(s, n) for e in transcript.entries for s, (n, _) in enumerate(e.body["seen"])}
    final = {e.sender: e for e in transcript.entries}  # each seat's last entry
    last = [
        e for e in final.values() if e.kind == "result" and not any(s == e.sender and n > e.seq for s, n in counted)
    ]
    assert last, "every result is echoed"
    entries = [e for e in transcript.entries if e is not last[0]]
    report = verified(write(tmp_path / "no-result.p2pt", transcript, entries))
    assert report.verdict == "verified", report.problem_line()
    assert any("signed no result" in note for note in report.notes)


@pytest.mark.parametrize("evidence", [0, 1, 2])
def test_an_unproven_blame_record_names_nobody(bs_table, tmp_path, evidence):
    """Blame records are not signed: one flagged provable whose evidence proves nothing
    names nobody."""
    from dataclasses import replace

    from p2pcards.wire.log import Blame

    transcript = bs_table.read()
    mine = tuple(e for e in transcript.entries if e.sender == 1)[:evidence]
    blame = Blame(1, "equivocation", "seat 1 forked", mine, True)
    report = verified(write(tmp_path / "blame.p2pt", replace(transcript, blames=[blame])))
    assert report.status == EXIT_FAILED and report.problem.seat is None, report.problem_line()
    assert "does not prove it" in report.problem.reason


def test_an_altered_lobby_header_names_nobody(bs_table, tmp_path):
    """The lobby header is not signed (the genesis hash is recomputed from it): entries that do
    not chain from it show the header was altered, not that their seat misbehaved."""
    from dataclasses import replace

    transcript = bs_table.read()
    lobby = dict(transcript.header.lobby)
    lobby["seats"] = [dict(seat) for seat in lobby["seats"]]
    lobby["seats"][1]["port"] += 1
    altered = replace(transcript, header=replace(transcript.header, lobby=lobby))
    report = verified(write(tmp_path / "lobby.p2pt", altered))
    assert report.status == EXIT_FAILED and report.problem.seat is None, report.problem_line()
    assert "lobby header" in report.problem.reason


def _entry(transcript, seat: int, kind: str, index: int = 0, where=lambda body: True):
    mine = [e for e in transcript.entries if e.sender == seat and e.kind == kind and where(e.body)]
    return mine[index]


def test_a_re_signed_shuffle_pass_is_named_by_its_proof(bs_table, tmp_path):
    """A pass re-signed with two points swapped: its proof no longer covers it (issue 32: verify
    checks every proof, as every seat did; it never derives the pass from a seed)."""
    transcript = bs_table.read()
    entry = _entry(transcript, 1, "deck", where=lambda b: b.get("msg", {}).get("type") == "shuffle")
    message = dict(entry.body["msg"])
    points = list(message["points"])
    points[0], points[1] = points[1], points[0]
    message["points"] = points
    entries = resign(transcript, bs_table.identities, entry, {**entry.body, "msg": message})
    report = verified(write(tmp_path / "pass.p2pt", transcript, entries))
    assert report.status == EXIT_FAILED and report.problem.seat == 1, report.problem_line()
    assert "not the one before it honestly shuffled" in report.problem.reason
    assert "shuffle" in report.problem.step


@pytest.mark.parametrize(("kind", "index"), [("shuffle", 0), ("shuffle", 4), ("rehandle", 9), ("rehandle", 1)])
def test_a_re_signed_proof_point_names_the_proofs_signer(bs_table, tmp_path, kind, index):
    """A signed proof with a point that is not its own (another valid point): the proof
    fails, and its signer is named at that message."""
    transcript = bs_table.read()
    # The game is dealt by real shuffles: which seat picked up a pile (a re-handling), and how
    # big it was, differ from run to run. The first such message of any seat with the point.
    entry = next(
        (
            e
            for e in transcript.entries
            if e.kind == "deck"
            and e.body.get("msg", {}).get("type") == kind
            and len(e.body["msg"]["proof"]["points"]) > index
        ),
        None,
    )
    if entry is None:
        pytest.skip(f"no {kind} proof with a point {index} in this game (its piles were smaller)")
    message = dict(entry.body["msg"])
    proof = {k: list(v) for k, v in message["proof"].items()}
    proof["points"][index] = proof["points"][(index + 1) % len(proof["points"])]  # another valid point
    message["proof"] = proof
    entries = resign(transcript, bs_table.identities, entry, {**entry.body, "msg": message})
    report = verified(write(tmp_path / "proof.p2pt", transcript, entries))
    assert report.status == EXIT_FAILED and report.problem.seat == entry.sender, report.problem_line()
    assert kind in report.problem.step and "proof" in report.problem.reason


def test_a_seat_re_signing_its_entry_after_the_game(bs_table, tmp_path):
    """The other seats' head echoes name the entries they saw: a rewritten chain shows."""
    transcript = bs_table.read()
    entry = _entry(transcript, 1, "action")
    # Another move than the one signed (re-signing the same one would give the same entry).
    other = {"type": "doubt"} if entry.body["action"] == {"type": "pass"} else {"type": "pass"}
    body = {**entry.body, "action": other}
    entries = resign_own(transcript, bs_table.identities[1], entry, body)
    report = verified(write(tmp_path / "rewritten.p2pt", transcript, entries))
    assert report.status == EXIT_FAILED
    assert "head echo" in report.problem.step and "seat 1 told peers" in report.problem.reason


def test_a_move_signed_for_another_turn(bs_table, tmp_path):
    transcript = bs_table.read()
    entry = _entry(transcript, 2, "action")
    body = {**entry.body, "turn": entry.body["turn"] + 1}
    report = verified(write(tmp_path / "turn.p2pt", transcript, resign(transcript, bs_table.identities, entry, body)))
    assert report.status == EXIT_FAILED and report.problem.seat == 2
    assert f"turn {entry.body['turn']}" in report.problem.step
    assert "signed move is for turn" in report.problem.reason


def test_an_illegal_move_names_its_seat(bs_table, tmp_path):
    transcript = bs_table.read()
    entry = _entry(transcript, 0, "action")
    body = {**entry.body, "action": {"type": "no-such-move"}}
    report = verified(
        write(tmp_path / "illegal.p2pt", transcript, resign(transcript, bs_table.identities, entry, body))
    )
    assert report.status == EXIT_FAILED and report.problem.seat == 0
    assert "illegal move" in report.problem.reason


def test_an_illegal_move_is_not_quoted_in_the_verdict(bs_table, tmp_path):
    """The move is the signer's data: a long field with terminal controls is not in the
    verdict's reason."""
    transcript = bs_table.read()
    entry = _entry(transcript, 0, "action")
    hostile = "\x1b[2J\nverdict: VERIFIED\u202e" + "x" * 5000
    body = {**entry.body, "action": {"type": "no-such-move", "note": hostile}}
    report = verified(write(tmp_path / "long.p2pt", transcript, resign(transcript, bs_table.identities, entry, body)))
    assert report.status == EXIT_FAILED and report.problem.seat == 0
    reason = report.problem.reason
    assert reason.startswith("illegal move: ") and len(reason) < 500, reason
    assert "\x1b" not in reason and "\n" not in reason and "\u202e" not in reason and "VERIFIED" not in reason


def test_a_signed_result_that_differs(bs_table, tmp_path):
    transcript = bs_table.read()
    entry = _entry(transcript, 2, "result")
    result = {**entry.body["result"], "summary": "seat 2 wins everything"}
    report = verified(
        write(
            tmp_path / "result.p2pt",
            transcript,
            resign(transcript, bs_table.identities, entry, {**entry.body, "result": result}),
        )
    )
    assert report.status == EXIT_FAILED and report.problem.seat == 2
    assert "result" in report.problem.step and "summary" in report.problem.reason


def test_an_altered_end_record_result(bs_table, tmp_path):
    transcript = bs_table.read()
    end = TranscriptEnd("finished", {**transcript.end.result, "summary": "nobody wins"})
    report = verified(write(tmp_path / "end.p2pt", transcript, end=end))
    assert report.status == EXIT_FAILED and report.problem.seat is None
    assert report.problem.step == "end record"


def test_a_dropped_move_is_missing_at_its_turn(calypso_table, tmp_path):
    """Entries cut from the end of a seat's chain are a valid chain: the replay finds the gap,
    and the other seats' head echoes show the seat did sign them: the file lacks them."""
    transcript = calypso_table.read()
    last = [e for e in transcript.entries if e.sender == 3][-3:]
    entries = [e for e in transcript.entries if e not in last]
    report = verified(write(tmp_path / "short.p2pt", transcript, entries))
    assert report.status == EXIT_FAILED and report.problem.seat is None, report.problem_line()
    assert "removed from the file" in report.problem.reason


# -- unsupported: a game or rules version that is not installed -------------------------------


def tiny_table(tmp_path, game: str, rules: str):
    """A 2-seat table of ``game``/``rules`` with one signed chat entry per seat."""
    identities = [Identity.generate() for _ in range(2)]
    table = new_table_id()
    seats = tuple(Seat(f"p{i}", ident.public, "127.0.0.1", 1) for i, ident in enumerate(identities))
    lobby = TableHeader(table, game, rules, {}, seats, PROTOCOL_VERSION).to_wire()
    header = TranscriptHeader(
        table, tuple(s.keys for s in seats), tuple(s.name for s in seats), game, rules, {}, lobby=lobby
    )
    log = Log(table, lobby, header.roster)
    path = tmp_path / f"{game}-{rules}.p2pt"
    with TranscriptWriter.create(path, header) as writer:
        for seat, identity in enumerate(identities):
            writer.append_entry(log.make_entry(identity, seat, "chat", {"text": "hello"}))
        writer.write_end(TranscriptEnd("finished", None))
    return path


def test_an_uninstalled_game_is_named(tmp_path, cli):
    path = tiny_table(tmp_path, "no-such-game", "1")
    done = cli("verify", str(path))
    assert done.returncode == EXIT_UNREADABLE
    assert "no-such-game" in done.stderr and "not installed" in done.stderr
    assert done.stdout == ""


def test_another_rules_version_is_named(tmp_path, cli):
    path = tiny_table(tmp_path, "cals-bs", "999")
    done = cli("verify", str(path), "--json")
    assert done.returncode == EXIT_UNREADABLE
    import json

    report = json.loads(done.stdout)
    assert report["verdict"] == "unreadable"
    assert "cals-bs" in report["problem"]["reason"] and "999" in report["problem"]["reason"]


# -- games that did not finish -----------------------------------------------------------------


def test_an_unsigned_abort_record_names_nobody(bs_table, tmp_path):
    """The end record is not signed: relabelling a whole game 'abandoned', with seat 2 absent
    and no seeds, is not verified, and blames nobody (the seeds come from the signed log)."""
    transcript = bs_table.read()
    end = TranscriptEnd("abandoned", None, (2,), "seat 2 cheated")
    report = verified(write(tmp_path / "relabelled.p2pt", transcript, end=end))
    assert report.status == EXIT_FAILED and report.problem.seat is None, report.problem_line()
    assert "did not finish" in report.problem.reason
    assert any(n.startswith("the table recorded: abandoned") for n in report.notes), report.notes


@pytest.mark.parametrize("kind", ["relock", "rehandle"])
def test_an_invalid_point_in_a_public_message_names_its_signer_without_any_seed(bs_table, tmp_path, kind):
    """Seats check the final deck's and re-handled points only where they multiply them, so a
    game can stop on such a point before the seeds are out: the signed message proves it."""
    from nacl import bindings

    transcript = bs_table.read()
    entry = next(e for e in transcript.entries if e.kind == "deck" and e.body.get("msg", {}).get("type") == kind)
    message = dict(entry.body["msg"])
    order_8 = bytes.fromhex("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05")
    points = list(message["points"])
    points[0] = bindings.crypto_core_ed25519_add(points[0], order_8)
    message["points"] = sorted(points) if kind == "rehandle" else points
    entries = resign(transcript, bs_table.identities, entry, {**entry.body, "msg": message})
    end = TranscriptEnd("aborted", None, (), "stopped")
    report = verified(write(tmp_path / "invalid.p2pt", transcript, entries, end=end))
    assert report.status == EXIT_FAILED and report.problem.seat == entry.sender, report.problem_line()
    assert "invalid point" in report.problem.reason and kind in report.problem.step


@pytest.mark.parametrize(
    "seat, index, message, fault",
    [
        (2, 0, None, "no known type"),
        (2, 0, {"type": 3}, "no known type"),
        (1, 0, {"type": "commit", "seed": b"x" * 31, "nonce": b"x" * 32}, "not a commitment"),
        (1, 0, {"type": "nonce", "nonce": b"x" * 32}, "not a commitment"),
        (0, 1, {"type": "nonce", "nonce": b"x" * 32}, "does not open"),
    ],
)
def test_a_malformed_setup_message_names_its_signer_without_any_seed(bs_table, tmp_path, seat, index, message, fault):
    """At the table such a message ends the game naming its sender; with no seed revealed,
    verify still names it from the signed message alone."""
    transcript = bs_table.read()
    entry = [e for e in transcript.entries if e.sender == seat and e.kind == "deck"][index]
    entries = _setup_only(resign(transcript, bs_table.identities, entry, {**entry.body, "msg": message}))
    end = TranscriptEnd("aborted", None, (), "stopped")
    report = verified(write(tmp_path / "setup.p2pt", transcript, entries, end=end))
    assert report.status == EXIT_FAILED and report.problem.seat == seat, report.problem_line()
    assert fault in report.problem.reason


def _setup_only(entries):
    """The entries of a table stopped after the commitments and nonces: each seat's chain up to
    its second deck entry, and nothing whose head echo saw more (a cut the log accepts)."""
    keep = {}
    for seat in {e.sender for e in entries}:
        mine = sorted((e for e in entries if e.sender == seat), key=lambda e: e.seq)
        deck = [e for e in mine if e.kind == "deck"]
        keep[seat] = deck[1].seq + 1 if len(deck) > 1 else len(mine)
    return _cut(entries, keep)


def _cut(entries, keep):
    """Each seat's entries before ``keep[seat]``, less any whose head echo saw an entry cut
    (and the seat's later ones): a cut the log accepts."""
    while True:
        kept = [e for e in entries if e.seq < keep[e.sender]]
        over = [e for e in kept if any(count > keep.get(s, 0) for s, (count, _) in enumerate(e.body["seen"]))]
        if not over:
            return kept
        for e in over:
            keep[e.sender] = min(keep[e.sender], e.seq)


def test_signed_data_compares_like_its_canonical_encoding():
    """verify compares the message a seat's seed derives with the one it signed structurally:
    exactly when their canonical encodings are the same bytes."""
    from p2pcards.verify.report import same_data
    from p2pcards.wire.framing import encode

    cases = [
        ({"a": 1, "b": [b"x", "y"]}, {"b": [b"x", "y"], "a": 1}),
        ([1, 2], (1, 2)),
        (True, 1),
        (1, 1.0),
        (0.0, -0.0),
        (float("nan"), float("nan")),
        (1.5, 1.5),
        (b"x", "x"),
        ([b"x", b"y"], [b"x", "y"]),
        ([b"x"], [b"x", b"y"]),
        (None, 0),
        ({"a": [1, {"b": True}]}, {"a": [1, {"b": 1}]}),
        ({"a": 1}, {"a": 1, "b": 2}),
        ([[b"p", b"q"], [1]], [[b"p", b"q"], [1]]),
    ]
    for a, b in cases:
        assert same_data(a, b) == (encode(a) == encode(b)), (a, b)
    assert not same_data(object(), object())


def _first(transcript, kind):
    return next(e for e in transcript.entries if e.kind == "deck" and e.body.get("msg", {}).get("type") == kind)


@pytest.mark.parametrize("kind", ["shuffle", "relock", "rehandle"])
def test_a_pass_its_proof_does_not_cover_names_its_signer_without_any_seed(bs_table, tmp_path, kind):
    """Deck protocol 2: every pass and re-handling is proven, so a copied or substituted card
    names its author even when nobody revealed a seed (a cheater who leaves cannot hide it)."""
    transcript = bs_table.read()
    entry = _first(transcript, kind)
    message = dict(entry.body["msg"])
    field = "sorted" if kind == "rehandle" else "points"  # (a re-handling's shuffled points)
    points = list(message[field])
    points[1] = bytes(bindings_mul(points[0]))  # card 0 again, under another factor
    message[field] = sorted(points) if kind == "rehandle" else points
    entries = _before_seeds(
        resign(transcript, bs_table.identities, entry, {**entry.body, "msg": message}), message["op"]
    )
    end = TranscriptEnd("aborted", None, (), "stopped")
    report = verified(write(tmp_path / "proof.p2pt", transcript, entries, end=end))
    assert report.status == EXIT_FAILED and report.problem.seat == entry.sender, report.problem_line()
    assert "proof fails" in report.problem.reason and kind in report.problem.step


def _before_seeds(entries, last_op):
    """The entries of a table that stopped right after deck operation ``last_op``, before any
    seed was revealed: each seat's chain up to its first deck message of a later operation (or
    its seed), and nothing whose head echo saw more (a cut the log accepts)."""

    def later(e):
        msg = e.body.get("msg") if e.kind == "deck" else None
        return isinstance(msg, dict) and (msg.get("type") == "seed" or (msg.get("op") or 0) > last_op)

    keep = {}
    for seat in {e.sender for e in entries}:
        mine = sorted((e for e in entries if e.sender == seat), key=lambda e: e.seq)
        keep[seat] = next((e.seq for e in mine if later(e)), len(mine))
    return _cut(entries, keep)


def bindings_mul(point):
    from p2pcards.deck.group import multiply, prf_scalar

    return multiply(prf_scalar(b"t" * 32, "tag"), point)


def test_a_pass_for_no_operation_names_its_signer(bs_table, tmp_path):
    transcript = bs_table.read()
    entry = _first(transcript, "shuffle")
    message = {**entry.body["msg"], "op": [0]}
    entries = resign(transcript, bs_table.identities, entry, {**entry.body, "msg": message})
    end = TranscriptEnd("aborted", None, (), "stopped")
    report = verified(write(tmp_path / "op.p2pt", transcript, entries, end=end))
    assert report.status == EXIT_FAILED and report.problem.seat == entry.sender, report.problem_line()


# -- the budget (protocol/wire.md section 7) ------------------------------------------------------


def _signed_after_the_game(table, chats: int, kind: str):
    """The table's entries, then ``chats`` chat lines by seat 1 and one more entry of ``kind``
    signed by hand (its own log would refuse it): what a peer without the budget rule kept."""
    transcript = table.read()
    log = transcript.log()
    me = table.identities[1]
    extra = [log.make_entry(me, 1, "chat", {"text": f"spam {n}"}) for n in range(chats)]
    extra.append(
        sign_entry(
            me,
            table=log.table,
            sender=1,
            seq=log.next_seq(1),
            kind=kind,
            prev=log.head(1),
            body={"text": "one more", "seen": log.seen()},
        )
    )
    return transcript, transcript.entries + extra


@pytest.mark.parametrize(
    "chats, kind, code", [(0, "junk", "unknown kind 'junk'"), (CHAT_ENTRIES, "chat", "1000 chat lines")]
)
def test_an_entry_past_the_budget_names_its_seat(bs_table, tmp_path, chats, kind, code):
    transcript, entries = _signed_after_the_game(bs_table, chats, kind)
    report = verified(write(tmp_path / "over.p2pt", transcript, entries))
    assert report.status == EXIT_FAILED and report.problem.seat == 1, report.problem_line()
    assert code in report.problem.reason and report.problem.step == "log"


# -- a seat that stops (protocol/table.md section 5) ----------------------------------------------


@pytest.mark.parametrize(
    "kind, body", [("action", {"turn": 0, "action": {"type": "pass"}}), ("deck", {"msg": {"type": "shuffle", "op": 1}})]
)
def test_a_step_signed_after_its_authors_own_stop_names_the_author(bs_table, tmp_path, kind, body):
    transcript = bs_table.read()
    log = transcript.log()
    me = bs_table.identities[1]
    stop = log.make_entry(me, 1, "stop", {"reason": "pretending to stop", "seat": None})
    after = log.make_entry(me, 1, kind, body)
    report = verified(write(tmp_path / "after-stop.p2pt", transcript, transcript.entries + [stop, after]))
    assert report.status == EXIT_FAILED and report.problem.seat == 1, report.problem_line()
    assert "after its own stop entry" in report.problem.reason
    assert report.problem.step == f"log #{after.seq} of seat 1"


# -- entries the replay does not read (protocol/transcript.md section 5) ------------------------


def test_chat_bye_and_stop_after_the_result_change_nothing(bs_table, tmp_path):
    """A chat line of any length or shape is no fault (only the budget counts), nor are a
    goodbye and a stop signed after the result: the game still verifies."""
    transcript = bs_table.read()
    log = transcript.log()
    me = bs_table.identities[2]
    extra = [
        log.make_entry(me, 2, "chat", {"text": "x" * 5000}),
        log.make_entry(me, 2, "chat", {"text": ["not", "a", "str"], "more": 1}),
        log.make_entry(me, 2, "bye", {"reason": "good night"}),
        log.make_entry(me, 2, "stop", {"reason": "done", "seat": None}),
    ]
    report = verified(write(tmp_path / "after.p2pt", transcript, transcript.entries + extra))
    assert report.verdict == "verified", report.problem_line()


def test_a_malformed_absent_statement_names_its_signer(bs_table, tmp_path):
    transcript = bs_table.read()
    log = transcript.log()
    bad = log.make_entry(bs_table.identities[1], 1, "absent", {"turn": 0, "seat": 1})  # itself
    report = verified(write(tmp_path / "absent.p2pt", transcript, transcript.entries + [bad]))
    assert report.status == EXIT_FAILED and report.problem.seat == 1, report.problem_line()
    assert "malformed absent entry" in report.problem.reason


def test_an_entry_0_off_its_seat_genesis_names_nobody(bs_table, tmp_path):
    """One seat's entry 0 signed (by that seat) with another prev, its chain re-signed after it:
    the seat genesis comes from the file's unsigned lobby header, and no table accepts such an
    entry, so the file was altered: nobody is named."""
    transcript = bs_table.read()
    me = bs_table.identities[1]
    entries, prev = [], bytes(32)
    for old in transcript.entries:
        if old.sender != 1:
            entries.append(old)
            continue
        body = dict(old.body)
        body["seen"] = [list(item) for item in old.body["seen"]]
        body["seen"][1] = [old.seq, prev]
        new = sign_entry(me, table=old.table, sender=1, seq=old.seq, kind=old.kind, prev=prev, body=body)
        entries.append(new)
        prev = new.hash
    report = verified(write(tmp_path / "genesis.p2pt", transcript, entries))
    assert report.status == EXIT_FAILED and report.problem.seat is None, report.problem_line()
    assert "lobby header" in report.problem.reason


def test_a_game_stopped_before_any_seed_is_replayed_past_its_public_reveals(bs_table, tmp_path):
    """Without every seed, the public replay reads a doubt's revealed cards from their signed
    openings (deck/public.py) and goes on past it: a seat that stalls there, keeping its
    seed, can still be named (tests/adversarial/test_absent_review2.py)."""
    transcript = bs_table.read()
    doubt = min(
        (e for e in transcript.entries if e.kind == "action" and e.body["action"]["type"] == "doubt"),
        key=lambda e: e.body["turn"],
    )
    last_turn = doubt.body["turn"] + 1  # the lead after it: no other doubt yet
    reveal_op = min(
        e.body["msg"]["op"]
        for e in transcript.entries
        if e.kind == "deck" and isinstance(e.body.get("msg"), dict) and e.body["msg"].get("type") == "open"
    )

    def past_the_cut(entry) -> bool:
        msg = entry.body.get("msg") if entry.kind == "deck" else None
        return (
            (entry.kind == "action" and entry.body["turn"] > last_turn)
            or entry.kind in ("result", "stop")
            or (isinstance(msg, dict) and (msg.get("type") == "seed" or msg.get("op", 0) > reveal_op + 1))
        )

    chains = chains_of(transcript.entries)
    counts = {
        seat: next((i for i, e in enumerate(chain) if past_the_cut(e)), len(chain)) for seat, chain in chains.items()
    }
    entries = backed(chains, counts)  # keep only entries whose echoes the cut file backs
    end = TranscriptEnd("aborted", None, (), "stopped")
    report = verified(write(tmp_path / "cut.p2pt", transcript, entries, end=end))
    assert report.status == EXIT_FAILED, report.problem_line()
    assert report.checked["moves"] > doubt.body["turn"], report.to_text()
    assert not any("public replay stops" in note for note in report.notes), report.notes


def _before(transcript, seat: int, seq: int):
    """The transcript's entries signed before seat ``seat``'s entry ``seq`` could have reached
    anyone: that entry, the seat's later ones, and every entry whose echo counts one of those,
    left out (a file cut there, consistent in every echo)."""
    kept = {s: len([e for e in transcript.entries if e.sender == s]) for s in range(len(transcript.header.roster))}
    kept[seat] = seq
    changed = True
    while changed:
        changed = False
        for e in transcript.entries:
            counts = enumerate(e.body["seen"])
            if e.seq < kept[e.sender] and any(n > kept[s] for s, (n, _) in counts):
                kept[e.sender], changed = e.seq, True
    return [e for e in transcript.entries if e.seq < kept[e.sender]]


def test_the_unsigned_status_does_not_change_who_is_named(bs_table, tmp_path):
    """A file cut before a seat signed its result (its last entries): whether the (unsigned)
    end record says finished or aborted, the verdict names the same seat, or nobody."""
    from dataclasses import replace

    transcript = bs_table.read()
    result = next(e for e in transcript.entries if e.sender == 2 and e.kind == "result")
    entries = _before(transcript, 2, result.seq)
    reports = {}
    for status in ("finished", "aborted"):
        end = replace(transcript.end, status=status, result=None)
        reports[status] = verified(write(tmp_path / f"{status}.p2pt", transcript, entries, end=end))
    finished, aborted = reports["finished"], reports["aborted"]
    assert finished.status == aborted.status == EXIT_FAILED, finished.problem_line()
    assert finished.problem.seat == aborted.problem.seat, (finished.problem_line(), aborted.problem_line())
