"""Builds lfbloom's wheel: liblfbloom.so.1 (CMake, or a prebuilt one) next to its two modules, the
cffi module lfbloom._native (lfbloom_build.py) and the hot path lfbloom._hot (native/hot.c), both
on the limited API of Python 3.10 (abi3). A free-threaded CPython (sysconfig's Py_GIL_DISABLED;
3.14t and later, as cffi refuses 3.13t) has no limited API: there both modules are built against
its full API for that interpreter alone (a cp314t wheel, say), and declare that they run without
the GIL (hot.c's Py_mod_gil slot; cffi's backend for _native).

LFBLOOM_LIBRARY=/path/to/liblfbloom.so.1 uses a library already built from this source tree (as
ctest does, after its own build); otherwise the library is built here with CMake from ../.., the
C++ library's minute or more of compiling.
"""
import os
import shutil
import subprocess
import sys
import sysconfig

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SONAME = "liblfbloom.so.1"
FREE_THREADED = bool(sysconfig.get_config_var("Py_GIL_DISABLED"))


def built_library(build_temp):
    prebuilt = os.environ.get("LFBLOOM_LIBRARY")
    if prebuilt:
        return os.path.abspath(prebuilt)
    cmake_dir = os.path.join(os.path.abspath(build_temp), "cmake")
    run = lambda *args: subprocess.run(args, check=True)  # noqa: E731
    run("cmake", "-S", ROOT, "-B", cmake_dir, "-DCMAKE_BUILD_TYPE=Release", "-DLFBLOOM_TESTS=OFF")
    run("cmake", "--build", cmake_dir, "--target", "lfbloom_shared", "-j", str(os.cpu_count() or 1))
    return os.path.join(cmake_dir, "lib", SONAME)


class BuildWithLibrary(build_ext):
    """Puts liblfbloom.so.1 in the package, then links the cffi module to it ($ORIGIN rpath)."""

    def run(self):
        library = built_library(self.build_temp)
        if not os.path.isfile(library):
            sys.exit(f"lfbloom: no {library}")
        package_dir = os.path.join(self.build_lib, "lfbloom")
        os.makedirs(package_dir, exist_ok=True)
        shipped = os.path.join(package_dir, SONAME)
        shutil.copyfile(library, shipped)
        if shutil.which("strip"):  # the build's DWARF (for the ABI gate) is 60 MB of the 63
            subprocess.run(["strip", "--strip-debug", shipped], check=True)
        for ext in self.extensions:
            ext.library_dirs = [package_dir]
            ext.include_dirs = [os.path.join(ROOT, "capi", "include"), os.path.join(HERE, "native")]
        super().run()


# Single calls keep the GIL here (cffi releases it on every call, which cost more than the call).
HOT = Extension(
    "lfbloom._hot",
    ["native/hot.c"],
    libraries=[":" + SONAME],
    extra_compile_args=["-std=c11", "-O2"],
    extra_link_args=["-Wl,-rpath,$ORIGIN"],
    py_limited_api=not FREE_THREADED,  # hot.c leaves Py_LIMITED_API undefined there itself
)

setup(
    ext_modules=[HOT],
    cffi_modules=["lfbloom_build.py:ffibuilder"],
    cmdclass={"build_ext": BuildWithLibrary},
    options={} if FREE_THREADED else {"bdist_wheel": {"py_limited_api": "cp310"}},
)
