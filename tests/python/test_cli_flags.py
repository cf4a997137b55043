"""The command line's flags under a hostile or careless hand: endpoints other than ipc and tcp,
ports out of range, NaN where a number is due, negative seeds, stray key names, names with
control bytes, output that cannot be written, memory that runs out. Each is refused (or reported)
with a message naming the flag, never accepted, wrapped, crashed on or hung on."""
import resource
import subprocess

import pytest

from support import SAMPLE, TEXTFEED, Daemon


def tf(*args, timeout=30, **kw):
    proc = subprocess.run([TEXTFEED, *args], capture_output=True, timeout=timeout, **kw)
    proc.out = proc.stdout.decode("utf-8", "replace")
    proc.err = proc.stderr.decode("utf-8", "replace")
    return proc


def assert_refused(proc, *fragments):
    assert proc.returncode not in (0, -6, -11, 134, 139), (proc.returncode, proc.err)
    for f in fragments:
        assert f in proc.err, proc.err


@pytest.mark.parametrize("endpoint, why", [
    ("ws://127.0.0.1:0", "the transport 'ws' is not offered"),  # would listen with no CURVE rule
    ("wss://127.0.0.1:0", "the transport 'wss' is not offered"),
    ("inproc://x", "inproc:// is reachable only inside one process"),
    ("tcp://127.0.0.1:70000", "the port 70000 is not in 0..65535"),
    ("tcp://127.0.0.1:-1", "the port '-1' is not a number"),
    ("tcp://127.0.0.1:55x", "the port '55x' is not a number"),
    ("tcp://127.0.0.1:5641/extra", "is not a number (nothing may follow it)"),
    ("tcp://127.0.0.1", "no port"),
    ("tcp://:5555", "no host"),
    ("ipc://", "no socket path"),
    ("ipc:///tmp/" + "x" * 120, "a socket path is at most 107 bytes"),
    ("/tmp/plain.sock", "not an endpoint"),
])
def test_serve_binds_only_ipc_and_tcp_endpoints_it_can_check(endpoint, why):
    proc = tf("serve", "--dataset", f"icdar={SAMPLE}", "--bind", endpoint, "--insecure-tcp", "--threads", "1",
              timeout=20)
    assert_refused(proc, why)


@pytest.mark.parametrize("endpoint, why", [
    ("tcp://127.0.0.1:70000", "the port 70000 is not in 1..65535"),
    ("tcp://127.0.0.1:0", "the port 0 is not in 1..65535"),
    ("ws://127.0.0.1:5555", "the transport 'ws' is not offered"),
])
def test_clients_connect_only_to_endpoints_they_can_check(endpoint, why):
    assert_refused(tf("stats", endpoint, "--timeout", "1"), why)
    assert_refused(tf("pull", "--endpoint", endpoint, "--dataset", "d", "--timeout", "1"), why)


@pytest.mark.parametrize("args", [
    ["serve", "--dataset", f"icdar={SAMPLE}", "--client-timeout", "nan"],
    ["serve", "--dataset", f"icdar={SAMPLE}", "--drain-timeout", "nan"],
    ["serve", "--dataset", f"icdar={SAMPLE}", "--drain-timeout", "inf"],
    ["stats", "ipc:///tmp/none.sock", "--timeout", "nan"],
    ["pull", "--dataset", "d", "--timeout", "nan"],
    ["inspect", str(SAMPLE), "--ignore-under-area", "nan"],
    ["cache", "build", "--dataset", str(SAMPLE), "--out", "/tmp/never.tfc", "--max-bad", "nan"],
])
def test_a_number_flag_refuses_nan_and_infinity_by_name(args):
    proc = tf(*args, timeout=20)
    assert_refused(proc, "expected a finite number")
    flag = next(a for a in args if a.startswith("--") and a not in ("--dataset", "--out"))
    assert flag in proc.err, proc.err


@pytest.mark.parametrize("value", ["-1", "99999999999999999999", "1.5", ""])
@pytest.mark.parametrize("command", [["bench", "--dataset", str(SAMPLE), "--seed"],
                                     ["show", "--dataset", str(SAMPLE), "--out", "/tmp/never", "--epoch"],
                                     ["synth", "--out", "/tmp/never", "--seed"],
                                     ["pull", "--dataset", "d", "--start-batch"]])
