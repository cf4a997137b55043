"""The package imports from the build tree and maps error codes to exception classes."""

import textfeed
from textfeed import errors


def test_version_comes_from_the_extension():
    assert textfeed.__version__ == textfeed._core.__version__


def test_error_classes_map_codes_and_keep_builtin_bases():
    assert errors.error_for_code("Corrupt") is errors.CorruptSampleError
    assert issubclass(errors.CorruptSampleError, ValueError)
    assert issubclass(errors.UnavailableError, ConnectionError)
    assert errors.error_for_code("no such code") is errors.InternalError


def test_package_level_functions_are_the_extension_s():
    import numpy as np

    # The package checks the arguments, then calls the extension's function.
    assert textfeed.east_targets.__doc__ == textfeed._core.east_targets.__doc__
    out = textfeed.replay_geometry("sakura", 1280, 720, np.zeros((0, 8)), np.zeros(0, np.int64), 0)
    assert len(out["draws"]) == 4  # height, angle, one crop try: np.random.seed(0) replay
    assert out["draws"][0] == 0.5488135039273248
