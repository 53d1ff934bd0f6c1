"""Checking a game with what the table saw, no seed (verify's one path, issue 32): the public
checks of every shuffle pass and re-handling with their proofs (:func:`public_passes`), the
faces of cards revealed to everyone (:class:`~p2pcards.deck.public.PublicCards`), and a replay
of the signed moves with the game's rules, following every seat's deck entries
(:class:`PublicHandles`) to the game's end (:func:`public_moves`)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, TypeGuard

from ..cards import Card
from ..deck import judge
from ..deck.derive import coin_value, nonce_commitment
from ..deck.party import FIRST_REHANDLED, MESSAGE_TYPES, PublicReferee, claim_refusal
from ..deck.passes import (
    PassError,
    check_rehandle,
    pass_order,
    rehandle_memo,
)
from ..deck.public import NotOpened, PublicCards
from ..engine import PlayerError, Replica, play
from ..game import Action, Done, Game, Result
from ..table import verdict
from ..table.header import TableHeader
from ..wire.messages import Entry
from ..wire.sealed import recipients
from .passes import Pending, deck_context, public_game_id, shuffling, start_passes
from .replay import Replay, SeatEntries, SignedMoves, judged, public_message
from .report import Failed, Report, Stopped, describe_seats, illegal_move, plugin_failed
from .stops import (
    after_stop,
    out_of_turn,
    signed_goodbye,
    stall_verdict,
    statement_owed,
    statements_on,
    stopped_by_accusation,
    stopped_while_others_did_not,
)


class _NeedsFaces(Exception):
    """The seedless replay reached a step that needs the faces of cards."""


class _Unfollowed(_NeedsFaces):
    """The public record cannot say which seat's deck message came first (several nonces
    missing), or calls for a message only a seat that dropped out could send: the seedless
    replay names nobody there."""


class PublicHandles:
    """The engine's deck without seeds: only the public numbering of handles (shuffle epoch e
    is ``e*n .. e*n+n-1``, moved cards count up from FIRST_REHANDLED); a step that needs faces
    (or a coin, which needs every nonce) ends the replay."""

    def __init__(
        self,
        n: int,
        game_id: bytes | None,
        log: Any = None,
        cards: PublicCards | None = None,
        replay: Replay | None = None,
    ):
        self.n, self.epochs, self.next = n, 0, FIRST_REHANDLED
        self.game_id = game_id
        self.log, self.cards = log, cards
        self.steps = 0  # deck steps so far (each is one deck operation)
        # The public record of holders, for hidden claims: handle -> (holder, hand); moved ones go.
        self.holders: dict[int, tuple[int, int]] = {}
        self.dropped: dict[int, int] = {}  # seat -> the deck operation it dropped out at
        self.shown: dict[int, Card] = {}  # every face turned up for everyone so far
        self.public: set[int] = set()  # every handle a reveal opened to all (Party's card.public)
        self.retired: set[int] = set()  # every handle a transfer moved (renamed)
        # With ``replay``: each seat's signed deck entries are followed: every message the
        # public record says a seat sends, public or private, must be its next deck entry, in
        # the order the protocol sends them; the first one missing stops the replay naming its
        # seat (Stopped), judged by the stop rules (verify/stops.py).
        self.replay = replay
        self.players = len(log.roster) if log is not None else 0
        # The referee of openings and accusations on the public record (the code every seat
        # runs: deck.party.OpeningReferee), fed as the operations are replayed; what it needs
        # is known only with the game id (the proofs) and the public cards.
        self.referee: PublicReferee | None = None
        if cards is not None and game_id is not None and self.players:
            self.referee = PublicReferee(self.players, n, game_id, cards.table)
        self.shuffle_ops: list[int] = []  # epoch -> the deck operation that shuffled it
        # (seat, kind, op) -> the public deck entry followed for it
        self.followed: dict[tuple[int, str, int | None], Entry] = {}
        self.referee_whole = True  # every hand and re-handling so far told to the referee
        # The public deck entries a seat could act on, by type and operation (_public_entries).
        self._indexed: tuple[int, dict[tuple[Any, Any], list[Entry]]] | None = None
        if replay is not None:
            replay.public_deck = self

    @property
    def follows(self) -> bool:
        """Every deck step so far was followed entry by entry (a missing message stops the
        replay naming its seat)."""
        return self.replay is not None and self.log is not None

    # -- following the signed deck entries (by type, operation and recipients) --

    def _what(self, kind: str, op: int | None, name: str) -> str:
        """The words for a message of a deck operation, in the report's steps."""
        if op is None:
            return f"{kind} message"
        turn = self.replay.turn if self.replay is not None else 0
        return f"{kind} message of deck operation {op} ({name}, before turn {turn})"

    def _sent(self, seat: int, to: int | None, kind: str, op: int | None, name: str) -> None:
        """``seat`` sends a ``kind`` message of deck operation ``op`` (None: the setup) to
        ``to`` (None: everyone), as the public record says: it must be that seat's next signed
        deck entry. A public entry is matched by its type and operation (its
        content was checked by public_passes, or is by the reveal); a private one by its
        recipients (its box opens only for them)."""
        replay = self.replay
        assert replay is not None, "only when following"
        mine = replay.seats[seat]
        what = self._what(kind, op, name)
        entry = replay.next_deck_entry(seat, what)
        if public_message(entry, "accuse") and kind != "accuse":
            # Judged by the rules every seat applies (Replay.judge); one about an operation its
            # seat had not begun is kept aside, and its next entry is this message.
            replay.judge(seat, entry)
            accused_op = entry.body["msg"].get("op")
            begun = -1 if op is None else op
            if not (type(accused_op) is int and accused_op > begun):
                raise Stopped(
                    f"deck, {what}",
                    seat,
                    f"{what} (it accused a seat instead, and the accusation cannot be judged here)",
                )
            replay.kept_aside.append((seat, entry))
            mine.next_deck += 1
            self._sent(seat, to, kind, op, name)
            return
        if replay.unfinished and public_message(entry, "seed") and kind != "seed":
            raise Stopped(f"deck, {what}", seat, what)  # it revealed its seed as the game stopped
        body = entry.body
        boxes = recipients(body)
        # The seat's signed entries in another order than the protocol sends its messages: its
        # own chain proves it.
        step = f"deck entry #{mine.next_deck} of seat {seat} (log #{entry.seq}), {what}"
        if to is None:
            if mine.boxes_left:
                raise Failed(
                    step,
                    f"the rest of a private entry to several seats (boxes to "
                    f"{describe_seats(mine.boxes_left)}) where the protocol sends a public "
                    f"message",
                    seat,
                )
            if set(body) != {"msg", "seen"}:
                mine.next_deck += 1
                raise Failed(
                    step,
                    "expected a public deck message, found " + ("a private one" if boxes else "a malformed entry"),
                    seat,
                )
            msg = body["msg"]
            other_op = op is not None and (not isinstance(msg, dict) or msg.get("op") != op)
            if not public_message(entry, kind) or other_op:
                raise Failed(
                    step,
                    f"its signed deck entry is not its {kind} message"
                    + ("" if op is None else f" of deck operation {op}")
                    + ": a deviation from the deck protocol",
                    seat,
                )
            mine.next_deck += 1
            replay.public += 1
            self.followed[(seat, kind, op)] = entry
            return
        if not boxes:
            mine.next_deck += 1
            raise Failed(
                step,
                f"expected a private deck message to seat {to}, found "
                + ("a public one" if "msg" in body else "a malformed entry"),
                seat,
            )
        if to not in (mine.boxes_left or set(boxes)):
            raise Failed(
                step,
                f"the private messages go to {describe_seats(mine.boxes_left or set(boxes))}, "
                f"the protocol sends one to seat {to}",
                seat,
            )
        if not mine.boxes_left:
            mine.boxes_left = set(boxes)
        mine.boxes_left.discard(to)
        if not mine.boxes_left:
            mine.next_deck += 1
        replay.private += 1

    def setup(self) -> None:
        """The commitments and nonces every seat signs first (Party.start): the commitments
        in seat order, as the parties start; a nonce goes out as its seat
        has every commitment, an order the transcript does not fix, so with more than one
        missing the replay names nobody."""
        if not self.follows:
            return
        assert self.replay is not None, "follows"
        for seat in range(self.players):
            self._sent(seat, None, "commit", None, "")
        seats = self.replay.seats
        lacking = [
            s
            for s in range(self.players)
            if seats[s].next_deck >= len(seats[s].deck) or public_message(seats[s].deck[seats[s].next_deck], "seed")
        ]
        if len(lacking) > 1:
            raise _Unfollowed("the nonces of several seats (which was awaited first the transcript does not say)")
        for seat in range(self.players):
            self._sent(seat, None, "nonce", None, "")

    def _required(self, handles: Sequence[int], receiver: int | None) -> dict[int, list[tuple[int, list[int]]]]:
        """The seats that send ``receiver`` (None: everyone) an opening of ``handles``, with the
        locks of each handle they open, in the order Party._required finds them, from the same
        public record of holders: a held card by its holder (a shuffled one: every lock of the
        seats in its hand; a re-handled one: its scalar, lock N), a card nobody holds by every
        other seat still in the game (its own lock), an own card and a public one by nobody
        (but a public re-handled card moving to another seat, by its holder)."""
        need: dict[int, list[tuple[int, list[int]]]] = {}
        for handle in handles:
            held = self.holders.get(handle)
            holder = held[0] if held is not None else None
            if receiver is not None and holder == receiver:
                continue
            rehandled = handle >= FIRST_REHANDLED
            if handle in self.public and (receiver is None or holder is None or not rehandled):
                continue
            if holder is not None:
                if holder in self.dropped:
                    raise _Unfollowed(f"card {handle}, held by a seat that dropped out")
                locks = [self.players] if rehandled else self._locks_of_hand(handle)
                need.setdefault(holder, []).append((handle, locks))
            else:
                for seat in range(self.players):
                    if seat != receiver and seat not in self.dropped:
                        need.setdefault(seat, []).append((handle, [seat]))
        return need

    def _locks_of_hand(self, handle: int) -> list[int]:
        """The locks of a shuffled handle its holder opens: those of the seats that took part in
        its shuffle (a seat that dropped out before it locked it with the public scalar 1)."""
        epoch = handle // self.n
        shuffled_at = self.shuffle_ops[epoch] if epoch < len(self.shuffle_ops) else self.steps
        return [s for s in range(self.players) if not (s in self.dropped and self.dropped[s] < shuffled_at)]

    def _openings(self, op: int, name: str, by_receiver: Mapping[int | None, Sequence[int]], to: int | None) -> None:
        """The openings of deck operation ``op`` (Party._start_openings): every seat sends them
        as it begins the operation, in seat order, its openings in the order of
        ``by_receiver``; a transfer's receiver ``to`` then its re-handling."""
        if not self.follows:
            return
        sends: dict[int, list[int | None]] = {}
        expected: dict[tuple[int, int | None], list[tuple[int, list[int]]]] = {}
        for receiver, handles in by_receiver.items():
            for sender, items in self._required(handles, receiver).items():
                sends.setdefault(sender, []).append(receiver)
                expected[(sender, receiver)] = items
        if self.referee is not None:
            self.referee.openings(op, expected)
        for seat in range(self.players):
            if seat in self.dropped:
                continue  # it takes part in nothing after its drop-out
            for receiver in sends.get(seat, []):
                self._sent(seat, receiver, "open", op, name)
            if seat == to:
                self._sent(seat, None, "rehandle", op, name)

    def shuffle(self) -> list[int]:
        self._passes(self.steps)
        self.shuffle_ops.append(self.steps)
        base = self.epochs * self.n
        if self.referee is not None and self.cards is not None:
            handles = range(base, base + self.n)
            locks = [self.cards.locks(h) for h in handles]
            if all(h in self.cards.points for h in handles) and all(lk is not None for lk in locks):
                points = [self.cards.points[h] for h in handles]
                self.referee.shuffled(self.steps, self.next, base, points, [lk or [] for lk in locks])
            else:
                self.referee_whole = False
        self.steps += 1
        self.epochs += 1
        self._note({"kind": "shuffle", "cards": self.n})
        return list(range(base, base + self.n))

    def _note(self, event: dict[str, Any]) -> None:
        """An event of the report's timeline (and of a watch: p2pcards replay)."""
        if self.replay is not None:
            self.replay.timeline.append(event)

    def _passes(self, op: int) -> None:
        """Every pass of the shuffle ``op`` is signed (checked by public_passes) and one a seat
        could act on (Log.closed); else the game stopped there, waiting for the first pass in
        pass order that is not (protocol/deck.md section 4.1): Stopped names its seat."""
        if self.log is None:
            return
        players = len(self.log.roster)
        seats = shuffling(players, {s: (at, None) for s, at in self.dropped.items()}, op)
        if self.follows:
            for kind, seat in pass_order(players, seats):
                self._sent(seat, None, kind, op, "shuffle")
            return
        have = {
            (e.body["msg"]["type"], e.sender)
            for e in self.log.closed()
            if (public_message(e, "shuffle") or public_message(e, "relock")) and e.body["msg"].get("op") == op
        }
        for kind, seat in pass_order(players, seats):
            if (kind, seat) not in have:
                what = f"{kind} message of deck operation {op} (shuffle)"
                raise Stopped(f"deck, {what}", seat, what)

    def coin(self, label: str, bound: int) -> int:
        if self.game_id is None:
            raise _NeedsFaces(f"coin {label} (not every nonce was revealed)")
        self.steps += 1
        value = coin_value(self.game_id, label, bound)
        self._note({"kind": "coin", "label": label, "value": value})
        return value

    def deal(self, to: Mapping[int, int]) -> None:
        by_receiver: dict[int | None, list[int]] = {}
        for handle, seat in sorted(to.items()):
            by_receiver.setdefault(seat, []).append(handle)
        self._openings(self.steps, "deal", by_receiver, None)
        self.steps += 1
        self.holders.update((h, (seat, self.epochs - 1)) for h, seat in to.items())
        self._note({"kind": "deal", "to": dict(to)})

    def check_claim(
        self, index: int, seat: int, handles: Sequence[int], sets: Sequence[Sequence[Card]], proof: Any
    ) -> str | None:
        """A hidden claim (a Cal's BS quads lead) checked as every seat checked it: the cards are
        the seat's, of the hand in progress, and the proof it signed holds over their public
        points (Party.check_claim)."""
        if self.game_id is None or self.cards is None:
            raise _NeedsFaces("a hidden claim (not every nonce was revealed)")
        if len(set(handles)) != len(handles):
            return "a claim names a card twice"
        for handle in handles:
            if self.holders.get(handle) != (seat, self.epochs - 1):
                return f"card {handle} is not held by seat {seat}"
        if any(h not in self.cards.points for h in handles):
            raise _NeedsFaces("a hidden claim (a card's point is not known from the passes)")
        table = self.cards.table_points(sets)
        if table is None:
            return "a claimed face is not a card of this deck"
        return claim_refusal(
            self.game_id, index, seat, list(handles), [self.cards.points[h] for h in handles], table, proof
        )

    def _public_entries(self, kind: str, op: int) -> list[Entry]:
        """The public deck entries of message type ``kind`` for operation ``op``, of those a seat
        could act on (Log.closed: one held back never opened anything). Indexed once per size
        the log has (a long match's 30,000 entries were read again at every reveal and
        transfer: issue 31); a log without a size (a spectator's view) is read each time."""
        size = len(self.log) if hasattr(self.log, "__len__") else None
        if size is not None and self._indexed is not None and self._indexed[0] == size:
            return self._indexed[1].get((kind, op), [])
        index: dict[tuple[Any, Any], list[Entry]] = {}
        for e in self.log.closed():
            msg = e.body.get("msg") if isinstance(e.body, dict) else None  # (as public_message)
            if not isinstance(msg, dict):
                continue
            key = (msg.get("type"), msg.get("op"))
            try:
                index.setdefault(key, []).append(e)  # (equal keys as == compares them)
            except TypeError:
                continue  # an unhashable type or op equals no message type or operation
        self._indexed = None if size is None else (size, index)
        return index.get((kind, op), [])

    def reveal(self, handles: Sequence[int], owner: int | None) -> dict[int, Card]:
        """Faces turned up for everyone, from the reveal's signed public openings."""
        if self.cards is None or self.log is None:
            raise _NeedsFaces("a reveal")
        op = self.steps
        self._openings(op, "reveal", {None: sorted(set(handles))}, None)
        self._check_public_openings(op)
        openings = [e.body["msg"] for e in self._public_entries("open", op)]
        try:
            faces = self.cards.opened(handles, openings)
        except NotOpened:
            raise _NeedsFaces("a reveal") from None
        self.steps += 1
        self.shown.update(faces)
        self.public.update(handles)
        self._note({"kind": "reveal", "handles": list(handles)})
        return faces

    def _check_public_openings(self, op: int) -> None:
        """Each public opening of the reveal ``op``, followed as its seat's deck entry, checked
        as every seat checked it as it arrived (deck.party.OpeningReferee: the same code): a
        face proof of a re-handled card that fails, a scalar that does not open its lock, name
        the seat the check names, at every seat alike (public)."""
        if self.referee is None or not self.follows:
            return
        for (sender, receiver), _ in self.referee.expected(op).items():
            entry = self.followed.get((sender, "open", op))
            if receiver is not None or entry is None or not self.referee.knows(op, sender, None):
                continue
            verdict = self.referee.public_opening(op, sender, entry.body["msg"])
            if verdict is not None:
                seats = self.replay.seats if self.replay is not None else []
                number = seats[sender].deck.index(entry) if sender < len(seats) else "?"
                raise Failed(
                    f"deck entry #{number} of seat {sender} (log #{entry.seq}), {self._what('open', op, 'reveal')}",
                    f"{verdict.reason}: its public opening fails the check every seat made as it arrived",
                    verdict.seat,
                )

    def judged(
        self,
        accuser: int,
        accused: int,
        op: int,
        step: str,
        *,
        reuse: Any = None,
        private: tuple[int, Any] | None = None,
    ) -> judge.Verdict | None:
        """The verdict every seat reached on an accusation about operation ``op`` once it had
        reached it, by the same referee (deck.party.OpeningReferee) on the public record:
        ``reuse``, a reused key's evidence; ``private``, (sender, payload) of the signed private
        entry its evidence opens. ``None``: not decided here (the operation not reached, or the
        public record of its cards not followed)."""
        referee = self.referee
        if referee is None or not self.follows or not self.referee_whole:
            return None
        if not referee.opens_cards(op):
            # Reached, and it opened no cards (a shuffle, a coin, a drop-out): deck.md section 6.
            return judge.opens_no_cards(accuser, step, op) if op < self.steps else None
        if reuse is not None:
            return referee.judge_reuse(accuser, accused, op, reuse)
        assert private is not None, "a private opening or a reused key"
        sender, payload = private
        if not referee.knows(op, sender, accuser):
            return None
        return referee.judge_opening(accuser, accused, op, sender, payload)

    def transfer(self, handles: Sequence[int], to: int) -> list[int]:
        op = self.steps
        moved = sorted(set(handles))
        self._openings(op, "transfer", {to: moved}, to)
        self.steps += 1
        new = list(range(self.next, self.next + len(moved)))
        self.next += len(moved)
        for handle in moved:
            self.holders.pop(handle, None)
        self.retired.update(moved)
        self.holders.update((h, (to, self.epochs - 1)) for h in new)
        self._rehandled(op, moved, to, new)
        self._note({"kind": "transfer", "to": to, "handles": list(new)})
        return new

    def _rehandled(self, op: int, moved: list[int], to: int, new: list[int]) -> None:
        """Tell the public cards of the transfer's new handles from the re-handling that its
        receiver ``to`` signed for this operation, if it checks out over the moved cards: the
        game's rules say which transfer it is, which the passes alone do not (a re-handling
        signed for another operation, or by another seat, would number the cards otherwise,
        and an opening through it could decode a handle as another card)."""
        if self.cards is None or self.log is None or self.game_id is None or not new:
            return
        msg = next((e.body["msg"] for e in self._public_entries("rehandle", op) if e.sender == to), None)
        if msg is None or not all(h in self.cards.points for h in moved):
            self.referee_whole = False
            return
        points = [self.cards.points[h] for h in moved]
        try:
            if rehandle_memo(self.game_id, op, to, msg, points) not in self.cards.started:
                check_rehandle(self.game_id, op, to, msg, moved, points, known=self.cards.checked)
        except PassError:
            self.referee_whole = False
            return
        self.cards.rehandled(new[0], msg["points"], msg["key"], moved, to)
        if self.referee is not None:
            self.referee.rehandled(op, to, msg["key"], moved, new[0], msg["points"])

    def drop_out(self, seat: int) -> None:
        """A seat drops out (protocol/deck.md §4.6): one deck operation; its keys of the
        stock open the stock's cards from now on (public_passes gives them to the public
        cards), and later shuffles go on without it."""
        if self.follows and seat not in self.dropped:
            self._sent(seat, None, "drop", self.steps, "drop")
            self._check_drop(seat)
        self.dropped.setdefault(seat, self.steps)
        self.steps += 1

    def _check_drop(self, seat: int) -> None:
        """The drop-out message ``seat`` signed, checked as every seat checked it as it arrived
        (deck.party.OpeningReferee._check_drop): the keys of exactly the cards of the hand in
        progress nobody holds and nobody has seen (Party.drop_shares), each behind its lock."""
        op = self.steps
        entry = self.followed.get((seat, "drop", op))
        if self.referee is None or not self.referee_whole or entry is None or not self.epochs:
            return
        first = (self.epochs - 1) * self.n
        shares = [
            h
            for h in range(first, first + self.n)
            if h not in self.holders and h not in self.public and h not in self.retired
        ]
        if not all(h in self.referee.cards_by_handle for h in shares):
            return
        verdict = self.referee.public_drop(op, seat, shares, entry.body["msg"])
        if verdict is not None:
            number = self.replay.seats[seat].deck.index(entry) if self.replay is not None else "?"
            raise Failed(
                f"deck entry #{number} of seat {seat} (log #{entry.seq}), {self._what('drop', op, 'drop')}",
                f"{verdict.reason}: its drop-out message fails the check every seat made as it arrived",
                verdict.seat,
            )

    def known(self, seat: int) -> Mapping[int, Card]:
        """The faces ``seat`` knew that the file shows: those turned up for everyone (its own
        face-down cards are in boxes only its key opens)."""
        return dict(self.shown)

    def open_all(self) -> dict[int, Card]:
        raise _NeedsFaces("the audit")