def test_seeds_epochs_and_batches_are_refused_rather_than_wrapped(command, value):
    # "-1" was the seed 2^64-1 and every overflow the same saturated seed.
    assert_refused(tf(*command, value), "expected an integer in 0..18446744073709551615")


@pytest.mark.parametrize("out", ["", "dir/", "dir", "/dev/null"])
def test_keygen_needs_a_base_name_not_a_folder_or_a_device(tmp_path, out):
    (tmp_path / "dir").mkdir()
    proc = tf("keygen", "--out", out, cwd=tmp_path)
    assert_refused(proc, "must be a path and a base name")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dir"] and not list((tmp_path / "dir").iterdir())


def test_dataset_names_are_plain_words():
    proc = tf("serve", "--dataset", f"a\x1b[2Jb={SAMPLE}", "--bind", "ipc:///tmp/never.sock", timeout=20)
    assert_refused(proc, "--dataset: the name 'a\\x1b[2Jb' must be 1..128 letters")
    assert "\x1b" not in proc.err


def test_parse_errors_are_escaped_before_they_reach_the_terminal():
    proc = tf("synth", "--out", "/tmp/never", "--count", b"\x1b[31m5\xff")  # not UTF-8 either
    assert proc.returncode != 0
    assert b"\x1b" not in proc.stderr and b"\xff" not in proc.stderr, proc.stderr
    assert "\\x1b[31m5\\xff" in proc.err, proc.err


def test_output_that_cannot_be_written_is_a_failure():
    with open("/dev/full", "wb") as full:
        proc = subprocess.run([TEXTFEED, "inspect", str(SAMPLE), "--json"], stdout=full, stderr=subprocess.PIPE,
                              timeout=30)
    assert proc.returncode == 1
    assert b"writing the output failed" in proc.stderr


def test_running_out_of_memory_is_a_message_and_status_2_not_an_abort():
    def limit_memory():
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))

    proc = tf("bench", "--dataset", str(SAMPLE), "--profile", "sakura", "--batch-size", "512", "--samples", "512",
              "--repeat", "1", "--threads", "1", preexec_fn=limit_memory, timeout=60)
    assert proc.returncode == 2, (proc.returncode, proc.err)
    assert "out of memory" in proc.err or "Cannot allocate memory" in proc.err, proc.err


def test_a_ufo_file_over_the_limit_is_refused_before_it_is_read(tmp_path):
    (tmp_path / "images").mkdir()
    (tmp_path / "ufo").mkdir()
    with open(tmp_path / "ufo" / "train.json", "wb") as f:
        f.truncate((1 << 30) + 1)  # sparse: nothing to read, only a size
    proc = tf("inspect", str(tmp_path / "ufo" / "train.json"), timeout=20)
    assert_refused(proc, "bytes is over the limit of 1073741824 bytes")


def test_the_stats_table_cuts_a_long_client_name_between_escapes_and_characters(tmp_path, monkeypatch):
    import socket

    import textfeed

    daemon = Daemon(tmp_path, client_timeout=10, threads=1)
    daemon.start()
    try:
        # The client name is "<host> pid <pid> rank <r>": a host name with an escape and accents.
        monkeypatch.setattr(socket, "gethostname", lambda: "ab\x1b[31m" + "\u00e9" * 30)
        with textfeed.Loader(daemon.endpoint, dataset="icdar", batch_size=2, profile="sakura", prefetch=2):
            proc = tf("stats", daemon.endpoint)
        assert proc.returncode == 0, proc.err
        row = next(line for line in proc.stdout.split(b"\n") if b"ab\\x1b" in line)
        cell = row.split()[1].decode("utf-8")  # valid UTF-8: no character cut in half
        assert cell.endswith("~") and len(cell.encode()) <= 22, cell
        assert not cell[:-1].endswith("\\"), cell
        assert cell.startswith("ab\\x1b[31m\u00e9"), cell
    finally:
        daemon.stop()
