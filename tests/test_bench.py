"""``p2pcards bench`` runs real peers (one process per seat, 127.0.0.1 only) and reports one row
per case. Only the shape is tested here: speed targets live in the benchmark, not in timed tests."""

from __future__ import annotations

import json

import pytest

from p2pcards.bench import CASES, analyse_game, judge_targets, to_text

ROW_NUMBERS = (
    "median_ms",
    "floor_ms",
    "ratio_to_floor",
    "baseline_ms",
    "ratio_to_baseline",
    "times_faster_than_baseline",
    "verify_ms",
    "verify_floor_ms",
    "verify_ratio_to_floor",
)


def test_quick_json_run_of_one_case(cli, tmp_path):
    keep = tmp_path / "games"
    run = cli("bench", "--quick", "--json", "--case", "bs3", "--keep", str(keep), timeout=240)
    assert run.returncode == 0, run.stdout + run.stderr
    # --keep leaves the game's folder: one timing line per peer, each with its CPU samples.
    lines = [json.loads(line) for line in (keep / "bs3-0" / "timings.jsonl").read_text().splitlines()]
    assert sorted(line["seat"] for line in lines) == [0, 1, 2]
    assert all(line["cpu"] and line["status"] == "finished" for line in lines)
    again = cli("bench", "--quick", "--case", "bs3", "--keep", str(keep))
    assert again.returncode == 1 and "is not empty" in again.stderr
    report = json.loads(run.stdout)
    assert report["quick"] is True and report["games_per_case"] == 1
    assert report["scalar_mult_us"] > 0 and report["sra_modulus_bits"] == 2048
    [row] = report["cases"]
    assert (row["case"], row["game"], row["players"], row["cards"]) == ("bs3", "cals-bs", 3, 54)
    # the chain of 2N passes, each checked, computed and proven in turn
    assert row["critical_mults"] == 3 * ((3 * 54 + 13) + 54 + (7 * 54 + 10)) + 3 * (4 * 54 + 54 + 2 * 54)
    for key in ROW_NUMBERS:
        assert isinstance(row[key], (int, float)) and row[key] > 0, key
    assert row["baseline_cards_measured"] == 8  # --quick: a subset of one pass, scaled
    assert len(row["setup_samples_ms"]) == 1
    assert row["transcript_bytes"] > 0 and row["bytes_sent_per_peer"] > 0
    assert row["scalar_mult_us"] > 0  # measured around this case's games
    assert row["journal_fsync_median_ms"] > 0  # each peer fsyncs its journal (in the background)
    # the modelled setup of a machine per peer: the hop is the session layer's cost plus 1 ms
    assert row["model_lan_ms"] == 1.0 and row["model_hop_ms"] > 1.0 and row["model_threads"] >= 1
    assert row["model_ms"] > 8 * row["model_hop_ms"]  # eight hops one after another at least
    assert row["model_ratio_to_floor"] == pytest.approx(row["model_ms"] / row["floor_ms"], abs=1e-3)
    assert row["model_one_thread_ratio_to_floor"] == pytest.approx(
        row["model_one_thread_ms"] / row["floor_ms"], abs=1e-3
    )
    assert row["setup_cpu_ms"] > 0 and row["setup_cpu_bound_ms"] == pytest.approx(
        row["setup_cpu_ms"] / report["machine"]["cpus"], abs=1e-3
    )
    assert row["setup_cpu_per_peer_ms"] == pytest.approx(row["setup_cpu_ms"] / 3, abs=1e-3)
    proofs = row["proofs"]  # what the proofs cost, next to the passes without them
    assert proofs["shuffle_proof_bytes"] > 3 * 54 * 32 and proofs["relock_proof_bytes"] > 54 * 32
    assert proofs["peer_passes_with_proofs_ms"] > proofs["peer_passes_without_proofs_ms"] > 0
    assert proofs["proof_cost_ratio"] > 1
    for name, move in row["moves"].items():
        assert name in ("face_down_play", "doubt_reveal_pickup")
        assert move["count"] >= 1 and 0 < move["median_ms"] <= move["max_ms"]
        assert move["cpu_ms"] > 0 and move["cpu_bound_ms"] > 0
    assert "face_down_play" in row["moves"]  # every hand of Cal's BS starts with face-down plays
    # every target of a Cal's BS case is judged on the run's own figures
    verdicts = {t["target"]: t for t in report["targets"]}
    assert verdicts["setup x floor"]["value"] == row["ratio_to_floor"]
    assert verdicts["setup ms (all peers here)"]["value"] == row["median_ms"]
    assert verdicts["face-down play ms"]["value"] == row["moves"]["face_down_play"]["median_ms"]
    assert all(t["case"] == "bs3" and isinstance(t["met"], bool) for t in report["targets"])
    text = to_text(report)  # what scripts/bench prints without --json
    assert "bs3" in text and "face-down play" in text and "/cores" in text
    assert "Modelled, not measured" in text and "Against the targets" in text
    assert "The proofs (deck protocol 2)" in text


