"""Checks of the arguments of textfeed's public functions: every one is hostile until checked.

Each check returns the value in the form the C++ side takes, or raises ArgumentTypeError (a
TypeError) for a wrong type or InvalidArgumentError (a ValueError) for a wrong value, naming the
argument. ints are Python ints or integers such as numpy's, never bools; reals are ints or floats,
never bools, always finite; text never holds a NUL byte (C++ would stop reading there).
"""

from __future__ import annotations

import functools
import math
import numbers
import os
from typing import Any, Dict, Optional, Sequence, TypeVar

from . import errors

MAX_TEXT = 4096  # characters of a name, an endpoint or an option value; PATH_MAX bytes of a path
U64_MAX = 2**64 - 1


def _type_name(value: Any) -> str:
    return type(value).__name__


def integer(name: str, value: Any, lo: int, hi: int) -> int:
    """``value`` as an int in lo..hi."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise errors.ArgumentTypeError(f"{name} must be an int, got {_type_name(value)} {value!r:.80}")
    value = int(value)
    if not lo <= value <= hi:
        raise errors.InvalidArgumentError(f"{name} must be in {lo}..{hi}, got {value}")
    return value


def optional_integer(name: str, value: Any, lo: int, hi: int) -> Optional[int]:
    return None if value is None else integer(name, value, lo, hi)


def real(name: str, value: Any, lo: float, hi: float, *, lo_open: bool = False) -> float:
    """``value`` as a finite float in [lo, hi] (or (lo, hi] with lo_open)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise errors.ArgumentTypeError(f"{name} must be a number, got {_type_name(value)} {value!r:.80}")
    value = float(value)
    low_ok = value > lo if lo_open else value >= lo
    if not math.isfinite(value) or not low_ok or value > hi:
        bounds = f"({lo:g}, {hi:g}]" if lo_open else f"[{lo:g}, {hi:g}]"
        raise errors.InvalidArgumentError(f"{name} must be a finite number in {bounds}, got {value!r}")
    return value


def boolean(name: str, value: Any) -> bool:
    """A bool: 0, 1, "yes" or None are not."""
    if not isinstance(value, bool):
        raise errors.ArgumentTypeError(f"{name} must be True or False, got {_type_name(value)} {value!r:.80}")
    return value


def text(name: str, value: Any, max_len: int = MAX_TEXT) -> str:
    """A str without NUL, at most max_len characters."""
    if not isinstance(value, str):
        raise errors.ArgumentTypeError(f"{name} must be a str, got {_type_name(value)} {value!r:.80}")
    if "\0" in value:
        raise errors.InvalidArgumentError(f"{name} contains a NUL character")
    if len(value) > max_len:
        raise errors.InvalidArgumentError(f"{name} is {len(value)} characters long; at most {max_len}")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as e:
        raise errors.InvalidArgumentError(f"{name} is not valid text: {e.reason} at {e.start}") from None
    return value


def choice(name: str, value: Any, choices: Sequence[str]) -> str:
    if not isinstance(value, str):
        raise errors.ArgumentTypeError(f"{name} must be one of {tuple(choices)}, got {_type_name(value)} "
                                       f"{value!r:.80}")
    if value not in choices:
        raise errors.InvalidArgumentError(f"{name} must be one of {tuple(choices)}, got {value!r:.80}")
    return value


E = TypeVar("E")


@functools.lru_cache(maxsize=None)
def _names(enum_type: Any) -> Dict[str, Any]:
    """{text: member} of one of the extension's enums, in declaration order; built once per enum.
    A member's ``text`` is the name C++ parses at every text edge (augment::profile_name, ...)."""
    return {member.text: member for member in enum_type.__members__.values()}


def enum(name: str, value: Any, enum_type: Any) -> Any:
    """A member of ``enum_type`` (textfeed.Profile, DType, OnBadSample, Transport, IgnoreText,
    PolyPolicy, Illegibility), given as the member itself or as its name (``"upstage"``, ``"shm"``): every str a
    Loader keyword takes is parsed here, against the names C++ gives."""
    if isinstance(value, enum_type):
        return value
    names = _names(enum_type)
    if not isinstance(value, str):
        raise errors.ArgumentTypeError(f"{name} must be one of {tuple(names)} or a {enum_type.__name__}, got "
                                       f"{_type_name(value)} {value!r:.80}")
    if value not in names:
        raise errors.InvalidArgumentError(f"{name} must be one of {tuple(names)}, got {value!r:.80}")
    return names[value]


def path(name: str, value: Any) -> bytes:
    """A file system path (str or os.PathLike of str) as the bytes the OS takes: any file name,
    UTF-8 or not, round-trips (os.fsencode). bytes paths are refused: names are text here."""
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    if not isinstance(value, str):
        raise errors.ArgumentTypeError(f"{name} must be a str or os.PathLike path, got {_type_name(value)} "
                                       f"{value!r:.80}")
    if not value:
        raise errors.InvalidArgumentError(f"{name} is empty")
    if "\0" in value:
        raise errors.InvalidArgumentError(f"{name} contains a NUL character")
    encoded = os.fsencode(value)
    if len(encoded) >= MAX_TEXT:
        raise errors.InvalidArgumentError(f"{name} is {len(encoded)} bytes long; a path has at most {MAX_TEXT - 1}")
    return encoded
