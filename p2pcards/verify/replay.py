"""The replay of a table from its transcript: each seat's signed entries read in order
(:class:`SeatEntries`), the state of the replay and the rules it judges by (:class:`Replay`:
every seat's next signed ``deck`` entry where the protocol calls for one, followed by
:class:`~p2pcards.verify.seedless.PublicHandles`; the accusations), and the moves taken from
the signed ``action`` entries (:class:`SignedMoves`). No deck seed is used (issue 32)."""

from __future__ import annotations

import random
from bisect import bisect_left
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..cards import Card, sort_cards
from ..deck import judge
from ..deck.evidence import accused_of, step_of, wire_private_evidence
from ..engine import Replica
from ..game import Action, Bot, Game, Round
from ..table import stall
from ..table.absence import Absences
from ..table.dropouts import is_drop_out_entry
from ..table.rounds import (
    SEALED,
    is_sealed,
    moved_before_opening,
    opening_problem,
    order_by_echoes,
    parse_commitment,
    parse_opening,
)
from ..wire.errors import ProtocolError
from ..wire.messages import Entry
from ..wire.sealed import open_revealed, recipients
from .report import HANDLE_KEYS, Failed, Stopped, Watch


def public_message(entry: Entry, kind: str) -> bool:
    """A public deck entry carrying a message of type ``kind``."""
    msg = entry.body.get("msg") if isinstance(entry.body, dict) else None
    return isinstance(msg, dict) and msg.get("type") == kind


def judged(entry: Entry, verdict: judge.Verdict) -> Failed:
    """A verdict of the accusation rules (:mod:`p2pcards.deck.judge`, the ones every seat runs)
    about the signed accusation ``entry``, as verify reports it: the same reason, the same seat."""
    return Failed(f"accusation by seat {entry.sender} (log #{entry.seq})", verdict.reason, verdict.seat)


def finished_hand_accusation(mine: SeatEntries, entry: Entry) -> Failed | None:
    """An accusation (``entry``, signed by ``mine``'s seat) about a deck operation of a hand its
    accuser had finished: one before a shuffle whose pass the accuser had already signed. Every
    seat refuses it as it arrives (protocol/deck.md section 6), whatever it says."""
    verdict = judge.finished_hand(mine.seat, entry.body["msg"].get("op"), mine.latest_pass_before(entry.seq))
    return None if verdict is None else judged(entry, verdict)


def accused_copy(seats: Sequence[SeatEntries], entry: Entry) -> dict[str, Any] | None:
    """The public message a signed accusation without evidence names (its seat's signed message
    of that step and operation), if the accusation's head echo counts it: what every seat held
    as the accusation arrived (causal delivery), so what the table judged it on."""
    message = entry.body["msg"]
    step, accused, op = message.get("step"), message.get("seat"), message.get("op")
    seen = entry.body["seen"][accused][0]
    return next(
        (
            e.body["msg"]
            for e in seats[accused].deck
            if e.seq < seen and public_message(e, step) and e.body["msg"].get("op") == op
        ),
        None,
    )


def revealed_junk(seats: Sequence[SeatEntries], accuser: int, message: Mapping[str, Any]) -> int | None:
    """The sender, if the accusation ``message`` (its form checked) reveals the key of a signed
    private deck entry of that sender to the accuser whose box opens to no opening of an
    operation (p2pcards.deck.judge.is_opening): proof against its sender whatever else the
    accusation says. ``None``: the evidence proves no such thing (judged by the other rules)."""
    evidence = message.get("evidence")
    if message.get("step") != "open" or not isinstance(evidence, dict) or "message" in evidence:
        return None
    checked = wire_private_evidence(evidence, len(seats))
    if checked is None:
        return None
    sender, seq, key = checked
    target = next((e for e in seats[sender].entries if e.seq == seq), None)
    if target is None or target.kind != "deck" or accuser not in recipients(target.body):
        return None
    try:
        payload = open_revealed(target, key, accuser)
    except (ProtocolError, TypeError):
        return None
    return None if judge.is_opening(payload) else sender


