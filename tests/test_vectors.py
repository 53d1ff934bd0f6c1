"""The protocol test vectors (protocol/vectors/*.json) against this implementation.

Every vector file is ``{"about": ..., "cases": [{"name", "kind", "input", "expected"}, ...]}``.
For each case the function registered for its ``kind`` (below) recomputes ``expected`` from
``input`` with the implementation (``p2pcards.wire``, ``p2pcards.deck``), running on the way the
checks that only the implementation can make (a box opens with the vector's key, the log accepts
the vector's entries, a transcript reads back). The result must equal ``expected`` exactly.

``scripts/make-vectors`` writes the files with these same functions from its fixed inputs; a test
here checks that the files on disk are what it writes. ``test_every_changed_byte_fails`` changes
single bytes of the expected values (every value once, plus a random sample of positions) and
checks that the comparison fails each time.

Value conventions (also in each file's ``conventions``): hex is lowercase; inside msgpack data a
byte string is written ``{"$bin": "<hex>"}``; JSON numbers with a decimal point are floats, the
others exact integers.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import importlib.machinery
import importlib.util
import json
import random
import re
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any
from unittest import mock

import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from p2pcards import PROTOCOL_VERSION
from p2pcards.cards import Card
from p2pcards.deck import derive, faceproofs, group, passes, proofs, public
from p2pcards.deck import party as party_module
from p2pcards.deck.party import AuditOp, CoinOp, DealOp, DropOp, Party, RevealOp, ShuffleOp, TransferOp
from p2pcards.engine import Replica, is_drop_out, learn
from p2pcards.game import Coin, Deal, Done, Reveal, Shuffle, Transfer, Turn
from p2pcards.wire import framing, sealed, transcript
from p2pcards.wire.identity import (
    Identity,
    PublicIdentity,
    fingerprint,
    open_table_words,
    table_auth_words,
    words_commitment,
)
from p2pcards.wire.log import Log
from p2pcards.wire.messages import (
    Entry,
    Hello,
    genesis_hash,
    handshake_proof,
    make_hello,
    parse_message,
    seat_genesis,
    sign_entry,
)
from p2pcards.wire.wordlist import WORDS

ROOT = Path(__file__).resolve().parent.parent
VECTORS = ROOT / "protocol" / "vectors"
GAME_AREAS = ("games/crazy-eights", "games/cals-bs", "games/calypso", "games/holdem")
AREAS = ("framing", "identity", "entries", "sealed", "deck", "transcript", *GAME_AREAS)

# -- JSON <-> values --------------------------------------------------------------------------


def to_value(j: Any) -> Any:
    """JSON as written in the vectors -> plain wire data ({"$bin": hex} -> bytes)."""
    if isinstance(j, dict):
        if set(j) == {"$bin"}:
            return bytes.fromhex(j["$bin"])
        return {k: to_value(v) for k, v in j.items()}
    if isinstance(j, list):
        return [to_value(v) for v in j]
    return j


def from_value(v: Any) -> Any:
    """Plain wire data -> JSON (bytes -> {"$bin": hex}); map keys keep their order."""
    if isinstance(v, (bytes, bytearray)):
        return {"$bin": bytes(v).hex()}
    if isinstance(v, dict):
        return {k: from_value(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [from_value(x) for x in v]
    return v


def b(h: str) -> bytes:
    return bytes.fromhex(h)


def identity(keys: dict[str, str]) -> Identity:
    return Identity.from_private_bytes(b(keys["ed25519_private"]), b(keys["x25519_private"]))


# -- the checks, one per kind ------------------------------------------------------------------

KINDS: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {}


def kind(name: str):
    def register(fn):
        KINDS[name] = fn
        return fn

    return register


# framing.json


@kind("value")
def _value(inp):
    value = to_value(inp["value"])
    body = framing.encode(value)
    assert framing.encode(framing.decode(body)) == body  # decodes strictly, re-encodes the same
    out = {"encoding": body.hex()}
    if isinstance(value, dict):
        frame = framing.encode_frame(value)
        assert framing.FrameDecoder().feed(frame) == [framing.decode(body)]
        out["frame"] = frame.hex()
    return out


@kind("reencode")
def _reencode(inp):
    # A non-canonical but valid body: accepted, and what is hashed is its canonical encoding.
    decoded = framing.decode(b(inp["body"]))
    return {"canonical": framing.encode(decoded).hex()}


@kind("refuse")
def _refuse(inp):
    refused = False
    try:
        framing.FrameDecoder().feed(b(inp["frame"]))
    except framing.FrameError:
        refused = True
    return {"refused": refused}


# identity.json


@kind("identity")
def _identity(inp):
    me = identity(inp)
    return {
        "ed25519_public": me.public.ed25519.hex(),
        "x25519_public": me.public.x25519.hex(),
        "fingerprint": fingerprint(me.public.ed25519),
    }


@kind("table-words")
def _table_words(inp):
    header, nonces = to_value(inp["header"]), [b(n) for n in inp["nonces"]]
    commits = [words_commitment(n) for n in nonces]
    assert commits[0] == hashlib.sha256(b"p2pcards table words commit\x00" + nonces[0]).digest()
    data = b"p2pcards table words\x00" + framing.encode({"header": header, "nonces": nonces})
    opened = open_table_words(header, commits, nonces, inp["count"])
    assert list(opened.words) == table_auth_words(header, nonces, inp["count"])
    return {
        "commits": [c.hex() for c in commits],
        "hashed": data.hex(),
        "digest": hashlib.sha256(data).hexdigest(),
        "words": list(opened.words),
    }


@kind("word-list")
def _word_list(inp):
    """The table words' list (wire.md appendix A): lowercase ASCII, sorted, index = byte."""
    words = list(WORDS)
    assert len(words) == inp["count"] == len(set(words)) and words == sorted(words)
    assert all(w.isascii() and w.isalpha() and w.islower() for w in words)
    text = "".join(w + "\n" for w in words)
    return {"words": words, "sha256": hashlib.sha256(text.encode()).hexdigest()}


@kind("signature")
def _signature(inp):
    # Ed25519 is deterministic: the same key and message give the same signature.
    me = identity(inp)
    message = b(inp["message"])
    sig = me.sign(message)
    assert me.public.verify(sig, message)
    return {"signature": sig.hex()}


# Ed25519 as wire.md section 3 ("Verifying a signature") pins it: affine arithmetic, slow and
# plain, to check that the rules written there are the ones libsodium applies, and for
# scripts/make-vectors to build signatures on the edges of them.

