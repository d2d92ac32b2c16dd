"""The package builds with its declared backend into a distribution that
holds the typed package and depends on nothing."""

from __future__ import annotations

import importlib.util
import pathlib
import shutil
import subprocess
import sys
import tarfile
import tempfile
import unittest
import zipfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
MODULES = {"__init__.py", "client.py", "errors.py", "py.typed", "types.py", "webhook.py"}


class Packaging(unittest.TestCase):
    def setUp(self) -> None:
        if importlib.util.find_spec("setuptools") is None:
            self.skipTest("setuptools, the declared build backend, is not installed")
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        self.dir = pathlib.Path(tmp) / "python"
        # Build from a copy, so the build leaves nothing in the source tree.
        shutil.copytree(ROOT, self.dir, ignore=shutil.ignore_patterns("tests", "examples", "__pycache__", "*.egg-info", "build"))

    def build(self, hook: str) -> subprocess.CompletedProcess[str]:
        code = f"from setuptools import build_meta as b; print(b.{hook}('dist'))"
        return subprocess.run([sys.executable, "-c", code], cwd=self.dir, capture_output=True, text=True, timeout=120)

    def test_sdist(self) -> None:
        out = self.build("build_sdist")
        self.assertEqual(out.returncode, 0, out.stderr)
        name = out.stdout.strip().splitlines()[-1]
        with tarfile.open(self.dir / "dist" / name) as tar:
            files = {pathlib.PurePosixPath(m.name).name for m in tar.getmembers() if "/src/trawl/" in m.name}
            pkg_info = tar.extractfile(f"{name[: -len('.tar.gz')]}/PKG-INFO")
            assert pkg_info is not None
            meta = pkg_info.read().decode()
        self.assertEqual(files, MODULES)
        self.assertIn("Requires-Python: >=3.11", meta)
        self.assertNotIn("Requires-Dist", meta)

    def test_wheel(self) -> None:
        out = self.build("build_wheel")
        if out.returncode != 0 and "bdist_wheel" in out.stderr:
            self.skipTest("this setuptools builds wheels only with the wheel package installed")
        self.assertEqual(out.returncode, 0, out.stderr)
        name = out.stdout.strip().splitlines()[-1]
        with zipfile.ZipFile(self.dir / "dist" / name) as whl:
            names = whl.namelist()
            meta = whl.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
        self.assertEqual({n.split("/", 1)[1] for n in names if n.startswith("trawl/")}, MODULES)
        self.assertIn("Requires-Python: >=3.11", meta)
        self.assertNotIn("Requires-Dist", meta)


if __name__ == "__main__":
    unittest.main()
