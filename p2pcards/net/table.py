"""Running one seat of a networked table from a started lobby to the saved transcript."""

from __future__ import annotations

import os
import secrets
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import trio

from ..game import Game, Result
from ..session import SeatAgent
from ..table import referee, verdict
from ..table.header import TableHeader
from ..wire.errors import ProtocolError
from ..wire.files import write_problem
from ..wire.identity import Identity
from ..wire.log import SPILL_KEEP
from ..wire.messages import Bye, Entry
from ..wire.spill import FileSpill
from ..wire.transcript import (
    TranscriptEnd,
    TranscriptError,
    TranscriptHeader,
    TranscriptWriter,
    read_transcript,
    roster_header,
    write_transcript,
)
from .ended import GameOver, close_ended_seat, ended_game, game_over_in, transcript_stem
from .lobby import LobbyError, LobbyResult, Spectator, accept_seat_or_spectator, dial_seat
from .peer import CannotWrite, Peer, TableAborted
from .slots import Slot, serve_listener
from .store import (
    SeatLock,
    SeatState,
    journal_path,
    load_seat_state,
    remove_seat_folder,
    save_seat_state,
    seat_folder,
)
from .threads import off_the_loop
from .transport import ConnectionClosed, FrameError

if TYPE_CHECKING:
    from ..verify import Report

__all__ = ["GameEnded", "SeatOutcome", "play_seat", "resume_seat", "transcript_header"]

#: Redialling a dropped connection: the first wait, and the longest, in seconds.
REDIAL_FIRST, REDIAL_MAX = 0.2, 5.0
#: After our game ends, how long we keep serving the other seats until they finish too: the
#: default of ``linger`` (:func:`play_seat`, :func:`resume_seat`).
LINGER_SECONDS = 10.0
MESH_SECONDS = 20.0
#: A seat coming back after a crash: if no other seat answers within this long, nobody plays
#: the game now (a seat that plays keeps its listener open for the whole game).
RESUME_ANSWER_SECONDS = 5.0


class GameEnded(LobbyError):
    """``resume`` of a seat whose game cannot go on (its journal shows the end): the seat's
    transcript is written and its folder removed. ``reason`` says why, for people."""

    def __init__(self, folder: Path, reason: str, transcript: Path | None):
        saved = f"; transcript: {transcript}" if transcript is not None else ""
        super().__init__(f"the game saved in {folder} cannot go on: {reason}{saved}")
        self.reason = reason
        self.transcript = transcript


@dataclass
class SeatOutcome:
    peer: Peer
    result: Result | None
    aborted: TableAborted | None
    transcript: Path | None
    #: Why the game is not in the history (``history=True`` only), else ``None``.
    history_warning: str | None = None
    #: What could not be written (the journal, the transcript) and where the game is kept
    #: instead, in one line for the player; ``None`` when every file was written.
    problem: str | None = None


def transcript_header(peer: Peer) -> TranscriptHeader:
    header = peer.header
    return roster_header(
        header.table,
        [(s.name, s.keys) for s in header.seats],
        game=header.game,
        rules=header.rules_version,
        options=header.options,
        lobby=peer.header_wire,
    )


async def play_seat(
    identity: Identity,
    lobby: LobbyResult,
    game: Game,
    agent: SeatAgent,
    *,
    games: Mapping[str, str],
    transcript_dir: Path | None = None,
    seed: bytes | None = None,
    on_peer: Callable[[Peer], None] | None = None,
    peer_factory: Callable[..., Peer] = Peer,
    state_home: Path | str | None = None,
    persist: bool = False,
    bot: str | None = None,
    history: bool = False,
    linger: float = LINGER_SECONDS,
) -> SeatOutcome:
    """Connect to every other seat, play the game, and save the transcript.

    With ``persist`` the seat's seed, keys and journal are kept on disk (under ``state_home``,
    default the user's data folder) so that :func:`resume_seat` can bring it back after a crash;
    ``bot`` names the bot that plays it (``None``: a person). With ``history`` the transcript
    is recorded in the history of the data folder (``state_home``) once it is written
    (:mod:`p2pcards.history`). ``peer_factory`` (called like :class:`Peer`) lets tests seat a
    deviating peer. Once the game is over for us, we keep answering the others for up to
    ``linger`` seconds, until every seat has its result."""
    header, me = lobby.header, lobby.seat
    seed = seed if seed is not None else secrets.token_bytes(32)
    peer = peer_factory(identity, header, me, game, agent, seed=seed)
    folder = lock = None
    journal: TranscriptWriter | None = None
    try:
        if persist:
            folder = seat_folder(header.table, me, state_home)
            lock = SeatLock(folder)  # held while we play: 'resume' leaves a seat that is playing alone
            # The seed must be safe on disk before its commitment leaves this machine.
            save_seat_state(folder, SeatState(peer.header_wire, me, seed, identity, bot))
            journal = TranscriptWriter.create(journal_path(folder), transcript_header(peer), sync=False)
        elif transcript_dir is not None:
            transcript_dir.mkdir(parents=True, exist_ok=True)
            journal = TranscriptWriter.create(transcript_dir / f"{_stem(peer)}.journal", transcript_header(peer))
    except OSError as exc:
        # Nothing is signed yet: the seat is given up before its game begins (the others
        # cannot start without it, and are told why).
        where = getattr(exc, "filename", None) or folder or transcript_dir
        reason = f"cannot write its files: {write_problem(exc)}"
        await _leave_lobby(lobby, reason)
        if lock is not None:
            lock.release()
        if folder is not None:
            remove_seat_folder(folder)
        raise LobbyError(
            f"cannot write {where}: {write_problem(exc)}; the seat was given up before its game began"
        ) from None
    peer.journal = journal
    _spill_log(peer, folder or transcript_dir)
    try:
        return await _run_seat(
            peer,
            identity,
            lobby,
            games,
            transcript_dir,
            folder,
            on_peer,
            resumed=False,
            history=history,
            state_home=state_home,
            linger=linger,
        )
    finally:
        if lock is not None:
            lock.release()


