"""Builds the geoalign package: CMake compiles the _geoalign extension, and the shipped
model (models/default) is copied into the package so an install works anywhere.

The CMake build lives in build/python of the source tree, not in a temporary folder, so
a second install rebuilds only what changed (and ccache, when present, what any build
compiled before). Configuration is in pyproject.toml.
"""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
BUILD_DIR = ROOT / "build" / "python"
MODEL = ROOT / "models" / "default"


def project_version() -> str:
    match = re.search(r"project\(geoalign VERSION ([0-9.]+)", (ROOT / "CMakeLists.txt").read_text())
    if not match:
        raise RuntimeError("CMakeLists.txt: no project(geoalign VERSION x.y.z)")
    return match.group(1)


class CMakeBuild(build_ext):
    """Builds the one extension, _geoalign, with the project's CMake."""

    def build_extension(self, ext: Extension) -> None:
        configure = [
            "cmake", "-S", str(ROOT), "-B", str(BUILD_DIR),
            "-DCMAKE_BUILD_TYPE=Release", "-DGEOALIGN_PYTHON=ON", "-DGEOALIGN_BUILD_TESTS=OFF",
            f"-DPython_EXECUTABLE={sys.executable}",
        ]
        # CMake reads CMAKE_CXX_COMPILER_LAUNCHER from the environment itself when it is set.
        if "CMAKE_CXX_COMPILER_LAUNCHER" not in os.environ and shutil.which("ccache"):
            configure.append("-DCMAKE_CXX_COMPILER_LAUNCHER=ccache")
        jobs = str(len(os.sched_getaffinity(0)))  # what nproc prints
        subprocess.run(configure, check=True)
        subprocess.run(["cmake", "--build", str(BUILD_DIR), "--target", "_geoalign", "-j", jobs], check=True)
        built = sorted((BUILD_DIR / "python").glob("_geoalign*.so"), key=lambda p: p.stat().st_mtime)
        if not built:
            raise RuntimeError(f"{BUILD_DIR / 'python'}: CMake built no _geoalign module")
        target = Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(built[-1], target)


class BuildPyWithModel(build_py):
    """Copies the package's Python files, then the shipped model into geoalign/models/default."""

    def run(self) -> None:
        super().run()
        target = Path(self.build_lib) / "geoalign" / "models" / "default"
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(MODEL, target)


setup(
    version=project_version(),
    ext_modules=[Extension("geoalign._geoalign", sources=[])],
    cmdclass={"build_ext": CMakeBuild, "build_py": BuildPyWithModel},
)
