# SPDX-License-Identifier: MIT
"""cmake --install puts headers, library, pkg-config file, CMake package and man pages in place; the
examples build against them both ways, through find_package and through pkg-config, and run."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = {
    "hello": "read back intact",
    "batch": "32 reads completed under hybrid, each once, intact",
    "handle_cache": "read back intact: 2 cache hits, 0 misses, 1 dirty before close",
    "adaptive": "20000 reads; adaptive now waits by ",
}


@pytest.fixture(scope="module")
def prefix(tmp_path_factory):
    build = Path(os.environ.get("HIO_BUILD_DIR", ROOT / "build"))
    p = tmp_path_factory.mktemp("prefix")
    subprocess.run(["cmake", "--install", str(build), "--prefix", str(p)], check=True, capture_output=True)
    return p


def libdir(prefix):
    return next(prefix.glob("lib*/pkgconfig")).parent


def run_examples(bindir, prefix):
    for name, expected in EXAMPLES.items():
        out = subprocess.run(
            [str(bindir / name)],
            capture_output=True,
            text=True,
            env=dict(os.environ, LD_LIBRARY_PATH=str(libdir(prefix))),
        )
        assert out.returncode == 0, f"{name}: {out.stderr}"
        assert out.stdout.startswith(expected), f"{name}: {out.stdout}"


def test_install_puts_every_piece_in_place(prefix):
    assert (prefix / "include" / "hybridio" / "hio.h").exists()
    assert (prefix / "include" / "hybridio" / "hio.hpp").exists()
    assert (libdir(prefix) / "cmake" / "hybridio" / "hybridioConfig.cmake").exists()
    assert (prefix / "share" / "man" / "man3" / "hio_queue_open.3").exists()
    assert (prefix / "share" / "man" / "man7" / "hybridio.7").exists()
    assert (prefix / "share" / "man" / "man1" / "hio-bench.1").exists()


def test_examples_build_with_find_package_and_run(prefix, tmp_path):
    b = tmp_path / "build"
    subprocess.run(
        ["cmake", "-S", str(ROOT / "examples"), "-B", str(b), f"-DCMAKE_PREFIX_PATH={prefix}"],
        check=True,
        capture_output=True,
    )
    subprocess.run(["cmake", "--build", str(b)], check=True, capture_output=True)
    run_examples(b, prefix)


def test_find_package_refuses_a_version_the_install_is_not(prefix, tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.20)\nproject(p LANGUAGES C)\nfind_package(hybridio 9.0 CONFIG REQUIRED)\n"
    )
    out = subprocess.run(
        ["cmake", "-S", str(src), "-B", str(tmp_path / "b"), f"-DCMAKE_PREFIX_PATH={prefix}"],
        capture_output=True,
        text=True,
    )
    assert out.returncode != 0
    assert "hybridio" in out.stderr and "9.0" in out.stderr


def test_examples_build_with_pkg_config_and_run(prefix, tmp_path):
    ex = tmp_path / "ex"
    shutil.copytree(ROOT / "examples", ex)
    env = dict(os.environ, PKG_CONFIG_PATH=str(libdir(prefix) / "pkgconfig"))
    subprocess.run(["make", "-s", "-C", str(ex)], check=True, env=env)
    run_examples(ex, prefix)


def test_cpp_wrapper_against_installed_copy(prefix, tmp_path):
    lib = libdir(prefix)
    src = tmp_path / "t.cpp"
    src.write_text(
        "#include <hybridio/hio.hpp>\n#include <cstdio>\n#include <vector>\n"
        "int main() {\n"
        "  hybridio::Engine e;\n  hybridio::Queue q(e, 4, HIO_WAIT_HYBRID);\n"
        '  int t = q.open("emu:optane,size=1m");\n'
        "  std::vector<char> b(4096, 'x'), c(4096);\n"
        "  q.write(t, b.data(), 4096, 8192);\n  q.read(t, c.data(), 4096, 8192);\n"
        "  try { q.read(t, c.data(), 4096, 1 << 20); } catch (const hybridio::Error& err) {\n"
        '    std::printf("%d %s\\n", b == c, err.what()); }\n}\n'
    )
    flags = subprocess.run(
        ["pkg-config", "--cflags", "--libs", "hybridio"],
        capture_output=True,
        text=True,
        check=True,
        env=dict(os.environ, PKG_CONFIG_PATH=str(lib / "pkgconfig")),
    ).stdout.split()
    subprocess.run(["g++", "-std=c++20", "-o", str(tmp_path / "t"), str(src), *flags], check=True)
    out = subprocess.run(
        [str(tmp_path / "t")], capture_output=True, text=True, env=dict(os.environ, LD_LIBRARY_PATH=str(lib))
    )
    assert out.stdout.startswith("1 read at offset 1048576"), out.stdout + out.stderr
    assert "past the end" in out.stdout
