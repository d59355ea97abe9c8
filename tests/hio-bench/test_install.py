# SPDX-License-Identifier: MIT
"""cmake --install puts headers, library and pkg-config file in place; the example builds against them."""

import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_example_builds_against_installed_copy(tmp_path):
    build = Path(os.environ.get("HIO_BUILD_DIR", ROOT / "build"))
    prefix = tmp_path / "prefix"
    subprocess.run(["cmake", "--install", str(build), "--prefix", str(prefix)], check=True, capture_output=True)
    libdir = next(prefix.glob("lib*/pkgconfig")).parent
    assert (prefix / "include" / "hybridio" / "hio.h").exists()
    assert (prefix / "include" / "hybridio" / "hio.hpp").exists()
    env = dict(os.environ, PKG_CONFIG_PATH=str(libdir / "pkgconfig"))
    ex = tmp_path / "ex"
    ex.mkdir()
    for f in ("hello.c", "Makefile"):
        (ex / f).write_text((ROOT / "examples" / f).read_text())
    subprocess.run(["make", "-s", "-C", str(ex)], check=True, env=env)
    out = subprocess.run(
        [str(ex / "hello")], capture_output=True, text=True, env=dict(os.environ, LD_LIBRARY_PATH=str(libdir))
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "read back intact"


def test_cpp_wrapper_against_installed_copy(tmp_path):
    build = Path(os.environ.get("HIO_BUILD_DIR", ROOT / "build"))
    prefix = tmp_path / "prefix"
    subprocess.run(["cmake", "--install", str(build), "--prefix", str(prefix)], check=True, capture_output=True)
    libdir = next(prefix.glob("lib*/pkgconfig")).parent
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
        env=dict(os.environ, PKG_CONFIG_PATH=str(libdir / "pkgconfig")),
    ).stdout.split()
    subprocess.run(["g++", "-std=c++20", "-o", str(tmp_path / "t"), str(src), *flags], check=True)
    out = subprocess.run(
        [str(tmp_path / "t")], capture_output=True, text=True, env=dict(os.environ, LD_LIBRARY_PATH=str(libdir))
    )
    assert out.stdout.startswith("1 read at offset 1048576"), out.stdout + out.stderr
    assert "past the end" in out.stdout
