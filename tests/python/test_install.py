"""textfeed installed: `cmake --install` of this build into a fresh prefix, and `pip install .`, each
used from outside the tree with PYTHONPATH unset. Each reuses the build (nothing is compiled again
but the 10-line C++ consumer of tests/install/consumer)."""

import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from support import ROOT, TEXTFEED

BUILD = Path(TEXTFEED).parents[1]  # <build>/tools/textfeed
VERSION = re.search(r"project\(textfeed VERSION (\S+)", (ROOT / "CMakeLists.txt").read_text()).group(1)

pytestmark = pytest.mark.skipif(not (BUILD / "CMakeCache.txt").is_file(),
                                reason=f"{TEXTFEED} is not in a CMake build folder")


def _cache(name):
    match = re.search(rf"^{name}:[A-Z]+=(.*)$", (BUILD / "CMakeCache.txt").read_text(), re.M)
    return match.group(1) if match else None


def _run(command, cwd, **env):
    """`command` from `cwd`, with PYTHONPATH (and TEXTFEED_BIN) unset: as a user would run it."""
    clean = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "TEXTFEED_BIN")}
    result = subprocess.run([str(c) for c in command], cwd=cwd, env=dict(clean, **env), capture_output=True,
                            text=True)
    assert result.returncode == 0, f"{command}:\n{result.stdout}\n{result.stderr}"
    return result.stdout


def _import_version(python, cwd, site=None):
    insert = f"import sys; sys.path.insert(0, {str(site)!r}); " if site else ""
    out = _run([python, "-c", insert + "import textfeed, torch; print(textfeed.__version__); print(textfeed.__file__)"],
               cwd)
    version, where = out.split()
    return version, Path(where)


@pytest.fixture(scope="module")
def prefix(tmp_path_factory):
    prefix = tmp_path_factory.mktemp("prefix")
    _run(["cmake", "--install", BUILD, "--prefix", prefix], cwd=prefix)
    return prefix


def _site_packages(python, under):
    """The folders `python` (run as a user runs it) searches for packages under the prefix `under`,
    in its order: site.getsitepackages(), which names them whether or not they exist yet."""
    out = _run([python, "-c", "import site; print('\\n'.join(site.getsitepackages()))"], ROOT)
    return [Path(p) for p in out.split() if Path(p).is_relative_to(Path(under) / "lib")]


def test_cmake_install_runs_without_pythonpath(prefix, tmp_path):
    assert _run([prefix / "bin" / "textfeed", "--version"], tmp_path).strip() == f"textfeed {VERSION}"
    # A prefix the interpreter does not search gets its standard layout (PYTHONPATH names it).
    site = prefix / (_cache("TEXTFEED_PYTHON_INSTALL_DIR") or Path(
        sysconfig.get_path("platlib", "posix_prefix", vars={"base": prefix, "platbase": prefix})).relative_to(prefix))
    version, where = _import_version(sys.executable, tmp_path, site)
    assert version == VERSION and where == site / "textfeed" / "__init__.py"
    for typing_file in ("py.typed", "__init__.pyi", "_core.pyi", "reference.pyi"):
        assert (where.parent / typing_file).is_file()


def test_issue30_make_install_to_the_default_prefix_lands_where_python_imports_from(tmp_path):
    # `make install` installs to /usr/local; DESTDIR stages that here. Debian's python3 searches
    # /usr/local/lib/python3.X/dist-packages, not /usr/local/lib/python3/dist-packages.
    if _cache("TEXTFEED_PYTHON_INSTALL_DIR"):
        pytest.skip("the build names its own TEXTFEED_PYTHON_INSTALL_DIR")
    python = _cache("TEXTFEED_PYTHON") or sys.executable
    searched = _site_packages(python, "/usr/local")
    if not searched:
        pytest.skip(f"{python} searches no folder under /usr/local/lib")
    stage = tmp_path / "stage"
    _run(["cmake", "--install", BUILD, "--prefix", "/usr/local"], tmp_path, DESTDIR=str(stage))
    site = stage / searched[0].relative_to("/")
    assert (site / "textfeed" / "__init__.py").is_file(), sorted(map(str, stage.rglob("__init__.py")))
    assert len(list(stage.rglob("textfeed/__init__.py"))) == 1
    assert (stage / "usr" / "local" / "bin" / "textfeed").is_file()
    # PYTHONPATH unset (_run); the staged folder stands in for /usr/local's at the head of sys.path.
    version, where = _import_version(python, tmp_path, site)
    assert version == VERSION and where == site / "textfeed" / "__init__.py"


