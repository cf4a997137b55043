"""Checks of the arguments of textfeed's public functions: every one is hostile until checked.

Each check returns the value in the form the C++ side takes, or raises ArgumentTypeError (a
TypeError) for a wrong type or InvalidArgumentError (a ValueError) for a wrong value, naming the
argument. ints are Python ints or integers such as numpy's, never bools; reals are ints or floats,
never bools, always finite; text never holds a NUL byte (C++ would stop reading there).
"""

from __future__ import annotations

import difflib
import functools
import math
import numbers
import os
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, TypeVar

from . import errors

MAX_TEXT = 4096  # characters of a name, an endpoint or an option value; PATH_MAX bytes of a path
U64_MAX = 2**64 - 1


def _type_name(value: Any) -> str:
    return type(value).__name__


_SHOWN_INT_BITS = 256  # an int longer than this is named by its size (str() refuses past 4300 digits)


def int_text(value: int) -> str:
    """An int as an error message shows it: its digits, or its size when it is huge."""
    return str(value) if value.bit_length() <= _SHOWN_INT_BITS else f"an int of {value.bit_length()} bits"


def shown(value: Any) -> str:
    """A value as an error message shows it: its repr, cut at 80 characters (a huge int: its size)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return int_text(value)
    return f"{value!r:.80}"


def integral(name: str, value: Any) -> int:
    """``value`` as an int, whatever its size (its bound is the caller's to check)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise errors.ArgumentTypeError(f"{name} must be an int, got {_type_name(value)} {shown(value)}")
    return int(value)


def integer(name: str, value: Any, lo: int, hi: int) -> int:
    """``value`` as an int in lo..hi."""
    value = integral(name, value)
    if not lo <= value <= hi:
        raise errors.InvalidArgumentError(f"{name} must be in {lo}..{hi}, got {int_text(value)}")
    return value


def optional_integer(name: str, value: Any, lo: int, hi: int) -> Optional[int]:
    return None if value is None else integer(name, value, lo, hi)


def number(name: str, value: Any) -> numbers.Real:
    """``value`` if it is a real number (an int or a float, never a bool), as it is."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise errors.ArgumentTypeError(f"{name} must be a number, got {_type_name(value)} {shown(value)}")
    return value


def real(name: str, value: Any, lo: float, hi: float, *, lo_open: bool = False) -> float:
    """``value`` as a finite float in [lo, hi] (or (lo, hi] with lo_open)."""
    value = number(name, value)
    bounds = f"({lo:g}, {hi:g}]" if lo_open else f"[{lo:g}, {hi:g}]"
    try:
        x = float(value)
    except OverflowError:  # an int past the largest float (10**400)
        raise errors.InvalidArgumentError(f"{name} must be a finite number in {bounds}, got "
                                          f"{int_text(int(value))}") from None
    low_ok = x > lo if lo_open else x >= lo
    if not math.isfinite(x) or not low_ok or x > hi:
        raise errors.InvalidArgumentError(f"{name} must be a finite number in {bounds}, got {x!r}")
    return x


def boolean(name: str, value: Any) -> bool:
    """A bool: 0, 1, "yes" or None are not."""
    if not isinstance(value, bool):
        raise errors.ArgumentTypeError(f"{name} must be True or False, got {_type_name(value)} {shown(value)}")
    return value


def text(name: str, value: Any, max_len: int = MAX_TEXT) -> str:
    """A str without NUL, at most max_len characters."""
    if not isinstance(value, str):
        raise errors.ArgumentTypeError(f"{name} must be a str, got {_type_name(value)} {shown(value)}")
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
                                       f"{shown(value)}")
    if value not in choices:
        raise errors.InvalidArgumentError(f"{name} must be one of {tuple(choices)}, got {shown(value)}")
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
                                       f"{_type_name(value)} {shown(value)}")
    if value not in names:
        raise errors.InvalidArgumentError(f"{name} must be one of {tuple(names)}, got {shown(value)}")
    return names[value]


def path(name: str, value: Any) -> bytes:
    """A file system path (str or os.PathLike of str) as the bytes the OS takes: any file name,
    UTF-8 or not, round-trips (os.fsencode). bytes paths are refused: names are text here."""
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    if not isinstance(value, str):
        raise errors.ArgumentTypeError(f"{name} must be a str or os.PathLike path, got {_type_name(value)} "
                                       f"{shown(value)}")
    if not value:
        raise errors.InvalidArgumentError(f"{name} is empty")
    if "\0" in value:
        raise errors.InvalidArgumentError(f"{name} contains a NUL character")
    encoded = os.fsencode(value)
    if len(encoded) >= MAX_TEXT:
        raise errors.InvalidArgumentError(f"{name} is {len(encoded)} bytes long; a path has at most {MAX_TEXT - 1}")
    return encoded


# Keywords of the typed classes' neighbours that a class spells otherwise: the Loader's former
# ``format=`` (ReaderOptions' ``reader_format``), DataLoader's ``prefetch_factor`` (``prefetch``).
KEYWORD_ALIASES = {"format": "reader_format", "prefetch_factor": "prefetch"}


def closest_names(name: str, known: Iterable[str]) -> List[str]:
    """The known names ``name`` may have meant: its alias first (``format``: ``reader_format``),
    then the nearest spellings."""
    names = list(known)
    alias = KEYWORD_ALIASES.get(name)
    close = [alias] if alias in names else []
    return close + [c for c in difflib.get_close_matches(name, names, n=3, cutoff=0.7) if c not in close]


def unknown_keywords(caller: str, unknown: Iterable[str], known: Iterable[str],
                     hints: Optional[Mapping[str, str]] = None) -> errors.ArgumentTypeError:
    """The TypeError for keywords ``caller`` does not take, each with the known names it may have
    meant: "X() got an unexpected keyword argument 'croop_size' (did you mean 'crop_size'?)".
    ``hints``: {known name: where it goes}, shown after the name."""
    names, shown = list(known), hints or {}
    parts = []
    for name in unknown:
        close = [repr(c) + (f" ({shown[c]})" if c in shown else "") for c in closest_names(name, names)]
        hint = f" (did you mean {' or '.join(close)}?)" if close else ""
        parts.append(f"{caller}() got an unexpected keyword argument {name!r}{hint}")
    return errors.ArgumentTypeError("; ".join(parts))
