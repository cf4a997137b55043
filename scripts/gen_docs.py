#!/usr/bin/env python3
"""Writes the reference parts of docs/cli.md and docs/python.md, and the attributes of the typed
options Recipe and ReaderOptions (client/python/textfeed/options.py), from a build of textfeed, or
checks that the committed ones are current.

    /usr/bin/python3 scripts/gen_docs.py [--build build] [--check]

What it writes goes between marker lines, so that prose (or code) can surround it:

    <!-- BEGIN GENERATED: name -->          # BEGIN GENERATED: name   (options.py)
    ...
    <!-- END GENERATED: name -->            # END GENERATED: name

docs/cli.md gets the --help text of every command of BUILD/tools/textfeed (found by walking the
"Subcommands:" sections from `textfeed --help` down, so a new subcommand appears without a change
here) and a table of each command's flags parsed from that text. docs/python.md gets the
signature and docstring of textfeed.Loader, every public name of the package with its one-line
doc, the recipe (augmentation) options with their type and each profile's default, the reader
options per profile, the sampler's defaults and the limits, all read from BUILD/python.
options.py gets the docstring and the typed attributes of Recipe and ReaderOptions, one per row of
the C++ field tables (_core.recipe_fields(), _core.reader_fields()).

The output depends on the build only: the program is run as `textfeed` (no path of this machine
in its usage lines), and a default equal to this machine's core count in a flag's head is printed
as <cores> (no --help prints one today; the rule is there so that one added later cannot make the
check depend on the machine). --check writes nothing and exits 1, with a summary of each stale
block, when a file is not what this run would write.
"""
import argparse
import dataclasses
import difflib
import importlib
import inspect
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple

REPO = Path(__file__).resolve().parent.parent
CLI_DOC = REPO / "docs" / "cli.md"
PYTHON_DOC = REPO / "docs" / "python.md"
OPTIONS_PY = REPO / "client" / "python" / "textfeed" / "options.py"
MARKDOWN_MARKERS = ("<!-- BEGIN GENERATED: {} -->", "<!-- END GENERATED: {} -->")
PYTHON_MARKERS = ("    # BEGIN GENERATED: {}", "    # END GENERATED: {}")  # in a class body
PYTHON_COLUMNS = 116  # options.py's lines, with the 4 columns of the class body
HELP_COLUMN = 30  # CLI11's option column: a description starts here, or on the next line
HELP_TIMEOUT_S = 60
MAX_SIGNATURE = 240  # a longer signature (the Loader's) has a section of its own
CORES_PLACEHOLDER = "<cores>"
# CLI11's words after a flag's argument type in its head ("--out TEXT REQUIRED Excludes: --x").
HEAD_TAIL = re.compile(r" (?:REQUIRED|\.\.\.|x \d+|Needs:.*|Excludes:.*|\(Env:[^)]*\))$")
# A flag's argument in its head: CLI11's type name, a validator after ':', a default after '='.
FLAG_ARGUMENT = re.compile(r"^[A-Z][A-Z0-9_]*(?::\S.*)?(?:=.*)?$")
SECTION = re.compile(r"^([A-Z][A-Za-z ]*):$")


# ---- the command line ----------------------------------------------------------------------------


@dataclasses.dataclass
class Entry:
    """One line of a help section: a flag, a positional or a subcommand, and its description."""

    head: str
    text: List[str]


@dataclasses.dataclass
class HelpPage:
    path: Tuple[str, ...]
    text: str
    sections: Dict[str, List[Entry]]

    @property
    def name(self) -> str:
        return " ".join(("textfeed",) + self.path)


def normalise_help(text: str) -> str:
    """Takes out what depends on this machine: a default equal to its core count."""
    cores = str(os.cpu_count() or 1)
    return re.sub(r"^(  --threads\S* \S*=)" + cores + r"\b", r"\g<1>" + CORES_PLACEHOLDER, text,
                  flags=re.M)


def run_help(binary: Path, path: Sequence[str]) -> str:
    env = {"PATH": "/usr/bin:/bin", "LC_ALL": "C"}
    done = subprocess.run(["textfeed", *path, "--help"], executable=str(binary), env=env,
                          capture_output=True, text=True, timeout=HELP_TIMEOUT_S)
    if done.returncode != 0:
        raise SystemExit(f"gen_docs: textfeed {' '.join(path)} --help exited {done.returncode}: "
                         f"{done.stderr.strip()}")
    return normalise_help(done.stdout).rstrip("\n") + "\n"


