"""The spectator's table (p2pcards/net/spectate.py, console/spectator.py): a whole Cal's BS
game between bot peers on 127.0.0.1, watched through seat 0 by a session without a seat, fed
the public entries as they come. It follows the game to the players' own result, and nothing
it showed before the end (every event, every view of the table) names a card that was not
turned up for everyone."""

from pathlib import Path
from typing import Any

import pytest
import trio

from p2pcards.cards import Card
from p2pcards.console.app import TableStart
from p2pcards.console.spectator import WatchTable
from p2pcards.console.viewmodel import table_model
from p2pcards.net import spectators as spectators_module
from p2pcards.plugins import load_plugins
from p2pcards.table.protocol import LEFT_TO_BOT, left_to_bot_words
from p2pcards.table.timeouts import Timeouts
from p2pcards.testing import play_loopback
from p2pcards.wire.identity import Identity
from p2pcards.wire.transcript import read_transcript

from .test_watch import GAME, _play, _public_faces


def _cards_in(value: Any) -> list[Card]:
    """Every Card inside a view or an event's data."""
    if isinstance(value, Card):
        return [value]
    if isinstance(value, dict):
        return [c for v in value.values() for c in _cards_in(v)]
    if isinstance(value, (list, tuple, set)):
        return [c for v in value for c in _cards_in(v)]
    return []


def _spectator(peer: Any, seat: int, name: str, folder: Path) -> WatchTable:
    """A spectator named ``name`` watching through ``seat`` of ``peer``'s table (its transcript
    in ``folder / name``)."""
    me = peer.header.seats[seat]
    return WatchTable(me.host, me.port, Identity.generate(), load_plugins(), name=name, transcript_dir=folder / name)


async def test_a_spectators_table_follows_the_game_and_shows_no_hidden_face(tmp_path: Path, virtual_clock):
    shown: list[tuple[str, Any]] = []  # (text, data or view) as the spectator's screen got them
    got: dict = {}

    async def watch(peer):
        runner = _spectator(peer, peer.seat, "eve", tmp_path)

        def show(session, **kwargs):
            got["session"] = session

            def seen(event):
                if session.result is None:  # before the audit opened every card
                    shown.append((event.text, event.data))
                    shown.append(("", session.view()))

            session.subscribe(seen)

        await runner(TableStart(show, lambda text: None))
        got["runner"] = runner

    with trio.fail_after(120):
        table, peers = await _play(tmp_path, watch)
    table.check()
    session, runner = got["session"], got["runner"]
    players = peers[0].session
    # The spectator's table reached the players' result, move for move.
    assert session.result is not None and session.result.to_wire() == players.result.to_wire()
    assert session.replica.actions == players.replica.actions
    assert "verified" in runner.outcome
    story = [e.text for e in session.history if e.kind == "story"]
    assert story and story == [e.text for e in players.history if e.kind == "story"]

    # Nothing shown before the end names a card not turned up for everyone.
    public = set(_public_faces(peers[0]).values())
    cards = load_plugins().game(GAME).deck(peers[0].header.options, 3)
    hidden = {c.unicode() for c in cards} - {c.unicode() for c in public}
    assert hidden, "some cards stayed face down"
    named = [c for _, data in shown for c in _cards_in(data)]
    assert named, "the spectator saw the cards turned up"
    assert {c.unicode() for c in named} <= {c.unicode() for c in public}
    texts = " ".join(text for text, _ in shown)
    assert not [face for face in hidden if face in texts]


async def test_a_spectator_is_told_a_player_left_to_a_bot_as_the_players_are(tmp_path: Path, virtual_clock):
    """A seat's own signed line that its player left and a bot finishes the seat: the
    spectator's screen says it in the players' words, not as a chat line."""
    got: dict = {}

    async def watch(peer):
        runner = _spectator(peer, peer.seat, "eve", tmp_path)

        def show(session, **kwargs):
            got["session"] = session
            peer.session.say(LEFT_TO_BOT)  # seat 0's own line, as Peer.leave_to_bot signs it

            def seen(event):
                if event.kind == "notice" and "; a bot plays " in event.text:
                    got["marks"] = [line.presence_text for line in table_model(session).seats]

            session.subscribe(seen)

        await runner(TableStart(show, lambda text: None))

    with trio.fail_after(120):
        table, peers = await _play(tmp_path, watch)
    table.check()
    name = peers[0].header.seats[0].name
    events = [(e.kind, e.text) for e in got["session"].history]
    assert ("notice", left_to_bot_words(name)) in events, events
    assert not [text for kind, text in events if kind == "chat" and LEFT_TO_BOT in text]
    assert ("notice", left_to_bot_words(name)) in [(e.kind, e.text) for e in peers[1].session.history]
    # The seat list marks the seat as the players' lists do (issue 30's review: no mark there).
    assert got["marks"] == ["bot plays", None, None], got.get("marks")


