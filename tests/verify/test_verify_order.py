"""``p2pcards verify`` checks the passes' proofs ahead, on every core (verify/passes.py), and
what the walk over the operations finds itself (a malformed pass, a card moved that nobody
held) at once: with two cheats in one file, the seat named must still be the one whose cheat
comes first in the game, as a check-as-you-go walk, and every seat at the table, met it."""

from __future__ import annotations

import dataclasses

from p2pcards.verify import EXIT_FAILED, verify_file

from .verify_tables import resign, write


def _deck(entry, kind: str):
    msg = entry.body.get("msg") if entry.kind == "deck" else None
    return msg if isinstance(msg, dict) and msg.get("type") == kind else None


def _bent_proof(msg):
    """The pass with its proof bent (a proof that fails, its shape whole)."""
    proof = dict(msg["proof"])
    if "c" in proof:  # a re-lock: (c, f)
        proof["c"] = bytes([proof["c"][0] ^ 1]) + proof["c"][1:]
    else:  # a shuffle or re-handling: the shuffle argument's first scalar
        proof["scalars"] = [bytes([proof["scalars"][0][0] ^ 1]) + proof["scalars"][0][1:], *proof["scalars"][1:]]
    return {**msg, "proof": proof}


def _malformed(msg):
    """The pass or re-handling with a shape every seat refuses before any proof: a point
    twice (a pass), or a card named that the transfer did not move (a re-handling)."""
    if msg["type"] == "rehandle":
        return {**msg, "moved": [*msg["moved"], max(msg["moved"]) + 10_000]}
    return {**msg, "points": [msg["points"][1], *msg["points"][1:]]}


def _forge(table, cheats):
    """The table's transcript with each ``(entry, bend)`` of ``cheats`` re-signed by its seat
    as if it had signed the bent message at the table."""
    transcript = table.read()
    for entry, bend in cheats:
        current = next(e for e in transcript.entries if (e.sender, e.seq) == (entry.sender, entry.seq))
        body = {**current.body, "msg": bend(current.body["msg"])}
        transcript = dataclasses.replace(transcript, entries=resign(transcript, table.identities, current, body))
    return transcript


def _passes_and_rehandle(table):
    entries = table.read().entries
    relocks = [e for e in entries if _deck(e, "relock")]
    shuffles = [e for e in entries if _deck(e, "shuffle")]
    assert len({_deck(e, e.body["msg"]["type"])["op"] for e in shuffles + relocks}) == 1, "one hand, one shuffle"
    rehandle = next(e for e in entries if _deck(e, "rehandle") and _deck(e, "rehandle")["moved"])
    return shuffles, relocks, rehandle


def _named(tmp_path, name, transcript) -> int | None:
    report = verify_file(write(tmp_path / name, transcript))
    assert report.status == EXIT_FAILED, report.problem_line()
    return report.problem.seat


def test_a_bent_proof_before_a_malformed_re_handling_is_the_one_named(bs_table, tmp_path):
    """The shuffle's re-lock proof fails (found by a check run ahead); the pile's
    re-handling later names a card nobody moved (found by the walk at once): the re-lock's
    author is named, not the re-handling's."""
    _, relocks, rehandle = _passes_and_rehandle(bs_table)
    relock = next(e for e in relocks if e.sender != rehandle.sender)
    forged = _forge(bs_table, [(relock, _bent_proof), (rehandle, _malformed)])
    assert _named(tmp_path, "a.p2pt", forged) == relock.sender
    # Each cheat alone names its own author (the control).
    assert _named(tmp_path, "b.p2pt", _forge(bs_table, [(rehandle, _malformed)])) == rehandle.sender
    assert _named(tmp_path, "c.p2pt", _forge(bs_table, [(relock, _bent_proof)])) == relock.sender


