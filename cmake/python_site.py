"""Prints the folder, relative to the install prefix argv[1], that receives the package textfeed/.

Run by `cmake --install` (cmake/install.cmake) with the interpreter the extension was built for,
at install time, so that the prefix is the one of that install (--prefix, CPack's /usr), not the
one configured. The folder is the first of the interpreter's own site-packages folders that lies
in PREFIX/lib*, in its search order: Debian's python3 gives lib/python3.11/dist-packages for
/usr/local (its posix_local scheme maps /usr/local there, not to lib/python3/dist-packages) and
lib/python3/dist-packages for /usr; a venv gives its lib/python3.X/site-packages. For a prefix the
interpreter does not search (/opt/textfeed), it is the standard layout lib/python3.X/site-packages
(posix_prefix), and a line on stderr says that PYTHONPATH must name it.
"""

from __future__ import annotations

import os
import site
import sys
import sysconfig


def searched_dir(prefix: str) -> str | None:
    """The interpreter's first site-packages folder under `prefix`/lib*, relative to `prefix`."""
    for folder in site.getsitepackages():
        rel = os.path.relpath(os.path.realpath(folder), prefix)
        # /usr/local/lib/... is under /usr too, but belongs to the prefix /usr/local.
        if not rel.startswith("..") and rel.split(os.sep)[0].startswith("lib"):
            return rel
    return None


def main() -> int:
    if len(sys.argv) != 2 or not sys.argv[1]:
        print(f"usage: {sys.argv[0]} PREFIX", file=sys.stderr)
        return 2
    prefix = os.path.realpath(sys.argv[1])
    rel = searched_dir(prefix)
    if rel is None:
        scheme = "posix_prefix" if "posix_prefix" in sysconfig.get_scheme_names() else None
        platlib = sysconfig.get_path("platlib", scheme, vars={"base": prefix, "platbase": prefix})
        rel = os.path.relpath(platlib, prefix)
        where = os.path.join(prefix, rel)
        print(f"{sys.executable} does not search {prefix}: PYTHONPATH={where} imports textfeed from there",
              file=sys.stderr)
    print(rel)
    return 0


if __name__ == "__main__":
    sys.exit(main())
