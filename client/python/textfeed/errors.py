"""Exceptions raised by textfeed, one per C++ Status code."""

__all__ = [
    "TextfeedError",
    "InvalidArgumentError",
    "ArgumentTypeError",
    "NotFoundError",
    "CorruptSampleError",
    "TextfeedIOError",
    "UnavailableError",
    "OverloadedError",
    "UnimplementedError",
    "CancelledError",
    "InternalError",
    "error_for_code",
]


class TextfeedError(Exception):
    """Base class of every textfeed error."""


class InvalidArgumentError(TextfeedError, ValueError):
    """The caller's input is wrong (options, paths, shapes)."""


class ArgumentTypeError(InvalidArgumentError, TypeError):
    """An argument of the wrong type (a bool where an int belongs, bytes where a path does)."""


class NotFoundError(TextfeedError, FileNotFoundError):
    """A file, dataset or sample does not exist."""


class CorruptSampleError(TextfeedError, ValueError):
    """Data exists but is malformed (truncated image, bad annotation, bad checksum)."""


class TextfeedIOError(TextfeedError, OSError):
    """The operating system refused a read, write or mapping."""


class UnavailableError(TextfeedError, ConnectionError):
    """The daemon is gone; reconnect and retry."""


class OverloadedError(TextfeedError, RuntimeError):
    """The daemon is busy; back off and retry."""


class UnimplementedError(TextfeedError, NotImplementedError):
    """The requested feature is not available in this build."""


class CancelledError(TextfeedError, RuntimeError):
    """The operation was cancelled."""


class InternalError(TextfeedError, RuntimeError):
    """A bug in textfeed; please report it with the message."""


_BY_CODE = {
    "InvalidArgument": InvalidArgumentError,
    "NotFound": NotFoundError,
    "Corrupt": CorruptSampleError,
    "Io": TextfeedIOError,
    "Unavailable": UnavailableError,
    "Overloaded": OverloadedError,
    "Unimplemented": UnimplementedError,
    "Cancelled": CancelledError,
    "Internal": InternalError,
}


def error_for_code(code: str) -> type:
    """The exception class for a C++ Status code name such as "Corrupt"."""
    return _BY_CODE.get(code, InternalError)
