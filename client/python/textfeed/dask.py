"""textfeed on a Dask cluster: sharded cache builds and daemons placed on the workers' hosts.

Dask carries only commands and summaries; pixels travel through files (the shards, on storage
every worker and the training hosts see) and through textfeed's own ZeroMQ transport.

    from distributed import Client
    import textfeed.dask

    client = Client("tcp://scheduler:8786")
    summary = textfeed.dask.build_cache(client, "/data/synthtext", "/shared/st.tfmanifest", shards=64,
                                        profile="upstage", codec="jpeg")
    with textfeed.dask.serve(client, {"st": "/shared/st.tfmanifest"}, threads=16) as daemons:
        loader = textfeed.Loader("st", 8, **daemons.loader_kwargs(0))

Also a command: ``python3 -m textfeed.dask build --scheduler ADDR --shards N --dataset D --out M``
(``textfeed cache build --dask ADDR --shards N ...`` prints the one that makes its build: the
``textfeed`` command runs no Python).

An optional part of the package: it needs Dask's ``distributed`` (Debian: python3-distributed),
which ``import textfeed`` never imports; without it, ``import textfeed.dask`` raises ImportError
naming the package to install.

Each shard task runs ``textfeed cache build --shard K/N`` on a worker (the ``textfeed`` command of
that host: ``$TEXTFEED_BIN`` or the one on ``PATH``); a task whose worker dies is run again on
another one (Dask reschedules it; ``retries`` more times for a task that fails), and the manifest
is written by this process once every shard is there. The daemons' CURVE secret keys are made on
their own hosts and never travel; only public keys do.
"""
from __future__ import annotations

import argparse
import ctypes
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Union

from . import _core
from .errors import InvalidArgumentError, NotFoundError, TextfeedError, UnavailableError
from .options import DaemonOptions

try:
    import distributed
except ImportError as e:
    raise ImportError("textfeed.dask needs Dask's distributed, which this Python cannot import: install it "
                      "(Debian: apt-get install python3-distributed). The rest of textfeed does not need it.") from e

__all__ = ["build_cache", "serve", "Daemons", "shard_paths", "textfeed_command"]

PathLike = Union[str, "os.PathLike[str]"]

# Options of build_cache that become `textfeed cache build` flags, with their flag names.
_BUILD_FLAGS = {
    "profile": "--profile",
    "codec": "--codec",
    "image_size": "--image-size",
    "quality": "--quality",
    "threads": "--threads",
    "max_bad": "--max-bad",
    # A flag per reader option (loader/spec/spec_fields.h, the rows the command's flags come from).
    **{row["name"]: "--" + row["name"].replace("_", "-") for row in _core.reader_fields()},
}
_BUILD_SWITCHES = {"restart_rows": "--restart-rows"}
# Options spelt as the typed classes spell them: ReaderOptions' reader_format is the row format.
_BUILD_ALIASES = {"reader_format": "format"}
# Options whose flag takes a comma-separated list (ignore_tags), given here as a list of str.
_LIST_OPTIONS = {row["name"] for row in _core.reader_fields() if row["kind"] == "text_list"}


def textfeed_command() -> str:
    """The ``textfeed`` command of this host: ``$TEXTFEED_BIN``, else the one on ``PATH``."""
    env = os.environ.get("TEXTFEED_BIN")
    if env:
        if not os.access(env, os.X_OK):
            raise NotFoundError(f"TEXTFEED_BIN={env} is not an executable file")
        return env
    found = shutil.which("textfeed")
    if not found:
        raise NotFoundError(f"no textfeed command on {socket.gethostname()}: install textfeed there, or set "
                            "TEXTFEED_BIN to its path")
    return found


def _load_prctl() -> Optional[Callable[..., int]]:
    try:
        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):  # pragma: no cover - not Linux
        return None


_PRCTL = _load_prctl()  # resolved here, not in a forked child (which must not take the loader's lock)


