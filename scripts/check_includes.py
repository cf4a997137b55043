#!/usr/bin/env python3
"""The include graph's two privacy rules (docs/STYLE §2.1, §2.3), checked on the source tree.

1. A module's detail/ folder is its own: a file outside module M includes no "M/detail/...".
   Modules are the top-level folders below. A module's tests (tests/M/) may include M's detail
   headers: they are white-box tests of that module (STYLE §2.7); tests/api/ may not.
2. No public header leaks oneTBB: a header (.h) outside every detail/ folder includes no
   <oneapi/tbb/...> (nor <tbb/...>). Sources (.cc) may: oneTBB links PRIVATE.
3. Detector families are plug-ins (augment/family.h): loader/, transport/ and client/ include no
   header of a family folder (a folder augment/F/ with a profiles.cc) and name no profile
   enumerator (Profile::kX): what differs per family is asked of the registry.

Usage: check_includes.py REPO_ROOT. Prints each violation as FILE:LINE: rule, and exits 1 if any
is not listed in EXEMPT below. EXEMPT is the explicit list of known violations that their owners
will clear; an entry that no longer matches anything is reported too, so the list only shrinks.
"""
import os
import re
import sys

MODULES = ("base", "augment", "cache", "loader", "transport", "client", "tools")
SCAN = MODULES + ("tests", "bench")
SOURCE_EXT = (".h", ".cc")

# (file, included path) pairs allowed for now, each with why and who clears it. Empty: keep it so.
# The Python replay functions of textfeed.reference (each family's steps one at a time) are bound in
# client/python until they move into their family folders with the rest of the family.
EXEMPT = {
    ("client/python/register_db.cc", "augment/db/crop.h"),
    ("client/python/register_db.cc", "augment/db/geometry.h"),
    ("client/python/register_geometry.cc", "augment/east/plan.h"),
    ("client/python/register_targets.cc", "augment/db/targets.h"),
    ("client/python/register_targets.cc", "augment/east/shrink.h"),
    ("client/python/register_targets.cc", "augment/east/targets.h"),
}

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')


def module_of(rel):
    """The module a file belongs to: its top-level folder, or M for tests/M/..."""
    parts = rel.split("/")
    if parts[0] == "tests" and len(parts) > 2:
        return "tests/" + parts[1]
    return parts[0]


FAMILY_BLIND = ("loader", "transport", "client")
PROFILE_ENUMERATOR = re.compile(r"\bProfile::k[A-Z]\w*")


def family_folders(root):
    """The family folders: augment/F/ holding a profiles.cc."""
    base = os.path.join(root, "augment")
    return sorted(d for d in os.listdir(base)
                  if os.path.isfile(os.path.join(base, d, "profiles.cc")))


def family_violations(rel, lines, families):
    """Rule 3 for one file of a family-blind module."""
    found = []
    for lineno, line in enumerate(lines, 1):
        m = INCLUDE.match(line)
        if m and any(m.group(2).startswith(f"augment/{f}/") for f in families):
            found.append((rel, lineno, m.group(2),
                          f"includes the family header {m.group(2)}; ask augment/family.h instead"))
        code = line.split("//", 1)[0]
        for e in PROFILE_ENUMERATOR.findall(code):
            found.append((rel, lineno, e, f"names the profile {e}; a family decides through its registration"))
    return found


def violations(root):
    found = []
    families = family_folders(root)
    for top in SCAN:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            for name in sorted(filenames):
                if not name.endswith(SOURCE_EXT):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, root).replace(os.sep, "/")
                owner = module_of(rel)
                in_detail = "/detail/" in rel
                with open(path, encoding="utf-8", errors="replace") as f:
                    lines = f.read().splitlines()
                if top in FAMILY_BLIND:
                    found.extend(family_violations(rel, lines, families))
                for lineno, line in enumerate(lines, 1):
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    target = m.group(2)
                    parts = target.split("/")
                    if len(parts) > 2 and parts[0] in MODULES and parts[1] == "detail":
                        target_module = parts[0]
                        if owner not in (target_module, "tests/" + target_module):
                            found.append((rel, lineno, target,
                                          f"includes {target_module}'s private detail/ header {target}"))
                    if (name.endswith(".h") and not in_detail and
                            (target.startswith("oneapi/tbb") or target.startswith("tbb/"))):
                        found.append((rel, lineno, target,
                                      f"public header includes oneTBB ({target}); move it behind a pimpl "
                                      "or into detail/"))
    return found


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    root = argv[1]
    found = violations(root)
    failed = False
    used = set()
    for rel, lineno, target, why in found:
        if (rel, target) in EXEMPT:
            used.add((rel, target))
            print(f"{rel}:{lineno}: exempt: {why}")
        else:
            failed = True
            print(f"{rel}:{lineno}: {why}")
    for rel, target in sorted(EXEMPT - used):
        failed = True
        print(f"{rel}: exemption for {target} matches nothing any more: remove it from EXEMPT")
    print(f"check_includes: {len(found)} finding(s), {len(used)} exempt, "
          f"{'FAILED' if failed else 'ok'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
