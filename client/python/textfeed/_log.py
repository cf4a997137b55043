"""The C++ side's log lines (dataset layouts, records a reader left out, a daemon lost and found
again) as records of ``logging.getLogger("textfeed")``, at their levels, so that a training
script's logging configuration governs them as it does its own lines.

C++ threads must not take the GIL to log (register_log.cc says why), so their lines wait in a
bounded queue that :func:`flush` empties: the Loader calls it as it opens, while it waits for a
batch (at least every 100 ms) and as it closes, and it runs at exit, after which any last line
goes to stderr as the command line writes it.
"""

from __future__ import annotations

import atexit
import logging

from . import _core

logger = logging.getLogger("textfeed")


def flush() -> None:
    """Hands the C++ lines queued so far to the ``textfeed`` logger, oldest first."""
    lines, dropped = _core._take_log_lines()
    for level, message in lines:
        logger.log(level, message)
    if dropped:
        logger.warning("textfeed: %d log line(s) of the C++ side were dropped: more than the queue holds came "
                       "between two reads", dropped)


def sync_level() -> None:
    """Lets C++ make its debug lines only while the logger would show them (they may be many)."""
    _core._set_log_level(logging.DEBUG if logger.isEnabledFor(logging.DEBUG) else logging.INFO)


def _at_exit() -> None:
    _core._log_to_stderr()  # from now on straight to stderr: a feed closed later by a finalizer has its say
    flush()  # then what was queued, none of it left behind by a line logged in between


_core._log_to_python()
atexit.register(_at_exit)
