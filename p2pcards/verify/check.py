"""``p2pcards verify``'s entry point, :func:`verify_file`: read the transcript, rebuild and check
the log, load the game it names, replay it with what the table saw (:mod:`.seedless`; a game
that did not finish: :mod:`.unfinished`), and compare the results with the signed ones."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..cards import Card
from ..game import Game, OptionError, options_words, result_words
from ..plugins import load_plugins
from ..table.dropouts import DropOuts
from ..table.header import TableHeader
from ..table.protocol import LEFT_TO_BOT, left_to_bot_words
from ..wire.log import STALE_PREV
from ..wire.transcript import TornTranscript, Transcript, TranscriptError, read_transcript
from .replay import Replay, SeatEntries, with_faces
from .report import (
    EXIT_FAILED,
    EXIT_LEFT,
    EXIT_NOT_STARTED,
    EXIT_PLUGIN,
    EXIT_UNREADABLE,
    EXIT_VERIFIED,
    GOODBYE_STEP,
    UNSIGNED_FAULTS,
    Failed,
    NotStarted,
    PluginFailed,
    Problem,
    Report,
    Unreadable,
    Watch,
    difference,
    plugin_failed,
    same_data,
)
from .unfinished import (
    check_absent_entries,
    check_after_stops,
    check_blames,
    check_openings,
    verify_unfinished,
)


def verify_file(
    path: str | Path,
    *,
    watch: Watch | None = None,
    progress: Callable[[float], None] | None = None,
) -> Report:
    """Verify the transcript at ``path``; never raises for anything in the file. ``watch``
    follows the replay (see :class:`Watch`); ``progress`` gets the share of the work done, from
    0 to 1, as it goes (the moves replayed, of the moves signed). The game is checked with what
    the table saw (issue 32): signatures, chains, every proof, the public openings, the moves
    and the result (no seed is revealed since protocol version 12)."""
    began = time.perf_counter()
    report = Report(str(path))
    try:
        report.size = Path(path).stat().st_size
    except OSError:
        pass
    try:
        _verify(path, report, watch if progress is None else _Progress(watch, progress))
    except Unreadable as exc:
        report.status, report.problem = EXIT_UNREADABLE, Problem("reading", str(exc))
    except PluginFailed as exc:
        report.status, report.problem = EXIT_PLUGIN, exc.problem
    except NotStarted as exc:
        report.status, report.problem = EXIT_NOT_STARTED, exc.problem
    except Failed as exc:
        # A player who said goodbye left the table: no fault (every other check passed first).
        # (Only when the seat named is the goodbye's author: verify/stops.py.)
        seat = exc.problem.seat
        goodbye = seat is not None and exc.problem.step.startswith(f"{GOODBYE_STEP}{seat} ")
        report.status, report.problem = EXIT_LEFT if goodbye else EXIT_FAILED, exc.problem
    else:
        report.status = EXIT_VERIFIED
    report.seconds = time.perf_counter() - began
    return report


class _Progress:
    """A :class:`Watch` that counts the moves replayed and the passes' checks done (and passes
    every call on to ``inner``, if any): ``progress`` gets the share of the work done."""

    #: The share of the work that is the passes' proof checks (the rest: replaying the moves),
    #: as a long match's verify spends it (docs/performance.md, issue 31).
    PASSES = 0.85

    def __init__(self, inner: Watch | None, progress: Callable[[float], None]):
        self.inner = inner
        self.progress = progress
        self.total = 0
        self.moves = 0
        self.passes: Any = None

    @property
    def shows_moves(self) -> bool:
        """Whether a watch is shown the moves (then the passes are checked first: no move past
        a pass that fails is shown); a bar alone lets the replay run while they are checked."""
        return self.inner is not None

    def start(self, log: Any) -> None:
        self.total = sum(e.kind == "action" for e in log.canonical())
        self.progress(0.0)

    def follow_passes(self, passes: Any) -> None:
        """The passes' checks (verify.passes.Pending) count too, as each verdict is read."""
        self.passes = passes
        passes.on_verdict = self._update

    def _update(self) -> None:
        moves = self.moves / self.total if self.total else 1.0
        if self.passes is None:
            self.progress(min(1.0, moves))
            return
        self.progress(min(1.0, self.PASSES * self.passes.share_done() + (1 - self.PASSES) * moves))

    def step(self, event: Mapping[str, Any], state: Any, known: Sequence[Mapping[int, Card]]) -> None:
        if event.get("kind") == "move":
            self.moves += 1
            self._update()
        if self.inner is not None:
            self.inner.step(event, state, known)

    def opened(self, faces: Mapping[int, Card]) -> None:
        if self.inner is not None:
            self.inner.opened(faces)


