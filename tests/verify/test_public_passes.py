"""verify/passes.py: what a second walk over the same game checks again (a spectator rebuilds
the public cards at every hand: it must not check the finished hands' proofs each time)."""

from __future__ import annotations

from p2pcards.deck import passes
from p2pcards.verify.check import load_game, read_log, table_header
from p2pcards.verify.passes import public_passes


def test_a_second_walk_checks_nothing_already_found_holding(bs_table, monkeypatch):
    transcript, log = read_log(bs_table.path)
    lobby = table_header(transcript)
    game = load_game(lobby)
    checked: set[bytes] = set()
    first = public_passes(log, lobby, game, checked)
    assert first.checked is checked and checked, "what held is kept"
    calls: list[str] = []
    for name in ("verify_relock", "verify_shuffle", "verify_shuffles", "verify_face"):
        real = getattr(passes, name)
        monkeypatch.setattr(
            passes, name, lambda *a, _real=real, _name=name, **k: (calls.append(_name), _real(*a, **k))[1]
        )
    passes._verified.clear()  # (the process's own memo of recent passes: not what is tested)
    again = public_passes(log, lobby, game, checked)
    assert calls == [], calls
    assert again.points == first.points
    # Without the set, every proof is checked again.
    passes._verified.clear()
    public_passes(log, lobby, game)
    assert "verify_relock" in calls and "verify_shuffles" in calls
