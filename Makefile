# The README's commands:
#   make demo    install what is missing, build what the demo needs, trace the bundled example,
#                print its leak report
#   make check   install what is missing, build everything, run the whole test suite
#   make install PREFIX=/usr/local   build and install the tools (cmake --install)
#   make release BUILD=build-release a Release build of what ships (no tests, no benchmarks)
BUILD ?= build
JOBS ?= $(shell nproc)
PREFIX ?= /usr/local

# What ships, and what `make demo` runs: the commands, the tracer modules, the context library
# and (for the demo) the example program. Tests and benchmarks are not needed for either.
SHIPPED_TARGETS = rtrace sp-rtrace sp-rtrace-postproc sp-rtrace-resolve \
                  rtrace_tracer_main rtrace_tracer_memory rtrace_tracer_file \
                  rtrace_tracer_shmsysv rtrace_tracer_shmposix rtrace_tracer_memtransfer \
                  rtrace_tracer_gobject rtrace_context
DEMO_TARGETS = rtrace rtrace_tracer_main rtrace_tracer_memory leaky

.PHONY: all deps build demo check install release bench format clean

all: build

deps:
	@scripts/install-deps.sh

$(BUILD)/build.ninja: | deps
	cmake -S . -B $(BUILD) -G Ninja

build: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

demo: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS) --target $(DEMO_TARGETS)
	@scripts/demo.sh $(BUILD)

check: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

install: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS) --target $(SHIPPED_TARGETS)
	cmake --install $(BUILD) --prefix $(PREFIX)

release: deps
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release \
	      -DRTRACE_BUILD_TESTS=OFF -DRTRACE_BUILD_BENCH=OFF
	cmake --build $(BUILD) -j $(JOBS)

bench: build
	@scripts/install-deps.sh --bench
	bench/run.sh $(BUILD)

format:
	git ls-files '*.cpp' '*.h' '*.c' | xargs clang-format -i

clean:
	rm -rf $(BUILD)
