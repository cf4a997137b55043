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
