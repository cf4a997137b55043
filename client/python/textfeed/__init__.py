"""textfeed: EAST training batches built in C++, for PyTorch training loops."""

try:
    from . import _core
except ImportError as e:  # pragma: no cover - exercised only on a broken install
    raise ImportError(
        "textfeed's C++ extension (textfeed._core) is not built or not on PYTHONPATH. "
        "Build with `make` and run with PYTHONPATH=<build>/python, using /usr/bin/python3."
    ) from e

from . import errors

__version__ = _core.__version__
__all__ = ["errors", "__version__"]
