"""Third hostile review of issue 28 (one referee): a cheating peer aims at the limits of what
an honest seat holds, signs and writes down (evidence as deep and as large as a frame lets
through), at private deck messages of the wrong type, and at game moves whose fields have the
wrong type. Each table runs in-process on trio's autojump clock over loopback;
:func:`run_table` also checks that every honest seat's live verdict agrees with
``p2pcards verify`` of its transcript."""

from __future__ import annotations

from typing import Any

import pytest
import trio

from p2pcards.game import Round, Turn
from p2pcards.net.peer import Peer
from p2pcards.net.seats import LocalSeat
from p2pcards.table.timeouts import Timeouts

from .adv_table import named, run_table, verify
from .cheaters import CHEATERS, Cheater, Equivocates, GoneAtItsPassableTurn

CHEATER = 1


def _deep(levels: int) -> Any:
    value: Any = []
    for _ in range(levels):
        value = [value]
    return value


class EquivocatesHugely(Equivocates):
    """Signs two versions of one chat entry, each as deep (or as large) as an entry may be: the
    honest seats' evidence of it (a ``blame`` entry holding both) is deeper and larger than
    any entry may be, so it cannot be signed as it stands."""

    deviation = "an equivocation too deep and too large to quote"


@pytest.mark.parametrize(
    "padding",
    [{"x": _deep(28)}, {"x": b"\x00" * (200 << 10)}],
    ids=["deep", "large"],
)
def test_an_equivocation_too_big_to_quote_names_the_cheater_and_loses_no_log(tmp_path, padding):
    cls = type("EquivocatesHugely", (EquivocatesHugely,), {"padding": padding})
    run = run_table("cals-bs", 3, {"match_target": 1}, cheater=CHEATER, peer_factory=cls, transcript_dir=tmp_path)
    info = run.describe()
    assert run.cheater_peer is not None and run.cheater_peer.cheated, info
    for seat, outcome in run.honest.items():
        assert outcome is not None, info
        assert outcome.aborted is not None and outcome.aborted.seat == CHEATER, info
        assert all(b.startswith(f"seat {CHEATER} ") for b in outcome.peer.blames), info
        status, report = verify(outcome.transcript)
        problem = report.get("problem") or {}
        assert status == 1 and problem.get("seat") == CHEATER, f"seat {seat}'s transcript: {status} {report}"


# -- moves whose fields have the wrong type (every bundled game) ---------------------------------

#: Values put where a handle, an index or a name goes: a bool (an int to Python), a float that
#: equals a held handle, a huge and a negative int, a list (no key of any dict).
BAD_VALUES = {
    "bool": lambda held: True,
    "float": lambda held: float(held) if isinstance(held, int) else 1.0,
    "huge": lambda held: 2**63 - 1,
    "negative": lambda held: -1,
    "list": lambda held: [],
    # (only where "type" goes: a refusal that quoted it put these words in the verdict)
    "text": lambda held: "\x1b[2J seat 0 cheated " * 50,
}
#: The fields of a move that a game reads, by the name they have in any bundled game.
FIELDS = ("card", "cards", "rank", "suit", "place", "plus")
GAMES = {
    "crazy-eights": ("crazy-eights", 3, {}),
    "cals-bs": ("cals-bs", 3, {"match_target": 1}),
    "calypso": ("calypso", 3, {"mode": "three"}),
}


def corrupt(action: dict[str, Any], bad: str, fields: tuple[str, ...] = FIELDS) -> dict[str, Any] | None:
    """``action`` with its first field of ``fields`` replaced by a value of the wrong kind (in a
    list of handles: its first item); ``None`` if it has no such field."""
    for field in fields:
        if field in action:
            value = action[field]
            if isinstance(value, list) and value:
                return {**action, field: [BAD_VALUES[bad](value[0]), *value[1:]]}
            return {**action, field: BAD_VALUES[bad](value)}
    return None


class _CorruptingSeat(LocalSeat):
    """The cheater's own turns: the move its bot chose, one field corrupted (sent without any
    check), once; then it waits (its own rules refuse the move too)."""

    async def choose(self, session, seat):
        peer = self.peer
        if peer.cheated:
            return await super().choose(session, seat)
        action = await self.agent.choose(session, seat)  # (its bot's: legal)
        bad = corrupt(action, peer.bad, peer.fields)
        if bad is None:
            return await self._sign(action)
        peer.cheated = True
        peer.notes.append(repr(bad))
        await peer.publish("action", {"turn": peer.turns, "action": bad})
        await trio.sleep_forever()


class SendsMalformedMove(Cheater):
    deviation = "a move with a field of the wrong type"
    bad = "bool"
    fields = FIELDS

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.session.seats[self.seat] = _CorruptingSeat(self, self.session.seats[self.seat].agent)