def _spill_log(peer: Peer, folder: Path | None) -> None:
    """Let the log keep only its last entries in memory, spilling the older ones to an unnamed
    file in ``folder`` (the seat's, beside its journal), so that a long match does not grow a
    peer's memory (issue 23). Unnamed: nothing to remove, nothing stale for a ``resume`` to
    find (it rebuilds the log from the journal, which holds every entry anyway). If the file
    cannot be made, the log keeps everything in memory, as without a folder."""
    if folder is None:
        return
    try:
        store = FileSpill.unnamed(folder)
    except OSError:
        return
    peer.log.spill_to(store, keep=spill_keep())


def spill_keep() -> int:
    """The entries of each chain a peer's log keeps decoded: :data:`~p2pcards.wire.log.SPILL_KEEP`,
    or ``P2PCARDS_SPILL_KEEP`` from the environment (tests set it tiny to spill a whole match;
    it reaches the peers a test starts as programs of their own)."""
    try:
        return max(1, int(os.environ.get("P2PCARDS_SPILL_KEEP", SPILL_KEEP)))
    except ValueError:
        return SPILL_KEEP


async def _leave_lobby(lobby: LobbyResult, reason: str) -> None:
    """Before the game: a goodbye on every connection of the mesh, then close them."""
    with trio.CancelScope(shield=True), trio.move_on_after(1.0):
        for conn in lobby.links.values():
            try:
                await conn.send(Bye(reason).to_wire())
            except (ConnectionClosed, OSError):
                pass
    for conn in lobby.links.values():
        await conn.aclose()
    if lobby.listener is not None:
        await lobby.listener.aclose()


async def resume_seat(
    folder: Path,
    host: Any,
    agent_factory: Callable[[Game, int, Mapping[str, Any]], SeatAgent],
    *,
    transcript_dir: Path | None = None,
    on_peer: Callable[[Peer], None] | None = None,
    history: bool = False,
    state_home: Path | str | None = None,
    linger: float = LINGER_SECONDS,
) -> SeatOutcome:
    """Bring a seat back after a crash: reload its seed, keys and journal, replay the journal,
    reconnect to every other seat and play on. A seat that another program still plays is
    refused (:class:`~p2pcards.net.store.SeatInUse`). ``history`` and ``linger``: as for
    :func:`play_seat`."""
    lock = SeatLock(folder)
    try:
        return await _resume_seat(
            folder,
            host,
            agent_factory,
            transcript_dir=transcript_dir,
            on_peer=on_peer,
            history=history,
            state_home=state_home,
            linger=linger,
        )
    finally:
        lock.release()


async def _resume_seat(
    folder: Path,
    host: Any,
    agent_factory: Callable[[Game, int, Mapping[str, Any]], SeatAgent],
    *,
    transcript_dir: Path | None,
    on_peer: Callable[[Peer], None] | None,
    history: bool,
    state_home: Path | str | None,
    linger: float,
) -> SeatOutcome:
    state = load_seat_state(folder)
    try:
        over = game_over_in(folder)
    except (OSError, ValueError):  # no journal, or a damaged one: _reopen_journal deals with it
        over = None
    if over is not None and not over.exchange_results:  # at once, without the network: nothing to come back to
        raise GameEnded(folder, over.reason, close_ended_seat(folder, over, transcript_dir, locked=True))
    header = TableHeader.from_wire(state.header)
    game = host.game(header.game)
    if game.rules_version != header.rules_version:
        raise LobbyError(f"{game.id}: the table uses rules {header.rules_version}, we now have {game.rules_version}")
    # When this seat last wrote to its journal: the others have waited for it since then.
    try:
        away_since = time.time() - journal_path(folder).stat().st_mtime
    except OSError:  # no journal (the disk was full as the game began): it starts anew
        away_since = 0.0
    peer = Peer(
        state.identity,
        header,
        state.seat,
        game,
        agent_factory(game, state.seat, header.options),
        seed=state.seed,
    )
    path = journal_path(folder)
    try:
        kept = _reopen_journal(peer, path)
    except OSError as exc:
        raise LobbyError(
            f"cannot resume from {folder}: cannot write its journal {path}: {write_problem(exc)} "
            "(free some space, or fix its permissions, then resume again)"
        ) from None
    peer.journal, entries = kept
    _spill_log(peer, folder)
    peer.load_journal(entries)
    me = header.seats[state.seat]
    try:
        listeners = await trio.open_tcp_listeners(me.port, host=me.host)
    except OSError as exc:
        # The others dial this seat at the address the table's header gives it, so it cannot
        # move to another port. Kept saved (the journal is flushed): it can be resumed again.
        peer.journal.close()
        raise LobbyError(
            f"cannot resume from {folder}: cannot listen at this seat's address at the table, "
            f"{me.host}:{me.port}: {exc.strerror or exc} (another program took that port since the "
            "game began: close it, then resume again; the seat stays saved)"
        ) from None
    lobby = LobbyResult(header, state.seat, {}, listeners[0])
    return await _run_seat(
        peer,
        state.identity,
        lobby,
        host.rules_versions(),
        transcript_dir,
        folder,
        on_peer,
        resumed=True,
        history=history,
        state_home=state_home,
        linger=linger,
        away_for=away_since,
        ended=over,
    )


