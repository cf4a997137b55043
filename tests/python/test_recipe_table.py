"""The recipe's field table (augment/profile.h recipe_fields()) reaches every edge: each option is
a Loader keyword and a CLI --set name, takes the text or value its kind says, and a value out of
its row's bound is refused at both with the same message (the wire's edge: tests/transport/
recipe_schema_test.cc). The docs list every row (tests/python/test_docs.py)."""

import subprocess

import pytest

import textfeed
from textfeed import _core, errors

from support import SAMPLE, TEXTFEED

ICDAR_SAMPLE = str(SAMPLE)
TEXTFEED_BIN = str(TEXTFEED)

ROWS = _core.recipe_fields()
BOUNDED = [row for row in ROWS if row["limits"] is not None]


def out_of_bound(row):
    """A value just outside the row's bound, as a Python value and as CLI text."""
    lo, hi, lo_open, hi_open, _ = row["limits"]
    if row["kind"] in ("factor_range", "shift_range"):
        low = lo if lo_open else lo - 1
        value = (low, hi if not hi_open else low)
        return value, f"{value[0]!r},{value[1]!r}"
    above = hi if hi_open else hi + 1
    if row["kind"] == "int":
        return int(above), str(int(above))
    if row["kind"] == "triple":
        value = (above, 0.5, 0.5)
        return value, ",".join(repr(v) for v in value)
    return float(above), repr(float(above))


def profile_for(row):
    return row["family"] or "upstage"


def test_every_row_is_named_documented_and_listed():
    names = [row["name"] for row in ROWS]
    assert len(names) == len(set(names))
    assert names == [n.strip() for n in _core.option_names().split(",")]
    for row in ROWS:
        assert row["doc"] and "\n" not in row["doc"], row["name"]
        assert set(row["defaults"]) == {p.text for p in _core.Profile.__members__.values()}


@pytest.mark.parametrize("row", BOUNDED, ids=[row["name"] for row in BOUNDED])
def test_a_value_out_of_bound_is_refused_alike_by_python_and_the_cli(row, tmp_path):
    value, text = out_of_bound(row)
    with pytest.raises(errors.InvalidArgumentError) as python:
        textfeed.Loader(dataset=ICDAR_SAMPLE, batch_size=1, profile=profile_for(row), **{row["name"]: value})
    message = str(python.value)
    assert f"augment option {row['name']} = " in message, message
    cli = subprocess.run([TEXTFEED_BIN, "show", "--dataset", ICDAR_SAMPLE, "--out", str(tmp_path), "--profile",
                          profile_for(row), "--set", f"{row['name']}={text}"],
                         capture_output=True, text=True, timeout=120)
    assert cli.returncode == 2, cli.stderr
    assert message.split(": ", 1)[-1] in cli.stderr or message in cli.stderr, (message, cli.stderr)


def test_min_crop_side_zero_is_refused_with_one_message_everywhere(tmp_path):
    want = "augment option min_crop_side = 0: must be in (0, 1]"
    with pytest.raises(errors.InvalidArgumentError, match=want.replace("(", r"\(").replace(")", r"\)")
                       .replace("[", r"\[").replace("]", r"\]")):
        textfeed.Loader(dataset=ICDAR_SAMPLE, batch_size=1, profile="db", min_crop_side=0)
    cli = subprocess.run([TEXTFEED_BIN, "show", "--dataset", ICDAR_SAMPLE, "--out", str(tmp_path), "--profile", "db",
                          "--set", "min_crop_side=0"], capture_output=True, text=True, timeout=120)
    assert cli.returncode == 2 and want in cli.stderr, cli.stderr


def test_sequences_follow_the_rows_kind():
    # resize (db) is a range like brightness; mean and std take one number per plane.
    textfeed.Loader(dataset=ICDAR_SAMPLE, batch_size=1, profile="db", resize=(0.5, 1.0),
                    mean=(0.4, 0.5, 0.6), std=(0.2, 0.2, 0.2), threads=1).close()
    with pytest.raises(errors.ArgumentTypeError, match="mean must be 3 numbers, one per image plane"):
        textfeed.Loader(dataset=ICDAR_SAMPLE, batch_size=1, profile="db", mean=(0.4, 0.5))
    with pytest.raises(errors.InvalidArgumentError, match="augment option resize = "):
        textfeed.Loader(dataset=ICDAR_SAMPLE, batch_size=1, profile="db", resize=(0.0, 1.0))