def test_unknown_case_is_refused(cli):
    run = cli("bench", "--case", "poker")
    assert run.returncode == 2
    assert "invalid choice" in run.stderr


def test_a_case_whose_game_is_not_installed_is_reported(monkeypatch, capsys):
    from p2pcards import bench

    monkeypatch.setitem(bench.CASES, "nosuch3", bench.Case("nosuch3", "no-such-game", 3, {}, "not installed"))
    assert bench.main(["--quick", "--case", "nosuch3"]) == 1
    assert "case nosuch3: no game 'no-such-game' (installed: " in capsys.readouterr().err


def test_a_network_share_out_of_range_is_refused(cli):
    run = cli("bench", "--quick", "--lan-ms", "-1")
    assert run.returncode == 2 and "--lan-ms takes 0 to 1000" in run.stderr


def test_moves_are_timed_from_the_send_until_the_last_peer_applied_them():
    def line(seat, sent, events):
        return {"seat": seat, "game": "cals-bs", "sent": sent, "events": events, "bytes_sent": 10, "transcript": None}

    lines = [
        line(
            0,
            [[1.0, "deck", None], [5.0, "action", 0]],
            [
                [3.0, "deal", 2],
                [5.1, "action", [0, "play"]],
                [6.0, "turn", None],
                [7.2, "action", [1, "doubt"]],
                [7.3, "progress", "x"],
                [7.4, "reveal", None],
                [7.5, "transfer", 2],
            ],
        ),
        line(
            1,
            [[1.5, "deck", None], [7.0, "action", 1]],
            [
                [3.5, "deal", 2],
                [5.3, "action", [0, "play"]],
                [7.1, "action", [1, "doubt"]],
                [7.6, "reveal", None],
                [7.9, "transfer", 2],
                [8.0, "turn", None],
            ],
        ),
    ]
    lines[0]["syncs"] = [[1.0, 0.0004], [5.0, 0.0002]]
    figures = analyse_game(lines)
    assert figures.syncs == [0.0004, 0.0002]
    assert (figures.setup, figures.setup_after_last_commit) == (2.5, 2.0)
    assert figures.moves == {"face_down_play": pytest.approx([0.3]), "doubt_reveal_pickup": pytest.approx([0.9])}
    assert figures.rehandled == 2 and figures.bytes_sent == [10, 10]
    assert figures.setup_cpu is None and figures.move_cpu == {}  # lines without CPU samples

    # CPU samples [t, seconds used so far]: each peer counts from its last sample at or before the
    # start to its first at or after the moment it was itself done; summed over the peers.
    lines[0]["cpu"] = [[0.5, 0.010], [1.0, 0.011], [3.0, 0.020], [5.0, 0.021], [5.1, 0.022], [7.5, 0.027], [8.5, 0.030]]
    lines[1]["cpu"] = [
        [0.5, 0.010],
        [2.0, 0.012],
        [3.5, 0.018],
        [5.3, 0.0185],
        [7.0, 0.0195],
        [7.9, 0.024],
        [9.0, 0.025],
    ]
    figures = analyse_game(lines)
    assert figures.setup_cpu == pytest.approx((0.020 - 0.011) + (0.018 - 0.010))  # 1.0 .. 3.0 and 3.5
    assert figures.move_cpu["face_down_play"] == pytest.approx([(0.022 - 0.021) + (0.0185 - 0.018)])  # 5.0 ..
    assert figures.move_cpu["doubt_reveal_pickup"] == pytest.approx([(0.027 - 0.022) + (0.024 - 0.0195)])  # 7.0 ..


def test_cases_cover_the_issue():
    assert {(c.game, c.players) for c in CASES.values()} == {
        ("cals-bs", 3),
        ("cals-bs", 5),
        ("cals-bs", 7),
        ("calypso", 4),
        ("calypso", 3),
        ("crazy-eights", 2),
    }  # the last one checks the modelled setup against a measured one


def _row(case, **figures):
    row = {
        "case": case,
        "ratio_to_floor": 1.0,
        "times_faster_than_baseline": 200.0,
        "verify_ratio_to_floor": 1.3,
        "moves": {},
        "median_ms": 450.0,
        "setup_cpu_per_peer_ms": 300.0,
    }
    row.update(figures)
    return row