def _die_with_parent() -> None:
    """In a child before exec: SIGKILL it when the process that started it dies (Linux), so that a
    worker killed mid-task leaves no command running on."""
    if _PRCTL is not None:
        _PRCTL(1, int(signal.SIGKILL))  # PR_SET_PDEATHSIG


def shard_paths(out: PathLike, shards: int) -> List[Path]:
    """The shard files of manifest ``out``: beside it, ``NAME.K-of-N.tfc`` (K from 0, zero-padded)."""
    out = Path(out)
    if shards < 1:
        raise InvalidArgumentError(f"shards = {shards}: need at least 1")
    stem = out.name[: -len(".tfmanifest")] if out.name.endswith(".tfmanifest") else out.stem
    width = len(str(shards - 1))
    return [out.with_name(f"{stem}.{k:0{width}d}-of-{shards}.tfc") for k in range(shards)]


def _flag_value(key: str, value: Any) -> str:
    """An option's value as its flag's text: a str or a number as it is, an enum member (Profile,
    IgnoreText, ...) as its name, a list (ignore_tags) as its names joined with ","."""
    if _BUILD_ALIASES.get(key, key) in _LIST_OPTIONS and isinstance(value, (list, tuple)):
        if not all(isinstance(v, str) for v in value):
            raise InvalidArgumentError(f"{key} = {value!r:.80}: expected a list of str")
        return ",".join(value)
    if hasattr(type(value), "__members__") and isinstance(getattr(value, "text", None), str):
        return str(value.text)  # one of the extension's enums: the name its flag parses
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise InvalidArgumentError(f"{key} = {value!r:.80}: expected a str, a number, one of textfeed's enums or "
                                   "a list of str")
    return str(value)


def _build_args(options: Mapping[str, Any]) -> List[str]:
    args: List[str] = []
    for alias, key in _BUILD_ALIASES.items():
        if options.get(alias) is not None and options.get(key) is not None:
            raise InvalidArgumentError(f"build_cache got {key}= and {alias}=, two spellings of one option: give "
                                       "one")
    for given, value in options.items():
        key = _BUILD_ALIASES.get(given, given)
        if key in _BUILD_FLAGS:
            if value is None:
                continue
            args += [_BUILD_FLAGS[key], _flag_value(given, value)]
        elif key in _BUILD_SWITCHES:
            if not isinstance(value, bool):
                raise InvalidArgumentError(f"{key} = {value!r}: expected True or False")
            if value:
                args.append(_BUILD_SWITCHES[key])
        else:
            known = ", ".join(sorted(list(_BUILD_FLAGS) + list(_BUILD_SWITCHES) + list(_BUILD_ALIASES)))
            raise InvalidArgumentError(f"build_cache got an unknown option {given!r} (known: {known})")
    return args


def _build_shard(dataset: str, path: str, index: int, count: int, args: Sequence[str]) -> Dict[str, Any]:
    """One shard, on a worker: ``textfeed cache build --shard K/N``; its summary, or an error
    carrying the command's own message."""
    cmd = [textfeed_command(), "cache", "build", "--dataset", dataset, "--out", path, "--shard", f"{index}/{count}",
           "--force", *args]
    t0 = time.monotonic()
    proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, preexec_fn=_die_with_parent)
    if proc.returncode != 0:
        tail = "\n".join(proc.stderr.strip().splitlines()[-10:])
        raise RuntimeError(f"shard {index}/{count} on {socket.gethostname()} failed (exit {proc.returncode}):\n{tail}")
    return {"shard": index, "path": path, "host": socket.gethostname(), "seconds": time.monotonic() - t0,
            "bytes": os.path.getsize(path), "log": proc.stdout.strip().splitlines()[-1:]}