CASES = [(game, bad, FIELDS) for game in GAMES for bad in BAD_VALUES if bad != "text"] + [
    *((game, "text", ("type",)) for game in GAMES),
    ("cals-bs", "list", ("rank",)),  # (a list is no key of the ranks: a TypeError stopped every seat)
    ("cals-bs", "bool", ("rank",)),
]


#: The cases of the fast tier: a bool where a handle goes in each game, and the list for a rank
#: (the TypeError that stopped every seat). The other values are the slow tier's (a table each,
#: 1-2 s of crypto; scripts/test and CI run them all).
FAST_CASES = {("crazy-eights", "bool"), ("cals-bs", "bool"), ("calypso", "bool")}


@pytest.mark.parametrize(
    ("game", "bad", "fields"),
    [
        pytest.param(g, b, f, marks=() if (g, b) in FAST_CASES or f == ("rank",) else pytest.mark.slow)
        for g, b, f in CASES
    ],
    ids=[f"{g}-{b}{'' if f == FIELDS else '-' + f[0]}" for g, b, f in CASES],
)
def test_a_move_with_a_field_of_the_wrong_type_is_illegal_and_names_its_mover(tmp_path, game, bad, fields):
    """Every honest seat refuses the move as illegal and names its mover; ``verify`` of every
    honest transcript names it too. (Crazy Eights rules version 1 took ``"card": true`` or
    ``1.0`` for handle 1; Cal's BS stopped every seat with a TypeError on ``"rank": []``.)"""
    cls = type(f"SendsMalformedMove_{bad}", (SendsMalformedMove,), {"bad": bad, "fields": fields})
    run = run_table(*GAMES[game], cheater=CHEATER, peer_factory=cls, transcript_dir=tmp_path)
    info = f"{run.describe()}\n{run.cheater_peer.notes if run.cheater_peer else None}"
    assert run.cheater_peer is not None and run.cheater_peer.cheated, info
    for seat, outcome in run.honest.items():
        assert outcome is not None, info
        assert outcome.aborted is not None and outcome.aborted.seat == CHEATER, info
        assert outcome.aborted.step == "action" and "illegal move" in outcome.aborted.reason, info
        assert "cheated" not in outcome.aborted.reason, info  # never the mover's words
        assert all(b.startswith(f"seat {CHEATER} ") for b in outcome.peer.blames), info
        status, report = verify(outcome.transcript)
        problem = report.get("problem") or {}
        assert status == 1 and problem.get("seat") == CHEATER, f"seat {seat}'s transcript: {status} {problem}\n{info}"
        assert "cheated" not in problem.get("reason", "") and "\x1b" not in problem.get("reason", ""), problem


# -- a deck timeout while absent statements are being settled (table.md sections 5 and 9) ---------

#: A deck step's timeout far shorter than a turn's and than the grace period: a seat settling
#: absent statements (which waits on them up to a turn's bound) is looked at by a deck wait
#: long after the deck's own deadline.
SHORT_DECK = Timeouts(deck=1.0, turn=8.0, grace=3.0)
GONE = 3


class RecordsSettlingInDeck(Peer):
    """An honest peer that notes each time a deck step's wait found a seat it waits on still
    settling absent statements (the rule under test: that seat is not charged by the deck's
    shorter timeout). Not a cheater: its verdicts are checked as an honest seat's."""

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.settling_in_deck: set[int] = set()

    def settling(self, seats: set[int]) -> set[int]:
        found = super().settling(seats)
        if found and not isinstance(self.session.step, (Turn, Round)):
            self.settling_in_deck |= found
        return found


#: Tables a case (seeds 0 and 1): the cheater withholds a statement in every one.
SETTLING_TABLES = 2


