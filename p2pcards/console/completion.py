"""Tab completion on the input line: only the moves that are legal now, and console commands."""

from __future__ import annotations

from collections.abc import Iterable

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

from .controller import TableController, console_words

__all__ = ["TableCompleter"]


class TableCompleter(Completer):
    """Completes the whole line. A move matches when it starts with what was typed, or when
    its arguments do (typing ``Qh`` offers ``play Qh``)."""

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
            for choice in self.controller.move_choices():
                text = choice.text.lower()
                _, _, args = text.partition(" ")
                if text.startswith(wanted) or (wanted and args.startswith(wanted)):
                    meta = choice.description if choice.description != choice.text else ""
                    yield Completion(choice.text, replace, display_meta=meta)
        for word in console_words(session.result is not None):
            if word.startswith(wanted) and word.strip() != wanted:
                yield Completion(word, replace, display_meta="console")
