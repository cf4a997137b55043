"""`textfeed bench --json`: what a benchmark script reads from it (bench/db.sh takes
cpu_ms_per_sample), including the minor page faults per sample of the timed repeats."""
import json
import math
import subprocess

from support import SAMPLE, TEXTFEED


def test_the_json_report_has_rates_cpu_stages_and_minor_faults():
    proc = subprocess.run([TEXTFEED, "bench", "--dataset", str(SAMPLE), "--profile", "db", "--samples", "8",
                           "--repeat", "2", "--batch-size", "4", "--threads", "1", "--json"],
                          capture_output=True, timeout=120)
    assert proc.returncode == 0, proc.stderr.decode()
    report = json.loads(proc.stdout)
    assert report["profile"] == "db" and report["repeats"] == 2
    assert 0 < report["samples_per_s"]["min"] <= report["samples_per_s"]["median"] <= report["samples_per_s"]["max"]
    assert 0 < report["cpu_ms_per_sample"]["min"] <= report["cpu_ms_per_sample"]["median"]
    faults = report["minor_faults_per_sample"]
    assert set(faults) == {"first_repeat", "last_repeat"}
    assert all(isinstance(v, (int, float)) and math.isfinite(v) and v >= 0 for v in faults.values())
    stages = report["stage_ms_per_sample"]
    assert set(stages) == {"read", "decode", "plan", "warp", "photometric", "targets"}
    assert all(v >= 0 for v in stages.values()) and stages["targets"] > 0