def read_log(path: str | Path) -> tuple[Transcript, Any]:
    try:
        transcript = read_transcript(path, verify=False)
    except TornTranscript as exc:
        raise Unreadable(f"incomplete: {exc}") from None
    except TranscriptError as exc:
        raise Unreadable(str(exc)) from None
    if transcript.end is None:
        raise Unreadable(
            "incomplete: no end record (the game did not finish, or the file was cut after a whole record)"
        )
    table_header(transcript)  # the roster the log is checked with must be the lobby's
    try:
        log = transcript.log()
    except TranscriptError as exc:
        blame = exc.blame
        # A bad signature, a stranger, a gap: the bytes are not what the seat signed, so the
        # file was altered; the other refusals concern what the seat itself signed. An entry
        # #0 that does not start from the seat genesis proves nothing against its seat: the
        # genesis comes from the file's lobby header, which is not signed.
        if blame is not None and blame.code == STALE_PREV and not blame.provable:
            raise Failed(
                "log", f"{exc.reason} (the file's lobby header is not the one the seats signed for: it was altered)"
            ) from None
        if blame is not None and blame.code not in UNSIGNED_FAULTS:
            raise Failed("log", exc.reason, blame.seat) from None
        raise Failed("log", f"{exc.reason} (the file was altered after signing)") from None
    return transcript, log


def _check_echoes(log: Any, report: Report) -> None:
    for entry in log.canonical():
        for mismatch in log.check_seen(entry):
            later = _echo_taken_back(log, entry, mismatch.seat, mismatch.seq)
            if later is not None:
                # Its own later entry shows it held the file's version (an honest log never
                # replaces an entry it accepted): the echo is false, not a second version, and
                # the game rests on no echo; the table plays on past such an echo too, naming
                # its author only on the way (protocol/table.md section 5), so the file is
                # checked on (issue 28: a finished game live, "not verified" here).
                report.notes.append(
                    f"the head echo of seat {entry.sender}'s entry #{entry.seq} names another "
                    f"hash for seat {mismatch.seat}'s entry #{mismatch.seq} than the file's, "
                    f"and its own entry #{later} echoes the file's version: that echo was "
                    f"false (an honest log never replaces an entry it accepted); the game does "
                    f"not rest on it"
                )
                continue
            raise Failed(
                f"head echo of seat {entry.sender}'s entry #{entry.seq}",
                f"it saw seat {mismatch.seat}'s entry #{mismatch.seq} with another hash than "
                f"the file's: seat {mismatch.seat} told peers different things, or seat "
                f"{entry.sender}'s echo is false",
            )


def _echo_taken_back(log: Any, entry: Any, seat: int, seq: int) -> int | None:
    """A later entry of ``entry``'s signer whose head echo counts seat ``seat``'s chain up to
    ``seq`` or past it with the hashes the file holds (so its signer's log held the file's
    entry ``seq``, whose hash its echo in ``entry`` denied): its number, else None."""
    held = log.next_seq(seat)
    for later in log.entries(entry.sender, entry.seq + 1):
        count, last = later.body["seen"][seat]
        if seq < count <= held and log.entry(seat, count - 1).hash == last:
            return int(later.seq)
    return None


def _check_complete(log: Any) -> None:
    """A finished game's file holds every entry its head echoes count (protocol/transcript.md
    section 5): one that counts more of a seat's entries than the file holds shows signed
    entries cut from the file (a seat's last result, say), or an echo of entries never signed;
    the file cannot tell which, so it names nobody."""
    held = [len(log.chain(seat)) for seat in range(len(log.seen()))]  # (not a copy per entry)
    for entry in log.canonical():
        for seat, (count, _) in enumerate(entry.body["seen"]):
            have = held[seat]
            if count > have:
                raise Failed(
                    f"head echo of seat {entry.sender}'s entry #{entry.seq}",
                    f"it counts {count} entries of seat {seat}, the file holds {have}: "
                    f"signed entries were removed from the file (the file was "
                    f"altered), or the echo counts entries that were never signed",
                )


def table_header(transcript: Transcript) -> TableHeader:
    """The lobby header (bound to every entry through the genesis hash), checked against the
    transcript header's unsigned copies of its fields."""
    h = transcript.header
    try:
        lobby = TableHeader.from_wire(h.lobby)
    except (KeyError, TypeError, ValueError, AttributeError):
        raise Unreadable("the lobby header is not a p2pcards table header") from None
    mismatches = [
        name
        for name, ours, theirs in (
            ("table id", h.table, lobby.table),
            ("game", h.game, lobby.game),
            ("rules version", h.rules, lobby.rules_version),
            ("options", h.options, dict(lobby.options)),
            ("roster keys", list(h.roster), [s.keys for s in lobby.seats]),
            ("player names", list(h.names), [s.name for s in lobby.seats]),
        )
        if not (ours == theirs if name == "roster keys" else same_data(ours, theirs))
    ]
    if mismatches:
        raise Failed(
            "header",
            f"the transcript header's {', '.join(mismatches)} differ from "
            f"the signed lobby header (the file was altered)",
        )
    return lobby


