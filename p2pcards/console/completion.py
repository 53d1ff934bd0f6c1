"""Tab completion on the input line: the moves that are legal now, the next word of a move being
typed (a card of the hand, ``as RANK``), and console commands."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

from ..cards import CardParseError, Rank, parse_card
from .controller import MoveChoice, TableController, _cards_as, _unconjugate, console_words
from .viewmodel import hand_cards

__all__ = ["TableCompleter", "next_words", "rest_of_moves"]


def _meta(choice: MoveChoice) -> str:
    """The game's words for a move, when they say more than the typed form ("plays 7♥" for
    "play 7h" says nothing new)."""
    plain = _cards_as(_unconjugate(choice.description), False)
    return "" if plain.lower() == choice.text.lower() or choice.description == choice.text else choice.description


def _ascii(word: str) -> str:
    try:
        return str(parse_card(word))
    except CardParseError:
        return word


def _is_card(word: str) -> bool:
    try:
        parse_card(word)
    except CardParseError:
        return False
    return True


def rest_of_moves(done: list[str], partial: str, choices: list[MoveChoice]) -> list[tuple[str, str, str]]:
    """The rest of each legal move that begins with the words typed (``play 8c `` + Tab:
    ``naming clubs``, ``naming diamonds``...), for a game that lists every move: what 'legal'
    shows, Tab completes."""
    typed = [_ascii(w).lower() for w in done]
    out = []
    for choice in choices:
        words = choice.text.split()
        if len(words) <= len(typed) or [_ascii(w).lower() for w in words[: len(typed)]] != typed:
            continue
        rest = " ".join(words[len(typed) :])
        if rest.lower().startswith(partial.lower()):
            out.append((rest, partial, "move"))
    return list(dict.fromkeys(out))


def next_words(
    typed: str, choices: list[MoveChoice], hand: list[str], *, every: bool = False
) -> list[tuple[str, str, str]]:
    """Completions of the word being typed in a move already begun (``play Ac Ad `` + Tab):
    ``(text, what it replaces, kind)``. After the move's verb: the cards of ``hand`` not typed yet
    and the claims the legal moves make (``as 7``; every rank when the claims differ, so a
    bluff can be typed too); after ``as``: the ranks."""
    words = typed.split()
    ended = typed.endswith(" ")
    partial = "" if ended else (words[-1] if words else "")
    done = words if ended else words[:-1]
    if not done:
        return []  # still typing the verb: the whole-line completions say it
    if every and len(done) > 1:
        # The game lists every move: past the verb and a card, the moves themselves say what
        # may follow (an eight's suit), not the rest of the hand.
        rest = rest_of_moves(done, partial, choices)
        if rest:
            return rest
    verb = done[0].lower()
    same_verb = [c for c in choices if c.text.split()[0].lower() == verb]
    if not same_verb:
        return []
    tails = list(dict.fromkeys(" ".join(c.text.split()[-2:]) for c in same_verb if " as " in f" {c.text} "))
    ranks = [tail.split()[1] for tail in tails]
    if len(set(ranks)) > 1:  # leading: any rank may be claimed
        # The rank of the cards typed first (the honest claim), then the rest in order.
        typed_ranks = [parse_card(_ascii(w)).rank for w in done[1:] if _is_card(w)]
        first = [r.symbol for r in typed_ranks if r is not None]
        ranks = list(dict.fromkeys(first + [r.symbol for r in sorted(Rank, key=lambda r: r.value)]))
    out: list[tuple[str, str, str]] = []
    lowered = partial.lower()
    if done[-1].lower() == "as" and len(done) > 1:
        return [(rank, partial, "rank") for rank in ranks if rank.lower().startswith(lowered)]
    if any(word.lower() == "as" for word in done[1:]):
        return []  # the claim is made
    typed_cards = Counter(_ascii(word) for word in done[1:])
    left = Counter(hand) - typed_cards
    for card in dict.fromkeys(hand):
        if left[card] > 0 and card.lower().startswith(lowered):
            out.append((card, partial, "card"))
    if len(done) > 1 and ranks:
        claims = [f"as {rank}" for rank in ranks]
        out += [(claim, partial, "claim") for claim in claims if claim.lower().startswith(lowered)]
    return out


class TableCompleter(Completer):
    """Completes the whole line. A move matches when it starts with what was typed, or when
    its arguments do (typing ``Qh`` offers ``play Qh``); in a move already begun, the next word
    (a card, ``as RANK``) is offered too."""

    def __init__(self, controller: TableController | None):
        self.controller = controller

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterable[Completion]:
        typed = document.text_before_cursor
        wanted = typed.lstrip().lower()
        replace = -len(typed)
        if self.controller is None:  # no table yet
            return
        session = self.controller.session
        if session.my_turn:
            choices = self.controller.move_choices()
            for choice in choices:
                text = choice.text.lower()
                _, _, args = text.partition(" ")
                if text.startswith(wanted) or (wanted and args.startswith(wanted)):
                    yield Completion(choice.text, replace, display_meta=_meta(choice))
            yield from self._next_words(typed, choices)
        for word in console_words(session.result is not None):
            if word.startswith(wanted) and word.strip() != wanted:
                yield Completion(word, replace, display_meta="console")

    def _next_words(self, typed: str, choices: list[MoveChoice]) -> Iterator[Completion]:
        assert self.controller is not None
        session = self.controller.session
        try:
            hand = [str(card) for card in hand_cards(session.view(), session.known())[0]]
        except Exception:  # a plugin's view bug: no card words, the moves still complete
            hand = []
        every = bool(getattr(session.game, "lists_every_action", False))
        for text, partial, kind in next_words(typed, choices, hand, every=every):
            yield Completion(text, -len(partial), display_meta=kind)
