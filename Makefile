# SPDX-License-Identifier: MIT
# hybridio: `make study` runs the main job, `make test` runs every test.
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=
# The checkout's own virtual environment, made by scripts/deps.sh.
PY := $(CURDIR)/.venv/bin/python

.PHONY: static deps build test unit lint format study strategies bench-fio bench-fio-engine bench-counts bench-study-drivers bench-adaptive bench-bursty bench-own-threads bench-handles bench-rocksdb sim-suite sim-validate sim-thesis sim-calibrate sim-scale sim-periods traces crashtest verify-kill deb clean

# The README's two commands, `make study` and `make test`, install what they
# need. Every other target installs nothing: it names what is missing and
# `make deps` installs it (Debian packages, fio's source for the fio engine,
# the Python side in .venv).
deps:
	scripts/deps.sh all

build:
	scripts/deps.sh --check build
	cmake -S . -B $(BUILD) -G Ninja -DHIO_WERROR=ON $(CMAKE_FLAGS) >/dev/null
	ninja -C $(BUILD) -j $(JOBS)

# hio-bench as one binary with no shared-library dependency, for copying
# onto a server: $(BUILD)/static/hio-bench (docs/install.md).
static: build
	ninja -C $(BUILD) hio-bench-static
	@file $(BUILD)/static/hio-bench; ls -l $(BUILD)/static/hio-bench

# Checks what a target needs (scripts/deps.sh --check LEVEL), then builds.
define ready
	scripts/deps.sh --check $(1)
	@$(MAKE) --no-print-directory build
endef

# Everything: the lint checks, unit tests, the ASan+UBSan build of them,
# the threaded tests under TSan, and the command-line tests of hio-bench.
test:
	scripts/deps.sh test
	scripts/run-tests.sh

# The fast part: the release build's ctest (the library's, hio-bench's and
# the RocksDB plugin's tests, the export and version checks).
unit:
	$(call ready,test)
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# ruff (lint and formatting) on the Python code, clang-format and
# clang-tidy on the C and C++ code, an SPDX line in every source file.
lint:
	$(call ready,lint)
	scripts/lint.sh

# Applies the formatting that `make lint` checks: ruff's and clang-format's.
format:
	scripts/deps.sh --check lint
	scripts/format.sh

# The main job: the contention study on its default targets (a file in the
# system temp directory, emu:pcie3, emu:pcie4); prints where the report is.
# STUDY_ARGS=--quick for a short version (about 4 min).
study:
	scripts/deps.sh study
	@$(MAKE) --no-print-directory build
	PYTHONPATH="$(CURDIR)/python" $(PY) -m hybridio.study --hio-bench $(BUILD)/hio-bench $(STUDY_ARGS)

# hio-bench's wait strategies side by side, without a co-runner.
strategies:
	$(call ready,study)
	$(PY) bench/compare_strategies.py --hio-bench $(BUILD)/hio-bench

# hio-bench against fio on the same file (docs/benchmarks.md).
bench-fio:
	$(call ready,bench)
	$(PY) bench/fio_compare.py --hio-bench $(BUILD)/hio-bench

# fio's io_uring engine against the hybridio fio engine, in one fio run
# (about 2 min; docs/fio.md, docs/benchmarks.md).
bench-fio-engine:
	$(call ready,bench)
	cmake -S . -B $(BUILD) >/dev/null && ninja -C $(BUILD) hybridio-fio
	$(PY) bench/fio_engine.py --engine $(BUILD)/plugins/fio/libhybridio-fio.so $(FIO_ENGINE_ARGS)

# What the layer costs per I/O, counted: instructions, system calls and
# context switches of hio-bench and the fio engine against fio's io_uring and
# psync, and of the RocksDB plugin against Posix on readrandom (about 10 min;
# docs/benchmarks.md).
bench-counts:
	$(call ready,bench)
	cmake -S . -B $(BUILD) >/dev/null && ninja -C $(BUILD) hybridio-fio hybridio-rocksdb
	$(PY) bench/io_counts.py --engine $(BUILD)/plugins/fio/libhybridio-fio.so --hio-bench $(BUILD)/hio-bench \
		--db-bench db_bench --plugin $(BUILD)/plugins/rocksdb/libhybridio-rocksdb.so $(COUNTS_ARGS)