def _reopen_journal(peer: Peer, path: Path) -> tuple[TranscriptWriter, list[Entry]]:
    """The journal of a seat to resume, opened to append to, and the entries it kept. A torn
    tail (a crash or a full disk mid-write) is cut off; a journal that is missing or holds no
    whole header (the disk was full when the game began) is started anew: the other seats
    send back what it lacks, ours included (recover_own). (A journal with its end record never
    gets here: game_over_in closes that seat first.) Other damage is a :class:`LobbyError`
    saying what to do."""
    try:
        transcript = read_transcript(path, allow_torn=True, verify=True)
    except FileNotFoundError:
        transcript = None
    except TranscriptError as exc:
        if not any(words in exc.reason for words in ("no whole header", "empty transcript")):
            raise LobbyError(
                f"cannot resume: the journal {path} is damaged ({exc}); move it away and resume "
                "again (the other seats send back what it held), or ask them for their transcript"
            ) from None
        transcript = None
    if transcript is None:
        path.unlink(missing_ok=True)
        return TranscriptWriter.create(path, transcript_header(peer)), []
    writer, journal = TranscriptWriter.resume(path)
    return writer, journal.entries


async def _run_seat(
    peer: Peer,
    identity: Identity,
    lobby: LobbyResult,
    games: Mapping[str, str],
    transcript_dir: Path | None,
    folder: Path | None,
    on_peer: Callable[[Peer], None] | None,
    *,
    resumed: bool,
    history: bool = False,
    state_home: Path | str | None = None,
    linger: float = LINGER_SECONDS,
    away_for: float = 0.0,
    ended: GameOver | None = None,
) -> SeatOutcome:
    """Play the seat (``resumed``: after a restart, ``away_for`` seconds since its journal was
    last written; ``ended``: the journal has our result, not every seat's) and write its
    transcript."""
    header, me = lobby.header, lobby.seat
    keep_folder = False  # the game may go on: the seat stays saved for another 'resume'
    gave_up: GameOver | None = None  # our game had finished, and nobody answered to finish theirs
    played = False  # resumed: we recovered and played on

    if transcript_dir is not None:
        peer.session.transcript_path = str(transcript_dir / f"{_stem(peer)}.p2pt")
    if on_peer:
        on_peer(peer)
    full_mesh = trio.Event()

    async def serve(nursery: trio.Nursery, seat: int, conn: Any) -> None:
        peer.attach(seat, conn)
        nursery.start_soon(serve_then_redial, nursery, seat, conn)
        if all(peer.connected(s) for s in range(header.players) if s != me):
            full_mesh.set()

    async def serve_then_redial(nursery: trio.Nursery, seat: int, conn: Any) -> None:
        await peer.serve_connection(seat, conn)
        # The connection dropped. Of each pair the higher seat dials again (the lower one
        # listens), until the other seat's grace period is over; a restarted seat dials everyone.
        # Also once our game is over, while we linger: the other seat may lack our result.
        if seat > me or peer.connections.get(seat) is not conn or seat in peer.left:
            return
        deadline = peer.clock.now() + peer.timings.grace
        delay = REDIAL_FIRST
        while not peer.connected(seat) and seat not in peer.left and peer.clock.now() < deadline:
            await trio.sleep(delay)
            delay = min(delay * 2, REDIAL_MAX)
            try:
                replacement = await dial_seat(identity, header, me, seat, games=games, attempts=1)
            except LobbyError:
                continue
            # Served even if the seat came back meanwhile (a restarted seat dials everyone): the
            # other side has taken this connection as the seat's newest and may be writing to
            # it; closing it lost what it wrote (kill points: a resumed seat's move or deck
            # step never arrived, and the table stalled and named it).
            await serve(nursery, seat, replacement)

    async def accept_loop(nursery: trio.Nursery) -> None:
        await serve_listener(lobby.listener, lambda stream, slot: accept_one(nursery, stream, slot), nursery)

    async def accept_one(nursery: trio.Nursery, stream: Any, slot: Slot) -> None:
        try:
            came = await accept_seat_or_spectator(stream, identity, header, me, games=games, slot=slot)
        except (ProtocolError, ConnectionClosed, FrameError):
            await stream.aclose()
            return
        if isinstance(came, Spectator):
            await peer.spectators.serve(came.conn, came.name)
            return
        seat, conn = came
        await serve(nursery, seat, conn)

    async def dial(nursery: trio.Nursery, seat: int) -> None:
        try:
            await serve(nursery, seat, await dial_seat(identity, header, me, seat, games=games))
        except LobbyError as exc:
            peer.session.publish("connection", str(exc), seat=seat)

    result: Any = None
    aborted: TableAborted | None = None

    async def play() -> None:
        nonlocal result, aborted
        try:
            result = await peer.play()
        except TableAborted as exc:
            aborted = exc
        if aborted is not None and peer.leaves:
            # We leave for a reason of our own (we cannot write, a fault of ours): the others
            # are told now, so that they stop (their stops, which we wait for below) instead
            # of waiting the grace period for us.
            await peer.say_goodbye(aborted.reason)

    leaving = "quit before the game ended"
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(peer.run_background)
            if lobby.listener is not None:
                nursery.start_soon(accept_loop, nursery)
            for seat, conn in lobby.links.items():
                await serve(nursery, seat, conn)
            if resumed:
                # The others' entries from the journal back in the log (acted on only once we have
                # recovered: a seat that restarted too may ask us for them meanwhile), then back to
                # every seat, take back what they hold of our own chain beyond the journal (a power
                # cut takes what was not on disk yet), and play on.
                await peer.replay()
                for seat in range(header.players):
                    if seat != me:
                        nursery.start_soon(dial, nursery, seat)
                aborted, nobody = await _come_back(peer, away_for)
                if aborted is None:
                    await play()
                    played = True
                # Nobody plays the game now. The others waited for us a grace period at
                # most: if we have been away for longer, the game has ended. If ours had
                # finished, its transcript is the journal's, whatever results it lacks.
                keep_folder = nobody and away_for < peer.timings.grace
                gave_up = ended if nobody else None
            else:
                # Of each pair the higher seat dials; all at once (one after another, the last
                # seat of seven finished its mesh 20 ms after the first, and the deck waited).
                for seat in range(1, me):
                    if seat not in lobby.links:
                        nursery.start_soon(dial, nursery, seat)
                if header.players == 1:
                    full_mesh.set()
                with trio.move_on_after(MESH_SECONDS):
                    await full_mesh.wait()
                if not full_mesh.is_set():
                    missing = [header.seats[s].name for s in range(header.players) if s != me and not peer.connected(s)]
                    aborted = TableAborted(f"could not connect to {', '.join(missing)}")
                    # A stop the table caused, naming nobody (we may be the one cut off): not
                    # a goodbye of ours, which verify would read as our player leaving.
                    peer.aborted = aborted
                else:
                    await play()
            if aborted is None or full_mesh.is_set() or played:
                # Keep answering until every seat has its result, so nobody is cut off mid-audit
                # (after a stop: until every seat still here has signed its stop).
                await _linger(peer, linger, finished=aborted is None, awaits=aborted)
                if aborted is None and (owed := peer.party.boxes_missing(leaving=True)):
                    # A seat signed its result (or its stop) before a private box it owed
                    # another seat (only that seat waits for it; every box of a chain comes
                    # before its result or stop), or we leave without its result or that box
                    # (it went, its link broke): our game reached its result, but the table's
                    # did not end as a whole. It stops, naming nobody here, with nothing more
                    # signed, and is judged as every stop is, by verify of our file
                    # (_judge_the_stopper). Issue 29: a seat gone since turn 4 owed the
                    # receiver of a pile its cards' keys; that seat stopped, and verify of our
                    # file named the gone seat while our game had finished naming nobody.
                    sender, receiver = owed[0]
                    names = [s.name for s in header.seats]
                    chain_end = (
                        "stop" if sender in peer.protocol.stopped else "result" if peer.results[sender] else "none"
                    )
                    aborted = peer.aborted = TableAborted(
                        verdict.box_missing(names[sender], names[receiver], ended=chain_end), None, "stop"
                    )
                    result = None
            end = _end_record(peer, result, aborted)  # while connected: who is away matters
            # The spectators get the rest of the log and the end record (bounded in time).
            await peer.spectators.finish(end, _transcript_counts(peer, end))
            nursery.cancel_scope.cancel()
    except BaseException as exc:
        leaving = _leaving_reason(exc)
        raise
    finally:
        if result is None:
            # Every stop says goodbye, with its true reason: leaving before the end (the player
            # quit, Ctrl-C, a fault of ours) signs a bye, so the others end the game now
            # instead of waiting the grace period for us; after a stop, our stop entry says
            # why, and the goodbye on every connection says it again.
            await peer.say_goodbye(aborted.reason if aborted is not None else leaving)
            if aborted is None:
                left = _finish_after_leaving(peer, transcript_dir, folder)
                if history and left is not None:
                    # A game left on purpose is in the leaver's history too, as it ended (not
                    # only after 'history --import'). At once: we are on our way out.
                    from ..history import record_finished_game

                    record_finished_game(left, peer.seat, state_home)
        # Whatever ends us, a cancellation too (the player quit at once, a console going back
        # to its lobby, a test stopping a seat's program), our sockets close here: left open
        # with nobody reading them, every seat still playing blocked in its sends to us until
        # its send timeout (issue 29). Shielded: a listener's aclose ends in a checkpoint.
        with trio.CancelScope(shield=True):
            for conn in list(peer.connections.values()):
                await conn.aclose()
            if lobby.listener is not None:
                await lobby.listener.aclose()
    if aborted is not None and result is None:
        # No more entries come: a fault our log proves that our stop did not see (a seat that
        # played on after its own stop, while we wound down) is named, as verify names it
        # from the transcript we write from this log next (table/verdict.py, one rule).
        aborted = peer.protocol.final_verdict(aborted)
    problem = None
    if keep_folder or gave_up is not None:
        if peer.journal is not None:
            peer.journal.close()
        path = None
        if gave_up is not None and folder is not None:  # as resume does at once for a closed journal
            raise GameEnded(folder, gave_up.reason, close_ended_seat(folder, gave_up, transcript_dir, locked=True))
    else:
        path, problem = _finish(peer, transcript_dir, folder, end)
        if aborted is not None and path is not None:
            aborted = await _judge_the_stopper(peer, aborted, path)
        if path is not None:
            peer.session.transcript_saved = True
            peer.session.publish("saved", f"transcript saved to {path}", path=str(path))
    if problem is None and peer.write_failure is not None:
        problem = peer.write_failure.detail
    if problem is not None:
        peer.session.publish("error", problem)
    outcome = SeatOutcome(peer, result, aborted, path, problem=problem)
    if history and path is not None:
        outcome.history_warning = await _record_history(peer, path, state_home)
    return outcome


