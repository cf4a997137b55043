"""The PEP 517 build backend of pyproject.toml: `pip install --no-build-isolation .` builds with CMake.

It needs nothing from PyPI (only the Debian packages scripts/install-deps.sh installs) and does:
configure (once) and build the `textfeed` command and the extension textfeed._core with CMake,
`cmake --install` their components (runtime, python: cmake/install.cmake) into a staging folder,
and zip that as a wheel: textfeed/ (with _core and the stubs) and the command as a script.

The version is CMakeLists.txt's project(VERSION), the rest of the metadata pyproject.toml's
[project]. The CMake build folder is, first found:
  pip's --config-settings build-dir=DIR, the environment's TEXTFEED_CMAKE_BUILD_DIR (an existing,
  configured build such as build/ is reused as it is: only the two targets are brought up to date),
  or build-wheel/ in the source tree.
A new build folder is configured with -DTEXTFEED_BUILD_TESTS=OFF for this interpreter, plus the
environment's CMAKE_ARGS (split as a shell would: e.g. a compiler launcher).
"""

from __future__ import annotations

import base64
import hashlib
import importlib.machinery
import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import tomllib
import zipfile
from pathlib import Path

SOURCE = Path(__file__).resolve().parents[1]


def _project() -> dict:
    project = tomllib.loads((SOURCE / "pyproject.toml").read_text())["project"]
    match = re.search(r"project\(textfeed VERSION (\S+)", (SOURCE / "CMakeLists.txt").read_text())
    if not match:
        raise RuntimeError("CMakeLists.txt: no project(textfeed VERSION ...)")
    return dict(project, version=match.group(1))


def _dist_info_name(project: dict) -> str:
    return f"{project['name']}-{project['version']}.dist-info"


def _tag() -> str:
    """This interpreter's wheel tag: the extension is built for it alone."""
    py = f"cp{sys.version_info.major}{sys.version_info.minor}"
    platform = re.sub(r"[-.]", "_", sysconfig.get_platform())
    return f"{py}-{py}{sys.abiflags}-{platform}"


def _metadata(project: dict) -> str:
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {project['name']}",
        f"Version: {project['version']}",
        f"Summary: {project.get('description', '')}",
    ]
    if "requires-python" in project:
        lines.append(f"Requires-Python: {project['requires-python']}")
    lines += [f"Requires-Dist: {d}" for d in project.get("dependencies", [])]
    return "\n".join(lines) + "\n"


def _wheel_file() -> str:
    return f"Wheel-Version: 1.0\nGenerator: textfeed scripts/wheel_backend.py\nRoot-Is-Purelib: false\nTag: {_tag()}\n"


def _run(*command: str | os.PathLike) -> None:
    print("wheel_backend:", shlex.join(map(str, command)), file=sys.stderr, flush=True)
    subprocess.run([str(c) for c in command], check=True, stdout=sys.stderr)


def _build_dir(config_settings: dict | None) -> Path:
    chosen = (config_settings or {}).get("build-dir") or os.environ.get("TEXTFEED_CMAKE_BUILD_DIR")
    return Path(chosen).resolve() if chosen else SOURCE / "build-wheel"


def _build(build: Path, stage: Path) -> Path:
    """Builds and installs the command and the package under `stage`; returns the package's folder."""
    if not (build / "CMakeCache.txt").exists():
        generator = ["-G", "Ninja"] if shutil.which("ninja") else []
        _run("cmake", "-S", SOURCE, "-B", build, *generator, "-DCMAKE_BUILD_TYPE=Release",
             "-DTEXTFEED_BUILD_TESTS=OFF", "-DTEXTFEED_BUILD_PYTHON=ON", f"-DTEXTFEED_PYTHON={sys.executable}",
             *shlex.split(os.environ.get("CMAKE_ARGS", "")))
    _run("cmake", "--build", build, "--target", "textfeed", "textfeed_core")
    for component in ("runtime", "python"):
        _run("cmake", "--install", build, "--prefix", stage, "--component", component)
    # Where cmake/install.cmake put it under the staging prefix (the interpreter's layout there).
    packages = [init.parent for init in stage.rglob("textfeed/__init__.py")]
    if len(packages) != 1:
        raise RuntimeError(f"cmake --install of {build} staged {len(packages)} textfeed packages under {stage}, "
                           "not one: configure it with TEXTFEED_BUILD_PYTHON=ON")
    package = packages[0]
    cores = list(package.glob("_core.*"))
    if not any(str(c).endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES)) for c in cores):
        raise RuntimeError(f"{build} built {[c.name for c in cores]}, which {sys.executable} cannot import: "
                           "use a build folder configured for this interpreter")
    return package


def _record_line(arcname: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{arcname},sha256={digest},{len(data)}"


def _write_wheel(path: Path, project: dict, package: Path, command: Path) -> None:
    dist_info = _dist_info_name(project)
    scripts = f"{project['name']}-{project['version']}.data/scripts"
    entries = [(f"textfeed/{f.name}", f) for f in sorted(package.iterdir()) if f.is_file()]
    entries.append((f"{scripts}/textfeed", command))
    record = []
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as wheel:

        def add(arcname: str, data: bytes, mode: int = 0o644) -> None:
            info = zipfile.ZipInfo(arcname, date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = (0o100000 | mode) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            wheel.writestr(info, data)
            record.append(_record_line(arcname, data))

        for arcname, file in entries:
            add(arcname, file.read_bytes(), 0o755 if os.access(file, os.X_OK) else 0o644)
        add(f"{dist_info}/METADATA", _metadata(project).encode())
        add(f"{dist_info}/WHEEL", _wheel_file().encode())
        add(f"{dist_info}/top_level.txt", b"textfeed\n")
        record.append(f"{dist_info}/RECORD,,")
        wheel.writestr(zipfile.ZipInfo(f"{dist_info}/RECORD", date_time=(1980, 1, 1, 0, 0, 0)),
                       "\n".join(record) + "\n")


# ---------------------------------------------------------------------------- PEP 517 hooks


def get_requires_for_build_wheel(config_settings: dict | None = None) -> list[str]:
    return []  # CMake, a compiler and pybind11 come from Debian (scripts/install-deps.sh)


def prepare_metadata_for_build_wheel(metadata_directory: str, config_settings: dict | None = None) -> str:
    project = _project()
    dist_info = Path(metadata_directory) / _dist_info_name(project)
    dist_info.mkdir(parents=True, exist_ok=True)
    (dist_info / "METADATA").write_text(_metadata(project))
    (dist_info / "WHEEL").write_text(_wheel_file())
    return dist_info.name


def build_wheel(wheel_directory: str, config_settings: dict | None = None,
                metadata_directory: str | None = None) -> str:
    project = _project()
    name = f"{project['name']}-{project['version']}-{_tag()}.whl"
    with tempfile.TemporaryDirectory(prefix="textfeed-wheel-") as stage:
        package = _build(_build_dir(config_settings), Path(stage))
        _write_wheel(Path(wheel_directory) / name, project, package, Path(stage) / "bin" / "textfeed")
    return name