def _merge(out: Path, paths: Sequence[Path], force: bool) -> str:
    cmd = [textfeed_command(), "cache", "merge", "--out", str(out), *(["--force"] if force else []), *map(str, paths)]
    proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        raise TextfeedError(f"textfeed cache merge failed (exit {proc.returncode}): {proc.stderr.strip()}")
    return proc.stdout.strip()


def build_cache(client: Any, dataset: PathLike, out: PathLike, shards: int, *, force: bool = False,
                retries: int = 2, progress: Union[bool, Callable[[Dict[str, Any], int, int], None]] = True,
                **options: Any) -> Dict[str, Any]:
    """Builds the cache of ``dataset`` as ``shards`` shard files on the cluster of ``client`` (a
    ``distributed.Client``), then the manifest ``out`` (``NAME.tfmanifest``) that opens as one cache.

    ``dataset`` and ``out`` must be paths every worker sees the same way (shared storage). The shards
    are written beside ``out`` (:func:`shard_paths`), each by one task that returns only its
    summary. ``options`` are ``textfeed cache build``'s, with ``_`` for ``-``: profile, codec,
    image_size, quality, threads (per task), max_bad, restart_rows and the reader's (format or
    reader_format, split, images_dir, gt_dir, ignore_text, ignore_tags, poly_policy, drop_under_area,
    ignore_under_area, illegibility). An enum option takes its member or its name
    (``profile=textfeed.Profile.DB`` or ``"db"``), ignore_tags a list of tags (or one text "a,b").
    ``force`` replaces existing files; without it an existing manifest or shard file is an error
    before anything runs. ``retries``: how many more times a failing task runs (a task whose worker
    died is rescheduled by Dask itself). ``progress``: a line on stderr per finished shard, or a
    callable(summary, done, total).

    A build that fails part-way leaves the shards it finished (and tasks already running finish
    theirs): run it again with ``force=True``.

    Returns ``{"manifest": path, "shards": [summary per shard, in order], "seconds": ...,
    "merge": the merge command's report}``. Raises InvalidArgumentError (arguments), NotFoundError
    (dataset, textfeed command), TextfeedError (a shard that failed on every try, with its message).
    """
    if isinstance(shards, bool) or not isinstance(shards, int) or not 1 <= shards <= 4096:
        raise InvalidArgumentError(f"shards = {shards!r}: need an int in 1..4096")
    if isinstance(retries, bool) or not isinstance(retries, int) or retries < 0:
        raise InvalidArgumentError(f"retries = {retries!r}: need an int >= 0")
    out = Path(os.path.abspath(os.fspath(out)))
    if not out.name.endswith(".tfmanifest"):
        raise InvalidArgumentError(f"out = {out}: a manifest's name ends with .tfmanifest")
    dataset = os.path.abspath(os.fspath(dataset))
    if not os.path.exists(dataset):
        raise NotFoundError(f"dataset {dataset} does not exist (on this host; the workers must see the same path)")
    args = _build_args(options)
    paths = shard_paths(out, shards)
    if not force:
        taken = [p for p in [out, *paths] if os.path.lexists(p)]
        if taken:
            raise InvalidArgumentError(f"{taken[0]} exists ({len(taken)} of the output files do): pass force=True "
                                       "to replace them")
    out.parent.mkdir(parents=True, exist_ok=True)
    t0 = time.monotonic()
    futures = [client.submit(_build_shard, dataset, str(p), k, shards, args, key=f"textfeed-shard-{k}-of-{shards}-"
                             f"{os.getpid()}-{time.time_ns()}", retries=retries, pure=False)
               for k, p in enumerate(paths)]
    summaries: List[Optional[Dict[str, Any]]] = [None] * shards
    done = 0
    try:
        for fut in distributed.as_completed(futures):
            try:
                s = fut.result()
            except Exception as e:
                raise TextfeedError(f"cache build on the cluster failed: {e}") from e
            summaries[s["shard"]] = s
            done += 1
            if callable(progress):
                progress(s, done, shards)
            elif progress:
                print(f"textfeed.dask: shard {s['shard']}/{shards} built on {s['host']} in {s['seconds']:.1f} s "
                      f"({s['bytes'] / 2**20:.1f} MiB) [{done}/{shards}]", file=sys.stderr, flush=True)
    finally:
        for f in futures:
            if not f.done():
                f.cancel()
    report = _merge(out, paths, force)
    return {"manifest": str(out), "shards": summaries, "seconds": time.monotonic() - t0, "merge": report}