def provable_accusation(seats: Sequence[SeatEntries], mine: SeatEntries, entry: Entry, cards: int) -> Failed | None:
    """The verdict every seat reaches on the signed accusation ``entry`` as it arrives, without
    any seed, in the order the table applies the rules (p2pcards.deck.judge): its form, a
    finished hand, and an accusation about a public message judged on the copy its echo saw.
    ``None``: those rules do not decide it (a private opening, a reused key, judged once its
    operation is reached)."""
    message = entry.body["msg"]
    verdict = judge.malformed(mine.seat, message, len(seats))
    if verdict is not None:
        return judged(entry, verdict)
    junk = revealed_junk(seats, mine.seat, message)
    if junk is not None:
        return judged(entry, judge.no_opening(mine.seat, message["seat"], junk))
    stale = finished_hand_accusation(mine, entry)
    if stale is not None:
        return stale
    if judge.is_public(message):
        return judged(entry, judge.on_copy(mine.seat, message, accused_copy(seats, entry), cards))
    step, evidence = message.get("step"), message.get("evidence")
    if step == "open" and not isinstance(evidence, dict):
        return judged(entry, judge.without_evidence(mine.seat))
    if step != "open":  # (a `decode` accusation too: gone in protocol version 11)
        return judged(entry, judge.unknown_kind(mine.seat))
    return None


class SeatEntries:
    """One seat's signed entries, by kind, consumed in order as the replay needs them.
    ``delivered``: how many of them a seat could act on (_delivered); the replay reads no
    further, and ``held`` is the first it could not."""

    def __init__(self, seat: int, entries: Sequence[Entry], delivered: int | None = None):
        self.seat = seat
        self.entries = list(entries)
        usable = self.entries[:delivered]
        self.held = self.entries[len(usable)] if len(usable) < len(self.entries) else None
        self.usable = len(usable)
        self.deck = [e for e in usable if e.kind == "deck"]
        self.actions = [e for e in usable if e.kind == "action"]
        self.opens = [e for e in usable if e.kind == "open"]  # openings of sealed responses
        self.next_open = 0
        self.results = [e for e in usable if e.kind == "result"]
        self.chats = sum(e.kind == "chat" for e in entries)
        self.next_deck = 0
        self.boxes_left: set[int] = set()  # in a private entry to several seats: seats not yet met
        self.next_action = 0
        self.passed: set[int] = set()  # turns the table passed for it (absent): its moves for them are void
        self._passes: tuple[list[int], list[int]] | None = None  # (latest_pass_before)

    def latest_pass_before(self, seq: int) -> int:
        """The highest ``op`` of a ``shuffle`` or ``relock`` pass among this seat's deck entries
        before its entry ``seq`` (-1: none). Indexed once: a file of thousands of accusations
        looked through every entry before each (quadratic, issue 28)."""
        if self._passes is None:
            seqs, highest, top = [], [], -1
            for e in self.deck:
                if (public_message(e, "shuffle") or public_message(e, "relock")) and type(
                    op := e.body["msg"].get("op")
                ) is int:
                    top = max(top, op)
                    seqs.append(e.seq)
                    highest.append(top)
            self._passes = (seqs, highest)
        seqs, highest = self._passes
        i = bisect_left(seqs, seq)
        return highest[i - 1] if i else -1

    def skip_void(self) -> None:
        """Past its moves signed for a turn the table passed for it (absence.py)."""
        while self.next_action < len(self.actions) and self.actions[self.next_action].body.get("turn") in self.passed:
            self.next_action += 1


