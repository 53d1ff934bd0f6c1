"""Cal's BS view: the generic keys every console renders (``hand``, ``seats``, ``table``,
``status``) and the game's own plain data for bots and tests. It only reads the state; the
action grammar (parse and format) is in :mod:`p2pcards_cals_bs.grammar`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from p2pcards.cards import Card
from p2pcards.game import Done, Game, Reveal, Round, Step, Transfer, Turn

from . import grammar
from .state import MAX_SET, BSState


def view(game: Game[BSState], state: BSState, seat: int | None, known: Mapping[int, Card]) -> dict[str, Any]:
    """The generic keys every console renders (``hand``, ``seats``, ``table``, ``status``;
    seats are named "seat N" in the text) and the game's own plain data for bots and tests.
    Never raises: a set placed face up shows its faces only once they are revealed."""
    step = game.next_step(state)
    turn = step.seat if isinstance(step, Turn) else None
    responding = list(step.seats) if isinstance(step, Round) else []
    pile = []
    for placed in state.pile:
        entry: dict[str, Any] = {"owner": placed.owner, "count": len(placed.handles), "claim": placed.claim()}
        if all(h in state.faces for h in placed.handles):
            entry["cards"] = [str(state.faces[h]) for h in placed.handles]
        pile.append(entry)
    out: dict[str, Any] = {
        "seats": [
            {"cards": len(hand), "hands won": won, **({"dropped out": True} if s in state.out else {})}
            for s, (hand, won) in enumerate(zip(state.hands, state.scores))
        ],
        "table": _table_lines(state, pile),
        "status": _status(state, step, seat),
        "game": game.id,
        "hand_number": state.hand_number,
        "dealer": state.dealer,
        "turn": turn,
        "responding": responding,
        "passed": list(state.passed),
        "must_lead": state.must_lead,
        "current_rank": state.current_rank.symbol if state.current_rank else None,
        "quads_context": state.in_quads_context,
        "plus": state.plus,
        "passes": state.passes,
        "hand_sizes": [len(h) for h in state.hands],
        "pile": pile,
        "pile_cards": sum(len(p.handles) for p in state.pile),
        "provisionally_out": state.provisional,
        "scores": list(state.scores),
        "dropped_out": list(state.out),
        "set_aside": len(state.set_aside),
        "match_target": state.match_target,
        "events": [dict(e) for e in state.events],
    }
    if seat is not None:
        out["seat"] = seat
        out["hand"] = grammar.sort_hand(known[h] for h in state.hands[seat] if h in known)
    if state.result is not None:
        out["result"] = state.result.summary
    return out


#: How many sets of the pile the table lines show (the newest).
SHOWN_SETS = 6


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'s' * (count != 1)}"


def _table_lines(state: BSState, pile: list[dict[str, Any]]) -> list[str]:
    """The middle of the table: the pile's sets (owner, count, claim, faces once revealed), what
    is being claimed, passes, a provisional winner, and the hand of the match."""
    if state.phase in ("coin", "shuffle", "deal") and not state.hand_number:
        if state.dealer is None:
            return ["the first dealer is chosen by lot, then all 54 cards are dealt"]
        return [f"seat {state.dealer} deals first: all 54 cards are dealt"]  # drawn or volunteered
    lines = []
    if not pile:
        lines.append("pile: empty" + (", a new lead" if state.must_lead and state.phase == "play" else ""))
    else:
        total = sum(entry["count"] for entry in pile)
        head = f"pile: {_plural(total, 'card')} in {_plural(len(pile), 'set')}"
        if state.in_quads_context:
            head += ", quads" + (f", replies claim +{state.plus}" if state.plus is not None else ", no reply yet")
        elif state.current_rank is not None:
            head += f", claiming {state.current_rank.symbol}"
        lines.append(head)
        if len(pile) > SHOWN_SETS:
            lines.append(f"  ... {_plural(len(pile) - SHOWN_SETS, 'earlier set')}")
        for entry in pile[-SHOWN_SETS:]:
            text = f"  seat {entry['owner']}: {_plural(entry['count'], 'card')}, claimed {entry['claim']}"
            if "cards" in entry:
                text += "  face up: " + " ".join(entry["cards"])
            lines.append(text)
    if state.passes:
        lines.append(f"passes since the last set: {state.passes}")
    if state.provisional is not None:
        lines.append(f"seat {state.provisional} is out unless doubted")
    if state.hand_number:
        target = "a single hand" if state.match_target == 1 else f"first to win {state.match_target} hands"
        lines.append(f"hand {state.hand_number} of the match ({target}), dealer seat {state.dealer}")
    return lines


def _status(state: BSState, step: Step, seat: int | None) -> str:
    """Whose turn it is and what they may do."""
    if isinstance(step, Done):
        return "the match is over"
    if isinstance(step, Reveal):
        return f"seat {step.owner} turns cards face up" if step.owner is not None else "cards are turned face up"
    if isinstance(step, Transfer):
        return f"seat {step.to} takes the pile"
    if isinstance(step, Round):
        waiting = ", ".join(f"seat {s}" for s in step.seats)
        who = (
            f"respond now (waiting for {waiting})"
            if seat in step.seats
            else f"waiting for {waiting} (free order: who acts first counts)"
        )
        if state.in_quads_context:
            top = state.top
            if top is not None and top.quads:
                return f"{who}: pass, or place 1-{MAX_SET} cards claiming +N (1-12)"
            return f"{who}: pass, place 1-{MAX_SET} cards claiming +{state.plus}, or doubt"
        rank = state.current_rank.symbol if state.current_rank is not None else "?"
        return f"{who}: pass, place 1-{MAX_SET} cards as {rank}, or doubt"
    if not isinstance(step, Turn):
        return "dealing"
    who = "your turn" if step.seat == seat else f"seat {step.seat} to play"
    if state.must_lead:
        quads = ", or lead quads" if state.quads else ""
        return f"{who}: lead 1-{MAX_SET} cards face down and name any rank{quads}"
    top = state.top
    doubt = ", or doubt" if top is not None and top.owner != step.seat and not top.quads else ""
    if state.in_quads_context:
        if top is not None and top.quads:  # rule 31: only pass or +N while the quads are on top
            return f"{who}: pass, or place 1-{MAX_SET} cards claiming +N (1-12) (quads cannot be doubted)"
        return f"{who}: pass, place 1-{MAX_SET} cards claiming +{state.plus}{doubt}"  # rule 32
    rank = state.current_rank.symbol if state.current_rank is not None else "?"
    return f"{who}: pass, place 1-{MAX_SET} cards as {rank}{doubt}"
