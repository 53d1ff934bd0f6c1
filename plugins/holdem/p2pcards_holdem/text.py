"""Hold'em for people: the view at 80x24, the actions in words, and the story of each hand.

Actions are said as the log shows them after a name ("raises to 120", "goes all in") and read
back from those words or from short commands (``call``, ``raise 120``, ``all in``, ``f``).
Amounts are "to" amounts: ``raise 120`` makes the seat's bet in this round 120.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from p2pcards.cards import Card
from p2pcards.game import Action, IllegalAction, agree

from .state import STREETS, HoldemState

if TYPE_CHECKING:
    from .rules import Holdem

COMMANDS = "\n".join([
    "fold              give up the hand",
    "check             bet nothing when there is nothing to call",
    "call              match the bet",
    "bet N             open the betting with N chips, e.g. bet 40",
    "raise N           raise to N in all this round, e.g. raise 120",
    "all in            put in every chip you have",
    "show / muck       at the showdown: show your hand, or give it up unseen",
])  # fmt: skip

_WORDS = {
    "fold": "fold", "folds": "fold", "f": "fold",
    "check": "check", "checks": "check", "k": "check",
    "call": "call", "calls": "call", "c": "call",
    "bet": "bet", "bets": "bet", "b": "bet",
    "raise": "raise", "raises": "raise", "r": "raise",
    "show": "show", "shows": "show",
    "muck": "muck", "mucks": "muck",
    "allin": "all-in", "all-in": "all-in", "shove": "all-in", "shoves": "all-in",
}  # fmt: skip


def put_in(state: HoldemState, seat: int, action: Action) -> int | None:
    """The chips a call or an all in puts in, from the state before it (the seat to act) or
    after it (as the table and a replay tell it: what it put in was noted); else ``None``."""
    kind = action.get("type")
    if kind not in ("call", "all-in") or not 0 <= seat < state.players:
        return None
    if state.phase == "betting" and state.turn == seat:
        # Before it. (After a call that closed a round, the seat may open the next one, but
        # then there is nothing to call; after an all in, the seat never acts again.)
        owe = state.current - state.bets[seat]
        return state.stacks[seat] if kind == "all-in" else min(owe, state.stacks[seat])
    return state.put.get(seat)


def format_action(action: Action, put: int | None = None) -> str:
    """The action after the seat's name; ``put``: the chips a call or an all in put in
    ("calls 20", "goes all in for 340"), as a raise says its "to" amount."""
    kind = action.get("type")
    if kind in ("bet", "raise"):
        to = action.get("to")
        return f"bets {to}" if kind == "bet" else f"raises to {to}"
    if kind == "all-in":
        return f"goes all in for {put}" if put else "goes all in"
    if kind == "call" and put:
        return f"calls {put}"
    return {"fold": "folds", "check": "checks", "call": "calls", "show": "shows", "muck": "mucks"}.get(
        str(kind), str(kind)
    )


def parse_action(state: HoldemState, seat: int, typed: str) -> Action:
    words = typed.lower().replace(",", "").split()
    words = [w for w in words if w not in ("goes", "go", "to", "for")]
    if words[:2] == ["all", "in"]:
        words = ["all-in"] + words[2:]
    if not words or words[0] not in _WORDS:
        raise IllegalAction("expected fold, check, call, bet N, raise N, all in (or show, muck)")
    kind = _WORDS[words[0]]
    rest = words[1:]
    if kind in ("bet", "raise"):
        if len(rest) != 1 or not rest[0].isdigit():
            raise IllegalAction(f"say how much: {kind} N, e.g. {kind} {2 * max(state.current, state.bb)}")
        to = int(rest[0])
        # "raise 120" where 120 is every chip: that is going all in
        if to == state.bets[seat] + state.stacks[seat]:
            return {"type": "all-in"}
        # The word that fits: a bet where there is none yet, a raise where there is one
        # ("bet 120" facing a bet of 40 means a raise to 120, as most players mean it).
        if state.phase == "betting":
            kind = "bet" if state.current == 0 else "raise"
        return {"type": kind, "to": to}
    if rest and not (kind in ("call", "all-in") and len(rest) == 1 and rest[0].isdigit()):
        raise IllegalAction(f"{kind} takes no amount")
    if kind == "call" and state.stacks[seat] <= state.current - state.bets[seat]:
        return {"type": "all-in"}  # calling with every chip left
    return {"type": kind}


def _chips(n: int) -> str:
    return f"{n:,}"


def view(game: Holdem, state: HoldemState, seat: int | None, known: Mapping[int, Card]) -> dict[str, Any]:
    hand = []
    if seat is not None and 0 <= seat < state.players:
        hand = [known[h] for h in state.hole[seat] if h in known]
    seats: list[dict[str, Any]] = []
    for s in range(state.players):
        # Short columns (a seat list of 9 at 80x24): the chips, the bet in front, and flags
        # whose label is the fact ("D" for the button, "folded", "all in", "mucked").
        facts: dict[str, Any] = {"chips": _chips(state.stacks[s])}
        if s in state.out:
            facts["out"] = ""
            seats.append(facts)
            continue
        live_hand = state.phase not in ("button", "over") and s in state.seated
        if live_hand and state.bets[s]:
            facts["bet"] = _chips(state.bets[s])
        if s == state.button:
            facts["D"] = ""
        if live_hand:
            if s in state.folded:
                facts["folded"] = ""
            elif s in state.mucked:
                facts["mucked"] = ""
            elif s in state.shown:
                facts["shows"] = " ".join(state.faces[h].unicode() for h in state.hole[s])
            elif state.stacks[s] == 0:
                facts["all in"] = ""
        seats.append(facts)
    table = []
    if state.hand:
        table.append(f"hand {state.hand} · blinds {_chips(state.sb)}/{_chips(state.bb)}"
                     + (f" · {STREETS[state.street]}" if state.phase == "betting" else ""))  # fmt: skip
        board = " ".join(state.faces[h].unicode() for h in state.board if h in state.faces)
        table.append(f"board: {board or '-'}")
        table.append("pot: " + _pot_text(state))
    return {"hand": hand, "seats": seats, "table": table, "status": status(game, state, seat)}


def _pot_text(state: HoldemState) -> str:
    total = state.pot_total()
    if state.pots and len(state.pots) > 1:
        parts = ", ".join(f"{'main' if i == 0 else f'side {i}'} {_chips(p.amount)}" for i, p in enumerate(state.pots))
        return f"{_chips(total)} ({parts})"
    return _chips(total)


def status(game: Holdem, state: HoldemState, seat: int | None) -> str:
    if state.phase == "over":
        return "the match is over"
    turn = state.turn
    if turn is None:
        return "dealing"
    who = "you" if turn == seat else f"seat {turn}"
    if state.phase == "showdown":
        return f"{who} to show or muck"
    owe = state.current - state.bets[turn]
    parts = [f"{_chips(min(owe, state.stacks[turn]))} to call" if owe > 0 else "check"]
    if state.may_raise(turn):
        least = state.current + state.min_raise if state.current else state.min_raise
        everything = state.bets[turn] + state.stacks[turn]
        word = "raise to" if state.current else "bet"
        parts.append(f"{word} {_chips(least)}+" if least < everything else "all in")
    return f"{who} to act: " + ", ".join(parts)


# -- the story ----------------------------------------------------------------------------------


def _name(names: Sequence[str], seat: Any) -> str:
    return names[seat] if isinstance(seat, int) and 0 <= seat < len(names) else f"seat {seat}"


def _both(names: Sequence[str], seats: Sequence[int]) -> str:
    said = [_name(names, s) for s in seats]
    return said[0] if len(said) == 1 else ", ".join(said[:-1]) + " and " + said[-1]


def tell(entry: Mapping[str, Any], names: Sequence[str]) -> str:
    event = entry.get("event")
    if event == "button":
        who = _name(names, entry.get("seat"))
        return f"{who} {agree(who, 'has')} the button (drawn by lot)"
    if event == "blinds":
        return f"the blinds rise to {_chips(entry['sb'])}/{_chips(entry['bb'])}"
    if event == "hand":
        dealer, sb, bb = (_name(names, entry.get(k)) for k in ("button", "sb_seat", "bb_seat"))
        return (f"hand {entry['hand']}: {dealer} {agree(dealer, 'deals')}; {sb} {agree(sb, 'posts')} "
                f"{_chips(entry['sb'])}, {bb} {agree(bb, 'posts')} {_chips(entry['bb'])}")  # fmt: skip
    if event == "board":
        street = STREETS[entry.get("street", 1)]
        if entry.get("street", 1) == 1:
            return f"the flop: {' '.join(entry['cards'])}"
        return f"the {street}: {' '.join(entry['cards'])}, the board {' '.join(entry['board'])}"
    if event == "show":
        who = _name(names, entry.get("seat"))
        return f"{who} {agree(who, 'has')} {entry.get('hand')}"
    if event == "returned":
        who = _name(names, entry.get("seat"))
        return f"{_chips(entry['amount'])} uncalled goes back to {who}"
    if event == "uncontested":
        who = _name(names, entry.get("seat"))
        return f"{who} {agree(who, 'wins')} {_chips(entry['amount'])}; nobody else is left in the hand"
    if event == "pot":
        winners = entry.get("winners", [])
        pot = entry.get("pot")
        what = _chips(entry["amount"]) if pot is None else (
            f"the main pot, {_chips(entry['amount'])}" if pot == 0 else f"side pot {pot}, {_chips(entry['amount'])}"
        )  # fmt: skip
        hand = f" with {entry['hand']}" if entry.get("hand") else ""
        if len(winners) == 1:
            who = _name(names, winners[0])
            return f"{who} {agree(who, 'wins')} {what}{hand}"
        shares = ", ".join(
            f"{_name(names, s)} {_chips(n)}" for s, n in zip(winners, entry.get("shares", []), strict=False)
        )
        return f"{_both(names, winners)} split {what}{hand} ({shares})"
    if event == "busted":
        who = _name(names, entry.get("seat"))
        return f"{who} {agree(who, 'is')} out of chips, finishing {_place(entry.get('place', 0))}"
    if event == "match":
        winners = entry.get("winners", [])
        who = _both(names, winners)
        verb = agree(who, "wins") if len(winners) == 1 else "share the lead"
        return f"{who} {verb} the match after {entry.get('hands')} hands"
    return str(event)


def _place(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"