def load_game(lobby: TableHeader) -> Game:
    host = load_plugins()
    game = host.games.get(lobby.game)
    if game is None:
        have = ", ".join(f"{g} (rules {v})" for g, v in host.rules_versions().items()) or "none"
        raise Unreadable(
            f"the game {lobby.game!r} (rules {lobby.rules_version}) is not installed here (installed: {have})"
        )
    if game.rules_version != lobby.rules_version:
        raise Unreadable(
            f"game {lobby.game}: the transcript needs rules "
            f"{lobby.rules_version}, this machine has rules {game.rules_version}"
        )
    try:
        game.check_table_options(lobby.options, lobby.players)
    except OptionError as exc:
        raise Unreadable(f"game {lobby.game}: the table's options do not fit the installed game: {exc}") from None
    return game


def _verify(path: str | Path, report: Report, watch: Watch | None = None) -> None:
    transcript, log = read_log(path)
    if isinstance(watch, _Progress):
        watch.start(log)
    end = transcript.end
    assert end is not None, "read_log refuses a transcript without its end record"
    report.end_status = end.status
    report.checked["entries"] = len(transcript.entries)
    lobby = table_header(transcript)
    report.table = lobby.table.hex()[:12]
    report.players = [{"seat": i, "name": s.name, "fingerprint": s.keys.fingerprint} for i, s in enumerate(lobby.seats)]
    report.options = dict(lobby.options)
    report.game = {"id": lobby.game, "name": lobby.game, "rules": lobby.rules_version}
    game = load_game(lobby)
    report.game["name"] = game.name
    report.options_text = options_words(game.options, report.options)
    names = [s.name for s in lobby.seats]

    check_blames(transcript, log, lobby)
    _check_echoes(log, report)
    check_after_stops(log, names)
    check_absent_entries(log, names)
    check_openings(log, names)
    dropped = check_drop_outs(log, names)
    report.dropped = list(dropped)
    report.left_to_bot = left_to_bot_turns(log, len(names))
    for seat in report.left_to_bot:  # as the table said it live (not a fault: no verdict)
        report.notes.append(left_to_bot_words(names[seat]))
    if end.status != "finished":
        verify_unfinished(transcript, log, lobby, game, names, report, watch)
        return

    _check_complete(log)
    # The end record's status is not signed: where the signed entries stop before the game's
    # end, they are judged as a game that did not finish (a stop by the rules of one), and a
    # replay that does not reach the end is checked again as one, so that the status never
    # changes whom the file names (transcript.md section 5).
    notes = len(report.notes)
    try:
        verify_finished(log, lobby, game, names, report, watch, dropped, end.result)
    except _NotWhole:
        del report.notes[notes:]
        report.notes.append(
            "the end record says the game finished, but the signed moves do not reach its end: "
            "checked as a game that did not finish (the end record is not signed)"
        )
        verify_unfinished(transcript, log, lobby, game, names, report, watch)


class _NotWhole(Exception):
    """A finished game's signed moves, replayed, do not reach the game's end."""


def check_drop_outs(log: Any, names: Sequence[str]) -> dict[int, Any]:
    """Every seat that signed the table's drop-out move (issue 30), with that entry, in seat
    order; a seat that signed a move, an opening or an absent statement after
    its own drop-out move is named, as every seat names it when it arrives (table.md section 4,
    "Dropping out")."""
    drop_outs, dropped = DropOuts(), dict[int, Any]()
    for seat in range(len(names)):
        for entry in log.entries(seat):
            after_drop = drop_outs.note(entry)
            if after_drop is not None:
                raise Failed(f"log #{entry.seq} of {names[seat]}", f"{names[seat]} {after_drop}", seat)
            if seat in drop_outs.seq and seat not in dropped:
                dropped[seat] = entry
    return dropped


