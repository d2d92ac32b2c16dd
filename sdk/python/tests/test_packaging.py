"""The package builds with its own backend, from the standard library
alone, into distributions that hold the typed package and depend on
nothing; and it installs offline into a plain ``python3 -m venv``, as the
README says."""

from __future__ import annotations

import importlib.util
import os
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
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        self.tmp = pathlib.Path(tmp)
        self.dir = self.tmp / "python"
        # Build from a copy, so the build leaves nothing in the source tree.
        shutil.copytree(ROOT, self.dir, ignore=shutil.ignore_patterns("tests", "examples", "__pycache__", "*.egg-info", "build", "dist"))
        (self.dir / "dist").mkdir()

    def build(self, hook: str) -> pathlib.Path:
        """Runs a hook of the declared backend as a frontend would: in a fresh
        interpreter, from the project directory, with backend-path on sys.path."""
        code = f"import sys; sys.path.insert(0, 'build_backend'); import trawl_build as b; print(b.{hook}('dist'))"
        out = subprocess.run([sys.executable, "-c", code], cwd=self.dir, capture_output=True, text=True, timeout=120)
        self.assertEqual(out.returncode, 0, out.stderr)
        return self.dir / "dist" / out.stdout.strip().splitlines()[-1]

    def test_sdist(self) -> None:
        path = self.build("build_sdist")
        base = path.name[: -len(".tar.gz")]
        with tarfile.open(path) as tar:
            names = {m.name for m in tar.getmembers()}
            files = {pathlib.PurePosixPath(n).name for n in names if "/src/trawl/" in n}
            pkg_info = tar.extractfile(f"{base}/PKG-INFO")
            assert pkg_info is not None
            meta = pkg_info.read().decode()
        self.assertEqual(files, MODULES)
        self.assertIn(f"{base}/pyproject.toml", names)
        self.assertIn(f"{base}/build_backend/trawl_build.py", names)
        self.assertIn("Requires-Python: >=3.11", meta)
        self.assertNotIn("Requires-Dist", meta)

    def test_wheel(self) -> None:
        path = self.build("build_wheel")
        self.assertEqual(path.name, "trawl-0.1.0-py3-none-any.whl")
        with zipfile.ZipFile(path) as whl:
            names = whl.namelist()
            meta = whl.read("trawl-0.1.0.dist-info/METADATA").decode()
            record = whl.read("trawl-0.1.0.dist-info/RECORD").decode()
        self.assertEqual({n.split("/", 1)[1] for n in names if n.startswith("trawl/")}, MODULES)
        self.assertIn("Requires-Python: >=3.11", meta)
        self.assertIn("Summary: Client of the Trawl web data API", meta)
        self.assertNotIn("Requires-Dist", meta)
        self.assertEqual({line.split(",")[0] for line in record.splitlines()}, set(names))

    def test_installs_offline_in_a_plain_venv(self) -> None:
        # What the README promises: python3 -m venv, then pip install of the
        # directory, with no package index at all (--no-index).
        if importlib.util.find_spec("ensurepip") is None:
            why = "this python3 cannot make a venv with pip (Debian: apt-get install python3-venv)"
            if os.environ.get("CI") == "true":
                self.fail(why)
            self.skipTest(why)
        venv = self.tmp / "venv"
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, capture_output=True, timeout=300)
        python = venv / "bin" / "python"
        env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_") and k != "PYTHONPATH"}
        out = subprocess.run([str(python), "-m", "pip", "install", "--no-index", "--disable-pip-version-check", str(self.dir)],
                             capture_output=True, text=True, timeout=300, env=env)
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
        out = subprocess.run([str(python), "-c", "import trawl, importlib.metadata as m; print(trawl.__file__); print(m.requires('trawl'))"],
                             capture_output=True, text=True, timeout=60, env=env, cwd=self.tmp)
        self.assertEqual(out.returncode, 0, out.stderr)
        where, requires = out.stdout.splitlines()
        self.assertTrue(where.startswith(str(venv)), where)
        self.assertEqual(requires, "None")


if __name__ == "__main__":
    unittest.main()
