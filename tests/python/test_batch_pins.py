"""Batches pinned by their bytes: a few batches of the sample, per profile and dtype, in process and
from a daemon over shared memory and over frames, must hash to what batch_pins.json recorded. A
change that moves a single byte of a batch (a refactor that should change nothing, a new option's
default) fails here, naming the tensor.

The images pass through OpenCV, whose vectorized paths are chosen by the CPU: the image hashes are
compared where the CPU has the features the pins were made on (recorded beside them), and the
targets, which textfeed computes itself, everywhere. After a deliberate change of the outputs:
TEXTFEED_REPIN=1 pytest tests/python/test_batch_pins.py rewrites the file, to be committed with it."""
import hashlib
import json
import os
from pathlib import Path

import cv2
import pytest

import textfeed
from support import SAMPLE, Daemon

PINS = Path(__file__).with_name("batch_pins.json")
# (profile, dtype, batch size, crop size or None for the profile's own)
CASES = [("sakura", "float32", 3, None), ("sakura", "uint8", 3, None), ("upstage", "float32", 2, 512),
         ("upstage", "uint8", 2, None)]
SEED = 11
BATCHES = 2  # per epoch, epochs 0 and 1
TENSORS = ("image", "score", "geo", "mask")
# CPU features that pick OpenCV's code paths (/proc/cpuinfo flag names).
FEATURES = ("sse4_1", "sse4_2", "avx", "avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512vl", "avx512dq")


def platform():
    flags = set()
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("flags"):
                flags = set(line.split(":", 1)[1].split())
                break
    return {"opencv": cv2.__version__, "cpu": sorted(flags & set(FEATURES))}


def case_id(profile, dtype, batch_size, crop_size):
    return f"{profile}-{dtype}-b{batch_size}" + (f"-c{crop_size}" if crop_size else "")


def hashes(loader):
    """{'epoch/batch': {tensor: sha256}} of the first BATCHES batches of epochs 0 and 1."""
    out = {}
    for epoch in (0, 1):
        loader.set_epoch(epoch)
        for i, batch in enumerate(loader):
            if i == BATCHES:
                break
            out[f"{batch.epoch}/{batch.batch}"] = {
                name: hashlib.sha256(t.contiguous().numpy().tobytes()).hexdigest()[:24]
                for name, t in zip(TENSORS, batch)}
            del batch
    return out


def open_loader(endpoint, profile, dtype, batch_size, crop_size, transport="auto"):
    return textfeed.Loader(str(SAMPLE) if endpoint is None else "icdar", batch_size, profile=profile,
                           recipe=textfeed.Recipe(crop_size=crop_size), sampler=textfeed.SamplerOptions(seed=SEED),
                           output=textfeed.OutputOptions(dtype=dtype, prefetch=2, pin_memory=False), threads=2,
                           endpoint=endpoint, daemon=textfeed.DaemonOptions(transport=transport))


@pytest.fixture(scope="module")
def daemon(tmp_path_factory):
    d = Daemon(tmp_path_factory.mktemp("pins"), client_timeout=10)
    d.start()
    yield d.endpoint
    d.stop()


@pytest.fixture(scope="module")
def pins():
    if os.environ.get("TEXTFEED_REPIN"):
        made = {"platform": platform(), "seed": SEED, "cases": {}}
        for case in CASES:
            with open_loader(None, *case) as loader:
                made["cases"][case_id(*case)] = hashes(loader)
        PINS.write_text(json.dumps(made, indent=1, sort_keys=True) + "\n")
    return json.loads(PINS.read_text())


def compare(got, pins, case, where):
    """Asserts that `got` (hashes()) is the pinned bytes of `case`, the image where the CPU is alike."""
    pinned = pins["cases"][case_id(*case)]
    same_cpu = pins["platform"] == platform()
    assert sorted(got) == sorted(pinned), f"{where}: batches {sorted(got)} instead of {sorted(pinned)}"
    for key, tensors in pinned.items():
        for name, digest in tensors.items():
            if name == "image" and not same_cpu:
                continue
            assert got[key][name] == digest, f"{where}: batch {key}: {name} is not the pinned bytes"


@pytest.mark.parametrize("case", CASES, ids=[case_id(*c) for c in CASES])
def test_batches_in_process_are_the_pinned_bytes(pins, case):
    assert pins["seed"] == SEED
    with open_loader(None, *case) as loader:
        compare(hashes(loader), pins, case, f"in process, {case_id(*case)}")


@pytest.mark.parametrize("transport", ["shm", "frames"])
@pytest.mark.parametrize("case", CASES, ids=[case_id(*c) for c in CASES])
def test_batches_from_a_daemon_are_the_pinned_bytes(pins, daemon, case, transport):
    with open_loader(daemon, *case, transport=transport) as loader:
        compare(hashes(loader), pins, case, f"daemon over {transport}, {case_id(*case)}")
