"""A player who quits while the table stalls (issue 28, "verify takes the first signed bye").

Seat 1 hangs (a frozen client: it signs nothing more, its links stay up). The seats that wait
on it stop at their timeout, naming it (seat 0 first: its client waits half as long); a player
at seat 3 quits as soon as another seat's ``stop`` reaches it (its own timeout has not come
yet), signing a ``bye``. A seat whose game
stopped on the staller before that goodbye came keeps its own verdict (the first reason stays);
``verify`` used to name the quitter from that seat's file (the goodbye comes first of its
rules), whichever seat wrote it. A goodbye that another seat's ``stop`` entry does not count
now names nobody (table/verdict.py's goodbye_overtaken): the file cannot say which seat wrote
it, and the goodbye ended the game only where it came first. run_table checks that each honest
seat's live verdict agrees with verify's on its file; here, also that verify never names the
quitter from the file of a seat that stopped without its goodbye.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from p2pcards.net.peer import Peer
from p2pcards.wire.messages import Entry

from .adv_table import run_table, verify
from .cheaters import Cheater
from .faults import TIMEOUTS, HangsAt, _Leaves

pytestmark = pytest.mark.slow  # whole tables on the mental-poker deck

STALLER, QUITTER, FIRST = 1, 3, 0


class Hangs(HangsAt):
    at = 8


class Impatient(Peer):
    """An honest seat that waits half as long as the header says before it stops (its own
    client's setting): its stop comes first, so that the quitter sees it before its own."""

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.timings = replace(self.timings, deck=self.timings.deck / 2, turn=self.timings.turn / 2)


class QuitsWhenAnotherStops(Cheater):
    """Not a cheater: a player who quits (a signed goodbye) when another seat's ``stop`` entry
    reaches it, before its own game has stopped."""

    deviation = "none (quits once another seat stopped)"
    leaves = _Leaves(True)

    async def dispatch(self, entry: Entry) -> Any:
        if entry.kind == "stop" and entry.sender != self.seat and not self.cheated and self.aborted is None:
            self.cheated = True
            await self.say_goodbye("quit: the table stalled")
        return await super().dispatch(entry)


def test_a_player_who_quits_while_the_table_stalls_is_not_named_from_a_file_that_stopped_first(tmp_path):
    for attempt in range(4):
        run = run_table(
            "cals-bs",
            4,
            {"match_target": 1},
            cheater=STALLER,
            peer_factory=Hangs,
            transcript_dir=tmp_path / str(attempt),
            timeouts=TIMEOUTS,
            seed=attempt,
            others={FIRST: Impatient, QUITTER: QuitsWhenAnotherStops},
        )
        quitter = run.outcomes.get(QUITTER)
        if quitter is not None and quitter.peer.cheated:
            break
        if run.cheater_peer is not None and run.cheater_peer.cheated and quitter is None:
            # (cancelled as a seat that leaves: it quit; its peer is gone with it)
            break
    else:
        pytest.skip("the quitter never saw another seat's stop before its own")
    info = run.describe()
    checked = 0
    for seat, outcome in run.honest.items():
        if seat == QUITTER or outcome is None:
            continue
        assert outcome.aborted is not None and outcome.aborted.seat in (STALLER, QUITTER, None), info
        status, report = verify(outcome.transcript)
        problem = report.get("problem") or {}
        assert status == 1, f"seat {seat}: {problem}\n{info}"
        if outcome.aborted.seat != QUITTER:
            # It stopped without the goodbye: verify must not name the quitter from its file.
            assert problem.get("seat") != QUITTER, f"seat {seat}: {problem}\n{info}"
            checked += 1
    assert checked, f"no seat stopped before the goodbye came\n{info}"