ED_P = 2**255 - 19
ED_L = 2**252 + 27742317777372353535851937790883648493
ED_D = -121665 * pow(121666, ED_P - 2, ED_P) % ED_P
ED_SQRT_M1 = pow(2, (ED_P - 1) // 4, ED_P)
ED_IDENTITY = (0, 1)
#: y of the points of order 8 (wire.md section 3, little-endian in the encodings).
ED_ORDER_8_Y = tuple(
    int.from_bytes(b(h), "little")
    for h in (
        "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
        "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
    )
)
#: The 7 encodings (bit 255 cleared) that step 2 refuses: y = 0, 1, p - 1, p, p + 1 and order 8.
ED_SMALL_ORDER = tuple(y.to_bytes(32, "little") for y in (0, 1, ED_P - 1, ED_P, ED_P + 1, *ED_ORDER_8_Y))


def ed_add(p1, p2):
    (x1, y1), (x2, y2) = p1, p2
    t = ED_D * x1 * x2 * y1 * y2 % ED_P
    return (
        (x1 * y2 + x2 * y1) * pow(1 + t, ED_P - 2, ED_P) % ED_P,
        (y1 * y2 + x1 * x2) * pow(1 - t, ED_P - 2, ED_P) % ED_P,
    )


def ed_mul(k, point):
    out = ED_IDENTITY
    while k:
        if k & 1:
            out = ed_add(out, point)
        point, k = ed_add(point, point), k >> 1
    return out


def ed_neg(point):
    return (-point[0] % ED_P, point[1])


def ed_decode(data: bytes):
    """RFC 8032 5.1.3 decoding, with y taken as given (a non-canonical y is reduced by the
    caller's choice) and x = 0 with the sign bit set allowed (libsodium's decoding): None if
    no x fits."""
    y, sign = int.from_bytes(data, "little") & ((1 << 255) - 1), data[31] >> 7
    y %= ED_P
    x2 = (y * y - 1) * pow(ED_D * y * y + 1, ED_P - 2, ED_P) % ED_P
    x = pow(x2, (ED_P + 3) // 8, ED_P)
    if (x * x - x2) % ED_P:
        x = x * ED_SQRT_M1 % ED_P
    if (x * x - x2) % ED_P:
        return None
    if x & 1 != sign:
        x = -x % ED_P
    return (x, y)


def ed_encode(point) -> bytes:
    x, y = point
    return (y | (x & 1) << 255).to_bytes(32, "little")


ED_B = ed_decode((4 * pow(5, ED_P - 2, ED_P) % ED_P).to_bytes(32, "little"))


def ed_challenge(r: bytes, a: bytes, message: bytes) -> int:
    return int.from_bytes(hashlib.sha512(r + a + message).digest(), "little") % ED_L


def ed_accepts(public: bytes, message: bytes, sig: bytes) -> bool:
    """wire.md section 3, "Verifying a signature", step by step."""
    if len(sig) != 64 or len(public) != 32:
        return False
    r, s = sig[:32], int.from_bytes(sig[32:], "little")
    cleared = lambda e: e[:31] + bytes([e[31] & 0x7F])  # noqa: E731
    if s >= ED_L or cleared(r) in ED_SMALL_ORDER:  # steps 1 and 2
        return False
    if int.from_bytes(cleared(public), "little") >= ED_P or cleared(public) in ED_SMALL_ORDER:
        return False  # step 3
    a = ed_decode(public)  # step 4
    if a is None:
        return False
    k = ed_challenge(r, public, message)  # step 5
    return ed_encode(ed_add(ed_mul(s, ED_B), ed_neg(ed_mul(k, a)))) == r  # step 6


@kind("signature-check")
def _signature_check(inp):
    """Whether a signature verifies (wire.md section 3: libsodium's rules, which the
    step-by-step reading of them above must agree with)."""
    public, message, sig = b(inp["public"]), b(inp["message"]), b(inp["signature"])
    valid = PublicIdentity(public, bytes(32)).verify(sig, message)
    assert ed_accepts(public, message, sig) == valid
    return {"valid": valid}


# entries.json


@kind("genesis")
def _genesis(inp):
    table, header = b(inp["table"]), to_value(inp["header"])
    hashed = f"p2pcards/{PROTOCOL_VERSION} genesis\x00".encode() + framing.encode({"table": table, "header": header})
    assert hashlib.sha256(hashed).digest() == genesis_hash(table, header)
    return {
        "hashed": hashed.hex(),
        "genesis": genesis_hash(table, header).hex(),
        "seat_genesis": [seat_genesis(table, header, s).hex() for s in inp["seats"]],
    }


@kind("entry")
def _entry(inp):
    entry = sign_entry(
        identity(inp["signer"]),
        table=b(inp["table"]),
        sender=inp["from"],
        seq=inp["seq"],
        kind=inp["kind"],
        prev=b(inp["prev"]),
        body=to_value(inp["body"]),
    )
    assert entry.verify(identity(inp["signer"]).public)
    frame = framing.encode_frame(entry.to_wire())
    assert Entry.from_wire(framing.decode(frame[4:])) == entry
    return {
        "signed_bytes": entry.signed_bytes.hex(),
        "hash": entry.hash.hex(),
        "sig": entry.sig.hex(),
        "frame": frame.hex(),
    }


@kind("log")
def _log(inp):
    roster = [PublicIdentity(b(r["ed25519"]), b(r["x25519"])) for r in inp["roster"]]
    log = Log(b(inp["table"]), to_value(inp["header"]), roster)
    for frame in inp["frames"]:
        entry = parse_message(framing.FrameDecoder().feed(b(frame))[0])
        assert isinstance(entry, Entry) and log.append(entry)
    return {
        "seen": [[count, last.hex()] for count, last in log.seen()],
        "canonical": [e.hash.hex() for e in log.canonical()],
    }


@kind("hello")
def _hello(inp):
    hello = make_hello(
        identity(inp["keys"]),
        name=inp["name"],
        games=inp["games"],
        program=inp["program"],
        protocol=inp["protocol"],
        nonce=b(inp["nonce"]),
    )
    frame = framing.encode_frame(hello.to_wire())
    assert parse_message(framing.decode(frame[4:])) == hello  # its signature verifies
    return {
        "signed_bytes": hello.signed_bytes.hex(),
        "hash": hello.hash.hex(),
        "sig": hello.sig.hex(),
        "frame": frame.hex(),
    }


@kind("auth")
def _auth(inp):
    ours = parse_message(framing.decode(b(inp["own_hello"])[4:]))
    theirs = parse_message(framing.decode(b(inp["peer_hello"])[4:]))
    assert isinstance(ours, Hello) and isinstance(theirs, Hello)
    auth = handshake_proof(identity(inp["keys"]), ours, theirs)
    auth.check(theirs, ours)  # what the peer checks
    signed = b"p2pcards handshake\x00" + ours.hash + theirs.hash
    assert ours.keys.verify(auth.sig, signed)
    return {"signed_bytes": signed.hex(), "sig": auth.sig.hex(), "frame": framing.encode_frame(auth.to_wire()).hex()}


# sealed.json


def _hkdf(shared: bytes, info: bytes) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=info).derive(shared)


@kind("message-key")
def _message_key(inp):
    sender, recipient = identity(inp["sender"]), identity(inp["recipient"])
    aad = sealed.entry_aad(b(inp["table"]), inp["from"], inp["seq"], inp["kind"], inp["to"])
    key = sealed.message_key(sender, recipient.public, aad, i_am_sender=True)
    assert sealed.message_key(recipient, sender.public, aad, i_am_sender=False) == key
    shared = X25519PrivateKey.from_private_bytes(b(inp["sender"]["x25519_private"])).exchange(
        X25519PublicKey.from_public_bytes(recipient.public.x25519)
    )
    info = (
        f"p2pcards/{PROTOCOL_VERSION} sealed\x00".encode()
        + sender.public.x25519
        + recipient.public.x25519
        + hashlib.sha256(aad).digest()
    )
    assert _hkdf(shared, info) == key
    return {
        "aad": aad.hex(),
        "aad_sha256": hashlib.sha256(aad).hexdigest(),
        "shared": shared.hex(),
        "info": info.hex(),
        "key": key.hex(),
    }


@kind("box")
def _box(inp):
    sender, recipient = identity(inp["sender"]), identity(inp["recipient"])
    table, seat, seq, kind_, to = b(inp["table"]), inp["from"], inp["seq"], inp["kind"], inp["to"]
    nonce, payload = b(inp["nonce"]), to_value(inp["payload"])
    # seal() draws its nonce from os.urandom; the vector fixes it.
    with mock.patch.object(sealed, "os", SimpleNamespace(urandom=lambda n: nonce[:n])):
        body = sealed.seal_body(
            sender, table=table, seat=seat, seq=seq, kind=kind_, to=to, recipient=recipient.public, payload=payload
        )
    aad = sealed.entry_aad(table, seat, seq, kind_, to)
    key = sealed.message_key(sender, recipient.public, aad, i_am_sender=True)
    plaintext = framing.encode(payload)
    assert body["box"] == nonce + ChaCha20Poly1305(key).encrypt(nonce, plaintext, aad)
    assert sealed.unseal(recipient, sender.public, body["box"], aad) == plaintext
    assert sealed.open_with_key(key, body["box"], aad) == plaintext
    return {"plaintext": plaintext.hex(), "key": key.hex(), "box": body["box"].hex()}


@kind("boxes")
def _boxes(inp):
    """Private messages to several seats in one entry (wire.md section 8): each box sealed as
    a single one, for its own seat, in ascending seat order."""
    sender = identity(inp["sender"])
    table, seat, seq, kind_ = b(inp["table"]), inp["from"], inp["seq"], inp["kind"]
    items = [(r["to"], identity(r["recipient"]), to_value(r["payload"])) for r in inp["recipients"]]
    nonces = iter(b(r["nonce"]) for r in sorted(inp["recipients"], key=lambda r: r["to"]))
    with mock.patch.object(sealed, "os", SimpleNamespace(urandom=lambda n: next(nonces)[:n])):
        body = sealed.seal_bodies(
            sender,
            table=table,
            seat=seat,
            seq=seq,
            kind=kind_,
            items=[(to, who.public, payload) for to, who, payload in items],
        )
    for to, who, payload in items:
        aad = sealed.entry_aad(table, seat, seq, kind_, to)
        box = dict(body["boxes"])[to]
        assert sealed.unseal(who, sender.public, box, aad) == framing.encode(payload)
    return {"body": framing.encode(body).hex()}


@kind("unusable-key")
def _unusable_key(inp):
    me = identity(inp["keys"])
    peer = PublicIdentity(b(inp["peer_ed25519"]), b(inp["peer_x25519"]))
    try:
        sealed.message_key(me, peer, b"aad", i_am_sender=True)
    except sealed.SealError:
        return {"refused": True}
    return {"refused": False}


@kind("sealed-response")
def _sealed_response(inp):
    """A follower's sealed response to a free-order round (protocol/table.md section 9):
    the seat's secret, the round's nonce and box key, the commitment hash H, and the
    commitment and opening bodies, each recomputed here from the spec's definitions."""
    import hmac

    from p2pcards.table import rounds

    me = identity(inp["keys"])
    table, seat, turn, response = b(inp["table"]), inp["seat"], inp["turn"], to_value(inp["response"])
    label = f"p2pcards/{PROTOCOL_VERSION} response secrets\x00".encode()
    secret = hmac.new(b(inp["keys"]["ed25519_private"]), label, hashlib.sha256).digest()
    assert me.secret(rounds.IDENTITY_LABEL) == secret
    base = hmac.new(
        secret,
        f"p2pcards/{PROTOCOL_VERSION} response round\x00".encode() + framing.encode([table, seat, turn]),
        hashlib.sha256,
    ).digest()
    nonce = hmac.new(base, b"nonce", hashlib.sha256).digest()
    key = hmac.new(base, b"box", hashlib.sha256).digest()
    assert rounds.response_secrets(secret, table, seat, turn) == (nonce, key)
    digest = hashlib.sha256(
        f"p2pcards/{PROTOCOL_VERSION} sealed response\x00".encode()
        + framing.encode([table, seat, turn, response, nonce])
    ).digest()
    assert rounds.seal(table, seat, turn, response, nonce) == digest
    encoded = framing.encode(response)
    plain = len(encoded).to_bytes(2, "big") + encoded
    plain += bytes(-len(plain) % 256)  # padded: the box's length says nothing of the response
    box = ChaCha20Poly1305(key).encrypt(bytes(12), plain, None)
    assert len(box) == 256 + 16
    committed = rounds.sealed_body(secret, table, seat, turn, response)
    assert committed == {"turn": turn, "sealed": digest, "box": box}
    assert rounds.open_box(secret, table, seat, turn, box) == response
    opening = rounds.opening_body(secret, table, seat, turn, response)
    assert opening == {"turn": turn, "open": response, "nonce": nonce}
    return {
        "secret": secret.hex(),
        "nonce": nonce.hex(),
        "box_key": key.hex(),
        "sealed": digest.hex(),
        "commitment_body": framing.encode(committed).hex(),
        "opening_body": framing.encode(opening).hex(),
    }


# deck.json


def parts(typed: list[list[Any]]) -> list[bytes | str | int]:
    out = []
    for t, v in typed:
        out.append(b(v) if t == "bin" else v)
        assert t in ("bin", "str", "int")
    return out


STD_RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
LABEL = re.compile(r"(?:(?:[2-9]|10|[JQKA])[cdhs]|JK)#(?:0|[1-9][0-9]*)")


def std_deck(packs: int, suits: str, jokers: int) -> list[str]:
    """deck.md section 2's standard order, written from the text, not from the code."""
    return [
        f"{rank}{suit}#{pack}" for pack in range(packs) for suit in "cdhs" if suit in suits for rank in STD_RANKS
    ] + [f"JK#{j}" for j in range(jokers)]


@kind("game-deck")
def _game_deck(inp):
    """A bundled game's deck (deck.md section 2): the labels in order, from the installed plugin
    of that rules version; they must be the standard order the table there gives."""
    from p2pcards.plugins import load_plugins

    game = load_plugins().game(inp["game"])
    assert game.rules_version == inp["rules"], "a game's deck order is part of its rules version"
    options = game.resolve_options(inp["options"], inp["players"])
    labels = [c.label() for c in game.deck(options, inp["players"])]
    assert all(LABEL.fullmatch(x) for x in labels) and len(set(labels)) == len(labels)
    assert labels == std_deck(inp["packs"], inp["suits"], inp["jokers"])
    return {"n": len(labels), "labels": labels}


@kind("deck-hash")
def _deck_hash(inp):
    ps = parts(inp["parts"])
    return {"encoding": group.encode_parts([inp["tag"], *ps]).hex(), "H": group.digest(inp["tag"], *ps).hex()}


@kind("deck-prf")
def _deck_prf(inp):
    stream = group.prf_stream(b(inp["key"]), inp["tag"], *parts(inp["parts"]))
    blocks = [next(stream).hex() for _ in range(inp["blocks"])]
    return {"blocks": blocks, "scalar": group.prf_scalar(b(inp["key"]), inp["tag"], *parts(inp["parts"])).hex()}


@kind("uniform-below")
def _uniform_below(inp):
    stream = iter([int(w, 16) for w in inp["words"]])
    value = group.uniform_below(inp["bound"], stream)
    return {"value": value, "words_used": len(inp["words"]) - len(list(stream))}


@kind("setup")
def _setup(inp):
    header, n_seats, labels = b(inp["header"]), inp["players"], inp["labels"]
    seeds = [b(s) for s in inp["seeds"]]
    context = derive.context_digest(header, n_seats, labels)
    nonces = [derive.nonce_of(seed, context) for seed in seeds]
    seed_commits = [derive.seed_commitment(context, i, s) for i, s in enumerate(seeds)]
    nonce_commits = [derive.nonce_commitment(context, i, x) for i, x in enumerate(nonces)]
    game_id = derive.game_id_of(context, seed_commits, nonce_commits, nonces)
    derive.card_table.cache_clear()
    points = derive.card_table(context, tuple(labels))
    assert all(group.is_valid_point(p) for p in points)
    return {
        "context": context.hex(),
        "nonces": [x.hex() for x in nonces],
        "seed_commits": [x.hex() for x in seed_commits],
        "nonce_commits": [x.hex() for x in nonce_commits],
        "game_id": game_id.hex(),
        "card_hashes": [group.digest("card", context, label).hex() for label in labels[: inp["card_hashes"]]],
        "card_points": [p.hex() for p in points],
    }


@kind("secrets")
def _secrets(inp):
    sec = derive.Secrets(b(inp["seed"]), b(inp["game_id"]))
    words = group.words(group.prf_stream(sec.seed, "permutation", sec.game_id, 0))
    return {
        "shuffle_keys": [sec.shuffle_key(e).hex() for e in inp["epochs"]],
        "permutation_words": [f"{next(words):016x}" for _ in range(inp["permutation_words"])],
        "permutations": [sec.permutation(e, inp["n"]) for e in inp["epochs"]],
        "card_keys": [sec.card_key(h).hex() for h in inp["handles"]],
        "rehandle_keys": [sec.rehandle_key(op).hex() for op in inp["rehandles"]],
        "rehandle_factors": [[sec.rehandle_factor(op, j).hex() for j in range(2)] for op in inp["rehandles"]],
        "proof_key": sec.proof_key().hex(),
    }


@kind("public-key")
def _public_key(inp):
    return {"public_key": proofs.public_key(b(inp["scalar"])).hex()}


@kind("coin")
def _coin(inp):
    return {"value": derive.coin_value(b(inp["game_id"]), inp["label"], inp["bound"])}


def _bend(points: list[bytes], bend: str, scalar: bytes) -> list[bytes]:
    """A cheater's change to a pass's output deck (deck.md §5's negative vectors)."""
    points = list(points)
    if bend == "copy":  # position 0's card again at position 1, under another factor
        points[1] = group.multiply(group.prf_scalar(b"\x01" * 32, "copy"), points[0])
    elif bend == "tag":  # position 2 multiplied by a known scalar
        points[2] = group.multiply(group.prf_scalar(b"\x01" * 32, "tag"), points[2])
    elif bend == "substitute":  # a point that is no card of the input
        points[0] = group.multiply(scalar, group.card_point(b"\x00" * 32, "not a card"))
    elif bend == "move":
        points[0], points[1] = points[1], points[0]
    return points


@kind("shuffle-proof")
def _shuffle_proof(inp):
    """A shuffle pass over the card points of ``labels`` and its proof; ``bend`` changes the
    output deck (the honest proof is kept) or the key or context it is checked with."""
    deck = [group.card_point(b(inp["context"]), label) for label in inp["labels"]]
    scalar, perm, context = b(inp["scalar"]), inp["perm"], b(inp["context"])
    outputs = group.multiply_many([scalar] * len(deck), [deck[i] for i in perm])
    key = proofs.public_key(scalar)
    proof = proofs.prove_shuffle(context, deck, outputs, key, scalar, perm, b(inp["nonce_key"]))
    bend = inp["bend"]
    shown = _bend(outputs, bend, scalar)
    if bend == "wrong key":
        key = proofs.public_key(group.prf_scalar(b"\x01" * 32, "other key"))
    check_context = context + b"!" if bend == "wrong context" else context
    try:
        proofs.verify_shuffle(check_context, deck, shown, key, proof)
        valid = True
    except proofs.InvalidProof:
        valid = False
    return {
        "inputs": [x.hex() for x in deck],
        "outputs": [x.hex() for x in shown],
        "key": key.hex(),
        "checked_context": check_context.hex(),
        "proof": from_value(proof),
        "valid": valid,
    }


@kind("relock-proof")
def _relock_proof(inp):
    """A re-lock pass (``outputs[j] = (x_j / k) * inputs[j]``, ``keys[j] = x_j * B``, proven
    against ``K = k * B``) and its proof, bent like a shuffle's."""
    deck = [group.card_point(b(inp["context"]), label) for label in inp["labels"]]
    k, context = b(inp["shuffle_key"]), b(inp["context"])
    card_keys = [b(x) for x in inp["card_keys"]]
    scalars = [group.mul(x, group.invert(k)) for x in card_keys]
    outputs = group.multiply_many(scalars, deck)
    keys = [proofs.public_key(x) for x in card_keys]
    proof = proofs.prove_relock(context, deck, outputs, proofs.public_key(k), keys, scalars, b(inp["nonce_key"]))
    bend = inp["bend"]
    shown = _bend(outputs, bend, scalars[0])
    if bend == "wrong key":
        keys = [proofs.public_key(group.prf_scalar(b"\x01" * 32, "other key"))] + keys[1:]
    try:
        proofs.verify_relock(context, deck, shown, proofs.public_key(k), keys, proof)
        valid = True
    except proofs.InvalidProof:
        valid = False
    return {
        "inputs": [x.hex() for x in deck],
        "outputs": [x.hex() for x in shown],
        "shuffle_public_key": proofs.public_key(k).hex(),
        "keys": [x.hex() for x in keys],
        "proof": from_value(proof),
        "valid": valid,
    }


def deck_point_valid(point: bytes) -> bool:
    """deck.md section 1 read plainly: 32 bytes, canonical, on the curve, not of small order, in
    the prime-order subgroup ([L]P is the identity)."""
    if len(point) != 32:
        return False
    cleared = point[:31] + bytes([point[31] & 0x7F])
    if int.from_bytes(cleared, "little") >= ED_P or cleared in ED_SMALL_ORDER:
        return False
    decoded = ed_decode(point)
    return decoded is not None and ed_mul(ED_L, decoded) == ED_IDENTITY


@kind("point-check")
def _point_check(inp):
    point = b(inp["point"])
    valid = group.is_valid_point(point)
    assert deck_point_valid(point) == valid
    return {"valid": valid}


@kind("scalar-check")
def _scalar_check(inp):
    try:
        group.check_scalar(b(inp["scalar"]))
        return {"valid": True}
    except group.InvalidScalar:
        return {"valid": False}


@kind("pass-check")
def _pass_check(inp):
    """A shuffle pass over card points, honest, or with one thing changed after its proof was
    made (deck.md section 4.1: the checks every seat makes as a pass arrives)."""
    context, game_id, op, seat = b(inp["context"]), b(inp["game_id"]), inp["op"], inp["seat"]
    deck = [group.card_point(context, label) for label in inp["labels"]]
    scalar, perm = b(inp["scalar"]), inp["perm"]
    outputs = group.multiply_many([scalar] * len(deck), [deck[i] for i in perm])
    message = passes.make_shuffle(game_id, op, seat, deck, outputs, scalar, perm, b(inp["nonce_key"]))
    bend = inp["bend"]
    if bend == "repeated point":
        message["points"][1] = message["points"][0]
    elif bend == "a point of 31 bytes":
        message["points"][2] = message["points"][2][:31]
    elif bend == "a point of small order":
        message["points"][3] = b(inp["small_order_point"])
    elif bend == "an extra field":
        message["note"] = "hi"
    elif bend == "no key":
        del message["key"]
    elif bend == "another op":
        op += 1
    try:
        passes.check_pass(game_id, op, "shuffle", seat, message, deck, {})
        valid = True
    except passes.PassError:
        valid = False
    return {"inputs": [x.hex() for x in deck], "message": framing.encode(message).hex(), "valid": valid}


@kind("rehandle-check")
def _rehandle_check(inp):
    """A re-handling (deck.md section 4.2, transfer) of the cards ``handles`` whose points are
    the card points of ``labels``, honest or bent; checked as every seat checks it."""
    context, game_id, op, seat = b(inp["context"]), b(inp["game_id"]), inp["op"], inp["seat"]
    handles, moved = inp["handles"], [group.card_point(context, label) for label in inp["labels"]]
    factors = [b(f) for f in inp["factors"][: len(handles)]]
    message, _ = passes.make_rehandle(game_id, op, seat, handles, moved, b(inp["scalar"]), factors, b(inp["nonce_key"]))
    bend = inp["bend"]
    stranger = group.card_point(b"\x00" * 32, "not a card")
    if bend == "other handles named":
        message["moved"] = [h + 1 for h in handles]
    elif bend == "points not sorted":
        message["sorted"] = message["sorted"][::-1]
    elif bend == "a point substituted":
        message["sorted"][0] = group.multiply(b(inp["scalar"]), stranger)
        message["sorted"].sort()
    elif bend == "a card substituted after its factor":
        message["points"][0] = group.multiply(factors[0], stranger)
    elif bend == "two factor proofs swapped":
        message["factors"][:2] = message["factors"][1::-1]
    elif bend == "another key":
        message["key"] = proofs.public_key(group.prf_scalar(b"\x01" * 32, "other key"))
    try:
        passes.check_rehandle(game_id, op, seat, message, handles, moved)
        valid = True
    except passes.PassError:
        valid = False
    return {"moved_points": [x.hex() for x in moved], "message": framing.encode(message).hex(), "valid": valid}


@kind("face-proof")
def _face_proof(inp):
    """A face proof (deck.md section 5.3): ``point = x * F`` for the card point ``F`` of
    ``label``, in the context of a public reveal (game, operation, handle, holder); bent by
    checking it against another face, another handle or holder, or with its scalars swapped."""
    game_id, x = b(inp["game_id"]), b(inp["scalar"])
    face = group.card_point(b(inp["context"]), inp["label"])
    point = group.multiply(x, face)
    context = public.face_context(game_id, inp["op"], inp["handle"], inp["seat"])
    proof = faceproofs.prove_face(context, point, face, x, b(inp["nonce_key"]))
    bend = inp["bend"]
    checked, shown = context, face
    if bend == "another face":
        shown = group.card_point(b(inp["context"]), "2c#0")
    elif bend == "another handle":
        checked = public.face_context(game_id, inp["op"], inp["handle"] + 1, inp["seat"])
    elif bend == "another holder":
        checked = public.face_context(game_id, inp["op"], inp["handle"], inp["seat"] + 1)
    elif bend == "scalars swapped":
        proof = proof[::-1]
    try:
        faceproofs.verify_face(checked, point, shown, proof)
        valid = True
    except proofs.InvalidProof:
        valid = False
    return {
        "context": context.hex(),
        "face": face.hex(),
        "point": point.hex(),
        "proof": [x.hex() for x in proof],
        "valid": valid,
    }


@kind("set-proof")
def _set_proof(inp):
    """A set claim proof (deck.md section 5.4): the cards ``cards`` (labels, each under its
    scalar) lie in one of the sets ``sets`` (lists of labels), in the context of move ``index``
    by ``seat`` over ``handles``; bent by checking it with a card of another set, a joker, at
    another move, for another seat, or over the cards in another order."""
    table, game_id = b(inp["context"]), b(inp["game_id"])
    sets = [[group.card_point(table, label) for label in each] for each in inp["sets"]]
    faces = [group.card_point(table, label) for label in inp["cards"]]
    xs = [b(x) for x in inp["scalars"]]
    points = [group.multiply(x, face) for x, face in zip(xs, faces)]
    chosen = inp["chosen"]
    names = inp["sets"][chosen]
    openings = [(names.index(label), x) for label, x in zip(inp["cards"], xs)]
    index, seat, handles = inp["index"], inp["seat"], list(inp["handles"])
    context = party_module.claim_context(game_id, index, seat, handles)
    proof = faceproofs.prove_in_one_set(context, points, sets, chosen, openings, b(inp["nonce_key"]))
    bend = inp["bend"]
    checked, shown = context, list(points)
    if bend == "a card of another set":
        shown[0] = group.multiply(xs[0], group.card_point(table, inp["other"]))
    elif bend == "a joker":
        shown[0] = group.multiply(xs[0], group.card_point(table, "JK#0"))
    elif bend == "another move":
        checked = party_module.claim_context(game_id, index + 1, seat, handles)
    elif bend == "another seat":
        checked = party_module.claim_context(game_id, index, seat + 1, handles)
    elif bend == "the cards in another order":
        checked = party_module.claim_context(game_id, index, seat, handles[::-1])
        shown = shown[::-1]
    try:
        faceproofs.verify_in_one_set(checked, shown, sets, proof)
        valid = True
    except proofs.InvalidProof:
        valid = False
    return {
        "claim_context": context.hex(),
        "points": [p.hex() for p in points],
        "proof": framing.encode(proof).hex(),
        "valid": valid,
    }


_STEP_ORDER = ("commit", "nonce", "shuffle", "relock", "open", "rehandle", "drop", "accuse")


def _op_of(name: str, arg: Any):
    if name == "shuffle":
        return ShuffleOp()
    if name == "coin":
        return CoinOp(arg["label"], arg["bound"])
    if name == "deal":
        return DealOp({int(h): s for h, s in arg.items()})
    if name == "reveal":
        return RevealOp(tuple(arg))
    if name == "audit":
        return AuditOp()
    if name == "transfer":
        return TransferOp(tuple(arg["handles"]), arg["to"])
    if name == "drop":
        return DropOp(arg)
    raise ValueError(name)


class _Parties:
    """Every seat's Party in this process, their messages carried as canonical msgpack (as they
    travel), each seat's events kept; ``sent`` records every message as (sender, receiver or
    None for a broadcast, message)."""

    def __init__(self, players: int, header: bytes, cards: list[Card], seeds: list[bytes]):
        self.parties = [
            Party(s, players, header, cards, seeds[s], multiply_many=group.multiply_many) for s in range(players)
        ]
        self.sent: list[tuple[int, int | None, dict[str, Any]]] = []
        self.events: list[list[Any]] = [[] for _ in self.parties]
        self._queue: list[tuple[int, int, bytes]] = []
        for s, p in enumerate(self.parties):
            self._handle(s, p.start())
        self._run()

    def _handle(self, seat: int, output: Any) -> None:
        self.events[seat] += output.events
        for send in output.sends:
            self.sent.append((seat, send.to, send.message))
            data = framing.encode(send.message)
            for to in range(len(self.parties)) if send.to is None else [send.to]:
                if to != seat:
                    self._queue.append((seat, to, data))

    def _run(self) -> None:
        while self._queue:
            sender, to, data = self._queue.pop(0)
            self._handle(to, self.parties[to].receive(sender, framing.decode(data)))

    def run_op(self, op: Any) -> list[Any]:
        """Begin ``op`` at every seat and carry the messages until none is left; each seat's
        ``OpDone`` of it."""
        playing = [s for s, p in enumerate(self.parties) if s not in p.dropped]  # deck.md 4.6
        index = len(self.parties[playing[0]].ops)
        for s in playing:
            self._handle(s, self.parties[s].begin(op))
        self._run()
        assert all(p.blame is None for p in self.parties), [p.blame for p in self.parties]
        done = [[e for e in self.events[s] if type(e).__name__ == "OpDone" and e.index == index] for s in playing]
        assert all(len(d) == 1 for d in done), f"operation {index} did not complete at every seat"
        return [d[0] for d in done]

    def ordered_messages(self) -> list[tuple[int, int | None, dict[str, Any]]]:
        """Every message sent, in the vectors' order (protocol/README.md): by operation (-1 for
        the messages that carry none: commit, nonce), then step (commit, nonce, shuffle,
        relock, open, rehandle, drop, accuse), sender, receiver (a broadcast first); ties in
        the order they were sent."""

        def order(item):
            seat, to, message = item
            return (message.get("op", -1), _STEP_ORDER.index(message["type"]), seat, -1 if to is None else to)

        return sorted(self.sent, key=order)


@kind("deck-run")
def _deck_run(inp):
    """Every message of a small game's deck operations, from each seat's Party."""
    n_seats, cards = inp["players"], [Card.from_label(x) for x in inp["labels"]]
    table = _Parties(n_seats, b(inp["header"]), cards, [b(s) for s in inp["seeds"]])
    for name, arg in inp["ops"]:
        table.run_op(_op_of(name, arg))
    assert all(p.blame is None for p in table.parties)
    outcome = []
    for s in range(n_seats):
        done = [e for e in table.events[s] if type(e).__name__ == "OpDone"]
        outcome.append(
            {
                "coins": [e.value for e in done if e.value is not None],
                "faces": {str(h): c.label() for e in done for h, c in sorted(e.faces.items())},
            }
        )
    return {
        "game_id": table.parties[0].game_id.hex(),
        "messages": [
            {"from": seat, "to": to, "message": framing.encode(m).hex()} for seat, to, m in table.ordered_messages()
        ],
        "seats": outcome,
    }


# games/*.json


@functools.cache
def _installed_games() -> Any:
    from p2pcards.plugins import load_plugins

    return load_plugins()


def _label_pairs(faces: Any) -> list[list[Any]]:
    return [[h, faces[h].label()] for h in sorted(faces)]


@kind("game-run")
def _game_run(inp):
    """A whole game at a real table's deck: the game's rules (the installed plugin) replayed
    with the given moves, every deck step carried out by each seat's Party. What comes out is
    the schedule (each deck operation, its number and parameters and what it produced,
    interleaved with the moves), every deck message's hash, the audit's faces and the result:
    what protocol/games/*.md describe."""
    game = _installed_games().game(inp["game"])
    assert game.rules_version == inp["rules"], f"installed {game.id} is rules {game.rules_version}"
    players, options = inp["players"], dict(inp["options"])
    game.check_table_options(options, players)
    cards = list(game.deck(options, players))
    table = _Parties(players, b(inp["header"]), cards, [b(s) for s in inp["seeds"]])
    replica = Replica(game, options, players)
    moves = [(seat, action) for seat, action in inp["moves"]]
    timeline: list[dict[str, Any]] = []
    made = 0  # moves of the vector taken (a drop-out is one, but no move of the game)
    for _ in range(100_000):
        step = replica.next_step()
        op = len(table.parties[0].ops)
        if isinstance(step, Turn):
            assert made < len(moves), "the game asks for more moves than the vector has"
            seat, action = moves[made]
            assert seat == step.seat, f"move {made} is seat {seat}'s, the game asks seat {step.seat}"
            made += 1
            if is_drop_out(action):  # the table's drop-out move (table.md section 4), then DropOp
                replica.turn_drop(seat, action)
                table.run_op(DropOp(seat))
                timeline.append({"turn": len(replica.actions), "seat": seat, "action": action, "op": op})
                continue
            turn = replica.act(seat, action)
            timeline.append({"turn": turn, "seat": seat, "action": action})
        elif isinstance(step, Done):
            done = table.run_op(AuditOp())
            faces = dict(done[0].faces)
            assert all(dict(d.faces) == faces for d in done)
            violations = game.audit(replica.state, replica.actions, faces)
            timeline.append({"op": op, "deck": "audit"})
            break
        elif isinstance(step, Shuffle):
            done = table.run_op(ShuffleOp())
            handles = list(done[0].handles)
            assert all(list(d.handles) == handles for d in done)
            learn(game, replica.state, step, handles)
            timeline.append({"op": op, "deck": "shuffle", "handles": [handles[0], handles[-1]]})
        elif isinstance(step, Coin):
            done = table.run_op(CoinOp(step.label, step.bound))
            value = done[0].value
            assert all(d.value == value for d in done)
            learn(game, replica.state, step, value)
            timeline.append({"op": op, "deck": "coin", "label": step.label, "bound": step.bound, "value": value})
        elif isinstance(step, Deal):
            table.run_op(DealOp(dict(step.to)))
            learn(game, replica.state, step, None)
            timeline.append({"op": op, "deck": "deal", "to": [[h, s] for h, s in step.to.items()]})
        elif isinstance(step, Reveal):
            done = table.run_op(RevealOp(tuple(step.handles), step.owner))
            faces = dict(done[0].faces)
            assert all(dict(d.faces) == faces for d in done)
            learn(game, replica.state, step, faces)
            timeline.append(
                {
                    "op": op,
                    "deck": "reveal",
                    "handles": list(step.handles),
                    "owner": step.owner,
                    "faces": _label_pairs(faces),
                }
            )
        elif isinstance(step, Transfer):
            done = table.run_op(TransferOp(tuple(step.handles), step.to))
            new = list(done[0].handles)
            assert all(list(d.handles) == new for d in done)
            learn(game, replica.state, step, new)
            timeline.append({"op": op, "deck": "transfer", "handles": list(step.handles), "to": step.to, "new": new})
        else:
            raise ValueError(f"{game.id}: a {type(step).__name__} step has no vector form (free order)")
    else:  # pragma: no cover
        raise AssertionError("no result")
    assert made == len(moves), "the vector has moves the game never asked for"
    return {
        "game_id": table.parties[0].game_id.hex(),
        "steps": timeline,
        "faces": _label_pairs(faces),
        "result": step.result.to_wire(),
        "violations": [v.to_wire() for v in violations],
        "messages": [
            {
                "op": m.get("op"),
                "type": m["type"],
                "from": seat,
                "to": to,
                "sha256": hashlib.sha256(framing.encode(m)).hexdigest(),
            }
            for seat, to, m in table.ordered_messages()
        ],
    }


# transcript.json


@kind("transcript")
def _transcript(inp):
    records = [to_value(r) for r in inp["records"]]
    header = transcript.TranscriptHeader.from_wire(records[0])  # checks the genesis hash
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "t.p2pt"
        with transcript.TranscriptWriter.create(path, header) as writer:
            for record in records[1:]:
                if record["type"] == "entry":
                    writer.append_entry(Entry.from_wire(record["entry"]))
                elif record["type"] == "end":
                    writer.write_end(transcript.TranscriptEnd.from_wire(record))
                else:
                    raise ValueError(record["type"])
        data = path.read_bytes()
    read = transcript.read_transcript(data)  # verifies signatures and chains
    assert read.complete and len(read.entries) == len(records) - 2
    out_records, pos = [], len(transcript.MAGIC)
    check = hashlib.sha256(transcript.MAGIC).digest()[:16]
    for record in records:
        body = framing.encode(record, transcript.RECORD_LIMITS)
        length = data[pos : pos + 4]
        assert data[pos + 4 : pos + 4 + len(body)] == body
        check = hashlib.sha256(check + length + body).digest()[:16]
        stored = data[pos + 4 + len(body) : pos + 20 + len(body)]
        assert stored == check
        out_records.append(
            {"length": length.hex(), "body_sha256": hashlib.sha256(body).hexdigest(), "check": stored.hex()}
        )
        pos += 20 + len(body)
    assert pos == len(data)
    return {
        "magic": data[:16].hex(),
        "check_0": hashlib.sha256(data[:16]).digest()[:16].hex(),
        "records": out_records,
        "file_size": len(data),
        "file_sha256": hashlib.sha256(data).hexdigest(),
    }


# -- running the vectors ---------------------------------------------------------------------


def load(area: str) -> dict[str, Any]:
    return json.loads((VECTORS / f"{area}.json").read_text(encoding="utf-8"))


@functools.cache
def _computed(kind_: str, input_json: str) -> Any:
    return KINDS[kind_](json.loads(input_json))


def computed(kind_: str, inp: Any) -> Any:
    """What the check of ``kind_`` computes from ``inp``, once per process (scripts/make-vectors
    writes it; the tests below compare it). Shared: the callers never change it."""
    return _computed(kind_, json.dumps(inp, sort_keys=True))


@functools.cache
def _compute_cached(kind_: str, input_json: str) -> Any:
    # As JSON and back: what the files hold (tuples become lists, int keys strs).
    return json.loads(json.dumps(_computed(kind_, input_json), sort_keys=True))


def compute(case: dict[str, Any]) -> Any:
    return _compute_cached(case["kind"], json.dumps(case["input"], sort_keys=True))


def check_case(case: dict[str, Any]) -> None:
    """Raise AssertionError unless the implementation reproduces ``case["expected"]``."""
    got = compute(case)
    # A plain raise, not an assert: pytest explains a failed ``assert a == b`` with a diff of
    # both sides, which for a whole-game vector takes seconds, once per mutated byte of
    # test_every_changed_byte_fails (8 minutes at pytest's default verbosity).
    if got != case["expected"]:
        raise Mismatch(case["name"], case["expected"], got)


class Mismatch(AssertionError):
    """A case's expected value is not what the implementation computes. Its message, both
    values in full, is written only when shown: test_every_changed_byte_fails raises ten
    thousand, and writing them took most of its time."""

    def __init__(self, name: str, expected: Any, got: Any):
        super().__init__(name)
        self.expected, self.got = expected, got

    def __str__(self) -> str:
        return f"{self.args[0]}: expected {self.expected!r}, got {self.got!r}"


def _all_cases():
    for area in AREAS:
        try:
            cases = load(area)["cases"]
        except FileNotFoundError:  # reported by test_every_area_has_its_file
            continue
        for case in cases:
            yield pytest.param(case, id=f"{area}:{case['name']}")


def test_every_area_has_its_file():
    for area in AREAS:
        data = load(area)
        assert data["cases"], area
        assert "make-vectors" in data["about"] and "bump" in data["about"]
        names = [c["name"] for c in data["cases"]]
        assert len(set(names)) == len(names), f"{area}: duplicate case names"


# One worker computes every case once (``computed``), for these and the two slow tests below.
@pytest.mark.xdist_group("vectors-computed")
@pytest.mark.parametrize("case", list(_all_cases()))
def test_vector(case):
    check_case(case)


def _leaves(value: Any, path: tuple = ()):
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _leaves(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _leaves(v, (*path, i))
    else:
        yield path, value


def _is_hex(s: Any) -> bool:
    return isinstance(s, str) and len(s) % 2 == 0 and len(s) > 0 and all(c in "0123456789abcdef" for c in s)


def mutate(value: Any, rng: random.Random) -> Any:
    """``value`` with one byte changed (hex: one byte of the bytes it stands for; str: one
    character; int: +1 or -1; bool: negated)."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + rng.choice((-1, 1))
    if _is_hex(value):
        raw = bytearray(bytes.fromhex(value))
        raw[rng.randrange(len(raw))] ^= rng.randrange(1, 256)
        return raw.hex()
    if isinstance(value, str) and value:
        i = rng.randrange(len(value))
        return value[:i] + ("x" if value[i] != "x" else "y") + value[i + 1 :]
    if value is None:
        return 0
    return "x"


def _with(obj: Any, path: tuple, value: Any) -> Any:
    """``obj`` with the item at ``path`` replaced by ``value``: the containers along the path
    copied, the rest shared (a whole game's vector has thousands of values to change)."""
    if not path:
        return value
    changed = copy.copy(obj)
    changed[path[0]] = _with(obj[path[0]], path[1:], value)
    return changed


# On the worker of test_vector, whose computed cases it shares (under a second: it was 17 s of
# the slow tier while each failed check wrote out its whole game).
@pytest.mark.xdist_group("vectors-computed")
def test_every_changed_byte_fails():
    """Every expected value of every case changed once (one random byte), plus 300 more random
    (value, byte) positions across all files: the check must fail each time."""
    rng = random.Random(20240610)
    targets = []
    for area in AREAS:
        for case in load(area)["cases"]:
            check_case(case)
            leaves = list(_leaves(case["expected"]))
            assert leaves, case["name"]
            targets += [(area, case, path, value) for path, value in leaves]
    picks = targets + [rng.choice(targets) for _ in range(300)]
    for _area, case, path, value in picks:
        changed = _with(case, ("expected", *path), mutate(value, rng))
        with pytest.raises(AssertionError):
            check_case(changed)
    assert {area for area, *_ in targets} == set(AREAS)


def _load_generator():
    # The generator imports this module as ``test_vectors`` (tests/ on its path): this copy,
    # not a second one, so that it computes each case through the same cache (``computed``).
    sys.modules["test_vectors"] = sys.modules[__name__]
    path = str(ROOT / "scripts" / "make-vectors")
    loader = importlib.machinery.SourceFileLoader("make_vectors", path)
    spec = importlib.util.spec_from_loader("make_vectors", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


@pytest.mark.slow  # generates every vector
@pytest.mark.xdist_group("vectors-computed")
def test_files_are_what_the_generator_writes():
    generator = _load_generator()
    for area, text in generator.render_all().items():
        on_disk = (VECTORS / f"{area}.json").read_text(encoding="utf-8")
        assert on_disk == text, f"{area}.json differs from scripts/make-vectors' output"


def test_vectors_anchor_to_published_keys():
    """The identity vectors use RFC 8032 and RFC 7748 keys: their public keys (and the X25519
    shared secret) are the RFCs' own, so the vectors rest on the primitives' standards."""
    cases = {c["name"]: c for c in load("identity")["cases"]}
    alice, bob = cases["alice"], cases["bob"]
    assert (
        alice["expected"]["ed25519_public"] == "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"
    )  # RFC 8032 test 1
    assert (
        alice["expected"]["x25519_public"] == "8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a"
    )  # RFC 7748 6.1
    assert (
        bob["expected"]["ed25519_public"] == "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c"
    )  # RFC 8032 test 2
    assert bob["expected"]["x25519_public"] == "de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f"
    # RFC 8032 section 7.1, tests 1 and 2: the signatures themselves.
    sigs = [c["expected"]["signature"] for c in load("identity")["cases"] if c["kind"] == "signature"]
    assert sigs == [
        "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555"
        "fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
        "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da0"
        "85ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00",
    ]
    keys = {c["name"]: c for c in load("sealed")["cases"]}["key alice to bob"]
    assert (
        keys["expected"]["shared"] == "4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742"
    )  # RFC 7748 6.1


def test_wire_md_lists_the_table_words():
    """The word list printed in protocol/wire.md (appendix A) is the one the code uses."""
    text = (ROOT / "protocol" / "wire.md").read_text(encoding="utf-8")
    appendix = text.split("## Appendix A. The table words", 1)[1]
    rows = re.findall(r"^    ([0-9a-f]{2})  (.+)$", appendix, re.MULTILINE)
    assert [int(base, 16) for base, _ in rows] == list(range(0, 256, 16))
    assert [w for _, line in rows for w in line.split()] == list(WORDS)


def test_protocol_docs_name_the_current_version():
    """Every domain string written in protocol/ carries PROTOCOL_VERSION, as the code's do, and
    the documents that say which protocol version they describe say this one."""
    for doc in ("README.md", "wire.md", "table.md", "transcript.md", "deck.md"):
        text = (ROOT / "protocol" / doc).read_text(encoding="utf-8")
        assert {int(v) for v in re.findall(r'"p2pcards/(\d+) ', text)} <= {PROTOCOL_VERSION}, doc
        named = {int(v) for v in re.findall(r"\(protocol version (\d+)\)", text)}
        assert named <= {PROTOCOL_VERSION}, doc
    wire = (ROOT / "protocol" / "wire.md").read_text(encoding="utf-8")
    assert f"this document is version {PROTOCOL_VERSION} |" in wire
