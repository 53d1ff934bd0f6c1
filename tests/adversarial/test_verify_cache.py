"""adv_table.verify keeps ``p2pcards verify --json``'s result by the file's SHA-256 and the
installed games. What verify says of a file is not a function of its bytes alone: it loads the
game from the installed plugins (verify/check.py, load_game). A test that changes the plugins
(test_plugin_failure's ``buggy`` fixture, the plugin allow/block lists, a rules version) and
verifies bytes verified before in the same process must get verify's new verdict (review of
this cache: it once kept the old one)."""

from __future__ import annotations

import p2pcards.plugins as plugins
from p2pcards.net.peer import Peer
from p2pcards.verify import EXIT_UNREADABLE, EXIT_VERIFIED, verify_file

from .adv_table import run_table, verify


def test_verify_follows_the_installed_plugins_not_only_the_bytes(tmp_path, monkeypatch):
    run = run_table("crazy-eights", 3, {"hand_size": 3}, cheater=2, peer_factory=Peer, transcript_dir=tmp_path)
    path = run.outcomes[0].transcript
    assert path is not None and path.exists(), run.describe()
    assert verify(path)[0] == EXIT_VERIFIED, run.describe()
    # The same bytes on a machine where the game is not installed: verify cannot read them.
    monkeypatch.setattr(plugins, "_host", plugins.PluginHost())
    assert verify_file(path).status == EXIT_UNREADABLE  # the command itself says so
    status, report = verify(path)
    assert status == EXIT_UNREADABLE and "not installed" in report["problem"]["reason"], report