# RocksDB's own crash test (db_crashtest.py with db_stress, built from
# Debian's source of the installed RocksDB) through the plugin under each
# wait strategy, on the disk and on tmpfs under emu:pcie4, beside RocksDB's
# Posix file system as the control. CRASHTEST_ARGS="--duration 300" sets the
# seconds of each run (16 runs); docs/rocksdb.md.
crashtest:
	$(call ready,test)
	scripts/db-stress.sh $(BUILD)/crashtest
	$(PY) tests/rocksdb/crashtest.py --build $(BUILD) $(CRASHTEST_ARGS)

# fio's verify on the engine, the writer killed with SIGKILL KILLS times
# (default 51) across the wait strategies, then every block read back and
# checked; docs/fio.md.
KILLS ?= 51
verify-kill:
	$(call ready,test)
	$(PY) tests/fio/verify_kill.py --build $(BUILD) --kills $(KILLS) $(VERIFY_KILL_ARGS)

# The study's co-runner matrix through hio-bench and through fio with the
# engine, on the emulated SSDs: the same winners, IOPS within 5% (about 5 min).
bench-study-drivers:
	$(call ready,bench)
	cmake -S . -B $(BUILD) >/dev/null && ninja -C $(BUILD) hybridio-fio
	$(PY) bench/study_drivers.py --hio-bench $(BUILD)/hio-bench \
		--fio-engine $(BUILD)/plugins/fio/libhybridio-fio.so $(STUDY_DRIVERS_ARGS)

# adaptive against poll alone and under a light demand (docs/benchmarks.md).
bench-adaptive:
	$(call ready,study)
	$(PY) bench/adaptive.py --hio-bench $(BUILD)/hio-bench

# adaptive beside a busy loop in on/off bursts of 20-1000 ms and always on,
# on the disk and emu:pcie3, 5 paired rounds of 3 s (about 12 min; docs/benchmarks.md).
bench-bursty:
	$(call ready,study)
	PYTHONPATH="$(CURDIR)/python" $(PY) -m hybridio.study.bursty --hio-bench $(BUILD)/hio-bench --runtime 3 $(BURSTY_ARGS)

# 2 and 4 I/O threads of ours on one core, without and beside an always-on
# neighbour, on the disk and emu:pcie4 (about 7 min; docs/benchmarks.md).
bench-own-threads:
	$(call ready,study)
	for n in 2 4; do PYTHONPATH="$(CURDIR)/python" $(PY) -m hybridio.study.bursty --hio-bench $(BUILD)/hio-bench \
		--targets file,emu:pcie4 --bursts=-1,0 --numjobs $$n $(BURSTY_ARGS) || exit 1; done

# The handle experiments alone (priority, queues, polling period, cache,
# read-ahead, split queues): .venv/bin/python -m hybridio.handles --help for options.
bench-handles:
	$(call ready,study)
	PYTHONPATH="$(CURDIR)/python" $(PY) -m hybridio.handles --hio-bench $(BUILD)/hio-bench

# The RocksDB study (docs/rocksdb-study.md): db_bench's mixgraph and
# readrandom on Posix and on hybridio's RocksDB plugin, alone and beside a
# co-runner on its core, on the disk and emulated PCIe 3.0/4.0 SSDs (about
# 2.4 h; ROCKSDB_ARGS=--quick for about 8 min, or a part: --devices disk).
bench-rocksdb:
	$(call ready,study)
	PYTHONPATH="$(CURDIR)/python" $(PY) -m hybridio.rocksdb \
		--plugin $(BUILD)/plugins/rocksdb/libhybridio-rocksdb.so $(ROCKSDB_ARGS)

# hio-sim (docs/simulator.md). SIM_OUT: where results go (default: a folder in
# the system temp directory); SIM_ARGS: more options for the command.
SIM_OUT ?= $(shell mktemp -d -t hio-sim-XXXXXX)

