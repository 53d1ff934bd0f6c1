"""Real transcripts for the verify tests: whole games between bot peers over loopback TCP, and
tools to alter them the way an attacker or a damaged disk would."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from p2pcards.cards import Card
from p2pcards.game import Action, Bot
from p2pcards.plugins import load_plugins
from p2pcards.testing import run_loopback
from p2pcards.verify import Report, verify_file
from p2pcards.wire.identity import Identity
from p2pcards.wire.messages import Entry, sign_entry
from p2pcards.wire.transcript import (
    MAGIC,
    Transcript,
    TranscriptEnd,
    TranscriptWriter,
    read_transcript,
)


@dataclass
class Table:
    """One played table: every seat's transcript and the seats' identities (to forge with)."""

    game: str
    paths: list[Path]
    identities: list[Identity]

    @property
    def path(self) -> Path:
        return self.paths[0]

    @cached_property
    def report(self) -> Report:
        """``verify_file`` of :attr:`path`, once per session (a second or two of CPU each
        time): read it, never change it. A test that alters the file verifies its own copy."""
        return verify_file(self.path)

    def read(self) -> Transcript:
        return read_transcript(self.path)


def won_hand_pickups(timeline: list[dict[str, Any]]) -> list[tuple[dict, dict, dict]]:
    """Cal's BS pickups that end a hand (the next event is a shuffle, or there is none): the
    (final play, doubt, transfer) events of each, from a verify report's timeline."""
    out = []
    for i, event in enumerate(timeline):
        last = i + 1 == len(timeline)
        if event["kind"] == "transfer" and (last or timeline[i + 1]["kind"] == "shuffle"):
            moves = [e for e in timeline[:i] if e["kind"] == "move"]
            out.append((moves[-2], moves[-1], event))
    return out


def doubting_first(game_id: str) -> type[Bot]:
    """The game's strategic bot, except that it doubts at its first chance if nobody at the
    table has doubted yet. Every seat playing it, the hand's first follower doubts the lead
    (turn 1): a table of these has a doubt, its reveal and the taker's re-handled cards
    whatever the (unseeded) deck deals, which the strategic bot alone makes only likely."""
    strategic = load_plugins().bots_for(game_id)["strategic"]

    class DoubtingFirst(strategic):  # type: ignore[misc,valid-type]
        name = "doubting-first"
        doubted = False  # a doubt was made at this table (this bot's or one it was told of)

        def observe(self, state: Any, event: Mapping[str, Any], known: Mapping[int, Card]) -> None:
            if event.get("kind") == "action" and event["action"].get("type") == "doubt":
                self.doubted = True
            super().observe(state, event, known)

        def choose(self, state: Any, known: Mapping[int, Card]) -> Action:
            doubt = {"type": "doubt"}
            if not self.doubted and doubt in self.game.legal_actions(state, self.seat, known):
                self.doubted = True
                return doubt
            return super().choose(state, known)

    return DoubtingFirst


def play_table(
    game_id: str, players: int, options: dict[str, Any], folder: Path, seats: str | type[Bot] = "strategic"
) -> Table:
    """Play one whole game between bots (strategic by default), each seat its own peer on
    127.0.0.1."""
    table = run_loopback(game_id, players, options, seats=seats, seed=1, transcript_dir=folder)
    paths = [path for path in table.transcripts if path is not None]
    assert len(paths) == players, table.problems()
    return Table(game_id, paths, [outcome.peer.identity for outcome in table.outcomes])


# -- altering transcripts ----------------------------------------------------------------------


def records(data: bytes) -> list[tuple[int, int]]:
    """(offset of the body, length) of every record (protocol/transcript.md section 1)."""
    out, pos = [], len(MAGIC)
    while pos < len(data):
        length = int.from_bytes(data[pos : pos + 4], "big")
        out.append((pos + 4, length))
        pos += 4 + length + 16
    return out


def rechain(data: bytes) -> bytes:
    """Recompute every record's check value, as a deliberate forger would."""
    out = bytearray(data)
    check = hashlib.sha256(MAGIC).digest()[:16]
    for body_at, length in records(data):
        length_bytes = out[body_at - 4 : body_at]
        check = hashlib.sha256(check + length_bytes + out[body_at : body_at + length]).digest()[:16]
        out[body_at + length : body_at + length + 16] = check
    return bytes(out)