def test_each_case_is_judged_on_its_own_targets():
    rows = [
        _row(
            "bs5",
            ratio_to_floor=1.63,
            moves={"face_down_play": {"median_ms": 2.1}, "doubt_reveal_pickup": {"median_ms": 7.1}},
        ),
        _row(
            "calypso4",
            ratio_to_floor=0.98,
            times_faster_than_baseline=99.5,
            verify_ratio_to_floor=1.5,
            moves={"card_play_reveal": {"median_ms": 5.0}},
        ),
        _row("calypso3", ratio_to_floor=1.2, verify_ratio_to_floor=None),  # verify did not run
        _row("eights2", ratio_to_floor=9.0),  # no target: the model's check
        _row("bs7", ratio_to_floor=1.1, setup_cpu_per_peer_ms=250.0),
        _row("bs3", ratio_to_floor=1.1, median_ms=520.0),
    ]
    verdicts = {(t["case"], t["target"]): (t["bound"], t["limit"], t["met"]) for t in judge_targets(rows)}
    assert verdicts == {
        ("bs5", "setup x floor"): ("<=", 1.2, False),
        ("bs5", "face-down play ms"): ("<", 5.0, True),
        ("bs5", "doubt + reveal + pickup ms"): ("<", 5.0, False),
        ("calypso4", "setup x floor"): ("<=", 1.2, True),
        ("calypso4", "x faster than SRA"): (">=", 100.0, False),
        ("calypso4", "card (play + reveal) ms"): ("<", 5.0, False),  # under 5 ms, so 5.0 misses
        ("calypso4", "verify x floor"): ("<=", 1.5, True),
        ("calypso4", "setup ms (all peers here)"): ("<=", 4000.0, True),
        ("calypso4", "setup CPU ms per peer"): ("<=", 1600.0, True),
        ("calypso3", "setup x floor"): ("<=", 1.2, True),
        ("bs7", "setup x floor"): ("<=", 1.2, True),
        ("bs7", "setup CPU ms per peer"): ("<=", 280.0, True),
        ("bs3", "setup x floor"): ("<=", 1.2, True),
        ("bs3", "setup ms (all peers here)"): ("<=", 500.0, False),
    }


def test_the_long_match_case_verifies_a_cached_transcript(tmp_path):
    """bs3long: the transcript kept in the cache folder is verified in a fresh process and
    judged (here a short match put there, so as not to play 160 hands in a test)."""
    from p2pcards import bench
    from p2pcards.testing import run_loopback

    table = run_loopback("cals-bs", 3, {"match_target": "1"}, transcript_dir=tmp_path / "played", reaction=0.0)
    table.check()
    cache = tmp_path / "cache"
    cache.mkdir()
    kept = bench.long_match_path(cache)
    kept.write_bytes(table.transcripts[0].read_bytes())
    row = bench.run_long_case(cache)
    assert row["case"] == bench.LONG_CASE and row["transcript"] == str(kept)
    assert row["transcript_bytes"] == kept.stat().st_size and row["hands"] >= 1 and row["moves"] > 0
    assert row["verify_s"] > 0 and row["verify_cpu_s"] > 0 and 0 < row["peak_rss_mb"] < 1000
    assert row["mb_per_s"] == pytest.approx(row["transcript_bytes"] / 1e6 / row["verify_s"], rel=0.01)
    verdicts = {t["target"]: t for t in bench.judge_long(row)}
    assert set(verdicts) == {"verify s (wall)", "peak MB", "MB/s", "hands"}
    assert verdicts["hands"]["met"] is False  # one hand, not a hundred
    assert verdicts["peak MB"]["value"] == row["peak_rss_mb"]
    text = to_text({**_empty_report(), "long_match": row, "targets": bench.judge_long(row)})
    assert "The long match" in text and "bs3long" in text


def _empty_report():
    return {"scalar_mult_us": 90.0, "games_per_case": 1, "cases": [], "machine": {"cpus": 2}}


def test_bench_races_judges_the_share_of_races_a_hop_apart_against_its_target():
    """scripts/bench-races, not a test, judges the speed figure (tests/net/test_races_netns.py
    prints it): a delay whose races more than a median hop apart the first actor won less often
    than SHARE_TARGET gets a line, and the bench's exit status says so."""
    from p2pcards.bench_races import DelayFigures, Race, below_target

    def races(won: int, lost: int) -> list[Race]:
        return [Race(1, 0, 1, 0.05, 0 if i < won else 1, 0.02) for i in range(won + lost)]

    good = DelayFigures(20, races=races(19, 1), hops=[0.025])
    short = DelayFigures(50, races=races(16, 1), hops=[0.025])
    assert below_target([good]) == []
    (line,) = below_target([good, short])
    assert line.startswith("below target at 50 ms") and "16/17" in line
    assert below_target([DelayFigures(0)]) == []  # no races: nothing to judge