def public_setup(log: Any, lobby: TableHeader, game: Game) -> None:
    """The checks every seat makes on the public deck messages that need no seed (protocol/deck.md
    section 2): each is a map of a known type; a seat's first is its commitment, two 32-byte
    values; its second, if a nonce, opens the nonce commitment. A signed message that fails them
    is its signer's fault, as it was at the table."""
    context = deck_context(lobby, game)
    for seat in range(lobby.players):
        deck = [e for e in log.entries(seat) if e.kind == "deck"]
        for index, entry in enumerate(deck):
            if recipients(entry.body):
                continue  # private: only its recipients can read it
            msg = entry.body.get("msg") if isinstance(entry.body, dict) else None
            what = f"deck entry #{entry.seq} of seat {seat}"
            if not isinstance(msg, dict) or msg.get("type") not in MESSAGE_TYPES:
                raise Failed(what, "a public deck message of no known type", seat)
            if index == 0 and not (
                msg["type"] == "commit" and _is_hash(msg.get("seed")) and _is_hash(msg.get("nonce"))
            ):
                raise Failed(
                    what, "its first deck message is not a commitment to a seed and a nonce (32 bytes each)", seat
                )
            if index == 1 and msg["type"] == "nonce":
                nonce = msg.get("nonce")
                if not _is_hash(nonce) or nonce_commitment(context, seat, nonce) != deck[0].body["msg"]["nonce"]:
                    raise Failed(what, "its nonce does not open its signed commitment", seat)