def flip(data: bytes, position: int) -> bytes:
    out = bytearray(data)
    out[position] ^= 0x01
    return bytes(out)


def write(
    path: Path, transcript: Transcript, entries: list[Entry] | None = None, end: TranscriptEnd | None = None
) -> Path:
    """Write a transcript with the writer API (valid checks), with other entries or end."""
    with TranscriptWriter.create(path, transcript.header) as writer:
        writer.append_entries(transcript.entries if entries is None else entries)
        for blame in transcript.blames:
            writer.append_blame(blame)
        writer.write_end(end or transcript.end)
    return path


def resign(transcript: Transcript, identities: list[Identity], entry: Entry, body: dict[str, Any]) -> list[Entry]:
    """The transcript's entries with ``entry`` given another body, as if its seat had signed
    that at the table: it and every entry that depends on it (the seat's later entries through
    ``prev``, everyone's later entries through their head echo) are signed again."""
    by_key = {(e.sender, e.seq): e for e in transcript.entries}
    new: dict[tuple[int, int], Entry] = {}
    renamed: dict[bytes, bytes] = {}  # old hash -> new hash

    def sign(key: tuple[int, int]) -> Entry:
        if key in new:
            return new[key]
        old = by_key[key]
        # First the entries this one names: its predecessor and what its echo saw.
        for seat, (count, _) in enumerate(old.body["seen"]):
            if count and seat != old.sender:
                sign((seat, count - 1))
        if old.seq:
            sign((old.sender, old.seq - 1))
        draft = dict(body if old is entry else old.body)
        draft["seen"] = [[count, renamed.get(last, last)] for count, last in old.body["seen"]]
        prev = renamed.get(old.prev, old.prev)
        if old is not entry and prev == old.prev and draft["seen"] == old.body["seen"]:
            new[key] = old
            return old
        signed = sign_entry(
            identities[old.sender],
            table=old.table,
            sender=old.sender,
            seq=old.seq,
            kind=old.kind,
            prev=prev,
            body=draft,
        )
        renamed[old.hash] = signed.hash
        new[key] = signed
        return signed

    # seq order per seat keeps the recursion shallow
    for old in sorted(transcript.entries, key=lambda e: (e.seq, e.sender)):
        sign((old.sender, old.seq))
    return [new[(e.sender, e.seq)] for e in transcript.entries]


def resign_own(transcript: Transcript, identity: Identity, entry: Entry, body: dict[str, Any]) -> list[Entry]:
    """``entry`` with another body, and its seat's later entries, signed again by that seat
    alone after the game (the other seats' echoes still name the old hashes)."""
    out, prev = [], None
    for old in transcript.entries:
        if old.sender != entry.sender or old.seq < entry.seq:
            out.append(old)
            continue
        draft = dict(body if old.seq == entry.seq else old.body)
        prev = old.prev if prev is None else prev
        draft["seen"] = [list(item) for item in draft["seen"]]
        draft["seen"][old.sender] = [old.seq, prev]
        signed = sign_entry(
            identity, table=old.table, sender=old.sender, seq=old.seq, kind=old.kind, prev=prev, body=draft
        )
        out.append(signed)
        prev = signed.hash
    return out


def chains_of(entries) -> dict[int, list]:
    """Each seat's entries, in order."""
    chains: dict[int, list] = {}
    for entry in entries:
        chains.setdefault(entry.sender, []).append(entry)
    return chains


def backed(chains: dict[int, list], counts: dict[int, int]) -> list:
    """The first ``counts[seat]`` entries of each chain, cut further until every echo the
    kept entries hold is backed by the kept entries (as a file of an unfinished game is)."""
    counts = dict(counts)
    changed = True
    while changed:
        changed = False
        for seat, chain in chains.items():
            bad = next(
                (
                    i
                    for i, e in enumerate(chain[: counts[seat]])
                    if any(c > counts[o] for o, (c, _) in enumerate(e.body["seen"]))
                ),
                None,
            )
            if bad is not None:
                counts[seat], changed = bad, True
    return [e for seat, chain in sorted(chains.items()) for e in chain[: counts[seat]]]
