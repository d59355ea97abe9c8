# SPDX-License-Identifier: MIT
"""make deb's packages (libhybridio0, libhybridio-dev, hybridio-tools): lintian
finds no errors (stripped binaries, no RPATH, copyright, changelog, shlibs and
the ldconfig trigger among its checks) and only the warnings docs/install.md
explains; each package holds its files, together all that cmake --install puts;
unpacked into a temporary root, hio-bench runs, fio loads the engine, and a
program builds against the -dev package with find_package and pkg-config.

HIO_SKIP_DEB=1 skips them. make deb builds in HIO_DEB_BUILD (default
build-deb), rebuilding only what is out of date."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(os.environ.get("HIO_SKIP_DEB") == "1", reason="HIO_SKIP_DEB=1")

ROOT = Path(__file__).resolve().parents[2]
DEB_BUILD = ROOT / os.environ.get("HIO_DEB_BUILD", "build-deb")
VERSION = (ROOT / "VERSION").read_text().split()[0]


def run(*args, **kw):
    return subprocess.run([str(a) for a in args], capture_output=True, text=True, **kw)


@pytest.fixture(scope="module")
def multiarch():
    return run("dpkg-architecture", "-qDEB_HOST_MULTIARCH", check=True).stdout.strip()


@pytest.fixture(scope="module")
def debs():
    """{package name: .deb path}, from make deb."""
    p = run("make", "--no-print-directory", "-C", ROOT, "deb", f"DEB_BUILD={DEB_BUILD}")
    assert p.returncode == 0, f"make deb failed\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}"
    paths = [Path(line) for line in p.stdout.splitlines() if line.startswith("/") and line.endswith(".deb")]
    found = {run("dpkg-deb", "-f", d, "Package", check=True).stdout.strip(): d for d in paths}
    assert set(found) == {"libhybridio0", "libhybridio-dev", "hybridio-tools"}, p.stdout
    return found


def contents(deb):
    """The package's files and symlinks (not directories), without the leading './'."""
    out = run("dpkg-deb", "-c", deb, check=True).stdout
    entries = (line.split(None, 5) for line in out.splitlines())
    return {e[5].split(" -> ")[0].removeprefix("./") for e in entries if not e[0].startswith("d")}


@pytest.fixture(scope="module")
def root(debs, tmp_path_factory):
    """The three packages unpacked into one temporary root."""
    r = tmp_path_factory.mktemp("root")
    for d in debs.values():
        run("dpkg", "-x", d, r, check=True)
    return r


def test_lintian_finds_no_errors_and_only_the_documented_warnings(debs):
    p = run("lintian", *debs.values())
    errors = [line for line in p.stdout.splitlines() if line.startswith("E:")]
    assert not errors, "\n".join(errors)
    assert p.returncode == 0, p.stdout + p.stderr
    documented = (ROOT / "docs/install.md").read_text()
    tags = {line.split()[2] for line in p.stdout.splitlines() if line.startswith("W:")}
    assert all(f"`{t}`" in documented for t in tags), f"warnings not explained in docs/install.md: {tags}"


def test_each_package_holds_its_files(debs, multiarch):
    lib = f"usr/lib/{multiarch}"
    expected = {
        "libhybridio0": {f"{lib}/libhybridio.so.0", f"{lib}/libhybridio.so.{VERSION}"},
        "libhybridio-dev": {
            *(f"usr/include/hybridio/{h}" for h in ("hio.h", "hio_adaptive.h", "hio.hpp", "version.h")),
            f"{lib}/libhybridio.so",
            f"{lib}/pkgconfig/hybridio.pc",
            f"{lib}/cmake/hybridio/hybridioConfig.cmake",
            f"{lib}/cmake/hybridio/hybridioConfigVersion.cmake",
            f"{lib}/cmake/hybridio/hybridioTargets.cmake",
            "usr/share/man/man3/hio_queue_open.3.gz",
            "usr/share/man/man7/hybridio.7.gz",
        },
        "hybridio-tools": {
            "usr/bin/hio-bench",
            "usr/bin/hio-study",
            "usr/share/man/man1/hio-study.1.gz",
            f"{lib}/hybridio/VERSION",
            f"{lib}/hybridio/python/hybridio/cli.py",
            f"{lib}/hybridio/python/hybridio/handles/jobs/priority.fio",
            f"{lib}/hybridio/python/hybridio/report/templates/report.html.j2",
            "usr/share/man/man1/hio-bench.1.gz",
            f"{lib}/hybridio/libhybridio-fio.so",
            f"{lib}/hybridio/libhybridio-rocksdb.so",
            "usr/include/hybridio/rocksdb.h",
        },
    }
    seen = {}
    for name, deb in debs.items():
        files = contents(deb)
        doc = {f"usr/share/doc/{name}/copyright", f"usr/share/doc/{name}/changelog.Debian.gz"}
        assert expected[name] | doc <= files, f"{name} lacks {sorted(expected[name] | doc - files)}"
        assert not [f for f in files if f.startswith("usr/share/man/") and not f.endswith(".gz")], name
        if name == "libhybridio0":
            assert files == expected[name] | doc, f"libhybridio0 holds more than the library: {sorted(files)}"
        for f in files:
            assert f not in seen, f"{f} is in both {seen[f]} and {name}"
            seen[f] = name
    depends = run("dpkg-deb", "-f", debs["libhybridio-dev"], "Depends", check=True).stdout
    assert f"libhybridio0 (= {VERSION}-" in depends
    assert "libc6" in run("dpkg-deb", "-f", debs["libhybridio0"], "Depends", check=True).stdout