async def _linger(peer: Peer, linger: float, *, finished: bool, awaits: TableAborted | None = None) -> None:
    """After our game ended: keep serving the others until every seat has its result
    (``finished``; else until every seat still connected signed its stop), for ``linger``
    seconds, and after a finished game for as long as a seat whose result we lack is still
    connected or away within its grace period: it may have crashed, and comes back
    (``resume``) to replay the game, send its result and take the others' (issue 23; a
    10 s linger let a slow resumed seat, or one killed as it signed its result, end with
    another transcript than ours). Never longer than ``linger`` plus the grace period.

    ``awaits``: our game stopped naming a seat for a stall while nobody had echoed our last
    move or deck entry (``TableAborted.awaits_stop``): that seat may have waited on it, and
    its stop, which shows so, is due within those seconds. We wait for it while that seat is
    connected and our entry is still unheard, and judge it by that stop
    (:func:`_judge_the_stopper`)."""
    done = peer.all_finished if finished else peer.all_stopped
    grace = peer.timings.grace
    deadline = trio.current_time() + linger
    stop_due = trio.current_time() + (awaits.awaits_stop if awaits is not None else 0.0)

    def stop_awaited() -> bool:
        if awaits is None or awaits.awaits_stop <= 0:
            return False  # (no look at the links needed)
        return referee.stop_awaited(awaits, stop_due, trio.current_time(), peer.links(), peer.protocol.stopped)

    with trio.move_on_after(max(linger + grace, stop_due - trio.current_time())):
        while True:
            if stop_awaited():
                await trio.sleep(0.01)
                continue
            if finished:
                await peer.pass_on_results()  # (before we may leave: the others may lack one)
            if done() or (trio.current_time() >= deadline and not (finished and _awaited(peer))):
                return
            if finished and peer.party.boxes_missing():
                return  # a result came without a box its seat owed: the table stops (play_seat)
            await trio.sleep(0.01)