def _is_hash(value: Any) -> TypeGuard[bytes]:
    return isinstance(value, bytes) and len(value) == 32


@contextmanager
def _after(passes: Pending) -> Iterator[None]:
    """The block's outcome, unless a pass's check (started before it) failed: then that."""
    try:
        yield
    except Exception:
        passes.first_failure()
        raise
    except BaseException:  # (an interrupt: the checks' verdicts are not wanted)
        passes.cancel()
        raise
    passes.first_failure()


def public_moves(
    replay: Replay, lobby: TableHeader, game: Game, report: Report, *, unrevealed: Sequence[int] = ()
) -> tuple[Result, dict[int, Card]] | None:
    """Without every seed: replay the signed moves with the game's public rules (turn order,
    handles held, every public check) as far as no face is needed. ``unrevealed``: the seats
    that never signed their stop, bye or result (:func:`~p2pcards.table.verdict.ended_its_game`;
    the name is from when they revealed a seed instead). Returns the game's result and every face turned up for
    everyone if the replay reached its end (only the audit, which needs the hidden faces, is
    left), else ``None``."""
    n = len(game.deck(lobby.options, lobby.players))
    cards, passes = start_passes(replay.log, lobby, game)
    follow = getattr(replay.watch, "follow_passes", None)  # (a progress bar: check.py)
    if follow is not None:
        follow(passes)
    if getattr(replay.watch, "shows_moves", replay.watch is not None):
        passes.first_failure()  # (a watch is shown the moves: none past a pass that fails)
    deck = PublicHandles(n, public_game_id(replay.log, lobby, game), replay.log, cards, replay)
    bots = [SignedMoves(game, s, lobby.options, replay) for s in range(lobby.players)]
    moved_at = [-1]  # deck steps before the last move
    observe = replay.moved

    def moved(state: Any, seat: int, action: Action, known: Mapping[int, Card]) -> None:
        observe(state, seat, action, known)
        moved_at[0] = deck.steps

    replay.moved = moved  # type: ignore[method-assign]
    replay.replica = Replica(game, lobby.options, lobby.players, claims=deck.check_claim)
    replay.known_of = deck.known
    stop: Stopped | None = None
    ended: list[Result] = []

    def on_step(step: Any) -> None:
        if isinstance(step, Done):
            ended.append(step.result)
        replay.show(step)

    try:
        # The passes' proofs are checked meanwhile, on the other cores: their verdict comes
        # first, before anything the replay of the moves found.
        with _after(passes):
            deck.setup()
            play(
                game,
                lobby.options,
                lobby.players,
                deck,
                bots,
                check_own=False,
                round_order=replay.round_order,
                replica=replay.replica,
                on_step=on_step,
                prove_claims=False,
            )
    except _Unfollowed as exc:
        report.notes.append(
            f"the public replay stops at turn {replay.turn}: {exc} (a deviation only the deck seeds could judge)"
        )
        replay.pending = None
        ended.clear()
    except _NeedsFaces as exc:
        if not ended:
            report.notes.append(f"the public replay stops at turn {replay.turn}: {exc} needs the faces of cards")
        replay.pending = None
    except Stopped as exc:
        stop = exc
    except PlayerError as exc:
        raise illegal_move(replay.turn, exc.seat, exc.reason) from None
    except Failed:
        raise
    except Exception as exc:
        seat: int | None
        turn, seat = replay.pending or (replay.turn, None)
        plugin_failed(exc, game, turn)
        raise Failed(f"turn {turn}", f"the replay stopped: {type(exc).__name__}: {exc}", seat) from None
    report.checked["moves"] = replay.turn
    out_of_turn(replay, replay.seats)
    if stop is not None and stopped_while_others_did_not(replay, stop.seat, unrevealed):
        report.notes.append(
            f"the game stopped at turn {replay.turn}, waiting for {replay.names[stop.seat]}, "
            f"which signed its stop instead; "
            f"{', '.join(replay.names[s] for s in unrevealed)} never signed theirs "
            f"(gone, or a lost connection: the transcript cannot tell which)"
        )
        stop = None
    if stop is not None and stop.seat in unrevealed:
        # The seat the game waited on never signed its stop (or bye), as every seat does when
        # its game stops: gone, or the seat that wrote this file was cut off from it; the file
        # tells which only when it alone signed neither (protocol/table.md section 5).
        left = signed_goodbye(replay.log, replay.names)
        if left is not None:
            raise left
        stopped_by_accusation(replay.seats, stop.step, replay.cards)
        if statements_on(replay, stop) is not None or statement_owed(replay, stop.seat) is not None:
            # Stated absent by some seats, not all: the statements were to decide on its move,
            # and the game stopped on them (table/stall.py), as the seats that stated did.
            raise stall_verdict(replay, stop)
        if verdict.left_without_stop(stop.seat, unrevealed, lobby.players):
            raise Failed(
                stop.step,
                f"the game stopped waiting for {replay.names[stop.seat]}'s "
                f"{stop.what}, which it never signed, and it never signed its stop "
                f"as every seat does when a game stops: it left the table",
                stop.seat,
            )
        others = [replay.names[s] for s in unrevealed if s != stop.seat]
        report.notes.append(
            f"the game stopped at turn {replay.turn}, waiting for {replay.names[stop.seat]}, which "
            f"never signed its stop; "
            + (f"neither did {', '.join(others)}" if others else "only one other seat signed its stop")
            + ": gone, or the seat that wrote this file was cut off from the others (one file "
            "cannot tell which)"
        )
        stop = None
    if stop is not None and deck.follows:
        # Every deck step so far was followed entry by entry: where the entries end is judged
        # by the stop rules (verify/stops.py).
        after_stop(replay, replay.seats, stop)
        stopped_by_accusation(replay.seats, stop.step, replay.cards)
        raise stall_verdict(replay, stop)
    if stop is not None and moved_at[0] == deck.steps:
        stopped_by_accusation(replay.seats, stop.step, replay.cards)
        # The turn came right after a signed move, with no deck step between: every other
        # seat had what it needed; this one never signed its move.
        raise stall_verdict(replay, stop)
    if stop is None and ended:
        return ended[0], deck.shown  # a goodbye after the game's end changes nothing
    left = signed_goodbye(replay.log, replay.names)
    if left is not None and (stop is not None or not ended):  # (a goodbye after the end: nothing)
        raise left
    if stop is not None:
        report.notes.append(
            f"the game stopped at turn {replay.turn}, waiting for "
            f"{replay.names[stop.seat]} after a deck step that cannot be "
            f"checked without every seed"
        )
    return (ended[0], deck.shown) if ended and stop is None else None


def check_deck_ends(replay: Replay, seats: Sequence[SeatEntries]) -> None:
    """At the end of a finished game, every seat's deck entries were followed to the last
    operation (seedless.PublicHandles): an accusation kept aside for an operation never reached
    names its accuser, and a deck entry past them names its seat (no seed is revealed since
    protocol version 12: a ``seed`` there is one more message the protocol never called for)."""
    for accuser, entry in replay.kept_aside:  # never reached: every seat judged it at the audit
        raise judged(entry, judge.opens_no_cards(accuser, entry.body["msg"]["step"], entry.body["msg"]["op"]))
    for mine in seats:
        if mine.boxes_left:
            entry = mine.deck[mine.next_deck]
            raise Failed(
                f"deck entry #{mine.next_deck} of seat {mine.seat} (log #{entry.seq})",
                f"private messages to {describe_seats(mine.boxes_left)} the protocol never called for",
                mine.seat,
            )
        rest = mine.deck[mine.next_deck :]
        if rest:
            entry = rest[0]
            raise Failed(
                f"deck entry #{mine.deck.index(entry)} of seat {mine.seat} (log #{entry.seq})",
                "a deck message the protocol never called for",
                mine.seat,
            )
