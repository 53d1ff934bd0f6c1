"""The ``links`` notice (protocol/wire.md section 4.8, table.md section 5 "Partial partitions"):
every field checked for type and range on receipt, a seat outside the table named as the
sender's fault, another table's notice ignored. Synchronous, no trio."""

from __future__ import annotations

from typing import Any

import pytest

from p2pcards.table.header import Seat, TableHeader
from p2pcards.table.protocol import LinksIn, Named, TableProtocol
from p2pcards.table.timeouts import Timeouts
from p2pcards.wire.identity import Identity
from p2pcards.wire.messages import LinksNotice, parse_message

PLAYERS = 3
IDS = [Identity.generate() for _ in range(PLAYERS)]
TABLE = bytes(range(16, 32))
HEADER = TableHeader(
    TABLE,
    "cals-bs",
    "2",
    {},
    tuple(Seat(f"p{s}", IDS[s].public, "127.0.0.1", 2000 + s) for s in range(PLAYERS)),
    PLAYERS,
    Timeouts(),
)


def notice(**fields: Any) -> dict[str, Any]:
    return {"type": "links", "table": TABLE, "connected": [0, 2], "waits_on": [[2, "away"]], **fields}


def test_a_notice_round_trips() -> None:
    message = LinksNotice(TABLE, (0, 2), ((2, "away"), (0, "statements")))
    assert parse_message(message.to_wire()) == message


def test_a_good_notice_is_handed_to_the_driver() -> None:
    me = TableProtocol(IDS[0], HEADER, HEADER.to_wire(), 0)
    assert me.receive(1, notice(), 0.0) == [LinksIn(1, frozenset({0, 2}), ((2, "away"),))]
    assert me.blames == []


@pytest.mark.parametrize(
    "fields",
    [
        {"connected": [0, -1]},
        {"connected": [0, 16]},
        {"connected": "0,2"},
        {"connected": [True]},
        {"connected": list(range(16)) + [0]},
        {"waits_on": [[2]]},
        {"waits_on": [[2, "away", 1]]},
        {"waits_on": [["2", "away"]]},
        {"waits_on": [[2, "bored"]]},
        {"waits_on": [[2, "aways"]]},
        {"waits_on": [[2, None]]},
        {"waits_on": [[-1, "away"]]},
        {"waits_on": [[2, "away"]] * 17},
        {"waits_on": {"2": "away"}},
        {"table": b"short"},
        {"extra": 1},
    ],
    ids=repr,
)
def test_a_malformed_notice_names_its_sender(fields: dict[str, Any]) -> None:
    me = TableProtocol(IDS[0], HEADER, HEADER.to_wire(), 0)
    effects = me.receive(1, notice(**fields), 0.0)
    assert [type(e) for e in effects] == [Named] and effects[0].seat == 1, effects


@pytest.mark.parametrize("fields", [{"connected": [0, 3]}, {"waits_on": [[5, "away"]]}], ids=repr)
def test_a_seat_beyond_the_table_names_the_sender(fields: dict[str, Any]) -> None:
    me = TableProtocol(IDS[0], HEADER, HEADER.to_wire(), 0)
    effects = me.receive(2, notice(**fields), 0.0)
    assert [type(e) for e in effects] == [Named] and effects[0].seat == 2, effects
    assert "the table has 3 seats" in effects[0].reason


def test_another_tables_notice_is_ignored() -> None:
    me = TableProtocol(IDS[0], HEADER, HEADER.to_wire(), 0)
    assert me.receive(1, notice(table=bytes(16)), 0.0) == []
