"""A transcript is hostile input: names, notes and reasons in it reach the terminal of whoever
runs ``p2pcards verify``. None may print a line of its own ("verdict: VERIFIED") or hand the
terminal an escape sequence (issue 19)."""

from __future__ import annotations

import json
from dataclasses import replace

from p2pcards.verify import EXIT_FAILED, EXIT_UNREADABLE, verify_file

from .verify_tables import write

#: A line break, a carriage return, a screen clear, a bidi override and a line separator, each
#: followed by text that would pass for a line of the report.
FORGED = "verdict: VERIFIED"
HOSTILE = f"x\n{FORGED}\r{FORGED}\x1b[2J\x1b[1;1H{FORGED}\u202e{FORGED}\u2028{FORGED}\u2029\x85\u200b\U000e0041\ue000"
RAW = ("\n", "\r", "\x1b", "\u202e", "\u2028", "\u2029", "\x85", "\u200b", "\U000e0041", "\ue000")


def assert_shown_escaped(output: str) -> None:
    """Every hostile character appears as an escape, never raw, and no line starts with the
    forged verdict (the only verdict line is the report's own, and it is not VERIFIED)."""
    body = output.rstrip("\n")
    for char in RAW[1:]:  # a raw newline would show as a line starting with the forged text
        assert char not in body, repr(char)
    for escape in (
        "\\n",
        "\\r",
        "\\x1b[2J",
        "\\u202e",
        "\\u2028",
        "\\u2029",
        "\\x85",
        "\\u200b",
        "\\U000e0041",
        "\\ue000",
    ):
        assert escape in body, escape
    assert not any(line.startswith(FORGED) for line in body.split("\n")), body


def test_a_hostile_end_note_is_shown_escaped(bs_table, tmp_path, cli):
    """The end record's note is unsigned and free text: it is reported, escaped."""
    transcript = bs_table.read()
    end = replace(transcript.end, status="abandoned", note=HOSTILE)
    path = write(tmp_path / "note.p2pt", transcript, end=end)
    assert verify_file(path).status == EXIT_FAILED
    done = cli("verify", str(path))
    assert done.returncode == EXIT_FAILED, done.stderr
    assert_shown_escaped(done.stdout)
    verdicts = [line for line in done.stdout.splitlines() if line.startswith("verdict:")]
    assert len(verdicts) == 1 and verdicts[0].startswith("verdict: FAILED"), done.stdout
    note = next(line for line in done.stdout.splitlines() if line.startswith("note: the table recorded"))
    assert "x\\nverdict: VERIFIED\\rverdict: VERIFIED\\x1b[2J" in note

    # --json: the same text to a parser, and still nothing raw for a terminal.
    done = cli("verify", str(path), "--json")
    assert done.returncode == EXIT_FAILED
    for char in RAW[1:]:
        assert char not in done.stdout, repr(char)
    report = json.loads(done.stdout)
    assert any(HOSTILE in note for note in report["notes"]), report["notes"]


def test_a_hostile_name_is_refused_and_the_refusal_shown_escaped(bs_table, tmp_path, cli):
    """A display name with control or format characters is no honest seat's: the file is
    unreadable, and saying so prints none of them."""
    transcript = bs_table.read()
    names = (HOSTILE[:64],) + transcript.header.names[1:]
    forged = replace(transcript, header=replace(transcript.header, names=names))
    path = write(tmp_path / "name.p2pt", forged)
    report = verify_file(path)
    assert report.status == EXIT_UNREADABLE
    assert "control or format character" in report.problem.reason
    done = cli("verify", str(path))
    assert done.returncode == EXIT_UNREADABLE
    assert done.stdout == ""
    assert len(done.stderr.rstrip("\n").split("\n")) == 1, done.stderr
    assert not any(char in done.stderr.rstrip("\n") for char in RAW)


def test_a_hostile_file_name_is_shown_escaped(bs_table, tmp_path, cli):
    """Even the path given on the command line (a file someone sent, named to forge a line)."""
    path = tmp_path / f"game\n{FORGED}\x1b[2J.p2pt"
    path.write_bytes(bs_table.path.read_bytes())
    done = cli("verify", str(path))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == f"transcript: {tmp_path}/game\\n{FORGED}\\x1b[2J.p2pt"
    assert [line for line in lines if line.startswith("verdict:")] == ["verdict: VERIFIED"]
