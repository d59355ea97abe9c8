# hybridio: `make study` runs the main job, `make test` runs every test.
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: deps build test study bench-fio unit sanitize cli clean

build:
	scripts/deps.sh build
	cmake -S . -B $(BUILD) -G Ninja -DHIO_WERROR=ON $(CMAKE_FLAGS) >/dev/null
	ninja -C $(BUILD) -j $(JOBS)

# Everything: unit tests, the ASan+UBSan build of them, the threaded tests
# under TSan, and the command-line tests of hio-bench.
test:
	scripts/deps.sh test
	scripts/run-tests.sh

# The main job: hio-bench's wait strategies compared on a file in the system
# temp directory and on the emulated PCIe 4.0 SSD.
study: build
	python3 bench/compare_strategies.py --hio-bench $(BUILD)/hio-bench

# hio-bench against fio on the same file (docs/benchmarks.md).
bench-fio: build
	scripts/deps.sh bench
	python3 bench/fio_compare.py --hio-bench $(BUILD)/hio-bench

clean:
	rm -rf build build-asan build-tsan
