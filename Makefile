# The README's commands:
#   make demo    install what is missing, build what the demo needs, trace the bundled example,
#                print its leak report
#   make check   install what is missing, build everything, run the whole test suite (the
#                exhaustive tests on a fixed sample of their cases)
#   make check-slow    the exhaustive tests' full sweeps (ctest label `slow`) in the same build
#   make install PREFIX=/usr/local   build and install the tools (cmake --install)
#   make release BUILD=build-release a Release build of what ships (no tests, no benchmarks)
#   make deb DEB_OUT=build-deb   the Debian packages rtrace, librtrace-context0 and
#                      librtrace-context-dev (debian/, dpkg-buildpackage) in DEB_OUT, checked by
#                      lintian; scripts/check-package.sh DEB_OUT installs them in a fresh Debian
#                      root and smoke-tests them
#   make fuzz          build the libFuzzer targets with clang (in FUZZ_BUILD, build-fuzz; CI
#                      uses the sanitizer build, which holds them) and run each FUZZ_SECONDS
#                      (60), FUZZ_CPU_SECONDS of CPU when that is set, or FUZZ_RUNS inputs from a
#                      fixed seed when FUZZ_RUNS is set (CI: FUZZ_RUNS=400)
#   make check-sanitize  the whole test suite built by clang with ASan+UBSan and the fuzz
#                      targets (in build-sanitize), the suite run, then make check-tsan
#   make check-tsan    the code that runs on several threads, built with ThreadSanitizer
#                      (build-tsan): the tracer's ring/merge tests, the fast leaks scan's worker
#                      thread and the resolver's threads
#   make screenshot  the README's picture of the demo's HTML report (headless Chromium)
BUILD ?= build
JOBS ?= $(shell nproc)
PREFIX ?= /usr/local
FUZZ_SECONDS ?= 60
FUZZ_RUNS ?=
FUZZ_CPU_SECONDS ?=
SANITIZE_BUILD ?= build-sanitize
FUZZ_BUILD ?= build-fuzz
DEB_OUT ?= build-deb
TSAN_BUILD ?= build-tsan
# The tests of the code that runs on several threads (cmake/ThreadSanitize.cmake), by folder.
TSAN_TESTS = tracer/record_merge_test tracer/tracer_core_test \
             formats/sprtrace_binary/leaks_scan_test symbols/symbols_test
# Extra configuration of the sanitizer build (CI: -DRTRACE_REQUIRE_FIXTURES=ON), and of BUILD
# (`make configure`; CI: the same and -DRTRACE_RELEASE_OPTIMIZATION=ON).
SANITIZE_FLAGS ?=
CMAKE_FLAGS ?=
space := $(subst ,, )
# The compiler cache, when ccache is installed: every build folder is configured with it as the
# compiler launcher (scripts/ccache-launcher.sh says with which settings). Without it the builds
# are the same, only slower.
ifneq ($(shell command -v ccache),)
  LAUNCHER = -DCMAKE_C_COMPILER_LAUNCHER=$(CURDIR)/scripts/ccache-launcher.sh \
             -DCMAKE_CXX_COMPILER_LAUNCHER=$(CURDIR)/scripts/ccache-launcher.sh
endif
# The ASan+UBSan build is clang's, so that it also holds the fuzz targets (RTRACE_BUILD_FUZZERS:
# libFuzzer is clang's, and its coverage instrumentation costs the tests little): `make fuzz
# FUZZ_BUILD=build-sanitize` links them from its libraries instead of building all of src/ again.
# SANITIZE_COMPILER= (empty) makes it GCC's, without the fuzz targets.
CLANG = -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14
SANITIZE_COMPILER ?= $(CLANG)

# What `make demo` runs: the recorder, the tracer with its memory module and the example program.
# What ships is the CMake target rtrace_shipped (the commands, every tracer library that
# rtrace_tracer_module declares, the context library); tests and benchmarks are not needed.
DEMO_TARGETS = rtrace rtrace_tracer_main rtrace_tracer_memory leaky

.PHONY: all deps configure build demo check check-slow install release deb bench format clean \
        fuzz check-sanitize check-tsan screenshot

all: build

deps:
	@scripts/install-deps.sh