class Replay:
    """The replay of one transcript: the seats' entries, the game's state, what was read."""

    def __init__(
        self,
        game: Game,
        options: Mapping[str, Any],
        names: Sequence[str],
        seats: Sequence[SeatEntries],
        *,
        log: Any = None,
        unfinished: bool = False,
        watch: Watch | None = None,
    ):
        self.game = game
        self.watch = watch
        self.watched = 0  # timeline events the watch was told of
        self.replica: Replica | None = None  # the game's state, once the replay runs
        self.known_of: Callable[[int], Mapping[int, Card]] = lambda seat: {}
        self.log = log
        # An aborted or abandoned game: where the signed entries end, the replay stops
        # (Stopped) instead of failing; what comes after is judged by verify_unfinished.
        self.unfinished = unfinished
        self.options = options
        self.names = names
        self.seats = seats
        self.public = self.private = 0  # deck entries followed
        self.timeline: list[dict[str, Any]] = []
        self.cards = len(game.deck(options, len(seats)))  # a pass holds one point each
        self.turn = 0  # moves applied so far
        self.pending: tuple[int, int] | None = None  # (turn, seat) of a move being applied
        self.last_entry: dict[int, Entry | None] = {}  # seat -> the entry of its last move read
        # Signed accusations about an operation their seat had not begun: kept aside, as every
        # seat's party keeps them (protocol/deck.md section 6), while the replay goes on.
        self.kept_aside: list[tuple[int, Entry]] = []
        # The replay's deck (verify.seedless.PublicHandles): its referee judges an accusation
        # as every seat did, with the same code (deck.party.OpeningReferee).
        self.public_deck: Any = None
        self.absences = Absences(len(seats))
        self.statements_used: list[Entry] = []  # the absent statements that passed for a seat
        # (turn, seat): a follower's move read while seats had stated it absent (and may wait)
        self.read_while_stated: set[tuple[int, int]] = set()
        self.pending_round: set[int] = set()  # the seats of the round being read, if one is
        # Only statements a seat could act on (Log.closed): a held one passes for nobody.
        for entry in log.closed() if log is not None else ():
            if entry.kind == "absent":
                self.absences.add(entry)
            elif is_drop_out_entry(entry):
                self.absences.gone.add(entry.sender)  # a seat that dropped out states nothing

    def show(self, step: Any = None) -> None:
        """Tell the watch of the timeline's new events, with the state after them (called
        before each step of the engine, after each move, and at the end)."""
        if self.watch is None or self.replica is None:
            return
        while self.watched < len(self.timeline):
            known = [self.known_of(seat) for seat in range(len(self.seats))]
            self.watch.step(self.timeline[self.watched], self.replica.state, known)
            self.watched += 1

    def round_order(self, step: Round, responses: dict[int, Action]) -> list[tuple[int, Action]]:
        """A free-order round's responses in the order their signed head echoes give, as at
        the table (protocol/table.md section 9)."""
        return order_by_echoes(
            step, self._opened(step, responses), {s: self.last_entry[s] for s in responses}, len(self.seats)
        )

    def _opened(self, step: Round, responses: dict[int, Action]) -> dict[int, Action]:
        """The round's sealed responses opened: each committed follower's next ``open`` entry,
        checked against its commitment and the round's other commitments (rounds.opening_problem),
        as every seat checks it (protocol/table.md section 9)."""
        turn = self.turn
        commitments = {
            seat: entry
            for seat, action in responses.items()
            if is_sealed(action) and (entry := self.last_entry.get(seat)) is not None
        }
        opened = dict(responses)
        for seat in sorted(commitments):
            mine = self.seats[seat]
            what = f"opening for turn {turn}"
            if mine.next_open >= len(mine.opens):
                _held_back(self.seats, mine, self.names, f"opening, turn {turn}", "open", "opening")
                _not_in_file(self.log, seat, f"opening, turn {turn}")
                if self.unfinished:
                    raise Stopped(f"opening, turn {turn}", seat, "opening")
                raise Failed(
                    f"opening, turn {turn}",
                    f"{self.names[seat]} committed to a response to turn {turn} and signed no {what}",
                    seat,
                )
            entry = mine.opens[mine.next_open]
            mine.next_open += 1
            following = mine.actions[mine.next_action] if mine.next_action < len(mine.actions) else None
            problem = moved_before_opening(turn, entry, following) or opening_problem(
                self.log.table, entry, commitments[seat], commitments, turn
            )
            if problem is not None:
                raise Failed(f"opening, turn {turn} (log #{entry.seq} of seat {seat})", problem, seat)
            parsed = parse_opening(entry.body)
            assert parsed is not None, "opening_problem refuses a malformed opening"
            opened[seat] = parsed[1]
        return opened

    # -- deck -----------------------------------------------------------------------------

    def next_deck_entry(self, seat: int, what: str) -> Entry:
        """``seat``'s next signed deck entry, where the protocol requires its message ``what``;
        none left: the replay stops there (an unfinished game) or the seat is named."""
        mine = self.seats[seat]
        if mine.next_deck >= len(mine.deck):
            _held_back(self.seats, mine, self.names, f"deck, {what}", "deck", what)
            _not_in_file(self.log, seat, f"deck, {what}")
            if self.unfinished:
                raise Stopped(f"deck, {what}", seat, what)
            raise Failed(
                f"deck, {what}",
                f"{self.names[seat]} signed no deck entry where the protocol requires this message",
                seat,
            )
        return mine.deck[mine.next_deck]

    def judge(self, accuser: int, entry: Entry) -> None:
        """A signed deck accusation (protocol/deck.md section 6): raise Failed naming the
        accused if the transcript proves it, the accuser if it proves the accusation false;
        return when it cannot tell (what is accused was not replayed)."""
        message = entry.body["msg"]
        evidence, kind = message.get("evidence"), step_of(message)
        step = f"accusation by seat {accuser} (log #{entry.seq})"
        # The rules every seat applies as it arrives, without a seed (p2pcards.deck.judge); the
        # fields are read before use there (deck/evidence.py) and the reasons are our own words.
        provable = provable_accusation(self.seats, self.seats[accuser], entry, self.cards)
        if provable is not None:
            raise provable
        head = accused_of(message, len(self.seats))
        assert head is not None, "judge.malformed checked its seat and operation"
        accused, op = head
        if kind == "open" and isinstance(evidence, dict) and "scalar" not in evidence:
            if "message" in evidence or not {"sender", "entry", "key"} <= set(evidence):
                raise Failed(
                    step,
                    "its evidence about a private message is not the signed "
                    "entry that carried it and its message key (wire.md section 8): "
                    "a plaintext copy anyone could make up",
                    accuser,
                )
            checked = wire_private_evidence(evidence, len(self.seats))
            target = None
            if checked is not None and self.log:
                found = self.log.entries(checked[0], checked[1])[:1]
                target = found[0] if found else None
            if checked is None or target is None or target.kind != "deck" or accuser not in recipients(target.body):
                raise Failed(step, "its evidence names no private deck message to the accuser", accuser)
            sender, seq, key = checked
            try:
                payload = open_revealed(target, key, accuser)
            except (ProtocolError, TypeError):
                raise Failed(
                    step, f"the message key it reveals does not open seat {sender}'s entry #{seq}", accuser
                ) from None
            if not isinstance(payload, dict) or payload.get("op") != op:
                raise Failed(
                    step,
                    f"seat {sender}'s entry #{seq} is not its private message of operation {op}",
                    accuser,
                )
            # The receiver's own check, run again on the message its key opens (the one
            # referee: deck.party.OpeningReferee), once the replay has reached the operation.
            deck = self.public_deck
            verdict = deck.judged(accuser, accused, op, kind, private=(sender, payload)) if deck else None
            if verdict is None:
                return
            if verdict.seat == accuser:
                raise judged(entry, verdict)
            raise Failed(
                f"deck entry of seat {sender} (log #{seq}), opened with the key seat {accuser} revealed",
                f"{verdict.reason}: its private message fails the check its receiver made on it "
                f"(a deviation from the deck protocol)",
                verdict.seat,
            )
        if self.public_deck is not None and isinstance(evidence, dict):
            verdict = self.public_deck.judged(accuser, accused, op, str(kind), reuse=evidence)
            if verdict is not None:
                raise judged(entry, verdict)

    # -- moves ----------------------------------------------------------------------------

    def next_action(self, seat: int, state: Any) -> Action:
        mine = self.seats[seat]
        turn = self.turn
        self.pending = (turn, seat)
        next_step = self.game.next_step(state)
        self.pending_round = set(next_step.seats) if isinstance(next_step, Round) else set()
        absent = self.game.absent_action(state, seat)
        # (The chain as a sequence read on demand: a copy of it at every turn cost a long
        # match's verification time quadratic in its length.)
        chain = self.log.chain(seat) if self.log is not None else None
        if absent is not None and chain is not None and len(chain) < self.absences.counted(turn, seat):
            _not_in_file(self.log, seat, f"turn {turn}")  # the statements saw entries not here
        if absent is not None and chain is not None and self.absences.passed(turn, seat, chain):
            mine.passed.add(turn)  # every other seat stated it absent, none holding its move
            self.last_entry[seat] = None
            self.statements_used += self.absences.statements(turn, seat)
            return absent
        mine.skip_void()
        if mine.next_action >= len(mine.actions):
            _held_back(self.seats, mine, self.names, f"turn {turn}", "turn", f"move for turn {turn}")
            _not_in_file(self.log, seat, f"turn {turn}")
            if self.unfinished:
                raise Stopped(f"turn {turn}", seat, f"move for turn {turn}")
            raise Failed(f"turn {turn}", f"{self.names[seat]} is to move and signed no move for turn {turn}", seat)
        entry = mine.actions[mine.next_action]
        mine.next_action += 1
        self.last_entry[seat] = entry
        if absent is not None and self.absences.stated(turn, seat):
            self.read_while_stated.add((turn, seat))  # seats that stated may wait on the others
        body = entry.body
        step = f"turn {turn} (log #{entry.seq} of seat {seat})"
        if isinstance(next_step, Round) and seat in next_step.seats:
            # A free-order response is sealed: its commitment now, its opening once the round
            # is sealed (Replay.round_order opens it).
            committed = parse_commitment(body)
            if committed is None:
                raise Failed(step, "malformed sealed response (a free-order response is a commitment)", seat)
            if committed[0] != turn:
                raise Failed(step, f"its next signed move is for turn {committed[0]}", seat)
            return dict(SEALED)
        if (
            set(body) != {"turn", "action", "seen"}
            or not isinstance(body["action"], dict)
            or not isinstance(body["turn"], int)
            or isinstance(body["turn"], bool)
        ):
            raise Failed(step, "malformed action entry", seat)
        if body["turn"] != turn:
            raise Failed(step, f"its next signed move is for turn {body['turn']}", seat)
        return body["action"]

    def moved(self, state: Any, seat: int, action: Action, known: Mapping[int, Card]) -> None:
        try:
            text = self.game.format_action(state, seat, action, known)
        except Exception:  # without the faces (a card nobody turned up)
            text = repr(action)
        cards = [known[h] for h in _handles(action) if h in known]
        unseen = [c for c in cards if str(c) not in text and c.unicode() not in text]
        if unseen:
            text += f"  [cards: {' '.join(c.unicode() for c in cards)}]"
        self.timeline.append(
            {
                "kind": "move",
                "turn": self.turn,
                "seat": seat,
                "text": text,
                "action": action,
                "cards": [c.unicode() for c in cards],
            }
        )
        self.turn += 1
        self.pending = None
        self.pending_round = set()
        self.show()