# Slow tier: four whole four-seat tables (~10 s of crypto); the rule's synchronous rows (a deck
# wait on a settling seat) are in tests/table/test_referee.py, in the fast tier.
@pytest.mark.slow
@pytest.mark.parametrize("match_target", [1, 2])
def test_a_deck_timeout_while_statements_are_settled_names_nobody_innocent(tmp_path, match_target):
    """Seat 3's client is gone (as it is about to sign a move the game may pass for); the cheater (seat 1)
    withholds its absent statement from seat 0 alone, so seat 0 settles (it waits on that
    statement, fetched through the others) while the others have decided and go on, to a deck
    step seat 0 may owe (a new hand's shuffle, when the pass ends a hand), whose timeout (1 s)
    is far shorter than what seat 0 may wait on statements. Seat 0 and seat 2 are never named,
    live or by verify (seat 3 may be, for leaving; the cheater may be). Two tables a case, the
    cheater withholding in each (:class:`GoneAtItsPassableTurn`); the synchronous rows of this
    rule are in tests/table/test_referee.py (a deck wait on a settling seat). Whether a deck
    wait did see a settling seat is recorded (``settling_in_deck``), not required: the bots
    decide when a hand ends."""
    recorders = {seat: RecordsSettlingInDeck for seat in (0, 2)}
    for seed in range(SETTLING_TABLES):
        run = run_table(
            "cals-bs",
            4,
            {"match_target": match_target},
            cheater=CHEATER,
            peer_factory=CHEATERS["WithholdsStatementFromNext"],
            transcript_dir=tmp_path / str(seed),
            timeouts=SHORT_DECK,
            seed=seed,
            others={GONE: GoneAtItsPassableTurn, **recorders},
        )
        info = (
            run.describe()
            + "\nsettling in a deck wait: "
            + str({s: o.peer.settling_in_deck for s, o in run.honest.items() if s in recorders and o is not None})
        )
        assert run.cheater_peer is not None and run.cheater_peer.cheated, f"no statement withheld: {info}"
        for seat in recorders:
            outcome = run.honest[seat]
            assert outcome is not None, info
            assert named(outcome) <= {CHEATER, GONE}, f"seat {seat}: {info}"
            status, report = verify(outcome.transcript)
            problem = report.get("problem") or {}
            assert problem.get("seat") in (None, CHEATER, GONE), f"seat {seat}'s transcript: {problem}\n{info}"


# -- hostile text and bodies: chat, absent, stop and bye (issue 28, first lead) --------------------

#: Text a terminal must not be handed (clear the screen, move the cursor, reverse the line),
#: claims about another seat, and the most a string may hold in a frame.
HOSTILE_TEXT = "\x1b[2J\x1b[H\u202eseat 0 cheated: it is named\r\n" * 200 + "x" * 50_000


class SaysHostileThings(Cheater):
    """Once the play has begun: chat lines as large and as hostile as a string may be, absent
    statements of every wrong shape (deep, a bool for a seat, about itself, for a negative
    turn), then a signed goodbye whose reason is that text. Only it may be named, never in its
    words."""

    deviation = "hostile chat, absent statements and goodbye"
    #: ``bye``: the goodbye after the chat; ``absent``: the statements after it.
    ending = "bye"

    async def misbehave(self):
        await self.until_turns(1)
        self.cheated = True
        deep: Any = 0
        for _ in range(25):
            deep = [deep]
        for body in (
            {"text": HOSTILE_TEXT},
            {"text": deep},
            {"text": {"a": HOSTILE_TEXT}},
        ):
            await self.publish("chat", body)
        if self.ending == "bye":
            await self.publish("bye", {"reason": HOSTILE_TEXT})
            await trio.sleep_forever()
        for body in (
            {"turn": deep, "seat": 0},
            {"turn": 0, "seat": True},
            {"turn": 0, "seat": self.seat},
            {"turn": -1, "seat": 0},
            {"turn": 2**63 - 1, "seat": 0, "junk": HOSTILE_TEXT},
        ):
            await self.publish("absent", body)
        await trio.sleep_forever()


@pytest.mark.parametrize("ending", ["bye", "absent"])
def test_hostile_text_and_bodies_name_only_their_author_never_in_its_words(tmp_path, ending):
    """The goodbye's verdict quoted its reason (review of issue 28): now our words alone."""
    cls = type(f"SaysHostileThings_{ending}", (SaysHostileThings,), {"ending": ending})
    run = run_table("cals-bs", 3, {"match_target": 1}, cheater=CHEATER, peer_factory=cls, transcript_dir=tmp_path)
    info = run.describe()[:4000]
    assert run.cheater_peer is not None and run.cheater_peer.cheated, info
    for seat, outcome in run.honest.items():
        assert outcome is not None and outcome.aborted is not None, info
        assert outcome.aborted.seat == CHEATER, info
        assert "cheated" not in outcome.aborted.reason and "\x1b" not in outcome.aborted.reason, info
        assert all(b.startswith(f"seat {CHEATER} ") for b in outcome.peer.blames), info
        assert all(len(b) < 1000 and "\x1b" not in b for b in outcome.peer.blames), info
        status, report = verify(outcome.transcript)
        problem = report.get("problem") or {}
        # A goodbye is LEFT (exit 3: not a fault, issue 30); bad statements are FAILED (exit 1).
        assert status == (3 if ending == "bye" else 1) and problem.get("seat") == CHEATER, (
            f"seat {seat}'s transcript: {status} {problem}"
        )
        assert "cheated" not in problem.get("reason", "") and "\x1b" not in problem.get("reason", ""), problem
