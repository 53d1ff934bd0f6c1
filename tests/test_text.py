"""printable(): text from peers and files, shown escaped (issue 19)."""

import json

from p2pcards.text import printable, printable_json, unshowable
from p2pcards.wire.errors import ProtocolError, SchemaError
from p2pcards.wire.schema import MapOf, Str


def test_printable_escapes_what_a_terminal_would_act_on():
    assert printable("Ann ♥ Bø \\ ok") == "Ann ♥ Bø \\ ok"  # untouched, backslash included
    assert printable("a\nb\rc\td") == "a\\nb\\rc\\td"
    assert printable("\x1b[2J\x00\x7f\x85") == "\\x1b[2J\\x00\\x7f\\x85"
    assert (
        printable("\u202e\u2066\u200b\u2028\u2029\ue000\ud800") == "\\u202e\\u2066\\u200b\\u2028\\u2029\\ue000\\ud800"
    )
    assert printable("\U000e0041") == "\\U000e0041"
    assert printable(12) == "12"
    assert unshowable(printable("x\u202e\n\x1b")) is None


def test_printable_json_is_the_same_json_without_raw_controls():
    data = {"note": "x\n\u202e\u2028\U000e0041\x1b", "♥": ["ok"]}
    text = printable_json(data, indent=2)
    assert json.loads(text) == data
    assert unshowable(text.replace("\n", "")) is None
    assert "♥" in text


def test_errors_quoting_a_peers_data_are_printable():
    """A map key or a value a peer sent ends up in an error, a log line and a blame reason."""
    try:
        MapOf(Str(64), Str(4), 8).check({"k\nverdict: VERIFIED\x1b[2J": "too long"}, "body")
    except SchemaError as exc:
        assert "\n" not in str(exc) and "\x1b" not in str(exc)
        assert "k\\nverdict: VERIFIED\\x1b[2J" in exc.path
    else:
        raise AssertionError("not refused")
    error = ProtocolError("bob\u202e", "said \r\nverdict: VERIFIED")
    assert str(error) == "bob\\u202e: said \\r\\nverdict: VERIFIED"
    assert error.reason == "said \\r\\nverdict: VERIFIED"


def test_agree_puts_a_story_verb_in_the_person_of_its_subject():
    from p2pcards.game import agree

    assert [agree("bob", v) for v in ("takes", "goes", "was")] == ["takes", "goes", "was"]
    assert [agree("you", v) for v in ("takes", "goes", "was", "is", "tries", "passes", "wins")] == [
        "take",
        "go",
        "were",
        "are",
        "try",
        "pass",
        "win",
    ]


def test_name_seats_names_once_even_when_a_name_holds_a_seat_number():
    from p2pcards.text import name_seats

    names = ["bot (seat 0)", "bot (seat 1)", "carol"]
    assert name_seats("seats 0 and 2 win; seat 1's turn", names) == "bot (seat 0) and carol win; bot (seat 1)'s turn"


def test_a_table_is_called_as_the_lobby_calls_it():
    from p2pcards.text import names_table, table_called

    assert table_called("alice") == "alice's table"
    assert table_called("Friday poker table") == "Friday poker table"
    assert table_called("Bob's Table") == "Bob's Table"
    assert names_table("alice", "alice") and names_table("alice's table", "alice")
    assert not names_table("alic", "alice") and not names_table("alice's", "alice")