def is_continuation(line: str) -> bool:
    return line.startswith(" " * HELP_COLUMN) and line.strip() != ""


def split_entry(line: str, next_line: str, section: str) -> Entry:
    """An entry's head and the start of its description. CLI11 pads a head shorter than the column
    and starts the description there; a longer head takes the line and the description starts on
    the next one. A subcommand's head is its name. A flag whose next line continues is read as a
    long head (no flag's description has a line break of its own; parse_flag checks the head)."""
    if section == "Subcommands":
        name = line.split()[0]
        rest = line[max(HELP_COLUMN, len(name) + 2):].strip()
        return Entry(name, [rest] if rest else [])
    fits = line[HELP_COLUMN - 1:HELP_COLUMN] in ("", " ")
    if fits and not is_continuation(next_line):
        rest = line[HELP_COLUMN:].strip()
        return Entry(line[:HELP_COLUMN].strip(), [rest] if rest else [])
    return Entry(line.strip(), [])


def parse_help(path: Tuple[str, ...], text: str) -> HelpPage:
    """The sections (Options, Positionals, Subcommands) of one --help text and their entries."""
    sections: Dict[str, List[Entry]] = {}
    current: Optional[List[Entry]] = None
    section = ""
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if m := SECTION.match(line):
            section = m.group(1)
            current = sections.setdefault(section, [])
        elif current is not None and is_continuation(line) and current:
            current[-1].text.append(line.strip())
        elif current is not None and re.match(r"^  \S", line):
            current.append(split_entry(line, lines[i + 1] if i + 1 < len(lines) else "", section))
        elif line.strip():
            current = None  # prose after a section (a footer) belongs to no entry
    return HelpPage(path, text, sections)


def walk_commands(binary: Path) -> List[HelpPage]:
    """Every command's help page: `textfeed`, then each subcommand (depth first, in help order)."""
    pages: List[HelpPage] = []

    def visit(path: Tuple[str, ...]) -> None:
        page = parse_help(path, run_help(binary, path))
        pages.append(page)
        for entry in page.sections.get("Subcommands", []):
            visit(path + (entry.head.split()[0],))

    visit(())
    return pages


@dataclasses.dataclass
class Flag:
    names: str
    argument: str
    default: str
    help: str


def parse_flag(entry: Entry) -> Flag:
    """Names, argument type, default and help of one Options or Positionals entry."""
    head = entry.head
    notes = []
    while m := HEAD_TAIL.search(head):
        notes.insert(0, m.group(0).strip())
        head = head[:m.start()]
    names, _, argument = head.partition(" ")
    if argument and not FLAG_ARGUMENT.match(argument) or not entry.text:
        raise SystemExit(f"gen_docs: cannot read the flag line '{entry.head}' (help '{entry.text}')")
    default = ""
    if m := re.search(r"=([^=\]}]*)$", argument):
        argument, default = argument[:m.start()], m.group(1)
    if ":" in argument:  # TYPE:validator; the validator says more ("INT in [1 - 64]", "{a,b}")
        kind, _, check = argument.partition(":")
        argument = check if check.startswith(kind) or check.startswith("{") else argument
    if "..." in notes:
        argument += " ..."
    help_text = " ".join(entry.text)
    if "REQUIRED" in notes:
        default = "required"
    elif not default:
        default = default_in_help(help_text)
    extra = [n for n in notes if n.startswith(("Needs:", "Excludes:"))]
    if extra:
        help_text = f"{help_text} ({'; '.join(extra)})"
    return Flag(names, argument, default, help_text)


def default_in_help(text: str) -> str:
    """A default the help line states in words: "(default 16)", "Default: the profile's (...)"."""
    for pattern in (r"\(default:? ([^()]*(?:\([^()]*\)[^()]*)*)\)", r"\bDefault: ([^(.;]*[^(.; ])",
                    r"; default ([^;.]*)"):
        if m := re.search(pattern, text):
            return m.group(1)
    return ""


def cell(text: str) -> str:
    return text.replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;") if text else "—"


