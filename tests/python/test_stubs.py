"""The type stubs (textfeed/__init__.pyi, _core.pyi, reference.pyi, py.typed) ship beside the package and say what
the package has: the same names, and for each binding the same parameters as pybind11's signature."""

import ast
import importlib.util
import inspect
import os
import subprocess
import sys
from pathlib import Path

import pytest

import textfeed
from textfeed import _core

PACKAGE = Path(textfeed.__file__).parent


def _stub(name):
    return ast.parse((PACKAGE / name).read_text(), filename=name)


def _bound_names(tree):
    """Names a module stub defines at its top level (functions, classes, variables, imports)."""
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign):
            names.add(node.target.id)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update(a.asname or a.name for a in node.names)
    return names


def _stub_params(function):
    """[(name, has_default)] of a stub's def, with "*" where keyword-only ones begin; no self."""
    args = function.args
    positional = args.posonlyargs + args.args
    defaults = [False] * (len(positional) - len(args.defaults)) + [True] * len(args.defaults)
    params = [(a.arg, d) for a, d in zip(positional, defaults) if a.arg != "self"]
    if args.kwonlyargs:
        params.append(("*", False))
        params += [(a.arg, d is not None) for a, d in zip(args.kwonlyargs, args.kw_defaults)]
    return params


def _split_top_level(text):
    parts, depth, start = [], 0, 0
    for i, c in enumerate(text):
        depth += c in "[(" and 1 or c in "])" and -1 or 0
        if c == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    return [p.strip() for p in parts + [text[start:]] if p.strip()]


def _binding_params(binding, name):
    """[(name, has_default)] from pybind11's first docstring line: name(a: T, b: T = d, *, c: T = d) -> R."""
    line = binding.__doc__.splitlines()[0]
    assert line.startswith(f"{name}(") and ") -> " in line, line
    inner = line[len(name) + 1 : line.rindex(") -> ")]
    params = []
    for part in _split_top_level(inner):
        if part == "*":
            params.append(("*", False))
            continue
        pname = part.split(":")[0].strip()
        if pname != "self":
            params.append((pname, " = " in part))
    return params


def test_the_stubs_and_marker_ship_with_the_package():
    assert (PACKAGE / "py.typed").is_file()
    for name in ("__init__.pyi", "_core.pyi", "reference.pyi"):
        _stub(name)  # parses


@pytest.mark.parametrize("stub,module", [("__init__.pyi", textfeed), ("reference.pyi", textfeed.reference)])
def test_package_stub_names_every_public_name(stub, module):
    tree = _stub(stub)
    declared = next(n.value for n in tree.body if isinstance(n, ast.Assign) and n.targets[0].id == "__all__")
    assert ast.literal_eval(declared) == module.__all__
    assert set(module.__all__) <= _bound_names(tree)


def test_core_stub_has_the_extension_s_names_and_no_others():
    runtime = {n for n in dir(_core) if not n.startswith("_")} | {"__version__"}
    stub = {n for n in _bound_names(_stub("_core.pyi")) if not n.startswith("_") or n == "__version__"}
    stub -= {"enum", "Any", "Callable", "Mapping", "Optional", "Sequence", "Union", "np", "ArrayLike", "NDArray"}  # its imports
    assert stub == runtime


def test_core_stub_signatures_are_the_bindings():
    tree = _stub("_core.pyi")
    checked = 0
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            assert _stub_params(node) == _binding_params(getattr(_core, node.name), node.name), node.name
            checked += 1
        elif isinstance(node, ast.ClassDef):
            cls = getattr(_core, node.name)
            for method in node.body:
                if isinstance(method, ast.FunctionDef) and not method.decorator_list:
                    binding = inspect.getattr_static(cls, method.name)
                    assert _stub_params(method) == _binding_params(binding, method.name), f"{node.name}.{method.name}"
                    checked += 1
    assert checked > 20


@pytest.mark.skipif(importlib.util.find_spec("mypy") is None, reason="mypy is not installed (Debian: python3-mypy)")
def test_mypy_accepts_the_stubs(tmp_path):
    # The stubs alone (imports not followed: numpy and torch would take a minute and a half).
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path), "--follow-imports=skip", "--ignore-missing-imports",
         "--no-error-summary", str(PACKAGE / "_core.pyi"), str(PACKAGE / "__init__.pyi"),
         str(PACKAGE / "reference.pyi")],
        capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.skipif(importlib.util.find_spec("mypy") is None, reason="mypy is not installed (Debian: python3-mypy)")
def test_mypy_accepts_the_package(tmp_path):
    # The whole package against its stubs, imports followed (numpy's and torch's own stubs): what
    # a user's type checker sees of `import textfeed`.
    env = dict(os.environ, MYPYPATH=str(PACKAGE.parent))
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path), "--no-error-summary", str(PACKAGE)],
        capture_output=True, text=True, env=env, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