# ---- daemons on the workers' hosts ----

def _free_port(host: str) -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def _start_daemon(host: str, datasets: List[str], client_pub: str, threads: int, extra: List[str],
                  timeout: float) -> Dict[str, Any]:
    """On a worker: a private folder, the daemon's own key pair made there, ``textfeed serve`` on a
    free tcp port of ``host`` with CURVE, allowing the one client key; returns where it listens and
    its public key (the secret stays here)."""
    cmd0 = textfeed_command()
    folder = tempfile.mkdtemp(prefix="textfeed-daemon-")  # mode 0700
    try:
        keygen = subprocess.run([cmd0, "keygen", "--out", os.path.join(folder, "daemon")], stdin=subprocess.DEVNULL,
                                capture_output=True, text=True)
        if keygen.returncode != 0:
            raise RuntimeError(f"textfeed keygen failed on {socket.gethostname()}: {keygen.stderr.strip()}")
        allow = os.path.join(folder, "client.pub")
        with open(allow, "w") as f:
            f.write(client_pub)
        last = ""
        for _ in range(5):  # the port is free when picked; another process may take it before the bind
            port = _free_port(host)
            cmd = [cmd0, "serve", "--bind", f"tcp://{host}:{port}", "--curve-key", os.path.join(folder, "daemon.key"),
                   "--allow", allow, "--threads", str(threads), *sum((["--dataset", d] for d in datasets), []), *extra]
            log_path = os.path.join(folder, "serve.log")
            with open(log_path, "ab") as log:
                proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                        preexec_fn=_die_with_parent)
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline and proc.poll() is None:
                try:
                    with socket.create_connection((host, port), timeout=0.2):
                        break
                except OSError:
                    time.sleep(0.05)
            if proc.poll() is None and time.monotonic() < deadline:
                with open(os.path.join(folder, "daemon.pub")) as f:
                    public = f.read()
                return {"host": host, "port": port, "pid": proc.pid, "folder": folder, "public_key": public,
                        "hostname": socket.gethostname()}
            if proc.poll() is None:
                proc.kill()
            proc.wait()
            with open(log_path, errors="replace") as f:
                last = f.read()[-2000:]
            if "in use" not in last:
                break
        raise RuntimeError(f"textfeed serve did not start on {socket.gethostname()} ({host}):\n{last.strip()}")
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise


def _stop_daemon(pid: int, folder: str, timeout: float) -> Optional[int]:
    """On the worker that started it: SIGTERM (the daemon drains), SIGKILL after ``timeout``; its
    folder (keys, log) removed. The exit status, or None when it was not this worker's child."""
    code: Optional[int] = None
    try:
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + timeout
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                code = os.waitstatus_to_exitcode(status)
                break
            if time.monotonic() > deadline:
                os.kill(pid, signal.SIGKILL)
                _, status = os.waitpid(pid, 0)
                code = os.waitstatus_to_exitcode(status)
                break
            time.sleep(0.05)
    except (ProcessLookupError, ChildProcessError):
        pass
    shutil.rmtree(folder, ignore_errors=True)
    return code