def _awaited(peer: Peer) -> bool:
    """A seat whose result we lack may still sign it: it has not stopped its game nor left,
    and it is connected (a seat back after a crash replays the game first) or away within
    its grace period."""
    for seat in range(peer.header.players):
        if seat == peer.seat or seat in peer.left or seat in peer.protocol.halted:
            continue
        if not peer.results[seat]:
            presence = peer.presence(seat)
            if presence.state == "online":
                return True
            if presence.grace_left is not None and seat not in peer.protocol.absences.gone:
                return True  # (a seat that dropped out and went is not waited for: issue 30)
    return False


def _leaving_reason(exc: BaseException) -> str:
    """Why we leave a game that raised ``exc``: the player (Ctrl-C, a cancelled seat), our
    journal, or an error of this program."""
    leaves = exc.exceptions if isinstance(exc, BaseExceptionGroup) else [exc]
    for leaf in leaves:
        if isinstance(leaf, CannotWrite):
            return leaf.reason
        if isinstance(leaf, OSError):
            return f"cannot write its files: {write_problem(leaf)}"
        if not isinstance(leaf, (trio.Cancelled, KeyboardInterrupt, SystemExit, BaseExceptionGroup)):
            return f"stopped on an error of its own ({type(leaf).__name__}: {str(leaf)[:200]})"
    return "quit before the game ended"


