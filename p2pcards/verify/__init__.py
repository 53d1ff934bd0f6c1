"""``p2pcards verify``: re-check a whole table from its transcript, on any machine, offline.

A transcript (protocol/transcript.md) holds every signed log entry of a table and, in its end
record, every seat's deck seed. With the seeds, each seat's side of the deck protocol is fully
determined, so the table can be played again here:

1. read the file (torn tail, checksums, schema) and rebuild the table log: every signature and
   every seat's hash chain (:meth:`~p2pcards.wire.transcript.Transcript.log`);
2. take the game, its rules version and options from the lobby header the log is bound to, and
   load the game from the installed plugins (:func:`~p2pcards.plugins.load_plugins`);
3. re-simulate the deck: one :class:`~p2pcards.deck.party.Party` per seat from its revealed seed
   and the lobby header, in the in-process :class:`~p2pcards.deck.backend.MentalPokerDeck`.
   Every message a re-simulated seat sends must be that seat's next signed ``deck`` entry: a
   public one byte for byte (canonical encoding), a private one addressed to the same seat (its
   sealed box opens only with the recipient's key, so its content is not checked here: the
   recipient checked it at the table, and the deck audit below re-derives what it carried);
4. replay the game with :func:`~p2pcards.engine.play`, the engine's step loop (the one
   :class:`~p2pcards.session.TableSession` runs asynchronously), each seat's moves taken from
   its signed ``action`` entries in order, each for the turn it names;
5. run the deck's end-of-game audit (every card decoded from the seeds) and the game's audit,
   and recompute the result; compare it with every seat's signed ``result`` entry and the end
   record.

If every public deck message is the one its seat's seed derives, the shuffles, re-locks,
openings and re-handlings in the file are exactly an honest run of the protocol from those seeds:
the full audit of protocol/deck.md section 7, done by recomputation. The first entry that differs
names its seat.

A game that did not finish (aborted, abandoned) is checked as far as its signed entries go
(:func:`verify_unfinished`): provable blames; the seeds revealed in signed ``seed`` messages
(every honest seat reveals its seed when a game stops) or the end record, each against its
commitment; with every seed, the replay above until the entries end, judging signed
accusations (a private message is opened with the message key the accusation reveals) and
moves signed out of turn, then naming the seat the game waited for; without every seed, the
public checks of the shuffle passes and a replay of the moves with the public rules only.
The unsigned end record (status, note, absent seats) is reported, never trusted. Such a game
is never verified: exit 1, naming a seat only for what the signed entries prove; exit 3 when
all it shows is a player's signed goodbye (the player left: no fault).

The exit status is 0 (verified), 1 (verification failed: tampering or cheating
found, with the step and the seat to blame), 2 (an unreadable, incomplete or unsupported file,
for example a game or rules version that is not installed), 3 (``LEFT``: the game ended
because a player said goodbye, and the file shows no fault by anyone) or 4 (``PLUGIN
FAILED``: the game plugin raised an exception other than its refusal of a move while the file
was replayed: a bug in the plugin, nobody is named).

The package, in the order its modules build on each other:

- :mod:`.report`: the verdict (:class:`Report`, :class:`Problem`, exit codes) and the
  exceptions that end a check;
- :mod:`.replay`: the replay of a table with every seed (each seat's signed entries, the
  re-simulated deck parties, the moves taken from the log);
- :mod:`.stops`: why an unfinished game stopped, and which seat, if any, that names;
- :mod:`.seedless`: the public checks and the replay of the moves without every seed;
- :mod:`.unfinished`: blames, revealed seeds and the checks of a game that did not finish;
- :mod:`.check`: :func:`verify_file`, reading the file and running all of the above.
"""

from __future__ import annotations

from .check import verify_file
from .report import (
    EXIT_FAILED,
    EXIT_LEFT,
    EXIT_NOT_STARTED,
    EXIT_PLUGIN,
    EXIT_UNREADABLE,
    EXIT_VERIFIED,
    VERDICTS,
    Problem,
    Report,
    Watch,
)

__all__ = [
    "EXIT_FAILED",
    "EXIT_LEFT",
    "EXIT_NOT_STARTED",
    "EXIT_PLUGIN",
    "EXIT_UNREADABLE",
    "EXIT_VERIFIED",
    "VERDICTS",
    "Problem",
    "Report",
    "Watch",
    "verify_file",
]
