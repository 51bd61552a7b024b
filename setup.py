"""Packaging hook: ship rules/, dictionaries/ and models/ inside the wheel as pipeline/_data/.

The repository layout is fixed (those folders sit beside pipeline/), so build_py copies
them into the built package; pipeline/config.py finds them with importlib.resources. An
editable install (`pip install -e .`) reads them from the checkout instead. Everything
else is in pyproject.toml.
"""
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

DATA_DIRS = ("rules", "dictionaries", "models")
SKIP = shutil.ignore_patterns("__pycache__", "*.pyc", ".DS_Store")


class build_py_with_data(build_py):
    """build_py, then copy the shipped data folders to <build>/pipeline/_data/."""

    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return
        root = Path(__file__).resolve().parent
        for name in DATA_DIRS:
            src, dst = root / name, Path(self.build_lib) / "pipeline" / "_data" / name
            if not src.is_dir():
                raise SystemExit(f"{src} is missing: the wheel would not answer questions")
            if dst.exists():
                shutil.rmtree(dst)
            shutil.copytree(src, dst, ignore=SKIP)


setup(cmdclass={"build_py": build_py_with_data})
