"""p2pcards: a card table for home networks with no server and no trusted dealer."""

from .hookspecs import hookimpl

__version__ = "0.2.0"
#: Version of the wire and deck protocols; peers must agree on it exactly.
PROTOCOL_VERSION = 12  # 12: no seed reveal (issue 32): no `seed` deck message (one is of no
#                        known type), the end-of-game step (AuditOp) sends nothing and
#                        recomputes nothing, the end record has no `seeds`; the stop rules read
#                        "signed its stop (or bye)" where they read "revealed its seed"
#                        (protocol/deck.md 4.3, 6, 7; table.md 5; transcript.md 3).
#                     11: the deck's end-of-game audit returns only the faces the table saw
#                        (every card opened to all), all a game's audit reads; the bundled games'
#                        audits check what those faces show (issue 32; protocol/deck.md 7); no
#                        `decode` accusation (no card can fail to decode once every pass is
#                        proven: one names its accuser as of no known kind, deck.md 4.2, 6).
#                     10: three changes. The table's drop-out move (issue 30): a seat drops
#                        out by signing {"type": "drop out"} as its move at its own turn, where
#                        the game's rules allow it then; every seat applies it at that turn, then
#                        the deck's DropOp; a move, opening or absent statement signed after it
#                        names its signer (protocol/table.md section 4, "Dropping out"); verify
#                        checks a finished game without the dropped seats' seeds. At a smaller
#                        rematch an option that names a seat (Cal's BS's first_dealer) names the
#                        same player's seat, or its default if that player left; a joiner checks
#                        it (protocol/table.md section 2, "A rematch"). Deck protocol 3, first
#                        step (issue 32): a re-handled card is passed on by its cumulative scalar
#                        (no chains, no link proofs), shown to all by a face proof of its
#                        holder's, and gets a factor of its own after its transfer's one scalar
#                        (`rehandle` gains `sorted` and `factors`); a public re-handled card that
#                        moves is opened to its receiver by its holder (protocol/deck.md 4.2,
#                        5.3); a Cal's BS quads lead carries its leader's set proof (deck.md 5.4)
#                     9: a seat may drop out where the game's rules allow it (issue 30): the
#                        deck's `drop` message and DropOp, later shuffles without the dropped
#                        seat, no seed from it, blind hands in the audit (protocol/deck.md 4.6, 7);
#                        a rematch goes on without the seats that left its room: its header may
#                        seat some of the last game's players, the host first, in their order
#                        (protocol/table.md section 2, "A rematch"); every seat counts each
#                        sender's private boxes to each seat and names one
#                        the operations never called for at the audit (protocol/deck.md section 7);
#                        an `open` entry no commitment awaits names its signer (table.md section 9)
#                     8: free-order responses are sealed: a commitment ({"turn", "sealed", "box"}
#                        action entry), then an `open` entry once every follower's commitment is
#                        in (protocol/table.md section 9; wire.md's kinds gain `open`); a private
#                        deck payload of another type than `open` is accused by its receiver and
#                        judged by every seat (protocol/deck.md section 6)
#                     7: a seat's head echo never goes back (wire.md section 6, echo-backwards);
#                        `start` carries every seat's signed hello; joiners check both keys of every
#                        seat of the header against them (protocol/table.md section 2)
#                        an accusation's evidence is read field by field (protocol/deck.md §6):
#                        a reused key is proven only by two distinct locks of the accused
#                        verify judges accusations with the table's own rules (deck/judge.py),
#                        names a seat that kept its seed only where one file can tell it left,
#                        and checks every deck message's type first
#                     6: finished hands (protocol/deck.md, "Finished hands"): an accusation about
#                        one is refused, a shuffle retires earlier hands' handles
#                     5: the ping keepalive on game connections (a silent cut is noticed)
#                     4: absent statements (a gone follower is passed for)
#                     3: table words committed before revealed, the lobby terms and bots, bye
#                        and stop entries
#                     2: deck v2, every shuffle and re-lock pass proven (protocol/deck.md)

__all__ = ["PROTOCOL_VERSION", "__version__", "hookimpl"]
