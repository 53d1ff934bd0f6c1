import os
import stat
from pathlib import Path

import pytest

from p2pcards.wire.identity import (
    IDENTITY_FILE,
    Identity,
    IdentityError,
    data_dir,
    fingerprint,
    load_or_create_identity,
    table_auth_words,
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


def test_auth_words_equal_for_equal_rosters_and_differ_on_any_change():
    people = [Identity.generate() for _ in range(3)]
    roster = [p.public for p in people]
    table = b"t" * 16
    words = table_auth_words(table, roster)
    assert len(words) == 5 and all(w in WORDS for w in words)
    assert table_auth_words(table, list(roster)) == words
    assert table_auth_words(b"u" * 16, roster) != words
    assert table_auth_words(table, roster[::-1]) != words  # seat order matters
    other = Identity.generate().public
    for seat in range(3):
        changed = list(roster)
        changed[seat] = other
        assert table_auth_words(table, changed) != words
    swapped_x = list(roster)
    swapped_x[0] = type(roster[0])(roster[0].ed25519, other.x25519)
    assert table_auth_words(table, swapped_x) != words
