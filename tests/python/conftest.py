"""Session checks shared by the Python tests; the paths themselves are in support.py."""
import os

import pytest

from support import SAMPLE, TEXTFEED


def pytest_report_header(config):
    return [f"textfeed command: {TEXTFEED}", f"sample dataset: {SAMPLE}"]


def pytest_sessionstart(session):
    # One clear line instead of a FileNotFoundError in every test that runs the command.
    if not os.access(TEXTFEED, os.X_OK):
        pytest.exit(f"no textfeed command at {TEXTFEED}: build it (make build) or set TEXTFEED_BIN", returncode=4)
    if not (SAMPLE / "images").is_dir():
        pytest.exit(f"{SAMPLE} is missing: the repository ships it", returncode=4)


def pytest_configure(config):
    # Most tests call the Loader with its keywords of before the typed options (seed=, crop_size=,
    # the endpoint first, Source(format=...)): those keep working, each with a DeprecationWarning
    # that these tests do not check. tests/python/test_typed_options.py checks the warnings, the
    # errors and the new spelling; the filter takes only textfeed's own deprecation messages.
    config.addinivalue_line(
        "filterwarnings",
        r"ignore:(Loader|Source|paddle_sources)\(.*\) (with the endpoint first )?is deprecated:DeprecationWarning")