# The regret suite over the full grid (about 5 min here; SIM_ARGS=--quick: 20 s).
sim-suite: build
	$(BUILD)/hio-sim suite --out $(SIM_OUT) $(SIM_ARGS)

# The simulator against a study's output: STUDY=the study's results folder.
sim-validate: build
	@test -n "$(STUDY)" || { echo "make sim-validate STUDY=<a make study results folder>" >&2; exit 2; }
	$(BUILD)/hio-sim validate --study $(STUDY) --out $(SIM_OUT) $(SIM_ARGS)

# The thesis's Figs 7-10 and 16, simulated, beside its numbers.
sim-thesis: build
	$(BUILD)/hio-sim thesis --out $(SIM_OUT) $(SIM_ARGS)

# Measures this machine into a profile (about 30 s; PROFILE=path, default
# the shipped here-virtio.json; the disk file is the study's).
PROFILE ?= tools/hio-sim/profiles/here-virtio.json
sim-calibrate: build
	$(BUILD)/hio-sim calibrate --name here-virtio --out $(PROFILE) --file $${TMPDIR:-/tmp}/hybridio-study.dat --size-mb 1024 $(SIM_ARGS)

# 2 to 64 simulated cores: simulated seconds per second, the governor's cost.
sim-scale: build
	$(BUILD)/hio-sim scale --out $(SIM_OUT) $(SIM_ARGS)

# The completion thread's automatic poll period against every fixed one (about 2 min).
sim-periods: build
	$(BUILD)/hio-sim periods --out $(SIM_OUT) $(SIM_ARGS)

# Records the RocksDB traces hio-sim replays (tools/hio-sim/traces; a few minutes).
traces:
	$(call ready,study)
	$(PY) bench/record_traces.py --plugin $(BUILD)/plugins/rocksdb/libhybridio-rocksdb.so --out tools/hio-sim/traces $(TRACES_ARGS)

# Debian packages, libhybridio0, libhybridio-dev and hybridio-tools, by
# CPack from a Release build in $(DEB_BUILD) for /usr; prints their paths
# (docs/install.md). The fio engine is part of hybridio-tools, so fio's
# source must be there (scripts/fio-source.sh; make deps fetches it).
# Compiled with Debian's hardening flags, as its own packages are.
DEB_BUILD ?= build-deb
DEB_FLAGS = DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --get
deb:
	scripts/deps.sh --check deb
	cmake -S . -B $(DEB_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release -DHIO_BUILD_TESTS=OFF -DCMAKE_INSTALL_PREFIX=/usr \
		-DCMAKE_C_FLAGS="$$($(DEB_FLAGS) CPPFLAGS) $$($(DEB_FLAGS) CFLAGS)" \
		-DCMAKE_CXX_FLAGS="$$($(DEB_FLAGS) CPPFLAGS) $$($(DEB_FLAGS) CXXFLAGS)" \
		-DCMAKE_EXE_LINKER_FLAGS="$$($(DEB_FLAGS) LDFLAGS)" -DCMAKE_SHARED_LINKER_FLAGS="$$($(DEB_FLAGS) LDFLAGS)" \
		-DCMAKE_MODULE_LINKER_FLAGS="$$($(DEB_FLAGS) LDFLAGS)" $(DEB_CMAKE_FLAGS) >/dev/null
	ninja -C $(DEB_BUILD) -j $(JOBS)
	@for f in plugins/fio/libhybridio-fio.so plugins/rocksdb/libhybridio-rocksdb.so; do \
		test -f $(DEB_BUILD)/$$f || { echo "make deb: $(DEB_BUILD)/$$f was not built (fio's source: scripts/fio-source.sh; RocksDB: librocksdb-dev)" >&2; exit 1; }; done
	@rm -f $(DEB_BUILD)/deb/*.deb
	cd $(DEB_BUILD) && cpack -G DEB >/dev/null
	@ls -1 $(abspath $(DEB_BUILD))/deb/*.deb

clean:
	rm -rf build build-asan build-tsan $(DEB_BUILD)