$(BUILD)/build.ninja: | deps
	cmake -S . -B $(BUILD) -G Ninja $(LAUNCHER) $(CMAKE_FLAGS)

configure: deps
	cmake -S . -B $(BUILD) -G Ninja $(LAUNCHER) $(CMAKE_FLAGS)

build: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

demo: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS) --target $(DEMO_TARGETS)
	@scripts/demo.sh $(BUILD)

# The window is as tall as the summary, the timeline and the flame graph.
screenshot: demo
	profile=$$(mktemp -d) && trap 'rm -rf "$$profile"' EXIT && \
	chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
	  --disable-background-networking --disable-component-update --disable-sync \
	  --hide-scrollbars --user-data-dir="$$profile" --window-size=1280,1250 \
	  --screenshot=$(CURDIR)/docs/report-screenshot.png \
	  "file://$$(cd $(BUILD)/demo && pwd)/leaky-report.html#weight=allocated" 2>/dev/null

# The exhaustive tests (every cut of a file, at every byte) run a fixed sample of their cases
# here; `make check-slow` runs the full sweeps (tests/CMakeLists.txt, rtrace_add_slow_test).
check: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -LE '^slow$$'

check-slow: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -L '^slow$$'

install: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS) --target rtrace_shipped
	cmake --install $(BUILD) --prefix $(PREFIX)

release: deps
	cmake -S . -B $(BUILD) -G Ninja $(LAUNCHER) -DCMAKE_BUILD_TYPE=Release \
	      -DRTRACE_BUILD_TESTS=OFF -DRTRACE_BUILD_BENCH=OFF
	cmake --build $(BUILD) -j $(JOBS) --target rtrace_shipped

# The packages are built from a copy of the tree in DEB_OUT (the tree stays clean), with the
# compiler cache when ccache is installed (scripts/build-deb.sh).
deb:
	@scripts/install-deps.sh --deb
	JOBS=$(JOBS) scripts/build-deb.sh $(DEB_OUT)

fuzz:
	@scripts/install-deps.sh --fuzz
	FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_CPU_SECONDS=$(FUZZ_CPU_SECONDS) FUZZ_RUNS=$(FUZZ_RUNS) \
	  scripts/fuzz.sh $(FUZZ_BUILD)

# The sanitizers' runtime must come first in a process: the tracer libraries and the programs the
# tests trace stay uninstrumented (cmake/Sanitize.cmake). The exhaustive tests run their sample.
check-sanitize: deps
	@scripts/install-deps.sh --fuzz
	cmake -S . -B $(SANITIZE_BUILD) -G Ninja $(SANITIZE_COMPILER) $(LAUNCHER) -DRTRACE_SANITIZE=ON \
	      -DRTRACE_BUILD_BENCH=OFF $(if $(SANITIZE_COMPILER),-DRTRACE_BUILD_FUZZERS=ON) \
	      $(SANITIZE_FLAGS)
	cmake --build $(SANITIZE_BUILD) -j $(JOBS)
	cd $(SANITIZE_BUILD) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --output-on-failure -j $(JOBS) -LE '^slow$$'
	$(MAKE) check-tsan

# TSan cannot share a process with ASan: its own build, of the multi-threaded code's tests only.
# Each test in its own process, JOBS at once (by the programs' labels, tests/CMakeLists.txt), so
# that the slowest tests of the four programs run side by side rather than one program after the
# other. The exhaustive tests run their sample here (the full sweeps are `make check-slow`'s).
check-tsan: deps
	cmake -S . -B $(TSAN_BUILD) -G Ninja $(LAUNCHER) -DRTRACE_TSAN=ON -DRTRACE_BUILD_BENCH=OFF \
	      $(SANITIZE_FLAGS)
	cmake --build $(TSAN_BUILD) -j $(JOBS) --target $(notdir $(TSAN_TESTS))
	cd $(TSAN_BUILD) && TSAN_OPTIONS=halt_on_error=1 ctest --output-on-failure -j $(JOBS) \
	  -L '^($(subst $(space),|,$(strip $(notdir $(TSAN_TESTS)))))$$'

bench: build
	@scripts/install-deps.sh --bench
	bench/run.sh $(BUILD)

format:
	git ls-files '*.cpp' '*.h' '*.c' | xargs clang-format -i

clean:
	rm -rf $(BUILD)