async def _record_history(peer: Peer, path: Path, home: Path | str | None) -> str | None:
    """Record the game in the history at once, from what this seat checked live (every proof
    and signature as it arrived), its transcript's full verification pending until the next
    ``p2pcards history`` (:func:`~p2pcards.history.verify_pending`): the end screen, the
    result and a rematch never wait on seconds of re-verification. In a thread (it reads the
    transcript's header and end record and writes the database; other seats of this program
    play on meanwhile). Shielded: a game whose transcript is written is recorded, even if our
    caller is leaving. A failure is a warning, published to the console too, never an error."""
    from ..history import record_finished_game

    with trio.CancelScope(shield=True):
        warning = await off_the_loop(record_finished_game, path, peer.seat, home)
    if warning is not None:
        peer.session.publish("error", warning)
    return warning


async def _come_back(peer: Peer, away_for: float) -> tuple[TableAborted | None, bool]:
    """After a restart, once the seat dials every other seat: wait until every one has said
    what it holds of our own chain (``None``: play on), or say why the game cannot go on, and
    whether that is because nobody answered. It cannot if no seat answers within
    :data:`RESUME_ANSWER_SECONDS`, or if what the seats that answer send shows its end (a
    seat's signed ``bye``, or our own result, ``bye`` or ``stop`` that our journal lost);
    otherwise the seats that do not answer have the grace period."""
    header, me = peer.header, peer.seat
    others = [s for s in range(header.players) if s != me]
    start = peer.clock.now()
    with trio.move_on_after(RESUME_ANSWER_SECONDS):
        while peer.recovering and not any(peer.connected(s) for s in others):
            await trio.sleep(0.05)
    if peer.recovering and not any(peer.connected(s) for s in others):
        if away_for >= peer.timings.grace:
            return TableAborted(
                f"nobody at the table answered within {RESUME_ANSWER_SECONDS:g} s, and this seat has been away "
                f"for longer than the table waits for a player ({peer.timings.grace:g} s): the game has ended",
                None,
                "resume",
            ), True
        return TableAborted(
            f"nobody at the table answered within {RESUME_ANSWER_SECONDS:g} s: the game has ended, or the other "
            "players' programs are not running now (the seat stays saved: 'p2pcards resume' again once they are back)",
            None,
            "resume",
        ), True
    deadline = start + peer.timings.grace
    while peer.recovering and peer.clock.now() < deadline:
        over = _ended_in_log(peer)
        if over is not None:
            return TableAborted(over.reason, over.end.absent[0] if over.end.absent else None, "resume"), False
        await trio.sleep(0.05)
    if peer.recovering:
        away = peer.missing_answers()
        names = ", ".join(header.seats[s].name for s in away)
        reason = f"{names} did not come back to tell us which of our entries they hold"
        return TableAborted(reason, away[0], "resume"), False
    await peer.recover_own()  # done: hands on what waited for it
    return None, False


def _ended_in_log(peer: Peer) -> GameOver | None:
    """While we recover: what the seats that answered sent (and our journal) shows of the
    game's end (:func:`~.ended.ended_game`), or every other seat having stopped its game."""
    me = peer.seat
    entries = peer.ending_entries()  # the entries ended_game reads, not the whole log
    logged = len(entries)
    entries += list(peer.protocol.replay_own)  # ours from the journal, and those taken back
    over = ended_game(entries, me, [s.name for s in peer.header.seats])
    if over is not None and not over.exchange_results:  # else: back to the table for the results
        return over
    halted = {e.sender for e in entries[:logged] if e.kind in ("stop", "bye")}
    if halted >= set(range(peer.header.players)) - {me}:
        return GameOver(
            "the game has ended: every other seat has stopped its game",
            TranscriptEnd("aborted", None, (), "every other seat stopped its game"),
        )
    return None


def _stem(peer: Peer) -> str:
    return transcript_stem(peer.header.table, peer.seat)


