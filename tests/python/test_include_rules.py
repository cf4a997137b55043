"""scripts/check_includes.py finds each kind of boundary crossing it promises to, on a small tree
made for the purpose, and passes that tree once the crossing is gone: the include_graph CTest test
(the real tree) can fail."""
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "check_includes.py"

# A tree that keeps every rule: one family folder, the loader's rooms in order, a wire header that
# includes only base/ and the spec room.
CLEAN = {
    "augment/east/profiles.cc": "",
    "augment/east/plan.h": "",
    "augment/profile.h": "",
    "augment/geometry/warp.h": '#include "augment/profile.h"\n',
    "base/status.h": "",
    "loader/spec/spec.h": '#include "augment/profile.h"\n',
    "loader/readers/dataset.h": '#include "loader/spec/spec.h"\n',
    "loader/decode/decode.h": '#include "loader/spec/spec.h"\n',
    "loader/sources/source.h": '#include "loader/readers/dataset.h"\n#include "loader/decode/decode.h"\n',
    "loader/pipeline/pipeline.h": '#include "loader/sources/source.h"\n',
    "transport/wire.h": '#include "base/status.h"\n#include "loader/spec/spec.h"\n',
    "client/feed.h": '#include "transport/wire.h"\n',
    "client/embedded_feed.h": '#include "loader/pipeline/pipeline.h"\n',
}

# (file, its text, what the report must say): one crossing of each rule.
CROSSINGS = [
    ("loader/pipeline/producer.cc", '#include "augment/east/plan.h"\n', "family header augment/east/plan.h"),
    ("client/multi_feed.cc", "int f() { return int(Profile::kDb); }\n", "names the profile Profile::kDb"),
    ("augment/colour/jitter.cc", '#include "augment/east/plan.h"\n', "family header"),
    ("loader/readers/icdar.cc", '#include "loader/decode/decode.h"\n', "later room loader/decode/"),
    ("loader/decode/decode.cc", '#include "loader/pipeline/pipeline.h"\n', "later room loader/pipeline/"),
    ("transport/wire_codec.cc", '#include "loader/sources/source.h"\n', "of loader/ only the spec room"),
    ("client/remote_feed.cc", '#include "augment/geometry/warp.h"\n', "only the recipe's value type"),
    ("transport/wire.h", '#include "augment/profile.h"\n', "wire.h nothing"),
    ("client/feed.cc", '#include "loader/detail/x.h"\n', "private detail/ header"),
    ("tools/show.cc", '#include "loader/decode/detail/jpeg_segments.h"\n', "private detail/ header"),
    ("loader/readers/dataset.h", '#include <oneapi/tbb/task_arena.h>\n', "public header includes oneTBB"),
]


def make_tree(root, extra=None):
    for rel, text in {**CLEAN, **(extra or {})}.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def check(root):
    return subprocess.run([sys.executable, str(SCRIPT), str(root)], capture_output=True, text=True)


def findings(proc):
    """The violations reported (the script's exemptions name files of the real tree: in a made
    tree they match nothing, which it reports too, and which is not a finding here)."""
    return [line for line in proc.stdout.splitlines()
            if not line.startswith("check_includes:") and "matches nothing any more" not in line]


def test_a_tree_that_keeps_the_rules_passes(tmp_path):
    make_tree(tmp_path)
    proc = check(tmp_path)
    assert findings(proc) == [] and "0 finding(s)" in proc.stdout, proc.stdout + proc.stderr


@pytest.mark.parametrize("rel,text,said", CROSSINGS, ids=[c[0] for c in CROSSINGS])
def test_each_crossing_is_reported_with_its_file_and_rule(tmp_path, rel, text, said):
    make_tree(tmp_path, {rel: CLEAN.get(rel, "") + text})
    proc = check(tmp_path)
    assert proc.returncode == 1, proc.stdout
    assert f"{rel}:" in proc.stdout and said in proc.stdout, proc.stdout


def test_an_embedded_client_file_may_include_the_pipeline(tmp_path):
    make_tree(tmp_path, {"client/multi_feed_local.cc": '#include "loader/pipeline/pipeline.h"\n'})
    assert findings(check(tmp_path)) == []


def test_the_real_tree_keeps_the_rules():
    proc = check(ROOT)
    assert proc.returncode == 0, proc.stdout
