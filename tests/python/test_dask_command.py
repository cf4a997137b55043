"""`textfeed cache build --dask` runs no Python: it prints the `python3 -m textfeed.dask build`
command that makes the same build. The printed line, read back by a shell, gives every option as
it was given: quotes, control bytes, backslashes, non-ASCII text and values starting with '-'.
(No Dask needed: this is the command line alone; tests/python/test_dask.py runs the build.)"""
import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
TEXTFEED = os.environ.get("TEXTFEED_BIN", str(ROOT / "build" / "tools" / "textfeed"))
SAMPLE = str(ROOT / "data" / "icdar15-sample")


def printed_command(*flags: str) -> str:
    proc = subprocess.run([TEXTFEED, "cache", "build", "--dask", "tcp://127.0.0.1:1", "--shards", "2",
                           "--dataset", SAMPLE, *flags], capture_output=True)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.decode("utf-8", "surrogateescape").splitlines()
    assert "does not run Python" in lines[0], lines
    return lines[1]


def words_read_back(command: str) -> list:
    """The argv a POSIX shell makes of `command` (bash: what the message's quoting is for)."""
    out = subprocess.run(["bash", "-c", f"set -- {command}; printf '%s\\0' \"$@\""], capture_output=True,
                         check=True).stdout
    return [w.decode("utf-8", "surrogateescape") for w in out.split(b"\0")[:-1]]


@pytest.mark.parametrize("flag,value", [
    ("--out", "/tmp/o'ut with space.tfmanifest"),
    ("--images-dir", "im\tg\\s"),
    ("--images-dir", "bilder-é"),
    ("--split", "-x"),
    ("--ignore-tags", "a,b"),
])
def test_every_option_reads_back_as_it_was_given(flag: str, value: str) -> None:
    out = ["--out", "/tmp/x.tfmanifest"] if flag != "--out" else []
    words = words_read_back(printed_command(*out, flag, value))
    assert words[:4] == ["/usr/bin/python3", "-m", "textfeed.dask", "build"], words
    assert f"{flag}={value}" in words, words
    assert f"--dataset={SAMPLE}" in words and "--shards=2" in words, words


def test_the_printed_line_holds_no_byte_that_drives_a_terminal() -> None:
    line = printed_command("--out", "/tmp/x.tfmanifest", "--images-dir", "a\x1b[2Jb")
    assert "\x1b" not in line and "$'--images-dir=a\\x1b[2Jb'" in line, line