def code_cell(text: str) -> str:
    return "`" + text.replace("|", "\\|") + "`" if text else "—"


def flags_table(page: HelpPage) -> List[str]:
    rows = ["| flag | argument | default | help |", "|---|---|---|---|"]
    for section in ("Positionals", "Options"):
        for entry in page.sections.get(section, []):
            f = parse_flag(entry)
            rows.append(f"| {code_cell(f.names)} | {code_cell(f.argument)} | {code_cell(f.default)} | "
                        f"{cell(f.help)} |")
    return rows if len(rows) > 2 else []


def cli_commands_block(pages: Sequence[HelpPage]) -> str:
    out = ["| command | what it does |", "|---|---|"]
    for page in pages[1:]:
        if "Subcommands" in page.sections:
            continue  # a group such as `cache`: its subcommands have the rows
        parent = next(p for p in pages if p.path == page.path[:-1])
        entry = next(e for e in parent.sections["Subcommands"] if e.head.split()[0] == page.path[-1])
        out.append(f"| [`{page.name}`](#{anchor(page.name)}) | {cell(first_sentence(entry.text))} |")
    return "\n".join(out)


def first_sentence(lines: Sequence[str]) -> str:
    """Up to the first full stop outside brackets."""
    text, depth = " ".join(lines), 0
    for i, c in enumerate(text):
        depth += (c in "([{") - (c in ")]}")
        if c == "." and depth == 0 and text[i + 1:i + 2] in ("", " "):
            return text[:i]
    return text


def cli_reference_block(pages: Sequence[HelpPage]) -> str:
    out: List[str] = []
    for page in pages:
        out += [f"### {page.name}", "", "```text", page.text.rstrip("\n"), "```", ""]
        table = flags_table(page)
        if table:
            out += table + [""]
    return "\n".join(out).rstrip("\n")


