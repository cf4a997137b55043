"""The package imports from the build tree and maps error codes to exception classes."""

import importlib
import re
import subprocess
import sys
import tomllib

import textfeed
from support import ROOT, TEXTFEED
from textfeed import errors


def test_one_version_from_cmake_for_the_package_and_the_command():
    project = re.search(r"project\(textfeed VERSION (\S+)", (ROOT / "CMakeLists.txt").read_text()).group(1)
    assert textfeed.__version__ == textfeed._core.__version__ == project
    out = subprocess.run([TEXTFEED, "--version"], capture_output=True, text=True, check=True).stdout
    assert out.strip() == f"textfeed {project}"
    # pyproject.toml has no copy: its build backend reads CMakeLists.txt's.
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" not in pyproject["project"] and pyproject["project"]["dynamic"] == ["version"]
    sys.path.insert(0, str(ROOT / pyproject["build-system"]["backend-path"][0]))
    try:
        backend = importlib.import_module(pyproject["build-system"]["build-backend"])
    finally:
        sys.path.pop(0)
    assert backend._project()["version"] == project


def test_error_classes_map_codes_and_keep_builtin_bases():
    assert errors.error_for_code("Corrupt") is errors.CorruptSampleError
    assert issubclass(errors.CorruptSampleError, ValueError)
    assert issubclass(errors.UnavailableError, ConnectionError)
    assert errors.error_for_code("no such code") is errors.InternalError


def test_package_level_functions_are_the_extension_s():
    import numpy as np

    # The package checks the arguments, then calls the extension's function.
    assert textfeed.reference.east_targets.__doc__ == textfeed._core.east_targets.__doc__
    out = textfeed.reference.replay_geometry("sakura", 1280, 720, np.zeros((0, 8)), np.zeros(0, np.int64), 0)
    assert len(out["draws"]) == 4  # height, angle, one crop try: np.random.seed(0) replay
    assert out["draws"][0] == 0.5488135039273248