def test_a_malformed_pass_before_a_bent_re_handling_proof_is_the_one_named(bs_table, tmp_path):
    """The reverse: a pass of the shuffle with a point twice (the walk finds it at once),
    and the pile's re-handling with a bent proof later (a check run ahead): the pass's author."""
    shuffles, _, rehandle = _passes_and_rehandle(bs_table)
    shuffle = next(e for e in shuffles if e.sender != rehandle.sender)
    forged = _forge(bs_table, [(shuffle, _malformed), (rehandle, _bent_proof)])
    assert _named(tmp_path, "a.p2pt", forged) == shuffle.sender
    assert _named(tmp_path, "b.p2pt", _forge(bs_table, [(rehandle, _bent_proof)])) == rehandle.sender


def test_within_one_shuffle_the_earlier_pass_is_named(bs_table, tmp_path):
    """In one operation: the first shuffle pass's proof bent (checked ahead, with the other
    passes), a later re-lock pass malformed (found at once): the first pass's author; and a
    malformed first pass before a later bent proof: the first pass's author again."""
    shuffles, relocks, _ = _passes_and_rehandle(bs_table)
    first = min(shuffles, key=lambda e: e.sender)  # shuffle 0, the first pass
    late = next(e for e in relocks if e.sender != first.sender)
    assert _named(tmp_path, "a.p2pt", _forge(bs_table, [(first, _bent_proof), (late, _malformed)])) == first.sender
    assert _named(tmp_path, "b.p2pt", _forge(bs_table, [(first, _malformed), (late, _bent_proof)])) == first.sender
    assert _named(tmp_path, "c.p2pt", _forge(bs_table, [(late, _malformed)])) == late.sender


def test_a_pass_with_a_bent_proof_and_a_reused_key_is_refused_for_its_proof(bs_table, tmp_path):
    """One re-lock pass both ways wrong: its proof bent (checked ahead) and a per-card key
    another seat's re-lock published (found by the walk): its proof is checked first, as
    every seat checked it, so the verdict says so."""
    _, relocks, _ = _passes_and_rehandle(bs_table)
    # The last seat re-locks first (deck.md 4.1): its keys are published before the others'.
    donor = max(relocks, key=lambda e: e.sender)
    cheat = next(e for e in relocks if e is not donor)
    stolen = _deck(donor, "relock")["keys"][0]

    def both(msg):
        return _bent_proof({**msg, "keys": [stolen, *msg["keys"][1:]]})

    def reused(msg):
        return {**msg, "keys": [stolen, *msg["keys"][1:]]}

    report = verify_file(write(tmp_path / "a.p2pt", _forge(bs_table, [(cheat, both)])))
    assert report.status == EXIT_FAILED and report.problem.seat == cheat.sender, report.problem_line()
    assert "proof fails" in report.problem.reason, report.problem_line()
    control = verify_file(write(tmp_path / "b.p2pt", _forge(bs_table, [(cheat, reused)])))
    assert control.status == EXIT_FAILED and control.problem.seat == cheat.sender, control.problem_line()


def test_a_bent_proof_comes_before_an_illegal_move_the_replay_meets_first(bs_table, tmp_path):
    """The replay of the moves runs while the passes' proofs are checked (verify/seedless.py):
    a re-lock proof bent in the shuffle, and a later move of another seat made illegal; the
    replay meets the move before the proof's check is done, and still the re-lock's author is
    named: a pass's verdict comes before anything the moves show."""
    _, relocks, _ = _passes_and_rehandle(bs_table)
    actions = [e for e in bs_table.read().entries if e.kind == "action"]
    move = actions[-1]
    relock = next(e for e in relocks if e.sender != move.sender)

    def illegal(body):
        return {**body, "action": {"type": "no such move"}}

    def forge_move(transcript):
        current = next(e for e in transcript.entries if (e.sender, e.seq) == (move.sender, move.seq))
        entries = resign(transcript, bs_table.identities, current, illegal(current.body))
        return dataclasses.replace(transcript, entries=entries)

    assert _named(tmp_path, "a.p2pt", forge_move(bs_table.read())) == move.sender  # the control
    assert _named(tmp_path, "b.p2pt", forge_move(_forge(bs_table, [(relock, _bent_proof)]))) == relock.sender