@pytest.mark.slow  # a game in real time
async def test_spectators_chat_where_the_table_allows_it(tmp_path: Path, monkeypatch):
    """Two spectators, through seats 0 and 1: eve's line reaches every player (relayed by seat
    0 to the others, marked as a spectator's) and the other spectator, never the signed log;
    lines past the rate limit are dropped; at a table without spectator chat nothing is sent."""
    # Real time: on the autojump clock no line reached the seats (not studied yet; issue 29).
    # One line a minute: eve's three lines, sent one after the other, always fall within it
    # (with the game's one second, a loaded machine let "spam" in, once in the runs of issue 29).
    monkeypatch.setattr(spectators_module, "SAY_SECONDS", 60.0)
    got: dict = {}

    async def watch_through(peer, seat: int, name: str, lines: list[str]):
        runner = _spectator(peer, seat, name, tmp_path)

        def show(session, **kwargs):
            got[name] = session

            async def talk():
                for line in lines:
                    session.say(line)
                    await trio.sleep(0)

            got.setdefault("talks", []).append(talk)

        await runner(TableStart(show, lambda text: None))

    async def watch(peer):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(watch_through, peer, 0, "eve", ["hello players", "spam", "spam"])
            nursery.start_soon(watch_through, peer, 1, "frank", [])
            with trio.fail_after(30):
                while not ("eve" in peer.watching() and "frank" in peer.watching()):
                    await trio.sleep(0.01)
            for talk in got["talks"]:
                await talk()

    with trio.fail_after(120):
        table, peers = await _play(tmp_path, watch, spectator_chat=True)
    table.check()
    for seat in range(3):
        said = [e.text for e in peers[seat].session.history if e.kind == "chat"]
        assert said == ["eve (watching): hello players"], (seat, said)  # one line a minute
    assert "eve (watching): hello players" in [e.text for e in got["frank"].history if e.kind == "chat"]
    for path in table.transcripts:
        assert not [e for e in read_transcript(path).entries if e.kind == "chat"]


async def test_no_spectator_chat_unless_the_table_allows_it(tmp_path: Path, virtual_clock):
    got: dict = {}

    async def watch(peer):
        runner = _spectator(peer, 0, "eve", tmp_path)

        def show(session, **kwargs):
            got["eve"] = session
            session.say("hello players")

        await runner(TableStart(show, lambda text: None))

    with trio.fail_after(120):
        table, peers = await _play(tmp_path, watch)
    table.check()
    assert not [e for s in range(3) for e in peers[s].session.history if e.kind == "chat"]
    errors = [e.text for e in got["eve"].history if e.kind == "error"]
    assert any("does not let spectators chat" in text for text in errors)


@pytest.mark.slow  # whole games on the mental-poker deck
@pytest.mark.parametrize(
    "game_id, players, options",
    [
        ("crazy-eights", 3, {}),
        ("calypso", 4, {}),
        ("cals-bs", 3, {"turn_mode": "free", "match_target": 1}),
        ("holdem", 3, {"hand_limit": 3}),  # folds, showdowns, a match of hands
    ],
)
async def test_a_spectators_table_follows_the_other_bundled_games(
    tmp_path: Path, game_id: str, players: int, options: dict, virtual_clock
):
    """Draws and passes (re-handled cards) and tricks, and Cal's BS in free order (sealed
    responses: the spectator orders the commitments and reads the openings): the spectator's
    table reaches the players' own result, move for move, and its transcript verifies."""
    if game_id not in load_plugins().games:
        pytest.skip(f"{game_id} is not installed")
    first, peers, got = trio.Event(), {}, {}

    def on_peer(peer):
        peers[peer.seat] = peer
        if peer.seat == 0:
            first.set()

    async with trio.open_nursery() as nursery:

        async def watch():
            await first.wait()
            runner = _spectator(peers[0], 0, "eve", tmp_path)
            await runner(TableStart(lambda session, **kw: got.setdefault("session", session), lambda text: None))
            got["runner"] = runner

        nursery.start_soon(watch)
        table = await play_loopback(
            game_id,
            players,
            options,
            seats="random",
            timeouts=Timeouts(deck=30, turn=30, grace=20),
            transcript_dir=tmp_path / "seats",
            on_peer=on_peer,
            linger=5,
            # Virtual seconds: Cal's BS in free order takes about 90 of them here, and more
            # under load (a side-by-side run hit 120 with the game still on, and the spectator
            # was cut by the limit); the test's real time is bounded by its tier's timeout.
            time_limit=600,
        )
    table.check()
    session, players_session = got["session"], peers[0].session
    assert session.result.to_wire() == players_session.result.to_wire()
    assert session.replica.actions == players_session.replica.actions
    assert got["runner"].report.verdict == "verified"
