"""The peer's file store of finished hands' deck messages (net/deckstore.py, issue 23): what
was put comes back; a file gone, cut short or altered is a clear StoreError, never a verdict;
a file that cannot be written keeps the hand in memory. And a whole match with the store
damaged under the peers: the audit says it was not completed, names nobody."""

from __future__ import annotations

import os

import pytest

from p2pcards.deck.store import StoreError
from p2pcards.net.deckstore import FileDeckStore

RECORDS = {
    7: {("shuffle", 0): {"type": "shuffle", "op": 7, "points": [b"\x01" * 32], "key": b"\x02" * 32, "proof": [1, 2]}},
    8: {},
    9: {("open", 2): {"type": "open", "op": 9, "handles": [3], "scalars": [[[0, b"\x03" * 32]]], "chains": [[]]}},
}


def test_what_was_put_comes_back(tmp_path):
    store = FileDeckStore(lambda: tmp_path)
    store.put(0, RECORDS)
    store.put(1, {12: {("relock", 1): {"type": "relock", "op": 12}}})
    assert store.get(0) == RECORDS
    assert store.get(1) == {12: {("relock", 1): {"type": "relock", "op": 12}}}
    assert os.listdir(tmp_path) == []  # an anonymous file: nothing left behind
    store.close()


def test_a_damaged_store_is_a_clear_error(tmp_path):
    store = FileDeckStore(lambda: tmp_path)
    store.put(0, RECORDS)
    store.put(1, RECORDS)
    with pytest.raises(StoreError, match="never stored"):
        store.get(2)
    assert store._file is not None
    fd = store._file.fileno()
    os.pwrite(fd, b"\xff", 5)  # altered
    with pytest.raises(StoreError, match="torn or altered"):
        store.get(0)
    size = os.fstat(fd).st_size
    os.ftruncate(fd, size - 3)  # cut short
    with pytest.raises(StoreError, match="cut short"):
        store.get(1)
    store.close()  # gone
    with pytest.raises(StoreError, match="cannot read"):
        store.get(0)


def test_a_store_that_cannot_write_keeps_the_hand_in_memory(tmp_path):
    store = FileDeckStore(lambda: tmp_path / "missing")
    store.put(0, RECORDS)
    assert store.problem is not None
    assert store.get(0) == RECORDS
