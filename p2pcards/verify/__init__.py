"""``p2pcards verify``: re-check a whole table from its transcript, on any machine, offline.

A transcript (protocol/transcript.md) holds every signed log entry of a table (and, while the
tables still reveal them, every seat's deck seed in its end record, which verify does not use:
issue 32). The table is played again here with what it saw:

1. read the file (torn tail, checksums, schema) and rebuild the table log: every signature and
   every seat's hash chain (:meth:`~p2pcards.wire.transcript.Transcript.log`);
2. take the game, its rules version and options from the lobby header the log is bound to, and
   load the game from the installed plugins (:func:`~p2pcards.plugins.load_plugins`);
3. check every shuffle, re-lock and re-handling with its proof, as every seat checked it on
   arrival (:func:`~p2pcards.verify.seedless.public_passes`);
4. replay the game with :func:`~p2pcards.engine.play`, the engine's step loop, on a deck that
   follows each seat's signed ``deck`` entries in the order the protocol calls for them (who
   owes which message is public: :class:`~p2pcards.verify.seedless.PublicHandles`), checks each
   opening to all and judges each accusation with the table's own code
   (:class:`~p2pcards.deck.party.OpeningReferee`), and checks every hidden claim's proof; each
   seat's moves are taken from its signed ``action`` entries in order, each for the turn it
   names;
5. run the game's audit over the faces shown at the table, and recompute the result; compare
   it with every seat's signed ``result`` entry and the end record.

A private deck message (sealed to its recipient) is checked by recipient only: its recipient
checked it at the table, and an accusation about one reveals its key, so verify opens it and
runs the receiver's check on it. A card nobody turned up is never decoded.

A game that did not finish (aborted, abandoned) is checked as far as its signed entries go
(:func:`verify_unfinished`): provable blames; the seeds revealed in signed ``seed`` messages
against their commitments (who revealed one still tells who stopped); the replay above until
the entries end, judging signed accusations and moves signed out of turn, then naming the seat
the game waited for, or nobody. The unsigned end record (status, note, absent seats) is
reported, never trusted. Such a game is never verified: exit 1, naming a seat only for what
the signed entries prove; exit 3 when all it shows is a player's signed goodbye (the player
left: no fault).

The exit status is 0 (verified), 1 (verification failed: tampering or cheating
found, with the step and the seat to blame), 2 (an unreadable, incomplete or unsupported file,
for example a game or rules version that is not installed), 3 (``LEFT``: the game ended
because a player said goodbye, and the file shows no fault by anyone) or 4 (``PLUGIN
FAILED``: the game plugin raised an exception other than its refusal of a move while the file
was replayed: a bug in the plugin, nobody is named).

The package, in the order its modules build on each other:

- :mod:`.report`: the verdict (:class:`Report`, :class:`Problem`, exit codes) and the
  exceptions that end a check;
- :mod:`.replay`: the replay's state (each seat's signed entries, the accusations judged, the
  moves taken from the log);
- :mod:`.stops`: why an unfinished game stopped, and which seat, if any, that names;
- :mod:`.seedless`: the public checks, the deck that follows every seat's deck entries, and
  the replay of the moves (verify's one path: no seed);
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