class SignedMoves(Bot):
    """A seat whose moves are the ones it signed, in order."""

    name = "transcript"

    def __init__(self, game: Game, seat: int, options: Mapping[str, Any], replay: Replay):
        super().__init__(game, seat, options, random.Random(0))
        self.replay = replay

    def choose(self, state: Any, known: Mapping[int, Card]) -> Action:
        return self.replay.next_action(self.seat, state)

    def observe(self, state: Any, event: Mapping[str, Any], known: Mapping[int, Card]) -> None:
        if event["kind"] == "action" and event["seat"] == self.seat:
            self.replay.moved(state, self.seat, event["action"], known)


def _handles(action: Action) -> list[int]:
    found: list[int] = []
    for key in HANDLE_KEYS:
        value = action.get(key)
        items = value if isinstance(value, list) else [value]
        found += [h for h in items if isinstance(h, int) and not isinstance(h, bool)]
    return found


def with_faces(timeline: list[dict[str, Any]], faces: Mapping[int, Card]) -> list[dict[str, Any]]:
    """The report's timeline: handles replaced by the faces shown at the table."""

    def show(handles: Sequence[int]) -> list[str]:
        return [faces[h].unicode() if h in faces else f"#{h}" for h in handles]

    out = []
    for event in timeline:
        kind = event["kind"]
        if kind == "deal":
            hands: dict[int, list[int]] = {}
            for handle, seat in event["to"].items():
                hands.setdefault(seat, []).append(handle)
            shown = {
                seat: [c.unicode() for c in sort_cards(faces[h] for h in hs if h in faces)]
                for seat, hs in sorted(hands.items())
            }
            out.append({"kind": "deal", "hands": shown})
        elif kind in ("reveal", "transfer"):
            rest = {k: v for k, v in event.items() if k != "handles"}
            out.append({**rest, "cards": show(event["handles"])})
        else:
            out.append(event)
    return out


