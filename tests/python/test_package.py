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