def anchor(heading: str) -> str:
    """GitHub's anchor of a markdown heading: lower case, punctuation dropped, spaces to '-'."""
    text = re.sub(r"[`*_]", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def cli_blocks(build: Path) -> Dict[str, str]:
    binary = build / "tools" / "textfeed"
    if not binary.is_file():
        raise SystemExit(f"gen_docs: {binary} is not built (cmake --build {build} --target textfeed)")
    pages = walk_commands(binary)
    return {"cli-commands": cli_commands_block(pages), "cli-reference": cli_reference_block(pages)}


# ---- Python --------------------------------------------------------------------------------------


def summary(doc: Optional[str], name: str = "") -> str:
    """The first sentence of a docstring's first paragraph (pybind11's first line, the signature
    `name(...)`, is skipped)."""
    lines = (doc or "").strip().split("\n")
    if name and lines and lines[0].startswith(name + "("):
        lines = lines[1:]
    paragraph = []
    for line in lines:
        if not line.strip() and paragraph:
            break
        if line.strip():
            paragraph.append(line.strip())
    return first_sentence(paragraph) + ("." if paragraph else "")


def signature_of(name: str, obj: object) -> str:
    try:
        text = str(inspect.signature(obj))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        first = (getattr(obj, "__doc__", "") or "").strip().split("\n")[0]
        text = first[len(name):] if first.startswith(name + "(") else ""
    text = annotation_text(text)
    return text if len(text) <= MAX_SIGNATURE else "(...)"


def describe_name(module_name: str, name: str, obj: object) -> List[str]:
    """One bullet per public name: its signature and one-line doc; a class's members below it."""
    qual = f"{module_name}.{name}"
    if inspect.ismodule(obj):
        return [f"- `{qual}` (module): {summary(obj.__doc__)}"]
    if isinstance(obj, str):
        return [f"- `{qual}`: the version of the build, a str."]
    members = getattr(obj, "__members__", None)
    if inspect.isclass(obj) and isinstance(members, dict):  # the enums of _core
        values = ", ".join(f"`{k}`" + (f" (`{v.text}`)" if hasattr(v, "text") else "")
                           for k, v in members.items())
        return [f"- `{qual}` (enum): {summary(obj.__doc__)} Members: {values}."]
    out = [f"- `{qual}{signature_of(name, obj)}`: {summary(obj.__doc__, name)}"]
    if inspect.isclass(obj) and not issubclass(obj, BaseException):
        for field, kind in vars(obj).get("__annotations__", {}).items():
            if not field.startswith("_"):
                out.append(f"  - `{field}: {annotation_text(kind)}`")
        for m in public_members(obj):
            doc = summary(getattr(obj, m).__doc__, m)
            out.append(f"  - `{m}`" + (f": {doc}" if doc else ""))
    return out


def annotation_text(kind: object) -> str:
    text = kind if isinstance(kind, str) else inspect.formatannotation(kind)
    return re.sub(r"ForwardRef\('([^']*)'\)", r"\1", text)


def public_members(cls: type) -> List[str]:
    """The methods and properties a class defines itself (not those of object, tuple or dict)."""
    names = []
    for m, value in vars(cls).items():
        if m.startswith("_") or not (callable(value) or isinstance(value, property)):
            continue
        names.append(m)
    return names


def api_block(modules: Sequence[object]) -> str:
    out: List[str] = []
    for module in modules:
        out += [f"#### {module.__name__}", ""]
        for name in module.__all__:
            out += describe_name(module.__name__, name, getattr(module, name))
        out.append("")
    return "\n".join(out).rstrip("\n")


def loader_block(textfeed: object) -> str:
    loader = textfeed.Loader
    sig = str(inspect.signature(loader))
    params = ",\n    ".join(p.strip() for p in split_params(sig[1:sig.rindex(")")]))
    return "\n".join(["```python", f"textfeed.Loader(\n    {params},\n)", "```", "", "```text",
                      inspect.getdoc(loader) or "", "```"])


def split_params(text: str) -> Iterator[str]:
    """The parameters of a signature, split at the commas outside brackets and quotes."""
    depth, quote, start = 0, "", 0
    for i, c in enumerate(text):
        if quote:
            quote = "" if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "," and depth == 0:
            yield text[start:i]
            start = i + 1
    yield text[start:]


@dataclasses.dataclass
class RecipeOption:
    name: str
    kind: str  # the text it takes: int, float, true|false, lo,hi, a,b,c, or an enum's names
    bound: str  # "[8, 16384]", "" for flags and enums
    family: str  # "" when every profile reads it, else the family whose chain does
    doc: str
    defaults: Dict[str, str]  # profile name -> value, as set_option takes it


# The one place the recipe's options are read from the built module: the C++ field table
# (augment/profile.h recipe_fields(), bound as _core.recipe_fields()).
def recipe_options(core: object) -> List[RecipeOption]:
    return [RecipeOption(row["name"], row["syntax"], row["bound"], row["family"], row["doc"],
                         dict(row["defaults"])) for row in core.recipe_fields()]


def recipe_block(core: object) -> str:
    options = recipe_options(core)
    profiles = list(options[0].defaults) if options else []
    out = ["| option | takes | bound | " + " | ".join(profiles) + " | what it is |",
           "|---|---|---|" + "---|" * len(profiles) + "---|"]
    for o in options:
        values = " | ".join(code_cell(o.defaults[p]) for p in profiles)
        doc = o.doc + (f" ({o.family} only)" if o.family else "")
        out.append(f"| `{o.name}` | {code_cell(o.kind)} | {code_cell(o.bound) if o.bound else ''} | {values} | "
                   f"{doc.replace('|', '/')} |")
    return "\n".join(out)


def reader_block(core: object) -> str:
    profiles = list(core.Profile.__members__.values())
    readers = {p.text: core.reader_defaults(p) for p in profiles}
    fields = [f for f in dir(core.ReaderOptions) if not f.startswith("_")]
    out = ["| reader option | " + " | ".join(readers) + " |", "|---|" + "---|" * len(readers)]
    for f in fields:
        values = [value_text(getattr(r, f)) for r in readers.values()]
        out.append(f"| `{f}` | " + " | ".join(code_cell(v) for v in values) + " |")
    sampler = core.SamplerOptions()
    out += ["", "| sampler option | default |", "|---|---|"]
    for f in [f for f in dir(sampler) if not f.startswith("_") and not callable(getattr(sampler, f))]:
        out.append(f"| `{f}` | {code_cell(value_text(getattr(sampler, f)))} |")
    out += ["", "| limit | value |", "|---|---|"]
    for name in sorted(n for n in dir(core) if n.startswith("MAX_")):
        out.append(f"| `textfeed._core.{name}` | {code_cell(value_text(getattr(core, name)))} |")
    return "\n".join(out)


def value_text(value: object) -> str:
    if hasattr(value, "text"):
        return value.text
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(value_text(v) for v in value) + "]"
    return repr(value) if isinstance(value, str) else str(value)


def import_built(build: Path) -> object:
    """The textfeed package of BUILD/python (imported once)."""
    if str(build / "python") not in sys.path:
        sys.path.insert(0, str(build / "python"))
    try:
        return importlib.import_module("textfeed")
    except ImportError as e:
        raise SystemExit(f"gen_docs: cannot import textfeed from {build / 'python'}: {e}")


def python_blocks(build: Path) -> Dict[str, str]:
    textfeed = import_built(build)
    core = textfeed._core
    modules = [textfeed] + [importlib.import_module(f"textfeed.{m}") for m in ("errors", "reference", "dask")]
    return {"python-loader": loader_block(textfeed), "python-api": api_block(modules),
            "python-recipe": recipe_block(core), "python-reader": reader_block(core)}


# ---- the typed options of the package (options.py) -------------------------------------------------

# Per kind of row (base/field_table.h): the attribute's Python type, and how its docstring line
# names what it takes (a range also takes one number).
PYTHON_TYPES = {"int": ("Optional[int]", "int"), "uint64": ("Optional[int]", "int"),
                "float": ("Optional[float]", "float"), "bool": ("Optional[bool]", "bool"),
                "factor_range": ("Union[float, Tuple[float, float], None]", "(lo, hi)"),
                "shift_range": ("Union[float, Tuple[float, float], None]", "(lo, hi)"),
                "triple": ("Optional[Tuple[float, float, float]]", "(a, b, c), one per image plane"),
                "text": ("Optional[str]", "str"), "text_list": ("Optional[Sequence[str]]", "list of str")}
ONE_NUMBER = {"factor_range": "; or one b >= 0 for [max(0, 1 - b), 1 + b]",
              "shift_range": "; or one h >= 0 for [-h, h]"}

RECIPE_INTRO = """The augmentation: what changes from the profile's recipe. An attribute left None is the
profile's value (docs/python.md lists each profile's). The attributes are the rows of the C++ field
table (``textfeed._core.recipe_fields()``), each checked against its row's bound when the Recipe is
made, with the message every edge gives (the CLI's ``--set``, the wire); the rules between two
attributes (cut_low <= cut_high, ...) are checked with the profile's values when a Loader is made.
The image tensor's dtype is :class:`OutputOptions`' (``dtype``). An attribute takes its typed value,
never the text the CLI's ``--set`` parses: ``brightness=(0.8, 1.2)``, not ``"0.8,1.2"`` (refused);
the Loader's keywords of before still take that text (``Loader(..., brightness="0.8,1.2")``)."""

READER_INTRO = """The dataset readers' options. An attribute left None is the profile's value (docs/python.md
lists each profile's). The attributes are the rows of the C++ field table
(``textfeed._core.reader_fields()``; ``reader_format`` is its row ``format``), each checked when
the ReaderOptions is made. A :class:`textfeed.Source`'s options go over the Loader's. A daemon
reads its datasets with the options it was started with and refuses others."""


def attribute_type(row: Dict[str, Any], enum_type: Optional[type]) -> str:
    if row["kind"] == "enum":
        literal = "Literal[" + ", ".join(f'"{n}"' for n in row["names"]) + "]"
        return f"Union[{enum_type.__name__}, {literal}, None]" if enum_type else f"Optional[{literal}]"
    return PYTHON_TYPES[row["kind"]][0]


def attribute_declaration(attribute: str, kind: str) -> List[str]:
    """``    name: TYPE = None``, its Literal's names wrapped under each other when it is too long."""
    line = f"    {attribute}: {kind} = None"
    at = line.find("Literal[")
    if len(line) <= PYTHON_COLUMNS or at < 0:
        return [line]
    head, rest = line[:at + len("Literal[")], line[at + len("Literal["):]
    return textwrap.wrap(rest, PYTHON_COLUMNS, initial_indent=head, subsequent_indent=" " * len(head),
                         break_long_words=False, break_on_hyphens=False)


def attribute_entry(attribute: str, row: Dict[str, Any]) -> List[str]:
    """One attribute's entry of the class docstring: what it takes, its bound, its family, its doc."""
    kind = row["kind"]
    takes = " | ".join(f'"{n}"' for n in row["names"]) if kind == "enum" else PYTHON_TYPES[kind][1]
    bound = row["bound"]
    if bound:
        unit = " bytes long" if kind == "text" else " of them" if kind == "text_list" else ""
        takes += f", {bound}{unit}" if kind in ("text", "text_list") or bound.startswith("0 (off)") \
            else f" in {bound}"
    takes += ONE_NUMBER.get(kind, "")
    family = f"; {row['family']} only" if row["family"] else ""
    return textwrap.wrap(f"{attribute} ({takes}{family}): {row['doc']}.", PYTHON_COLUMNS,
                         initial_indent="    " * 2, subsequent_indent="    " * 3)


def options_class_block(intro: str, rows: Sequence[Tuple[str, Dict[str, Any], Optional[type]]]) -> str:
    """A class body's docstring (the intro, then one entry per attribute) and its typed attributes."""
    lines = ['    """' + intro.split("\n")[0]] + ["    " + line for line in intro.split("\n")[1:]]
    lines += ["", "    Attributes:"]
    for attribute, row, _ in rows:
        lines += attribute_entry(attribute, row)
    lines += ['    """', ""]
    for attribute, row, enum_type in rows:
        lines += attribute_declaration(attribute, attribute_type(row, enum_type))
    return "\n".join(lines)


def options_blocks(build: Path) -> Dict[str, str]:
    textfeed = import_built(build)
    options = importlib.import_module("textfeed.options")
    core = textfeed._core
    recipe = [(row["name"], row, None) for row in core.recipe_fields()
              if row["name"] not in options.RECIPE_ROWS_HELD_ELSEWHERE]
    reader = [(options.READER_ATTRIBUTES.get(row["name"], row["name"]), row, options.row_enum(tuple(row["names"])))
              for row in core.reader_fields()]
    return {"recipe": options_class_block(RECIPE_INTRO, recipe),
            "reader": options_class_block(READER_INTRO, reader)}


# ---- the files -----------------------------------------------------------------------------------


def replace_blocks(text: str, blocks: Dict[str, str], path: Path) -> str:
    markers = PYTHON_MARKERS if path.suffix == ".py" else MARKDOWN_MARKERS
    for name, body in blocks.items():
        begin, end = markers[0].format(name), markers[1].format(name)
        start, stop = text.find(begin), text.find(end)
        if start < 0 or stop < start:
            raise SystemExit(f"gen_docs: {path} has no '{begin}' ... '{end}' pair")
        text = text[:start + len(begin)] + "\n" + body + "\n" + text[stop:]
    return text


def stale_summary(path: Path, old: str, new: str) -> str:
    diff = list(difflib.unified_diff(old.split("\n"), new.split("\n"), lineterm="", n=0))
    changed = [d for d in diff if d[:1] in "+-" and not d.startswith(("+++", "---"))]
    shown = "\n".join("    " + d[:160] for d in changed[:20])
    more = f"\n    ... {len(changed) - 20} more" if len(changed) > 20 else ""
    return f"{path.relative_to(REPO)}: {len(changed)} lines differ\n{shown}{more}"


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", default="build",
                        help="the CMake build folder (default build, in the repository)")
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if a file is stale")
    args = parser.parse_args(argv)
    build = Path(args.build)  # relative to the working folder, else to the repository
    build = build.resolve() if build.is_dir() else REPO / args.build
    work: List[Tuple[Path, Callable[[Path], Dict[str, str]]]] = [(CLI_DOC, cli_blocks),
                                                                  (PYTHON_DOC, python_blocks),
                                                                  (OPTIONS_PY, options_blocks)]
    stale = []
    for path, blocks in work:
        old = path.read_text(encoding="utf-8")
        new = replace_blocks(old, blocks(build), path)
        if new == old:
            continue
        if args.check:
            stale.append(stale_summary(path, old, new))
        else:
            path.write_text(new, encoding="utf-8")
            print(f"gen_docs: wrote {path.relative_to(REPO)}")
    if stale:
        print("gen_docs: stale (run /usr/bin/python3 scripts/gen_docs.py --build BUILD):\n" +
              "\n".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