def test_no_maintainer_scripts_so_dpkg_r_leaves_nothing(debs):
    """The loader's cache is dpkg's ldconfig trigger's to update; a postrm
    would keep the package in dpkg's records until purged."""
    for name, deb in debs.items():
        tar = subprocess.run(["dpkg-deb", "--ctrl-tarfile", deb], capture_output=True, check=True).stdout
        members = subprocess.run(["tar", "t"], input=tar, capture_output=True, check=True).stdout.decode().split()
        allowed = {"control", "md5sums"} | ({"shlibs", "triggers"} if name == "libhybridio0" else set())
        assert {m.removeprefix("./") for m in members} - {""} == allowed, f"{name}: {members}"
    triggers = run("dpkg-deb", "-I", debs["libhybridio0"], "triggers", check=True).stdout
    assert triggers.strip() == "activate-noawait ldconfig"
    shlibs = run("dpkg-deb", "-I", debs["libhybridio0"], "shlibs", check=True).stdout
    assert shlibs.strip() == f"libhybridio 0 libhybridio0 (>= {VERSION})"


def test_packages_hold_all_that_cmake_install_puts(debs, tmp_path):
    """No install rule left out of the packages (a rule without a component would be)."""
    run("cmake", "--install", DEB_BUILD, "--prefix", tmp_path, check=True)
    installed = {
        re.sub(r"(share/man/man\d/.*)$", r"\1.gz", "usr/" + str(f.relative_to(tmp_path)))
        for f in tmp_path.rglob("*")
        if not f.is_dir() or f.is_symlink()
    }
    packaged = set().union(*(contents(d) for d in debs.values()))
    packaged = {f for f in packaged if not f.startswith("usr/share/doc/")}
    assert installed == packaged, f"only installed: {installed - packaged}, only packaged: {packaged - installed}"


def test_hio_bench_runs_from_the_unpacked_root(root, multiarch):
    env = dict(os.environ, LD_LIBRARY_PATH=str(root / f"usr/lib/{multiarch}"))
    p = run(root / "usr/bin/hio-bench", "--version", env=env)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == f"hio-bench {VERSION}"


def test_hio_study_runs_from_the_unpacked_root(root, multiarch, debs, tmp_path):
    # The launcher names the installed library folder; here the package sits in the unpacked root, and
    # the checkout's Python (which has the dependencies the package's Depends name) runs it.
    launcher = (root / "usr/bin/hio-study").read_text()
    assert f'"/usr/lib/{multiarch}/hybridio/python"' in launcher
    moved = tmp_path / "hio-study"
    moved.write_text(launcher.replace(f"/usr/lib/{multiarch}", str(root / f"usr/lib/{multiarch}")))
    p = run(sys.executable, moved, "--help")
    assert p.returncode == 0, p.stderr
    assert "usage: hio-study" in p.stdout
    deps = run("dpkg-deb", "-f", debs["hybridio-tools"], "Depends", check=True).stdout
    assert "python3-scipy" in deps and "python3-matplotlib" in deps


def test_fio_loads_the_packaged_engine(root, multiarch, tmp_path):
    if not shutil.which("fio"):
        pytest.skip("fio is not installed (apt-get install -y fio)")
    engine = root / f"usr/lib/{multiarch}/hybridio/libhybridio-fio.so"
    env = dict(os.environ, LD_LIBRARY_PATH=str(root / f"usr/lib/{multiarch}"))
    p = run(
        "fio", "--name=deb", f"--ioengine=external:{engine}", "--hio_emu=pcie4", "--size=16m",
        "--rw=randread", "--bs=4k", "--runtime=1", "--time_based", "--hio_completion=poll",
        env=env, cwd=tmp_path, timeout=60,
    )  # fmt: skip
    assert p.returncode == 0 and "err= 0" in p.stdout, p.stdout + p.stderr


def test_a_cmake_program_builds_against_the_unpacked_root(root, multiarch, tmp_path):
    """examples/ through find_package, with CMAKE_PREFIX_PATH=<root>/usr: the
    CMake package finds its prefix from where it lies."""
    b = tmp_path / "build"
    p = run("cmake", "-S", ROOT / "examples", "-B", b, f"-DCMAKE_PREFIX_PATH={root / 'usr'}")
    assert p.returncode == 0, p.stdout + p.stderr
    cache = (b / "CMakeCache.txt").read_text()
    assert f"hybridio_DIR:PATH={root}/usr/lib/{multiarch}/cmake/hybridio" in cache, "found another hybridio"
    p = run("cmake", "--build", b, "--target", "hello")
    assert p.returncode == 0, p.stdout + p.stderr
    env = dict(os.environ, LD_LIBRARY_PATH=str(root / f"usr/lib/{multiarch}"))
    p = run(b / "hello", env=env)
    assert p.returncode == 0 and p.stdout.startswith("read back intact"), p.stdout + p.stderr


def test_pkg_config_points_into_the_unpacked_root(root, multiarch):
    lib = root / f"usr/lib/{multiarch}"
    env = dict(os.environ, PKG_CONFIG_PATH=str(lib / "pkgconfig"))
    assert run("pkg-config", "--modversion", "hybridio", env=env, check=True).stdout.strip() == VERSION
    flags = run("pkg-config", "--cflags", "--libs", "hybridio", env=env, check=True).stdout.split()
    dirs = {f[:2]: Path(os.path.realpath(f[2:])) for f in flags if f[:2] in ("-I", "-L")}
    assert dirs == {"-I": root / "usr/include", "-L": lib}, flags