def commitment_of(log: Any, seat: int) -> dict[str, Any] | None:
    """The seed and nonce commitment ``seat`` signed: its first deck message."""
    first = next((e for e in log.entries(seat) if e.kind == "deck"), None)
    return first.body["msg"] if first is not None and public_message(first, "commit") else None


def _held_back(
    seats: Sequence[SeatEntries], mine: SeatEntries, names: Sequence[str], step: str, phase: str, what: str
) -> None:
    """The replay needs an entry of ``mine`` past one that no seat could act on, as it counts
    entries of other seats that are not in the file: the one stall verdict (table/stall.py)
    on a seat whose entries wait for entries that never came (nobody can tell whose fault)."""
    entry = mine.held
    if entry is None:
        return
    waits_for = frozenset(
        other
        for other, (count, _) in enumerate(entry.body["seen"])
        if other != mine.seat and other < len(seats) and count > seats[other].usable
    )
    if not waits_for:  # (what the file lacks is elsewhere in the chain: any other seat's)
        waits_for = frozenset(s.seat for s in seats if s.seat != mine.seat)
    found = stall.decide(stall.StallFacts(mine.seat, phase, what, held_back=waits_for), names)
    raise Failed(step, found.reason, found.seat)


def _not_in_file(log: Any, seat: int, step: str) -> None:
    """The replay needs an entry of ``seat`` past the end of its chain in the file: if another
    entry's head echo saw more of that chain, the file lacks entries the seat did sign."""
    if log is None:
        return
    have = len(log.entries(seat))
    for entry in log.canonical():
        count = entry.body["seen"][seat][0]
        if count > have:
            raise Failed(
                step,
                f"the file holds {have} entries of seat {seat}, but seat "
                f"{entry.sender}'s entry #{entry.seq} had seen {count}: entries were "
                f"removed from the file (or never reached the seat that wrote it)",
            )