@dataclass
class Daemons:
    """The daemons :func:`serve` started: one per host, each at ``endpoints[i]`` with the public key
    file ``server_keys[i]``; ``client_key`` is the secret key every Loader presents. ``close()`` (or
    leaving a ``with`` block) stops them and removes the keys; a daemon never stopped ends with the
    Dask worker that started it."""
    client: Any
    endpoints: List[str]
    server_keys: List[str]
    client_key: str
    workers: List[str]
    _started: List[Dict[str, Any]] = field(repr=False)
    _folder: str = field(repr=False)
    closed: bool = False

    def loader_kwargs(self, i: Optional[int] = None, **daemon_options: Any) -> Dict[str, Any]:
        """``Loader`` keywords: for daemon ``i``, its ``endpoint`` and the ``daemon`` options with
        its curve_server_key and the curve_client_key; without ``i``, every daemon's (lists of
        endpoints and server keys), so that one rank is fed by all of them. ``daemon_options``:
        more :class:`textfeed.DaemonOptions` attributes (``local_threads=1``, ``timeout=5.0``)."""
        if i is None:
            return {"endpoint": list(self.endpoints),
                    "daemon": DaemonOptions(curve_server_key=list(self.server_keys),
                                            curve_client_key=self.client_key, **daemon_options)}
        return {"endpoint": self.endpoints[i],
                "daemon": DaemonOptions(curve_server_key=self.server_keys[i], curve_client_key=self.client_key,
                                        **daemon_options)}

    def close(self, timeout: float = 30.0) -> None:
        if self.closed:
            return
        self.closed = True
        try:
            for worker, d in zip(self.workers, self._started):
                try:
                    self.client.run(_stop_daemon, d["pid"], d["folder"], timeout, workers=[worker])
                except Exception:  # the worker is gone, and its daemon with it (it dies with its parent)
                    pass
        finally:
            shutil.rmtree(self._folder, ignore_errors=True)

    def __enter__(self) -> "Daemons":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:  # pragma: no cover - best effort for a handle dropped unclosed
        # Only through a client that still runs: at interpreter exit its loop may be gone, and a
        # call through it could wait for ever. Daemons not stopped here end with their workers.
        if not self.closed and getattr(self.client, "status", None) == "running":
            try:
                self.close(timeout=5.0)
            except Exception:
                pass


def _dataset_args(datasets: Union[Mapping[str, PathLike], Sequence[str]]) -> List[str]:
    if isinstance(datasets, Mapping):
        items = [f"{name}={os.fspath(path)}" for name, path in datasets.items()]
    elif isinstance(datasets, (list, tuple)):
        items = [str(d) for d in datasets]
    else:
        raise InvalidArgumentError("datasets: a {name: path} mapping or a list of 'NAME=PATH'")
    if not items:
        raise InvalidArgumentError("datasets: at least one")
    for d in items:
        name, sep, path = d.partition("=")
        if not sep or not name or not path:
            raise InvalidArgumentError(f"datasets: {d!r} is not NAME=PATH")
    return items