def verify_finished(
    log: Any,
    lobby: TableHeader,
    game: Game,
    names: Sequence[str],
    report: Report,
    watch: Watch | None,
    dropped: Mapping[int, Any],
    end_result: Any,
) -> None:
    """A finished game, checked with what the table saw, as every seat checked it while it
    went (issue 32: no deck seed is used): every shuffle pass and re-handling with its proof,
    every seat's deck entries in the protocol's order, each accusation judged by the check the
    table ran, the cards opened to all (each public opening checked as it arrived), every hidden
    claim's proof, and every signed move by the game's public rules in the table's order (a
    drop-out at the turn it was signed for, issue 30), to the game's end; then the game's audit
    over the faces shown at the table (deck.md §7), and each seat's signed result against the
    one the rules reach. The cards nobody opened are never decoded: nobody saw them."""
    from .seedless import check_deck_ends, public_moves, public_setup

    seats = [SeatEntries(s, log.entries(s)) for s in range(lobby.players)]
    public_setup(log, lobby, game)
    # (unfinished: where the signed entries end before the game's, the replay stops and the
    # stop is judged as in a game that did not finish, whatever the unsigned status says)
    replay = Replay(game, lobby.options, names, seats, log=log, unfinished=True, watch=watch)
    ended = public_moves(replay, lobby, game, report, unrevealed=list(dropped))
    if ended is None:
        raise _NotWhole
    result, faces = ended
    check_deck_ends(replay, seats)
    # The game's audit over the faces turned up for everyone, as the live table's audit sees
    # them (deck.md §7).
    assert replay.replica is not None, "the public replay ran"
    try:
        violations = game.audit(replay.replica.state, replay.replica.actions, faces)
    except Exception as exc:
        plugin_failed(exc, game, replay.turn)
        raise Failed("game audit", f"the game's audit stopped: {type(exc).__name__}: {exc}") from None
    if watch is not None:
        watch.opened(faces)
    report.violations = [v.to_wire() for v in violations]
    if violations:
        v = violations[0]
        raise Failed(f"turn {v.action_index} (game audit)", v.message, v.seat)
    for mine in seats:
        mine.skip_void()
        if mine.next_action < len(mine.actions):
            entry = mine.actions[mine.next_action]
            raise Failed(f"log #{entry.seq} of seat {mine.seat}", "a move signed after the game was over", mine.seat)
    report.checked.update(
        public=replay.public,
        private=replay.private,
        operations=replay.public_deck.steps if replay.public_deck is not None else 0,
        moves=replay.turn,
        cards=len(faces),
    )
    report.timeline = with_faces(replay.timeline, faces)
    _note_faces(report, faces, faces, range(lobby.players))
    report.result = result
    report.result_text = result_words(game, result)
    results_signed = 0
    for mine in seats:
        if not mine.results and mine.seat not in dropped:
            report.notes.append(f"{names[mine.seat]} signed no result")
        for entry in mine.results:
            body = entry.body
            got = body.get("result") if isinstance(body, dict) else None
            step = f"result (log #{entry.seq} of seat {mine.seat})"
            if not same_data(got, result.to_wire()):
                raise Failed(
                    step,
                    f"its signed result differs from the recomputed one (first "
                    f"difference: {difference(got, result.to_wire())})",
                    mine.seat,
                )
            if not same_data(body.get("violations"), []):
                raise Failed(step, "its signed result lists rule violations the audit does not find", mine.seat)
            results_signed += 1
    report.checked["results"] = results_signed
    if not same_data(end_result, result.to_wire()):
        raise Failed(
            "end record", "its result differs from the recomputed one (the end record is not signed: it was altered)"
        )
    for seat, entry in dropped.items():
        report.notes.append(
            f"{names[seat]} dropped out at turn {entry.body.get('turn')}: its cards were set aside "
            f"unseen (every proof, the cards opened to all and the moves by the game's public "
            f"rules are checked; the cards nobody opened are not)"
        )
    report.notes.append(
        "private deck messages are checked by recipient only: a sealed box opens only with its "
        "recipient's key; what each carried was checked by its recipient as it arrived, and an "
        "accusation about one is judged on the box its key opens"
    )


def _note_faces(
    report: Report, shown: Mapping[int, Card], decodable: Mapping[int, Card], seeing: Sequence[int]
) -> None:
    """``faces_shown``: the cards opened to all (the game's audit read them), each seen by
    ``seeing`` (the seats at the table); ``faces_decodable``: what the file lets anyone decode."""
    report.faces_shown = {h: (card, tuple(seeing)) for h, card in shown.items()}
    report.faces_decodable = {**decodable, **shown}


def left_to_bot_turns(log: Any, players: int) -> dict[int, int | None]:
    """Each seat that signed the chat line :data:`~p2pcards.table.protocol.LEFT_TO_BOT` (its
    player left, a bot of its own program plays on; only its own entry says so), and the turn
    of its first move signed after it (``None``: none), from the entries a seat could act on."""
    said: dict[int, int] = {}
    turns: dict[int, int | None] = {}
    for entry in log.closed():
        if not 0 <= entry.sender < players:
            continue
        body = entry.body if isinstance(entry.body, dict) else {}
        if entry.kind == "chat" and body.get("text") == LEFT_TO_BOT and entry.sender not in said:
            said[entry.sender] = entry.seq
            turns[entry.sender] = None
        elif entry.kind == "action" and entry.sender in said and turns[entry.sender] is None:
            turn = body.get("turn")
            if entry.seq > said[entry.sender] and type(turn) is int:
                turns[entry.sender] = turn
    return turns