def test_cmake_install_puts_public_headers_under_the_include_root(prefix):
    include = prefix / "include" / "textfeed"
    assert (include / "client" / "feed.h").is_file() and (include / "base" / "status.h").is_file()
    assert (include / "base" / "version.h").is_file()  # generated in the build tree
    assert not list(include.rglob("detail")) and not (include / "client" / "python").exists()
    assert (prefix / "lib" / "cmake" / "textfeed" / "textfeedConfig.cmake").is_file()


def test_a_cpp_program_builds_with_find_package(prefix, tmp_path):
    generator = ["-G", "Ninja"] if shutil.which("ninja") else []
    compilers = [f"-D{v}={_cache(v)}" for v in ("CMAKE_C_COMPILER", "CMAKE_CXX_COMPILER",
                                                "CMAKE_CXX_COMPILER_LAUNCHER") if _cache(v)]
    _run(["cmake", "-S", ROOT / "tests" / "install" / "consumer", "-B", tmp_path / "b", *generator, *compilers,
          "-DCMAKE_BUILD_TYPE=Release", f"-DCMAKE_PREFIX_PATH={prefix}"], tmp_path)
    _run(["cmake", "--build", tmp_path / "b"], tmp_path)
    out = _run([tmp_path / "b" / "consumer", tmp_path / "missing"], tmp_path).splitlines()
    assert out[0] == f"textfeed {VERSION}" and out[1].startswith("NotFound: ")


def _pip(python, tmp_path, *args):
    # Offline: no index, no build isolation; the backend reuses this build folder.
    _run([python, "-m", "pip", "install", "--no-index", "--no-build-isolation", "--no-cache-dir",
          "--disable-pip-version-check", *args, ROOT], tmp_path, TEXTFEED_CMAKE_BUILD_DIR=str(BUILD))


needs_pip = pytest.mark.skipif(subprocess.run([sys.executable, "-m", "pip", "--version"], capture_output=True)
                               .returncode != 0, reason="pip is not installed (Debian: python3-pip)")


@needs_pip
def test_pip_installs_into_a_venv(tmp_path):
    # --without-pip: the venv runs the system's pip (its site-packages are visible), which
    # installs into the venv.
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", venv], tmp_path)
    _pip(venv / "bin" / "python", tmp_path)
    assert _run([venv / "bin" / "textfeed", "--version"], tmp_path).strip() == f"textfeed {VERSION}"
    version, where = _import_version(venv / "bin" / "python", tmp_path)
    assert version == VERSION and venv in where.parents
    assert (where.parent / "py.typed").is_file()


@needs_pip
def test_pip_installs_under_a_prefix(tmp_path):
    prefix = tmp_path / "prefix"
    _pip(sys.executable, tmp_path, "--prefix", prefix)
    # Debian's pip puts --prefix installs in <prefix>/local/{bin,lib/python3.X/dist-packages}.
    (command,) = prefix.rglob("bin/textfeed")
    (package,) = prefix.rglob("textfeed/__init__.py")
    assert _run([command, "--version"], tmp_path).strip() == f"textfeed {VERSION}"
    version, where = _import_version(sys.executable, tmp_path, package.parent.parent)
    assert version == VERSION and where == package
