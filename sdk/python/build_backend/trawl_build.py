"""The package's build backend (PEP 517 and PEP 660), in the standard
library alone: building the package needs nothing from a package index, so
``pip install ./sdk/python`` works offline in a plain ``python3 -m venv``.

It packs ``src/trawl`` as it is, with the metadata of ``pyproject.toml``'s
``[project]`` table, into a pure-Python wheel, a source archive, or an
editable wheel that points at the source tree.
"""

from __future__ import annotations

import base64
import hashlib
import io
import pathlib
import tarfile
import tomllib
import zipfile
from typing import Any, Optional

ROOT = pathlib.Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "trawl"
TAG = "py3-none-any"


def _project() -> dict[str, Any]:
    with open(ROOT / "pyproject.toml", "rb") as f:
        project: dict[str, Any] = tomllib.load(f)["project"]
    return project


def _sources() -> list[pathlib.Path]:
    """The package's files: its modules and py.typed, no caches."""
    return sorted(p for p in PACKAGE.rglob("*") if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc")


def _metadata() -> str:
    p = _project()
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {p['name']}",
        f"Version: {p['version']}",
        f"Summary: {p['description']}",
        f"License: {p['license']['text']}",
        f"Requires-Python: {p['requires-python']}",
    ]
    lines += [f"Classifier: {c}" for c in p.get("classifiers", [])]
    lines += [f"Requires-Dist: {d}" for d in p.get("dependencies", [])]
    lines.append("Description-Content-Type: text/markdown")
    readme = (ROOT / str(p["readme"])).read_text(encoding="utf-8")
    return "\n".join(lines) + "\n\n" + readme


def _dist_name() -> str:
    p = _project()
    return f"{p['name']}-{p['version']}"


def _wheel(directory: str, files: dict[str, bytes]) -> str:
    """Writes a wheel of files (archive name to bytes) with its dist-info."""
    info = f"{_dist_name()}.dist-info"
    files = dict(files)
    files[f"{info}/METADATA"] = _metadata().encode()
    files[f"{info}/WHEEL"] = f"Wheel-Version: 1.0\nGenerator: trawl_build\nRoot-Is-Purelib: true\nTag: {TAG}\n".encode()
    record = []
    for name, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{name},sha256={digest},{len(data)}")
    record.append(f"{info}/RECORD,,")
    files[f"{info}/RECORD"] = ("\n".join(record) + "\n").encode()
    name = f"{_dist_name()}-{TAG}.whl"
    with zipfile.ZipFile(pathlib.Path(directory) / name, "w", zipfile.ZIP_DEFLATED) as whl:
        for arc, data in files.items():
            whl.writestr(arc, data)
    return name


def build_wheel(wheel_directory: str, config_settings: Optional[dict[str, Any]] = None, metadata_directory: Optional[str] = None) -> str:
    return _wheel(wheel_directory, {f"trawl/{p.relative_to(PACKAGE).as_posix()}": p.read_bytes() for p in _sources()})


def build_editable(wheel_directory: str, config_settings: Optional[dict[str, Any]] = None, metadata_directory: Optional[str] = None) -> str:
    # A .pth file puts the source tree on sys.path: edits take effect at once.
    return _wheel(wheel_directory, {"trawl.pth": (str(ROOT / "src") + "\n").encode()})


def build_sdist(sdist_directory: str, config_settings: Optional[dict[str, Any]] = None) -> str:
    base = _dist_name()
    name = f"{base}.tar.gz"
    members = [ROOT / "pyproject.toml", ROOT / str(_project()["readme"]), pathlib.Path(__file__).resolve(), *_sources()]
    with tarfile.open(pathlib.Path(sdist_directory) / name, "w:gz") as tar:
        for path in members:
            tar.add(path, arcname=f"{base}/{path.relative_to(ROOT).as_posix()}")
        pkg_info = _metadata().encode()
        ti = tarfile.TarInfo(f"{base}/PKG-INFO")
        ti.size = len(pkg_info)
        tar.addfile(ti, io.BytesIO(pkg_info))
    return name
