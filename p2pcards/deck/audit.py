"""The end-of-game audit: recompute the game from the revealed seeds (protocol/deck.md §7).

With every seed known, each seat's shuffle key, permutations, per-card keys and re-handling
scalars are known, so every pass can be recomputed from the pass before it *as it was received*
and compared byte for byte: the first pass that differs names its author. The faces of every
shuffled handle follow from the permutations alone; a transfer's new handles take the faces of the
cards whose re-handling (recomputed and sorted) they are.

Every pass and re-handling was proven when it arrived (protocol/deck.md §5), so what the audit
adds is that each seat used the keys and permutations its committed seed derives, and the faces.

``full=False`` (the light audit) checks every public key against the derived key (a base-point
multiplication each) and every face this seat decoded during the game against the derived
faces; a mismatch falls back to the full recomputation to find the culprit. Re-handlings are
recomputed in both (a multiplication per moved card).

A finished hand (protocol/deck.md §6) is audited from what the party keeps of it: light, from
the digests of its public keys and re-handlings and its last pass's points; full, from its
messages read back from the party's store. A store that cannot give them back (a file gone,
torn or altered) leaves the full audit incomplete: the light checks are made instead and
``AuditResult.incomplete`` says so. It never names a seat.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

from ..cards import Card
from .derive import Secrets
from .group import InvalidPoint, invert, known_products, mul, parallel_multiply_many, remember_products
from .proofs import public_key
from .store import Record, StoreError

if TYPE_CHECKING:
    from .party import Blame, Party

__all__ = ["AuditResult", "audit", "final_order", "revealed_secrets"]


@dataclass
class AuditResult:
    blame: Blame | None
    faces: Mapping[int, Card] = field(default_factory=dict)
    #: Why the full audit could not be completed (a finished hand's messages unreadable), if so.
    incomplete: str | None = None


def final_order(secrets: list[Secrets], epoch: int, n: int) -> list[int]:
    """The card (index into the deck) at each position of epoch ``epoch``'s final deck: the
    seats' permutations composed in pass order (no multiplication needed)."""
    order = list(range(n))
    for sec in secrets:
        perm = sec.permutation(epoch, n)
        order = [order[i] for i in perm]
    return order


@lru_cache(maxsize=16)
def revealed_secrets(seed: bytes, game_id: bytes) -> Secrets:
    """One Secrets per revealed seed, shared by every audit in this process (the seats that
    verify replays audit the same game; the seeds are public by now)."""
    return Secrets(seed, game_id)


def audit(party: Party, *, full: bool = True) -> AuditResult:
    try:
        return _audit(party, full=full, fallback=True)
    except StoreError as exc:
        problem = f"the full deck audit could not be completed: a finished hand's messages cannot be read ({exc})"
    # The finished hands by what memory keeps of them; the hand in progress, whose messages are
    # in memory, recomputed in full as ever: a deviation in it is named all the same.
    result = _audit(party, full=True, fallback=False, use_store=False)
    if result.incomplete is not None:  # a difference the messages would have placed
        result.incomplete = f"{problem}; the checks of what memory holds found a difference ({result.incomplete})"
    else:
        result.incomplete = f"{problem}; the public keys and the faces were checked instead"
    return result