def _finish(
    peer: Peer, transcript_dir: Path | None, folder: Path | None, end: TranscriptEnd
) -> tuple[Path | None, str | None]:
    """Close the journal and write the final transcript, in canonical order (byte-identical
    at every seat that saw the same log): its path, and what could not be written (one line
    for the player, saying where the game is kept), if anything."""
    journal = peer.journal
    problem = None
    if journal is not None:
        try:
            if journal.failed is None:
                journal.write_end(end)
        except OSError as exc:
            problem = f"cannot write the journal's end ({journal.path}): {write_problem(exc)}"
        finally:
            try:
                journal.close()
            except OSError:
                pass  # said above, or the journal had failed during the game (said then)
    path = None
    if transcript_dir is not None:
        target = transcript_dir / f"{_stem(peer)}.p2pt"
        entries = _transcript_entries(peer, end)
        try:
            transcript_dir.mkdir(parents=True, exist_ok=True)
            write_transcript(target, transcript_header(peer), entries, peer.log.blames, end)
        except OSError as exc:
            problem = f"cannot write the transcript {target}: {write_problem(exc)}; " + _kept_in(journal, folder)
        else:
            path = target
            stray = transcript_dir / f"{_stem(peer)}.journal"
            stray.unlink(missing_ok=True)
    if folder is not None and path is not None:
        remove_seat_folder(folder)  # the transcript now holds everything worth keeping
    return path, problem


#: The verifications of our own transcripts at the end of stopped games (_judge_the_stopper)
#: run in a thread each, one at a time per trio run: several seats in one process (simulate,
#: the tests) would otherwise replay their transcripts all at once, each holding a replay's
#: memory, for no gain (the replay is Python: the GIL runs one at a time anyway).
_VERIFY_LIMITER: trio.lowlevel.RunVar[trio.CapacityLimiter] = trio.lowlevel.RunVar("p2pcards_verify_limiter")


def _verify_limiter() -> trio.CapacityLimiter:
    try:
        return _VERIFY_LIMITER.get()
    except LookupError:
        limiter = trio.CapacityLimiter(1)
        _VERIFY_LIMITER.set(limiter)
        return limiter


async def verify_off_the_loop(path: Path) -> Report:
    """``verify_file(path)`` without blocking the event loop: in a thread (one at a time per
    trio run, :data:`_VERIFY_LIMITER`), whose context is a copy of ours. It only reads the
    file, so a cancel does not wait for it (the thread finishes on its own).

    On a virtual clock it runs in the loop instead (net/threads.py)."""
    from ..verify import verify_file

    return await off_the_loop(
        verify_file, path, thread_name="p2pcards verify", abandon_on_cancel=True, limiter=_verify_limiter()
    )


async def _judge_the_stopper(peer: Peer, aborted: TableAborted, path: Path) -> TableAborted:
    """Our game stopped on the ``stop`` entry of a seat we waited on, naming nobody (its word
    proves nothing: ``TableProtocol.halted_among``), or on a seat's signed goodbye. The stopper
    is judged by what its signed stop shows it held, and a fault the signed entries prove (a
    deck message the protocol never called for, say) comes before a goodbye (protocol/table.md
    section 5, "Stops in the transcript"): that is what ``p2pcards verify`` does with our
    transcript. Now that it is written, we run the same check on it, and a seat it names is our
    verdict too (issue 28: verify named a stopper that held everything it owed, while the seats
    that stopped on it named nobody; and a seat whose deviation the signed entries prove, while
    the seats that stopped on a later goodbye named the player who quit).

    Our game stopped naming a seat whose deck message or move did not come in time (a stall),
    and that seat stopped its game too (its ``stop`` came while we wound down): the one stall
    verdict on what its stop shows (table/stall.py: that it never received an entry the game had
    reached, say) is ours too. If it names nobody, nobody is named (the
    review closing issue 28: a seat whose sends were all lost waited on the next seat, which
    waited on it, and named it; its stop, which came just after, showed it never received the
    entry it was to answer).

    Our game stopped naming nobody only on the word of the seat we waited on, that it waited
    on others (``TableAborted.excused_by``: its ``links`` notice, table/stall.py rule 6, which
    verify never sees), and that seat's stop came: if our file's verdict names one of those
    others (the signed entries bear its word out) or that seat itself (its stop shows it held
    all it needed), that verdict is ours (issue 29's flake
    hunt: a seat picking up a pile waited on the keys of a seat that was cut and never came
    back; it named that seat, verify of every file did, and the seats that waited on its move
    named nobody). The replay takes seconds on a long match's transcript: it runs off
    the event loop (:func:`verify_off_the_loop`), which meanwhile serves what else runs in it
    (other seats in this process, the console, a rematch room)."""
    halted = aborted.seat is None and aborted.step == "stop"
    named = aborted.seat
    excuser = aborted.excused_by[0] if aborted.excused_by is not None else None
    try:
        goodbye = (
            named is not None and aborted.step == "connection" and any(e.kind == "bye" for e in peer.log.entries(named))
        )
        # (A stall on a mover owed boxes we lacked is judged by our file also when its stop
        # never came: it may be gone, our file still short of those boxes. Review 29c: a
        # drawer cut off for good while a key of its card was withheld was named.)
        stalled = (
            named is not None
            and aborted.stall
            and (bool(aborted.owed_by) or any(e.kind == "stop" for e in peer.log.entries(named)))
        )
        excused = excuser is not None and any(e.kind == "stop" for e in peer.log.entries(excuser))
    except OSError:  # our spill cannot give its entries back: our transcript says so
        goodbye = stalled = excused = False
    if not (halted or goodbye or stalled or excused):
        return aborted
    from ..verify import EXIT_FAILED

    report = await verify_off_the_loop(path)
    found = report.problem
    if stalled and aborted.owed_by and found is not None and found.seat != named:
        # It was owed boxes of a seat that had not reached us (Wait.look, ``owed_by``): our
        # file's verdict is ours when it names nobody (nothing in it proves a fault: it may
        # lack those boxes still, the named seat gone) or traces the stall to a seat whose
        # boxes we lacked (the sender; or nobody, if that seat's own stop excuses it).
        if found.seat is None or found.seat in aborted.owed_by or found.waited_on in aborted.owed_by:
            return TableAborted(f"{found.reason} (from our transcript, {found.step})", found.seat, "stop")
    if report.status != EXIT_FAILED or found is None or found.seat == aborted.seat:
        return aborted
    if stalled:
        if found.seat is not None or found.waited_on != named:
            # The stall stays ours: only the stall verdict on what the named seat's own stop
            # shows, naming nobody, excuses it. Not a verdict on a later step, which the file
            # reaches only with the entry we timed out on, come while we wound down (the
            # hostile review closing issue 28: a follower that opened its sealed response a
            # moment past the deadline went on to be named by nobody, everywhere).
            return aborted
        return TableAborted(f"{found.reason} (from our transcript, {found.step})", None, "stop")
    if excused and aborted.excused_by is not None and found.seat not in aborted.excused_by[1] | {excuser}:
        # Only a verdict on the seat whose word spared it (its stop shows it held all it
        # needed: stall.py rule 6b) or on a seat it named (the signed entries bear its word
        # out) changes ours: not one on another seat or step (review 29x: a seat that cut its
        # link, said it waited on the seat it cut, and stopped past our last call was named
        # by verify of our file while we named nobody).
        return aborted
    if found.seat is None:
        return aborted
    return TableAborted(f"{found.reason} (from our transcript, {found.step})", found.seat, "stop")


