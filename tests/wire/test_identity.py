import hashlib
import os
import stat
from pathlib import Path

import pytest

from p2pcards.wire.identity import (
    IDENTITY_FILE,
    Identity,
    IdentityError,
    TableWords,
    data_dir,
    fingerprint,
    load_or_create_identity,
    new_words_nonce,
    open_table_words,
    table_auth_words,
    words_commitment,
)
from p2pcards.wire.wordlist import WORDS


def test_data_dir_precedence(monkeypatch, tmp_path):
    monkeypatch.delenv("P2PCARDS_HOME", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert data_dir() == tmp_path / "xdg" / "p2pcards"
    monkeypatch.setenv("XDG_DATA_HOME", "relative/path")  # ignored, per the XDG spec
    assert data_dir() == Path.home() / ".local" / "share" / "p2pcards"
    monkeypatch.setenv("P2PCARDS_HOME", str(tmp_path / "home"))
    assert data_dir() == tmp_path / "home"
    assert data_dir(tmp_path / "arg") == tmp_path / "arg"


def test_created_with_mode_0600_and_reused(monkeypatch, tmp_path):
    monkeypatch.setenv("P2PCARDS_HOME", str(tmp_path / "p2p"))
    first = load_or_create_identity()
    path = tmp_path / "p2p" / IDENTITY_FILE
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    second = load_or_create_identity()
    assert second.public == first.public
    assert not [p for p in path.parent.iterdir() if p.name != IDENTITY_FILE]  # no temp files


@pytest.mark.parametrize("mode", [0o640, 0o604, 0o660, 0o644])
def test_refuses_a_file_others_can_access(tmp_path, mode):
    load_or_create_identity(tmp_path)
    path = tmp_path / IDENTITY_FILE
    path.chmod(mode)
    with pytest.raises(IdentityError, match="chmod 600"):
        load_or_create_identity(tmp_path)


def test_damaged_file(tmp_path):
    path = tmp_path / IDENTITY_FILE
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
    os.write(fd, b"garbage")
    os.close(fd)
    with pytest.raises(IdentityError):
        load_or_create_identity(tmp_path)


def test_sign_and_verify():
    me = Identity.generate()
    sig = me.sign(b"data")
    assert me.public.verify(sig, b"data")
    assert not me.public.verify(sig, b"other")
    assert not me.public.verify(b"short", b"data")


def test_fingerprint_shape():
    fp = Identity.generate().fingerprint
    assert len(fp) == 14 and fp[4] == fp[9] == "-"
    assert fingerprint(b"\x00" * 32) != fingerprint(b"\x01" * 32)


def _header(people, table=b"t" * 16):
    return {
        "table": table,
        "game": "highcard",
        "rules": "1",
        "options": {},
        "seats": [
            {
                "name": f"p{i}",
                "ed25519": p.public.ed25519,
                "x25519": p.public.x25519,
                "host": "127.0.0.1",
                "port": 40000 + i,
            }
            for i, p in enumerate(people)
        ],
        "protocol": 2,
        "timeouts": {"deck": 30, "turn": 120, "grace": 60},
    }


def test_auth_words_equal_for_equal_tables_and_differ_on_any_change():
    people = [Identity.generate() for _ in range(3)]
    header = _header(people)
    nonces = [new_words_nonce() for _ in people]
    words = table_auth_words(header, nonces)
    assert len(words) == 5 and all(w in WORDS for w in words)
    assert table_auth_words(dict(header), list(nonces)) == words
    assert table_auth_words(_header(people, b"u" * 16), nonces) != words
    assert table_auth_words(_header(people[::-1]), nonces) != words  # seat order matters
    other = Identity.generate()
    for seat in range(3):
        changed = list(people)
        changed[seat] = other
        assert table_auth_words(_header(changed), nonces) != words
        fresh = list(nonces)
        fresh[seat] = new_words_nonce()
        assert table_auth_words(header, fresh) != words
    assert table_auth_words(header, nonces[::-1]) != words  # a nonce belongs to its seat
    assert len(table_auth_words(header, nonces, count=8)) == 8
    with pytest.raises(ValueError):
        table_auth_words(header, nonces, count=0)


def test_words_commitment_is_a_domain_separated_hash_of_the_nonce():
    nonce = new_words_nonce()
    assert len(nonce) == 32 and new_words_nonce() != nonce
    assert words_commitment(nonce) == hashlib.sha256(b"p2pcards table words commit\x00" + nonce).digest()
    assert words_commitment(nonce) != hashlib.sha256(nonce).digest()
    assert words_commitment(bytes(32)) != words_commitment(b"\x00" * 31 + b"\x01")


def test_open_table_words_gives_the_words_when_every_nonce_opens_its_commitment():
    people = [Identity.generate() for _ in range(4)]
    header = _header(people)
    nonces = [new_words_nonce() for _ in people]
    commits = [words_commitment(n) for n in nonces]
    opened = open_table_words(header, commits, nonces)
    assert opened == TableWords(tuple(table_auth_words(header, nonces)))
    assert opened.problem == "" and opened.seat is None


@pytest.mark.parametrize("seat", [0, 2, 3])
def test_open_table_words_names_the_seat_whose_nonce_does_not_open(seat):
    people = [Identity.generate() for _ in range(4)]
    header = _header(people)
    nonces = [new_words_nonce() for _ in people]
    commits = [words_commitment(n) for n in nonces]
    wrong = list(nonces)
    wrong[seat] = new_words_nonce()
    opened = open_table_words(header, commits, wrong)
    assert opened.words == () and opened.seat == seat
    assert f"seat {seat}'s words nonce does not open its commitment" == opened.problem
    short = list(nonces)
    short[seat] = nonces[seat][:31]
    assert open_table_words(header, commits, short).seat == seat
    missing = list(nonces)
    missing[seat] = None
    opened = open_table_words(header, commits, missing)
    assert (opened.words, opened.seat, opened.problem) == ((), seat, f"seat {seat} did not reveal its words nonce")
    with pytest.raises(ValueError):
        open_table_words(header, commits[:-1], nonces)