def serve(client: Any, datasets: Union[Mapping[str, PathLike], Sequence[str]], *, threads: int = 0,
          hosts: Optional[Sequence[str]] = None, extra_args: Sequence[str] = (), timeout: float = 30.0) -> Daemons:
    """Starts one ``textfeed serve`` on each host of the cluster of ``client`` (on one worker of
    each), over tcp on the worker's address with CURVE, and returns their :class:`Daemons`.

    ``datasets``: ``{name: path}`` (paths as the workers see them) or ``["NAME=PATH", ...]``.
    ``threads``: the daemon's worker threads (0: one per core of its host). ``hosts``: only these
    hosts (as in the workers' addresses). ``extra_args``: more ``textfeed serve`` flags. Each daemon
    makes its key pair on its host and allows one client key, made here (in a private folder that
    ``close()`` removes). Raises UnavailableError when a daemon does not start (with its log).
    """
    items = _dataset_args(datasets)
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 0:
        raise InvalidArgumentError(f"threads = {threads!r}: need an int >= 0")
    info = client.scheduler_info()["workers"]
    by_host: Dict[str, str] = {}
    for address in sorted(info):
        host = info[address].get("host") or address.split("://")[-1].rsplit(":", 1)[0]
        by_host.setdefault(host, address)
    if hosts is not None:
        if isinstance(hosts, (str, bytes)) or not all(isinstance(h, str) for h in hosts):
            raise InvalidArgumentError(f"hosts = {hosts!r}: a list of host names")
        missing = [h for h in hosts if h not in by_host]
        if missing:
            raise InvalidArgumentError(f"hosts {missing} have no worker (the cluster's: {sorted(by_host)})")
        by_host = {h: by_host[h] for h in hosts}
    if not by_host:
        raise UnavailableError("the cluster has no worker")
    folder = tempfile.mkdtemp(prefix="textfeed-keys-")
    started: List[Dict[str, Any]] = []
    workers: List[str] = []
    try:
        keygen = subprocess.run([textfeed_command(), "keygen", "--out", os.path.join(folder, "client")],
                                stdin=subprocess.DEVNULL, capture_output=True, text=True)
        if keygen.returncode != 0:
            raise TextfeedError(f"textfeed keygen failed: {keygen.stderr.strip()}")
        with open(os.path.join(folder, "client.pub")) as f:
            client_pub = f.read()
        for host, worker in by_host.items():
            try:
                d = client.run(_start_daemon, host, items, client_pub, threads, list(extra_args), timeout,
                               workers=[worker])[worker]
            except Exception as e:
                raise UnavailableError(f"no daemon on {host}: {e}") from e
            started.append(d)
            workers.append(worker)
        keys = []
        for i, d in enumerate(started):
            path = os.path.join(folder, f"daemon-{i}.pub")
            with open(path, "w") as f:
                f.write(d["public_key"])
            keys.append(path)
    except BaseException:
        Daemons(client, [], [], "", workers, started, folder).close()
        raise
    return Daemons(client, [f"tcp://{d['host']}:{d['port']}" for d in started], keys,
                   os.path.join(folder, "client.key"), workers, started, folder)


# ---- python3 -m textfeed.dask ----

def main(argv: Optional[Sequence[str]] = None) -> int:
    p = argparse.ArgumentParser(prog="python3 -m textfeed.dask",
                                description="Build a sharded textfeed cache on a Dask cluster.")
    sub = p.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="one task per shard (textfeed cache build --shard K/N), then the manifest")
    b.add_argument("--scheduler", required=True, help="the Dask scheduler's address, e.g. tcp://host:8786")
    b.add_argument("--shards", type=int, required=True, help="how many shard files")
    b.add_argument("--dataset", required=True, help="the dataset, at a path every worker sees")
    b.add_argument("--out", required=True, help="the manifest NAME.tfmanifest; the shards go beside it")
    b.add_argument("--force", action="store_true", help="replace existing files")
    b.add_argument("--retries", type=int, default=2, help="more tries for a failing shard task (default 2)")
    for key, flag in _BUILD_FLAGS.items():
        b.add_argument(flag, dest=key, default=None, help=f"passed to textfeed cache build {flag}")
    b.add_argument("--restart-rows", dest="restart_rows", action="store_true", help="passed to textfeed cache build")
    a = p.parse_args(argv)
    options = {k: getattr(a, k) for k in list(_BUILD_FLAGS) + list(_BUILD_SWITCHES)}
    try:
        with distributed.Client(a.scheduler, timeout="30s") as client:
            r = build_cache(client, a.dataset, a.out, a.shards, force=a.force, retries=a.retries, **options)
    except (TextfeedError, OSError) as e:
        print(f"textfeed.dask build: {e}", file=sys.stderr)
        return 1
    print(f"wrote {r['manifest']}: {a.shards} shards in {r['seconds']:.1f} s\n{r['merge']}")
    return 0


if __name__ == "__main__":
    # Run as the package's module, not as __main__: the tasks' functions then travel to the workers
    # by name (they import textfeed.dask), not pickled by value.
    from textfeed.dask import main as _main

    sys.exit(_main())
