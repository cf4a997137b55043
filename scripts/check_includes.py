#!/usr/bin/env python3
"""The include graph's two privacy rules (docs/STYLE §2.1, §2.3), checked on the source tree.

1. A module's detail/ folders are its own: a file outside module M includes no "M/detail/..."
   (nor "M/<room>/detail/...").
   Modules are the top-level folders below. A module's tests (tests/M/) may include M's detail
   headers: they are white-box tests of that module (STYLE §2.7); tests/api/ may not.
2. No public header leaks oneTBB: a header (.h) outside every detail/ folder includes no
   <oneapi/tbb/...> (nor <tbb/...>). Sources (.cc) may: oneTBB links PRIVATE.
3. Detector families are plug-ins (augment/family.h): loader/, transport/ and client/ include no
   header of a family folder (a folder augment/F/ with a profiles.cc) and name no profile
   enumerator (Profile::kX): what differs per family is asked of the registry. augment's shared
   rooms (augment/geometry/, augment/colour/) are family-blind too.
4. loader/'s rooms follow the data: spec/ -> readers/ -> decode/ -> sources/ -> pipeline/ ->
   cache_build/. A file of a room includes headers of its own room and of the rooms before it only.
5. The wire and the remote client need neither the loader nor the augmentation: transport/ outside
   transport/daemon/ and the remote client (client/ but its embedded part and the Python binding)
   include from loader/ only the spec room, and from augment/ only the recipe's value type
   (augment/profile.h, augment/recipe_fields.h); transport/wire.h includes nothing of augment/.

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
EXEMPT: set[tuple[str, str]] = set()

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')


def module_of(rel):
    """The module a file belongs to: its top-level folder, or M for tests/M/..."""
    parts = rel.split("/")
    if parts[0] == "tests" and len(parts) > 2:
        return "tests/" + parts[1]
    return parts[0]


FAMILY_BLIND = ("loader", "transport", "client", "augment/geometry", "augment/colour")
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


LOADER_ROOMS = ("spec", "readers", "decode", "sources", "pipeline", "cache_build")


def included(lines):
    """(line number, path) of each #include of a file."""
    for lineno, line in enumerate(lines, 1):
        m = INCLUDE.match(line)
        if m:
            yield lineno, m.group(2)


def room_of(path):
    """The loader room of a repository path (loader/R/...), or None."""
    parts = path.split("/")
    if len(parts) > 2 and parts[0] == "loader" and parts[1] in LOADER_ROOMS:
        return parts[1]
    return None


def room_violations(rel, lines):
    """Rule 4 for one file."""
    room = room_of(rel)
    if room is None:
        return []
    found = []
    for lineno, target in included(lines):
        other = room_of(target)
        if other is not None and LOADER_ROOMS.index(other) > LOADER_ROOMS.index(room):
            found.append((rel, lineno, target,
                          f"loader/{room}/ includes {target} of the later room loader/{other}/"))
    return found


EMBEDDED_CLIENT = ("client/embedded_feed.", "client/multi_feed_local.cc", "client/detail/local_producer.",
                   "client/python/")
RECIPE_VALUE = ("augment/profile.h", "augment/recipe_fields.h")


def remote_side(rel):
    """Rule 5's files: the wire (transport/ but the daemon) and the remote client."""
    if rel.startswith("transport/"):
        return not rel.startswith("transport/daemon/")
    return rel.startswith("client/") and not rel.startswith(EMBEDDED_CLIENT)


def wire_violations(rel, lines):
    """Rule 5 for one file."""
    if not remote_side(rel):
        return []
    found = []
    for lineno, target in included(lines):
        if target.startswith("loader/") and not target.startswith("loader/spec/"):
            found.append((rel, lineno, target, f"the wire and the remote client include {target}: "
                          "of loader/ only the spec room (loader/spec/)"))
        if target.startswith("augment/") and (rel == "transport/wire.h" or target not in RECIPE_VALUE):
            found.append((rel, lineno, target, f"the wire and the remote client include {target}: of "
                          "augment/ only the recipe's value type, and wire.h nothing"))
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
                if any(rel.startswith(b + "/") for b in FAMILY_BLIND):
                    found.extend(family_violations(rel, lines, families))
                found.extend(room_violations(rel, lines))
                found.extend(wire_violations(rel, lines))
                for lineno, line in enumerate(lines, 1):
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    target = m.group(2)
                    parts = target.split("/")
                    if len(parts) > 2 and parts[0] in MODULES and "detail" in parts[1:-1]:
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
