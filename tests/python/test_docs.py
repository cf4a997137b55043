"""The documentation against the code: the generated references of docs/cli.md and docs/python.md
are current (scripts/gen_docs.py --check), the README stays short and names every command, and
every relative link and every source file the README and docs/ name exists."""
import functools
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from support import ROOT, TEXTFEED

README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))
README_MAX_BYTES = 15_000
GEN_DOCS = ROOT / "scripts" / "gen_docs.py"
BUILD = Path(TEXTFEED).resolve().parents[1]  # BUILD/tools/textfeed
# The repository's top-level folders: a `path` in backquotes that starts with one names a file.
SOURCE_FOLDERS = ("base", "augment", "cache", "loader", "transport", "client", "tools", "tests",
                  "bench", "examples", "scripts", "docs", "cmake", "data")
# Files of other projects the docs cite by their own paths (PaddleOCR's inference script).
OTHER_PROJECTS_FILES = {"tools/infer/predict_det.py"}


@functools.lru_cache(maxsize=None)
def load_gen_docs():
    spec = importlib.util.spec_from_file_location("gen_docs", GEN_DOCS)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def prose(text):
    """The text without fenced code blocks, whose brackets and backquotes are code, not links."""
    return re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)


def heading_anchors(path):
    """GitHub's anchors of a markdown file's headings (a repeated one gets -1, -2, ...)."""
    gen_docs = load_gen_docs()
    seen = {}
    anchors = set()
    for line in prose(path.read_text(encoding="utf-8")).split("\n"):
        if m := re.match(r"^#{1,6} (.*)$", line):
            base = gen_docs.anchor(m.group(1))
            n = seen.get(base, 0)
            seen[base] = n + 1
            anchors.add(base if n == 0 else f"{base}-{n}")
    return anchors


def relative_links(path):
    text = re.sub(r"`[^`\n]*`", "", prose(path.read_text(encoding="utf-8")))
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if not re.match(r"^[a-z]+:", target):  # http:, https:, mailto:
            yield target


def test_generated_references_are_current():
    if not os.access(BUILD / "tools" / "textfeed", os.X_OK):
        pytest.skip(f"no textfeed command in {BUILD}/tools: the references are generated from it")
    done = subprocess.run([sys.executable, str(GEN_DOCS), "--build", str(BUILD), "--check"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, (
        "docs/cli.md or docs/python.md is stale; run /usr/bin/python3 scripts/gen_docs.py "
        f"--build {BUILD}\n{done.stdout}{done.stderr}")


def test_readme_is_short():
    size = len(README.read_bytes())
    assert size <= README_MAX_BYTES, f"README.md is {size} bytes; move detail into docs/"


@pytest.mark.parametrize("path", [README] + DOCS, ids=lambda p: p.name)
def test_relative_links_exist(path):
    broken = []
    for target in relative_links(path):
        file_part, _, fragment = target.partition("#")
        linked = (path.parent / file_part).resolve() if file_part else path
        if not linked.exists() or ROOT not in (linked, *linked.parents):
            broken.append(f"{target}: no such file in the repository")
        elif fragment and linked.suffix == ".md" and fragment not in heading_anchors(linked):
            broken.append(f"{target}: {linked.name} has no heading with that anchor")
    assert not broken, f"{path.name}: " + "; ".join(broken)


@pytest.mark.parametrize("path", [README] + DOCS, ids=lambda p: p.name)
def test_named_source_files_exist(path):
    text = path.read_text(encoding="utf-8")
    missing = []
    for name in sorted(set(re.findall(r"`([^`\s]+)`", text))):
        name = name.split(":", 1)[0].rstrip(".,;")
        if (name.split("/", 1)[0] in SOURCE_FOLDERS and "/" in name and
                re.search(r"\.\w+$", name) and not re.search(r"[*<>{}$]|\.\.\.", name)):
            if not (ROOT / name).exists() and name not in OTHER_PROJECTS_FILES:
                missing.append(name)
    assert not missing, f"{path.name} names files that do not exist: {', '.join(missing)}"


def test_readme_command_table_names_every_command():
    if not os.access(TEXTFEED, os.X_OK):
        pytest.skip(f"no textfeed command at {TEXTFEED}")
    pages = load_gen_docs().walk_commands(Path(TEXTFEED))
    text = README.read_text(encoding="utf-8")
    section = text.split("## The `textfeed` command", 1)[-1].split("\n## ", 1)[0]
    rows = [line for line in section.split("\n") if re.match(r"^\| \[?`textfeed ", line)]
    assert rows, "README.md has no command table under '## The `textfeed` command'"
    named = {re.match(r"\| \[?`(textfeed(?: [a-z][\w-]*)+)", row).group(1) for row in rows}
    commands = {page.name for page in pages[1:]}
    missing = sorted(c for c in commands if c not in named and
                     not any(n.startswith(c + " ") for n in named))
    assert not missing, f"README.md's command table lacks: {', '.join(missing)}"