def _audit(party: Party, *, full: bool, fallback: bool, use_store: bool = True) -> AuditResult:
    """``fallback``: a difference the light checks find is placed by the full audit; without it
    (a finished hand's messages cannot be read) it is noted in ``incomplete``, nobody is named,
    and the faces are the ones the seeds derive. ``use_store`` False: the finished hands are
    checked light (their messages cannot be read), the others as ``full`` says."""
    from .party import Blame, FinishedOp, ShuffleOp, TransferOp, keys_digest, rehandle_digest

    n, game_id = party.n, party.game_id
    # A seat that dropped out never reveals its seed (protocol/deck.md §4.6): its passes and
    # re-handlings were proven as they arrived, and the faces of the hands it shuffled cannot be
    # derived: those hands are "blind", and only their faces opened to all are returned.
    secrets: list[Secrets | None] = [None if seed is None else revealed_secrets(seed, game_id) for seed in party.seeds]
    blind: set[int] = set()
    faces: dict[int, Card] = {}
    points: dict[int, bytes] = {}  # handle -> its point as last recomputed/received
    epoch = -1
    last_shuffle: dict[int, int] = {}  # epoch -> its shuffle operation

    def blame(step: str, seat: int, op: int, reason: str) -> AuditResult:
        """A deviation found by the audit, placed at the operation where it happened (its
        ``op``, and named in the reason) rather than at the audit."""
        if isinstance(party.ops[op], ShuffleOp):
            where = f"shuffle of epoch {sum(isinstance(o, ShuffleOp) for o in party.ops[:op])}"
        else:
            where = "transfer"
        return AuditResult(
            Blame(step, seat, f"audit: {where} (deck operation {op}), the {step} pass of seat {seat}: {reason}", op),
            faces,
        )

    stored: tuple[int, dict[int, Record]] = (-1, {})
    differences: list[str] = []

    def full_audit(what: str) -> AuditResult | None:
        if not fallback:
            differences.append(what)
            return None
        return _audit(party, full=True, fallback=False)

    for op_index, op in enumerate(party.ops):
        hand = party.finished_hand(epoch + (1 if isinstance(op, ShuffleOp) else 0))
        if isinstance(op, FinishedOp) and hand is not None:
            op = hand.transfer(op_index) or op  # a finished hand's transfer, unpacked
        record = party.transcript.get(op_index)
        if record is None and hand is not None and full and use_store:
            if stored[0] != hand.epoch:
                stored = (hand.epoch, party.store.get(hand.epoch))  # StoreError: incomplete
            record = stored[1].get(op_index, {})
        if record is None and hand is None:
            break
        if isinstance(op, ShuffleOp) and record is None:
            # A finished hand, light: its public keys by their digest, its last pass's points.
            assert hand is not None, "a finished hand"
            epoch += 1
            last_shuffle[epoch] = op_index
            base = epoch * n
            shufflers = [secrets[s] for s in party.seats_of(epoch)]
            if None in shufflers:
                blind.add(epoch)
                continue
            derived: list[bytes] = []
            for kind, seat in party.pass_order(epoch):
                sec = secrets[seat]
                assert sec is not None, "every shuffler's seed"
                if kind == "shuffle":
                    derived.append(public_key(sec.shuffle_key(epoch)))
                else:
                    derived += [public_key(sec.card_key(base + j)) for j in range(n)]
            if keys_digest(derived) != hand.keys and (found := full_audit(f"public keys of epoch {epoch}")):
                return found
            order = final_order([s for s in shufflers if s is not None], epoch, n)
            for j, point in enumerate(hand.final_points()):
                faces[base + j] = party.cards[order[j]]
                points[base + j] = point
        elif isinstance(op, ShuffleOp):
            assert record is not None, "a hand not finished, or read back"
            epoch += 1
            last_shuffle[epoch] = op_index
            base = epoch * n
            deck = list(party.table)
            complete = True
            for kind, seat in party.pass_order(epoch):
                message = record.get((kind, seat))
                if message is None:
                    complete = False
                    break
                sec = secrets[seat]
                if sec is None:  # a seat that dropped out: its pass was proven as it arrived
                    blind.add(epoch)
                    deck = message["points"]
                    continue
                if kind == "shuffle":
                    perm = sec.permutation(epoch, n)
                    inputs = [deck[i] for i in perm]
                    scalars = [sec.shuffle_key(epoch)] * n
                    if message["key"] != public_key(sec.shuffle_key(epoch)):
                        return blame(kind, seat, op_index, "public key is not of the derived shuffle key")
                else:
                    inverse = invert(sec.shuffle_key(epoch))
                    scalars = [mul(sec.card_key(base + j), inverse) for j in range(n)]
                    inputs = deck
                    for j, got in enumerate(message["keys"]):
                        if got != public_key(sec.card_key(base + j)):
                            return blame(kind, seat, op_index, f"public key at position {j} is not of the derived key")
                if full:
                    try:
                        expected = parallel_multiply_many(scalars, inputs)
                    except InvalidPoint as exc:  # the previous pass matched, so this is the table
                        raise AssertionError(f"invalid point {exc.index} in a checked deck") from None
                    got_points = message["points"]
                    if len(got_points) != n:
                        return blame(kind, seat, op_index, "wrong number of points")
                    for j, (got, want) in enumerate(zip(got_points, expected)):
                        if got != want:
                            what = "not a permutation of its input under the derived keys"
                            return blame(kind, seat, op_index, f"output position {j} differs: {what}")
                deck = message["points"]
            if complete and epoch not in blind:
                known = [sec for sec in (secrets[s] for s in party.seats_of(epoch)) if sec is not None]
                order = final_order(known, epoch, n)  # card index at each position
                for j in range(n):
                    faces[base + j] = party.cards[order[j]]
                    points[base + j] = deck[j]
        elif isinstance(op, TransferOp) and epoch in blind:
            continue  # proven as it arrived; its faces cannot be derived without every seed
        elif isinstance(op, TransferOp):
            # Always recomputed (light audit too): the faces of the new handles follow from
            # which received card each sorted point is, which only the multiplication tells.
            new = party.rehandled.get(op_index)
            if new is None and hand is not None:
                new = hand.new_handles(op_index)
            if record is None:  # a finished hand, light: the re-handling by its digest
                assert hand is not None, "a finished hand"
                message, kept = None, hand.rehandle(op_index)
            else:
                message, kept = record.get(("rehandle", op.to)), None
            if (message is None and kept is None) or new is None:
                break
            moved = sorted(set(op.handles))
            receiver = secrets[op.to]
            assert receiver is not None, "a hand with a seat's seed missing is blind"
            scalar = receiver.rehandle_key(op_index)
            if message is not None and message["key"] != public_key(scalar):
                return blame("rehandle", op.to, op_index, "public key is not of the derived scalar")
            try:
                inputs = [points[h] for h in moved]
                remembered = known_products(scalar, inputs)  # (verify: made once in the replay)
                if remembered is None:
                    expected = parallel_multiply_many([scalar] * len(moved), inputs)
                    remember_products(scalar, inputs, expected)
                else:
                    expected = remembered
            except InvalidPoint as exc:  # a final deck's point (re-handled ones here are recomputed)
                handle = moved[exc.index]
                kind, seat = party.pass_order(handle // n)[-1]
                return blame(kind, seat, last_shuffle[handle // n], f"invalid point at position {handle % n}")
            order = sorted(range(len(moved)), key=expected.__getitem__)
            # Then each card by a factor of its own, in place (deck protocol 3).
            factors = [receiver.rehandle_factor(op_index, j) for j in range(len(moved))]
            final = parallel_multiply_many(factors, [expected[i] for i in order]) if moved else []
            if kept is not None and rehandle_digest(public_key(scalar), final) != kept:
                if found := full_audit(f"the re-handling of deck operation {op_index}"):
                    return found
            for j, (handle, i) in enumerate(zip(new, order)):
                if message is not None and (message["sorted"][j] != expected[i] or message["points"][j] != final[j]):
                    what = "not a re-handling of the cards received (a substituted card)"
                    return blame("rehandle", op.to, op_index, f"position {j}: {what}")
                points[handle] = final[j]
                if moved[i] in faces:
                    faces[handle] = faces[moved[i]]

    # The faces this seat decoded during the game must be the derived ones.
    seen = [(h, c, True) for h, c in party.finished_faces()] + [(h, c, False) for h, c in party.known.items()]
    noted = False
    for handle, card, finished in seen:
        if faces.get(handle) == card or party.hand_of_handle(handle) in blind:
            continue
        what = f"handle {handle} decoded as {card}, derived as {faces.get(handle)}"
        if full and not (finished and not use_store):
            return AuditResult(Blame("audit", party.seat, what), faces)
        if not noted:  # checked light: the full audit places it, or it is noted (once)
            noted = True
            if found := full_audit(what):
                return found
    if blind:  # the same at every seat: faces opened to all
        faces.update((h, c) for h, c in party.public_faces.items() if party.hand_of_handle(h) in blind)
    return AuditResult(None, faces, "; ".join(differences) or None)
