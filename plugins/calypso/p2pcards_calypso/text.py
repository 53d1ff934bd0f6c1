"""What people see and type in Calypso: the view, action text and the console grammar.

Grammar (case-insensitive)::

    play Qh | p Qh | Qh | Q♥ | 10s        play a card (any copy you hold of that face)
    trump hearts | choose h | suit ♥ | hearts   choose your trump suit after the cut
    trump hearts left | hearts opposite | h right | hearts, sit left of the first dealer
                                            solo and three-player (seating=cut): the suit and
                                            your place, seen from the first dealer (the
                                            highest cutter, who types just the suit): at its
                                            left (you lead first), opposite it (solo only) or
                                            at its right; "left of seat 0" too
    stand | ok | let stand                  honour mode: let the last trick stand
    correct Qh | take back Qh               honour mode: take back your revoke, play Qh instead
    aside | set aside                        set aside your cards of the removed suit
                                             (removed_suit=random, after each deal)

A play or ``stand`` at the last chance to correct a revoke owns to it by itself (the client
adds ``declare_revoke``, rule 30), so the player never types that.

What :func:`format_action` writes for the log reads back as the same action: "plays Q♥",
"chooses hearts and the place at the first dealer's left", "lets the last trick stand, owning
to a revoke in the last trick" (the ", owning ..." is accepted only when there is a revoke to
own to), "takes back a revoke in the last trick and plays K♦ instead", "sets aside 2♣ 9♣" (the
cards, when listed, must be all of the removed suit) and "sets nothing aside".
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from p2pcards.cards import SUIT_NAMES, Card, CardParseError, Suit, parse_card, parse_cards, parse_suit, sort_cards
from p2pcards.game import Action, Done, Game, IllegalAction, Reveal, Turn

from .state import CHOOSING, CUTTING, PLAYING, SORTING, CalypsoState, pending_revoke, set_aside_action

SUMMARY = (
    "Calypso: four packs (three less one suit for three players), a personal trump suit each "
    "(spades with hearts, diamonds with clubs). "
    "Follow suit if you can, otherwise discard or ruff with your own suit; a led own suit is a "
    "trump. Won cards of your suit build your calypso (one of each rank, A to 2): 500 for the "
    "first, 750 the second, 1000 each after; 20 per card of an unfinished calypso, 10 per card "
    "in your trick pile."
)

COMMANDS_HELP = "\n".join(
    [
        "play CARD     play a card, e.g. 'play Qh' or just 'Qh' (any copy you hold)",
        "trump SUIT    choose your trump suit after the cut, e.g. 'trump hearts' or 'trump h'",
        "trump SUIT PLACE  solo and three: also choose where you sit, seen from the first dealer (the",
        "              highest cutter): 'trump hearts left' (at its left: you play after it and lead",
        "              first), 'trump hearts opposite' (solo only) or 'trump hearts right'",
        "stand         honour mode: let the last trick stand (your revoke, if any, is then on record)",
        "correct CARD  honour mode: take back your revoke in the last trick and play CARD of the led suit",
        "aside         set aside your cards of the removed suit (removed_suit=random, after a deal)",
    ]
)

# The third-person forms ("plays", "chooses", "lets the last trick stand", "sets aside") are what
# format_action writes for the log, so that a move as the log shows it can be typed back.
_PLAY_WORDS = {"play", "p", "plays"}
_CHOOSE_WORDS = {"trump", "choose", "suit", "pick", "chooses"}
_STAND_WORDS = {
    "stand",
    "ok",
    "let stand",
    "let it stand",
    "let the trick stand",
    "let the last trick stand",
    "lets the last trick stand",
}
_CORRECT_WORDS = {"correct", "take back", "takeback", "fix"}
_ASIDE_WORDS = ("sets aside", "set aside", "aside")  # longest first
_NOTHING_ASIDE = {"sets nothing aside", "set nothing aside"}
# The log's "..., owning to a revoke in the last trick" (the client adds declare_revoke itself).
_OWNING = re.compile(r",?\s*\bowning\s+to\s+(?:a|the|my)\s+revoke(?:\s+in\s+the\s+last\s+trick)?\s*$", re.IGNORECASE)
# The log's "takes back a revoke in the last trick and plays K♦ instead".
_LOG_CORRECTION = re.compile(
    r"^takes?\s+back\s+(?:a|the|my)\s+revoke\s+in\s+the\s+last\s+trick\s+and\s+plays?\s+(.+?)(?:\s+instead)?$",
    re.IGNORECASE,
)
# Words that may stand around a place: "trump hearts, sit at the left".
_PLACE_FILLER = {"sit", "sits", "at", "on", "to", "the", "and", "place", "my", "as"}
# "left of the first dealer", "the first dealer's left" (as the log says it), "left of seat 0".
_DEALER_REFERENCE = re.compile(r"(?:\bof\s+)?(?:\bthe\s+)?(?:\bfirst\s+dealer|\bseat\s+(\d+))(?:'s)?")


def place_words(players: int) -> dict[int, str]:
    """What a place is called, seen from the first dealer (place 0): places go clockwise, so
    place 1 is at its left (and leads first), the last at its right."""
    if players == 3:
        return {1: "left", 2: "right"}
    return {1: "left", 2: "opposite", 3: "right"}


def _place_of_word(players: int, word: str) -> int | None:
    word = {"across": "opposite"}.get(word, word)
    return next((p for p, name in place_words(players).items() if name == word), None)


def _first_dealer(state: CalypsoState) -> str:
    return f"seat {state.ranking[0]}" if state.ranking else "the first dealer"


def place_phrase(players: int, place: int) -> str:
    """Where a place is, as a person says it: "at the first dealer's left", "opposite the first
    dealer". Action and error text name no seat: the console shows seats by name only in the
    view (``name_seats``)."""
    word = place_words(players).get(place)
    if word is None:
        return "in the first dealer's place" if place == 0 else f"in place {place}"
    return "opposite the first dealer" if word == "opposite" else f"at the first dealer's {word}"


def places_text(state: CalypsoState, places: list[int]) -> str:
    """The open places as typed, e.g. "left, opposite or right of the first dealer"."""
    if places == [0]:
        return "none to choose: you cut highest, so you deal first and the others sit around you"
    return f"{_or(place_words(state.players)[p] for p in places)} of the first dealer (the highest cutter)"


def _or(words) -> str:
    words = list(words)
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} or {words[-1]}"


def parse_action(state: CalypsoState, seat: int, line: str, known: Mapping[int, Card]) -> Action:
    """Read a command as typed (see the module's grammar). Whatever :func:`format_action` writes
    for a legal action reads back as that action."""
    if state.phase == SORTING:
        return _parse_set_aside(state, seat, line, known)

    owning = {"declare_revoke": True} if pending_revoke(state, seat, known) else {}
    line, says_owning = _OWNING.sub("", line), bool(_OWNING.search(line))
    if says_owning and not owning:
        raise IllegalAction("you have no revoke in the last trick to own to")
    words = line.strip().split(None, 1)
    if not words:
        raise IllegalAction("type a card to play, e.g. 'play Qh' or 'Qh'")
    head, rest = words[0].lower(), (words[1] if len(words) > 1 else "")
    if state.phase == CHOOSING:
        return _parse_choice(state, line, head in _CHOOSE_WORDS)
    if head in _CHOOSE_WORDS:
        raise IllegalAction("the trump suits are already chosen; play a card, e.g. 'play Qh'")
    if state.phase != PLAYING:
        raise IllegalAction("nothing to play yet")
    if " ".join(line.lower().split()) in _STAND_WORDS:
        return {"type": "let_stand", **owning}
    kind = "play"
    lowered = line.strip().lower()
    for word in sorted(_CORRECT_WORDS, key=len, reverse=True):
        if lowered.startswith(word + " "):
            kind, head, rest = "correct", "correct", line.strip()[len(word) :].strip()
            break
    logged = _LOG_CORRECTION.match(line.strip())
    if logged:
        kind, head, rest = "correct", "correct", logged.group(1)
    card_text = rest if head in _PLAY_WORDS or kind == "correct" else line
    try:
        face = parse_card(card_text)
    except CardParseError:
        raise IllegalAction(f"expected a card such as 'play Qh' or '10s', got {line.strip()!r}") from None
    # With four packs a face names any copy; take the lowest handle held.
    copies = sorted(h for h in state.hands[seat] if h in known and known[h].face == face)
    if not copies:
        raise IllegalAction(f"you hold no {face}")
    if kind == "correct":
        return {"type": "correct", "card": copies[0]}
    return {"type": "play", "card": copies[0], **owning}


def _parse_set_aside(state: CalypsoState, seat: int, line: str, known: Mapping[int, Card]) -> Action:
    """``aside``: every card of the removed suit goes at once. The cards may follow, as the log
    lists them ("sets aside 2♣ 9♣"), and must then be exactly those; "sets nothing aside" when
    there are none."""
    action = set_aside_action(state, seat, known)
    mine = sorted(str(known[h].face) for h in action["cards"])
    suit = SUIT_NAMES[state.removed()]
    lowered = " ".join(line.lower().split())
    if lowered in _NOTHING_ASIDE:
        if mine:
            raise IllegalAction(f"you hold {suit} (the removed suit): type 'aside' to set them aside")
        return action
    word = next((w for w in _ASIDE_WORDS if lowered == w or lowered.startswith(w + " ")), None)
    if word is None:
        raise IllegalAction("type 'aside' to set aside your cards of the removed suit")
    listed = lowered[len(word) :].strip()
    if listed:
        try:
            said = sorted(str(c) for c in parse_cards(listed))
        except CardParseError:
            said = None
        if said != mine:
            yours = " ".join(mine) or "none"
            raise IllegalAction(f"every card of the removed suit goes aside at once (yours: {yours}): type 'aside'")
    return action


def _parse_choice(state: CalypsoState, line: str, has_verb: bool) -> Action:
    """``trump SUIT`` (or a bare suit), followed in solo and three by a place word."""
    words = line.replace(",", " ").lower().split()[1 if has_verb else 0 :]
    example = "'trump hearts left'" if state.chooses_places() else "'trump hearts'"
    left = ", ".join(SUIT_NAMES[s] for s in state.available_suits())
    try:
        suit = parse_suit(words[0] if words else "")
    except CardParseError:
        if not has_verb:
            raise IllegalAction(f"choose your trump suit, e.g. {example}") from None
        raise IllegalAction(f"expected 'trump SUIT' with one of {left}, got {line.strip()!r}") from None
    said = " ".join(w for w in words[1:] if w not in _PLACE_FILLER)
    if not state.chooses_places():
        if said:
            raise IllegalAction("the cut sets the seats here: choose only a suit, e.g. 'trump hearts'")
        return {"type": "choose_suit", "suit": suit.value}
    open_places = state.places_open()
    named = {int(n) for n in _DEALER_REFERENCE.findall(said) if n}
    said = " ".join(_DEALER_REFERENCE.sub(" ", said).split())
    if open_places == [0]:  # the highest cutter: its place is the one the others are seen from
        if said:
            raise IllegalAction(
                f"you cut highest: you deal first and the others choose their "
                f"places around you, so type just 'trump {SUIT_NAMES[suit]}'"
            )
        return {"type": "choose_suit", "suit": suit.value, "place": 0}
    first_dealer = state.ranking[0]
    if named - {first_dealer}:
        places = _or(place_words(state.players)[p] for p in open_places)
        raise IllegalAction(
            f"places are seen from the first dealer (seat {first_dealer}, the highest cutter): {places}"
        )
    if not said:
        raise IllegalAction(
            f"choose your place too, e.g. 'trump {SUIT_NAMES[suit]} "
            f"{place_words(state.players)[open_places[0]]}': "
            f"{places_text(state, open_places)}"
        )
    place = _place_of_word(state.players, said)
    if place is None:
        three = " (three players have no place opposite)" if said in ("opposite", "across") else ""
        raise IllegalAction(f"expected a place after the suit: {places_text(state, open_places)}; got {said!r}{three}")
    if place not in open_places:
        raise IllegalAction(
            f"the place {place_phrase(state.players, place)} is taken (open: {places_text(state, open_places)})"
        )
    return {"type": "choose_suit", "suit": suit.value, "place": place}


def format_action(state: CalypsoState, seat: int, action: Action, faces: Mapping[int, Card]) -> str:
    """The verb phrase only ("plays Q♥", "chooses hearts"): whoever shows it names the seat.
    :func:`parse_action` reads it back (given the faces the acting seat knows)."""
    if action.get("type") == "choose_suit":
        place = action.get("place")
        # One verb, so that the console can say "you choose" as well as "bot 2 chooses". The
        # others' places are seen from the first dealer, so the log says who that is.
        where = ""
        if place == 0 and type(place) is int:
            where = ", as the first dealer"
        elif isinstance(place, int) and not isinstance(place, bool):
            where = f" and the place {place_phrase(state.players, place)}"
        return f"chooses {SUIT_NAMES[parse_suit(action['suit'])]}{where}"
    if action.get("type") == "set_aside":
        cards = action.get("cards") or []
        if not cards:
            return "sets nothing aside"
        shown = [faces[h].unicode() for h in cards if h in faces]
        return f"sets aside {' '.join(shown) if len(shown) == len(cards) else _cards(len(cards))}"
    owning = ", owning to a revoke in the last trick" if action.get("declare_revoke") else ""
    if action.get("type") == "let_stand":
        return f"lets the last trick stand{owning}"
    handle = action.get("card")
    card = faces.get(handle) if isinstance(handle, int) else None
    face = card.unicode() if card else "a card"
    if action.get("type") == "correct":
        return f"takes back a revoke in the last trick and plays {face} instead"
    return f"plays {face}{owning}"


def view(game: Game[CalypsoState], state: CalypsoState, seat: int | None, known: Mapping[int, Card]) -> dict[str, Any]:
    """Public facts for everyone (rule 22, Q-CY-22): trumps, calypsos in progress face up,
    completed counts, pile sizes, the current trick and provisional scores. Earlier tricks are
    not shown. A seat also sees its own hand, sorted.

    The generic keys (``hand``, ``seats``, ``table``, ``status``) are what any console shows;
    seats are named "seat N" in the text. The rest is plain data for bots and tests."""
    totals = state.totals() if state.tableaux else {}
    players: list[dict[str, Any]] = []
    for s in range(state.players):
        tableau = state.tableaux[s]
        trump = state.trump.get(s)
        players.append(
            {
                "seat": s,
                "trump": trump.value if trump else None,
                "partner": state.partner(s) if state.order else None,
                "hand_size": len(state.hands[s]),
                "calypso": [f"{r.symbol}{trump.value}" for r in sorted(tableau.current, reverse=True)] if trump else [],
                "completed": len(tableau.completed),
                "pile": len(tableau.pile),
                "score": totals.get(s, 0),
            }
        )
    step = game.next_step(state)
    out: dict[str, Any] = {
        "seats": [
            {
                "cards": p["hand_size"],
                "trump": _symbol(state.trump.get(p["seat"])),
                "calypsos": p["completed"],
                "cards won": p["pile"],  # in tricks, not yet in a calypso (a bare "won" said nothing)
                "score": p["score"],
            }
            for p in players
        ],
        "table": _table_lines(state, players),
        "status": _status(state, step, seat),
        "phase": state.phase,
        "mode": state.mode,
        "trump_lead_rule": state.trump_lead_rule,
        "order": list(state.order),
        "dealer": state.order[state.dealer_position] if state.order else None,
        "deal": state.deal_number,
        "deals": state.deals_total,
        "trick_number": state.trick_number,
        "stock": len(state.stock),
        "trick": [{"seat": s, "card": str(state.faces[h]) if h in state.faces else None} for s, h in state.trick],
        "last_trick_winner": state.last_trick_winner,
        "players": players,
        "to_act": getattr(step, "seat", None),
        "cuts": {str(s): v for s, v in state.cuts.items()},
        "places": {str(s): p for s, p in state.places.items()},
    }
    if state.removed_suit is not None:
        out["removed_suit"] = state.removed_suit.value
    if seat is not None:
        out["hand"] = sort_cards(known[h] for h in state.hands[seat] if h in known)
    if state.result is not None:
        out["result"] = state.result.to_wire()
    return out


def _cards(count: int) -> str:
    return "1 card" if count == 1 else f"{count} cards"


def _symbol(suit: Suit | None) -> str | None:
    return suit.symbol if suit is not None else None


def _rank_text(value: int) -> str:
    return {11: "J", 12: "Q", 13: "K", 14: "A"}.get(value, str(value))


def _table_lines(state: CalypsoState, players: list[dict[str, Any]]) -> list[str]:
    """The cut, the current trick, the last trick's winner, the trump suits, every calypso in
    progress (face up), the deal and the stock."""
    lines = []
    if state.phase == CUTTING and state.cuts:
        cuts = ", ".join(f"seat {s} {_rank_text(v[-1])}" for s, v in sorted(state.cuts.items()) if v)
        lines.append(f"cut{f' (round {state.cut_round})' if state.cut_round > 1 else ''}: {cuts}")
    elif state.phase == CUTTING:
        lines.append("cutting for seats and trump suits: the highest chooses first")
    if state.deal_number:
        plays = [f"seat {s} {state.faces.get(h, '(face down)')}" for s, h in state.trick]
        lines.append(f"trick {state.trick_number}: " + (", ".join(plays) if plays else "nothing led yet"))
        if state.last_trick_winner is not None:
            lines.append(f"last trick won by seat {state.last_trick_winner}")
    trumps = [f"seat {s} {suit.symbol}" for s, suit in sorted(state.trump.items())]
    if trumps:
        lines.append("trumps: " + ", ".join(trumps))
    if state.order and state.phase != CUTTING:
        # The seats are listed by number; play goes round in the order the cut set.
        first = (state.dealer_position + 1) % len(state.order)  # the dealer's left leads
        order = state.order[first:] + state.order[:first]
        lines.append(f"order of play: {', '.join(f'seat {s}' for s in order)} (dealer seat {order[-1]})")
        pairs = [
            f"seat {s} & seat {state.partner(s)}"
            for s in state.order
            if (partner := state.partner(s)) is not None and s < partner
        ]
        if pairs:
            lines.append("partners: " + ", ".join(pairs))
    if state.phase == CHOOSING and state.chooses_places() and state.places:
        lines.append(_places_line(state))
    if state.phase == CHOOSING:
        left = " ".join(suit.symbol for suit in state.available_suits())
        open_places = state.places_open()
        where = ""
        if state.chooses_places() and open_places != [0]:
            where = f" and a place ({_or(place_words(state.players)[p] for p in open_places)})"
        lines.append(f"seat {state.choosers[0]} chooses a trump suit (left: {left}){where}")
    for p in players:
        if p["calypso"]:
            cards = p["calypso"]
            lines.append(f"calypso seat {p['seat']}: {' '.join(cards)} ({len(cards)}/13)")
    if state.deal_number:
        stock = f", {len(state.stock)} cards in the stock" if state.stock else ""
        lines.append(f"deal {state.deal_number} of {state.deals_total}{stock}")
    if state.removed_suit is not None:
        aside = f" ({_cards(len(state.aside))} set aside)" if state.removed_by_coin else ""
        lines.append(f"removed suit: {state.removed_suit.symbol}{aside}")
    return lines


def _places_line(state: CalypsoState) -> str:
    """The places chosen so far, clockwise from the first dealer:
    "around seat 0 (deals first): left open, opposite seat 3, right open"."""
    by_place = {p: s for s, p in state.places.items()}
    around = [
        f"{word} {'seat ' + str(by_place[p]) if p in by_place else 'open'}"
        for p, word in place_words(state.players).items()
    ]
    return f"around {_first_dealer(state)} (deals first; its left leads): {', '.join(around)}"


def _status(state: CalypsoState, step: Any, seat: int | None) -> str:
    """Whose turn it is and what they may do."""
    if isinstance(step, Done):
        return "the game is over"
    if isinstance(step, Reveal) and state.phase == SORTING:
        return f"seat {step.owner}'s cards of the removed suit are turned face up"
    if isinstance(step, Reveal):
        return f"seat {step.owner}'s card is turned face up"
    if state.removed_suit is None and state.removed_by_coin:
        return "drawing the suit to remove"
    if not isinstance(step, Turn):
        return "cutting for seats and trump suits" if state.order == [] else "dealing"
    mine = step.seat == seat
    if state.phase == SORTING:
        suit = SUIT_NAMES[state.removed()]
        if mine:
            return f"your turn: set aside your {suit} (the removed suit): type 'aside'"
        return f"seat {step.seat} sets aside their {suit} (the removed suit)"
    if state.phase == CHOOSING:
        left = ", ".join(SUIT_NAMES[s] for s in state.available_suits())
        who = "your turn: choose" if mine else f"seat {step.seat} chooses"
        open_places = state.places_open()
        if not state.chooses_places():
            return f"{who} a trump suit ({left})"
        if open_places == [0]:
            deals = (
                "you deal first, and the others then choose their places around you"
                if mine
                else f"seat {step.seat} deals first, and the others then choose their places around it"
            )
            return f"{who} a trump suit ({left}); {deals}"
        places = f"{_or(place_words(state.players)[p] for p in open_places)} of {_first_dealer(state)}"
        if not mine:
            return f"{who} a trump suit ({left}) and a place ({places})"
        # The example first: a narrow console cuts the end of the line (the table lists the rest).
        example = f"{left.split(',')[0]} {place_words(state.players)[open_places[0]]}"
        return f"your turn: choose a trump suit and a place, e.g. 'trump {example}' ({left}; {places})"
    if step.seat != state.to_play():  # rule 30: the last chance before the partner plays
        if mine:
            return "your turn: 'stand' to let the last trick stand, or 'correct CARD' to take back a revoke"
        return f"seat {step.seat} to let the last trick stand (or correct a revoke in it)"
    led = state.led_suit()
    if led is None:
        return "your turn: lead any card" if mine else f"seat {step.seat} to lead"
    if mine:
        return f"your turn: follow {SUIT_NAMES[led]} if you can, else discard or ruff"
    return f"seat {step.seat} to play, {SUIT_NAMES[led]} led"