def _transcript_entries(peer: Peer, end: TranscriptEnd) -> Iterator[Entry]:
    """The entries of our transcript, in canonical order, streamed: the older ones are read
    back from the log's spill one by one (one it cannot read raises
    :class:`~p2pcards.wire.spill.SpillError`, an :class:`OSError`, as the write goes)."""
    # Not an entry that waits for what its author had seen and never came (a chat line
    # after the results may echo another that has not reached us): every echo in the
    # file is then backed by the file, as verify requires of a finished game.
    return peer.log.closed() if end.status == "finished" else peer.log.canonical()


def _transcript_counts(peer: Peer, end: TranscriptEnd) -> list[int]:
    """Per seat, how many of its entries :func:`_transcript_entries` lists (for a reader that
    reads them itself: the spectators, each at its own pace)."""
    log = peer.log
    return log.closed_counts() if end.status == "finished" else [log.next_seq(s) for s in range(len(log.roster))]


def _kept_in(journal: TranscriptWriter | None, folder: Path | None) -> str:
    """Where the game is kept when its transcript could not be written, and what to do."""
    if journal is None or journal.failed is not None:
        return "the game is kept only by the other seats (ask them for their transcript)"
    if folder is not None:
        return f"the game is kept in {journal.path}: free some space, then 'p2pcards resume {folder}' saves it"
    return f"the game is kept in {journal.path} (check it: p2pcards verify {journal.path})"


def _finish_after_leaving(peer: Peer, transcript_dir: Path | None, folder: Path | None) -> Path | None:
    """We leave before the end (the player quit, Ctrl-C). Once our ``bye`` (or ``stop``) is
    signed the game cannot go on for this seat: the transcript is written and the seat's folder
    removed now, as at any end. Without one (a seat that left while it recovered after a restart
    signs nothing) the seat stays saved for 'resume'. Returns the transcript written, if any."""
    if peer.journal is None or peer.journal.ended:
        return None
    if not any(peer.log.entry(peer.seat, q).kind in ("bye", "stop") for q in peer.endings[peer.seat]):
        return None
    note = f"{peer.header.seats[peer.seat].name} left the table: quit before the game ended"
    try:
        path, _ = _finish(peer, transcript_dir, folder, TranscriptEnd("abandoned", None, (peer.seat,), note))
    except (OSError, ValueError):
        return None  # we are leaving all the same; 'resume' closes the seat from its journal later
    return path


def _end_record(peer: Peer, result: Result | None, aborted: TableAborted | None) -> TranscriptEnd:
    if aborted is not None:
        # Gone: its connection is down, or it signed a goodbye (it may linger a moment).
        seat = aborted.seat
        absent: tuple[int, ...] = (
            (seat,) if seat is not None and (not peer.connected(seat) or seat in peer.left) else ()
        )
        if not absent and aborted.step == "resume":  # back after a restart: who never answered
            absent = tuple(s for s in range(peer.header.players) if s != peer.seat and not peer.connected(s))
        status = "abandoned" if absent else "aborted"
        return TranscriptEnd(status, None, absent, aborted.reason[:1000])
    return TranscriptEnd("finished", result.to_wire() if result else None)
